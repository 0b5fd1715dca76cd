#!/bin/bash
# Run the given commands (one per argument) with the reference recorder paused between two of its runs:
# wait until no mm-link / mm-delay / iperf3 process exists, SIGSTOP the recorder, re-check, run, and
# always SIGCONT it at the end (trap on EXIT/INT/TERM). Pause times are appended to pause_log.txt.
LOG="$(dirname "$0")/pause_log.txt"
PID=$(pgrep -f 'python3 bench/linux/record.py' | head -1)
busy() { pgrep -x mm-link >/dev/null || pgrep -x mm-delay >/dev/null || pgrep -x iperf3 >/dev/null; }
if [ -n "$PID" ]; then
  while true; do
    while busy; do sleep 0.2; done
    kill -STOP "$PID"
    sleep 0.3
    if busy; then kill -CONT "$PID"; sleep 1; continue; fi
    break
  done
  T0=$(date +%s)
  trap 'kill -CONT '"$PID"'; T1=$(date +%s); echo "$(date -u +%FT%TZ) recorder $PID paused $((T1-T0)) s for: '"$*"'" >> '"$LOG"'' EXIT
  trap 'exit 1' INT TERM
  echo "paused recorder $PID at $(date -u +%FT%TZ)"
else
  echo "recorder not running"
fi
uptime
for c in "$@"; do echo "== $c"; bash -c "$c"; done
uptime
