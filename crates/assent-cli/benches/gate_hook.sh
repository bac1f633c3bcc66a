#!/usr/bin/env bash
# Whole-process time of `assent gate claude-code` (auto decision, grant hit) against a minimal
# Python hook making the same HTTP call, side by side in one hyperfine run against a real
# release `assent serve`. Usage: crates/assent-cli/benches/gate_hook.sh [hyperfine args…]
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN="${ASSENT_BIN:-${CARGO_TARGET_DIR:-target}/release/assent}"
PY="$(python3 -c 'import sys; print(sys.executable)')"   # the interpreter itself, not a shim
[ -x "$BIN" ] || cargo build --release -p assent-cli
WORK="$(mktemp -d)"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
"$BIN" serve --listen "127.0.0.1:$PORT" --data-dir "$WORK/data" >"$WORK/serve.log" 2>&1 &
SERVE=$!
trap 'kill $SERVE; rm -rf "$WORK"' EXIT
export ASSENT_URL="http://127.0.0.1:$PORT"
for _ in $(seq 100); do curl -sf "$ASSENT_URL/healthz" >/dev/null && break; sleep 0.05; done
export ASSENT_TOKEN="$(cat "$WORK/data/requester.token")"
APPROVER="$(cat "$WORK/data/approver.token")"
mkdir -p "$WORK/repo/.git" && echo "ref: refs/heads/main" >"$WORK/repo/.git/HEAD"

# No tool_use_id: every run is a fresh submit (an idempotent replay would be cheaper).
hook() { printf '{"session_id":"bench","transcript_path":"/tmp/t.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"%s","description":"bench"}}' "$WORK/repo" "$1"; }
hook "git status" >"$WORK/auto.json"
hook "cargo test" >"$WORK/grant.json"

# A person approves `cargo test` for the run once; later runs are grant hits.
"$BIN" gate claude-code --wait 0.1 <"$WORK/grant.json" >/dev/null || true
ID="$(curl -sf -H "Authorization: Bearer $APPROVER" "$ASSENT_URL/v1/approvals?status=pending" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["approvals"][0]["approval_id"])')"
curl -sf -H "Authorization: Bearer $APPROVER" -H 'Content-Type: application/json' \
  -d '{"decision":"approve","scope":"run","expires_in_seconds":3600}' "$ASSENT_URL/v1/approvals/$ID/decision" >/dev/null
grep -q '"allow"' <("$BIN" gate claude-code <"$WORK/grant.json") || { echo "grant hit not allowed" >&2; exit 1; }
grep -q '"allow"' <("$BIN" gate claude-code <"$WORK/auto.json") || { echo "auto not allowed" >&2; exit 1; }
grep -q '"allow"' <("$PY" crates/assent-cli/benches/python_hook.py <"$WORK/auto.json") || { echo "python hook not allowed" >&2; exit 1; }

# -N: no shell in between; the payload comes from a file (`--payload`, argv[1] for Python)
# because hyperfine 1.15 has no --input.
hyperfine -N --warmup "${WARMUP:-20}" --min-runs "${RUNS:-300}" --export-json "${BENCH_JSON:-/dev/null}" "$@" \
  -n "assent gate (auto)" "$BIN gate claude-code --payload $WORK/auto.json" \
  -n "assent gate (grant hit)" "$BIN gate claude-code --payload $WORK/grant.json" \
  -n "python hook (auto)" "$PY crates/assent-cli/benches/python_hook.py $WORK/auto.json"
