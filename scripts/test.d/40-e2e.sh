#!/usr/bin/env bash
# End-to-end tests of the desktop app against the real binary and its embedded service,
# headless: Xvfb for the display, a private D-Bus session bus for notifications. Each suite
# runs alone (tauri-driver's ports are fixed). Screenshots land in docs/screenshots/.
set -euo pipefail
cd "$(dirname "$0")/../.."
export ASSENT_SCREENSHOTS="${ASSENT_SCREENSHOTS:-$PWD/docs/screenshots}"
mkdir -p "$ASSENT_SCREENSHOTS"
features="e2e"
echo "==> building the window (assent-window, embedded UI), the app and the e2e suites"
# assent-desktop starts the window binary from its own directory (target/debug).
cargo build -p assent-window --features custom-protocol --locked
cargo test -p assent-desktop --features "$features" --locked --no-run --test e2e_notifications --test e2e_webdriver --test e2e_tray --test e2e_settings --test e2e_browser --test e2e_browser_desk --test e2e_browser_push
for suite in e2e_notifications e2e_webdriver e2e_tray e2e_settings e2e_browser e2e_browser_desk e2e_browser_push; do
  echo "==> $suite (Xvfb + dbus-run-session)"
  xvfb-run -a -s "-screen 0 1280x800x24" \
    dbus-run-session -- \
    cargo test -p assent-desktop --features "$features" --locked --test "$suite" -- --test-threads=1
done
