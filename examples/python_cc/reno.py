"""Reno (RFC 5681) written in Python: the smallest congestion control cclab can run from a
file. `reno.toml` beside it runs it against the built-in `reno`; the two give identical
per-flow results (tests/test_python_cc.py)."""
import cclab.cc


class Reno:
    """Every hook a controller must have, written out (subclassing
    cclab.cc.CongestionControl would give the same for free)."""

    def on_ack(self, window, ack):
        # slow start below ssthresh, else one segment per window of ACKs (RFC 5681 §3.1)
        if window.cwnd < window.ssthresh:
            window.cwnd += 1.0
        else:
            window.cwnd += 1.0 / window.cwnd

    def on_congestion(self, window, event):
        # halve (RFC 5681 Eq. 4); cut() applies the floor of 2 segments, or ns-2's rule
        return cclab.cc.cut(window.cwnd * 0.5, event)
