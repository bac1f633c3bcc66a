#!/usr/bin/env bash
# The real coding-agent CLIs the end-to-end tests drive (crates/assent-cli/tests/cli/agents_*.rs):
# Claude Code, Codex, Gemini CLI and opencode, pinned in tests/agents/package-lock.json,
# installed with npm ci into tests/agents/node_modules. Claude Code, Codex and opencode ship
# native binaries (opencode's in its optional dependency opencode-linux-x64). Skipped when the
# pinned versions are already there.
set -euo pipefail
cd "$(dirname "$0")/../../tests/agents"
want() { node -p "require('./package.json').dependencies['$1']"; }
want_claude=$(want @anthropic-ai/claude-code)
want_codex=$(want @openai/codex)
want_gemini=$(want @google/gemini-cli)
want_opencode=$(want opencode-ai)
have_claude=$(node_modules/.bin/claude --version 2>/dev/null || true)
have_codex=$(node_modules/.bin/codex --version 2>/dev/null || true)
have_gemini=$(node_modules/.bin/gemini --version 2>/dev/null || true)
have_opencode=$(node_modules/.bin/opencode --version 2>/dev/null || true)
if [[ "$have_claude" == "$want_claude "* && "$have_codex" == *" $want_codex" \
   && "$have_gemini" == "$want_gemini" && "$have_opencode" == "$want_opencode" ]]; then
  exit 0
fi
echo "==> installing the pinned agent CLIs (claude-code $want_claude, codex $want_codex," \
     "gemini-cli $want_gemini, opencode $want_opencode)"
npm ci --no-audit --no-fund --loglevel=error
