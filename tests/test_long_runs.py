"""Long runs: a progress bar on a terminal, Ctrl-C that stops a run at once (exit 130,
nothing written), from the command line and from Python; the watching changes no result."""
from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import cclab
from cclab.progress import RunProgress

ROOT = Path(__file__).resolve().parents[1]
CCLAB = [sys.executable, "-m", "cclab"]
STANDARD = ROOT / "experiments" / "standard-benchmark.toml"
# How long after SIGINT a run may take to end: the engine looks every 50 ms of wall time;
# the rest is headroom for a loaded machine (measured: 0.05–0.2 s).
STOP_WITHIN_S = 1.0
# Long enough that no run ends by itself during a test (hours of work at full speed).
FOREVER = "100000s"


def _read_until(fd: int, needle: bytes, timeout_s: float) -> bytes:
    seen = b""
    deadline = time.monotonic() + timeout_s
    while needle not in seen:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"{needle!r} not seen in {timeout_s} s; got {seen[-300:]!r}")
        if select.select([fd], [], [], remaining)[0]:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the other side closed
                break
            seen += chunk
    return seen


def _interrupt(process: subprocess.Popen) -> float:
    """Send SIGINT; the seconds until the process ended."""
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    process.wait(timeout=30)
    return time.monotonic() - sent


def test_cli_shows_progress_on_a_terminal_and_ctrl_c_stops_the_run(tmp_path):
    primary, secondary = pty.openpty()
    out = tmp_path / "out"
    process = subprocess.Popen([*CCLAB, "run", str(STANDARD), "--set", f'duration="{FOREVER}"',
                                "--out", str(out)],
                               stdin=subprocess.DEVNULL, stdout=secondary, stderr=secondary, cwd=tmp_path)
    os.close(secondary)
    try:
        # The bar appears once the run is two seconds old, with simulated time of the total.
        seen = _read_until(primary, b"simulated", timeout_s=60)
        assert b"of 100000 s simulated" in seen, seen
        took = _interrupt(process)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(primary)
    assert process.returncode == 130
    assert took < STOP_WITHIN_S, f"the run took {took:.2f} s to stop"
    assert not out.exists(), "nothing half-written"
    assert [p.name for p in tmp_path.iterdir()] == [], "no staging directory left"


def test_cli_without_a_terminal_shows_no_bar_and_ctrl_c_stops_the_run(tmp_path):
    process = subprocess.Popen([*CCLAB, "run", str(STANDARD), "--set", f'duration="{FOREVER}"', "--json"],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    time.sleep(3)  # well inside the run (start-up takes a fraction of a second)
    assert process.poll() is None
    took = _interrupt(process)
    stdout, stderr = process.stdout.read(), process.stderr.read()
    assert process.returncode == 130
    assert took < STOP_WITHIN_S, f"the run took {took:.2f} s to stop"
    assert stdout == b""
    assert stderr.decode().strip() == "interrupted"  # no bar, no traceback


PYTHON_RUN = textwrap.dedent("""
    import sys, time, cclab
    print("running", flush=True)
    started = time.monotonic()
    try:
        cclab.run(sys.argv[1], duration=sys.argv[2])
    except KeyboardInterrupt:
        print(f"KeyboardInterrupt after {time.monotonic() - started:.2f}", flush=True)
        sys.exit(7)
    print("finished", flush=True)
""")


@pytest.mark.parametrize("scenario", [STANDARD, ROOT / "examples" / "python_cc" / "reno.toml"],
                         ids=["engine", "python-cc"])
def test_ctrl_c_in_python_raises_keyboard_interrupt(tmp_path, scenario):
    """The same from ``cclab.run``: the built-in engine (which runs without the GIL) and a
    congestion control written in Python (which holds it)."""
    process = subprocess.Popen([sys.executable, "-c", PYTHON_RUN, str(scenario), FOREVER],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert process.stdout.readline().strip() == b"running"
    time.sleep(2)
    took = _interrupt(process)
    stdout, stderr = process.stdout.read().decode(), process.stderr.read().decode()
    assert process.returncode == 7, (stdout, stderr)
    assert stdout.startswith("KeyboardInterrupt after"), (stdout, stderr)
    assert took < STOP_WITHIN_S, f"the run took {took:.2f} s to stop"


def test_progress_is_reported_and_changes_nothing():
    """The engine reports simulated time out of the total while it runs; a watched run's
    result is the unwatched one's, bit for bit."""
    calls = []
    watched = cclab.run(STANDARD, duration="20s", progress=lambda done, total: calls.append((done, total)))
    plain = cclab.run(STANDARD, duration="20s")
    strip = lambda result: json.dumps({k: v for k, v in result.raw.items() if k != "wall_time_s"}, sort_keys=True)
    assert strip(watched) == strip(plain)
    if plain.raw["wall_time_s"] > 0.5:  # reported every 0.2 s of wall time
        assert calls, "no progress reported"
    assert all(total == 20.0 and 0 <= done <= total for done, total in calls)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


def test_an_exception_in_progress_stops_the_run():
    class Enough(Exception):
        pass

    def stop(done, total):
        raise Enough(f"{done:.1f} of {total:g}")

    started = time.monotonic()
    with pytest.raises(Enough):
        cclab.run(STANDARD, duration=FOREVER, progress=stop)
    assert time.monotonic() - started < 30


def test_the_bar_waits_two_seconds_then_draws_one_line(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # (the line is cut to the terminal's width: a wide one here)

    class Stream:
        def __init__(self):
            self.text = ""

        def write(self, text):
            self.text += text

        def flush(self):
            pass

    stream = Stream()
    with RunProgress(stream) as bar:
        bar(10, 100)
        assert stream.text == "", "nothing in the first two seconds"
        bar.started -= 3
        bar(25, 100)
        assert "25%" in stream.text and "25 s of 100 s simulated" in stream.text and "left" in stream.text
    assert stream.text.endswith("\r\x1b[K"), "the line is erased at the end"
