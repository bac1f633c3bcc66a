#!/usr/bin/env bash
# Whole-process time of `assent gate claude-code` answering a Claude Code PreToolUse payload
# (benches/pretooluse_bash.json, an auto decision) against a release `assent serve` on
# loopback http:// and against one serving https:// (a server certificate from a private CA
# named by ASSENT_CA_FILE), side by side in one hyperfine run. With BEFORE_BIN (the gate of an
# earlier build, e.g. main's), its http:// time runs beside them: the http path must not slow.
# Usage: crates/assent-cli/benches/gate_tls.sh [hyperfine args…]
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN="${ASSENT_BIN:-${CARGO_TARGET_DIR:-target}/release/assent}"
[ -x "$BIN" ] || cargo build --release -p assent-cli
WORK="$(mktemp -d)"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# A private CA and a server certificate for localhost signed by it, as a team would make them.
# shellcheck source=scripts/lib/private-ca.sh
. scripts/lib/private-ca.sh
private_ca "$WORK"

HTTP_PORT="$(free_port)"
HTTPS_PORT="$(free_port)"
"$BIN" serve --listen "127.0.0.1:$HTTP_PORT" --data-dir "$WORK/http" >"$WORK/http.log" 2>&1 &
HTTP_PID=$!
"$BIN" serve --listen "127.0.0.1:$HTTPS_PORT" --data-dir "$WORK/https" \
  --tls-cert "$WORK/server.pem" --tls-key "$WORK/server.key" >"$WORK/https.log" 2>&1 &
HTTPS_PID=$!
trap 'kill $HTTP_PID $HTTPS_PID; rm -rf "$WORK"' EXIT
export ASSENT_CA_FILE="$WORK/ca.pem"   # read on https:// only; http:// never opens it
HTTP_URL="http://127.0.0.1:$HTTP_PORT"
HTTPS_URL="https://localhost:$HTTPS_PORT"
for _ in $(seq 100); do
  curl -sf "$HTTP_URL/healthz" >/dev/null && curl -sf --cacert "$ASSENT_CA_FILE" "$HTTPS_URL/healthz" >/dev/null && break
  sleep 0.05
done
HTTP_TOKEN="$(cat "$WORK/http/requester.token")"
HTTPS_TOKEN="$(cat "$WORK/https/requester.token")"
mkdir -p "$WORK/repo/.git" && echo "ref: refs/heads/main" >"$WORK/repo/.git/HEAD"
sed "s|@CWD@|$WORK/repo|" crates/assent-cli/benches/pretooluse_bash.json >"$WORK/payload.json"

gate() { echo "$1 gate claude-code --url $2 --token $3 --payload $WORK/payload.json"; }
for check in "$(gate "$BIN" "$HTTP_URL" "$HTTP_TOKEN")" "$(gate "$BIN" "$HTTPS_URL" "$HTTPS_TOKEN")"; do
  grep -q '"allow"' <($check) || { echo "not allowed: $check" >&2; exit 1; }
done

# -N: no shell in between. No tool_use_id in the payload: every run is a fresh submit.
BEFORE=()
if [ -n "${BEFORE_BIN:-}" ]; then
  grep -q '"allow"' <($(gate "$BEFORE_BIN" "$HTTP_URL" "$HTTP_TOKEN")) || { echo "BEFORE_BIN not allowed" >&2; exit 1; }
  BEFORE=(-n "gate http:// (before)" "$(gate "$BEFORE_BIN" "$HTTP_URL" "$HTTP_TOKEN")")
fi
hyperfine -N --warmup "${WARMUP:-20}" --min-runs "${RUNS:-300}" --export-json "${BENCH_JSON:-/dev/null}" "$@" \
  "${BEFORE[@]}" \
  -n "gate http://" "$(gate "$BIN" "$HTTP_URL" "$HTTP_TOKEN")" \
  -n "gate https://" "$(gate "$BIN" "$HTTPS_URL" "$HTTPS_TOKEN")"
