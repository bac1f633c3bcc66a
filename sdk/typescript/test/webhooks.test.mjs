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
  data: { approval_id: 'appr-1', decision: 'approved' },
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
  const body = '["not", "a", "message"]';
  assert.throws(() => verifyWebhook(SECRET, body, signed(body)), MalformedResponse);
});
