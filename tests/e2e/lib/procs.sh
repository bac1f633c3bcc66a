# Process helpers shared by tests/e2e/measure.sh and src-tauri/bench/floor.sh (sourced).

# Every process below PID, children before their own children.
descendants() {
  local child
  for child in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
    echo "$child"
    descendants "$child"
  done
}

# PID's proportional set size in KiB (0 once it is gone).
pss_kb() {
  local kb
  kb=$(awk '/^Pss:/ {print $2}' /proc/"$1"/smaps_rollup 2>/dev/null || echo 0)
  echo "${kb:-0}"
}
