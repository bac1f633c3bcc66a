#!/usr/bin/env bash
# The .deb: builds it from the test build (scripts/package.sh --debug), installs it with
# apt-get as a user would, starts the service from the installed binary, asks it one thing,
# then removes the package again. Needs root (or sudo), as the CI machine has.
set -euo pipefail
cd "$(dirname "$0")/../.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
fail() { echo "package test FAILED: $*" >&2; exit 1; }

work="$(mktemp -d)"
server_pid=""
tls_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  [ -n "$tls_pid" ] && kill "$tls_pid" 2>/dev/null || true
  if dpkg-query -W -f='${Status}' assent 2>/dev/null | grep -q "install ok installed"; then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get remove -y -qq --purge assent >/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

bash scripts/package.sh --debug --out "$work/out"
debs=("$work"/out/assent_*.deb)
[ "${#debs[@]}" -eq 1 ] && [ -f "${debs[0]}" ] || fail "package.sh must leave exactly one assent_*.deb, found: ${debs[*]}"
deb="${debs[0]}"

[ "$(dpkg-deb --field "$deb" Package)" = assent ] \
  || fail "the package must be called 'assent' so 'apt-get remove assent' finds it"
# One path per line, without the leading "./" some dpkg versions print.
contents="$(dpkg-deb --contents "$deb" | awk '{print $6}' | sed 's#^\./##')"
for f in usr/bin/assent usr/bin/assent-gate usr/bin/assent-desktop usr/bin/assent-window \
         usr/lib/systemd/user/assent.service usr/share/doc/assent/README.md \
         usr/share/doc/assent/docs/README.md usr/share/doc/assent/docs/agents.md \
         usr/share/doc/assent/docs/screenshots/pending.png; do
  grep -qx "$f" <<<"$contents" || fail "$f is missing from the package (the CLI, its fast gate, tray, window, unit, the README and the guide in docs/ all ship)"
done
grep -qx "usr/share/applications/.*\.desktop" <<<"$contents" || fail "no app-menu entry in the package"
grep -qx "usr/share/icons/hicolor/.*\.png" <<<"$contents" || fail "no icon in the package"

# A leftover install from an earlier run would make apt answer "already the newest version".
if dpkg-query -W -f='${Status}' assent 2>/dev/null | grep -q "install ok installed"; then
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get remove -y -qq --purge assent >/dev/null
fi
echo "==> apt-get install ./$(basename "$deb")"
(cd "$(dirname "$deb")" && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "./$(basename "$deb")" >/dev/null) \
  || fail "apt-get could not install the package"

for b in assent assent-gate assent-desktop assent-window; do
  [ -x "/usr/bin/$b" ] || fail "/usr/bin/$b must be installed and executable"
  missing_libs="$(ldd "/usr/bin/$b" 2>/dev/null | grep 'not found' || true)"
  [ -z "$missing_libs" ] || fail "/usr/bin/$b links libraries the package's Depends did not pull in: $missing_libs"
done
desktop_file="$(dpkg -L assent | grep 'usr/share/applications/.*\.desktop$' | head -n 1)"
grep -q '^Exec=/usr/bin/assent-desktop' "$desktop_file" \
  || fail "the app-menu entry must start the tray app (assent-desktop), which embeds the service"
grep -q '^ExecStart=/usr/bin/assent serve' /usr/lib/systemd/user/assent.service \
  || fail "the systemd user unit must run the installed 'assent serve'"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# Waits for the installed service started as PID (its log LOG) to answer URL/healthz; any more
# arguments go to curl (--cacert for https://).
await_health() {
  local pid=$1 log=$2 url=$3
  shift 3
  for _ in $(seq 1 100); do
    curl -fsS "$@" "$url/healthz" >/dev/null 2>&1 && return
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; fail "the installed 'assent serve' at $url exited at start"; }
    sleep 0.1
  done
}

# Start the service the way the unit does (no systemd here), on a free port, in a fresh data dir.
port="$(free_port)"
data="$work/data"
/usr/bin/assent serve --data-dir "$data" --listen "127.0.0.1:$port" >"$work/serve.log" 2>&1 &
server_pid=$!
url="http://127.0.0.1:$port"
await_health "$server_pid" "$work/serve.log" "$url"
health="$(curl -fsS "$url/healthz")" || { cat "$work/serve.log" >&2; fail "the installed service never answered /healthz"; }
grep -q '"ok"' <<<"$health" || fail "the installed service's health must say ok, got: $health"
[ "$(stat -c %a "$data/requester.token")" = 600 ] || fail "the requester token must be private (0600)"

# One real request through the installed CLI: a read-only command the policy allows at once.
out="$(ASSENT_URL="$url" ASSENT_TOKEN="$(cat "$data/requester.token")" /usr/bin/assent request --json -- git status)" \
  || fail "the installed CLI's request for 'git status' must be allowed (exit 0), got: $out"
grep -q '"outcome": "allowed"' <<<"$out" || fail "the installed CLI must say the read-only command is allowed, got: $out"

# The installed fast gate answers a Claude Code hook as `assent gate claude-code` does.
payload="$work/pretooluse.json"
printf '{"session_id":"pkg","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status"}}' "$work" >"$payload"
fast="$(ASSENT_URL="$url" ASSENT_TOKEN="$(cat "$data/requester.token")" /usr/bin/assent-gate claude-code --payload "$payload")" \
  || fail "the installed assent-gate must answer a hook payload (exit 0), got: $fast"
grep -q '"permissionDecision":"allow"' <<<"$fast" || fail "the installed assent-gate must allow 'git status', got: $fast"
# Every tool call starts it: the package ships the static, fixed-address build
# (scripts/build-gate.sh), which starts like /bin/true, not the dynamic one cargo leaves.
python3 scripts/lib/static-exe.py /usr/bin/assent-gate \
  || fail "the installed assent-gate must be the static build (scripts/build-gate.sh), or every tool call pays the dynamic loader"
# A static glibc resolves host names without the system's NSS modules: localhost must still work.
fast="$(ASSENT_URL="http://localhost:$port" ASSENT_TOKEN="$(cat "$data/requester.token")" /usr/bin/assent-gate claude-code --payload "$payload")" \
  || fail "the installed assent-gate must reach the service by the name localhost, got: $fast"
grep -q '"permissionDecision":"allow"' <<<"$fast" || fail "the static assent-gate must resolve localhost and be allowed 'git status', got: $fast"

# A team's service over https:// (a certificate from a private CA, ASSENT_CA_FILE): the static
# gate's TLS and name resolution, as a team member's machine runs it.
# shellcheck source=scripts/lib/private-ca.sh
. scripts/lib/private-ca.sh
private_ca "$work"
tls_port="$(free_port)"
/usr/bin/assent serve --data-dir "$work/tls-data" --listen "127.0.0.1:$tls_port" \
  --tls-cert "$work/server.pem" --tls-key "$work/server.key" >"$work/tls-serve.log" 2>&1 &
tls_pid=$!
await_health "$tls_pid" "$work/tls-serve.log" "https://localhost:$tls_port" --cacert "$work/ca.pem"
fast="$(ASSENT_URL="https://localhost:$tls_port" ASSENT_CA_FILE="$work/ca.pem" ASSENT_TOKEN="$(cat "$work/tls-data/requester.token")" \
  /usr/bin/assent-gate claude-code --payload "$payload")" || true
kill "$tls_pid"; wait "$tls_pid" 2>/dev/null || true; tls_pid=""
grep -q '"permissionDecision":"allow"' <<<"$fast" || fail "the static assent-gate must reach an https:// service trusted by ASSENT_CA_FILE and be allowed 'git status', got: $fast"

kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
DEBIAN_FRONTEND=noninteractive $SUDO apt-get remove -y -qq --purge assent >/dev/null || fail "apt-get could not remove the package"
[ ! -e /usr/bin/assent ] || fail "removing the package must remove /usr/bin/assent"
[ ! -e /usr/bin/assent-gate ] || fail "removing the package must remove /usr/bin/assent-gate"
echo "==> package: built, installed with apt-get, served a request, removed"
