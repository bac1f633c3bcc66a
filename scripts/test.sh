#!/usr/bin/env bash
# The whole test suite: formatting, lints, unit/property/integration tests, then each
# suite in scripts/test.d/ (UI, end-to-end). Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "==> cargo fmt --check"
cargo fmt --all --check
echo "==> cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "==> cargo test"
cargo test --workspace --locked

for f in scripts/test.d/*.sh; do
  [ -e "$f" ] || continue
  echo "==> $f"
  bash "$f"
done
echo "==> all tests passed"
