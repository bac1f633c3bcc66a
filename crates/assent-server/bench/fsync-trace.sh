#!/usr/bin/env bash
# fsync-trace.sh DIR: a wrk burst, then the 100/s event-latency probe with strace on the server:
# fsync and pwrite64 counts/latencies per file descriptor (DIR holds release bench_server and
# event_latency, e.g. target/release/examples). Needs wrk and strace.
set -euo pipefail
BIN=$(realpath "$1")
cd "$(dirname "$0")/../../.."
WORK=$(mktemp -d)
PORT=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
"$BIN/bench_server" "$PORT" "$WORK/d" >"$WORK/out" 2>"$WORK/err" &
SRV=$!
for _ in $(seq 50); do grep -q APPROVER "$WORK/out" 2>/dev/null && break; sleep 0.1; done
REQUESTER=$(sed -n 's/^REQUESTER=//p' "$WORK/out"); APPROVER=$(sed -n 's/^APPROVER=//p' "$WORK/out")
URL="http://127.0.0.1:$PORT"
ASSENT_TOKEN=$REQUESTER wrk -t2 -c64 -d15s -s crates/assent-server/bench/auto-decisions.lua "$URL/v1/actions" | grep -E "Requests/sec|requests in"
ls -la "$WORK/d"
strace -f -T -e trace=fsync,fdatasync,pwrite64 -o "$WORK/strace" -p $SRV &
ST=$!
sleep 1
"$BIN/event_latency" "$URL" "$REQUESTER" "$APPROVER" 100 3000
kill $ST; sleep 0.5
ls -la "$WORK/d"
python3 - "$WORK/strace" <<'PY'
import sys,re,collections
calls=collections.defaultdict(list)
for line in open(sys.argv[1]):
    m=re.search(r'(\w+)\((\d+).*<([\d.]+)>',line)
    if m: calls[(m.group(1),m.group(2))].append(float(m.group(3))*1000)
for k,v in sorted(calls.items()):
    v.sort(); n=len(v)
    print(k, 'n=%d p50=%.2f p99=%.2f max=%.2f total=%.0fms'%(n, v[n//2], v[int(n*0.99)], v[-1], sum(v)))
PY
ls -la /proc/$SRV/fd | grep -E "assent" || true
kill $SRV; rm -rf "$WORK"
