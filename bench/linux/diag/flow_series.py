"""Per-second view of each data flow of a diagnostic run (run.py): cwnd, retransmissions so far,
and for BBR its min_rtt estimate, from the tcp_info samples (tcpinfo.jsonl, tcpinfo2.jsonl, ...);
with the uplink's drops and mean queueing delay per second from mm-link's log.

    python3 flow_series.py runs/NAME [--seconds 30]

Standard library only, like the other diagnostics.
"""
import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harness import parse_log  # noqa: E402


def data_socket(rows: list) -> list:
    """The samples of the data connection (iperf3's control connection shares the port): the
    socket that sent the most."""
    by_port = defaultdict(list)
    for row in rows:
        by_port[row["sport"]].append(row)
    return max(by_port.values(), key=lambda samples: samples[-1].get("bytes_sent") or 0)


def per_second(samples: list, t0: float, seconds: int) -> list:
    """The first sample in each second from t0 (None where there is none)."""
    out = [None] * seconds
    for row in samples:
        k = int(row["t"] - t0)
        if 0 <= k < seconds and out[k] is None:
            out[k] = row
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--seconds", type=int, default=30)
    args = parser.parse_args()
    files = sorted(args.run.glob("tcpinfo*.jsonl"), key=lambda p: (len(p.name), p.name))
    if not files:
        parser.error(f"{args.run}: no tcpinfo*.jsonl (a run of run.py)")
    flows = [data_socket([json.loads(line) for line in f.open()]) for f in files]
    t0 = min(samples[0]["t"] for samples in flows)
    for samples in flows:
        cc = samples[-1].get("cc", "?")
        cells = []
        for k, row in enumerate(per_second(samples, t0, args.seconds)):
            if row is None:
                continue
            cell = f"{k}:{row['cwnd']}/{row['total_retrans']}"
            if cc == "bbr" and row.get("bbr_min_rtt_us"):
                cell += f"/{row['bbr_min_rtt_us'] / 1000:.0f}ms"
            cells.append(cell)
        print(f"{cc} (cwnd/retransmissions so far{'/min_rtt' if cc == 'bbr' else ''}): {' '.join(cells)}")
    log = parse_log(args.run / "up.log", None, float(args.seconds))["whole_log"]
    print(f"uplink: {log['dropped_packets']} drops, queue {log['queue_delay_ms']['mean']:.1f} ms mean")
    return 0


if __name__ == "__main__":
    sys.exit(main())
