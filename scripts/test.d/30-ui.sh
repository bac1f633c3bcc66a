#!/usr/bin/env bash
# The window's generated wire types match ui/openapi.json (the Rust test openapi.rs checks
# that file against the service), then unit tests of the window's logic (Vitest).
# test.sh has already run `npm ci` in ui/.
set -euo pipefail
cd "$(dirname "$0")/../../ui"
npm run gen:check --silent
npm test --silent
