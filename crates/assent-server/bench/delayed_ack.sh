#!/usr/bin/env bash
# Submit -> event latency when the event stream's client delays its ACKs (bench/delayed_ack.py),
# for each release `assent serve` binary given, alternated ROUNDS times, a fresh service each.
# Usage: crates/assent-server/bench/delayed_ack.sh BIN [BIN…]   (ROUNDS=2 N=300)
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BIN [BIN…]" >&2; exit 2; }
HERE="$(cd "$(dirname "$0")" && pwd)"
for _ in $(seq "${ROUNDS:-2}"); do
  for bin in "$@"; do
    WORK="$(mktemp -d)"
    PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
    RUST_LOG=warn "$bin" serve --listen "127.0.0.1:$PORT" --data-dir "$WORK" >"$WORK/serve.log" 2>&1 &
    SERVE=$!
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.05; done
    echo "$bin: $(python3 "$HERE/delayed_ack.py" "$PORT" "$(cat "$WORK/requester.token")" \
      "$(cat "$WORK/approver.token")" "${N:-300}")"
    kill "$SERVE"; wait "$SERVE" 2>/dev/null || true
    rm -rf "$WORK"
  done
done
