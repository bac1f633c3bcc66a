#!/usr/bin/env bash
# The MCP gate's test drives `assent gate mcp` with the official Python MCP client (PyPI
# `mcp`); the Python SDK's tests (scripts/test.d/60-sdk.sh) need pytest, the SDK's own
# dependencies (httpx, pydantic, the Standard Webhooks reference library) and, for the check that
# sdk/python's generated models are not stale, the pinned generator with its formatters. They
# live in a venv inside the repo, ignored by git (the venv ignores itself).
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
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "mcp>=1.9,<2" \
  "httpx>=0.27,<1" "pydantic>=2.7,<3" "standardwebhooks==1.3.0" "pytest==9.2.0" \
  "datamodel-code-generator==0.97.0" "black==26.10.1" "isort==8.0.1"
"$VENV/bin/python" -c "import mcp, pytest, standardwebhooks, datamodel_code_generator; print('python mcp client, pytest and the SDK generator ready')"
