"""``python -m cclab._bench_worker``: scenario JSON on stdin, result JSON on stdout.

The process `cclab bench` times; it imports nothing but the native core (and
:mod:`cclab.cc` for a scenario with Python congestion control), so its wall
time and peak memory are the simulator's, not Python's libraries'.
"""
import sys

from cclab.runs.engine import run_json

if __name__ == "__main__":
    sys.stdout.write(run_json(sys.stdin.read()))
