#!/usr/bin/env bash
# Whole-process time of the fast gate (`assent-gate claude-code`) side by side in one hyperfine
# run with `assent gate claude-code` of this tree and of an earlier build (BEFORE_BIN, e.g.
# main's), and a minimal Python hook making the same HTTP call; all against one release
# `assent serve` on loopback. Payloads: a Claude Code PreToolUse for `git status` (auto), an
# Edit of a 300-line file with its diff (auto), and one of a 15,000-line file (the gate's diff
# should grow with the change, not the file), all in a real git repository.
# BEFORE_GATE (an earlier assent-gate) adds it to the run; BEFORE_SERVICE=1 also starts
# BEFORE_BIN's `assent serve` and times this tree's assent-gate against it (the same gate, the
# two services side by side); `/bin/true` is the floor of starting any process here, and
# benches/post_floor.c (static C, the Python hook's request sent whole) of any gate's auto call.
# INTERLEAVED=1 times the same rows with benches/interleaved.py instead (RUNS rounds, each row
# once per round, in turn): hyperfine's rows drift with the machine, one after another.
# Every binary timed is first copied into the run's directory, so all are in one page-cache
# state (a file runs faster right after a copy than as the linker left it or as read back
# from disk: docs/benchmarks.md, "Gate").
# Usage: BEFORE_BIN=/tmp/assent-main [BEFORE_GATE=/tmp/assent-gate-main] [INTERLEAVED=1] \
#          crates/assent-cli/benches/gate_fast.sh [hyperfine args…]
set -euo pipefail
cd "$(dirname "$0")/../../.."
DIR="${CARGO_TARGET_DIR:-target}/release"
BIN="${ASSENT_BIN:-$DIR/assent}"
FAST="${ASSENT_GATE_BIN:-$(dirname "$BIN")/assent-gate}"
BEFORE="${BEFORE_BIN:-$BIN}"
PY="$(python3 -c 'import sys; print(sys.executable)')"   # the interpreter itself, not a shim
[ -x "$BIN" ] || cargo build --release --locked -p assent-cli
# The gate as scripts/setup.sh and the .deb install it: static, at a fixed address.
[ -n "${ASSENT_GATE_BIN:-}" ] || scripts/build-gate.sh --release >&2
WORK="$(mktemp -d)"
mkdir "$WORK/bin"
copy() { cp "$1" "$WORK/bin/$2" && echo "$WORK/bin/$2"; }
FAST="$(copy "$FAST" assent-gate)"
BEFORE="$(copy "$BEFORE" before-assent)"
BIN="$(copy "$BIN" assent)"
[ -z "${BEFORE_GATE:-}" ] || BEFORE_GATE="$(copy "$BEFORE_GATE" before-assent-gate)"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
"$BIN" serve --listen "127.0.0.1:$PORT" --data-dir "$WORK/data" >"$WORK/serve.log" 2>&1 &
SERVE=$!
trap 'kill $SERVE; rm -rf "$WORK"' EXIT
export ASSENT_URL="http://127.0.0.1:$PORT"
for _ in $(seq 100); do curl -sf "$ASSENT_URL/healthz" >/dev/null && break; sleep 0.05; done
export ASSENT_TOKEN="$(cat "$WORK/data/requester.token")"
before_service=() before_auto=() before_edit=() before_large=()
if [ -n "${BEFORE_SERVICE:-}" ]; then
  BPORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  "$BEFORE" serve --listen "127.0.0.1:$BPORT" --data-dir "$WORK/before-data" >"$WORK/before-serve.log" 2>&1 &
  BSERVE=$!
  trap 'kill $SERVE $BSERVE; rm -rf "$WORK"' EXIT
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$BPORT/healthz" >/dev/null && break; sleep 0.05; done
  BTOKEN="$(cat "$WORK/before-data/requester.token")"
  before_service=(--url "http://127.0.0.1:$BPORT" --token "$BTOKEN")
fi

REPO="$WORK/repo"
mkdir -p "$REPO/src"
git -C "$REPO" init -q
python3 - "$REPO" "$WORK" <<'PY'
import json, sys
repo, work = sys.argv[1], sys.argv[2]
with open(f"{repo}/src/lib.rs", "w") as f:
    for i in range(100):
        f.write(f"pub fn f{i}(x: i32) -> i32 {{\n    x + {i}\n}}\n")
with open(f"{repo}/src/big.rs", "w") as f:
    for i in range(5000):
        f.write(f"pub fn g{i}(x: i32) -> i32 {{\n    x * {i}\n}}\n")
# No tool_use_id: every run is a fresh submit (an idempotent replay would be cheaper).
def hook(tool, tool_input):
    return {"session_id": "bench", "transcript_path": "/tmp/t.jsonl", "cwd": repo,
            "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": tool_input}
payloads = {
    "auto": hook("Bash", {"command": "git status", "description": "bench"}),
    "edit": hook("Edit", {"file_path": f"{repo}/src/lib.rs", "old_string": "    x + 50\n", "new_string": "    x.wrapping_add(50)\n"}),
    "large": hook("Edit", {"file_path": f"{repo}/src/big.rs", "old_string": "    x * 2500\n", "new_string": "    x.wrapping_mul(2500)\n"}),
}
for name, payload in payloads.items():
    with open(f"{work}/{name}.json", "w") as f:
        json.dump(payload, f)
PY
# The floor of a gate that does one submit: a static C program sending the Python hook's
# request, prepared whole (benches/post_floor.c).
cc -O2 -static -o "$WORK/post_floor" crates/assent-cli/benches/post_floor.c
PYTHONPATH=crates/assent-cli/benches python3 - "$WORK" "$PORT" "$ASSENT_TOKEN" <<'PY'
import json, sys
from python_hook import request_of
work, port, token = sys.argv[1:]
body = json.dumps(request_of(json.load(open(f"{work}/auto.json")))).encode()
head = (f"POST /v1/actions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode()
open(f"{work}/auto.http", "wb").write(head + body)
PY
"$WORK/post_floor" "$WORK/auto.http" "$PORT" || { echo "post_floor: not allowed" >&2; exit 1; }
git -C "$REPO" -c user.name=b -c user.email=b@example.invalid add -A
git -C "$REPO" -c user.name=b -c user.email=b@example.invalid commit -qm bench

for p in auto edit large; do
  for gate in "$BEFORE gate" "$BIN gate" "$FAST"; do
    # shellcheck disable=SC2086 # "$BIN gate" is two words on purpose
    grep -q '"allow"' <($gate claude-code --payload "$WORK/$p.json") || { echo "$gate: $p not allowed" >&2; exit 1; }
  done
done
grep -q '"allow"' <("$PY" crates/assent-cli/benches/python_hook.py "$WORK/auto.json") || { echo "python hook not allowed" >&2; exit 1; }

# -N: no shell in between; the payload comes from a file (`--payload`, argv[1] for Python)
# because hyperfine 1.15 has no --input. Rows are (name, command) pairs.
if [ -n "${BEFORE_SERVICE:-}" ]; then
  grep -q '"allow"' <("$FAST" claude-code "${before_service[@]}" --payload "$WORK/auto.json") || { echo "before's service: not allowed" >&2; exit 1; }
  before_auto+=("assent-gate → before's service (auto)" "$FAST claude-code ${before_service[*]} --payload $WORK/auto.json")
  before_edit+=("assent-gate → before's service (edit + diff)" "$FAST claude-code ${before_service[*]} --payload $WORK/edit.json")
fi
if [ -n "${BEFORE_GATE:-}" ]; then
  before_auto+=("before: assent-gate (auto)" "$BEFORE_GATE claude-code --payload $WORK/auto.json")
  before_edit+=("before: assent-gate (edit + diff)" "$BEFORE_GATE claude-code --payload $WORK/edit.json")
  before_large+=("before: assent-gate (edit of 15,000 lines)" "$BEFORE_GATE claude-code --payload $WORK/large.json")
fi
rows=(
  "floor: /bin/true" "/bin/true"
  "floor: static C, one submit (auto)" "$WORK/post_floor $WORK/auto.http $PORT"
  "${before_auto[@]}"
  "before: assent gate (auto)" "$BEFORE gate claude-code --payload $WORK/auto.json"
  "assent gate (auto)" "$BIN gate claude-code --payload $WORK/auto.json"
  "assent-gate (auto)" "$FAST claude-code --payload $WORK/auto.json"
  "python hook (auto)" "$PY crates/assent-cli/benches/python_hook.py $WORK/auto.json"
  "${before_edit[@]}"
  "before: assent gate (edit + diff)" "$BEFORE gate claude-code --payload $WORK/edit.json"
  "assent-gate (edit + diff)" "$FAST claude-code --payload $WORK/edit.json"
  "${before_large[@]}"
  "assent-gate (edit of 15,000 lines)" "$FAST claude-code --payload $WORK/large.json"
)
args=()
if [ -n "${INTERLEAVED:-}" ]; then
  for ((i = 0; i < ${#rows[@]}; i += 2)); do args+=("${rows[i]}=${rows[i + 1]}"); done
  python3 crates/assent-cli/benches/interleaved.py --warmup "${WARMUP:-10}" --rounds "${RUNS:-50}" "${args[@]}"
else
  for ((i = 0; i < ${#rows[@]}; i += 2)); do args+=(-n "${rows[i]}" "${rows[i + 1]}"); done
  hyperfine -N --warmup "${WARMUP:-10}" --runs "${RUNS:-50}" --export-json "${BENCH_JSON:-/dev/null}" "$@" "${args[@]}"
fi
