// The SDK against a real `assent serve`: a submission's answer, a person's decision and the
// timeout fallback reach the agent as values, by long-poll and by the event stream.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { Client, ServiceError, WebhookVerificationFailed } from 'assent-sdk';

import { shell, startService } from './service.mjs';

describe('against assent serve', () => {
  let service;
  let client;
  before(async () => {
    service = await startService();
    client = new Client({ url: service.url, token: service.requester });
  });
  after(async () => service.stop());

  test('an action the policy allows is allowed', async () => {
    const answer = await client.submit(shell('run-ok', 'git status'));
    assert.equal(answer.kind, 'allowed', `a read-only git status is allowed at once: ${JSON.stringify(answer)}`);
  });

  test('a pending action is granted by long-poll and the grant covers the retry', async () => {
    const answer = await client.submit(shell('run-a', 'npm test'), { idempotencyKey: 'k-1' });
    assert.equal(answer.kind, 'pending', 'npm test in an unknown repo asks a person');
    const waiting = client.waitForDecision(answer.approvalId, { timeoutMs: 30_000 });
    await service.approve(answer.approvalId, 'run');
    const decision = await waiting;
    assert.equal(decision.kind, 'granted', `the approval is a granted value: ${decision.kind}`);
    assert.ok(decision.grantId, 'an approval for the run comes with its grant');
    assert.equal(decision.decidedBy, 'owner', 'it names who approved');
    assert.equal(decision.scope, 'run', 'the grant is for the run');
    const again = await client.submit(shell('run-a', 'npm test'), { idempotencyKey: 'k-2' });
    assert.equal(again.kind, 'allowed', 'the run grant covers the retry, without a second prompt');
    assert.equal(again.grantId, decision.grantId, 'by that grant');
  });

  test('an idempotency key answers the same prompt and refuses another body', async () => {
    const first = await client.submit(shell('run-i', 'npm test'), { idempotencyKey: 'same' });
    const second = await client.submit(shell('run-i', 'npm test'), { idempotencyKey: 'same' });
    assert.equal(first.kind, 'pending');
    assert.equal(second.kind, 'pending');
    assert.equal(first.approvalId, second.approvalId, 'a retry under the same key is the same request, never a second prompt');
    await assert.rejects(
      client.submit(shell('run-i', 'npm run build'), { idempotencyKey: 'same' }),
      (err) => err instanceof ServiceError && err.code === 'unprocessable',
      'the key reused with another request is refused with a stable code',
    );
    assert.equal((await service.approvalsOfRun('run-i')).length, 1, 'one prompt for the run');
  });

  test('a wait resumes in another client and a denial carries the reason', async () => {
    const answer = await client.submit(shell('run-d', 'npm test'));
    assert.equal(answer.kind, 'pending');
    const early = await client.waitForDecision(answer.approvalId, { timeoutMs: 1000 });
    assert.equal(early.kind, 'still_pending', 'nothing decided yet');
    await service.deny(answer.approvalId, 'not on the release branch');
    const later = new Client({ url: service.url, token: service.requester });
    const decision = await later.waitForDecision(answer.approvalId, { timeoutMs: 30_000 });
    assert.equal(decision.kind, 'denied', 'a denial is a denied value');
    assert.equal(decision.reason, 'not on the release branch', "with the person's own words");
  });

  test('the event stream brings the decision and resumes after an id', async () => {
    const answer = await client.submit(shell('run-e', 'npm test'));
    assert.equal(answer.kind, 'pending');
    await service.approve(answer.approvalId);
    const seen = [];
    const stop = new AbortController();
    // From id 0: everything the agent's stream holds, so the prompt opened above is there.
    for await (const event of client.events({ lastEventId: 0, signal: stop.signal })) {
      if (event.approval?.run_id !== 'run-e') continue;
      seen.push(event);
      if (event.type === 'approval.settled') break;
    }
    assert.equal(seen[0].type, 'approval.requested', 'the stream replays the agent events from the start');
    const settled = seen.at(-1);
    assert.equal(settled.decision?.kind, 'granted', 'the settlement carries the decision as a value');
    assert.equal(settled.decision.approvalId, answer.approvalId);
    for await (const event of client.events({ lastEventId: seen[0].id })) {
      assert.ok(event.id > seen[0].id, 'Last-Event-ID resumes right after the given event');
      assert.notEqual(event.approval?.approval_id === answer.approvalId && event.type, 'approval.requested');
      break;
    }
  });

  test('a wrong token is a service error with its code', async () => {
    const stranger = new Client({ url: service.url, token: 'not-a-token' });
    await assert.rejects(
      stranger.submit(shell('run-x', 'git status')),
      (err) => err instanceof ServiceError && err.code === 'unauthorized' && err.status === 401,
    );
    await assert.rejects(
      stranger.events().next(),
      (err) => err instanceof ServiceError && err.code === 'unauthorized',
      'the event stream does not retry a refused token for ever',
    );
  });
});

test('nobody deciding is a timed_out value and the run is paused', async () => {
  const service = await startService('approval_timeout_seconds = 1\nfallback_on_timeout = "pause"\n');
  try {
    const client = new Client({ url: service.url, token: service.requester });
    const answer = await client.submit(shell('run-t', 'npm test'));
    assert.equal(answer.kind, 'pending');
    const decision = await client.waitForDecision(answer.approvalId, { timeoutMs: 30_000 });
    assert.equal(decision.kind, 'timed_out', 'nobody decided');
    assert.equal(decision.fallback, 'pause');
    assert.equal((await client.run('run-t')).status, 'paused', "the policy's fallback paused the run");
  } finally {
    await service.stop();
  }
});

test("the service's own signed webhook verifies and carries the decision", async () => {
  const { createServer } = await import('node:http');
  const { verifyWebhook } = await import('assent-sdk');
  const service = await startService();
  const received = [];
  let arrived;
  const delivery = new Promise((resolve) => { arrived = resolve; });
  const receiver = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(204).end();
      arrived();
    });
  });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${receiver.address().port}/hook`;
    const registered = await fetch(`${service.url}/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.approver}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url, events: ['approval.settled'], agent: 'default' }),
    });
    assert.equal(registered.status, 200, 'a platform admin registers the webhook');
    const { secret } = await registered.json();
    const client = new Client({ url: service.url, token: service.requester });
    const answer = await client.submit(shell('run-w', 'npm test'));
    assert.equal(answer.kind, 'pending');
    await service.approve(answer.approvalId, 'run');
    await delivery;
    const { body, headers } = received[0];
    const message = verifyWebhook(secret, body, headers);
    assert.equal(message.type, 'approval.settled');
    assert.equal(message.decision?.kind, 'granted', 'the delivery is a granted value');
    assert.equal(message.decision.approvalId, answer.approvalId);
    assert.equal(message.decision.scope, 'run', 'with the scope the person chose');
    assert.ok(message.decision.grantId && message.decision.expiresAt, 'and the grant with its expiry');
    const tampered = Buffer.from(body.toString().replace('"approved"', '"denied"'));
    assert.throws(() => verifyWebhook(secret, tampered, headers), WebhookVerificationFailed, 'a changed body never verifies');
  } finally {
    await new Promise((r) => receiver.close(r));
    await service.stop();
  }
});

test('the event stream reconnects after a restart and resumes without a gap', async () => {
  const service = await startService();
  try {
    const client = new Client({ url: service.url, token: service.requester });
    const stop = new AbortController();
    const seen = [];
    const disconnects = [];
    let firstSeen;
    const first = new Promise((r) => { firstSeen = r; });
    const reading = (async () => {
      for await (const event of client.events({ lastEventId: 0, signal: stop.signal, onDisconnect: (why) => disconnects.push(why) })) {
        seen.push(event);
        if (event.approval?.run_id === 'run-r1') firstSeen();
        if (event.approval?.run_id === 'run-r2') return;
      }
    })();
    assert.equal((await client.submit(shell('run-r1', 'npm test'))).kind, 'pending');
    await first;
    await service.restart();
    assert.equal((await client.submit(shell('run-r2', 'npm test'))).kind, 'pending');
    await reading;
    assert.ok(disconnects.length >= 1, 'the stream saw the service go away');
    const runs = seen.filter((e) => e.type === 'approval.requested').map((e) => e.approval.run_id);
    assert.deepEqual(runs, ['run-r1', 'run-r2'], 'each prompt once, in order, across the reconnect (Last-Event-ID)');
    const ids = seen.map((e) => e.id);
    assert.deepEqual(ids, [...new Set(ids)].sort((a, b) => a - b), 'no event twice');
  } finally {
    await service.stop();
  }
});
