"""A sweep's static HTML report (no server, no JavaScript), on the page template of
every cclab report (:func:`cclab.plots.html.page`).

``write_report(results, out_dir)`` — a sweep's results file (``cclab report``):
``index.html`` and one SVG figure per plan and metric: the mean across replications
with its 95 % confidence interval (clipped to the metric's range: a Jain index or a
utilisation never shows an error bar past 1 or below 0), against the numeric axis with
the most values, one line per value of the other axes (one panel per value of the
smallest of them when there are two or more; ``group_by`` names the axis whose values
become the lines, the others then become panels). Below: mean ± CI tables, failed
runs, the plan and an example scenario, and provenance. (A paper reproduction's
report is :mod:`cclab.papers.report`.)
"""
from __future__ import annotations

from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Optional

from cclab.plots import canvas
from cclab.plots.html import escape, page, provenance_table, slug
import pandas as pd  # noqa: E402

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

from cclab.runs.plan import Plan, load_plan  # noqa: E402
from cclab.analysis.stats import summarize  # noqa: E402
from cclab.errors import StoreError  # noqa: E402
from cclab.store.sweeps import SweepStore  # noqa: E402

# The range a metric cannot leave: error bars are clipped to it.
METRIC_BOUNDS = {"jain_index": (0.0, 1.0), "bottleneck_utilization": (0.0, 1.0), "goodput_mbps": (0.0, None),
                 "mean_queue_delay_ms": (0.0, None), "bottleneck_drops": (0.0, None)}
REPORT_METRICS = ("goodput_mbps", "jain_index", "bottleneck_utilization", "mean_queue_delay_ms", "bottleneck_drops")
METRIC_LABELS = {
    "goodput_mbps": "System goodput (Mb/s)", "jain_index": "Jain fairness index",
    "bottleneck_utilization": "Bottleneck utilization", "mean_queue_delay_ms": "Mean queueing delay (ms)",
    "bottleneck_drops": "Bottleneck drops",
}
NAMING_AXES = ("group", "name")  # in a zip group, an axis ending like this names the value alone


def write_report(results: str | PathLike, out_dir: str | PathLike, group_by: Optional[str] = None) -> Path:
    """Write the report of the sweep results file ``results`` into ``out_dir``; return
    the path of its ``index.html``. ``group_by``: an axis path whose values become the
    lines of every figure (it must be an axis of every sweep plan in the file)."""
    out = Path(out_dir)
    with SweepStore(results, read_only=True) as store:
        plans = store.plans()
        runs = store.runs()
    if "kind" in plans:
        plans = plans[plans["kind"].fillna("sweep") == "sweep"]
    parsed = []
    for plan_name in dict.fromkeys(plans["name"]):
        latest = plans[plans["name"] == plan_name].iloc[-1]
        plan = load_plan(tomllib.loads(latest["plan_toml"]))
        if group_by is not None and group_by not in plan.axes:
            raise StoreError(f"--group-by {group_by}: not an axis of plan {plan.name!r} "
                             f"(its axes: {', '.join(plan.axes)})")
        parsed.append((plan, latest["plan_toml"], runs[runs["plan_name"] == plan_name]))
    out.mkdir(parents=True, exist_ok=True)
    sections = [_plan_section(plan, plan_toml, plan_runs, out, group_by) for plan, plan_toml, plan_runs in parsed]
    target = out / "index.html"
    runs = runs[runs["plan_name"].isin([plan.name for plan, _, _ in parsed])]
    body = "<h2>Provenance</h2>" + provenance_table(_sweep_provenance(runs)) + "\n".join(sections)
    target.write_text(page(f"cclab sweep report: {Path(results).name}", body), encoding="utf-8")
    return target


def _plan_section(plan: Plan, plan_toml: str, runs: pd.DataFrame, out: Path, group_by: Optional[str] = None) -> str:
    ok = runs[runs["status"] == "ok"]
    axes = [path for group in plan.dimensions for path in group if path in runs]
    parts = [f"<h2>Plan {escape(plan.name)}</h2>",
             f"<p>{len(runs)} runs stored ({len(ok)} ok, {len(runs) - len(ok)} failed); "
             f"{len(plan.points())} points × {plan.replications} replications in the plan.</p>"]
    metrics = [metric for metric in REPORT_METRICS if metric in ok and ok[metric].notna().any()]
    if len(ok) and metrics:
        summary = summarize(ok, by=axes, metrics=metrics)
        for metric in metrics:
            figure = out / f"{slug(plan.name)}-{metric}.svg"
            _plot_metric(plan, summary[summary["metric"] == metric], metric, figure, group_by)
            parts.append(f'<figure><img src="{escape(figure.name)}" alt="{escape(METRIC_LABELS.get(metric, metric))}">'
                         f"<figcaption>{escape(METRIC_LABELS.get(metric, metric))}: mean over replications, "
                         "error bars: 95 % confidence interval.</figcaption></figure>")
        parts.append("<h3>Mean ± 95 % confidence half-width</h3>" + _summary_table(plan, summary))
    failed = runs[runs["status"] != "ok"]
    if len(failed):
        parts.append("<h3>Failed runs</h3>" + _table(failed[[*axes, "replication", "run_id", "error"]]))
    parts.append(f"<h3>Plan</h3><pre>{escape(plan_toml)}</pre>")
    if len(runs):
        first = runs.iloc[0]
        parts.append(f"<h3>Scenario of the first run (seed {first['seed']})</h3><pre>{escape(first['scenario_toml'])}</pre>")
    return f'<section class="plan">{"".join(parts)}</section>'


def figure_layout(plan: Plan, present: Sequence[str], group_by: Optional[str] = None):
    """How a sweep figure is laid out: ``(x, lines, panels)`` — the x dimension (or None),
    the dimensions whose values are lines, those whose values are panels. Dimensions are
    tuples of axis paths (a zip group is one dimension); ``present``: the axes with data."""
    dimensions = [group for group in plan.dimensions if all(path in present for path in group)]
    chosen = next((group for group in dimensions if group_by in group), None) if group_by else None
    x_group = _x_dimension(plan, [group for group in dimensions if group != chosen])
    others = [group for group in dimensions if group not in (x_group, chosen)]
    if chosen is not None:
        return x_group, [chosen], others
    if len(others) >= 2:
        panel_group = min(others, key=lambda g: len(plan.axes[g[0]]))
        return x_group, [group for group in others if group != panel_group], [panel_group]
    return x_group, others, []


def clipped_error(mean: pd.Series, ci_low: pd.Series, ci_high: pd.Series, metric: str) -> list[pd.Series]:
    """Error-bar lengths below and above the mean, the interval clipped to the range the
    metric can take (:data:`METRIC_BOUNDS`): a t-interval is symmetric and knows nothing of it."""
    low, high = METRIC_BOUNDS.get(metric, (None, None))
    ci_low = ci_low.clip(lower=low) if low is not None else ci_low
    ci_high = ci_high.clip(upper=high) if high is not None else ci_high
    return [(mean - ci_low).clip(lower=0), (ci_high - mean).clip(lower=0)]


def _plot_metric(plan: Plan, summary: pd.DataFrame, metric: str, path: Path, group_by: Optional[str] = None) -> None:
    """Mean ± CI of ``metric`` against the x dimension; lines and panels as in the module docs."""
    from matplotlib.ticker import MaxNLocator, ScalarFormatter

    x_group, line_groups, panel_groups = figure_layout(plan, list(summary.columns), group_by)
    panels = _split_many(summary, panel_groups) if panel_groups else [("", summary)]
    integer_x = x_group is not None and all(isinstance(v, int) for v in plan.axes[x_group[0]])
    figure, axes = canvas.subplots(1, len(panels), figsize=(6 * len(panels), 4.2), squeeze=False)
    for axis, (panel_label, in_panel) in zip(axes[0], panels):
        for line_label, line in _split_many(in_panel, line_groups):
            if x_group is None:
                xs = range(len(line))
            else:
                line = line.sort_values(x_group[0])
                xs = line[x_group[0]]
            error = clipped_error(line["mean"], line["ci_low"], line["ci_high"], metric)
            axis.errorbar(xs, line["mean"], yerr=error, marker="o", capsize=3, label=line_label or None)
        axis.set_title(panel_label)
        axis.set_xlabel(_header(x_group) if x_group else "point")
        axis.set_ylabel(METRIC_LABELS.get(metric, metric))
        # Clean ticks: whole numbers on a count axis; plain numbers, never an offset or 1e6 factor.
        if integer_x or x_group is None:
            axis.xaxis.set_major_locator(MaxNLocator(integer=True))
        for scale in (axis.xaxis, axis.yaxis):
            formatter = ScalarFormatter(useOffset=False)
            formatter.set_scientific(False)
            scale.set_major_formatter(formatter)
        low, high = METRIC_BOUNDS.get(metric, (None, None))
        if high is not None:
            axis.set_ylim(top=high * 1.02)
        axis.grid(alpha=0.3)
        if line_groups:
            axis.legend(fontsize="small")
    canvas.save(figure, path)


def _x_dimension(plan: Plan, dimensions: list[tuple[str, ...]]) -> Optional[tuple[str, ...]]:
    """The dimension with the most values among those whose first axis is numeric."""
    numeric = [group for group in dimensions
               if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in plan.axes[group[0]])]
    return max(numeric, key=lambda g: len(plan.axes[g[0]]), default=None)


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


def _sweep_provenance(runs: pd.DataFrame) -> list[tuple[str, str]]:
    def distinct(column: str) -> str:
        values = [str(v) for v in dict.fromkeys(runs[column].dropna())] if column in runs else []
        return ", ".join(values) or "unknown"

    ok = runs[runs["status"] == "ok"]
    return [
        ("runs", f"{len(runs)} ({len(ok)} ok, {len(runs) - len(ok)} failed)"),
        ("cclab version", distinct("cclab_version")),
        ("git commit", distinct("git_commit")),
        ("hosts", distinct("host")),
        ("simulation wall time", f"{ok['wall_time_s'].sum():.1f} s" if "wall_time_s" in ok else "unknown"),
        ("events", f"{int(ok['events'].sum()):,}" if "events" in ok else "unknown"),
        ("finished", f"{runs['finished_utc'].min()} … {runs['finished_utc'].max()}" if len(runs) else ""),
    ]
