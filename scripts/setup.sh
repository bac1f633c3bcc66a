#!/usr/bin/env bash
# The README's first command: installs what Assent needs (scripts/deps.sh), builds the window's
# UI, the desktop app (the tray process and its window process, embedded UI), the `assent`
# CLI and its fast hook gate `assent-gate`, then starts the desk in the
# tray, embedding the service on 127.0.0.1:7391. Without a display it starts `assent serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

./scripts/deps.sh
# shellcheck disable=SC1091
[ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"

echo "==> building the window (ui/)"
(cd ui && npm ci --no-audit --no-fund --loglevel=error && npm run build)
echo "==> building assent-desktop, assent-window, assent and assent-gate (optimised; ~15-25 min the first time on 2 cores)"
# The desktop app uses the size-optimised `desktop` profile (Cargo.toml): a tray idling all day
# maps fewer pages (docs/benchmarks.md); the CLI and service keep the speed-optimised release.
# assent-desktop (tray, notifications, embedded service) starts assent-window (the Tauri
# window) from its own directory on Open.
cargo build --profile desktop --locked -p assent-desktop -p assent-window --features assent-window/custom-protocol
cargo build --release --locked -p assent-cli
# The gate every tool call starts (crate assent-gate): static and at a fixed address, so it
# starts like /bin/true.
./scripts/build-gate.sh --release
target_root="${CARGO_TARGET_DIR:-$root/target}"
target="$target_root/release"
desktop="$target_root/desktop/assent-desktop"

bin="$HOME/.local/bin"
mkdir -p "$bin"
# assent is copied, not linked into target/: Claude Code's hooks name this path (`assent install
# claude-code`) and must not change or vanish with a rebuild or `cargo clean`. The copy replaces
# the old one by a rename, so a gate running at that moment keeps its binary.
# assent-gate (the hook gates alone, a small binary every tool call starts quickly) goes beside
# it: `assent install` names it when it is there.
for b in assent assent-gate; do
  install -m 0755 "$target/$b" "$bin/.$b.new"
  mv -f "$bin/.$b.new" "$bin/$b"
done
# assent-desktop stays a link: it starts assent-window from the directory it really lives in.
ln -sf "$desktop" "$bin/assent-desktop"
echo "==> installed assent, assent-gate and assent-desktop in $bin (its window: $target_root/desktop/assent-window)"
# shellcheck source=scripts/lib/path-hint.sh
. "$root/scripts/lib/path-hint.sh"

# The app menu entry (its name is also the `desktop-entry` hint of every notification).
apps="${XDG_DATA_HOME:-$HOME/.local/share}/applications"
mkdir -p "$apps"
cat >"$apps/assent-desktop.desktop" <<EOF
[Desktop Entry]
Type=Application
Name=Assent
Comment=Approve what your coding agents want to run
Exec=$bin/assent-desktop
Icon=$root/icons/app.png
Categories=Development;
StartupNotify=false
EOF
echo "==> app menu entry: $apps/assent-desktop.desktop"

log_dir="${XDG_STATE_HOME:-$HOME/.local/state}/assent"
mkdir -p "$log_dir"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  nohup "$desktop" >"$log_dir/desktop.log" 2>&1 &
  echo "==> Assent is running (pid $!): tray icon + window, service on http://127.0.0.1:7391"
  echo "    log: $log_dir/desktop.log; quit from the tray menu"
else
  echo "==> no DISPLAY: the desktop app needs a graphical session."
  echo "    Starting the service alone instead: assent serve (http://127.0.0.1:7391)"
  nohup "$target/assent" serve >"$log_dir/serve.log" 2>&1 &
  echo "    pid $!; log: $log_dir/serve.log"
fi
# Last, so it is what the person reads: ~/.local/bin is often not on PATH in a fresh shell.
path_hint "$bin"
