"""Claim rules on small synthetic tables: for each rule, data where the claim must hold and
data where it must not, so a flipped sign, a swapped index or a looser threshold fails a
test. (The shared verdict meaning first, then the claims whose rules were fixed.)"""
from __future__ import annotations

import itertools

import pandas as pd
import pytest

from cclab.papers.claims import NOT_SUPPORTED, PARTLY, SUPPORTED, about, ordered, ordered_checks, verdict_of
from cclab.papers.zhang2002 import figures as zhang
from cclab.papers.zhang2002.figures import LABELS, QUICK, RESPONSIVE_LABEL, SMOOTH_LABEL

# ---------------------------------------------------------------- the shared meaning


@pytest.mark.parametrize("checks, verdict", [
    ([True], SUPPORTED), ([False], NOT_SUPPORTED),
    ([True, True, True], SUPPORTED), ([True, True, False], PARTLY),
    ([True, False], NOT_SUPPORTED),  # half is not a majority
    ([True, False, False], NOT_SUPPORTED), ([False, False, False], NOT_SUPPORTED),
    ([True] * 3 + [False] * 2, PARTLY), ([True] * 2 + [False] * 2, NOT_SUPPORTED),
])
def test_partly_means_a_majority(checks, verdict):
    assert verdict_of(checks) == verdict


def test_partly_is_rare_for_random_orderings():
    # The old rule ("any adjacent pair in order") called ~94 % of random orders of 4
    # "partly"; a majority of pairs is far less generous.
    names = ["a", "b", "c", "d"]
    verdicts = [ordered(dict(zip(names, values)), names, tolerance=0.5)[0]
                for values in itertools.permutations([4.0, 3.0, 2.0, 1.0])]
    assert verdicts.count(SUPPORTED) == 1
    assert verdicts.count(PARTLY) / len(verdicts) < 0.5


def test_ordered_checks_each_adjacent_pair_beyond_the_tolerance():
    held, evidence = ordered_checks({"a": 3.0, "b": 2.4, "c": 2.3}, ["a", "b", "c"], tolerance=0.5)
    assert held == [True, False] and "a 3 > b 2.4 ≯ c 2.3" in evidence and "1 of 2" in evidence
    held, _ = ordered_checks({"a": 1.0, "b": 2.0}, ["a", "b"], tolerance=0.5, descending=False)
    assert held == [True]


def test_about_is_plus_minus_25_percent():
    assert about(7.5, 6) and about(4.5, 6) and not about(7.6, 6) and not about(4.4, 6)
    assert about(0.375, 0.30) and not about(0.5, 0.30) and not about(0.15, 0.30)


# ---------------------------------------------------------------- zhang2002 Figure 4, claim 1
def fig4_runs(smooth_minus_responsive: dict[float, float]) -> dict[str, pd.DataFrame]:
    rows = []
    for per in (0.0, 0.01, 0.02, 0.03, 0.05):
        for seed in (1, 2):
            for rank, label in enumerate(LABELS):
                goodput = 50.0 - 10 * per * rank
                if label == SMOOTH_LABEL:
                    goodput = 50.0 + smooth_minus_responsive.get(per, 0.0)
                rows.append({"protocol": label, "per": per, "seed": seed, "system_goodput_mbps": goodput})
    return {"runs": pd.DataFrame(rows)}


def fig4_claim1(table) -> str:
    return zhang._claims_fig4(table, QUICK)[0].verdict


def test_fig4_low_per_claim_needs_the_smooth_tcp_ahead_at_each_low_per():
    assert fig4_claim1(fig4_runs({0.0: 1.0, 0.01: 1.0, 0.02: 1.0})) == SUPPORTED
    assert fig4_claim1(fig4_runs({0.0: 1.0, 0.01: 1.0, 0.02: -1.0})) == PARTLY
    # The old rule called ties everywhere but one PER "supported".
    assert fig4_claim1(fig4_runs({0.02: 1.0})) == NOT_SUPPORTED
    assert fig4_claim1(fig4_runs({0.0: -1.0, 0.01: -1.0, 0.02: -1.0})) == NOT_SUPPORTED


# ---------------------------------------------------------------- zhang2002 Figures 6 and 7 (time series)
def series(value: str, level_of, seconds: int = 50) -> dict[str, pd.DataFrame]:
    """1-s bins for every protocol and two seeds; ``level_of(label, t)`` gives the value."""
    rows = [{"protocol": label, "seed": seed, "bin_start_s": float(t), value: level_of(label, t)}
            for label in LABELS for seed in (1, 2) for t in range(seconds)]
    return {"series": pd.DataFrame(rows)}


def fig6(level_of) -> list:
    return zhang._claims_fig6(series("allotted_fairness", level_of), QUICK)


def test_fig6_join_drop_counts_only_once_the_newcomers_have_sent_a_second():
    steps = (15, 20, 25)

    def only_in_the_joining_bin(label, t):
        return 0.6 if t in steps else 0.95  # the artefact of idle newcomers, then straight back

    def lasting(label, t):
        return 0.7 if any(step <= t < step + 3 for step in steps) else 0.95

    assert fig6(only_in_the_joining_bin)[1].verdict == NOT_SUPPORTED
    assert fig6(lasting)[1].verdict == SUPPORTED


def test_fig6_highest_late_fairness_must_beat_each_other_protocol():
    def late(ahead_by: dict):
        return lambda label, t: 0.9 + ahead_by.get(label, 0.0)

    assert fig6(late({RESPONSIVE_LABEL: 0.02}))[3].verdict == SUPPORTED
    assert fig6(late({RESPONSIVE_LABEL: 0.02, SMOOTH_LABEL: 0.03}))[3].verdict == PARTLY  # ahead of 2 of 3
    assert fig6(late({}))[3].verdict == NOT_SUPPORTED  # all tied


def fig7(recovery_s: dict, never: tuple = ()) -> list:
    """Allotted goodput 10 before each step (15, 20, 25 s), 5 in the step's bin, back to
    10 after ``recovery_s[label]`` seconds. Protocols in ``never`` halve at every step
    and stay there (never back at their pre-step level)."""
    def level_of(label, t):
        passed = [s for s in (15, 20, 25) if s <= t]
        if label in never:
            return 10.0 / 2 ** len(passed)
        if not passed:
            return 10.0
        return 10.0 if t - passed[-1] >= recovery_s[label] else 5.0

    return zhang._claims_fig7(series("allotted_goodput_mbps", level_of), QUICK)


def test_fig7_fastest_recovery_is_the_time_to_recover():
    fast = {label: 3 for label in LABELS} | {RESPONSIVE_LABEL: 1}
    assert fig7(fast)[4].verdict == SUPPORTED
    tied = {label: 1 for label in LABELS}
    assert fig7(tied)[4].verdict == NOT_SUPPORTED
    slow = {label: 1 for label in LABELS} | {RESPONSIVE_LABEL: 3}
    assert fig7(slow)[4].verdict == NOT_SUPPORTED


def test_fig7_never_recovering_is_one_cap_at_every_step():
    # The smooth TCP never recovers after any step: the same cap everywhere, so it is
    # not "slower after the 25 s step" (the old caps, 5 s vs 25 s, said it was).
    claim = fig7({label: 2 for label in LABELS}, never=(SMOOTH_LABEL,))[5]
    assert claim.verdict == NOT_SUPPORTED and "5.00 s after 15 s, 5.00 s after 25 s" in claim.evidence
