"""The kernel diagnostics' replay of Mahimahi's loops (bench/linux/diag/loop_model.py) agrees
with the engine's loops (net::emulator_loop) on a hand-computed case, with and without a
wake latency; idle_latency.py runs and reports both idle modes; tick_order.py ranks a tick's
packets and finds its dropped ones."""
import subprocess
import sys
from pathlib import Path

import pytest

DIAG = Path(__file__).resolve().parents[1] / "bench" / "linux" / "diag"
sys.path.insert(0, str(DIAG))
import flow_series  # noqa: E402
import loop_model  # noqa: E402
import tick_order  # noqa: E402


def test_the_replay_releases_as_the_engine_does():
    # One packet a millisecond, sent at k + 0.3 ms, through mm-link (an opportunity every
    # ms) and mm-delay 10 ms, overshoot 100 µs: as crates/cclab-core/tests/trace_links.rs,
    # mm-link releases tick k's packet when packet k wakes it (k + 1.3 ms; + 50 µs with a
    # wake latency of 50 µs) and the packet reaches the far end 11.012 ms (11.112 ms) after
    # it was sent.
    sent = [k / 1000.0 + 0.0003 for k in range(50)]
    for wake, link_lag, total in ((0.0, 0.0003, 0.011012), (50e-6, 0.00035, 0.011112)):
        ticks = [k + 1 for k in range(50)]
        released = loop_model.link_releases(sent, ticks, 100e-6, 0.0, wake)
        for k in range(49):
            assert released[k] == pytest.approx(k / 1000.0 + 0.001 + link_lag, abs=1e-9)
        arrived = loop_model.delay_loop([t + 12e-6 for t in released], 10, 100e-6, 0.0, wake)
        for k in range(39):
            assert arrived[k] - sent[k] == pytest.approx(total, abs=1e-9), (wake, k)


def test_a_wake_latency_gives_way_to_the_timer():
    # mm-link's loop wakes for the packet of 0.2 ms at 0.25 ms; its timer wakes it at
    # 1.35 ms (1 ms + 100 µs later): a packet arriving at 1.32 ms is read then, not at
    # 1.37 ms; one arriving at 1.28 ms wakes it at 1.33 ms
    assert loop_model.link_wakes([0.0002, 0.00132], 100e-6, 0.0014, wake=50e-6)[:2] == pytest.approx([0.00025, 0.00135])
    assert loop_model.link_wakes([0.0002, 0.00128], 100e-6, 0.0014, wake=50e-6)[:2] == pytest.approx([0.00025, 0.00133])


def test_idle_latency_reports_both_idle_modes():
    out = subprocess.run([sys.executable, str(DIAG / "idle_latency.py"), "--samples", "20", "--gap-us", "100"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "vCPUs idle halting" in out.stdout and "vCPUs idle polling" in out.stdout
    assert out.stdout.count("timer, late after 1 ms") >= 1 and "wake from another CPU" in out.stdout
    bad = subprocess.run([sys.executable, str(DIAG / "idle_latency.py"), "--samples", "3"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--samples 3" in bad.stderr


def test_flow_series_finds_the_data_connection_and_samples_each_second():
    # iperf3's control connection shares the port: the data connection is the one that sent most
    control = [{"sport": 1, "t": 0.0, "bytes_sent": 300}, {"sport": 1, "t": 2.5, "bytes_sent": 400}]
    data = [{"sport": 2, "t": t, "bytes_sent": 1000 * (i + 1), "cwnd": 10 + i} for i, t in enumerate((0.1, 0.6, 1.2, 2.9))]
    rows = sorted(control + data, key=lambda r: r["t"])
    assert flow_series.data_socket(rows) == data
    firsts = flow_series.per_second(data, 0.0, 4)
    assert [r["cwnd"] if r else None for r in firsts] == [10, 12, 13, None]


def test_tick_order_ranks_a_ticks_packets_and_its_dropped_ones():
    # Two ticks 1 ms apart (ACKs 10 µs apart within each); after the first, flow 0 sends
    # seqs 1, 2 then flow 1 seq 7; after the second flow 1 sends 8 first, then flow 0 seq 2
    # again (its first copy was lost: the last of the first group but one), then seq 3.
    acks = [(3.100, 0), (3.10001, 1), (3.101, 1), (3.10101, 0)]
    data = [(3.10002, 0, 1), (3.10003, 0, 2), (3.10004, 1, 7),
            (3.10102, 1, 8), (3.10103, 0, 2), (3.10104, 0, 3)]
    r = tick_order.tick_order(data, acks)
    assert r["ticks_with_both_acks"] == 2 and r["first_ack_by_flow"] == {0: 1, 1: 1}
    assert r["flows"][0]["packets"] == 4 and r["flows"][1]["packets"] == 2
    # flow 0 at ranks 0, 0.5 | 0.5, 1; flow 1 at 1 | 0
    assert r["flows"][0]["mean_rank"] == 0.5 and r["flows"][1]["mean_rank"] == 0.5
    assert (r["flows"][0]["dropped"], r["flows"][0]["dropped_mean_rank"]) == (1, 0.5)
    assert r["flows"][1]["dropped"] == 0
    # two ACKs each, for four and two packets
    assert (r["flows"][0]["acks_per_packet"], r["flows"][1]["acks_per_packet"]) == (0.5, 1.0)
