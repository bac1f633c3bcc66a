#!/usr/bin/env bash
# The real coding-agent CLIs the end-to-end tests drive (crates/assent-cli/tests/cli/agents_*.rs):
# Claude Code, Codex, Gemini CLI, opencode and GitHub Copilot CLI, pinned in
# tests/agents/package.json and package-lock.json, installed into tests/agents/node_modules.
# Claude Code, Codex, opencode and Copilot ship native binaries in optional dependencies
# (opencode's in opencode-linux-x64, Copilot's in @github/copilot-linux-x64). Skipped when the
# pinned versions are already there; checked again after the install.
#
# `npm install --no-save`, not `npm ci`: the registry these machines reach lacks opencode's
# packages for other platforms (opencode-darwin-arm64 …), so the lock cannot list them and
# `npm ci` refuses a lock that misses an optional dependency. `npm install` with the lock present
# installs exactly the locked versions and, with --no-save, writes neither file.
set -euo pipefail
cd "$(dirname "$0")/../../tests/agents"
want() { node -p "require('./package.json').dependencies['$1']"; }
want_claude=$(want @anthropic-ai/claude-code)
want_codex=$(want @openai/codex)
want_gemini=$(want @google/gemini-cli)
want_opencode=$(want opencode-ai)
want_copilot=$(want @github/copilot)
pinned() {
  local claude codex gemini opencode copilot
  claude=$(node_modules/.bin/claude --version 2>/dev/null || true)
  codex=$(node_modules/.bin/codex --version 2>/dev/null || true)
  gemini=$(node_modules/.bin/gemini --version 2>/dev/null || true)
  opencode=$(node_modules/.bin/opencode --version 2>/dev/null || true)
  copilot=$(COPILOT_AUTO_UPDATE=false node_modules/.bin/copilot --version 2>/dev/null | head -1 || true)
  local ok=0
  [[ "$claude" == "$want_claude "* ]] || { echo "claude-code: want $want_claude, have '${claude}'"; ok=1; }
  [[ "$codex" == *" $want_codex" ]] || { echo "codex: want $want_codex, have '${codex}'"; ok=1; }
  [[ "$gemini" == "$want_gemini" ]] || { echo "gemini-cli: want $want_gemini, have '${gemini}'"; ok=1; }
  [[ "$opencode" == "$want_opencode" ]] || { echo "opencode: want $want_opencode, have '${opencode}'"; ok=1; }
  [[ "$copilot" == "GitHub Copilot CLI $want_copilot." ]] || { echo "copilot: want $want_copilot, have '${copilot}'"; ok=1; }
  return $ok
}
if pinned >/dev/null; then
  exit 0
fi
echo "==> installing the pinned agent CLIs (claude-code $want_claude, codex $want_codex," \
     "gemini-cli $want_gemini, opencode $want_opencode, copilot $want_copilot)"
npm install --no-save --no-audit --no-fund --loglevel=error
if ! pinned; then
  echo "the agent CLIs in tests/agents/node_modules are not the pinned versions" >&2
  exit 1
fi
