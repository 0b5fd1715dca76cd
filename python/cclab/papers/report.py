"""A paper reproduction's report (``cclab reproduce PAPER --report``): ``report.html``
beside the figures, on the page template of every cclab report
(:func:`cclab.plots.html.page`): per figure its PNG, the claims with verdicts and
numbers, its scenario file and data files; the verdict tally and provenance (command,
versions, git commit, host, store, runs)."""
from __future__ import annotations

from pathlib import Path

from cclab.papers.claims import WHY_LABELS, neither_supports, tally
from cclab.papers.summary import ns2_preamble, provenance, why_preamble
from cclab.plots.html import escape, page, provenance_table, slug


def write_paper_report(outcome) -> Path:
    """``report.html`` of a reproduction (a :class:`cclab.papers.paper.Outcome`),
    beside its figures; returns its path."""
    paper = outcome.paper
    counts = tally(outcome.claims)
    calibrated = tally(outcome.claims, calibrated=True)
    facts = provenance(outcome)
    sizes = outcome.sizes
    rows = [("paper", paper.citation), ("command", facts["command"] or f"cclab reproduce {paper.key}"),
            ("sizes", f"{sizes.name}, seeds {', '.join(map(str, sizes.seeds))}"),
            ("cclab version", facts["cclab_version"]), ("git commit", facts["git_commit"] or "unknown"),
            ("host", facts["host"]), ("results store", facts["store"]),
            ("runs", f"{facts['runs']} ({facts['simulated_now']} simulated by this command, the rest read from "
                     "the store)"),
            ("wall time", f"{facts['wall_time_s']:.1f} s"), ("written", facts["created_utc"])]
    def tally_html(tallied: dict) -> str:
        return ", ".join(f'<span class="{slug(verdict)}">{count} {escape(verdict)}</span>'
                         for verdict, count in tallied.items() if count) or "none"

    apart = (f" At parameters we calibrated: {tally_html(calibrated)}." if any(calibrated.values()) else "")
    parts = [f"<p>{escape(paper.citation)}</p>", f"<p><strong>Verdicts at the paper's parameters:</strong> "
             f"{tally_html(counts)}.{apart} Supported: every comparison of the claim holds; partly: more than half "
             "do. Numbers are means over seeds; a difference counts only beyond the tolerance stated in the claim. "
             '<a href="summary.md">summary.md</a> has the same content as text.</p>']
    for lines in (ns2_preamble(outcome), why_preamble(outcome)):
        if lines:
            parts.append(f"<p>{escape(' '.join(line for line in lines if line).replace('**', '').replace('`', ''))}</p>")
    if sizes.name == "quick":
        parts.append("<p><em>Quick mode: shorter runs, fewer points and seeds than the paper; verdicts here are a "
                     "smoke test, the full mode's are the reproduction.</em></p>")
    parts += ["<h2>Provenance</h2>", provenance_table(rows)]
    for figure_outcome in outcome.figures:
        figure = figure_outcome.figure
        title = paper.figure_title(figure)
        data = " ".join(f'<a href="{escape(path.name)}">{escape(path.name)}</a>' for path in figure_outcome.files
                        if path.suffix in (".csv", ".parquet"))
        scenario = figure_outcome.scenario
        parts += [
            f'<section class="figure" id="{escape(figure.stem)}">',
            f"<h2>{escape(title)}: {escape(figure.caption)} ({escape(figure.section)})</h2>",
            f'<figure><img src="{escape(figure.stem)}.png" alt="{escape(title)}"></figure>',
            f"<p>{escape(figure.notes)} {figure_outcome.runs} runs.</p>",
            _claims_table(figure_outcome.claims, figure_outcome.ns2, figure_outcome.whys),
            f"<p>Data: {data}</p>",
            f'<details><summary>Scenario file: <a href="scenarios/{escape(scenario.name)}">scenarios/'
            f"{escape(scenario.name)}</a> (one run; run it with <code>cclab run</code>)</summary>"
            f"<pre>{escape(scenario.read_text(encoding='utf-8'))}</pre></details>",
            "</section>"]
    target = outcome.out / "report.html"
    target.write_text(page(f"cclab reproduction: {paper.key}", "\n".join(parts)), encoding="utf-8")
    return target


def _claims_table(claims, ns2=None, whys=None) -> str:
    """A figure's claims; with ``ns2`` (its ns-2.35 verdicts) a column for them; with
    ``whys`` a column saying why a claim is not supported."""
    head = ("<tr><th>#</th><th>claim</th><th>the paper says</th><th>rule: metric; threshold (its source)</th>"
            "<th>verdict</th><th>our numbers</th>" + ("<th>ns-2.35 on the same points</th>" if ns2 is not None else "")
            + ("<th>why not supported</th>" if whys is not None else "") + "</tr>")

    def why_cell(number: int) -> str:
        if whys is None:
            return ""
        why = whys[number - 1]
        return f"<td><em>{escape(WHY_LABELS[why.kind])}</em> — {escape(why.detail)}</td>" if why else "<td></td>"

    def ns2_cells(number: int, claim) -> str:
        if ns2 is None:
            return ""
        theirs = ns2.claims[number - 1] if ns2.claims else None
        if theirs is None:
            return "<td>not run in ns-2</td>"
        neither = (" <em>neither simulator supports it: the paper's setup, not cclab's</em>"
                   if neither_supports(claim, theirs) else "")
        return (f'<td><span class="verdict {slug(theirs.verdict)}">{escape(theirs.verdict)}</span> '
                f"({escape(theirs.evidence)}){neither}"
                + (f" <em>with cclab's numbers where ns-2 cannot run: {escape(ns2.partial)}</em>" if ns2.partial else "")
                + "</td>")

    rows = "".join(
        f"<tr><td>{number}</td><td>{escape(claim.statement)}{' <em>(at a calibrated parameter)</em>' if claim.calibrated else ''}"
        f"</td><td>“{escape(claim.quote)}”</td><td>{escape(claim.rule)}</td>"
        f'<td class="verdict {slug(claim.verdict)}">{escape(claim.verdict)}</td><td>{escape(claim.evidence)}</td>'
        f"{ns2_cells(number, claim)}{why_cell(number)}</tr>"
        for number, claim in enumerate(claims, 1))
    missing = f"<p>ns-2.35: not judged — {escape(ns2.missing)}</p>" if ns2 is not None and ns2.missing else ""
    return f'<table class="claims">{head}{rows}</table>{missing}'
