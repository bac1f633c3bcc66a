#!/usr/bin/env bash
# The desktop app's end-to-end tests drive the window through tauri-driver (WebDriver), which
# starts WebKitWebDriver (Debian package webkit2gtk-driver, installed by deps.sh).
set -euo pipefail
cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
if ! command -v tauri-driver >/dev/null && [ ! -x "$cargo_bin/tauri-driver" ]; then
  echo "==> installing tauri-driver"
  cargo install tauri-driver --locked --version '^2'
fi
