#!/usr/bin/env bash
# Load benchmarks of the real service (release build, real SQLite file in a temp dir).
# Usage: crates/assent-server/bench/run.sh   (needs wrk: apt-get install wrk)
#        BENCH_BIN=DIR run.sh uses prebuilt bench_server and event_latency from DIR
#   1. submit -> event latency on a fresh data dir (100 submits/s for 30 s)
#   2. audited auto decisions (wrk burst, 15 s) on a second fresh data dir
#   3. submit -> event latency again, right after the burst, on the burst's data dir
set -euo pipefail
cd "$(dirname "$0")/../../.."
if [ -n "${BENCH_BIN:-}" ]; then
    BIN=$BENCH_BIN                     # prebuilt bench_server + event_latency (A/B runs)
else
    cargo build --release -q -p assent-server --examples
    BIN=${CARGO_TARGET_DIR:-target}/release/examples
fi
WORK=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"' EXIT

free_port() {
    python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"
}

# start NAME: starts bench_server on a free port with data in $WORK/NAME; sets URL, tokens.
start() {
    local dir="$WORK/$1" port
    port=$(free_port)
    mkdir -p "$dir"
    "$BIN/bench_server" "$port" "$dir" >"$dir.out" 2>"$dir.err" &
    PIDS+=($!)
    for _ in $(seq 50); do grep -q APPROVER "$dir.out" 2>/dev/null && break; sleep 0.1; done
    REQUESTER=$(sed -n 's/^REQUESTER=//p' "$dir.out")
    APPROVER=$(sed -n 's/^APPROVER=//p' "$dir.out")
    URL="http://127.0.0.1:$port"
}

echo "== load: $(uptime)"
start fresh
echo "== submit -> event delivered on /v1/events, 100 submits/s for 30 s, fresh data dir"
"$BIN/event_latency" "$URL" "$REQUESTER" "$APPROVER" 100 3000
start burst
echo "== audited auto decisions (wrk, 2 threads, 64 connections, 15 s)"
ASSENT_TOKEN=$REQUESTER wrk -t2 -c64 -d15s -s crates/assent-server/bench/auto-decisions.lua "$URL/v1/actions"
echo "== the same latency probe right after the burst, same data dir"
"$BIN/event_latency" "$URL" "$REQUESTER" "$APPROVER" 100 3000
echo "== load: $(uptime)"
