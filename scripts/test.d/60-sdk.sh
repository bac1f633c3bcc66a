#!/usr/bin/env bash
# The Python and TypeScript SDKs (sdk/) and the seed's drill (examples/agent-drill), against a
# real `assent serve` — the cargo build's binary (ASSENT_BIN), started by the tests on free
# loopback ports. Each SDK's generated wire types must match ui/openapi.json (and the TypeScript
# SDK's committed dist/ its src/); each is installed as a user would (`pip install ./sdk/python`,
# `npm install ./sdk/typescript`) and used from there. The Python side runs in the venv of
# scripts/deps.d/20-python.sh (.venv-test).
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
fail() { echo "sdk test FAILED: $*" >&2; exit 1; }

cargo build -p assent-cli --bin assent --locked
target="$(cargo metadata --format-version 1 --no-deps --locked \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
export ASSENT_BIN="$target/debug/assent"
[ -x "$ASSENT_BIN" ] || fail "no built assent at $ASSENT_BIN"

bash scripts/deps.d/20-python.sh >/dev/null
py="$root/.venv-test/bin/python"
[ -x "$py" ] || fail "no .venv-test: run scripts/deps.d/20-python.sh"

echo "==> sdk/python: models.py matches ui/openapi.json"
"$py" sdk/python/scripts/gen_models.py --check
echo "==> pip install ./sdk/python"
"$py" -m pip install --quiet --disable-pip-version-check ./sdk/python
echo "==> sdk/python: pytest"
# From sdk/python, whose sources sit under src/: the tests import the installed package.
(cd sdk/python && "$py" -m pytest -q -p no:cacheprovider tests)
echo "==> examples/agent-drill: the seed's drill (pytest)"
(cd examples/agent-drill && "$py" -m pytest -q -p no:cacheprovider test_drill.py)

# The same SDK tests and drill on the other store: a throwaway PostgreSQL cluster (initdb as the
# postgres user, as crates/assent-test-support/src/pg.rs does; 127.0.0.1 only, a free port),
# one fresh database per service, identities made with `assent people|agents add --database`.
pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
[ -x "$pg_bin/initdb" ] || fail "no PostgreSQL in /usr/lib/postgresql: run scripts/deps.d/30-postgres.sh"
pg_dir="$(mktemp -d)"
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" -ne 0 ] || chown postgres "$pg_dir"
pg_stop() { as_pg "$pg_bin/pg_ctl" -D "$pg_dir/pg" stop -m immediate >/dev/null 2>&1 || true; rm -rf "$pg_dir"; }
trap pg_stop EXIT
as_pg "$pg_bin/initdb" -D "$pg_dir/pg" -A trust -U assent --no-sync -E UTF8 >/dev/null
pg_port="$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
as_pg "$pg_bin/pg_ctl" -D "$pg_dir/pg" -l "$pg_dir/pg.log" -w \
  -o "-p $pg_port -k $pg_dir -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
echo "==> sdk/python and the drill on PostgreSQL (127.0.0.1:$pg_port)"
(cd sdk/python && ASSENT_TEST_PG="postgres://assent@127.0.0.1:$pg_port" ASSENT_TEST_PG_BIN="$pg_bin" \
  "$py" -m pytest -q -p no:cacheprovider tests/test_client.py)
(cd examples/agent-drill && ASSENT_TEST_PG="postgres://assent@127.0.0.1:$pg_port" ASSENT_TEST_PG_BIN="$pg_bin" \
  "$py" -m pytest -q -p no:cacheprovider test_drill.py)
pg_stop
trap - EXIT

echo "==> sdk/typescript: npm ci, api.gen.ts matches ui/openapi.json, dist/ matches src/, node --test"
(cd sdk/typescript && npm ci --no-audit --no-fund --loglevel=error && npm run gen:check --silent \
  && npm run build:check --silent && node --test test/)

echo "==> npm install ./sdk/typescript in a fresh project (a copy of the package, as cloned)"
consumer="$(mktemp -d)"
trap 'rm -rf "$consumer"' EXIT
mkdir -p "$consumer/sdk"
tar -C sdk --exclude=node_modules -cf - typescript | tar -C "$consumer/sdk" -xf -
(cd "$consumer" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error ./sdk/typescript)
(cd "$consumer" && node --input-type=module -e "
import { Client, verifyWebhook, WebhookVerificationFailed } from 'assent-sdk';
if (typeof Client !== 'function') throw new Error('the installed package exports Client');
try {
  verifyWebhook('whsec_' + Buffer.alloc(32, 1).toString('base64'), '{}', { 'webhook-id': 'x', 'webhook-timestamp': '1', 'webhook-signature': 'v1,AAAA' });
  throw new Error('a forged webhook must not verify');
} catch (err) {
  if (!(err instanceof WebhookVerificationFailed)) throw err;
}
console.log('npm install ./sdk/typescript: ok');
") || fail "the package npm installed from sdk/typescript does not work"
echo "==> sdk: ok"
