"""Checking a paper's claims against our runs, and writing the verdicts as Markdown.

Verdicts mean the same in every paper (:func:`verdict_of`): supported when every
comparison a claim makes holds, partly supported when more than half do, not supported
otherwise. Claims measured at a parameter we calibrated (not the paper's own) are
marked ``calibrated`` and tallied apart.

A :class:`Claim` pairs what a paper says (its words, where it says it) with the
:class:`Rule` that decides it (the metric, the threshold, where the threshold comes from),
what our runs measured and a verdict. Comparisons go through :func:`compare`, which only calls a
difference real when it exceeds a tolerance, so "A beats B" needs A ahead of B by
more than noise, and two protocols within the tolerance are "about equal".
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Optional

SUPPORTED = "supported"
PARTLY = "partly supported"
NOT_SUPPORTED = "not supported"
VERDICTS = (SUPPORTED, PARTLY, NOT_SUPPORTED)
# A paper's "about X", when it gives no bound: within ±25 % of X (fixed before looking at our data).
ABOUT = 0.25


# Where a claim's threshold comes from (Rule.source): the paper's own words, the one
# reading of "about", or a default of ours, fixed in this module's constants and the
# claim's code before the runs it judges (each default says what it is a fraction of).
FROM_PAPER = "the paper's words"
FROM_ABOUT = "the paper's “about”, read as ±25 % (cclab's one reading, claims.ABOUT)"
DEFAULT = "cclab default"


@dataclass(frozen=True)
class Rule:
    """How a claim is decided: what is measured, the threshold a comparison must pass,
    and where that threshold comes from (:data:`FROM_PAPER`, :data:`FROM_ABOUT`, or
    :data:`DEFAULT` with its reason)."""

    metric: str
    threshold: str
    source: str

    def __post_init__(self):
        for name in ("metric", "threshold", "source"):
            if not getattr(self, name).strip():
                raise ValueError(f"a claim's rule needs a {name}")

    def __str__(self) -> str:
        return f"{self.metric}; {self.threshold} (threshold: {self.source})"


# Why a claim is not (fully) supported — every summary says which of these it is:
DEFECT = "defect"  # ns-2 supports it on the same points: cclab disagrees with ns-2
SETUP = "setup"  # ns-2 does not support it either: the paper's setup, or its reading
OPEN = "open"  # the paper leaves a parameter open (named) that decides it
UNEXPLAINED = "unexplained"  # none of the above is known (a test keeps this from shipping)
WHY_LABELS = {
    DEFECT: "cclab disagrees with ns-2: a cclab defect to fix",
    SETUP: "ns-2 agrees with cclab: the paper's setup or its reading",
    OPEN: "the paper leaves a parameter open",
    UNEXPLAINED: "not explained",
}


@dataclass(frozen=True)
class Why:
    """Why a claim is not supported: one of :data:`WHY_LABELS`'s kinds and the evidence
    (ns-2's numbers and where they come from, or the open parameter and our choice)."""

    kind: str
    detail: str

    def __post_init__(self):
        if self.kind not in WHY_LABELS:
            raise ValueError(f"a reason's kind must be one of {tuple(WHY_LABELS)}, got {self.kind!r}")
        if not self.detail.strip():
            raise ValueError("a reason needs its evidence")

    def __str__(self) -> str:
        return f"{WHY_LABELS[self.kind]} — {self.detail}"


@dataclass(frozen=True)
class Claim:
    """One statement of the paper about a figure and our verdict on it."""

    figure: int
    statement: str  # the claim, as a testable sentence
    quote: str  # the paper's words (with its section)
    verdict: str  # one of VERDICTS
    evidence: str  # our numbers
    rule: Rule  # how the verdict is decided
    calibrated: bool = False  # measured at a parameter we chose to match the paper, not the paper's own
    # Why it may fail, known before the runs (an open parameter; ns-2's verdict on points
    # only some of which ns-2 can run): used when no ns-2 verdict on the same points is
    # at hand (see :func:`explain`).
    why: Optional[Why] = None

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if not isinstance(self.rule, Rule):
            raise TypeError(f"a claim's rule must be a Rule, got {self.rule!r}")


def compare(a: float, b: float, tolerance: float) -> int:
    """+1 if ``a`` exceeds ``b`` by more than ``tolerance``, −1 if ``b`` exceeds ``a`` by
    more than it, 0 if they are within it (or either is NaN)."""
    if a != a or b != b:  # NaN
        return 0
    if a - b > tolerance:
        return 1
    if b - a > tolerance:
        return -1
    return 0


def verdict_of(checks: Sequence[bool]) -> str:
    """The one meaning of the verdicts, for every paper: all of a claim's comparisons
    hold — supported; more than half of them — partly supported; half or fewer — not
    supported. (A claim's evidence shows the count.)"""
    if not checks:
        raise ValueError("a verdict needs at least one check")
    held = sum(bool(check) for check in checks)
    return SUPPORTED if held == len(checks) else PARTLY if 2 * held > len(checks) else NOT_SUPPORTED


def held_count(checks: Sequence[bool]) -> str:
    """"k of n" for a claim's evidence."""
    return f"{sum(bool(check) for check in checks)} of {len(checks)}"


def about(value: float, target: float, relative: float = ABOUT) -> bool:
    """The papers' "about X": within ``relative`` (default :data:`ABOUT`, ±25 %) of X."""
    return abs(value - target) <= relative * abs(target) * (1 + 1e-9)  # the bound itself is "about"


def ordered(values: Mapping[str, float], order: Sequence[str], tolerance: float, fmt: str = ".3g",
            descending: bool = True) -> tuple[str, str]:
    """:func:`ordered_checks` as a verdict: supported when every adjacent pair is in order."""
    held, evidence = ordered_checks(values, order, tolerance, fmt, descending)
    return verdict_of(held), evidence


def ordered_checks(values: Mapping[str, float], order: Sequence[str], tolerance: float, fmt: str = ".3g",
                   descending: bool = True) -> tuple[list[bool], str]:
    """Which adjacent pairs of "``order[0]`` > ``order[1]`` > …" hold on ``values`` (with
    ``descending=False``: "``order[0]`` < ``order[1]`` < …"), and the evidence.

    Each adjacent pair is checked with :func:`compare`; the evidence lists the values in
    the claimed order, joined by the relation where the pair holds and by its negation
    ("≯", "≮") where it does not.
    """
    sign = 1 if descending else -1
    relation, negation = (">", "≯") if descending else ("<", "≮")
    held = [sign * compare(values[first], values[second], tolerance) > 0 for first, second in zip(order, order[1:])]
    evidence = f"{order[0]} {values[order[0]]:{fmt}}"
    for holds, name in zip(held, order[1:]):
        evidence += f" {relation if holds else negation} {name} {values[name]:{fmt}}"
    if len(held) > 1:
        evidence += f" ({held_count(held)} pairs in order)"
    return held, evidence


def markdown_table(claims: Sequence[Claim], ns2: Any = None, whys: Optional[Sequence[Optional[Why]]] = None) -> str:
    """The claims of one figure as a Markdown table: claim, paper, rule, verdict, our
    numbers; with ``ns2`` (the figure's :class:`cclab.papers.framework.Ns2Verdicts`) a
    column of ns-2.35's verdict and numbers on the same points, and a line saying why
    where ns-2 could not judge them; with ``whys`` (:func:`explain` of each claim) a
    column saying why a claim is not supported."""
    head = "| # | claim | the paper says | rule: metric; threshold (its source) | verdict | our numbers |"
    columns = 6 + (ns2 is not None) + (whys is not None)
    lines = [head + (" ns-2.35 on the same points |" if ns2 is not None else "")
             + (" why not supported |" if whys is not None else ""), "| --- " * columns + "|"]
    for number, claim in enumerate(claims, 1):
        statement = claim.statement + (" *(at a calibrated parameter)*" if claim.calibrated else "")
        cells = [str(number), statement, f"“{claim.quote}”", str(claim.rule), f"**{claim.verdict}**", claim.evidence]
        if ns2 is not None:
            cells.append(ns2_cell(claim, ns2.claims[number - 1] if ns2.claims else None, ns2.partial))
        if whys is not None:
            why = whys[number - 1]
            cells.append(f"*{WHY_LABELS[why.kind]}* — {why.detail}" if why else "")
        lines.append("| " + " | ".join(cell.replace("|", "\\|").replace("\n", " ") for cell in cells) + " |")
    if ns2 is not None and ns2.missing:
        lines += ["", f"ns-2.35: not judged — {ns2.missing}"]
    return "\n".join(lines)


def reasoned(claims, whys: Sequence[Optional[Why]]):
    """A figure's claims function whose claims carry ``whys`` (one per claim, in order;
    None for a claim with no stated reason: if it fails, ns-2's verdict must explain it,
    or it stays unexplained)."""
    def judged(tables, sizes):
        made = claims(tables, sizes)
        if len(made) != len(whys):
            raise AssertionError(f"{claims.__name__} made {len(made)} claims for {len(whys)} reasons")
        return [replace(claim, why=why) if why is not None else claim for claim, why in zip(made, whys)]
    judged.__name__ = claims.__name__
    return judged


def explain(claim: Claim, theirs: Optional[Claim] = None, recorded: Optional[Mapping[str, str]] = None,
            partial: str = "") -> Optional[Why]:
    """Why ``claim`` is not supported (None when it is), from the best evidence at hand:
    ns-2.35's verdict on the same points (``theirs``, with ``--ns2``); else ns-2's verdict
    recorded at full sizes (``recorded``: its ``verdict``, ``evidence``, ``command`` and
    ``partial``); else the reason the claim carries (:attr:`Claim.why`). ns-2 supporting
    what cclab does not is a cclab defect; ns-2 not fully supporting it either is the
    paper's setup or reading (ns-2 "partly" against cclab "not" is a margin both miss,
    not evidence against cclab: seed noise moves claims across that line) — unless
    ns-2 could run only some of the points (``partial``: the rest are cclab's numbers),
    when the claim's own reason must say what decides it (an open parameter, or kind
    SETUP for a claim on ns-2's points alone)."""
    if claim.verdict == SUPPORTED:
        return None
    if theirs is not None:
        verdict, evidence, where = theirs.verdict, theirs.evidence, "ns-2.35 on the same points"
    elif recorded is not None:
        verdict, evidence, partial = recorded["verdict"], recorded["evidence"], recorded.get("partial", "")
        where = f"ns-2.35 on the same points at full sizes (recorded: `{recorded['command']}`)"
    else:
        return claim.why or Why(UNEXPLAINED, "no ns-2 verdict on these points and no stated reason")
    if partial:
        where += f", with cclab's numbers where ns-2 cannot run ({partial})"
    detail = f"{where}: {verdict} ({evidence})"
    if verdict == SUPPORTED:
        return Why(DEFECT, detail)
    if claim.why is not None:
        return Why(claim.why.kind, f"{claim.why.detail}; {detail}")
    if partial:  # ns-2 did not run what may decide it, and the claim names no reason
        return Why(UNEXPLAINED, f"{detail}; the points ns-2 cannot run may decide it")
    return Why(SETUP, detail)


def ns2_cell(ours: Claim, theirs: Optional[Claim], partial: str = "") -> str:
    """ns-2.35's verdict on a claim and its numbers; when neither simulator supports the
    claim, that it is the paper's setup, not cclab's doing."""
    if theirs is None:
        return "not run in ns-2"
    cell = f"**{theirs.verdict}** ({theirs.evidence})"
    if partial:
        cell += f" — *with cclab's numbers where ns-2 cannot run: {partial}*"
    if neither_supports(ours, theirs):
        cell += " — *neither simulator supports it: the paper's setup, not cclab's*"
    return cell


def neither_supports(ours: Claim, theirs: Optional[Claim]) -> bool:
    return theirs is not None and ours.verdict == NOT_SUPPORTED and theirs.verdict == NOT_SUPPORTED


def tally(claims: Sequence[Claim], calibrated: bool = False) -> dict[str, int]:
    """How many claims got each verdict: those at the paper's own parameters, or (with
    ``calibrated``) those at parameters we calibrated."""
    mine = [claim for claim in claims if claim.calibrated == calibrated]
    return {verdict: sum(claim.verdict == verdict for claim in mine) for verdict in VERDICTS}
