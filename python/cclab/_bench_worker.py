"""``python -m cclab._bench_worker``: scenario JSON on stdin, result JSON on stdout.

The process `cclab bench` times; it imports nothing but the native core, so its wall
time and peak memory are the simulator's, not Python's libraries'.
"""
import sys

from cclab.core import run_json

if __name__ == "__main__":
    sys.stdout.write(run_json(sys.stdin.read()))
