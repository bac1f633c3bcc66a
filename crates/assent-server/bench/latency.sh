#!/usr/bin/env bash
# Submit → event and decision → gate latency of one release `assent serve` binary, on a fresh
# SQLite data dir: the `event_latency` example (asks at 100/s, each its own run, timed until its
# `approval.requested` arrives on `/v1/events`; COUNT of them) and `cross_latency` (an ask's gate
# long-polls, a person decides; both URLs the one service; 300 of them). Run it alternately on
# two binaries to compare them.
# Usage: crates/assent-server/bench/latency.sh BIN   (COUNT=1000; builds the two examples)
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 BIN" >&2; exit 2; }
cd "$(dirname "$0")/../../.."
cargo build --release --locked -q -p assent-server --example event_latency --example cross_latency
EXAMPLES="${CARGO_TARGET_DIR:-target}/release/examples"
WORK="$(mktemp -d)"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
RUST_LOG=warn "$1" serve --listen "127.0.0.1:$PORT" --data-dir "$WORK" >"$WORK/serve.log" 2>&1 &
SERVE=$!
trap 'kill $SERVE 2>/dev/null; wait $SERVE 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.05; done
URL="http://127.0.0.1:$PORT"
REQUESTER="$(cat "$WORK/requester.token")"
APPROVER="$(cat "$WORK/approver.token")"
echo "event: $("$EXAMPLES/event_latency" "$URL" "$REQUESTER" "$APPROVER" 100 "${COUNT:-1000}" | tail -1)"
echo "cross: $("$EXAMPLES/cross_latency" "$URL" "$URL" "$REQUESTER" "$APPROVER" 300 | tail -1)"
