#!/usr/bin/env bash
# The floor of a Tauri 2 window here: PSS summed over a window process showing an empty page
# (src-tauri/examples/blank_window.rs: assent-window's size and process defaults, no page, no
# commands) and its WebKit children, ROUNDS times, each a fresh process. PAGE: none for the
# empty page the example serves itself; `app:index.html` for the desk's page without its data
# (no bridge); any URL (`about:blank` starts no web process). Compare with
# tests/e2e/measure.sh's "window open" figure for the desk's window (docs/benchmarks.md,
# "Window memory and the Tauri floor").
# Usage:
#   cargo build --release --locked -p assent-window --features custom-protocol --example blank_window
#   xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- src-tauri/bench/floor.sh \
#     target/release/examples/blank_window [PAGE]
set -euo pipefail
app="$(realpath "$1")"
page=("${@:2}")
settle="${SETTLE:-8}"
rounds="${ROUNDS:-3}"

# shellcheck source=../../tests/e2e/lib/procs.sh
. "$(dirname "$0")/../../tests/e2e/lib/procs.sh"

for round in $(seq "$rounds"); do
  "$app" "${page[@]}" 2>/dev/null &
  pid=$!
  sleep "$settle"
  total=0
  line=""
  for p in "$pid" $(descendants "$pid"); do
    kb=$(pss_kb "$p")
    total=$((total + kb))
    line+="$(cat /proc/"$p"/comm 2>/dev/null || echo gone) $((kb / 1024)) MiB, "
  done
  echo "round $round: PSS $((total / 1024)) MiB over [${line%, }]"
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
done
