#!/usr/bin/env bash
# Load benchmarks of the real service (release build, real SQLite file in a temp dir).
# Usage: crates/assent-server/bench/run.sh   (needs wrk: apt-get install wrk)
set -euo pipefail
cd "$(dirname "$0")/../../.."
PORT=${PORT:-$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")}
DIR=$(mktemp -d)
cargo build --release -q -p assent-server --examples
BIN=${CARGO_TARGET_DIR:-target}/release/examples
"$BIN/bench_server" "$PORT" "$DIR" > "$DIR/out" 2>"$DIR/err" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; rm -rf "$DIR"' EXIT
for _ in $(seq 50); do grep -q APPROVER "$DIR/out" 2>/dev/null && break; sleep 0.1; done
REQUESTER=$(sed -n 's/^REQUESTER=//p' "$DIR/out")
APPROVER=$(sed -n 's/^APPROVER=//p' "$DIR/out")
URL="http://127.0.0.1:$PORT"
echo "== audited auto decisions (wrk, 2 threads, 64 connections, 15 s)"
ASSENT_TOKEN=$REQUESTER wrk -t2 -c64 -d15s -s crates/assent-server/bench/auto-decisions.lua "$URL/v1/actions"
echo "== submit -> event delivered on /v1/events, 100 submits/s for 30 s"
"$BIN/event_latency" "$URL" "$REQUESTER" "$APPROVER" 100 3000
