#!/usr/bin/env bash
# How long the service takes to answer a gate's submit (an auto decision, `git status`),
# two `assent serve` binaries side by side: both run at once, and every round asks each once
# in turn (interleaved, so the machine's drift hits both alike), by `curl -w
# %{time_starttransfer}`. PACE=S sleeps S seconds between rounds: an agent's pace, where the
# service is idle between tool calls (the checkpointer has run) rather than in a burst.
# Prints p10/p50/p90 per binary and for GET /healthz (the floor: an HTTP answer that does
# nothing). Every submit must answer 200 and "allowed", or the run fails.
# Usage: crates/assent-server/bench/answer.sh BEFORE_BIN AFTER_BIN   (N=200 PACE=0 by default)
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 BEFORE_BIN AFTER_BIN" >&2; exit 2; }
N="${N:-200}"
PACE="${PACE:-0}"
WORK="$(mktemp -d)"
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null; rm -rf "$WORK"' EXIT
start() { # name bin → URL and TOKEN in $WORK/name.{url,token}
  local port
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  RUST_LOG=warn "$2" serve --listen "127.0.0.1:$port" --data-dir "$WORK/$1" >"$WORK/$1.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.05; done
  echo "http://127.0.0.1:$port" >"$WORK/$1.url"
}
start before "$1"
start after "$2"
mkdir -p "$WORK/repo"
git -C "$WORK/repo" init -q
BODY="{\"run_id\":\"b\",\"task_id\":\"b\",\"requested_by\":\"agent\",\"action\":{\"kind\":\"shell\",\"command\":\"git status\",\"cwd\":\"$WORK/repo\"},\"context\":{\"repo\":\"$WORK/repo\"},\"reason\":\"bench\"}"
ask() { # name → "seconds" of one submit; fails unless 200 and allowed
  local out
  out="$(curl -s -w '\n%{http_code} %{time_starttransfer}' -H "Authorization: Bearer $(cat "$WORK/$1/requester.token")" \
    -H 'Content-Type: application/json' -d "$BODY" "$(cat "$WORK/$1.url")/v1/actions")"
  grep -q '"status":"allowed"' <<<"$out" && [ "$(tail -1 <<<"$out" | cut -d' ' -f1)" = 200 ] ||
    { echo "$1: not allowed: $out" >&2; exit 1; }
  tail -1 <<<"$out" | cut -d' ' -f2
}
for _ in $(seq "$N"); do
  ask before >>"$WORK/before.t"
  ask after >>"$WORK/after.t"
  curl -s -o /dev/null -w '%{time_starttransfer}\n' "$(cat "$WORK/after.url")/healthz" >>"$WORK/healthz.t"
  [ "$PACE" = 0 ] || sleep "$PACE"
done
for name in healthz before after; do
  sort -n "$WORK/$name.t" | awk -v name="$name" '{a[NR]=$1} END {printf "%-8s p10 %.3f  p50 %.3f  p90 %.3f ms  (%d)\n", name, a[int(NR*0.1)]*1000, a[int(NR*0.5)]*1000, a[int(NR*0.9)]*1000, NR}'
done
