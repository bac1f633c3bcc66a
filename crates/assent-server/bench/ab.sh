#!/usr/bin/env bash
# Before/after A/B of audited auto decisions/s on both stores, interleaved in one run
# (release `bench_server` examples built elsewhere; needs wrk and Debian's postgresql package).
# For each of ROUNDS rounds: SQLite before, SQLite after (a fresh data dir each run), then
# PostgreSQL before, PostgreSQL after (one replica, a fresh database each run, all in one
# throwaway cluster with fsync on, started here as team.sh does). Each run is one wrk burst
# (`-t2 -c64`, DURATION, auto-decisions.lua) against a service started for it and stopped
# after it. Prints every run, then the median per side and after/before for each store.
# Alongside decisions/s: bench_server's own CPU (utime+stime) per decision over the burst,
# which the other work on the machine skews less (for PostgreSQL it leaves out the server's
# backends).
# Usage: crates/assent-server/bench/ab.sh BEFORE_DIR AFTER_DIR   (DIRs hold bench_server)
#        ROUNDS=5 DURATION=10s by default
set -euo pipefail
cd "$(dirname "$0")/../../.."
[ $# -eq 2 ] || { echo "usage: $0 BEFORE_DIR AFTER_DIR" >&2; exit 2; }
BEFORE=$(realpath "$1")
AFTER=$(realpath "$2")
for d in "$BEFORE" "$AFTER"; do
    [ -x "$d/bench_server" ] || { echo "no bench_server in $d" >&2; exit 2; }
done
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-10s}
LUA=crates/assent-server/bench/auto-decisions.lua
WORK=$(mktemp -d)
RESULTS=$WORK/results.txt
PID=
cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null || true
    pg_stop
    rm -rf "$WORK"
}
# shellcheck source=lib.sh
source crates/assent-server/bench/lib.sh
trap cleanup EXIT
pg_start

# start BIN NAME [DATABASE]: bench_server from BIN on a free port; sets PID, URL, REQUESTER.
start() {
    local dir="$WORK/$2" port
    port=$(free_port)
    mkdir -p "$dir"
    "$1/bench_server" "$port" "$dir" ${3:+"$3"} >"$dir.out" 2>"$dir.err" &
    PID=$!
    URL="http://127.0.0.1:$port"
    for _ in $(seq 100); do curl -fs "$URL/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
    REQUESTER=$(sed -n 's/^REQUESTER=//p' "$dir.out")
    [ -n "$REQUESTER" ] || { echo "bench_server printed no token: $(cat "$dir.err")" >&2; exit 1; }
}
stop() { kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; PID=; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }

# run STORE SIDE ROUND: one service, one burst; appends "STORE SIDE ROUND rps cpu_us" to RESULTS.
run() {
    local store=$1 side=$2 round=$3 bin name=$1-$2-$3 out c0 c1 rps n cpu
    [ "$side" = before ] && bin=$BEFORE || bin=$AFTER
    if [ "$store" = sqlite ]; then
        start "$bin" "$name"
    else
        pg_createdb "${name//-/_}"
        start "$bin" "$name" "$PG/${name//-/_}"
    fi
    c0=$(cpu_ticks)
    out=$(ASSENT_TOKEN=$REQUESTER wrk -t2 -c64 -d"$DURATION" -s "$LUA" "$URL/v1/actions" 2>&1 || true)
    c1=$(cpu_ticks)
    stop
    out=$(grep '^requests=' <<<"$out") || { echo "wrk failed ($name): $out" >&2; exit 1; }
    rps=$(sed 's/.* rps=\([0-9]*\).*/\1/' <<<"$out")
    n=$(sed 's/^requests=\([0-9]*\).*/\1/' <<<"$out")
    cpu=$(awk -v t="$((c1 - c0))" -v n="$n" -v hz="$(getconf CLK_TCK)" \
        'BEGIN {printf "%.1f", t / hz * 1e6 / n}')
    printf '%-8s %-6s round %s: %s cpu_us_per_decision=%s load=%s\n' \
        "$store" "$side" "$round" "$out" "$cpu" "$(cut -d' ' -f1 /proc/loadavg)"
    echo "$store $side $round $rps $cpu" >>"$RESULTS"
}

echo "== before: $BEFORE"
echo "== after:  $AFTER"
echo "== $ROUNDS rounds, wrk -t2 -c64 -d$DURATION each; load: $(uptime)"
for round in $(seq "$ROUNDS"); do
    for store in sqlite postgres; do
        run "$store" before "$round"
        run "$store" after "$round"
    done
done
echo "== load: $(uptime)"

# Medians per store and side, after/before of the medians, and the median of the per-round
# ratios (each round's after against the before run next to it).
python3 - "$RESULTS" <<'EOF'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1])]
for store in ("sqlite", "postgres"):
    get = lambda side, col: {int(r[2]): float(r[col]) for r in rows if r[0] == store and r[1] == side}
    for col, what, fmt in ((3, "decisions/s", "{:.0f}"), (4, "server CPU us/decision", "{:.1f}")):
        b, a = get("before", col), get("after", col)
        mb, ma = st.median(b.values()), st.median(a.values())
        per_round = [a[r] / b[r] for r in sorted(b)]
        print(f"{store:8} {what:22} before " + ", ".join(fmt.format(b[r]) for r in sorted(b))
              + f" | after " + ", ".join(fmt.format(a[r]) for r in sorted(a)))
        print(f"{'':8} {'':22} median {fmt.format(mb)} -> {fmt.format(ma)}: x{ma / mb:.3f}; "
              f"per round x" + ", ".join(f"{x:.2f}" for x in per_round)
              + f" (median x{st.median(per_round):.3f})")
EOF
