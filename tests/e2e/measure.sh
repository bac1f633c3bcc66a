#!/usr/bin/env bash
# Memory (PSS summed over the app, its window process and their WebKit children) and idle
# wake-ups (voluntary context switches of all their threads) of the desktop app, with the
# window closed and open.
# PENDING=N opens N prompts (each its own run) first; BREAKDOWN=1 lists each process's largest
# mappings by PSS.
# Usage (see docs/benchmarks.md):
#   xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- \
#     tests/e2e/measure.sh target/release/assent-desktop
set -euo pipefail
app="$(realpath "$1")"
settle="${SETTLE:-10}"
idle="${IDLE:-60}"
pending="${PENDING:-0}" # prompts opened (each its own run) before the window opens
tmp="$(mktemp -d)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
export XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config"
export ASSENT_DESKTOP_SETTINGS="$tmp/config/desktop.json" ASSENT_DESKTOP_LISTEN="127.0.0.1:$port"
unset ASSENT_URL ASSENT_TOKEN

"$app" --tray 2>"$tmp/app.log" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT

# shellcheck source=lib/procs.sh
. "$(dirname "$0")/lib/procs.sh"
procs() { echo "$pid" $(descendants "$pid"); }
pss_mib() {
  local total=0 p
  for p in $(procs); do
    total=$((total + $(pss_kb "$p")))
  done
  echo "$((total / 1024))"
}
names() { for p in $(procs); do printf '%s ' "$(cat /proc/"$p"/comm)"; done; }
# "pid/tid count" for every thread: the delta is taken over threads alive at both ends (threads
# that end in between would otherwise make the sum go down).
switches() {
  local p t
  for p in $(procs); do
    for t in /proc/"$p"/task/*; do
      echo "$p/${t##*/} $(awk '/^voluntary_ctxt_switches/ {print $2}' "$t/status" 2>/dev/null || echo 0)"
    done
  done | sort
}
woken() { join "$1" "$2" | awk '{d += $3 - $2} END {print d + 0}'; }
measure() {
  local label="$1" n
  sleep "$settle"
  echo "$label: PSS $(pss_mib) MiB over [$(names)]"
  for p in $(procs); do
    awk -v name="$(cat /proc/"$p"/comm)" '/^Pss:/ {printf "  %s Pss: %.1f MiB\n", name, $2 / 1024}
      /^Pss_(Anon|File|Shmem):/ {printf "  %s %s %.1f MiB\n", name, $1, $2 / 1024}' /proc/"$p"/smaps_rollup
  done
  if [ -n "${BREAKDOWN:-}" ]; then # the largest mappings of each process, by PSS
    for p in $(procs); do
      echo "  $(cat /proc/"$p"/comm):"
      awk '/^[0-9a-f]+-[0-9a-f]+ / {name = ($6 == "" ? "[anon]" : $6)} /^Pss:/ {sum[name] += $2}
        END {for (n in sum) if (sum[n] >= 1024) printf "    %6.1f MiB %s\n", sum[n] / 1024, n}' \
        /proc/"$p"/smaps | sort -rn | head -12
    done
  fi
  switches >"$tmp/before"
  sleep "$idle"
  switches >"$tmp/after"
  n=$(woken "$tmp/before" "$tmp/after")
  echo "$label: $n wake-ups (voluntary context switches) in ${idle} s idle ($(awk "BEGIN {printf \"%.1f\", $n / $idle}")/s)"
}

# PENDING prompts, each in its own run (so none batches with another), as a gate submits them.
submit_pending() {
  local token i
  for _ in $(seq 100); do
    token="$(cat "$tmp/data/assent/requester.token" 2>/dev/null || true)"
    [ -n "$token" ] && curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
    sleep 0.1
  done
  for i in $(seq "$pending"); do
    curl -sf -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
      -d "{\"run_id\":\"measure-$i\",\"task_id\":\"t$i\",\"requested_by\":\"agent\",\"action\":{\"kind\":\"shell\",\"command\":\"mvn -q test -Dtest=Case$i\",\"cwd\":\"$tmp\"},\"context\":{\"repo\":\"shop\"},\"reason\":\"run the tests\"}" \
      "http://127.0.0.1:$port/v1/actions" | grep -q '"pending"' || { echo "prompt $i did not open" >&2; exit 1; }
  done
  [ "$pending" -gt 0 ] && echo "opened $pending prompts"
  return 0
}

submit_pending
measure "window closed"
"$app" 2>>"$tmp/app.log" # a second launch asks the first (single instance) to open its window
measure "window open"
