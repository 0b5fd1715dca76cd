"""General networks (issue 9): graphs, chains, UDP, two-way traffic, per-link results,
and the live cross-check against ns-2.35 (skipped without ``ns``; .ci/run installs it).
"""
from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest

import cclab
from conftest import REPO, bench_ns2_module

GRAPHS = REPO / "experiments" / "graphs"
NS = shutil.which("ns")


# ------------------------------------------------------------------ ns-2 cross-check
@pytest.mark.ns2
@pytest.mark.parametrize("case", ["parking-lot", "chain-udp", "two-way-dumbbell"])
def test_graph_cases_match_ns2(case):
    """Per-group goodput within 5 % (0.3 Mb/s for starved groups) and per-link drops
    within 20 % of ns-2, seed means over 3 seeds (the issue's tolerances)."""
    compare = bench_ns2_module("graph_compare")
    table = compare.compare(compare.CASES[case], seeds=(1, 2, 3))
    for group, v in table["groups"].items():
        starved = v["ns2"] < 1.0
        tolerance = 0.3 if starved else 0.05 * v["ns2"]
        assert abs(v["cclab"] - v["ns2"]) <= tolerance, f"{case} goodput {group}: {v}"
    busy = {link: v for link, v in table["drops"].items() if max(v.values()) >= 50}
    assert busy, f"{case}: no link drops enough to compare"
    for link, v in busy.items():
        assert v["cclab"] == pytest.approx(v["ns2"], rel=0.20), f"{case} drops {link}: {v}"
    if case == "parking-lot":
        # the long flows are beaten down in both simulators
        for sim in ("cclab", "ns2"):
            long = table["groups"]["long"][sim]
            assert all(long < 0.2 * table["groups"][f"cross{hop}"][sim] for hop in (1, 2, 3)), table["groups"]


def test_translator_refuses_what_it_cannot_map():
    from cclab.ns2.translate import Unsupported, translate

    scenario = cclab.validate(GRAPHS / "chain-udp.toml",
                              {"topology.hops.1.loss": {"model": "gilbert_elliott", "good_to_bad": 0.01,
                                                        "bad_to_good": 0.5}})
    with pytest.raises(Unsupported, match=r'^topology\.hops\[1\]\.loss\.model: "gilbert_elliott" \(on n1-n2\)'):
        translate(scenario)


# ------------------------------------------------------------------ two-way traffic
def _ack_gaps_ms(two_way: bool) -> np.ndarray:
    scenario = cclab.validate(GRAPHS / "two-way-dumbbell.toml", {"duration": "30s", "trace.flows": True})
    if not two_way:
        scenario["flows"] = scenario["flows"][:1]
    trace = cclab.run(scenario).traces["flows"]
    arrivals = trace[(trace.flow_id == 0) & (trace.event == "arrival") & (trace.t_s > 5)]
    return np.diff(arrivals.t_s.to_numpy()) * 1e3


def test_two_way_traffic_compresses_acks():
    """One-way, ACKs reach a sender spaced by the bottleneck's data transmission time
    (1040 bytes at 10 Mb/s: 0.832 ms). Two-way, they queue behind reverse data and leave
    the bottleneck back to back (40 bytes: 0.032 ms apart)."""
    one_way, two_way = _ack_gaps_ms(False), _ack_gaps_ms(True)
    assert len(one_way) > 1000 and len(two_way) > 1000
    assert np.quantile(one_way, 0.01) >= 0.83
    assert (two_way < 0.1).mean() > 0.3, f"compressed share {(two_way < 0.1).mean():.3f}"


# ------------------------------------------------------------------ Python and CLI
def test_example_chain_file_runs_with_udp_and_link_tables():
    result = cclab.run(GRAPHS / "chain-with-cross-traffic.toml", duration="25s")
    flows = result.flows.set_index("group")
    # UDP rows carry no TCP counters, TCP rows no UDP ones
    assert flows.loc["udp_cbr", "transport"] == "udp" and flows.loc["tcp", "transport"] == "tcp"
    assert pd.isna(flows.loc["udp_cbr", "timeouts"]) and pd.isna(flows.loc["udp_cbr", "cc"])
    assert pd.isna(flows.loc["tcp", "lost_packets"])
    assert flows.loc["udp_cbr", "data_packets_sent"] == 5 * 625 + 1  # 5 Mb/s from 20 s to 25 s
    links = result.links.set_index("name")
    assert list(result.links.columns[:3]) == ["name", "from", "to"]
    assert links.loc["hop3", "from"] == "n2" and links.loc["hop3", "rate_mbps"] == 20
    assert result.system["bottleneck_link"] == "n1-n2"
    assert result.system["bottleneck_drops"] == links.loc["n1-n2", "queue_drops"]
    assert pd.isna(result.groups.set_index("name").loc["udp_onoff", "cc"])


def test_links_table_is_saved(tmp_path):
    result = cclab.run(GRAPHS / "chain-with-cross-traffic.toml", duration="5s")
    result.save(tmp_path / "out")
    saved = pd.read_parquet(tmp_path / "out" / "links.parquet")
    assert len(saved) == 8 and set(saved["name"]) >= {"hop3", "n1-n2", "n2-n1"}


def test_topology_shows_the_expanded_graph():
    topology = cclab.topology(GRAPHS / "two-way-dumbbell.toml")
    assert topology["bottleneck"] == "r1-r2"
    assert len(topology["links"]) == 2 + 4 * 10
    routes = [flow["route"] for flow in topology["flows"]]
    assert routes[0] == ["s0", "r1", "r2", "d0"] and routes[5] == ["d5", "r2", "r1", "s5"]
    bottleneck = topology["links"][0]
    assert bottleneck["buffer_packets"] == 88 and bottleneck["rate"] == "10Mbps"


def test_cli_validate_topology_and_graph_errors(cli, tmp_path):
    completed = cli("validate", GRAPHS / "parking-lot.toml", "--topology")
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["flows"][0]["route"] == ["n0", "n1", "n2", "n3"]
    bad = tmp_path / "bad.toml"
    bad.write_text((GRAPHS / "chain-with-cross-traffic.toml").read_text().replace('from = "n0"\nto = "n4"', 'from = "n0"\nto = "n9"'))
    completed = cli("run", bad)
    assert completed.returncode == 2
    assert completed.stderr.strip().splitlines() == [
        'error: flows[0].to: unknown node "n9"; the nodes are n0, n1, n2, n3, n4']
    completed = cli("run", GRAPHS / "two-way-dumbbell.toml", "--set", "flows.0.from=r1")
    assert completed.returncode == 2
    assert "flows[0].from: a dumbbell gives each flow its own hosts" in completed.stderr
    assert "Traceback" not in completed.stderr
