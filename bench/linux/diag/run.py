#!/usr/bin/env python3
"""One diagnostic run of the real kernel over Mahimahi, instrumented (run as root).

    python3 run.py --rate 12 --delay 20 --buffer 20 --cc cubic --duration 20 --tag NAME [--interval 0.005]
    python3 run.py --rate 48 --delay 10 --buffer 400 --cc bbr+cubic --no-pcap --interval 0.02 --tag NAME
    python3 run.py --rate 48 --delay 20 --buffer 160 --cc bbr+cubic@10 --duration 30 --no-pcap --interval 0.01 --tag NAME
    python3 run.py --rate 12 --delay 20 --buffer 80 --cc cubic+cubic-m536 --no-pcap --interval 0.02 --tag NAME
    python3 run.py --trace ../traces/cellular/ATT-LTE-driving-2016.down --delay 20 --buffer 15 --cc bbr --tag NAME

Same layout as bench/linux/harness.py (iperf3 client as mmuser inside
`mm-delay D mm-link UP DOWN` with DropTail buffers of B packets both ways, iperf3 server as root
outside) plus, in the sender's network namespace (entered with nsenter as root): nstat before/after,
tcp_info sampling every --interval s (tcpdiag.py, the same netlink data as `ss -tin`), a few `ss -tin`
snapshots, tcpdump on the shell's `ingress` TUN; and outside a tcpdump on the root-namespace TUN
where the data arrives at the receiver. Everything goes to runs/NAME/.

A mix (`--cc bbr+cubic`) runs one iperf3 pair per algorithm, started together (`cubic@10`: 10 s
later, running until the others end), the k-th on port
5401 + k with its own sampler (tcpinfo.jsonl, tcpinfo2.jsonl, ...; each also holds iperf3's
control connection, the same port) and client output (client.json, client2.json, ...).
`--no-pcap` leaves out both tcpdumps, whose packet-by-packet work changes the timing
(FINDINGS.md, "BBR's losses and queue depend on the timing noise").
"""
import argparse, json, os, shutil, signal, subprocess, sys, tempfile, time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MM = Path("/opt/mahimahi/bin")
PORT = 5401


def wait_for(pred, timeout, step=0.02):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(step)
    return False


def main():
    p = argparse.ArgumentParser()
    link = p.add_mutually_exclusive_group(required=True)
    link.add_argument("--rate", type=int)  # 12*k Mb/s
    link.add_argument("--trace", type=Path, help="a Mahimahi trace file for both directions instead of a constant rate")
    p.add_argument("--delay", type=int, required=True)
    p.add_argument("--buffer", type=int, required=True)
    p.add_argument("--cc", required=True)
    p.add_argument("--duration", type=float, default=20)
    p.add_argument("--interval", type=float, default=0.005)
    p.add_argument("--tag", required=True)
    p.add_argument("--bt", choices=["cubic", "bbr"], help="also trace tcp:tcp_probe with bt/CC.bt (bpftrace)")
    p.add_argument("--no-pcap", action="store_true", help="no tcpdump on either side (the timing undisturbed)")
    p.add_argument("--ss-every", type=float, default=1.0,
                   help="seconds between `ss -tin` snapshots (default 1; 0: none, as each spawns processes)")
    a = p.parse_args()
    # cc[-mMSS][@start_s]: a flow that starts later runs until the others end (harness.py's cases);
    # -mMSS is iperf3's -M (TCP_MAXSEG, counting the timestamp option), as in record.py's mss cases
    flows, mss = [], []
    for item in a.cc.split("+"):
        cc, _, start = item.partition("@")
        cc, _, segment = cc.partition("-m")
        if segment and not (segment.isdigit() and 88 <= int(segment) <= 1460):
            p.error(f"--cc {a.cc}: -m{segment} is not a segment size (write e.g. cubic-m536; 88-1460 bytes)")
        mss.append(f"-M {segment} " if segment else "")
        try:
            seconds = float(start) if start else 0.0
        except ValueError:
            p.error(f"--cc {a.cc}: {start!r} is not a start in seconds (write e.g. cubic@10)")
        if not 0 <= seconds < a.duration:  # also refuses nan
            p.error(f"--cc {a.cc}: a start must lie in [0, {a.duration:g}) s")
        flows.append((cc, seconds))
    ccs = [cc for cc, _ in flows]
    if a.bt and len(ccs) > 1:
        p.error("--bt traces one flow: give one --cc")
    suffix = lambda k: "" if k == 0 else str(k + 1)  # noqa: E731 (client.json, client2.json, ...)
    out = HERE / "runs" / a.tag
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="diag-", dir="/tmp"))
    work.chmod(0o777)
    (work / "up.trace").write_text(a.trace.read_text() if a.trace else "1\n" * (a.rate // 12))
    (work / "up.trace").chmod(0o644)
    inner = work / "inner.sh"
    clients = "\n".join(f'({f"sleep {start:g}; " if start else ""}iperf3 -c "$MAHIMAHI_BASE" -p {PORT + k} -J -t {a.duration - start:g} '
                         f'{mss[k]}-C {cc} --connect-timeout 5000 > {work}/client{suffix(k)}.json 2> {work}/client{suffix(k)}.err) &'
                         for k, (cc, start) in enumerate(flows))
    inner.write_text(f"""#!/bin/sh
echo $$ > {work}/inner.pid
echo "$MAHIMAHI_BASE" > {work}/base
while [ ! -e {work}/go ]; do sleep 0.02; done
python3 -c 'import time; print(repr(time.time()))' > {work}/client_start
{clients}
wait
python3 -c 'import time; print(repr(time.time()))' > {work}/client_end
touch {work}/done
while [ ! -e {work}/end ]; do sleep 0.02; done
""")
    inner.chmod(0o755)
    procs = []
    meta = {"args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(a).items()}, "started": time.time()}
    servers = [subprocess.Popen(["iperf3", "-s", "-1", "-J", "-p", str(PORT + k)], stdout=open(out / f"server{suffix(k)}.json", "w"),
                                stderr=subprocess.STDOUT) for k in range(len(ccs))]
    for k in range(len(ccs)):
        wait_for(lambda: subprocess.run(["ss", "-ltn", f"sport = :{PORT + k}"], capture_output=True, text=True).stdout.count("LISTEN") > 0, 5)
    argv = [str(MM / "mm-delay"), str(a.delay), str(MM / "mm-link"), str(work / "up.trace"), str(work / "up.trace"),
            "--uplink-queue=droptail", f"--uplink-queue-args=packets={a.buffer}",
            "--downlink-queue=droptail", f"--downlink-queue-args=packets={a.buffer}",
            f"--uplink-log={work / 'up.log'}", f"--downlink-log={work / 'down.log'}", "--", str(inner)]
    shell = subprocess.Popen(["su", "mmuser", "-c", " ".join(argv)], stdout=open(out / "shell.out", "w"),
                             stderr=subprocess.STDOUT)
    try:
        if not wait_for(lambda: (work / "base").exists() and (work / "base").read_text().strip(), 15):
            raise RuntimeError("inner shell did not start")
        pid = int((work / "inner.pid").read_text())
        base = (work / "base").read_text().strip()
        # the root-namespace TUN whose peer address is the base (mm-delay's egress: delay-<pid>)
        addrs = subprocess.run(["ip", "-o", "-4", "addr"], capture_output=True, text=True).stdout
        outer_if = next(l.split()[1] for l in addrs.splitlines() if f" {base}/" in l or f" {base} " in l)
        meta.update({"inner_pid": pid, "base": base, "outer_if": outer_if})
        ns = ["nsenter", "-t", str(pid), "-n"]
        env = dict(os.environ, NSTAT_HISTORY=str(work / "nstat.hist"))
        meta["inside_link"] = subprocess.run(ns + ["ip", "-d", "link", "show", "ingress"], capture_output=True, text=True).stdout
        meta["inside_qdisc"] = subprocess.run(ns + ["tc", "qdisc", "show"], capture_output=True, text=True).stdout
        meta["inside_sysctl"] = subprocess.run(ns + ["sysctl", "net.ipv4.tcp_congestion_control", "net.ipv4.tcp_wmem", "net.ipv4.tcp_pacing_ss_ratio", "net.ipv4.tcp_pacing_ca_ratio", "net.core.default_qdisc"], capture_output=True, text=True).stdout
        (out / "nstat_before.txt").write_text(subprocess.run(ns + ["nstat", "-az"], capture_output=True, text=True, env=env).stdout)
        if not a.no_pcap:
            procs.append(subprocess.Popen(ns + ["tcpdump", "-Z", "root", "-i", "ingress", "-n", "-s", "120", "-B", "16384", "-w", str(out / "sender.pcap"), "tcp"],
                                          stdout=subprocess.DEVNULL, stderr=open(out / "tcpdump_sender.err", "w")))
            procs.append(subprocess.Popen(["tcpdump", "-Z", "root", "-i", outer_if, "-n", "-s", "120", "-B", "16384", "-w", str(out / "receiver.pcap"), "tcp"],
                                          stdout=subprocess.DEVNULL, stderr=open(out / "tcpdump_receiver.err", "w")))
        for k in range(len(ccs)):
            procs.append(subprocess.Popen(ns + ["python3", str(HERE / "tcpdiag.py"), "--dport", str(PORT + k), "--interval", str(a.interval),
                                                "--out", str(out / f"tcpinfo{suffix(k)}.jsonl"), "--stop-file", str(work / "done"),
                                                "--max-s", str(a.duration + 30)]))
        if a.bt:
            bt_out = open(out / "bt.txt", "w")
            bt = subprocess.Popen(["bpftrace", "-B", "line", str(HERE / "bt" / f"{a.bt}.bt"), str(PORT)], stdout=bt_out,
                                  stderr=subprocess.STDOUT, cwd="/tmp")
            procs.append(bt)
            if not wait_for(lambda: "Attaching" in (out / "bt.txt").read_text(), 60, 0.2):
                raise RuntimeError("bpftrace did not attach")
        meta["realtime_minus_monotonic_s"] = [time.time() - time.monotonic()]
        time.sleep(0.5 if a.no_pcap else 1.0)  # let tcpdump attach
        meta["load_before"] = Path("/proc/loadavg").read_text().split()[:3]
        (work / "go").touch()
        ss_lines = []
        t_go = time.time()
        while a.ss_every > 0 and not (work / "done").exists() and time.time() - t_go < a.duration + 30:
            r = subprocess.run(ns + ["ss", "-tin", f"dport >= :{PORT} and dport < :{PORT + len(ccs)}"], capture_output=True, text=True).stdout
            ss_lines.append(f"@ {time.time():.6f}\n{r}")
            time.sleep(a.ss_every)
        (out / "ss_snapshots.txt").write_text("".join(ss_lines))
        wait_for(lambda: (work / "done").exists(), a.duration + 40, 0.5)  # a slow poll: the run is not woken 50 times a second
        (out / "nstat_after.txt").write_text(subprocess.run(ns + ["nstat", "-az"], capture_output=True, text=True, env=env).stdout)
        meta["load_after"] = Path("/proc/loadavg").read_text().split()[:3]
        meta["realtime_minus_monotonic_s"].append(time.time() - time.monotonic())
        time.sleep(0.5)
    finally:
        for pr in procs:
            if pr.poll() is None:
                pr.send_signal(signal.SIGINT)
        for pr in procs:
            try:
                pr.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pr.kill()
        (work / "end").touch()
        try:
            shell.wait(timeout=30)
        except subprocess.TimeoutExpired:
            shell.kill()
        for server in servers:
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
        clients = [f"client{suffix(k)}.{ext}" for k in range(len(ccs)) for ext in ("json", "err")]
        for name in ("up.log", "down.log", "client_start", "client_end", *clients):
            if (work / name).exists():
                shutil.copy(work / name, out / name)
        meta["ended"] = time.time()
        (out / "meta.json").write_text(json.dumps(meta, indent=1))
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(meta))


if __name__ == "__main__":
    main()
