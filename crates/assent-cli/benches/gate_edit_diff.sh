#!/usr/bin/env bash
# Whole-process time of `assent gate claude-code` with and without an edit diff, in a real git
# repository against a real release `assent serve`: a Read (auto; the gate reads HEAD only), an
# Edit of a 300-line file and a Write replacing a 3,000-line file (auto; the gate also reads
# the file, applies the edit, diffs, masks and fingerprints).
# Usage: crates/assent-cli/benches/gate_edit_diff.sh [hyperfine args…]
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN="${ASSENT_BIN:-${CARGO_TARGET_DIR:-target}/release/assent}"
[ -x "$BIN" ] || cargo build --release -p assent-cli
WORK="$(mktemp -d)"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
"$BIN" serve --listen "127.0.0.1:$PORT" --data-dir "$WORK/data" >"$WORK/serve.log" 2>&1 &
SERVE=$!
trap 'kill $SERVE; rm -rf "$WORK"' EXIT
export ASSENT_URL="http://127.0.0.1:$PORT"
for _ in $(seq 100); do curl -sf "$ASSENT_URL/healthz" >/dev/null && break; sleep 0.05; done
export ASSENT_TOKEN="$(cat "$WORK/data/requester.token")"

REPO="$WORK/repo"
mkdir -p "$REPO/src"
git -C "$REPO" init -q
python3 - "$REPO" <<'PY'
import sys
repo = sys.argv[1]
with open(f"{repo}/src/lib.rs", "w") as f:
    for i in range(100):
        f.write(f"pub fn f{i}(x: i32) -> i32 {{\n    x + {i}\n}}\n")
with open(f"{repo}/src/big.rs", "w") as f:
    for i in range(3000):
        f.write(f"pub const C{i}: u32 = {i};\n")
PY
git -C "$REPO" -c user.name=b -c user.email=b@example.invalid add -A
git -C "$REPO" -c user.name=b -c user.email=b@example.invalid commit -qm bench

python3 - "$REPO" "$WORK" <<'PY'
import json, sys
repo, work = sys.argv[1], sys.argv[2]
def hook(tool, tool_input):
    return {"session_id": "bench", "transcript_path": "/tmp/t.jsonl", "cwd": repo,
            "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": tool_input}
big = "".join(f"pub const C{i}: u32 = {i * 2 if i % 100 == 0 else i};\n" for i in range(3000))
payloads = {
    "read": hook("Read", {"file_path": f"{repo}/src/lib.rs"}),
    "edit": hook("Edit", {"file_path": f"{repo}/src/lib.rs", "old_string": "    x + 50\n", "new_string": "    x.wrapping_add(50)\n"}),
    "write": hook("Write", {"file_path": f"{repo}/src/big.rs", "content": big}),
}
for name, payload in payloads.items():
    with open(f"{work}/{name}.json", "w") as f:
        json.dump(payload, f)
PY
for p in read edit write; do
  grep -q '"allow"' <("$BIN" gate claude-code --payload "$WORK/$p.json") || { echo "$p not allowed" >&2; exit 1; }
done

hyperfine -N --warmup "${WARMUP:-20}" --min-runs "${RUNS:-300}" --export-json "${BENCH_JSON:-/dev/null}" "$@" \
  -n "gate Read (base_sha only)" "$BIN gate claude-code --payload $WORK/read.json" \
  -n "gate Edit (300-line file, diff)" "$BIN gate claude-code --payload $WORK/edit.json" \
  -n "gate Write (3,000-line file, 30 lines changed)" "$BIN gate claude-code --payload $WORK/write.json"
