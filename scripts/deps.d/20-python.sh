#!/usr/bin/env bash
# The MCP gate's test drives `assent gate mcp` with the official Python MCP client (PyPI
# `mcp`). It lives in a venv inside the repo, ignored by git (the venv ignores itself).
set -euo pipefail
cd "$(dirname "$0")/../.."

VENV=.venv-test
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  # Debian splits venv/ensurepip into python3-venv.
  apt-get install -y --no-install-recommends python3 python3-venv
fi
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
echo '*' > "$VENV/.gitignore"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "mcp>=1.9,<2"
"$VENV/bin/python" -c "import mcp; print('python mcp client ready')"
