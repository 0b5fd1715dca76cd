"""The verdict meaning every reproduction shares (cclab.papers.claims) and the rule each
claim must state. Each paper's claims are tested on synthetic tables in
test_claims_<paper>.py."""
from __future__ import annotations

import itertools

import pytest

from cclab.papers.claims import (DEFAULT, NOT_SUPPORTED, PARTLY, SUPPORTED, Claim, Rule, about, compare, markdown_table,
                                 ordered, ordered_checks, verdict_of)

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


def test_a_difference_counts_only_beyond_the_tolerance():
    assert compare(1.5, 1.0, 0.5) == 0 and compare(1.0, 1.5, 0.5) == 0  # exactly the tolerance: not beyond
    assert compare(1.75, 1.0, 0.5) == 1 and compare(1.0, 1.75, 0.5) == -1
    assert compare(float("nan"), 1.0, 0.5) == 0


def test_about_is_plus_minus_25_percent():
    assert about(7.5, 6) and about(4.5, 6) and not about(7.6, 6) and not about(4.4, 6)
    assert about(0.375, 0.30) and not about(0.5, 0.30) and not about(0.15, 0.30)


# ---------------------------------------------------------------- every claim states its rule
def test_a_claim_needs_a_stated_rule():
    with pytest.raises(TypeError):
        Claim(1, "s", "q", SUPPORTED, "e", rule="metric, threshold")
    with pytest.raises(ValueError, match="threshold"):
        Rule("goodput", " ", DEFAULT)
    rule = Rule("goodput", "ahead by > 0.5 Mb/s", f"{DEFAULT}: 5 % of 10 Mb/s")
    table = markdown_table([Claim(1, "s", "q", SUPPORTED, "e", rule)])
    assert "goodput; ahead by > 0.5 Mb/s (threshold: cclab default: 5 % of 10 Mb/s)" in table
    assert table.splitlines()[0].count("|") == table.splitlines()[2].count("|")  # a cell per column
