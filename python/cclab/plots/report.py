"""A static HTML report of a sweep's results file (no server, no JavaScript).

``write_report(results, out_dir)`` writes ``index.html`` and one SVG figure per plan and
metric: the mean across replications with its 95 % confidence interval, against the
numeric axis with the most values, one line per value of the other axes (one panel per
value of the smallest of them when there are two or more). Below: mean ± CI tables,
failed runs, the plan and an example scenario, and provenance (versions, git commits,
hosts, wall time).
"""
from __future__ import annotations

import html
import re
from os import PathLike
from pathlib import Path
from typing import Optional

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import pandas as pd  # noqa: E402

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

from cclab.runs.plan import Plan, load_plan  # noqa: E402
from cclab.analysis.stats import summarize  # noqa: E402
from cclab.store.sweeps import SweepStore  # noqa: E402

REPORT_METRICS = ("goodput_mbps", "jain_index", "bottleneck_utilization", "mean_queue_delay_ms", "bottleneck_drops")
METRIC_LABELS = {
    "goodput_mbps": "System goodput (Mb/s)", "jain_index": "Jain fairness index",
    "bottleneck_utilization": "Bottleneck utilization", "mean_queue_delay_ms": "Mean queueing delay (ms)",
    "bottleneck_drops": "Bottleneck drops",
}
NAMING_AXES = ("group", "name")  # in a zip group, an axis ending like this names the value alone


def write_report(results: str | PathLike, out_dir: str | PathLike) -> Path:
    """Write the report of the sweep results file ``results`` into ``out_dir``; return
    the path of its ``index.html``."""
    out = Path(out_dir)
    with SweepStore(results, read_only=True) as store:
        plans = store.plans()
        runs = store.runs()
    out.mkdir(parents=True, exist_ok=True)
    sections = []
    for plan_name in dict.fromkeys(plans["name"]):
        plan_runs = runs[runs["plan_name"] == plan_name]
        latest = plans[plans["name"] == plan_name].iloc[-1]
        plan = load_plan(tomllib.loads(latest["plan_toml"]))
        sections.append(_plan_section(plan, latest["plan_toml"], plan_runs, out))
    page = out / "index.html"
    page.write_text(_page(Path(results).name, runs, "\n".join(sections)), encoding="utf-8")
    return page


def _plan_section(plan: Plan, plan_toml: str, runs: pd.DataFrame, out: Path) -> str:
    ok = runs[runs["status"] == "ok"]
    axes = [path for group in plan.dimensions for path in group if path in runs]
    parts = [f"<h2>Plan {_e(plan.name)}</h2>",
             f"<p>{len(runs)} runs stored ({len(ok)} ok, {len(runs) - len(ok)} failed); "
             f"{len(plan.points())} points × {plan.replications} replications in the plan.</p>"]
    metrics = [metric for metric in REPORT_METRICS if metric in ok and ok[metric].notna().any()]
    if len(ok) and metrics:
        summary = summarize(ok, by=axes, metrics=metrics)
        for metric in metrics:
            figure = out / f"{_slug(plan.name)}-{metric}.svg"
            _plot_metric(plan, summary[summary["metric"] == metric], metric, figure)
            parts.append(f'<figure><img src="{_e(figure.name)}" alt="{_e(METRIC_LABELS.get(metric, metric))}">'
                         f"<figcaption>{_e(METRIC_LABELS.get(metric, metric))}: mean over replications, "
                         "error bars: 95 % confidence interval.</figcaption></figure>")
        parts.append("<h3>Mean ± 95 % confidence half-width</h3>" + _summary_table(plan, summary))
    failed = runs[runs["status"] != "ok"]
    if len(failed):
        parts.append("<h3>Failed runs</h3>" + _table(failed[[*axes, "replication", "run_id", "error"]]))
    parts.append(f"<h3>Plan</h3><pre>{_e(plan_toml)}</pre>")
    if len(runs):
        first = runs.iloc[0]
        parts.append(f"<h3>Scenario of the first run (seed {first['seed']})</h3><pre>{_e(first['scenario_toml'])}</pre>")
    return f'<section class="plan">{"".join(parts)}</section>'


def _plot_metric(plan: Plan, summary: pd.DataFrame, metric: str, path: Path) -> None:
    """Mean ± CI of ``metric`` against the x dimension; lines and panels as in the module docs."""
    dimensions = [group for group in plan.dimensions if all(path in summary for path in group)]
    x_group = _x_dimension(plan, dimensions)
    others = [group for group in dimensions if group != x_group]
    panel_group = min(others, key=lambda g: len(plan.axes[g[0]])) if len(others) >= 2 else None
    line_groups = [group for group in others if group != panel_group]
    panels = _split(summary, panel_group) if panel_group else [("", summary)]
    figure, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.2), squeeze=False)
    for axis, (panel_label, in_panel) in zip(axes[0], panels):
        for line_label, line in _split_many(in_panel, line_groups):
            if x_group is None:
                xs = range(len(line))
            else:
                line = line.sort_values(x_group[0])
                xs = line[x_group[0]]
            error = [line["mean"] - line["ci_low"], line["ci_high"] - line["mean"]]
            axis.errorbar(xs, line["mean"], yerr=error, marker="o", capsize=3, label=line_label or None)
        axis.set_title(panel_label)
        axis.set_xlabel(x_group[0] if x_group else "point")
        axis.set_ylabel(METRIC_LABELS.get(metric, metric))
        axis.grid(alpha=0.3)
        if line_groups:
            axis.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def _x_dimension(plan: Plan, dimensions: list[tuple[str, ...]]) -> Optional[tuple[str, ...]]:
    """The dimension with the most values among those whose first axis is numeric."""
    numeric = [group for group in dimensions
               if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in plan.axes[group[0]])]
    return max(numeric, key=lambda g: len(plan.axes[g[0]]), default=None)


def _split(frame: pd.DataFrame, group: tuple[str, ...]) -> list[tuple[str, pd.DataFrame]]:
    """Rows of ``frame`` per value of the zip group ``group``, with a label for each."""
    return [(_label(group, key if isinstance(key, tuple) else (key,)), part)
            for key, part in frame.groupby(list(group), sort=False)]


def _split_many(frame: pd.DataFrame, groups: list[tuple[str, ...]]) -> list[tuple[str, pd.DataFrame]]:
    if not groups:
        return [("", frame)]
    paths = [path for group in groups for path in group]
    result = []
    for key, part in frame.groupby(paths, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        values = dict(zip(paths, key))
        result.append((", ".join(_label(g, tuple(values[p] for p in g)) for g in groups), part))
    return result


def _label(group: tuple[str, ...], values: tuple) -> str:
    """Legend or panel label of a dimension's value: ``TCP(1, 0.5)`` (a naming axis),
    ``rate=10Mbps``, ``alpha, beta=0.31, 0.875``."""
    if _naming_axis(group):
        return _value(group, values)
    return f"{_header(group)}={_value(group, values)}"


def _short(path: str) -> str:
    parts = path.split(".")
    return ".".join(parts[-2:]) if parts[-1].isdigit() else parts[-1]


def _summary_table(plan: Plan, summary: pd.DataFrame) -> str:
    """One row per point: a column per dimension (zip groups as one), n, then mean ± CI per metric."""
    dimensions = [group for group in plan.dimensions if all(path in summary for path in group)]
    rows: dict[tuple, dict[str, object]] = {}
    for values in summary.to_dict("records"):
        key = tuple(values[path] for group in dimensions for path in group)
        cells = rows.setdefault(key, {_header(group): _value(group, tuple(values[p] for p in group))
                                      for group in dimensions})
        cells["n"] = max(int(values["n"]), int(cells.get("n", 0)))
        cells[values["metric"]] = _mean_ci(values["mean"], values["ci_low"], values["ci_high"])
    return _table(pd.DataFrame(list(rows.values())))


def _header(group: tuple[str, ...]) -> str:
    """Column header of a dimension: its naming axis, else its axes' short names."""
    naming = _naming_axis(group)
    return _short(naming) if naming else ", ".join(dict.fromkeys(_short(path) for path in group))


def _value(group: tuple[str, ...], values: tuple) -> str:
    """Cell of a dimension: the naming axis's value, else the distinct values."""
    naming = _naming_axis(group)
    if naming:
        return str(values[group.index(naming)])
    return ", ".join(dict.fromkeys(str(value) for value in values))


def _naming_axis(group: tuple[str, ...]) -> Optional[str]:
    return next((path for path in group if path.rsplit(".", 1)[-1] in NAMING_AXES), None)


def _mean_ci(mean: float, ci_low: float, ci_high: float) -> str:
    if pd.isna(ci_high):
        return f"{mean:.4g}"
    return f"{mean:.4g} ± {(ci_high - ci_low) / 2:.2g}"


def _table(frame: pd.DataFrame) -> str:
    return frame.to_html(index=False, escape=True, border=0, classes="data", na_rep="",
                         float_format=lambda value: f"{value:.4g}")


def _provenance(runs: pd.DataFrame) -> str:
    def distinct(column: str) -> str:
        values = [str(v) for v in dict.fromkeys(runs[column].dropna())] if column in runs else []
        return ", ".join(values) or "unknown"

    ok = runs[runs["status"] == "ok"]
    rows = [
        ("runs", f"{len(runs)} ({len(ok)} ok, {len(runs) - len(ok)} failed)"),
        ("cclab version", distinct("cclab_version")),
        ("git commit", distinct("git_commit")),
        ("hosts", distinct("host")),
        ("simulation wall time", f"{ok['wall_time_s'].sum():.1f} s" if "wall_time_s" in ok else "unknown"),
        ("events", f"{int(ok['events'].sum()):,}" if "events" in ok else "unknown"),
        ("finished", f"{runs['finished_utc'].min()} … {runs['finished_utc'].max()}" if len(runs) else ""),
    ]
    body = "".join(f"<tr><th>{_e(name)}</th><td>{_e(value)}</td></tr>" for name, value in rows)
    return f'<table class="provenance">{body}</table>'


def _page(title: str, runs: pd.DataFrame, sections: str) -> str:
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>cclab sweep report: {_e(title)}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }}
th, td {{ padding: 0.2em 0.6em; border-bottom: 1px solid #ddd; text-align: right; }}
table.provenance th, table.provenance td {{ text-align: left; }}
figure {{ margin: 1em 0; }} img {{ max-width: 100%; }}
pre {{ background: #f6f6f6; padding: 1em; overflow-x: auto; font-size: 0.85em; }}
</style></head>
<body>
<h1>cclab sweep report: {_e(title)}</h1>
<h2>Provenance</h2>
{_provenance(runs)}
{sections}
</body></html>
"""


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "plan"


def _e(value: object) -> str:
    return html.escape(str(value))
