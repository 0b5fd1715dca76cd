"""RED + ECN + TCP(1, 0.5): cclab against ns-2.35 (bench/ns2/red_ecn.tcl) on Table 1's
1 Mb/s, 20 ms, 25-packet RED bottleneck. Skipped without ``ns`` (.ci/run installs it).

Tolerances are what bench/ns2/red_reference.json measured, with margin: goodput within
3 %; drops and retransmissions within 25 % (seed means); ECN marks within 50 % (cclab
marks 15–45 % more than ns-2 at 2–10 flows, see bench/ns2/README.md).
"""
from __future__ import annotations

import importlib.util
import shutil
import statistics

import pytest

from conftest import REPO

NS = shutil.which("ns")
pytestmark = pytest.mark.ns2


def _compare_module():
    spec = importlib.util.spec_from_file_location("red_compare", REPO / "bench" / "ns2" / "red_compare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _means(flows: int, ecn: bool, seeds=(1, 2, 3)) -> tuple[dict, dict]:
    compare = _compare_module()
    import os

    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        ns2 = [compare.run_ns2(compare.ns2_args("1Mb", "20ms", 25, flows, ecn, seed)) for seed in seeds]
    finally:
        os.chdir(cwd)
    ours = [compare.run_cclab(compare.cclab_scenario("1Mbps", "20ms", 25, flows, ecn, seed)) for seed in seeds]
    mean = lambda runs: {key: statistics.mean(run[key] for run in runs) for key in compare.METRICS}  # noqa: E731
    return mean(ns2), mean(ours)


@pytest.mark.parametrize("flows", [2, 8])
@pytest.mark.parametrize("ecn", [False, True])
def test_red_matches_ns2(flows, ecn):
    ns2, ours = _means(flows, ecn)
    assert ours["goodput_mbps"] == pytest.approx(ns2["goodput_mbps"], rel=0.03)
    assert ours["bottleneck_drops"] == pytest.approx(ns2["bottleneck_drops"], rel=0.25)
    assert ours["retransmitted_packets"] == pytest.approx(ns2["retransmitted_packets"], rel=0.25)
    if ecn:
        assert ours["bottleneck_marks"] == pytest.approx(ns2["bottleneck_marks"], rel=0.5)
        assert ours["ecn_reactions"] == pytest.approx(ns2["ecn_reactions"], rel=0.5)
    else:
        assert ours["bottleneck_marks"] == ns2["bottleneck_marks"] == 0


def test_ecn_replaces_drops_in_both():
    """With ECN, both simulators drop (and retransmit) far less than without it."""
    ns2_on, ours_on = _means(2, True, seeds=(1,))
    ns2_off, ours_off = _means(2, False, seeds=(1,))
    assert ns2_on["bottleneck_drops"] < 0.5 * ns2_off["bottleneck_drops"]
    assert ours_on["bottleneck_drops"] < 0.5 * ours_off["bottleneck_drops"]
    assert ours_on["bottleneck_marks"] > 0 and ns2_on["bottleneck_marks"] > 0
