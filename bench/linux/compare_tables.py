"""The tables of bench/linux/compare.py: its report as Markdown (the full table, the README's
compact one, the summary line) and how they are written into a page between markers."""
from __future__ import annotations

import math
import subprocess
from pathlib import Path
from typing import Iterable, Optional

REPO = Path(__file__).resolve().parent.parent.parent

CRITERIA = ("goodput", "queue_delay", "retransmissions", "shares")
CRITERION_LABEL = {"goodput": "goodput ±5 %", "queue_delay": "delay ±15 %/3 ms",
                   "retransmissions": "retx ±30 %/25", "shares": "shares ±0.06"}
SHORT = {"goodput": "goodput", "queue_delay": "delay", "retransmissions": "retx", "shares": "shares"}

# The README's table: a dozen cases across rates, delays, buffers, algorithms and groups.
COMPACT_CASES = ("tcp_r12_d20_b1bdp_reno", "tcp_r12_d20_b1bdp_cubic", "tcp_r12_d20_b1bdp_bbr",
                 "tcp_r48_d10_b10bdp_reno", "tcp_r48_d20_b1bdp_bbr", "tcp_r48_d20_b10bdp_bbr",
                 "tcp_r96_d10_b2bdp_cubic", "tcp_r48_d10_b1bdp_bbr+cubic", "tcp_r12_d20_b5bdp_bbr+cubic",
                 "tcp_r48_d20_b2bdp_cubic+reno", "udp_r48_d20_b1bdp_x1.5", "trace_markov2_d20_b1bdp_bbr")
def markers(scope: str = "") -> dict[str, tuple[str, str]]:
    """The (begin, end) comments a table goes between: ``linux-compare:table`` for the
    reference set, ``linux-compare:SCOPE:table`` for another (the holdout set's file stem)."""
    name = f"linux-compare:{scope}:" if scope else "linux-compare:"
    return {kind: (f"<!-- {name}{kind} -->", f"<!-- /{name}{kind} -->") for kind in ("table", "compact")}


MARKERS = markers()


def git_commit() -> str:
    try:
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return commit + ("+changes" if dirty else "") if commit else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def number(x: Optional[float], digits: int) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def ranged(table: Optional[dict], digits: int) -> str:
    """mean (min–max), the range only when there is more than one value."""
    if not table:
        return "–"
    text = number(table["mean"], digits)
    low, high = number(table["min"], digits), number(table["max"], digits)
    if len(table["values"]) > 1 and low != high:
        text += f" ({low}–{high})"
    return text


def delta_cell(verdict: dict) -> str:
    """(cclab − kernel) / kernel, or the difference itself where the kernel's is 0; in
    bold when outside the criterion's tolerance."""
    if verdict["ok"] is None:
        return "–"
    if verdict["kernel"]:
        text = f"{verdict['relative'] * 100 + 0.0:+.1f} %" if round(verdict["relative"] * 100, 1) else "+0.0 %"
    else:
        text = f"{verdict['delta']:+.1f}"
    text = text.replace("-", "−")
    return text if verdict["ok"] else f"**{text}**"


def ack_ratio(table: dict) -> Optional[float]:
    """Packets on the ACK path per data packet delivered."""
    acks, data = table.get("ack_path_packets"), table.get("uplink_packets")
    return acks["mean"] / data["mean"] if acks and data and data["mean"] else None


def shares_cell(row: dict) -> str:
    verdict = row["criteria"]["shares"]
    if verdict["ok"] is None:
        return "–"
    text = " / ".join(number(x, 2) for x in row["kernel"]["shares"]) + " → " + \
        " / ".join(number(x, 2) for x in row["cclab"]["shares"])
    return text if verdict["ok"] else f"**{text}**"


def failed(row: dict) -> str:
    missed = [SHORT[c] for c in CRITERIA if row["criteria"][c]["ok"] is False]
    return ", ".join(missed) if missed else "meets all"


def flows_label(case: dict) -> str:
    if "udp_rate_mbps" in case:
        return f"UDP {case['udp_rate_mbps']:g} Mb/s"
    return " + ".join(f["cc"] + (f"@{f['start_s']:g}s" if f.get("start_s") else "") for f in case["flows"])


def header(report: dict) -> str:
    s = report["summary"]
    kernel_runs = sum(c["kernel"]["runs"] for c in report["cases"].values())
    return (f"cclab profile `{report['profile']}` (commit {report['commit']}, cclab {report['cclab_version']}), "
            f"seeds {', '.join(map(str, report['seeds']))}, against {kernel_runs} kernel runs of {s['cases']} cases "
            f"(Linux {report.get('kernel', '?')}, reference of {report['reference_recorded']}).")


def summary_line(report: dict) -> str:
    s = report["summary"]
    parts = [f"{CRITERION_LABEL[c]} {s[c]['pass']}/{s[c]['judged']}" for c in CRITERIA]
    line = f"Cases meeting each criterion: {'; '.join(parts)}; all four: {s['passing_all']}/{s['cases']}."
    misses = s.get("misses")
    if misses and misses["count"]:
        line += (f" Of the {misses['count']} criteria missed, {misses['with_repeated_kernel_runs']} are in cases the kernel "
                 f"ran more than once; in {misses['overlapping_kernel_runs']} of those the range of cclab's seeds meets the "
                 f"range of the kernel's runs.")
    singles = s.get("single_runs")
    if singles and singles["cases"]:
        (kp, kn), (cp, cn) = singles["kernel"], singles["cclab"]
        line += (f" Single runs, over the {singles['cases']} cases the kernel ran more than once: {kp} of its {kn} runs "
                 f"meet all four against the mean of its other runs ({100 * kp / kn:.0f} %), {cp} of cclab's {cn} seeds "
                 f"against the mean of the same runs but one (seed k: all but run k; {100 * cp / cn:.0f} %).")
    return line


def markdown_table(report: dict) -> str:
    lines = [header(report), "",
             "| case | flows | goodput kernel (Mb/s) | cclab | Δ | queueing delay kernel (ms) | cclab | Δ "
             "| p95 kernel / cclab (ms) | retransmissions kernel | cclab | Δ | shares kernel → cclab "
             "| drops kernel / cclab | utilisation kernel / cclab | ACKs per packet kernel / cclab | verdict |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, row in report["cases"].items():
        k, c, v = row["kernel"], row["cclab"], row["criteria"]
        p95 = f"{number(k['queue_delay_p95_ms'] and k['queue_delay_p95_ms']['mean'], 1)} / " \
              f"{number(c['queue_delay_p95_ms'] and c['queue_delay_p95_ms']['mean'], 1)}"
        drops = f"{number(k['drops'] and k['drops']['mean'], 0)} / {number(c['drops'] and c['drops']['mean'], 0)}"
        util = f"{number(k['utilization'] and k['utilization']['mean'], 3)} / " \
               f"{number(c['utilization'] and c['utilization']['mean'], 3)}"
        lines.append(f"| {name} | {flows_label(row['case'])} | {ranged(k['goodput_mbps'], 2)} | {ranged(c['goodput_mbps'], 2)} "
                     f"| {delta_cell(v['goodput'])} | {ranged(k['queue_delay_ms'], 1)} | {ranged(c['queue_delay_ms'], 1)} "
                     f"| {delta_cell(v['queue_delay'])} "
                     f"| {p95} | {ranged(k['retransmissions'], 0)} | {ranged(c['retransmissions'], 0)} "
                     f"| {delta_cell(v['retransmissions'])} "
                     f"| {shares_cell(row)} | {drops} | {util} | {number(ack_ratio(k), 2)} / {number(ack_ratio(c), 2)} "
                     f"| {failed(row)} |")
    lines += ["", "Δ = (cclab − kernel) / kernel (the difference itself where the kernel's is 0), in bold when "
              "outside the tolerance (the queueing delay and retransmissions also pass within 3 ms and 25 packets); "
              "ranges: min–max over the kernel's runs and over cclab's seeds, left out where they all agree; "
              "shares: each flow's, in the case's order.", "", summary_line(report)]
    return "\n".join(lines) + "\n"


def compact_table(report: dict, names: Iterable[str] = COMPACT_CASES) -> str:
    chosen = [name for name in names if name in report["cases"]]
    lines = [f"Profile `{report['profile']}`, commit {report['commit']}; kernel: mean of its runs, cclab: mean of "
             f"seeds {', '.join(map(str, report['seeds']))}; bold: outside issue 37's tolerance.", "",
             "| case | goodput kernel / cclab (Mb/s) | Δ | queueing delay kernel / cclab (ms) | Δ "
             "| retransmissions kernel / cclab | shares kernel → cclab |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for name in chosen:
        row = report["cases"][name]
        k, c, v = row["kernel"], row["cclab"], row["criteria"]

        def pair(key, digits):
            return f"{number(k[key] and k[key]['mean'], digits)} / {number(c[key] and c[key]['mean'], digits)}"

        retx = pair("retransmissions", 0) if v["retransmissions"]["ok"] is not None else "–"
        if v["retransmissions"]["ok"] is False:
            retx = f"**{retx}**"
        lines.append(f"| {name} | {pair('goodput_mbps', 2)} | {delta_cell(v['goodput'])} | {pair('queue_delay_ms', 1)} "
                     f"| {delta_cell(v['queue_delay'])} "
                     f"| {retx} | {shares_cell(row)} |")
    lines += ["", summary_line(report)]
    return "\n".join(lines) + "\n"


def write_markdown(path: Path, report: dict, scope: str = "") -> str:
    """Write the table into ``path``: between its markers (full or compact table;
    ``markers(scope)``), or as a new file holding the full table. Returns what was done."""
    path = Path(path)
    pairs = markers(scope)
    tables = {"table": markdown_table(report), "compact": compact_table(report)}
    if not path.exists():
        path.write_text(tables["table"])
        return f"{path}: written"
    text = path.read_text()
    done = []
    for kind, (begin, end) in pairs.items():
        if begin in text:
            if end not in text[text.index(begin):]:
                raise SystemExit(f"{path}: {begin} has no {end} after it")
            head, rest = text.split(begin, 1)
            _, tail = rest.split(end, 1)
            text = f"{head}{begin}\n{tables[kind]}{end}{tail}"
            done.append(kind)
    if not done:
        raise SystemExit(f"{path} exists and has no {pairs['table'][0]} or {pairs['compact'][0]} markers; "
                         f"not overwritten")
    path.write_text(text)
    return f"{path}: {' and '.join(done)} updated"
