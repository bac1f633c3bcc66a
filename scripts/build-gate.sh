#!/usr/bin/env bash
# Builds assent-gate, the hook gate every tool call of an agent starts, as a static executable
# that is not position-independent: no dynamic loader, no libc.so to map and link, none of its
# own code to relocate. Starting it then costs what starting /bin/true does, where the dynamic
# build spent most of its instructions before main (docs/benchmarks.md, "Gate").
#
#   scripts/build-gate.sh [--release]    → target/{debug,release}/assent-gate
#
# Only the gate's binary (crate assent-gate) is compiled with these flags (`cargo rustc`); its
# dependencies are built as for `cargo build -p assent-gate`, with only the features the gate
# needs. A later plain `cargo build` puts the dynamic build back at the same path; build this
# last.
#
# Host names: glibc's static resolver answers from /etc/hosts and DNS itself; a hosts line in
# /etc/nsswitch.conf naming other modules (mdns, myhostname, sss) needs the system's glibc to be
# the one this was linked with, which holds when it is built where it runs (scripts/setup.sh).
# IP addresses, such as the default http://127.0.0.1:7391, never reach the resolver.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=()
out=debug
case "${1:-}" in
  --release) profile=(--release); out=release ;;
  "") ;;
  *) echo "build-gate.sh: unknown argument '$1' (try --release)" >&2; exit 2 ;;
esac

cargo rustc "${profile[@]}" --locked -p assent-gate --bin assent-gate -- \
  -C target-feature=+crt-static -C relocation-model=static

gate="${CARGO_TARGET_DIR:-target}/$out/assent-gate"
python3 scripts/lib/static-exe.py "$gate"
echo "==> $gate: static, at a fixed address"
