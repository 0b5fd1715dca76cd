"""cclab's ``linux`` profile against the Linux kernel's TCP over Mahimahi: the recorded
reference (bench/linux/reference.json, bench/linux/README.md) on a few representative
cases, judged by issue 37's criteria through bench/linux/compare.py; and that script's
link is Mahimahi's (trace lines per rate, buffer of waiting packets, delay, sizes).

The reference is recorded by hand on a machine with Mahimahi (no CI machine has it); the
comparison tests skip when the file is absent. ``CCLAB_LINUX_REFERENCE`` names another
copy. A (case, criterion) pair that the linux profile does not meet yet is listed in
NOT_YET and expected to fail (strict: once it passes, the test says so, and the entry is
to be removed).
"""
from __future__ import annotations

import functools
import importlib.util
import math
import os
import struct
import sys
from pathlib import Path

import pytest

import cclab
from conftest import REPO

REFERENCE = Path(os.environ.get("CCLAB_LINUX_REFERENCE", REPO / "bench" / "linux" / "reference.json"))
SEEDS = [1, 2, 3]


@functools.lru_cache(maxsize=None)
def bench_linux(stem: str):
    """A script of bench/linux imported as a module."""
    path = REPO / "bench" / "linux" / f"{stem}.py"
    if str(path.parent) not in sys.path:  # its sibling modules, as when it runs as a script
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(f"bench_linux_{stem}", path)
    assert spec is not None and spec.loader is not None, f"{path}: not importable"
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


compare = bench_linux("compare")
CASES = compare.QUICK_CASES

# (case, criterion) pairs the linux profile does not meet yet, measured on this branch
# (3 seeds against the kernel runs recorded with the machine idle), with what it gives;
# the full set's misses are in docs/validation/linux.md.
NOT_YET: dict[tuple[str, str], str] = {}

# The holdout set (bench/linux/holdout.json): 12 cases off the reference's grid, recorded
# after the comparison's settings were fixed, every one of them judged here. Its misses, as
# measured (3 seeds against 9 idle kernel runs, three recorded blind and six more a day
# later): BBR keeps less queue than the kernel's wherever its queue is set by pacing, not by
# its window (docs/validation/linux.md).
HOLDOUT = REPO / "bench" / "linux" / "holdout.json"
HOLDOUT_NOT_YET: dict[tuple[str, str], str] = {
    ("tcp_r24_d15_b1bdp_bbr", "queue_delay"): "kernel 17.7 ms (14.2-20.5), cclab 13.2 (12.0-15.1)",
    ("tcp_r24_d15_b3bdp_bbr", "queue_delay"): "kernel 22.2 ms (16.2-27.4), cclab 17.4 (14.7-19.7)",
    ("tcp_r48_d40_b1bdp_bbr", "queue_delay"): "kernel 11.2 ms (7.3-18.7), cclab 6.6",
}
# (BBR + CUBIC@10 s met all four once the late client's slower process start, measured in
# three harness runs after this set had shown the miss, entered the iperf3 model: that case
# is no longer judged blind; bench/linux/diag/FINDINGS.md, "A flow that starts late")


# Flows of two segment sizes (bench/linux/mss.json): the kernel's iperf3 -M 536 (524 bytes of
# payload) beside its default 1448, against groups with their own packet_size.
MSS_SET = REPO / "bench" / "linux" / "mss.json"
MSS_NOT_YET: dict[tuple[str, str], str] = {
    # BBR: the large flow's share 0.50 over fifteen kernel runs (0.39-0.68); cclab's seeds
    # 0.57-0.74 over three, 0.61 over ten (0.47-0.74)
    ("tcp_r48_d20_b1bdp_bbr+bbr-m536", "shares"): "kernel 0.50 / 0.50, cclab 0.63 / 0.37",
    # the 524-byte flow's slow start drops ~50 more in cclab (199-247 in its first second
    # against 138-186); at ten seeds +26 %
    ("tcp_r48_d20_b1bdp_cubic+cubic-m536", "retransmissions"): "kernel 308 (180-377), cclab 401 (377-440)",
}


# Recorded cellular traces (bench/linux/cellular.json): three of Mahimahi's LTE traces
# (bench/linux/traces/cellular/), their first 30 s, recorded after the comparison's settings
# were fixed and judged here without changing any.
CELLULAR_SET = REPO / "bench" / "linux" / "cellular.json"
CELLULAR_NOT_YET: dict[tuple[str, str], str] = {
    # where slow start ends: two kernel runs of six retransmitted 26-32, the others 101-127
    ("cell_verizon-lte_d20_b5bdp_cubic", "retransmissions"): "kernel 87 (26-127), cclab 124 (118-131)",
}


# Flows sharing a link as today's studies set them (bench/linux/coexist.json): two BBR flows,
# BBR beside Reno, four CUBIC, three Reno, flows joining late, at rates and delays off the
# reference's grid; recorded after the comparison's settings were fixed, judged here without
# changing any.
COEXIST_SET = REPO / "bench" / "linux" / "coexist.json"
COEXIST_NOT_YET: dict[tuple[str, str], str] = {
    # the newcomer's STARTUP ends at 26-42 Mb/s in cclab, 16-19 in the kernel; each flow then
    # locks its long-term estimate where it is (linux.md, "Flows sharing a link"); over nine
    # kernel runs the first flow's share is 0.42-0.80 (mean 0.64; cclab 0.59), and the
    # retransmissions 3434-11446
    ("tcp_r60_d25_b1bdp_bbr+bbr@8", "retransmissions"): "kernel 7228 (3434-11446), cclab 9444 (6273-14210)",
}


def applies(name: str, criterion: str) -> bool:
    if criterion == "shares":
        return "+" in name
    if criterion == "retransmissions":
        return not name.startswith("udp_")
    return True


def pairs(cases=CASES, not_yet=NOT_YET):
    for name in cases:
        for criterion in compare.CRITERIA:
            if applies(name, criterion):
                marks = ()
                if (name, criterion) in not_yet:
                    marks = pytest.mark.xfail(strict=True, reason=not_yet[(name, criterion)])
                yield pytest.param(name, criterion, marks=marks, id=f"{name}-{criterion}")


@pytest.fixture(scope="module")
def report():
    if not REFERENCE.is_file():
        pytest.skip(f"no kernel reference at {REFERENCE} (bench/linux/record.py records it on a machine with "
                    f"Mahimahi; CCLAB_LINUX_REFERENCE names another copy)")
    reference = compare.load_reference(REFERENCE)
    names = compare.select_cases(reference, names=CASES)
    if not names:
        pytest.skip(f"{REFERENCE} holds none of {', '.join(CASES)} yet")
    return compare.compare(reference, REFERENCE, names, SEEDS, "linux", jobs=1)


@pytest.mark.parametrize(("name", "criterion"), list(pairs()))
def test_linux_profile_meets_the_kernel(report, name, criterion):
    if name not in report["cases"]:
        pytest.skip(f"{name}: no kernel run recorded yet")
    judged(report, name, criterion)


def holdout_cases() -> tuple[str, ...]:
    return tuple(bench_linux("record").holdout_cases())


def mss_cases() -> tuple[str, ...]:
    return tuple(bench_linux("record").mss_cases())


def cellular_cases() -> tuple[str, ...]:
    return tuple(bench_linux("record").cellular_cases())


def coexist_cases() -> tuple[str, ...]:
    return tuple(bench_linux("record").coexist_cases())


def whole_report(path: Path) -> dict:
    """cclab against every case of another recorded set (holdout.json, mss.json, cellular.json,
    coexist.json)."""
    if not path.is_file():
        pytest.skip(f"no recorded set at {path}")
    reference = compare.load_reference(path)
    return compare.compare(reference, path, compare.select_cases(reference), SEEDS, "linux", jobs=1)


@pytest.fixture(scope="module")
def holdout_report():
    return whole_report(HOLDOUT)


@pytest.fixture(scope="module")
def mss_report():
    return whole_report(MSS_SET)


@pytest.fixture(scope="module")
def cellular_report():
    return whole_report(CELLULAR_SET)


@pytest.fixture(scope="module")
def coexist_report():
    return whole_report(COEXIST_SET)


@pytest.mark.parametrize(("name", "criterion"), list(pairs(holdout_cases(), HOLDOUT_NOT_YET)))
def test_linux_profile_meets_the_kernel_outside_its_set(holdout_report, name, criterion):
    judged(holdout_report, name, criterion)


@pytest.mark.parametrize(("name", "criterion"), list(pairs(mss_cases(), MSS_NOT_YET)))
def test_flows_of_their_own_segment_size_meet_the_kernel(mss_report, name, criterion):
    judged(mss_report, name, criterion)


@pytest.mark.parametrize(("name", "criterion"), list(pairs(cellular_cases(), CELLULAR_NOT_YET)))
def test_over_recorded_cellular_traces_cclab_meets_the_kernel(cellular_report, name, criterion):
    judged(cellular_report, name, criterion)


@pytest.mark.parametrize(("name", "criterion"), list(pairs(coexist_cases(), COEXIST_NOT_YET)))
def test_flows_sharing_a_link_meet_the_kernel(coexist_report, name, criterion):
    judged(coexist_report, name, criterion)


@pytest.mark.parametrize(("path", "group"), [(HOLDOUT, "holdout"), (MSS_SET, "mss"), (CELLULAR_SET, "cellular"),
                                             (COEXIST_SET, "coexist")])
def test_the_other_sets_are_what_record_py_records(path, group):
    """Every case record.py defines for the group is in its file, as defined there, with at
    least three idle runs, and none of them is in the reference set."""
    if not path.is_file():
        pytest.skip(f"no recorded set at {path}")
    defined = bench_linux("record").GROUPS[group]()
    recorded = compare.load_reference(path)
    assert recorded["cases"] == defined
    runs = compare.runs_by_case(recorded)
    counts = {name: len(runs.get(name, [])) for name in defined}
    assert min(counts.values()) >= 3, counts
    if REFERENCE.is_file():
        assert not set(defined) & set(compare.load_reference(REFERENCE)["cases"])


def test_the_polled_runs_are_recorded_cases_run_polling():
    """bench/linux/idle-poll.json: cases of the reference or the holdout set, as defined
    there, each run twice with the CPUs idling by polling (harness.py --idle-poll)."""
    polled_path = REPO / "bench" / "linux" / "idle-poll.json"
    if not polled_path.is_file() or not REFERENCE.is_file() or not HOLDOUT.is_file():
        pytest.skip("no idle-poll.json, reference.json or holdout.json")
    polled = compare.load_reference(polled_path)
    defined = {**compare.load_reference(REFERENCE)["cases"], **compare.load_reference(HOLDOUT)["cases"]}
    assert polled["cases"] and all(defined[name] == case for name, case in polled["cases"].items())
    assert all(run["cpu_idle"] == {"driver": "haltpoll", "polling": True} for run in polled["runs"])
    assert {name: len(runs) for name, runs in compare.runs_by_case(polled).items()} == {name: 2 for name in polled["cases"]}


def test_idling_by_polling_holds_the_latency_request_at_zero():
    """harness.idle_by_polling: while held, the kernel's CPU latency target (what
    /dev/cpu_dma_latency reads back) is 0 µs; before and after, whatever it was."""
    device = Path("/dev/cpu_dma_latency")
    if not device.exists() or not os.access(device, os.R_OK | os.W_OK):
        pytest.skip("needs /dev/cpu_dma_latency, readable and writable (root)")
    harness = bench_linux("harness")

    def target() -> int:
        fd = os.open(device, os.O_RDONLY)
        try:
            return struct.unpack("i", os.read(fd, 4))[0]
        finally:
            os.close(fd)

    before = target()
    with harness.idle_by_polling(False):
        assert target() == before
    with harness.idle_by_polling(True):
        assert target() == 0
    assert target() == before


def judged(report, name, criterion):
    verdict = report["cases"][name]["criteria"][criterion]
    assert verdict["ok"] is not None, f"{name}: {criterion} was not judged"
    assert verdict["ok"], (f"{name}: {criterion} kernel {verdict['kernel']}, cclab {verdict['cclab']} "
                           f"(difference {verdict['delta']:+.3g}, allowed ±{verdict['limit']:.3g})")


# ---------------------------------------------------------------- the link

def test_constant_rates_are_the_harness_trace_lines():
    assert compare.rate_trace_lines(12) == [1]
    assert compare.rate_trace_lines(48) == [1] * 4
    assert compare.rate_trace_lines(96) == [1] * 8
    assert compare.rate_trace_lines(18) == [1, 2, 2]      # 3 opportunities per 2 ms
    assert compare.rate_trace_lines(10) == [2, 3, 4, 5, 6]  # 5 per 6 ms, the i-th at ceil(6i/5)
    harness = REPO / "bench" / "linux" / "harness.py"
    if harness.is_file():  # the kernel side's own rule, where it is in the tree
        for rate in (6, 10, 12, 18, 30, 48, 96, 100):
            assert compare.rate_trace_lines(rate) == bench_linux("harness").rate_trace_lines(rate), rate


def test_the_scenario_is_mahimahis_link(tmp_path):
    case = {"link": {"rate_mbps": 48}, "delay_ms": 10, "buffer_pkts": 160, "duration_s": 30.0,
            "flows": [{"cc": "bbr", "start_s": 0.0}, {"cc": "cubic", "start_s": 2.0}]}
    traces = compare.TraceFiles(tmp_path)
    trace = traces.rate(48)
    assert trace.read_text() == "1\n1\n1\n1\n"
    sc = compare.scenario(case, 2, "linux", trace)
    assert (sc["seed"], sc["profile"], sc["duration"]) == (2, "linux", f"{30 + compare.DRAIN_S:g}s")
    assert (sc["packet_size"], sc["header_size"], sc["ack_size"]) == ("1448B", "52B", "52B")
    assert [(f["cc"], f["start"], f["stop"]) for f in sc["flows"]] == [("bbr", "0s", "30s"), ("cubic", "2s", "30s")]
    # the reference's cubic and reno are paced (iperf3 under the default bbr); bbr paces itself
    assert [f.get("tcp") for f in sc["flows"]] == [None, {"pacing": True}]
    assert [f["tcp"] for f in compare.scenario(case, 2, "linux", trace, max_window=2200)["flows"]] == \
        [{"max_window": 2200}, {"max_window": 2200, "pacing": True}]
    assert all("tcp" not in f for f in compare.scenario(case, 2, "rfc", trace)["flows"]), "pacing is the linux profile's"
    # every flow between the same two hosts, as the kernel's (one shell, one TUN, one mm-delay)
    assert {(f["from"], f["to"]) for f in sc["flows"]} == {(compare.SENDER, compare.RECEIVER)}
    # Mahimahi's timing: its loops, mm-link's on the bottleneck and mm-delay's on the
    # receiver's link (or a replayed lag, both ways, or neither; not both)
    loops = {"kind": "mahimahi", **compare.EMULATOR}
    sender_link, bottleneck, receiver_link = sc["topology"]["links"]
    assert (sender_link["from"], bottleneck["from"], receiver_link["to"]) == (compare.SENDER, "r1", compare.RECEIVER)
    assert bottleneck["emulator"] == receiver_link["emulator"] == loops
    assert "emulator" not in sender_link and "lag" not in bottleneck["rate_schedule"]
    lagged = compare.scenario(case, 2, "linux", trace, emulator=None, lag=(compare.LAG_DATA, compare.LAG_ACK))
    assert lagged["topology"]["links"][1]["rate_schedule"]["lag"] == {"file": str(compare.LAG_DATA)}
    assert lagged["topology"]["links"][1]["reverse"]["rate_schedule"]["lag"] == {"file": str(compare.LAG_ACK)}
    assert "emulator" not in lagged["topology"]["links"][1]
    exact = compare.scenario(case, 2, "linux", trace, emulator=None)["topology"]["links"][1]
    assert "lag" not in exact["rate_schedule"] and "emulator" not in exact
    with pytest.raises(ValueError, match="not both"):
        compare.scenario(case, 2, "linux", trace, lag=(compare.LAG_DATA, compare.LAG_ACK))
    with pytest.raises(ValueError, match="at the receiver"):
        compare.scenario(case, 2, "linux", trace, delay_at="bottleneck")
    links = {link["name"]: link for link in cclab.topology(sc)["links"]}
    for name in ("r1-r2", "r2-r1"):  # data one way, ACKs the other: the same trace, buffer, no delay
        assert links[name]["rate_schedule"]["file"] == str(trace)
        assert links[name]["buffer_packets"] == 160 and links[name]["delay"] == "0s"
        assert links[name]["rate"] == "48128kbps"          # 4 × 1504 bytes per ms
    # D after the queue for the data, before it for the ACKs: on the receiver's link
    assert links["r2-receiver"]["delay"] == links["receiver-r2"]["delay"] == "10ms"
    assert links["sender-r1"]["delay"] == links["r1-sender"]["delay"] == "0s"
    other = {link["name"]: link for link in cclab.topology(compare.scenario(case, 1, "rfc", trace, delay_at="bottleneck", emulator=None))["links"]}
    assert other["r1-r2"]["delay"] == "10ms" and other["r2-receiver"]["delay"] == "0s"


def test_iperf3s_control_packets_meet_the_first_flight(tmp_path):
    """iperf3's two control-connection packets reach the queue just before each flow's first
    data segment, 53 bytes each (the kernel's are 52): with a 10-packet buffer, two of the
    initial window's ten segments drop, as
    in the kernel's runs (bench/linux/diag/FINDINGS.md), and Reno leaves slow start at once:
    those two are all it loses in 0.3 s. Without them slow start runs on and overshoots the
    path by about 30 segments. The measures count the case's TCP flows only. (The flow starts
    at once: iperf3's start moves the first flight against the 1-ms ticks, and whether a tick
    falls between the control packets and the data is the start's business, tested below.)"""
    case = {"link": {"rate_mbps": 12}, "delay_ms": 10, "buffer_pkts": 10, "duration_s": 0.3,
            "flows": [{"cc": "reno", "start_s": 0.0}]}
    traces = compare.TraceFiles(tmp_path)
    runs = {}
    for control in (True, False):
        (sc, _), = compare.case_scenarios("c", case, [], [1], "linux", traces, tmp_path / "reference.json",
                                          control=control, iperf3_start=False)
        sc["trace"]["pcap"] = ["r1-r2"]
        runs[control] = (sc, cclab.run(sc))
    sc, result = runs[True]
    control = sc["flows"][1]
    assert (control["transport"], len(sc["flows"])) == ("udp", 2)
    capture = next(c for c in result.raw["traces"]["captures"] if c["name"] == "r1-r2")
    kinds = [k for k in capture["kind"] if k != 5]          # after the SYN
    assert kinds[:3] == [2, 2, 0], "the two control packets, then the data"
    # as small as the kernel's pure ACKs (52 bytes; cclab's smallest UDP payload is 1 byte)
    sizes = [size for size, kind in zip(capture["bytes"], capture["kind"]) if kind == 2]
    assert sizes == [compare.HEADER_BYTES + 1] * 2, sizes
    first_second = lambda result: result.raw["traces"]["links"][0]["drops"][0]  # noqa: E731
    assert first_second(result) == 2 and first_second(runs[False][1]) > 20
    measures = compare.cclab_run_measures(result, case)
    assert len(measures["flow_goodput_mbps"]) == 1 and measures["retransmissions"] == 2


def test_the_control_packets_go_in_the_first_datas_millisecond():
    # 3 µs and 2 µs before the first data segment, 1 µs apart; but a first segment sent
    # 1 µs into its millisecond (cclab's releases come about then) has them spread between
    # the tick and itself: the kernel's share the first flight's millisecond in every run
    iperf3 = bench_linux("iperf3")
    late, early = iperf3.control_flows([0.117753, 0.116001], compare.HEADER_BYTES, "a", "b")
    seconds = lambda text: float(text.rstrip("s"))  # noqa: E731
    rate = lambda flow: float(flow["app"]["rate"].removesuffix("bps"))  # noqa: E731
    wire_bits = 8 * (compare.HEADER_BYTES + 1)
    assert seconds(late["start"]) == pytest.approx(0.117750, abs=1e-9)
    assert wire_bits / rate(late) == pytest.approx(1e-6, rel=1e-6)
    gap = wire_bits / rate(early)
    sent = [seconds(early["start"]) + k * gap for k in range(iperf3.CONTROL_PACKETS)]
    assert 0.116 < sent[0] < sent[-1] < 0.116001 and gap == pytest.approx(1e-6 / 3, rel=1e-3)
    assert seconds(early["stop"]) < 0.116001 and (early["from"], early["to"]) == ("a", "b")


def test_flows_start_as_late_as_iperf3s_first_data(tmp_path):
    """iperf3's first data segment leaves five round trips and 3.6 ms after its client starts
    (216-222 ms at D = 20 ms over the idle kernel runs with pcaps, bench/linux/diag); a cclab
    flow sends after its handshake, one round trip. With the start modelled, the first data
    leaves within that range, each flow still runs as long, and the scenario lasts as much
    longer; without it, after about one round trip. A flow starting behind another's queue
    has its round trips lengthened by it."""
    case = {"link": {"rate_mbps": 12}, "delay_ms": 20, "buffer_pkts": 40, "duration_s": 1.0,
            "flows": [{"cc": "cubic", "start_s": 0.0}, {"cc": "reno", "start_s": 0.5}]}
    traces = compare.TraceFiles(tmp_path)
    first_data = {}
    for start in (True, False):
        (sc, info), = compare.case_scenarios("s", case, [], [1], "linux", traces, tmp_path / "reference.json",
                                             control=False, iperf3_start=start)
        first_data[start] = compare.first_data_arrivals(sc)
        if start:
            delays = [ms / 1000 for ms in info["start_delay_ms"]]
            seconds = lambda text: float(text.rstrip("s"))  # noqa: E731
            assert [seconds(f["start"]) for f in sc["flows"]] == pytest.approx([delays[0], 0.5 + delays[1]], abs=1e-5)
            assert [seconds(f["stop"]) - seconds(f["start"]) for f in sc["flows"]] == pytest.approx([1.0, 0.5])
            assert seconds(sc["duration"]) == pytest.approx(1.0 + compare.DRAIN_S + max(delays), abs=1e-5)
    assert 0.210 < first_data[True][0] < 0.230, first_data[True]
    assert 0.040 < first_data[False][0] < 0.050, first_data[False]
    queued = first_data[False][1] - 0.5 - 0.040      # the queue flow 0 keeps at 0.5 s
    # (its five round trips each meet a queue: how long depends on where CUBIC's sawtooth is)
    assert queued > 0.005 and first_data[True][1] - 0.5 > 5 * 0.040 + 2 * queued, first_data
    # a kernel run that noted its first data arrival (ms in the log) sets the first flow's start
    run = {"uplink": {"t0_log_ms": 1000.0, "whole_log": {"first_full_arrival_ms": 1250}}}
    assert compare.kernel_first_data(run) == pytest.approx(0.250)
    (sc, info), = compare.case_scenarios("s", case, [run], [1], "linux", traces, tmp_path / "reference.json",
                                         control=False)
    recorded = compare.first_data_arrivals(sc)
    assert recorded[0] == pytest.approx(0.250, abs=2e-3)
    # the second flow, behind the first one's queue, keeps its own (longer) round trips
    assert recorded[1] - 0.5 > 5 * 0.045, recorded
    # a recorded arrival earlier than the model's puts the data there too (not the model's)
    early = {"uplink": {"t0_log_ms": 1000.0, "whole_log": {"first_full_arrival_ms": 1100}}}
    (sc, _), = compare.case_scenarios("s", case, [early], [1], "linux", traces, tmp_path / "reference.json",
                                      control=False)
    assert compare.first_data_arrivals(sc)[0] == pytest.approx(0.100, abs=2e-3)


def test_a_flow_starting_late_is_started_as_iperf3s(tmp_path):
    """A flow that starts seconds into the run (the holdout's CUBIC at 10 s) has its first
    data found by the pre-run, which lasts until 2 s after the last start."""
    case = {"link": {"rate_mbps": 12}, "delay_ms": 10, "buffer_pkts": 20, "duration_s": 4.0,
            "flows": [{"cc": "bbr", "start_s": 0.0}, {"cc": "cubic", "start_s": 3.0}]}
    (sc, info), = compare.case_scenarios("s", case, [], [1], "linux", compare.TraceFiles(tmp_path),
                                         tmp_path / "reference.json", control=False)
    first = compare.first_data_arrivals(sc)
    assert 3.0 + 5 * 0.020 < first[1] < 3.5, first
    # its client starts while the first flow sends: its process start is the busy one, on top
    # of round trips no shorter than the first flow's (made on the idle link)
    first_delay, late_delay = info["start_delay_ms"]
    assert late_delay >= first_delay + 1000 * compare.IPERF3_BUSY_START_S, info


def test_a_full_queue_waits_as_mahimahi_logs_it(tmp_path):
    # 18 Mb/s of 1472-byte datagrams into 12 Mb/s with B = 40: one 1500-byte packet per
    # 1-ms opportunity, the rest dropped; a packet admitted behind the 39 others waiting
    # (the one in delivery not counted) leaves at the 40th tick after its arrival
    # millisecond, logged 40 ms. A buffer of B + 1, or 1448 + 52 bytes, would show.
    case = {"link": {"rate_mbps": 12}, "delay_ms": 20, "buffer_pkts": 40, "duration_s": 4.0, "udp_rate_mbps": 18}
    sc = compare.scenario(case, 1, "linux", compare.TraceFiles(tmp_path).rate(12), emulator=None)  # the link exact to the tick
    assert (sc["packet_size"], sc["header_size"]) == ("1472B", "28B")
    result = cclab.run(sc)
    measured = compare.cclab_run_measures(result, case)
    assert result.flows["data_packets_sent"][0] == pytest.approx(4 * 18e6 / (1472 * 8), abs=2)
    # one packet per ms through the link, and the 40 queued at the end, which the receiver
    # gets after it (the sender stops at the end, the run goes on): all counted, as iperf3
    assert measured["uplink_packets"] == 4000 - 1 + 40
    assert measured["goodput_mbps"] == pytest.approx(measured["uplink_packets"] * 1472 * 8 / 4 / 1e6)
    assert measured["queue_delay_p95_ms"] == 40.0
    assert 38.5 < measured["queue_delay_ms"] < 40.0
    histogram = result.traces["queue_delay_histogram"].query("link == 'r1-r2' and packets > 0")
    assert set(histogram.delay_ms) <= set(range(1, 41))  # whole milliseconds, as mm-link logs them
    mean = (histogram.delay_ms * histogram.packets).sum() / histogram.packets.sum()
    assert mean == pytest.approx(measured["queue_delay_ms"], abs=0.05)
    assert measured["drops"] > 0 and measured["utilization"] == pytest.approx(1.0, abs=0.002)


def test_a_full_queue_waits_as_mahimahi_logs_it_under_the_emulators_loops(tmp_path):
    # The same flood with the comparison's own timing (Mahimahi's loops, mm-delay's
    # applying D): the p95 is the uplink's queue's, 40 ms (read back from one-way delays
    # less the links' reported delay it was 60: D counted as queue); the link still
    # reports the D it was given.
    case = {"link": {"rate_mbps": 12}, "delay_ms": 20, "buffer_pkts": 40, "duration_s": 4.0, "udp_rate_mbps": 18}
    result = cclab.run(compare.scenario(case, 1, "linux", compare.TraceFiles(tmp_path).rate(12)))
    links = {link["name"]: link for link in result.raw["links"]}
    assert (links["r2-receiver"]["delay_ms"], links["r1-r2"]["delay_ms"]) == (20.0, 0.0)
    measured = compare.cclab_run_measures(result, case)
    assert measured["queue_delay_p95_ms"] == 40.0
    assert 38.5 < measured["queue_delay_ms"] < 40.5


def test_the_p95_is_the_nearest_rank_of_the_logged_delays():
    hist = {1: 7, 2: 3, 10: 1}
    assert compare.nearest_rank(hist, 0.5) == 1 and compare.nearest_rank(hist, 0.95) == 10
    assert compare.nearest_rank(hist, 0.9) == 2 and compare.nearest_rank({}, 0.95) is None


def test_a_rotated_trace_is_the_same_link_seen_later():
    lines = [1, 1, 3, 7, 10]                                # period 10
    rotated = compare.rotate_trace(lines, 2)
    assert rotated == [1, 5, 8, 9, 9, 11, 15, 18, 19, 19]  # its period: 19 ms
    assert compare.rotate_trace(lines, 20) == lines
    assert compare.rotate_trace(lines, 3) == [4, 7, 8, 8, 10]  # ends at the period: one is enough
    # every opportunity of the original at ms v > 2 is at v − 2 in the rotated one
    original = [v + k * 10 for k in range(3) for v in lines]
    assert [v - 2 for v in original if 2 < v <= 21] == rotated
    # a run no longer than the period needs one period, and its last line at the period
    assert compare.rotate_trace(lines, 3, duration_ms=10) == [4, 7, 8, 8, 10]
    assert compare.rotate_trace(lines, 2, duration_ms=10) == [1, 5, 8, 9, 9, 10]
    assert compare.rotate_trace(lines, 9, duration_ms=10) == [1, 2, 2, 4, 8, 10]


def test_criteria_are_issue_37s():
    def table(goodput, delay, retx, shares):
        return {"goodput_mbps": {"mean": goodput}, "queue_delay_ms": {"mean": delay},
                "retransmissions": {"mean": retx} if retx is not None else None, "shares": shares}

    kernel = table(10.0, 40.0, 100, [0.7, 0.3])
    ok = compare.judge(kernel, table(10.49, 45.9, 129, [0.65, 0.35]), flows=2)
    assert all(ok[c]["ok"] for c in compare.CRITERIA) and ok["passes"]
    bad = compare.judge(kernel, table(10.51, 46.1, 131, [0.63, 0.37]), flows=2)
    assert not any(bad[c]["ok"] for c in compare.CRITERIA) and not bad["passes"]
    # the floors: 3 ms of delay, 25 retransmissions
    small = compare.judge(table(10.0, 2.0, 10, [1.0]), table(10.0, 4.9, 34, [1.0]), flows=1)
    assert small["queue_delay"]["ok"] and small["retransmissions"]["ok"] and small["shares"]["ok"] is None
    udp = compare.judge(table(10.0, 2.0, None, [1.0]), table(10.0, 2.0, None, [1.0]), flows=1)
    assert udp["retransmissions"]["ok"] is None and udp["passes"]
    assert math.isclose(abs(bad["shares"]["delta"]), 0.07)


def test_misses_are_told_apart_by_the_kernels_own_spread():
    """A miss counts as reached by the kernel's spread when the ranges of cclab's seeds and of
    the kernel's runs meet (shares: for every flow); cases with one kernel run are not judged."""
    def case(kernel_delays, cclab_delays, kernel_shares, cclab_shares):
        values = lambda v: {"mean": sum(v) / len(v), "values": v}  # noqa: E731
        kernel = {"runs": len(kernel_delays), "queue_delay_ms": values(kernel_delays), "goodput_mbps": values([10.0] * len(kernel_delays)),
                  "retransmissions": values([0] * len(kernel_delays)), "shares": kernel_shares[0]}
        ours = {"runs": len(cclab_delays), "queue_delay_ms": values(cclab_delays), "goodput_mbps": values([10.0] * len(cclab_delays)),
                "retransmissions": values([0] * len(cclab_delays)), "shares": cclab_shares[0]}
        return {"kernel": kernel, "cclab": ours, "criteria": compare.judge(kernel, ours, flows=2),
                "kernel_runs": [{"shares": s} for s in kernel_shares], "cclab_runs": [{"shares": s} for s in cclab_shares]}

    reached = case([15.0, 22.0], [19.0, 30.0, 32.0], [[0.5, 0.5], [0.6, 0.4]], [[0.68, 0.32], [0.55, 0.45]])
    apart = case([15.0, 16.0], [19.0, 30.0, 32.0], [[0.5, 0.5], [0.52, 0.48]], [[0.68, 0.32], [0.6, 0.4]])
    alone = case([15.0], [30.0], [[0.5, 0.5]], [[0.7, 0.3]])
    assert not reached["criteria"]["queue_delay"]["ok"] and not apart["criteria"]["queue_delay"]["ok"]
    assert compare.overlaps_kernel_runs(reached, "queue_delay") and compare.overlaps_kernel_runs(reached, "shares")
    assert compare.overlaps_kernel_runs(apart, "queue_delay") is False and compare.overlaps_kernel_runs(apart, "shares") is False
    assert compare.overlaps_kernel_runs(alone, "queue_delay") is None
    misses = compare.summary({"reached": reached, "apart": apart, "alone": alone})["misses"]
    assert misses == {"count": 6, "with_repeated_kernel_runs": 4, "overlapping_kernel_runs": 2}, misses


def test_the_harness_notes_the_first_data_arrival(tmp_path):
    """The uplink log's first full-sized arrival (1504 bytes as mm-link counts a 1500-byte
    packet) is the first data segment: the small control packets before it do not count,
    and in the window only what arrived in it."""
    harness = bench_linux("harness")
    log = tmp_path / "up.log"
    log.write_text("# init timestamp: 1000\n# base timestamp: 0\n"
                   "3 + 60\n4 # 1504\n12 + 1504\n12 - 60 9\n13 + 1504\n13 - 1504 1\n40 + 1504\n")
    parsed = harness.parse_log(log, 20.0, 1.0)
    assert parsed["whole_log"]["first_full_arrival_ms"] == 12
    assert parsed["window"]["first_full_arrival_ms"] == 40


def test_the_harness_notes_when_a_late_client_sent_its_syn(tmp_path):
    """A flow that starts after the others: the first SYN-sized arrival (64 bytes as mm-link
    counts Linux's SYN) at or after its scheduled start, ms after the window began. The first
    flows, and late flows sharing a start, are not told apart: None."""
    harness = bench_linux("harness")
    log = tmp_path / "up.log"
    log.write_text("# init timestamp: 1000\n"
                   "25 + 64\n60 + 64\n70 + 1504\n3040 + 56\n3061 + 64\n3130 + 64\n5090 + 64\n")
    # the window began at log ms 20: flows at 0, 0, 3 s and two at 5 s
    assert harness.late_syn_arrivals(log, 20.0, [0.0, 3.0]) == [None, 3041.0]
    assert harness.late_syn_arrivals(log, 20.0, [0.0, 0.0, 3.0, 5.0, 5.0]) == [None, None, 3041.0, None, None]
    assert harness.late_syn_arrivals(log, 20.0, [0.0, 4.0]) == [None, 5070.0]
    assert harness.late_syn_arrivals(log, 20.0, [0.0, 9.0]) == [None, None], "no SYN after it"


def test_a_late_flows_recorded_syn_sets_its_start(tmp_path):
    """Where the kernel run noted when a late client sent its SYN, that sets the flow's
    process start in place of the model's (3.6 ms and IPERF3_BUSY_START_S); its round trips
    stay the model's."""
    case = {"link": {"rate_mbps": 12}, "delay_ms": 10, "buffer_pkts": 20, "duration_s": 4.0,
            "flows": [{"cc": "bbr", "start_s": 0.0}, {"cc": "cubic", "start_s": 3.0}]}
    traces = compare.TraceFiles(tmp_path)
    (_, modelled), = compare.case_scenarios("s", case, [], [1], "linux", traces, tmp_path / "reference.json", control=False)
    run = {"uplink": {"late_syn_ms": [None, 3080.0]}}
    assert compare.kernel_late_syns(run) == [None, 3.080]
    (_, measured), = compare.case_scenarios("s", case, [run], [1], "linux", traces, tmp_path / "reference.json",
                                            control=False)
    model_start = 1000 * (compare.IPERF3_PROCESS_START_S + compare.IPERF3_BUSY_START_S)
    assert measured["start_delay_ms"][1] == pytest.approx(modelled["start_delay_ms"][1] - model_start + 80.0, abs=1e-3)
    assert measured["start_delay_ms"][0] == modelled["start_delay_ms"][0]


def test_single_runs_are_judged_like_for_like():
    """Each kernel run against the mean of the kernel's other runs, cclab's seed k against the
    mean of the same runs but run k, by the same judge: queueing delays 10, 11, 16 ms (the
    kernel) meet the criterion once (11 against 13, within 3 ms; 10 against 13.5 and 16
    against 10.5 not); cclab's 12, 14, 20 against 13.5, 13, 10.5, twice. A case run once is
    left out."""
    run = lambda delay: {"flow_goodput_mbps": [10.0], "goodput_mbps": 10.0, "shares": [1.0],  # noqa: E731
                         "flow_retransmissions": [0], "retransmissions": 0, "queue_delay_ms": delay}

    def case(kernel_delays, cclab_delays):
        kernel, ours = [run(d) for d in kernel_delays], [run(d) for d in cclab_delays]
        c = {"kernel_runs": kernel, "cclab_runs": ours,
             "criteria": compare.judge(compare.summarise(kernel), compare.summarise(ours), flows=1)}
        c["single_runs"] = compare.single_runs_meeting(c)
        return c

    three, once = case([10.0, 11.0, 16.0], [12.0, 14.0, 20.0]), case([10.0], [12.0])
    assert three["single_runs"] == {"kernel": [1, 3], "cclab": [2, 3]} and once["single_runs"] is None
    # against the kernel's whole mean (12.3) seed 3's 16 would pass: it is judged without run 3
    assert case([10.0, 11.0, 16.0], [12.0, 14.0, 15.0])["single_runs"]["cclab"] == [2, 3]
    assert compare.summary({"three": three, "once": once})["single_runs"] == {"kernel": [1, 3], "cclab": [2, 3], "cases": 1}


def test_tables_go_between_their_markers(tmp_path):
    kernel_run = {"flow_goodput_mbps": [8.0, 3.0], "goodput_mbps": 11.0, "shares": [8 / 11, 3 / 11],
                  "flow_retransmissions": [50, 10], "retransmissions": 60, "queue_delay_ms": 30.0,
                  "queue_delay_p95_ms": 40.0, "drops": 60, "utilization": 0.99, "uplink_packets": 30000,
                  "ack_path_packets": 15000}
    ours = {**kernel_run, "goodput_mbps": 11.2, "shares": [0.5, 0.5]}
    kernel, mine = compare.summarise([kernel_run]), compare.summarise([ours, ours])
    case = {"flows": [{"cc": "bbr", "start_s": 0.0}, {"cc": "cubic", "start_s": 0.0}]}
    name = "tcp_r12_d20_b5bdp_bbr+cubic"  # one of the compact table's
    report = {"cases": {name: {"case": case, "kernel": kernel, "cclab": mine, "criteria": compare.judge(kernel, mine, 2)}},
              "profile": "linux", "seeds": [1, 2], "commit": "abc1234", "cclab_version": "0", "kernel": "6.18",
              "reference_recorded": "1 runs"}
    report["summary"] = compare.summary(report["cases"])
    assert report["summary"]["shares"] == {"pass": 0, "judged": 1} and report["summary"]["goodput"]["pass"] == 1
    page = tmp_path / "page.md"
    page.write_text(f"# Title\n\n{compare.MARKERS['table'][0]}\nOLD TABLE\n{compare.MARKERS['table'][1]}\n\nafter\n")
    compare.write_markdown(page, report)
    text = page.read_text()
    assert text.startswith("# Title\n\n") and text.endswith(f"{compare.MARKERS['table'][1]}\n\nafter\n")
    assert "OLD TABLE" not in text and f"| {name} | bbr + cubic | 11.00 | 11.20 | +1.8 % |" in text
    assert "**0.73 / 0.27 → 0.50 / 0.50**" in text and "| shares |" in text
    readme = tmp_path / "README.md"
    readme.write_text(f"a\n{compare.MARKERS['compact'][0]}\n{compare.MARKERS['compact'][1]}\nb\n")
    compare.write_markdown(readme, report)
    assert f"| {name} | 11.00 / 11.20 | +1.8 % | 30.0 / 30.0 |" in readme.read_text()
    unmarked = tmp_path / "other.md"
    unmarked.write_text("keep me\n")
    with pytest.raises(SystemExit):
        compare.write_markdown(unmarked, report)
    assert unmarked.read_text() == "keep me\n"
    # another reference's table (the holdout set's) goes between its own markers only
    holdout = compare.markers("holdout")
    assert holdout["table"] == ("<!-- linux-compare:holdout:table -->", "<!-- /linux-compare:holdout:table -->")
    both = tmp_path / "both.md"
    both.write_text(f"{compare.MARKERS['table'][0]}\nMAIN\n{compare.MARKERS['table'][1]}\n"
                    f"{holdout['table'][0]}\nHELD\n{holdout['table'][1]}\n")
    compare.write_markdown(both, report, "holdout")
    assert "MAIN" in both.read_text() and "HELD" not in both.read_text()


@pytest.mark.parametrize("argv, field", [(["--seeds", "0"], "--seeds: 0"), (["--jobs", "-1"], "--jobs: -1"),
                                         (["--only", "no such case"], "no recorded case matches"),
                                         (["--emulator-stalls", "x"], "--emulator-stalls: 'x', expected P,MEAN"),
                                         (["--emulator-stalls", "1.5,1ms"], "1.5 is not a probability"),
                                         (["--emulator-loop", "20ms"], "--emulator-loop: 20ms is above 10ms"),
                                         (["--emulator-loop", "soon"], "\"soon\" is not a duration"),
                                         (["--timing", "lag", "--emulator-loop", "1us"], "go with --timing loop"),
                                         (["--emulator-wake", "11ms"], "--emulator-wake: 11ms is above 10ms"),
                                         (["--emulator-wake=-3us"], "--emulator-wake: \"-3us\" is negative"),
                                         (["--timing", "exact", "--emulator-wake", "1us"], "go with --timing loop"),
                                         (["--lag-dir", "."], "--lag-dir goes with --timing lag"),
                                         # good loop values pass (the core judges them): on to the next check
                                         (["--emulator-loop", "150us", "--emulator-stalls", "0.05,800us", "--emulator-wake", "20us", "--only", "x^"],
                                          "no recorded case matches")])
def test_bad_arguments_get_one_line(argv, field, capsys):
    if not REFERENCE.is_file():
        pytest.skip(f"no kernel reference at {REFERENCE}")
    with pytest.raises(SystemExit) as exit_:
        compare.main(["--reference", str(REFERENCE), *argv])
    assert exit_.value.code == 2 and field in capsys.readouterr().err


def test_the_harness_takes_a_flows_own_mss():
    """harness.py --flow cc[@start][/mss]: the MSS goes to iperf3 -M; a bad one is refused."""
    import argparse

    parse = bench_linux("harness").parse_flow
    assert parse("cubic/536") == {"cc": "cubic", "start_s": 0.0, "mss": 536}
    assert parse("bbr@5") == {"cc": "bbr", "start_s": 5.0}
    for bad in ("cubic/9000", "cubic/x", "cubic/-5"):
        with pytest.raises(argparse.ArgumentTypeError, match="a whole number of bytes from 88 to 1460"):
            parse(bad)
    # compare.py gives such a flow's group the payload beside the timestamps
    case = compare.load_reference(MSS_SET)["cases"]["tcp_r48_d20_b1bdp_cubic+cubic-m536"] if MSS_SET.is_file() else None
    if case:
        built = compare.scenario(case, 1, "linux", Path("up.trace"))
        assert [f.get("packet_size") for f in built["flows"][:2]] == [None, "524B"]
