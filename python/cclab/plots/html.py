"""HTML: how a :class:`cclab.Result` and a :class:`cclab.SweepStore` show themselves in
Jupyter (``_repr_html_``: small tables, never more than a screenful), and the page
template every cclab report is written on (:func:`page`: a sweep's,
:mod:`cclab.plots.report`; a paper reproduction's, :mod:`cclab.papers.report`)."""
from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any

# Rows of a store's runs table shown (the rest: store.runs()).
RUN_ROWS = 10
RESULT_METRICS = (("goodput_mbps", "goodput", "{:.3f} Mb/s"), ("throughput_mbps", "throughput", "{:.3f} Mb/s"),
                  ("jain_index", "Jain index", "{:.4f}"), ("bottleneck_link", "bottleneck link", "{}"),
                  ("bottleneck_utilization", "bottleneck utilization", "{:.1%}"),
                  ("bottleneck_drops", "bottleneck drops", "{:,}"), ("bottleneck_ecn_marks", "ECN marks", "{:,}"),
                  ("loss_model_drops", "loss-model drops", "{:,}"), ("mean_queue_delay_ms", "mean queue delay",
                                                                      "{:.2f} ms"),
                  ("events", "events", "{:,}"), ("wall_time_s", "wall time", "{:.2f} s"))
STORE_METRICS = ("goodput_mbps", "jain_index", "bottleneck_utilization")


def escape(value: Any) -> str:
    """``value`` as text, escaped for HTML."""
    return html.escape(str(value))


def slug(name: str) -> str:
    """``name`` as a file name or CSS class (letters, digits, ``_.-``)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "plan"


def _frame(frame) -> str:
    return frame.to_html(index=False, border=0, na_rep="", float_format=lambda value: f"{value:.4g}")


def result_html(result) -> str:
    """A run: its system metrics, one row per group, and its warnings."""
    import pandas as pd

    system = result.system
    rows = []
    for key, label, spec in RESULT_METRICS:
        value = system.get(key)
        if value is None:
            continue
        try:
            shown = spec.format(value)
        except (TypeError, ValueError):
            shown = str(value)
        rows.append(f"<tr><th style='text-align:left'>{escape(label)}</th><td>{escape(shown)}</td></tr>")
    groups = pd.DataFrame(result.raw["groups"])
    protocol = groups["cc"].where(groups["cc"].notna(), groups["transport"]) if "cc" in groups else groups["transport"]
    groups = groups.assign(protocol=protocol)
    columns = [c for c in ("name", "protocol", "flows", "goodput_mbps", "throughput_mbps") if c in groups]
    warnings = "".join(f"<li>{escape(line)}</li>" for line in result.warnings)
    title = (f"<b>cclab.Result</b> {escape(result.scenario.get('name', ''))}: {len(result.raw['flows'])} flows, "
             f"{result.duration_s:g} s simulated")
    return (f"<div>{title}<table>{''.join(rows)}</table>{_frame(groups[columns])}"
            + (f"<p>warnings:</p><ul>{warnings}</ul>" if warnings else "")
            + "<p><small>tables: .flows, .groups, .links, .bins, .system_bins, .traces</small></p></div>")


def store_html(store) -> str:
    """A results store: its plans (runs stored, failed, axes) and its first runs."""
    try:
        runs = store.runs()
        plans = store.plans()
    except Exception as error:  # a closed store, a file being written
        return f"<div><b>cclab.SweepStore</b> {escape(store.path)}: {escape(str(error).splitlines()[0])}</div>"
    title = f"<b>cclab.SweepStore</b> {escape(store.path)}: {len(runs)} runs"
    if not len(runs):
        return f"<div>{title}</div>"
    columns = list(runs.columns)
    axes = columns[: columns.index("run_id")] if "run_id" in columns else []
    lines = []
    for name, of_plan in runs.groupby("plan_name", sort=False):
        kinds = plans.loc[plans["name"] == name, "kind"] if "kind" in plans else []
        plan_axes = [axis for axis in axes if of_plan[axis].notna().any()]
        lines.append({"plan": name, "kind": kinds.iloc[-1] if len(kinds) else "sweep", "runs": len(of_plan),
                      "ok": int((of_plan["status"] == "ok").sum()), "failed": int((of_plan["status"] != "ok").sum()),
                      "axes": ", ".join(f"{axis} ({of_plan[axis].nunique()})" for axis in plan_axes)})
    import pandas as pd

    shown = [c for c in (*axes, "replication", "status", *STORE_METRICS) if c in runs]
    more = f"<p><small>first {RUN_ROWS} of {len(runs)} runs: store.runs(), store.table(\"flows\")</small></p>" \
        if len(runs) > RUN_ROWS else ""
    return f"<div>{title}{_frame(pd.DataFrame(lines))}{_frame(runs[shown].head(RUN_ROWS))}{more}</div>"


def provenance_table(rows: Sequence[tuple[str, str]]) -> str:
    body = "".join(f"<tr><th>{escape(name)}</th><td>{escape(value)}</td></tr>" for name, value in rows)
    return f'<table class="provenance">{body}</table>'


PAGE_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; padding: 0 1em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { padding: 0.2em 0.6em; border-bottom: 1px solid #ddd; text-align: right; vertical-align: top; }
table.provenance th, table.provenance td, table.claims th, table.claims td { text-align: left; }
table.claims td.verdict { white-space: nowrap; font-weight: bold; }
.supported { color: #186a1e; } .partly-supported { color: #8a5a00; } .not-supported { color: #a11d1d; }
figure { margin: 1em 0; } img { max-width: 100%; }
pre { background: #f6f6f6; padding: 1em; overflow-x: auto; font-size: 0.85em; }
"""


def page(title: str, body: str) -> str:
    """The one page template of every cclab report: title, shared style, body."""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>
<style>{PAGE_STYLE}</style></head>
<body>
<h1>{escape(title)}</h1>
{body}
</body></html>
"""
