#!/usr/bin/env bash
# scripts/setup.sh ends by saying when ~/.local/bin (where it installs `assent`) is not on PATH,
# with the line to add: on a fresh Debian machine the README's next command otherwise fails with
# "assent: command not found". This runs the hint itself in a clean environment, both ways.
set -euo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "FAIL: $*" >&2; exit 1; }
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
bin="$home/.local/bin"
mkdir -p "$bin"
printf '#!/bin/sh\necho assent-found\n' >"$bin/assent"
chmod +x "$bin/assent"

hint() { # PATH SHELL → the hint's output
  env -i HOME="$home" PATH="$1" SHELL="$2" bash -c '. scripts/lib/path-hint.sh && path_hint "$HOME/.local/bin"'
}

out="$(hint /usr/bin:/bin /bin/bash)"
grep -q "is not on your PATH" <<<"$out" || fail "a PATH without $bin must be named as the reason: $out"
grep -qF ">> $home/.bashrc" <<<"$out" || fail "a bash user is told to add the line to ~/.bashrc: $out"
# The printed line must really work: run it in a fresh shell and find the installed assent there.
line="$(grep -F 'export PATH=' <<<"$out" | tail -n 1 | sed 's/^ *//')"
found="$(env -i HOME="$home" PATH=/usr/bin:/bin bash -c "$line; assent")"
[ "$found" = assent-found ] || fail "the printed line '$line' must put assent on PATH, got '$found'"

out="$(hint /usr/bin:/bin /usr/bin/zsh)"
grep -qF ">> $home/.zshrc" <<<"$out" || fail "a zsh user is told to add the line to ~/.zshrc: $out"

out="$(hint "$bin:/usr/bin:/bin" /bin/bash)"
[ -z "$out" ] || fail "nothing is said when $bin is already on PATH: $out"
grep -q 'path_hint "\$bin"' scripts/setup.sh || fail "setup.sh must end with the PATH hint"
echo "setup PATH hint: ok"
