// A real `assent serve` on a free loopback port, in a fresh data dir, for the tests; and the
// person's side (approve, deny) as plain HTTP with the approver token. The binary is the cargo
// build's (ASSENT_BIN, set by scripts/test.d/60-sdk.sh).
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, accessSync, constants } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function assentBin() {
  const bin = process.env.ASSENT_BIN ?? '';
  try {
    accessSync(bin, constants.X_OK);
  } catch {
    throw new Error('ASSENT_BIN must name the built `assent` binary (scripts/test.d/60-sdk.sh sets it)');
  }
  return bin;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export async function startService(policy) {
  const dir = mkdtempSync(join(tmpdir(), 'assent-sdk-ts-'));
  const port = await freePort();
  const args = ['serve', '--data-dir', join(dir, 'data'), '--listen', `127.0.0.1:${port}`];
  if (policy !== undefined) {
    writeFileSync(join(dir, 'policy.toml'), policy);
    args.push('--policy', join(dir, 'policy.toml'));
  }
  const url = `http://127.0.0.1:${port}`;
  let child;
  let exited = false;
  const spawnService = async () => {
    const log = openSync(join(dir, 'serve.log'), 'a');
    child = spawn(assentBin(), args, { stdio: ['ignore', log, log] });
    exited = false;
    child.on('exit', () => { exited = true; });
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        if ((await fetch(`${url}/healthz`)).ok) break;
      } catch {
        // not yet listening
      }
      if (exited || Date.now() > deadline) throw new Error(`assent serve did not start: ${readFileSync(join(dir, 'serve.log'), 'utf8')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const terminate = async () => {
    if (!exited) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    }
  };
  await spawnService();
  const requester = readFileSync(join(dir, 'data', 'requester.token'), 'utf8').trim();
  const approver = readFileSync(join(dir, 'data', 'approver.token'), 'utf8').trim();
  const person = async (method, path, body) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${approver}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} as the person: ${response.status} ${text}`);
    return JSON.parse(text);
  };
  return {
    url,
    requester,
    approver,
    approve: (id, scope = 'once') => person('POST', `/v1/approvals/${id}/decision`, { decision: 'approve', scope, expires_in_seconds: 600 }),
    deny: (id, reason) => person('POST', `/v1/approvals/${id}/decision`, { decision: 'deny', reason }),
    approvalsOfRun: async (runId) => {
      const body = await person('GET', '/v1/approvals');
      const list = Array.isArray(body) ? body : body.approvals;
      return list.filter((a) => a.run_id === runId);
    },
    /** Stops the service and starts it again on the same port and data dir. */
    async restart() {
      await terminate();
      await spawnService();
    },
    async stop() {
      await terminate();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An agent's request to run `command` (an `npm test` in an unknown repo asks a person). */
export function shell(runId, command, cwd = '/home/dev/shop') {
  return {
    run_id: runId,
    task_id: 'task-1',
    requested_by: 'agent',
    action: { kind: 'shell', command, cwd },
    context: { repo: cwd, repo_trust: 'unknown' },
    reason: 'run the tests',
  };
}
