#!/usr/bin/env bash
# Voluntary context switches (all threads, /proc/PID/task/*/status) of an idle `assent serve`
# over 30 s, measured from 5 s after start. Usage: crates/assent-server/bench/idle.sh PATH/TO/assent
set -euo pipefail
BIN=$1
DIR=$(mktemp -d)
"$BIN" serve --listen 127.0.0.1:0 --data-dir "$DIR" 2>"$DIR/log" &
PID=$!
sleep 5
sum() { cat /proc/$PID/task/*/status | awk '/^voluntary_ctxt_switches/ {s+=$2} END {print s}'; }
A=$(sum); sleep 30; B=$(sum)
echo "threads=$(ls /proc/$PID/task | wc -l) voluntary_ctxt_switches_30s=$((B-A))"
kill $PID; wait $PID 2>/dev/null || true; rm -rf "$DIR"
