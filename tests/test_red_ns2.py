"""RED + ECN + TCP(1, 0.5): cclab against ns-2.35 (bench/ns2/red_ecn.tcl) on Table 1's
1 Mb/s, 20 ms, 25-packet RED bottleneck, means of seeds 1–3. Marked ``ns2``: CI requires
ns-2 and fails if these did not run.

Goodput on this saturated link moves by well under 1 % whatever RED does, so the checks
that matter are the counters. Tolerances are per case, from the agreement measured
(2026-11, cclab vs ns-2, relative difference of the seed means):

| flows, ECN | drops | retransmissions | marks | ECN reactions |
| --- | --- | --- | --- | --- |
| 2, off | +0.3 % | −0.3 % | — | — |
| 2, on | −2 % | −5 % | +29 % | +28 % |
| 4, off | −3.6 % | −6.9 % | — | — |
| 4, on | +5 % | −7.7 % | +36 % | +28 % |
| 8, off | −11 % | −15 % | — | — |
| 8, on | +8 % | +3 % | +7.5 % | +9 % |

These compare cclab's default (RFC) profile, whose ECN differs from ns-2's: its sink echoes
ECE on every ACK until CWR, and its senders grow on ECE ACKs and send non-ECT
retransmissions, hence the extra marks at 2–4 flows. With `profile = "ns2"` the marks are
within 3 % of ns-2 in these cases (tests/test_ns2_profile.py). The bound here is
about the measured gap plus 5 points, so that RED's max_p raised by 50 % (0.1 → 0.15)
fails in every case where its effect exceeds that margin (``test_the_checks_catch_a_wrong_max_p``):
it adds 7 % drops at 2 flows without ECN and 43 % / 58 % / 121 % marks at 2 / 4 / 8 flows
with it. At 4 and 8 flows without ECN the tolerances cannot catch it (cclab drops fewer
than ns-2 there and a higher max_p moves it *towards* ns-2).
"""
from __future__ import annotations

import functools
import shutil
import statistics

import pytest

from conftest import REPO, bench_ns2_module

NS = shutil.which("ns")
pytestmark = pytest.mark.ns2
SEEDS = (1, 2, 3)
# (flows, ECN) -> metric -> relative tolerance; goodput 1 % everywhere.
TOLERANCES = {
    (2, False): {"bottleneck_drops": 0.05, "retransmitted_packets": 0.05},
    (2, True): {"bottleneck_drops": 0.10, "retransmitted_packets": 0.10, "bottleneck_marks": 0.35,
                "ecn_reactions": 0.35},
    (4, False): {"bottleneck_drops": 0.10, "retransmitted_packets": 0.12},
    (4, True): {"bottleneck_drops": 0.12, "retransmitted_packets": 0.12, "bottleneck_marks": 0.42,
                "ecn_reactions": 0.35},
    (8, False): {"bottleneck_drops": 0.16, "retransmitted_packets": 0.20},
    (8, True): {"bottleneck_drops": 0.13, "retransmitted_packets": 0.10, "bottleneck_marks": 0.13,
                "ecn_reactions": 0.15},
}
GOODPUT_TOLERANCE = 0.01
CASES = sorted(TOLERANCES)


def _mean(runs: list[dict]) -> dict:
    return {key: statistics.mean(run[key] for run in runs) for key in bench_ns2_module("red_compare").METRICS}


@functools.lru_cache(maxsize=None)
def _ns2_means(flows: int, ecn: bool, seeds=SEEDS) -> dict:
    compare = bench_ns2_module("red_compare")
    import os

    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        return _mean([compare.run_ns2(compare.ns2_args("1Mb", "20ms", 25, flows, ecn, seed)) for seed in seeds])
    finally:
        os.chdir(cwd)


def _cclab_means(flows: int, ecn: bool, seeds=SEEDS, max_p: float = 0.1) -> dict:
    compare = bench_ns2_module("red_compare")
    runs = []
    for seed in seeds:
        scenario = compare.cclab_scenario("1Mbps", "20ms", 25, flows, ecn, seed)
        scenario["topology"]["bottleneck"]["queue"]["max_p"] = max_p
        runs.append(compare.run_cclab(scenario))
    return _mean(runs)


def _violations(flows: int, ecn: bool, ours: dict) -> list[str]:
    """Each check of (flows, ecn) that ``ours`` fails against ns-2, as text."""
    ns2 = _ns2_means(flows, ecn)
    bounds = {"goodput_mbps": GOODPUT_TOLERANCE, **TOLERANCES[(flows, ecn)]}
    failed = [f"{metric}: cclab {ours[metric]:.4g} vs ns-2 {ns2[metric]:.4g} (±{bound:.0%})"
              for metric, bound in bounds.items() if ours[metric] != pytest.approx(ns2[metric], rel=bound)]
    if not ecn and not (ours["bottleneck_marks"] == ns2["bottleneck_marks"] == 0):
        failed.append("marks without ECN")
    return failed


@pytest.mark.parametrize("flows, ecn", CASES)
def test_red_matches_ns2(flows, ecn):
    assert _violations(flows, ecn, _cclab_means(flows, ecn)) == []


@pytest.mark.parametrize("flows, ecn", [(2, False), (2, True), (4, True), (8, True)])
def test_the_checks_catch_a_wrong_max_p(flows, ecn):
    """RED's max_p raised by 50 % must fail the cross-check (issue 16: it used to pass)."""
    assert _violations(flows, ecn, _cclab_means(flows, ecn, max_p=0.15)) != []


def test_ecn_replaces_drops_in_both():
    """With ECN, both simulators drop (and retransmit) far less than without it."""
    ns2_on, ours_on = _ns2_means(2, True), _cclab_means(2, True)
    ns2_off, ours_off = _ns2_means(2, False), _cclab_means(2, False)
    assert ns2_on["bottleneck_drops"] < 0.5 * ns2_off["bottleneck_drops"]
    assert ours_on["bottleneck_drops"] < 0.5 * ours_off["bottleneck_drops"]
    assert ours_on["bottleneck_marks"] > 0 and ns2_on["bottleneck_marks"] > 0
