#!/usr/bin/env bash
# Builds Assent's .deb: the desktop app (assent-desktop, the tray that embeds the service), its
# window (assent-window), the CLI (assent) and its fast hook gate (assent-gate), the app-menu entry, icons and a systemd user unit
# for `assent serve`. Uses the Tauri bundler (packaging/package.json pins it).
#
#   scripts/package.sh            release build → target/package/assent_<version>_<arch>.deb
#   scripts/package.sh --debug    bundle the debug build instead (what the test suite installs:
#                                 it reuses the binaries the tests built, in seconds)
#   scripts/package.sh --out DIR  where the .deb goes (default target/package)
#
# Install it with `sudo apt-get install ./target/package/assent_*.deb` (apt pulls in WebKitGTK).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

profile=release
out="$root/target/package"
while [ $# -gt 0 ]; do
  case "$1" in
    --debug) profile=debug ;;
    --out) out="$(realpath -m "${2:?--out needs a directory}")"; shift ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "package.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done

if [ ! -f ui/dist/index.html ]; then
  echo "==> ui: npm ci && npm run build (the window embeds ui/dist)"
  (cd ui && npm ci --no-audit --no-fund --loglevel=error && npm run build)
fi

cargo_profile=()
[ "$profile" = release ] && cargo_profile=(--release)
echo "==> cargo build ($profile): assent, assent-gate, assent-desktop, assent-window"
cargo build "${cargo_profile[@]}" --locked -p assent-cli -p assent-desktop
cargo build "${cargo_profile[@]}" --locked -p assent-window --features custom-protocol
# The gate every tool call starts (crate assent-gate): static and at a fixed address (no
# loader, no libc.so), last,
# since a plain `cargo build` puts the dynamic one back.
./scripts/build-gate.sh "${cargo_profile[@]}"

# The build lands where cargo puts it (CARGO_TARGET_DIR, as scripts/setup.sh reads it).
bin="${CARGO_TARGET_DIR:-$root/target}/$profile"
for b in assent assent-gate assent-desktop assent-window; do
  [ -x "$bin/$b" ] || { echo "package.sh: $bin/$b was not built" >&2; exit 1; }
done

echo "==> the Tauri bundler (packaging/package.json)"
(cd packaging && npm ci --no-audit --no-fund --loglevel=error)

version="$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' src-tauri/tauri.conf.json | head -n 1)"
overlay="$(mktemp --suffix=.json)"
trap 'rm -f "$overlay"' EXIT
# The bundler packs assent-window (the Tauri binary) itself; the rest are extra files.
cat >"$overlay" <<JSON
{
  "bundle": {
    "active": true,
    "targets": ["deb"],
    "publisher": "Assent",
    "category": "DeveloperTool",
    "shortDescription": "Approval desk for AI coding agents",
    "longDescription": "Assent sits between coding agents (Claude Code, Codex, any CLI) and your machine: a policy answers what is clearly safe or forbidden, the rest reaches you as a notification and in a tray app, and your answer goes back to the agent as a scoped, expiring grant.",
    "linux": {
      "deb": {
        "section": "devel",
        "priority": "optional",
        "desktopTemplate": "$root/packaging/assent.desktop",
        "files": {
          "/usr/bin/assent": "$bin/assent",
          "/usr/bin/assent-gate": "$bin/assent-gate",
          "/usr/bin/assent-desktop": "$bin/assent-desktop",
          "/usr/lib/systemd/user/assent.service": "$root/packaging/assent.service",
          "/usr/share/doc/assent/README.md": "$root/README.md",
          "/usr/share/doc/assent/docs": "$root/docs"
        }
      }
    }
  }
}
JSON

debug_flag=()
[ "$profile" = debug ] && debug_flag=(--debug)
(cd src-tauri && "$root/packaging/node_modules/.bin/tauri" bundle --ci --bundles deb --config "$overlay" "${debug_flag[@]}")

built="$(ls -t "$bin"/bundle/deb/*.deb | head -n 1)"
arch="$(dpkg --print-architecture)"
mkdir -p "$out"
deb="$out/assent_${version}_${arch}.deb"
cp "$built" "$deb"
echo "==> $deb ($(du -h "$deb" | cut -f1))"
dpkg-deb --field "$deb" Package Version Architecture Depends
