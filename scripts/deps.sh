#!/usr/bin/env bash
# Installs what Assent needs to build, run and test on Debian 12 / Ubuntu 22.04+ (run as root
# or with sudo). Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

apt_packages=(
  build-essential pkg-config curl ca-certificates git
  openssl                                                  # the package test's private CA (https:// gate)
  libwebkit2gtk-4.1-dev                                    # the window (Tauri) builds against WebKitGTK
  xvfb xauth dbus webkit2gtk-driver fonts-dejavu-core      # headless desktop tests
  imagemagick                                              # screenshots of the e2e run
  x11-utils                                                # xwininfo: the tray suite sees windows
  chromium chromium-driver                                 # the web desk's browser tests (passkeys)
  bubblewrap socat                                         # `assent sandbox`, Claude Code's and Codex's sandboxes
  python3 python3-venv python3-pip nodejs npm sqlite3
)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node and Python may come from elsewhere (nvm, pyenv); only install Debian's when absent.
if command -v node >/dev/null; then missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}"); fi
if command -v python3 >/dev/null && python3 -m pip --version >/dev/null 2>&1; then
  missing=("${missing[@]/python3}"); missing=("${missing[@]/python3-venv}"); missing=("${missing[@]/python3-pip}")
fi
read -r -a missing <<<"${missing[*]}"
if [ "${#missing[@]}" -gt 0 ]; then
  echo "==> installing system packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v cargo >/dev/null; then
  echo "==> installing the Rust toolchain (rustup)"
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal -c clippy,rustfmt
  # shellcheck disable=SC1091
  . "$HOME/.cargo/env"
fi
rustup component add clippy rustfmt >/dev/null 2>&1 || true

for f in scripts/deps.d/*.sh; do
  [ -e "$f" ] || continue
  bash "$f"
done
