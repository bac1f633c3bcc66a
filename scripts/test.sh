#!/usr/bin/env bash
# The whole test suite: formatting, lints, unit/property/integration tests, then each
# suite in scripts/test.d/ (UI, end-to-end). Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
# A one-shot build gains nothing from incremental caches; they would double the target dir.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

if [ -f ui/package.json ]; then
  # The desktop crate embeds ui/dist at compile time, so the UI is built before any cargo step.
  echo "==> ui: npm ci && npm run build"
  (cd ui && npm ci --no-audit --no-fund --loglevel=error && npm run build)
fi
echo "==> cargo fmt --check"
cargo fmt --all --check
echo "==> cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
# The end-to-end suites and the notify bench need the e2e feature to compile at all.
cargo clippy -p assent-desktop --features e2e --all-targets --locked -- -D warnings
# The real-agent tests (crates/assent-cli/tests/cli/agents_*.rs) drive the pinned agent CLIs.
bash scripts/deps.d/40-agents.sh
echo "==> cargo test"
cargo test --workspace --locked

for f in scripts/test.d/*.sh; do
  [ -e "$f" ] || continue
  echo "==> $f"
  bash "$f"
done
echo "==> all tests passed"
