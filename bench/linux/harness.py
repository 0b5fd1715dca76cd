#!/usr/bin/env python3
"""One run of the Linux kernel's TCP (or one UDP flow) over Mahimahi: the kernel reference harness.

    python3 bench/linux/harness.py --rate 12 --delay 20 --buffer 40 --flow cubic [--flow bbr@5]
        [--duration 30] [--down-rate 12 | --down-trace PATH] [--out run.json] [--keep DIR]
    python3 bench/linux/harness.py --trace bench/linux/traces/markov-seed1.trace --delay 20 --buffer 37
        --flow cubic --duration 60
    python3 bench/linux/harness.py --rate 12 --delay 20 --buffer 40 --udp 18 --duration 10

Run as root on a machine set up as bench/linux/README.md says (Mahimahi installed setuid
under /opt/mahimahi, user ``mmuser``, iperf3, the sysctls). Standard library only.

Layout: the senders, one iperf3 client per flow with its own ``-C reno|cubic|bbr`` and
server port, run as ``mmuser`` inside

    mm-delay D mm-link UP DOWN --uplink-queue=droptail --uplink-queue-args=packets=B
        --downlink-queue=droptail --downlink-queue-args=packets=B --uplink-log=... --downlink-log=...

and the iperf3 servers (the receivers) run as root outside, so data goes uplink and the ACKs
downlink. A flow given as ``cc@S`` starts S seconds after the first and sends until the run's
end (``iperf3 -t duration-S``). The link is a constant rate in Mb/s, written here as a
Mahimahi trace (a line ``1`` is one 1504-byte opportunity per ms, nominally 12 Mb/s: 12·k Mb/s
is k lines of ``1``; another rate R is N opportunities spread evenly over a period of P ms with
N/P = R/12), or a given trace file. The downlink (ACK path) is the uplink's trace unless
--down-rate or --down-trace is given. ``--udp R`` sends one iperf3 UDP flow of R Mb/s
(1472-byte payloads: 1500-byte IP packets, one opportunity each) instead of TCP.

Prints the run's record as JSON (or writes it to --out). Per flow: the algorithm iperf3
confirms, receiver bytes and goodput (bytes / the flow's duration) with its per-second series
(the receiver's iperf3 intervals), retransmissions, mean/min RTT, final and max cwnd, and the
sender's per-second cwnd, RTT and retransmissions. Per run, from Mahimahi's uplink log over
the window [first flow's start, + duration): packets and bytes delivered, drops, queueing
delay (Mahimahi's departure − arrival, ms, as logged) mean/p50/p95/p99/max, opportunities and
utilisation, and per second: delivered Mb/s, mean queueing delay, opportunities, drops; the
same over the whole log; the downlink's delivered packets (ACKs). Also the load average at the
start, the CPU used during the run by this run's processes and by everything else, and the
environment: kernel (uname -r), iperf3 and Mahimahi versions, every net.ipv4.tcp_* sysctl
outside (receiver) and inside the shell (sender), CUBIC's module parameters, routes (initcwnd).

Used by record.py through ``run_case(case)``; ``harness.py inner SPEC`` is the part that runs
inside the shell (as mmuser) and starts the clients.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import os
import platform
import resource
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

MM_PREFIX = Path(os.environ.get("MAHIMAHI_PREFIX", "/opt/mahimahi"))
MM_USER = os.environ.get("MAHIMAHI_USER", "mmuser")
PACKET_BYTES = 1504          # one Mahimahi delivery opportunity (a 1500-byte IP packet + 4-byte TUN header)
FIRST_PORT = 5301
WORK_ROOT = Path("/tmp/cclab-linux")
HERE = Path(__file__).resolve()

# the sysctls most relevant to a comparison; every tcp_* one is recorded in the environment
KEY_SYSCTLS = ["tcp_congestion_control", "tcp_allowed_congestion_control", "tcp_sack", "tcp_dsack",
               "tcp_timestamps", "tcp_ecn", "tcp_window_scaling", "tcp_recovery", "tcp_frto",
               "tcp_early_retrans", "tcp_pacing_ss_ratio", "tcp_pacing_ca_ratio", "tcp_min_tso_segs",
               "tcp_comp_sack_nr", "tcp_comp_sack_delay_ns", "tcp_wmem", "tcp_rmem", "tcp_no_metrics_save",
               "tcp_slow_start_after_idle", "tcp_autocorking", "tcp_limit_output_bytes", "tcp_tso_win_divisor",
               "tcp_notsent_lowat", "tcp_moderate_rcvbuf", "tcp_thin_linear_timeouts", "tcp_mtu_probing"]


# ----------------------------------------------------------------------------- traces

def rate_trace_lines(rate_mbps: float, max_period_ms: int = 12000) -> list[int]:
    """A constant-rate Mahimahi trace: N opportunities over P ms with N/P = rate/12, the i-th
    (i = 1..N) at ms ceil(i·P/N), so the last is at P (the period) and they are spread evenly."""
    if rate_mbps <= 0:
        raise ValueError("rate must be positive")
    per_ms = rate_mbps / 12.0
    if abs(per_ms - round(per_ms)) < 1e-9 and round(per_ms) >= 1:
        return [1] * int(round(per_ms))
    for period in range(1, max_period_ms + 1):
        count = per_ms * period
        if abs(count - round(count)) < 1e-6 and round(count) >= 1:
            n = int(round(count))
            return [-(-i * period // n) for i in range(1, n + 1)]
    raise ValueError(f"no period up to {max_period_ms} ms gives {rate_mbps} Mb/s exactly")


def write_trace(path: Path, lines: list[int]) -> None:
    path.write_text("".join(f"{ms}\n" for ms in lines))
    path.chmod(0o644)


def trace_rate_mbps(path: Path) -> float:
    """A trace file's mean rate in the project's nominal units (12 Mb/s per opportunity per ms)."""
    stamps = [int(line) for line in path.read_text().split()]
    return len(stamps) / stamps[-1] * 12.0


# ----------------------------------------------------------------------------- environment

def read_tcp_sysctls() -> dict[str, str]:
    base = Path("/proc/sys/net/ipv4")
    out = {}
    for entry in sorted(base.glob("tcp_*")):
        try:
            out[entry.name] = " ".join(entry.read_text().split())
        except OSError:
            continue
    return out


def command_output(argv: list[str]) -> str:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def routes() -> list[str]:
    return command_output(["ip", "route", "show"]).splitlines()


def outside_environment() -> dict:
    cubic = {}
    params = Path("/sys/module/tcp_cubic/parameters")
    if params.is_dir():
        for entry in sorted(params.iterdir()):
            cubic[entry.name] = entry.read_text().strip()
    source = MM_PREFIX / "SOURCE"
    return {
        "kernel": platform.release(),
        "iperf3": command_output(["iperf3", "--version"]).splitlines()[0] if shutil.which("iperf3") else "",
        "mahimahi": source.read_text().strip() if source.exists() else "unknown",
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "sysctl_outside": read_tcp_sysctls(),
        "cubic_parameters": cubic,
        "routes_outside": routes(),
    }


def cpuidle_driver() -> str:
    """The kernel's CPU idle driver (this machine kind's: haltpoll, a guest that halts its
    vCPUs when idle after polling a while)."""
    path = Path("/sys/devices/system/cpu/cpuidle/current_driver")
    return path.read_text().strip() if path.exists() else "none"


@contextlib.contextmanager
def idle_by_polling(enabled: bool):
    """While held, the CPUs idle by polling, never halting: a PM QoS request of 0 µs wake-up
    latency on /dev/cpu_dma_latency (what the kernel honours while the file stays open).
    The vCPUs' wake from a halt is part of Mahimahi's timing (bench/linux/diag/FINDINGS.md,
    "Idle vCPUs"); this takes it away."""
    if not enabled:
        yield
        return
    fd = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
    try:
        os.write(fd, struct.pack("i", 0))
        yield
    finally:
        os.close(fd)


def environment_id(env: dict) -> str:
    return hashlib.sha1(json.dumps(env, sort_keys=True).encode()).hexdigest()[:12]


def cpu_jiffies() -> tuple[int, int, int]:
    """(busy in processes, busy in interrupts and softirqs, total) jiffies of the whole machine."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:8]]
    user, nice, system, idle, iowait, irq, softirq = fields
    return user + nice + system, irq + softirq, sum(fields)


# ----------------------------------------------------------------------------- inner side

def inner(spec_path: str) -> int:
    """Inside the Mahimahi shell, as mmuser: start the clients at their offsets, wait for them,
    note when each started (epoch ms) and the sender-side sysctls and routes."""
    spec = json.loads(Path(spec_path).read_text())
    work = Path(spec["work"])
    base = os.environ.get("MAHIMAHI_BASE", "")
    duration = float(spec["duration_s"])
    flows = spec["flows"]
    info = {"mahimahi_base": base, "sysctl_inside": read_tcp_sysctls(), "routes_inside": routes(),
            "starts_epoch_ms": [None] * len(flows), "exit_codes": [None] * len(flows)}
    t0 = time.time() + 0.2
    info["t0_epoch_ms"] = t0 * 1000.0

    def one(i: int, flow: dict) -> None:
        start = float(flow.get("start_s", 0.0))
        delay = t0 + start - time.time()
        if delay > 0:
            time.sleep(delay)
        seconds = max(duration - start, 1.0)
        argv = ["iperf3", "-c", base, "-p", str(flow["port"]), "-J", "-t", f"{seconds:g}",
                "--connect-timeout", "5000"]
        if spec.get("mode") == "udp":
            argv += ["-u", "-b", f"{float(spec['udp_rate_mbps']) * 1e6:.0f}", "-l", "1472"]
        else:
            argv += ["-C", flow["cc"]]
            if flow.get("mss"):
                argv += ["-M", str(int(flow["mss"]))]  # TCP_MAXSEG: the segment size the sender uses
        info["starts_epoch_ms"][i] = time.time() * 1000.0
        with open(work / f"client{i}.json", "w") as out, open(work / f"client{i}.err", "w") as err:
            info["exit_codes"][i] = subprocess.run(argv, stdout=out, stderr=err, timeout=duration + 60).returncode

    threads = [threading.Thread(target=one, args=(i, flow)) for i, flow in enumerate(flows)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    (work / "inner.json").write_text(json.dumps(info))
    return 0


# ----------------------------------------------------------------------------- Mahimahi log

def percentile(hist: dict[int, int], count: int, q: float) -> float | None:
    """Nearest-rank percentile of integer samples given as a histogram."""
    if count == 0:
        return None
    rank = max(1, math.ceil(q * count))
    seen = 0
    for value in sorted(hist):
        seen += hist[value]
        if seen >= rank:
            return value
    return max(hist)


def delay_summary(hist: dict[int, int], count: int, total: int) -> dict:
    return {"mean": round(total / count, 3) if count else None, "p50": percentile(hist, count, 0.50),
            "p95": percentile(hist, count, 0.95), "p99": percentile(hist, count, 0.99),
            "max": max(hist) if hist else None, "min": min(hist) if hist else None}


def parse_log(path: Path, t0_ms: float | None, duration_s: float) -> dict:
    """Summaries of a Mahimahi link log: over the window [t0, t0 + duration) (log ms) with
    per-second bins, and over the whole log."""
    header = {}
    bins = int(math.ceil(duration_s)) if t0_ms is not None else 0
    per = {k: [0] * bins for k in ("bytes", "pkts", "delay", "opps", "drops", "arrivals")}

    def blank() -> dict:
        return {"arrivals": 0, "arrival_bytes": 0, "departures": 0, "departure_bytes": 0, "opportunities": 0,
                "drop_events": 0, "dropped_packets": 0, "dropped_bytes": 0, "hist": {}, "delay_total": 0,
                "first_ms": None, "last_ms": None, "first_full_arrival_ms": None}

    window, whole = blank(), blank()
    end_ms = t0_ms + duration_s * 1000.0 if t0_ms is not None else None
    with open(path) as log:
        for line in log:
            if line.startswith("#"):
                key, _, value = line[1:].partition(":")
                header[key.strip()] = value.strip()
                continue
            parts = line.split()
            if len(parts) < 3:
                continue
            t = int(parts[0])
            kind = parts[1]
            inside = t0_ms is not None and t0_ms <= t < end_ms
            b = int((t - t0_ms) // 1000) if inside else -1
            targets = (whole, window) if inside else (whole,)
            for acc in targets:
                if acc["first_ms"] is None:
                    acc["first_ms"] = t
                acc["last_ms"] = t
            if kind == "+":
                size = int(parts[2])
                for acc in targets:
                    acc["arrivals"] += 1
                    acc["arrival_bytes"] += size
                    if size == PACKET_BYTES and acc["first_full_arrival_ms"] is None:
                        acc["first_full_arrival_ms"] = t       # the first data segment (or datagram)
                if inside:
                    per["arrivals"][b] += 1
            elif kind == "-":
                size, delay = int(parts[2]), int(parts[3])
                for acc in targets:
                    acc["departures"] += 1
                    acc["departure_bytes"] += size
                    acc["hist"][delay] = acc["hist"].get(delay, 0) + 1
                    acc["delay_total"] += delay
                if inside:
                    per["bytes"][b] += size
                    per["pkts"][b] += 1
                    per["delay"][b] += delay
            elif kind == "#":
                for acc in targets:
                    acc["opportunities"] += 1
                if inside:
                    per["opps"][b] += 1
            elif kind == "d":
                pkts, size = int(parts[2]), int(parts[3])
                for acc in targets:
                    acc["drop_events"] += 1
                    acc["dropped_packets"] += pkts
                    acc["dropped_bytes"] += size
                if inside:
                    per["drops"][b] += pkts

    def summary(acc: dict, seconds: float | None) -> dict:
        out = {k: acc[k] for k in ("arrivals", "arrival_bytes", "departures", "departure_bytes", "opportunities",
                                   "dropped_packets", "dropped_bytes", "drop_events", "first_ms", "last_ms",
                                   "first_full_arrival_ms")}
        out["queue_delay_ms"] = delay_summary(acc["hist"], acc["departures"], acc["delay_total"])
        out["utilization"] = (round(acc["departure_bytes"] / (acc["opportunities"] * PACKET_BYTES), 5)
                              if acc["opportunities"] else None)
        out["delivered_mbps"] = round(acc["departure_bytes"] * 8 / seconds / 1e6, 4) if seconds else None
        return out

    whole_seconds = ((whole["last_ms"] - whole["first_ms"]) / 1000.0
                     if whole["first_ms"] is not None and whole["last_ms"] > whole["first_ms"] else None)
    result = {"header": header, "whole_log": summary(whole, whole_seconds)}
    if t0_ms is not None:
        result["window"] = summary(window, duration_s)
        seconds = [min(1.0, duration_s - i) for i in range(bins)]
        result["per_second"] = {
            "delivered_mbps": [round(per["bytes"][i] * 8 / seconds[i] / 1e6, 4) for i in range(bins)],
            "delivered_pkts": per["pkts"],
            "mean_queue_delay_ms": [round(per["delay"][i] / per["pkts"][i], 2) if per["pkts"][i] else None
                                    for i in range(bins)],
            "opportunities": per["opps"],
            "drops": per["drops"],
            "arrivals": per["arrivals"],
        }
    return result


# A SYN as Mahimahi logs it: IPv4 and TCP with Linux's options (MSS, SACK permitted,
# timestamps, window scale), 60 bytes, and the 4 bytes it counts on every packet (a data
# segment logs 1504).
SYN_BYTES = 64


def late_syn_arrivals(path: Path, t0_ms: float, starts_s: list[float]) -> list[float | None]:
    """When each flow that starts after the first one sent its first SYN (iperf3's control
    connection), ms after the window began: the first SYN-sized arrival in the uplink log at
    or after its scheduled start. None for the first flows, and for late flows sharing a start
    (which SYN is whose is not known)."""
    first = min(starts_s, default=0.0)
    late = {s for s in starts_s if s > first and starts_s.count(s) == 1}
    found: dict[float, float] = {}
    with open(path) as log:
        for line in log:
            parts = line.split()
            if len(parts) < 3 or parts[1] != "+" or int(parts[2]) != SYN_BYTES:
                continue
            t = int(parts[0]) - t0_ms
            for start in late:
                if start not in found and t >= 1000 * start:
                    found[start] = round(t, 1)
    return [found.get(s) if s in late else None for s in starts_s]


# ----------------------------------------------------------------------------- iperf3 JSON

def load_json(path: Path) -> dict:
    try:
        text = path.read_text()
    except OSError as err:
        return {"error": f"no output: {err}"}
    if not text.strip():
        return {"error": "empty output"}
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        start = text.find("{")
        try:
            return json.loads(text[start:]) if start >= 0 else {"error": text[-500:]}
        except json.JSONDecodeError:
            return {"error": "unparsable output: " + text[-500:]}


def flow_record(flow: dict, seconds: float, client: dict, server: dict, udp: bool) -> dict:
    rec = {"cc": flow.get("cc"), "start_s": float(flow.get("start_s", 0.0)), "port": flow["port"],
           "duration_s": seconds}
    if flow.get("mss"):
        rec["mss_requested"] = int(flow["mss"])  # iperf3 -M; the payload is 12 bytes less (timestamps)
    for side, data in (("client", client), ("server", server)):
        if data.get("error"):
            rec[f"{side}_error"] = data["error"]
    end = client.get("end", {})
    server_end = server.get("end", {})
    if udp:
        s = server_end.get("sum_received") or {}
        sent = client.get("end", {}).get("sum_sent") or end.get("sum") or {}
        rec.update({"udp_packets_sent": sent.get("packets"), "udp_sent_bytes": sent.get("bytes"),
                    "udp_packets_received": (s["packets"] - s["lost_packets"]) if "packets" in s else None,
                    "udp_lost_packets": s.get("lost_packets"), "udp_jitter_ms": s.get("jitter_ms"),
                    "receiver_seconds": s.get("seconds")})
        received = s.get("bytes")
    else:
        rec["cc_confirmed"] = end.get("sender_tcp_congestion")
        rec["receiver_cc"] = end.get("receiver_tcp_congestion")
        streams = end.get("streams") or [{}]
        sender = streams[0].get("sender", {})
        received_sum = server_end.get("sum_received") or end.get("sum_received") or {}
        received = received_sum.get("bytes")
        rec.update({"sent_bytes": sender.get("bytes"), "retransmits": sender.get("retransmits"),
                    "mean_rtt_ms": sender["mean_rtt"] / 1000 if "mean_rtt" in sender else None,
                    "min_rtt_ms": sender["min_rtt"] / 1000 if "min_rtt" in sender else None,
                    "max_rtt_ms": sender["max_rtt"] / 1000 if "max_rtt" in sender else None,
                    "max_cwnd_bytes": sender.get("max_snd_cwnd"),
                    "receiver_seconds": received_sum.get("seconds"),
                    "mss": client.get("start", {}).get("tcp_mss_default") or client.get("start", {}).get("tcp_mss")})
        intervals = [iv["streams"][0] for iv in client.get("intervals", []) if iv.get("streams")]
        rec["final_cwnd_bytes"] = intervals[-1].get("snd_cwnd") if intervals else None
        rec["sender_per_second"] = {
            "cwnd_bytes": [iv.get("snd_cwnd") for iv in intervals],
            "rtt_ms": [round(iv["rtt"] / 1000, 3) if "rtt" in iv else None for iv in intervals],
            "retransmits": [iv.get("retransmits") for iv in intervals],
            "sent_mbps": [round(iv["bits_per_second"] / 1e6, 4) for iv in intervals],
        }
    rec["received_bytes"] = received
    rec["goodput_mbps"] = round(received * 8 / seconds / 1e6, 5) if received is not None else None
    series = []
    for iv in server.get("intervals", []):
        s = iv.get("sum", {})
        if s.get("seconds", 0) > 0:
            series.append(round(s["bytes"] * 8 / s["seconds"] / 1e6, 4))
    rec["receiver_per_second_mbps"] = series
    return rec


# ----------------------------------------------------------------------------- a run

def listening(port: int) -> bool:
    hexport = f":{port:04X}"
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[1].endswith(hexport) and fields[3] == "0A":
                    return True
        except OSError:
            pass
    return False


def link_argv(case: dict, work: Path) -> tuple[list[str], dict]:
    """The mm-delay/mm-link command line (before ``--``) and the description of its link."""
    link = case["link"]
    if "rate_mbps" in link:
        up = work / "up.trace"
        write_trace(up, rate_trace_lines(float(link["rate_mbps"])))
    else:
        up = work / "up.trace"
        shutil.copyfile(link["trace"], up)
        up.chmod(0o644)
    if "down_rate_mbps" in link:
        down = work / "down.trace"
        write_trace(down, rate_trace_lines(float(link["down_rate_mbps"])))
    elif "down_trace" in link:
        down = work / "down.trace"
        shutil.copyfile(link["down_trace"], down)
        down.chmod(0o644)
    else:
        down = up
    buffer = int(case["buffer_pkts"])
    argv = [str(MM_PREFIX / "bin" / "mm-delay"), str(int(case["delay_ms"])), str(MM_PREFIX / "bin" / "mm-link"),
            str(up), str(down), "--uplink-queue=droptail", f"--uplink-queue-args=packets={buffer}",
            "--downlink-queue=droptail", f"--downlink-queue-args=packets={buffer}",
            f"--uplink-log={work / 'up.log'}", f"--downlink-log={work / 'down.log'}"]
    described = {"up_trace_lines": len(up.read_text().split()), "up_rate_mbps": round(trace_rate_mbps(up), 6),
                 "down_rate_mbps": round(trace_rate_mbps(down), 6)}
    return argv, described


def check_devices() -> None:
    """iperf3 (as mmuser) needs /dev/urandom; a chmod through a symlink elsewhere can take it away."""
    for device in ("/dev/urandom", "/dev/null"):
        if os.stat(device).st_mode & 0o006 != 0o006:
            raise RuntimeError(f"{device} is not readable and writable by others (mode "
                               f"{os.stat(device).st_mode & 0o777:o}): iperf3 as {MM_USER} cannot run; "
                               f"the standard mode is 666")


def run_case(case: dict, keep: Path | None = None, port_base: int = FIRST_PORT, idle_poll: bool = False) -> dict:
    """Run one case once; return its record (see the module docstring). ``case``:
    {"link": {"rate_mbps": R} | {"trace": PATH}, optional "down_rate_mbps"/"down_trace";
     "delay_ms": D, "buffer_pkts": B, "duration_s": T,
     "flows": [{"cc": "cubic", "start_s": 0}, ...]  (TCP) | "udp_rate_mbps": R (one UDP flow)}
    ``idle_poll``: the CPUs idle by polling during the run (``idle_by_polling``)."""
    if os.geteuid() != 0:
        raise SystemExit("run as root (the servers run outside the shell; the shell as mmuser)")
    check_devices()
    udp = "udp_rate_mbps" in case
    flows = [dict(f) for f in (case.get("flows") or [{"cc": None, "start_s": 0.0}])]
    if udp:
        flows = flows[:1]
    for i, flow in enumerate(flows):
        flow["port"] = port_base + i
    duration = float(case.get("duration_s", 30))
    WORK_ROOT.mkdir(parents=True, exist_ok=True)
    WORK_ROOT.chmod(0o755)
    work = Path(tempfile.mkdtemp(prefix="run-", dir=WORK_ROOT))
    work.chmod(0o777)
    record: dict = {"started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    "cpu_idle": {"driver": cpuidle_driver(), "polling": bool(idle_poll)}}
    servers = []
    try:
        argv, described = link_argv(case, work)
        record["link"] = described
        spec = {"work": str(work), "duration_s": duration, "flows": flows,
                "mode": "udp" if udp else "tcp", "udp_rate_mbps": case.get("udp_rate_mbps")}
        (work / "spec.json").write_text(json.dumps(spec))
        (work / "spec.json").chmod(0o644)
        for flow in flows:
            if listening(flow["port"]):
                raise RuntimeError(f"port {flow['port']} is already in use")
        for i, flow in enumerate(flows):
            out = open(work / f"server{i}.json", "w")
            servers.append((subprocess.Popen(["iperf3", "-s", "-1", "-J", "-p", str(flow["port"])],
                                             stdout=out, stderr=subprocess.STDOUT), out))
        deadline = time.time() + 5
        while not all(listening(f["port"]) for f in flows):
            if time.time() > deadline:
                raise RuntimeError("iperf3 servers did not start listening")
            time.sleep(0.05)
        inner_cmd = ["python3", str(HERE), "inner", str(work / "spec.json")]
        command = shlex.join(argv + ["--"] + inner_cmd)
        record["load_avg_start"] = [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]
        busy0, irq0, total0 = cpu_jiffies()
        own0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.time()
        with idle_by_polling(idle_poll):
            shell = subprocess.run(["su", MM_USER, "-c", command], capture_output=True, text=True,
                                   timeout=duration + 120)
        record["wall_s"] = round(time.time() - started, 3)
        for proc, out in servers:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            out.close()
        busy1, irq1, total1 = cpu_jiffies()
        own1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        span = max(total1 - total0, 1)
        cores = os.cpu_count() or 1
        machine = (busy1 - busy0) / span * cores
        ours = ((own1.ru_utime + own1.ru_stime) - (own0.ru_utime + own0.ru_stime)) / max(record["wall_s"], 1e-9)
        record["cpu_cores_busy"] = {"machine_processes": round(machine, 3), "this_run": round(ours, 3),
                                    "others": round(max(machine - ours, 0.0), 3),
                                    "interrupts": round((irq1 - irq0) / span * cores, 3)}
        if shell.returncode != 0:
            record["shell_error"] = (shell.stdout + shell.stderr)[-2000:]
        inner_info = json.loads((work / "inner.json").read_text()) if (work / "inner.json").exists() else {}
        up = parse_log(work / "up.log", None, duration) if (work / "up.log").exists() else {}
        init_ms = int(up.get("header", {}).get("init timestamp", "0") or 0)
        t0 = None
        if inner_info.get("t0_epoch_ms") and init_ms:
            t0 = inner_info["t0_epoch_ms"] - init_ms
            up = parse_log(work / "up.log", t0, duration)
        down = parse_log(work / "down.log", t0, duration) if (work / "down.log").exists() else {}
        record["flows"] = [
            flow_record(flow, max(duration - float(flow.get("start_s", 0.0)), 1.0),
                        load_json(work / f"client{i}.json"), load_json(work / f"server{i}.json"), udp)
            for i, flow in enumerate(flows)]
        for i, rec in enumerate(record["flows"]):
            err = work / f"client{i}.err"
            text = err.read_text().strip() if err.exists() else ""
            lines = [line for line in text.splitlines() if "exceeds TCP MSS" not in line]  # UDP -l 1472: harmless
            if lines:
                rec["client_stderr"] = "\n".join(lines)[-500:]
        starts = inner_info.get("starts_epoch_ms") or []
        record["flow_start_lag_ms"] = [round(s - inner_info["t0_epoch_ms"] - 1000 * float(f.get("start_s", 0)), 1)
                                       if s else None for s, f in zip(starts, flows)]
        header = up.get("header", {})
        record["uplink"] = {k: v for k, v in up.items() if k != "header"}
        record["uplink"]["t0_log_ms"] = round(t0, 1) if t0 is not None else None
        if t0 is not None and not udp and len(flows) > 1:
            # a late client's own start, which iperf3's model cannot know (compare.py)
            record["uplink"]["late_syn_ms"] = late_syn_arrivals(
                work / "up.log", t0, [float(f.get("start_s", 0.0)) for f in flows])
        record["uplink"]["base_timestamp_ms"] = int(header["base timestamp"]) if "base timestamp" in header else None
        record["downlink"] = {k: down[k] for k in ("window", "whole_log") if k in down}
        for part in record["downlink"].values():
            part.pop("queue_delay_ms", None)
        if record["downlink"].get("window") is not None and "per_second" in down:
            record["downlink"]["per_second_delivered_pkts"] = down["per_second"]["delivered_pkts"]
        env = outside_environment()
        env["sysctl_inside"] = inner_info.get("sysctl_inside", {})
        env["routes_inside"] = inner_info.get("routes_inside", [])
        record["environment"] = env
        record["ok"] = bool(shell.returncode == 0 and t0 is not None and record["flows"]
                            and all(f.get("goodput_mbps") is not None and not f.get("client_error")
                                    for f in record["flows"]))
    finally:
        for proc, out in servers:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            out.close()
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            for item in work.iterdir():
                shutil.copy(item, keep / item.name)
        shutil.rmtree(work, ignore_errors=True)
    return record


# ----------------------------------------------------------------------------- command line

def parse_flow(text: str) -> dict:
    """cc[@start_s][/mss]: e.g. cubic, bbr@5, reno/536 (iperf3 -M: the sender's TCP_MAXSEG)."""
    text, _, mss = text.partition("/")
    cc, _, start = text.partition("@")
    if cc not in ("reno", "cubic", "bbr"):
        raise argparse.ArgumentTypeError(f"unknown congestion control {cc!r}")
    flow = {"cc": cc, "start_s": float(start or 0)}
    if mss:
        if not mss.isdigit() or not 88 <= int(mss) <= 1460:
            raise argparse.ArgumentTypeError(f"mss {mss!r}: a whole number of bytes from 88 to 1460")
        flow["mss"] = int(mss)
    return flow


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["inner"]:
        return inner(argv[1])
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    link = p.add_mutually_exclusive_group(required=True)
    link.add_argument("--rate", type=float, help="constant uplink rate, Mb/s (12 per opportunity per ms)")
    link.add_argument("--trace", type=Path, help="uplink Mahimahi trace file")
    down = p.add_mutually_exclusive_group()
    down.add_argument("--down-rate", type=float, help="downlink (ACK path) rate, Mb/s (default: the uplink's)")
    down.add_argument("--down-trace", type=Path, help="downlink trace file (default: the uplink's)")
    p.add_argument("--delay", type=int, required=True, help="one-way delay D for mm-delay, ms")
    p.add_argument("--buffer", type=int, required=True, help="droptail buffer, packets (both directions)")
    p.add_argument("--duration", type=float, default=30.0, help="seconds (default 30)")
    p.add_argument("--flow", type=parse_flow, action="append", default=[],
                   help="cc[@start_s][/mss], cc one of reno, cubic, bbr, mss the sender's segment size "
                        "(iperf3 -M); repeat for more flows")
    p.add_argument("--udp", type=float, metavar="MBPS", help="one UDP flow at this rate instead of TCP flows")
    p.add_argument("--out", type=Path, help="write the record here (default: stdout)")
    p.add_argument("--keep", type=Path, help="copy the run's raw files (logs, iperf3 JSON) into this folder")
    p.add_argument("--idle-poll", action="store_true",
                   help="the CPUs idle by polling during the run, never halting (/dev/cpu_dma_latency held at 0)")
    args = p.parse_args(argv)
    if not args.flow and args.udp is None:
        p.error("give at least one --flow, or --udp")
    case: dict = {"link": {"rate_mbps": args.rate} if args.rate else {"trace": str(args.trace)},
                  "delay_ms": args.delay, "buffer_pkts": args.buffer, "duration_s": args.duration}
    if args.down_rate:
        case["link"]["down_rate_mbps"] = args.down_rate
    if args.down_trace:
        case["link"]["down_trace"] = str(args.down_trace)
    if args.udp is not None:
        case["udp_rate_mbps"] = args.udp
    else:
        case["flows"] = args.flow
    record = {"case": case, **run_case(case, keep=args.keep, idle_poll=args.idle_poll)}
    text = json.dumps(record, indent=1)
    if args.out:
        args.out.write_text(text + "\n")
    else:
        print(text)
    return 0 if record.get("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
