#!/usr/bin/env bash
# The audit chain at a million events, on both stores (docs/benchmarks.md, "The audit chain"):
# builds the store with the `audit_million` example (the store's own append path, 256 events per
# transaction, then one checkpoint, then the library's verify), then times what an operator
# runs: `assent audit verify` on the database, `assent audit export` in JSONL and CSV, and
# `assent audit verify --from` each export. Wall time and peak RSS from /usr/bin/time.
# Usage: crates/assent-server/bench/audit-million.sh BIN_DIR [N]
#   BIN_DIR holds release builds of `assent` and `audit_million`:
#   cargo build --release -p assent-cli -p assent-server --example audit_million
#   (then BIN_DIR is target/release, with audit_million under target/release/examples)
set -euo pipefail
cd "$(dirname "$0")/../../.."
[ $# -ge 1 ] || { echo "usage: $0 BIN_DIR [N]" >&2; exit 2; }
BIN=$(realpath "$1")
N=${2:-1000000}
ASSENT=$BIN/assent
MILLION=$BIN/examples/audit_million
[ -x "$MILLION" ] || MILLION=$BIN/audit_million
WORK=$(mktemp -d)
cleanup() { pg_stop; rm -rf "$WORK"; }
# shellcheck source=lib.sh
source crates/assent-server/bench/lib.sh
trap cleanup EXIT
pg_start

timed() { # timed LABEL CMD…: runs CMD, prints LABEL, wall seconds and peak RSS
    local label=$1
    shift
    /usr/bin/time -f "$label: %e s wall, %U s user, %M KB max RSS" "$@"
}

# one STORE ARGS…: the measurements on one store (ARGS name it for `assent audit`).
one() {
    local store=$1 dir=$WORK/$1
    shift
    echo "== $store, $N events (load: $(cut -d' ' -f1-3 /proc/loadavg))"
    timed "$store build+verify (library)" "$MILLION" "$N" "$dir" ${PGURL:+"$PGURL"}
    timed "$store assent audit verify" "$ASSENT" audit verify "$@" --key-dir "$dir" | tail -1
    for format in jsonl csv; do
        timed "$store assent audit export --format $format" \
            "$ASSENT" audit export "$@" --format "$format" >"$dir/export.$format"
        echo "   export.$format: $(du -h "$dir/export.$format" | cut -f1), $(wc -l <"$dir/export.$format") lines"
        timed "$store assent audit verify --from export.$format" \
            "$ASSENT" audit verify --from "$dir/export.$format" --key-dir "$dir" | tail -1
        rm -f "$dir/export.$format"
    done
}

PGURL='' one sqlite --data-dir "$WORK/sqlite"
pg_createdb audit_million
PGURL="$PG/audit_million" one postgres --database "$PG/audit_million"
