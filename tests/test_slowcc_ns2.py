"""SlowCC Fig. 13 against ns-2.35 (bench/ns2/slowcc_ns2.py: 10 flows, 10 Mb/s RED,
RTT 50 ms, five stop at 500 s; f(k) = bottleneck utilisation over the next k RTTs),
seeds 1–5. Marked ``ns2``: CI requires ns-2 and fails if these did not run.

Measured (5 seeds, mean ± sd; `python3 bench/ns2/slowcc_ns2.py`): f(20) ns-2 / cclab —
TCP 0.896 ± 0.021 / 0.924 ± 0.026, TCP(1/8) 0.804 ± 0.019 / 0.820 ± 0.023, TFRC(8)
ns-2 defaults 0.626 ± 0.041 / 0.649 ± 0.040, TFRC(8) without discounting
0.576 ± 0.050 / 0.632 ± 0.062.
"""
from __future__ import annotations

import functools
import statistics

import pytest

from conftest import bench_ns2_module

pytestmark = pytest.mark.ns2
SEEDS = (1, 2, 3, 4, 5)


@functools.lru_cache(maxsize=None)
def f20(simulator: str, cc: str, keys: tuple = ()) -> float:
    run = bench_ns2_module("slowcc_ns2").run_fig13 if simulator == "ns2" else bench_ns2_module("slowcc_ns2").run_cclab
    return statistics.fmean(run(cc, seed, red_bytes=0, **dict(keys))["f20"] for seed in SEEDS)


CASES = [("tcp", ()), ("tcp_b", (("b", 8),)), ("tfrc", (("intervals", 8), ("discount", 1)))]


@pytest.mark.parametrize("cc,keys", CASES)
def test_f20_matches_ns2(cc, keys):
    ns2, ours = f20("ns2", cc, keys), f20("cclab", cc, keys)
    # Seed-to-seed sd is 0.02–0.05 in both; 0.05 is about two standard errors of a
    # 5-seed mean difference.
    assert ours == pytest.approx(ns2, abs=0.05), (cc, ns2, ours)


def test_both_rank_the_controls_as_the_paper():
    for simulator in ("ns2", "cclab"):
        tcp, tcp8, tfrc8 = (f20(simulator, cc, keys) for cc, keys in CASES)
        assert tcp > tcp8 > tfrc8, simulator
