"""Westwood+ and NewReno: cclab against ns-2.35 (bench/ns2/westwood_compare.py's scenario:
one flow, 5 Mb/s, 70 ms, 44-packet buffer, 1 % random loss), 60 s, seeds 1–2. Marked
``ns2``: CI requires ns-2 and fails if these did not run.

ns-2.35's Westwood+ is `Agent/TCP/Linux` with the Linux 2.6.22 tcp_westwood.c; cclab's
``kernel = "2.6.22"`` profile follows it (SRTT as the RTT, cwnd held at BWE·RTTmin in
recovery) and lands within 10 % of it on 100 s, 3 seeds; today's Linux rules (cclab's
default) recover from Reno's half and get far less here — the test pins both facts.
"""
from __future__ import annotations

import functools
import statistics

import pytest

from conftest import bench_ns2_module

pytestmark = pytest.mark.ns2
SEEDS = (1, 2)
DURATION = 60


@functools.lru_cache(maxsize=None)
def goodput(simulator: str, case: str) -> float:
    module = bench_ns2_module("westwood_compare")
    run = module.run_ns2 if simulator == "ns2" else module.run_cclab
    return statistics.fmean(run(case, seed, DURATION)["goodput_mbps"] for seed in SEEDS)


def test_newreno_matches_ns2():
    assert goodput("cclab", "NewReno") == pytest.approx(goodput("ns2", "NewReno"), rel=0.10)


def test_westwood_plus_2_6_22_profile_matches_ns2_linux_agent():
    ns2 = goodput("ns2", "Westwood+")
    assert ns2 > 2 * goodput("ns2", "NewReno")  # ns-2's Westwood+ does set ssthresh from the rate
    assert goodput("cclab", "Westwood+ (kernel 2.6.22)") == pytest.approx(ns2, rel=0.15)


def test_current_linux_rules_recover_from_half_and_get_less():
    current, old = goodput("cclab", "Westwood+"), goodput("cclab", "Westwood+ (kernel 2.6.22)")
    assert goodput("cclab", "NewReno") * 1.3 < current < 0.8 * old
