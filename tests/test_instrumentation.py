"""Instrumentation on any link: `trace.links` (the queue per bin, as tables) and
`trace.pcap` (libpcap files under --out, read back by tcpdump and tcptrace)."""
from __future__ import annotations

import re
import subprocess

import pytest

import cclab

SCENARIO = """
duration = "4s"
seed = 2
[topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "20ms", buffer = 40, queue = { kind = "red", ecn = true } }
source_access = { rate = "100Mbps", delay = "1ms" }
sink_access = { rate = "100Mbps", delay = "1ms", loss = { model = "bernoulli", rate = 0.002 } }
[[flows]]
group = "tcp"
count = 2
tcp = { ecn = true }
start = { stagger = "0.2s" }
[[flows]]
group = "udp"
transport = "udp"
app = { kind = "cbr", rate = "2Mbps" }
[trace]
links = ["r1-r2", "r2-d0"]
pcap = ["r1-r2", "r2-r1"]
"""


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    folder = tmp_path_factory.mktemp("instrumented")
    scenario = folder / "s.toml"
    scenario.write_text(SCENARIO)
    result = cclab.run(scenario)
    result.save(folder / "out")
    return result, folder / "out"


def test_link_traces_are_a_table_that_adds_up(written):
    result, out = written
    table = result.traces["links"]
    assert list(table.columns[:3]) == ["link", "t_s", "arrivals"]
    assert set(table["link"]) == {"r1-r2", "r2-d0"}
    links = result.links.set_index("name")
    for name, rows in table.groupby("link"):
        assert len(rows) == 4, "one row per 1-s bin"
        assert rows["arrivals"].sum() == links.loc[name, "arrivals"]
        assert rows["drops"].sum() == links.loc[name, "queue_drops"] + links.loc[name, "loss_drops"]
        assert rows["marks"].sum() == links.loc[name, "ecn_marks"]
    assert table[table["link"] == "r1-r2"]["mean_queue_packets"].max() > 1
    assert (out / "trace_links.parquet").is_file() and (out / "trace_links.csv").is_file()


def _captured(result, name):
    return next(c for c in result.raw["traces"]["captures"] if c["name"] == name)


@pytest.mark.tcpdump
def test_pcap_files_read_back_with_tcpdump(written):
    result, out = written
    for name in ("r1-r2", "r2-r1"):
        capture = _captured(result, name)
        lines = subprocess.run(["tcpdump", "-r", out / "pcap" / f"{name}.pcap", "-nn", "-S", "-v"],
                               capture_output=True, text=True, check=True).stdout
        packets = [line for line in lines.splitlines() if line.startswith(tuple("0123456789"))]
        assert len(packets) == len(capture["t_ns"]) > 1000, name
        # timestamps: the engine's, to the nanosecond (tcpdump prints microseconds)
        first = packets[0].split()[0]
        seconds = capture["t_ns"][0] / 1e9
        assert first == f"00:00:{seconds:09.6f}"[:len(first)] or abs(float(first.split(":")[-1]) - seconds) < 1e-6
    data = subprocess.run(["tcpdump", "-r", out / "pcap" / "r1-r2.pcap", "-nn", "-S"],
                          capture_output=True, text=True, check=True).stdout
    # flow 0's data: absolute byte numbers are the segment numbers × 1000
    capture = _captured(result, "r1-r2")
    expected = [s * 1000 for s, f, k in zip(capture["seq"], capture["flow"], capture["kind"]) if f == 0 and k == 0]
    seen = [int(m.group(1)) for m in re.finditer(r"10\.1\.0\.0\.1024 > 10\.2\.0\.0\.5001: Flags \[[^\]]*\], seq (\d+):", data)]
    assert seen == expected and len(seen) > 100
    assert "UDP, length" in data and "10.1.0.2.1026 > 10.2.0.2.5002" in data
    acks = subprocess.run(["tcpdump", "-r", out / "pcap" / "r2-r1.pcap", "-nn", "-S"],
                          capture_output=True, text=True, check=True).stdout
    assert "10.2.0.1.5001 > 10.1.0.1.1025: Flags [.], ack" in acks
    # the ECN codepoints of RED's marks are in the IP headers
    verbose = subprocess.run(["tcpdump", "-r", out / "pcap" / "r1-r2.pcap", "-nn", "-v"],
                             capture_output=True, text=True, check=True).stdout
    ce = sum(1 for e in capture["ecn"] if e & 2)
    assert ce > 0 and verbose.count("ECT(0)") > 0 and verbose.count("CE") >= ce


@pytest.mark.tcptrace
def test_tcptrace_follows_each_connection(written):
    result, out = written
    report = subprocess.run(["tcptrace", "-l", "-n", out / "pcap" / "r1-r2.pcap"],
                            capture_output=True, text=True, check=True).stdout
    assert report.count("host a:") + report.count("host c:") == 2, report[:500]
    capture = _captured(result, "r1-r2")
    sent = [sum(1 for f, k in zip(capture["flow"], capture["kind"]) if f == flow and k == 0) for flow in (0, 1)]
    counted = [int(n) for n in re.findall(r"actual data pkts:\s+(\d+)", report)[::2]]
    assert counted == sent


def test_naming_a_link_that_is_not_there_is_one_line(cli, tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.replace('pcap = ["r1-r2", "r2-r1"]', 'pcap = ["r1-r9"]'))
    completed = cli("run", scenario, "--json")
    assert completed.returncode == 2
    lines = completed.stderr.splitlines()
    assert len(lines) == 1 and 'trace.pcap[0]: no link direction is named "r1-r9"' in lines[0], completed.stderr


@pytest.mark.tcpdump
def test_pcap_numbers_each_flows_bytes_by_its_own_segment_size(tmp_path):
    # flow 1's group sends 536-byte segments (the scenario's are 1000): its sequence
    # numbers advance by 536 a segment, its ACKs count its bytes, and tcpdump says so
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.replace('[[flows]]\ngroup = "udp"', '[[flows]]\ngroup = "small"\npacket_size = "536B"\n'
                                         '[[flows]]\ngroup = "udp"'))
    result = cclab.run(scenario)
    result.save(tmp_path / "out")
    data = subprocess.run(["tcpdump", "-r", tmp_path / "out" / "pcap" / "r1-r2.pcap", "-nn", "-S"],
                          capture_output=True, text=True, check=True).stdout
    capture = _captured(result, "r1-r2")
    small = next(int(row["id"]) for row in result.raw["flows"] if row["group"] == "small")
    segments = [s for s, f, k in zip(capture["seq"], capture["flow"], capture["kind"]) if f == small and k == 0]
    pattern = rf"10\.1\.0\.{small}\.{1024 + small} > 10\.2\.0\.{small}\.5001: Flags \[[^\]]*\], seq (\d+):(\d+),"
    seen = [(int(m.group(1)), int(m.group(2))) for m in re.finditer(pattern, data)]
    assert seen == [(s * 536, s * 536 + 536) for s in segments] and len(seen) > 100
    # the other TCP flows keep the scenario's 1000
    big = [(int(m.group(1)), int(m.group(2))) for m in
           re.finditer(r"10\.1\.0\.0\.1024 > 10\.2\.0\.0\.5001: Flags \[[^\]]*\], seq (\d+):(\d+),", data)]
    assert big and all(end - start == 1000 for start, end in big)


ARRIVING_TWO_SIZES = """
duration = "2s"
seed = 3
packet_size = "1460B"
[topology]
kind = "dumbbell"
bottleneck = { rate = "100Mbps", delay = "10ms", buffer = 200 }
source_access = { rate = "1Gbps", delay = "1ms" }
sink_access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
group = "large"
arrivals = { kind = "poisson", load = 0.2, sizes = { kind = "fixed", size = "10KB" } }
[[flows]]
group = "small"
packet_size = "536B"
arrivals = { kind = "poisson", load = 0.2, sizes = { kind = "fixed", size = "10KB" } }
[trace]
pcap = ["r1-r2"]
"""


@pytest.mark.tcpdump
def test_pcap_numbers_arriving_flows_bytes_by_their_groups_segments(tmp_path):
    # arriving flows of 1460- and 536-byte segments take each other's slots (the same
    # addresses and ports); each data packet tcpdump reads spans its own flow's segment:
    # 7 of 1460 bytes or 19 of 536 make a 10 KB flow (data numbered from one segment in:
    # the SYN is segment 0), so none ends past its (N + 1)-th segment
    scenario = tmp_path / "s.toml"
    scenario.write_text(ARRIVING_TWO_SIZES)
    result = cclab.run(scenario)
    result.save(tmp_path / "out")
    data = subprocess.run(["tcpdump", "-r", tmp_path / "out" / "pcap" / "r1-r2.pcap", "-nn", "-S"],
                          capture_output=True, text=True, check=True).stdout
    spans = [(int(m.group(1)), int(m.group(2))) for m in re.finditer(r"Flags \[[^\]]*\], seq (\d+):(\d+),", data)]
    capture = _captured(result, "r1-r2")
    payloads = [p for p, k in zip(capture["payload"], capture["kind"]) if k == 0]
    assert len(spans) == len(payloads) > 1000
    assert [end - start for start, end in spans] == payloads
    assert set(payloads) == {536, 1460}
    last = {536: 20 * 536, 1460: 8 * 1460}
    assert all(end <= last[end - start] for start, end in spans)
    assert {end for start, end in spans} >= set(last.values()), "some flows of each group finish"
