#!/usr/bin/env bash
# Imports run one way. The import-circle counter (scripts/dev/import-circles.py) first checks
# itself on small crates with known circles, so a change to how it follows paths cannot silently
# stop seeing a circle; then no crate may have a circle except the SQLite/Postgres store's with
# its statements (issue 43 §1 gathers those inside each backend's folder).
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 scripts/dev/import-circles.py --self-test
python3 scripts/dev/import-circles.py --check --allow store/ \
  crates/*/src src-tauri/src
