"""Checking a paper's claims against our runs, and writing the verdicts as Markdown.

A :class:`Claim` pairs what a paper says (its words, where it says it) with what our
runs measured and a verdict. Comparisons go through :func:`compare`, which only calls a
difference real when it exceeds a tolerance, so "A beats B" needs A ahead of B by
more than noise, and two protocols within the tolerance are "about equal".
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

SUPPORTED = "supported"
PARTLY = "partly supported"
NOT_SUPPORTED = "not supported"
VERDICTS = (SUPPORTED, PARTLY, NOT_SUPPORTED)


@dataclass(frozen=True)
class Claim:
    """One statement of the paper about a figure and our verdict on it."""

    figure: int
    statement: str  # the claim, as a testable sentence
    quote: str  # the paper's words (with its section)
    verdict: str  # one of VERDICTS
    evidence: str  # our numbers

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")


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
    """All checks hold: supported; some: partly; none: not supported."""
    if not checks:
        raise ValueError("a verdict needs at least one check")
    held = sum(bool(check) for check in checks)
    return SUPPORTED if held == len(checks) else PARTLY if held else NOT_SUPPORTED


def ordered(values: Mapping[str, float], order: Sequence[str], tolerance: float, fmt: str = ".3g",
            descending: bool = True) -> tuple[str, str]:
    """Verdict and evidence for "``order[0]`` > ``order[1]`` > …" on ``values`` (with
    ``descending=False``: "``order[0]`` < ``order[1]`` < …").

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
    return verdict_of(held), evidence


def markdown_table(claims: Sequence[Claim]) -> str:
    """The claims of one figure as a Markdown table: claim, paper, verdict, our numbers."""
    lines = ["| # | claim | the paper says | verdict | our numbers |", "| --- | --- | --- | --- | --- |"]
    for number, claim in enumerate(claims, 1):
        cells = [str(number), claim.statement, f"“{claim.quote}”", f"**{claim.verdict}**", claim.evidence]
        lines.append("| " + " | ".join(cell.replace("|", "\\|").replace("\n", " ") for cell in cells) + " |")
    return "\n".join(lines)


def tally(claims: Sequence[Claim]) -> dict[str, int]:
    """How many claims got each verdict."""
    return {verdict: sum(claim.verdict == verdict for claim in claims) for verdict in VERDICTS}
