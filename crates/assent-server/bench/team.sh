#!/usr/bin/env bash
# Team-mode benchmarks, side by side in one run (release build; needs wrk and Debian's
# postgresql package; starts its own throwaway PostgreSQL cluster with fsync on, never the
# system one):
#   1. audited auto decisions/s (wrk, 15 s, `ls` in a trusted repo): SQLite; PostgreSQL with
#      one replica; PostgreSQL with two replicas on one database (a wrk per replica, summed)
#   2. decision -> waiting gate across replicas: ask and long-poll on A, decide on B
# Usage: crates/assent-server/bench/team.sh      BENCH_BIN=DIR uses prebuilt examples
set -euo pipefail
cd "$(dirname "$0")/../../.."
if [ -n "${BENCH_BIN:-}" ]; then
    BIN=$BENCH_BIN
else
    cargo build --release -q -p assent-server --examples
    BIN=${CARGO_TARGET_DIR:-target}/release/examples
fi
LUA=crates/assent-server/bench/auto-decisions.lua
DURATION=${DURATION:-15s}
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    pg_stop
    rm -rf "$WORK"
}
# shellcheck source=lib.sh
source crates/assent-server/bench/lib.sh
trap cleanup EXIT
pg_start
for db in one two; do pg_createdb "$db"; done

# start NAME [DATABASE]: bench_server on a free port; sets URL (and the tokens it printed).
start() {
    local dir="$WORK/$1" port
    port=$(free_port)
    mkdir -p "$dir"
    "$BIN/bench_server" "$port" "$dir" ${2:+"$2"} >"$dir.out" 2>"$dir.err" &
    PIDS+=($!)
    URL="http://127.0.0.1:$port"
    for _ in $(seq 100); do curl -fs "$URL/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
    if grep -q '^REQUESTER=' "$dir.out"; then
        REQUESTER=$(sed -n 's/^REQUESTER=//p' "$dir.out")
        APPROVER=$(sed -n 's/^APPROVER=//p' "$dir.out")
    fi
}
burst() {
    local out
    out=$(ASSENT_TOKEN=$REQUESTER wrk "$@" -d"$DURATION" -s "$LUA" 2>&1 || true)
    grep '^requests=' <<<"$out" || echo "wrk failed: $out"
}

echo "== load: $(uptime)"
start sqlite
echo "== SQLite, one service: wrk -t2 -c64"
burst -t2 -c64 "$URL/v1/actions"
start pg-one "$PG/one"
echo "== PostgreSQL, one replica: wrk -t2 -c64"
burst -t2 -c64 "$URL/v1/actions"
start pg-a "$PG/two"; URL_A=$URL
start pg-b "$PG/two"; URL_B=$URL
echo "== PostgreSQL, two replicas on one database: wrk -t1 -c32 on each, at once"
burst -t1 -c32 "$URL_A/v1/actions" >"$WORK/a.txt" &
ON_A=$!
burst -t1 -c32 "$URL_B/v1/actions" >"$WORK/b.txt"
wait "$ON_A"
cat "$WORK/a.txt" "$WORK/b.txt"
awk -F'rps=' '{split($2, r, " "); sum += r[1]} END {printf "two replicas together: rps=%.0f\n", sum}' \
    "$WORK/a.txt" "$WORK/b.txt"
echo "== decision on B -> gate long-polling on A (200 decisions, one at a time)"
"$BIN/cross_latency" "$URL_A" "$URL_B" "$REQUESTER" "$APPROVER" 200
echo "== load: $(uptime)"
