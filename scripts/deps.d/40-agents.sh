#!/usr/bin/env bash
# The real coding-agent CLIs the end-to-end tests drive (crates/assent-cli/tests/cli/agents_*.rs):
# Claude Code and Codex, pinned in tests/agents/package-lock.json, installed with npm ci into
# tests/agents/node_modules. Both npm packages ship native binaries. Skipped when the pinned
# versions are already there.
set -euo pipefail
cd "$(dirname "$0")/../../tests/agents"
want_claude=$(node -p 'require("./package.json").dependencies["@anthropic-ai/claude-code"]')
want_codex=$(node -p 'require("./package.json").dependencies["@openai/codex"]')
have_claude=$(node_modules/.bin/claude --version 2>/dev/null || true)
have_codex=$(node_modules/.bin/codex --version 2>/dev/null || true)
if [[ "$have_claude" == "$want_claude "* && "$have_codex" == *" $want_codex" ]]; then
  exit 0
fi
echo "==> installing the pinned agent CLIs (claude-code $want_claude, codex $want_codex)"
npm ci --no-audit --no-fund --loglevel=error
