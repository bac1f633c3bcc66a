#!/usr/bin/env bash
# Audited auto decisions/s of two release `assent serve` binaries on SQLite, alternated
# (before, after, before, after…; a fresh data dir per run): one `wrk -t2 -c64 -d$D` burst of
# auto-decisions.lua each. Needs wrk (Debian package).
# Usage: crates/assent-server/bench/serve_ab.sh BEFORE_BIN AFTER_BIN   (ROUNDS=3 D=5s)
set -euo pipefail
LUA="$(dirname "$0")/auto-decisions.lua"
D=${D:-5s}
run() {
  local bin=$1 w port pid out
  w=$(mktemp -d); port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  RUST_LOG=warn "$bin" serve --listen 127.0.0.1:$port --data-dir $w/data >$w/log 2>&1 & pid=$!
  for _ in $(seq 100); do curl -sf http://127.0.0.1:$port/healthz >/dev/null && break; sleep 0.05; done
  out=$(ASSENT_TOKEN=$(cat $w/data/requester.token) wrk -t2 -c64 -d$D -s $LUA http://127.0.0.1:$port/v1/actions 2>&1 | grep '^requests=')
  kill $pid; wait $pid 2>/dev/null || true; rm -rf $w
  echo "$out"
}
for r in $(seq ${ROUNDS:-3}); do
  echo "round $r before: $(run $1)"
  echo "round $r after:  $(run $2)"
done
