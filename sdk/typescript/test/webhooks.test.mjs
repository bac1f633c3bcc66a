// verifyWebhook with the Standard Webhooks reference library: a genuine delivery verifies; a
// tampered, re-signed-with-another-key, stale or unsigned one never does.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';

import { MalformedResponse, WebhookVerificationFailed, verifyWebhook } from 'assent-sdk';
import { Webhook } from 'standardwebhooks';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const BODY = JSON.stringify({
  type: 'approval.settled',
  timestamp: '2026-12-07T12:00:00Z',
  data: {
    approval_id: 'appr-1', run_id: 'run-1', requester: 'default', action_ids: ['act-1'],
    decision: 'approved', decided_by: 'owner', scope: 'run', grant_id: 'grant-1',
    grant_expires_at: '2026-12-07T13:00:00Z',
  },
});

function signed(body, { secret = SECRET, at = new Date(), id = 'msg_1' } = {}) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}

test('a genuine delivery verifies into a message', () => {
  const message = verifyWebhook(SECRET, BODY, signed(BODY));
  assert.equal(message.type, 'approval.settled');
  assert.equal(message.data.approval_id, 'appr-1');
  assert.equal(message.webhookId, 'msg_1', 'the id to deduplicate retries on');
  assert.deepEqual(
    [message.decision?.kind, message.decision?.grantId, message.decision?.scope, message.decision?.expiresAt],
    ['granted', 'grant-1', 'run', '2026-12-07T13:00:00Z'],
    'a settlement is a granted value with the grant, its scope and expiry',
  );
  const viaHeaders = verifyWebhook(SECRET, new TextEncoder().encode(BODY), new Headers(signed(BODY)));
  assert.equal(viaHeaders.type, 'approval.settled', 'raw bytes and a fetch Headers work too');
});

const minutes = (n) => new Date(Date.now() + n * 60_000);
for (const [name, body, headers] of [
  ['a tampered body', BODY.replace('approved', 'denied!!'), signed(BODY)],
  ['another secret', BODY, signed(BODY, { secret: `whsec_${randomBytes(32).toString('base64')}` })],
  ['a stale timestamp', BODY, signed(BODY, { at: minutes(-10) })],
  ['a future timestamp', BODY, signed(BODY, { at: minutes(10) })],
  ['no signature', BODY, { ...signed(BODY), 'webhook-signature': undefined }],
  ['another id', BODY, { ...signed(BODY), 'webhook-id': 'msg_2' }],
]) {
  test(`${name} never verifies`, () => {
    assert.throws(() => verifyWebhook(SECRET, body, headers), WebhookVerificationFailed);
  });
}

test('a signed body that is not a message is a clear error', () => {
  for (const body of [
    '["not", "a", "message"]',
    '{"type":"approval.settled","timestamp":"t","data":{"approval_id":"a","decision":"maybe"}}',
    '{"type":"approval.settled","timestamp":"t","data":{"decision":"approved"}}',
  ]) {
    assert.throws(() => verifyWebhook(SECRET, body, signed(body)), MalformedResponse, body);
  }
});

test('a denial webhook carries the reason', () => {
  const body = JSON.stringify({ type: 'approval.settled', timestamp: 't', data: { approval_id: 'a', decision: 'denied', reason: 'not today', decided_by: 'owner' } });
  const message = verifyWebhook(SECRET, body, signed(body));
  assert.equal(message.decision?.kind, 'denied');
  assert.equal(message.decision.reason, 'not today', "the person's words");
});
