#!/usr/bin/env bash
# Unit tests of the window's logic (Vitest). test.sh has already run `npm ci` in ui/.
set -euo pipefail
cd "$(dirname "$0")/../../ui"
npm test --silent
