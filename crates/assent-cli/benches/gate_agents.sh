#!/usr/bin/env bash
# Whole-process time of `assent gate <agent>` for each agent's own payload (a safe read the
# policy allows at once: an auto decision, a real submit each run), side by side in one
# hyperfine run against a real release `assent serve`.
# Usage: [BENCH_JSON=FILE] crates/assent-cli/benches/gate_agents.sh [hyperfine args…]
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN="${ASSENT_BIN:-${CARGO_TARGET_DIR:-target}/release/assent}"
[ -x "$BIN" ] || cargo build --release -p assent-cli
[ -x "$(dirname "$BIN")/assent-gate" ] || scripts/build-gate.sh --release
WORK="$(mktemp -d)"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
"$BIN" serve --listen "127.0.0.1:$PORT" --data-dir "$WORK/data" >"$WORK/serve.log" 2>&1 &
SERVE=$!
trap 'kill $SERVE; rm -rf "$WORK"' EXIT
export ASSENT_URL="http://127.0.0.1:$PORT"
for _ in $(seq 100); do curl -sf "$ASSENT_URL/healthz" >/dev/null && break; sleep 0.05; done
export ASSENT_TOKEN="$(cat "$WORK/data/requester.token")"
R="$WORK/repo"
mkdir -p "$R/.git" && echo "ref: refs/heads/main" >"$R/.git/HEAD"
echo "notes" >"$R/notes.txt"

# Each agent's payload as it sends it (see the gate modules); no call id where the agent has
# one, so every run is a fresh submit, not an idempotent replay.
cat >"$WORK/claude-code.json" <<J
{"session_id":"bench","transcript_path":"/tmp/t.jsonl","cwd":"$R","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cat notes.txt","description":"bench"}}
J
cat >"$WORK/gemini.json" <<J
{"session_id":"bench","transcript_path":"/tmp/t.jsonl","cwd":"$R","hook_event_name":"BeforeTool","timestamp":"2026-12-03T09:00:00.000Z","tool_name":"run_shell_command","tool_input":{"command":"cat notes.txt"}}
J
cat >"$WORK/opencode.json" <<J
{"hook_event_name":"PreToolUse","session_id":"ses_bench","cwd":"$R","tool_name":"bash","tool_input":{"command":"cat notes.txt"}}
J
cat >"$WORK/cursor.json" <<J
{"conversation_id":"conv-bench","generation_id":"gen-1","model":"gpt-5","hook_event_name":"beforeShellExecution","cursor_version":"1.7.2","workspace_roots":["$R"],"user_email":null,"transcript_path":null,"command":"cat notes.txt","cwd":"$R","sandbox":false}
J
cat >"$WORK/copilot.json" <<J
{"sessionId":"bench","timestamp":1796286216814,"cwd":"$R","toolName":"bash","toolArgs":{"command":"cat notes.txt","description":"bench"}}
J
for agent in claude-code gemini opencode cursor copilot; do
  out="$("$BIN" gate "$agent" --payload "$WORK/$agent.json")"
  grep -q '"allow"' <<<"$out" || { echo "$agent: not allowed: $out" >&2; exit 1; }
done

args=()
for agent in claude-code gemini opencode cursor copilot; do
  args+=(-n "assent gate $agent" "$BIN gate $agent --payload $WORK/$agent.json")
done
# The fast gate beside assent (what `assent install` writes when it is there), per agent.
FAST="$(dirname "$BIN")/assent-gate"
if [ -x "$FAST" ]; then
  for agent in claude-code gemini opencode cursor copilot; do
    args+=(-n "assent-gate $agent" "$FAST $agent --payload $WORK/$agent.json")
  done
fi
# -N: no shell in between; the payload comes from a file (`--payload`) because hyperfine 1.15
# has no --input (the agents pipe the same bytes to stdin).
hyperfine -N --warmup "${WARMUP:-5}" --runs "${RUNS:-30}" --export-json "${BENCH_JSON:-/dev/null}" "$@" "${args[@]}"
