"""TFRC (RFC 5348 and the ns2 profile), the binomial controls, the periodic loss model,
square-wave link rates and the SlowCC metrics: against the throughput equation, the
smoothness the SlowCC study states, and hand-computed values."""
from __future__ import annotations

import json

import numpy as np
import pytest

import cclab
from cclab.analysis.models import aimd_fair_convergence_acks, pftk_throughput, slowcc_f_k
from cclab.analysis.slowcc import delta_fair_convergence_time, f_k, smoothness

from conftest import REPO, run_cli


ACCESS = {"source_access": {"rate": "1Gbps", "delay": "1ms"}, "sink_access": {"rate": "1Gbps", "delay": "1ms"}}


def single_flow(flow: dict, every: int, duration: int = 100, bin_width: str = "5ms", trace: bool = False) -> dict:
    """One flow over a 100 Mb/s path (RTT 50 ms, no queueing) that loses every
    ``every``-th packet: the SlowCC study's steady state with a periodic drop rate."""
    return {
        "duration": f"{duration}s",
        "packet_size": "1000B",
        "header_size": "0B",
        "bin_width": bin_width,
        "trace": {"flows": trace},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "100Mbps", "delay": "15ms", "buffer": 1000, "loss": {"model": "periodic", "every": every}},
            "source_access": {"rate": "1Gbps", "delay": "5ms"},
            "sink_access": {"rate": "1Gbps", "delay": "5ms"},
        },
        "flows": [flow],
    }


def sending_rate_mbps(result, since_s: float) -> float:
    """What one flow put through the bottleneck after ``since_s`` (its sending rate, less
    the packets the loss model took)."""
    bins = result.bottleneck_bins
    late = bins[bins["bin_start_s"] >= since_s]
    return late["transmitted_bytes"].sum() * 8 / (result.duration_s - since_s) / 1e6


@pytest.mark.parametrize("profile,t_rto", [("rfc5348", "4R"), ("ns2", 0.3)])
@pytest.mark.parametrize("every", [100, 1000])
def test_tfrc_under_periodic_loss_settles_at_the_equation_rate(profile, t_rto, every):
    result = cclab.run(single_flow({"transport": "tfrc", "tfrc": {"profile": profile}}, every))
    flow = result.flows.iloc[0]
    rtt = flow["mean_rtt_ms"] / 1e3
    # The receiver saw one loss event per `every` packets: p = 1/every exactly.
    assert flow["cc_state"]["loss_event_rate"] == pytest.approx(1 / every, rel=1e-9)
    # RFC 5348: t_RTO = 4R; ns-2: its 0.1-s-tick TCP estimator, 0.3 s at a 50-ms RTT.
    timeout = 4 * rtt if t_rto == "4R" else t_rto
    equation_mbps = pftk_throughput(1 / every, rtt, timeout) * 1000 * 8 / 1e6
    # Over the second half (after slow start's made-up first interval has aged out),
    # the sent rate is the equation's, less the one packet in `every` the link drops.
    assert sending_rate_mbps(result, 50) == pytest.approx(equation_mbps * (1 - 1 / every), rel=0.03)


def test_tfrc_is_smooth_under_periodic_loss_and_tcp_b_is_one_minus_b():
    # TFRC's allowed rate, report by report (one per RTT): constant, smoothness 1.
    tfrc = cclab.run(single_flow({"transport": "tfrc"}, 1000, trace=True))
    reports = tfrc.traces["flows"]
    reports = reports[(reports["t_s"] > 50) & (reports["event"] == "arrival")]
    assert smoothness(reports["rate_mbps"].to_numpy()) > 0.999
    # What it sends, in sliding one-RTT windows: 1 but for the packet-count granularity.
    per_rtt = 10  # 5-ms bins, 50-ms RTT
    sent = lambda result: result.bottleneck_bins.query("bin_start_s >= 50")["transmitted_bytes"].to_numpy()
    assert smoothness(sent(tfrc), per_rtt) > 0.93
    # TCP(b) cuts its window from W to (1 − b)W: smoothness 1 − b.
    for cc, expected in [("reno", 0.5), ({"algorithm": "tcp(1/b)", "b": 8}, 0.875)]:
        tcp = cclab.run(single_flow({"cc": cc}, 1000))
        assert smoothness(sent(tcp), per_rtt) == pytest.approx(expected, abs=0.05), cc


def test_smoothness_on_hand_made_series():
    assert smoothness([10, 10, 10]) == 1.0
    assert smoothness([10, 5, 10]) == 0.5
    # A cut in the middle of a bin is seen whole by the sliding windows.
    fine = [4, 4, 4, 4, 2, 2, 2, 2]
    assert smoothness(fine, per_rtt=4) == 0.5
    assert smoothness(fine[::2] * 1, per_rtt=1) == 0.5
    with pytest.raises(ValueError):
        smoothness([1])


def test_time_of_plenty_runs_as_written_and_is_deterministic():
    path = REPO / "experiments" / "time-of-plenty.toml"
    first, second = cclab.run(path), cclab.run(path)
    without_wall_time = lambda result: {k: v for k, v in result.raw.items() if k != "wall_time_s"}
    assert without_wall_time(first) == without_wall_time(second)
    groups = first.groups.set_index("name")
    assert list(groups["protocol"] if "protocol" in groups else groups["cc"]) == ["tfrc(8)", "tfrc(8)"]
    # Ten flows fill the 10 Mb/s link; after 500 s the five that stay take it.
    assert first.system["bottleneck_utilization"] > 0.95
    flows = first.flows
    leave = flows[flows["group"] == "leave"]
    assert (leave["stop_s"] == 500).all()
    bins = first.bins
    assert bins[(bins["group"] == "leave") & (bins["bin_start_s"] >= 501)]["delivered_bytes"].sum() == 0
    f20, f200 = f_k(first, 500, 20, 0.05), f_k(first, 500, 200, 0.05)
    assert 0.5 < f20 < f200 < 1.0
    # Packet conservation holds for TFRC data and reports.
    c = first.raw["conservation"]
    assert c["data_sent"] == c["data_received"] + c["data_dropped"] + c["data_in_flight"]
    assert c["acks_sent"] == c["acks_received"] + c["acks_dropped"] + c["acks_in_flight"]


def test_f_k_is_bottleneck_utilisation_over_k_rtts():
    # One UDP flow at exactly half a 10 Mb/s link from 0 to 1 s, then nothing.
    scenario = {
        "duration": "2s", "packet_size": "1000B", "header_size": "0B", "bin_width": "100ms",
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "10ms"}, **ACCESS},
        "flows": [{"transport": "udp", "app": {"kind": "cbr", "rate": "5Mbps"}, "stop": "1s"}],
    }
    result = cclab.run(scenario)
    assert f_k(result, 0.0, 10, 0.1) == pytest.approx(0.5, abs=0.01)
    assert f_k(result, 0.5, 10, 0.1) == pytest.approx(0.25, abs=0.01)  # half of it after the stop
    assert f_k(result, 1.1, 5, 0.1) == 0.0
    with pytest.raises(ValueError, match="needs the run to last"):
        f_k(result, 1.5, 10, 0.1)


def test_f_k_model_and_its_cap():
    # λ = 125 pkt/s per flow, R = 50 ms: TCP reaches the new capacity after k* = Rλ/a.
    assert slowcc_f_k(20, 0.3125, 0.05, 125) == pytest.approx(0.75)  # k* = 20 exactly
    assert slowcc_f_k(20, 1.0, 0.05, 125) == pytest.approx(1 - 6.25 / 80)
    assert slowcc_f_k(5, 1.0, 0.05, 125) == pytest.approx(0.5 + 5 / 25)


def test_fair_convergence_model():
    # AIMD(1/2) at p = 0.1: the difference halves per loss event; 0.1 needs 4 of them.
    assert aimd_fair_convergence_acks(0.5, 0.1) == pytest.approx(40)
    assert aimd_fair_convergence_acks(0.1, 0.1) == pytest.approx(np.ceil(np.log(0.1) / np.log(0.9)) / 0.1)
    assert aimd_fair_convergence_acks(0.01, 0.1) > 10 * aimd_fair_convergence_acks(0.2, 0.1)


def test_tfrc_second_flow_converges_to_a_fair_share():
    scenario = {
        "duration": "60s", "packet_size": "1000B", "header_size": "0B", "bin_width": "100ms",
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "15ms", "queue": "red", "buffer": 125},
                     "source_access": {"rate": "100Mbps", "delay": "5ms"}, "sink_access": {"rate": "100Mbps", "delay": "5ms"}},
        "flows": [{"group": "first", "transport": "tfrc"}, {"group": "second", "transport": "tfrc", "start": {"at": "20s"}}],
    }
    result = cclab.run(scenario)
    seconds = delta_fair_convergence_time(result, 0, 1, 20.0, delta=0.1, window_s=1.0, hold_s=3.0)
    # It was unfair at first (the first flow had the link) and fair within the run.
    assert 2 <= seconds < 40
    rates = result.bins.groupby("flow_id")["goodput_mbps"]
    first_second = [result.bins.query(f"flow_id == {f} and 20 <= bin_start_s < 21")["goodput_mbps"].mean() for f in (0, 1)]
    assert first_second[0] > 2 * first_second[1]
    assert rates.size().tolist() == [600, 600]


def test_square_wave_link_rate_alternates():
    scenario = {
        "duration": "20s", "packet_size": "1000B", "header_size": "0B", "bin_width": "1s",
        "topology": {"kind": "dumbbell", "bottleneck": {"rate": "15Mbps", "delay": "10ms", "buffer": 20,
                                                         "rate_schedule": {"kind": "square", "low": "5Mbps", "period": "1s"}},
                     **ACCESS},
        "flows": [{"transport": "udp", "app": {"kind": "cbr", "rate": "20Mbps"}}],
    }
    result = cclab.run(scenario)
    per_second = result.bottleneck_bins["transmitted_bytes"].to_numpy() * 8 / 1e6
    assert per_second[:-1:2] == pytest.approx(15, rel=0.01)  # high seconds (last bin cut short)
    assert per_second[1::2] == pytest.approx(5, rel=0.01)
    # Utilisation is against what the schedule allows: the link is always busy.
    assert result.system["bottleneck_utilization"] == pytest.approx(1.0, abs=0.01)


def test_binomial_sqrt_converges_to_the_tcp_compatible_window():
    # a = 3b/2 makes SQRT's window √(a/(b·p)) = TCP's √(3/(2p)) (cc/binomial.rs); after
    # its slow convergence from slow start's overshoot both send alike.
    sqrt = cclab.run(single_flow({"cc": {"algorithm": "sqrt(1/b)", "b": 2}}, 1000, duration=400, bin_width="1s"))
    reno = cclab.run(single_flow({"cc": "reno"}, 1000, duration=400, bin_width="1s"))
    assert sending_rate_mbps(sqrt, 300) == pytest.approx(sending_rate_mbps(reno, 300), rel=0.1)
    assert sqrt.flows["cc"][0] == "sqrt(1/2)"


@pytest.mark.parametrize(
    "flow,message",
    [
        ({"transport": "tfrc", "tfrc": {"intervals": 0}}, "flows[0].tfrc.intervals: 0 is outside [1, 4096]"),
        ({"transport": "tfrc", "tfrc": {"profile": "ns3"}}, "profile"),
        ({"transport": "tfrc", "tfrc": {"interval": 8}}, "interval"),
        ({"transport": "tfrc", "cc": "reno"}, "flows[0].cc"),
        ({"transport": "tcp", "tfrc": {"intervals": 8}}, "flows[0].tfrc: applies to transport = \"tfrc\" only"),
        ({"cc": {"algorithm": "tcp(1/b)", "b": 0.5}}, "b: 0.5 is outside (1, 1e6]"),
        ({"cc": {"algorithm": "binomial", "k": 1, "l": 1, "b": 0.5}}, "must be given when k + l"),
        ({"cc": {"algorithm": "sqrt", "b": float("nan")}}, "b"),
    ],
)
def test_bad_tfrc_and_binomial_settings_name_the_field(flow, message):
    scenario = single_flow(flow, 100, duration=1)
    scenario["topology"]["bottleneck"].pop("loss")
    with pytest.raises(cclab.ScenarioError, match=None) as error:
        cclab.run(scenario)
    assert message in str(error.value)


def test_bad_loss_and_schedule_name_the_field():
    scenario = single_flow({"transport": "tfrc"}, 1, duration=1)
    with pytest.raises(cclab.ScenarioError, match="every"):
        cclab.run(scenario)
    scenario = single_flow({"transport": "tfrc"}, 10, duration=1)
    scenario["topology"]["bottleneck"]["rate_schedule"] = {"kind": "square", "low": "500Mbps", "period": "1s"}
    with pytest.raises(cclab.ScenarioError, match="topology.bottleneck.rate_schedule: low 500Mbps must be above 0 and at most"):
        cclab.run(scenario)


def test_cli_runs_the_tfrc_example(tmp_path):
    out = run_cli("run", str(REPO / "experiments" / "time-of-plenty.toml"), "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert {g["cc"] for g in result["groups"]} == {"tfrc(8)"}
