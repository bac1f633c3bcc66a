#!/usr/bin/env bash
# Server CPU (utime+stime of bench_server) per audited auto decision over a 10 s wrk burst,
# after a 2 s warm-up; less skewed by a loaded machine than req/s.
# Usage: BIN=DIR crates/assent-server/bench/cpu-per-decision.sh   (DIR holds bench_server)
set -euo pipefail
cd "$(dirname "$0")/../../.."
W=$(mktemp -d); port=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
"$BIN/bench_server" "$port" "$W/d" > "$W/out" 2>"$W/err" & P=$!
for _ in $(seq 50); do grep -q APPROVER "$W/out" 2>/dev/null && break; sleep 0.1; done
T=$(sed -n 's/^REQUESTER=//p' "$W/out")
ASSENT_TOKEN=$T wrk -t2 -c64 -d2s -s crates/assent-server/bench/auto-decisions.lua "http://127.0.0.1:$port/v1/actions" >/dev/null
tick=$(getconf CLK_TCK)
c0=$(awk '{print $14+$15}' /proc/$P/stat)
out=$(ASSENT_TOKEN=$T wrk -t2 -c64 -d10s -s crates/assent-server/bench/auto-decisions.lua "http://127.0.0.1:$port/v1/actions" | grep requests=)
c1=$(awk '{print $14+$15}' /proc/$P/stat)
n=$(sed 's/requests=\([0-9]*\).*/\1/' <<<"$out")
kill $P; wait $P 2>/dev/null || true; rm -rf "$W"
echo "$(basename $BIN) cpu_us_per_decision=$(python3 -c "print(round(($c1-$c0)/$tick*1e6/$n,1))") $out load=$(cut -d' ' -f1 /proc/loadavg)"
