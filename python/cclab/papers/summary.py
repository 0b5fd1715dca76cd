"""What a reproduction writes besides its figures: the parts of ``summary.md`` every
paper shares (each figure's section, the verdict tallies), ``claims.csv``,
``meta.json`` with the provenance, and a paper's example scenario files."""
from __future__ import annotations

import csv
import datetime
import json
import textwrap
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any, Optional, Union

from cclab.core import version
from cclab.papers.claims import DEFECT, OPEN, SETUP, UNEXPLAINED, neither_supports, tally
from cclab.papers.paper import FigureOutcome, Outcome
from cclab.runs.workers import local_provenance
from cclab.scenario import scenario_toml


def figure_section(outcome: FigureOutcome) -> list[str]:
    """The start of a figure's section in a summary: heading, image, notes, data files."""
    figure = outcome.figure
    data = ", ".join(f"`{p.name}`" for p in outcome.files if p.suffix == ".csv")
    return ["", f"## {figure.title}: {figure.caption} ({figure.section})", "", f"![{figure.title}]({figure.stem}.png)",
            "", f"{figure.notes} {outcome.runs} runs; data: {data}; scenario: `scenarios/{outcome.scenario.name}`.", ""]


def verdict_preamble(counts: dict, quick: bool, calibrated: Optional[dict] = None) -> list[str]:
    """The summary lines every reproduction shares: verdict tally (at the paper's own
    parameters, and apart at calibrated ones), and the quick-mode caveat."""
    lines = ["Verdicts at the paper's parameters: " + tally_text(counts) + "."
             + (f" At parameters we calibrated: {tally_text(calibrated)}." if calibrated and any(calibrated.values())
                else "")
             + " Supported: every comparison of the claim holds; partly: more than half do; numbers are means over "
               "seeds; each claim's rule states its metric, the threshold a difference must pass and where that "
               "threshold comes from (all claims, one row each: claims.csv)."]
    if quick:
        lines += ["", "*Quick mode: shorter runs, fewer points and seeds than the paper; verdicts here are a smoke "
                      "test, the full mode's are the reproduction.*"]
    return lines


def tally_text(counts: dict) -> str:
    return ", ".join(f"{count} {verdict}" for verdict, count in counts.items() if count) or "none"


def why_preamble(outcome: Outcome) -> list[str]:
    """How many claims are not (fully) supported for each reason (:func:`cclab.papers.claims.explain`)."""
    whys = [why for figure in outcome.figures for why in figure.whys if why is not None]
    if not whys:
        return []
    phrases = {DEFECT: "where cclab disagrees with ns-2 (a cclab defect to fix)",
               SETUP: "where ns-2 agrees with cclab (the paper's setup or its reading)",
               OPEN: "where the paper leaves a parameter open", UNEXPLAINED: "not explained"}
    parts = [f"{count} {phrase}" for kind, phrase in phrases.items() if (count := sum(why.kind == kind for why in whys))]
    return ["", f"**Why {len(whys)} claims are not fully supported** (the last column of each table says, with the "
                f"evidence): {'; '.join(parts)}."]


def ns2_preamble(outcome: Outcome) -> list[str]:
    """With ``--ns2``: the ns-2.35 tally, and how many claims neither simulator supports."""
    judged = [figure for figure in outcome.figures if figure.ns2 is not None]
    if not judged:
        return []
    theirs = [claim for figure in judged for claim in figure.ns2.claims]
    neither = sum(neither_supports(ours, theirs) for figure in judged for ours, theirs in zip(figure.claims,
                                                                                              figure.ns2.claims))
    unjudged = sum(len(figure.claims) for figure in judged if figure.ns2.missing)
    lines = ["", f"**ns-2.35 on the same points** (`--ns2`, runs in `{outcome.ns2_store.name}`): the same claims "
                 f"judged by the same rules on ns-2.35's runs: {tally_text(tally(theirs))}"
                 + (f"; {unjudged} claims of figures ns-2 cannot run are not judged there" if unjudged else "") + "."
                 + (f" **{neither} claims neither simulator supports**: those are the paper's setup (or its "
                    "reading), not cclab's doing." if neither else "")]
    return lines


def provenance(outcome: Outcome) -> dict:
    """Where the numbers come from: versions, the store, when and how they were made."""
    return {
        "command": outcome.command,
        "cclab_version": version(),
        "git_commit": local_provenance()["git_commit"],
        "host": local_provenance()["host"],
        "store": str(outcome.store),
        "runs": outcome.runs,
        "simulated_now": outcome.simulated,
        "wall_time_s": outcome.wall_time_s,
        "created_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def write_meta(outcome: Outcome, points: Sequence[tuple]) -> None:
    paper = outcome.paper
    meta = {
        "experiment": f"{paper.key}: {paper.citation}",
        **provenance(outcome),
        "sizes": {key: list(value) if isinstance(value, tuple) else value
                  for key, value in outcome.sizes.__dict__.items()},
        **paper.meta(outcome),
        "figures": {
            figure_key(figure.figure): {
                "runs": figure.runs,
                "files": [path.name for path in figure.files],
                "verdicts": [claim.verdict for claim in figure.claims],
                **({"ns2_verdicts": [claim.verdict for claim in figure.ns2.claims], "ns2_missing": figure.ns2.missing}
                   if figure.ns2 is not None else {}),
                "example_scenario": next((point.scenario for owner, point, _ in points if owner is figure), None),
            } for figure in outcome.figures},
    }
    (outcome.out / "meta.json").write_text(json.dumps(meta, indent=2, default=str) + "\n", encoding="utf-8")


CLAIM_COLUMNS = ("figure", "claim", "statement", "paper_says", "metric", "threshold", "threshold_source", "verdict",
                 "evidence", "calibrated", "why", "why_detail")


NS2_CLAIM_COLUMNS = ("ns2_verdict", "ns2_evidence", "ns2_partial")


def write_claims(outcome: Outcome) -> None:
    """claims.csv: every claim with its rule and verdict, one row each (with ``--ns2``
    also ns-2.35's verdict and numbers, empty where ns-2 cannot run the figure)."""
    with_ns2 = outcome.ns2_store is not None
    with open(outcome.out / "claims.csv", "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(CLAIM_COLUMNS + (NS2_CLAIM_COLUMNS if with_ns2 else ()))
        for figure in outcome.figures:
            for number, claim in enumerate(figure.claims, 1):
                why = figure.whys[number - 1] if figure.whys else None
                row = [figure_key(figure.figure), number, claim.statement, claim.quote, claim.rule.metric,
                       claim.rule.threshold, claim.rule.source, claim.verdict, claim.evidence, claim.calibrated,
                       why.kind if why else "", why.detail if why else ""]
                if with_ns2:
                    theirs = figure.ns2.claims[number - 1] if figure.ns2.claims else None
                    row += [theirs.verdict, theirs.evidence, figure.ns2.partial] if theirs else ["", figure.ns2.missing, ""]
                writer.writerow(row)


def figure_key(figure: Any) -> str:
    return str(getattr(figure, "number", None) or getattr(figure, "key"))


def write_scenario_files(directory: Union[str, PathLike], key: str, credit: str,
                         scenarios: dict[str, tuple[str, dict]]) -> list[Path]:
    """A paper's example scenarios as ``<directory>/<stem>.toml``, each headed by its
    description (wrapped at 86), ``credit`` (the paper) and how to run it; ``scenarios``
    maps a stem to (description, scenario)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for stem, (description, scenario) in scenarios.items():
        header = "".join(f"# {line}\n" for line in textwrap.wrap(description, 86))
        header += (f"# {credit}; generated by cclab.papers.{key}.scenarios.write_scenario_files.\n"
                   f"# Run: cclab run <this file>    Everything: cclab reproduce {key}\n\n")
        path = directory / f"{stem}.toml"
        path.write_text(header + scenario_toml(scenario), encoding="utf-8")
        paths.append(path)
    return paths
