/** Verifying the service's signed webhooks (Standard Webhooks: `webhook-id`,
 * `webhook-timestamp`, `webhook-signature`) with the reference library, which compares in
 * constant time and refuses a timestamp more than five minutes off. */

import { Webhook, WebhookVerificationError } from 'standardwebhooks';

import { MalformedResponse, WebhookVerificationFailed } from './errors.js';
import { type Decision, settledDecision } from './results.js';

/** A verified delivery; `webhookId` is the same on every retry of one delivery (deduplicate
 * on it). For `approval.settled`, `decision` is the decision as a value. */
export interface WebhookMessage {
  webhookId: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
  decision: Decision | null;
}

/** Verifies `body` (the raw body as received) against `headers` with the webhook's `secret`
 * (`whsec_…`). Throws `WebhookVerificationFailed` for a tampered, unsigned, stale or future
 * message, `MalformedResponse` for a signed body that is not `{type, timestamp, data}`. */
export function verifyWebhook(
  secret: string,
  body: string | Uint8Array,
  headers: Record<string, string | string[] | undefined> | Headers,
): WebhookMessage {
  const plain: Record<string, string> = {};
  const entries: Iterable<[string, unknown]> =
    typeof Headers !== 'undefined' && headers instanceof Headers
      ? headers.entries()
      : Object.entries(headers);
  for (const [k, v] of entries) {
    if (typeof v === 'string') plain[k.toLowerCase()] = v;
    else if (Array.isArray(v) && typeof v[0] === 'string') plain[k.toLowerCase()] = v[0];
  }
  let hook: Webhook;
  try {
    hook = new Webhook(secret);
  } catch (err) {
    throw new TypeError(`not a webhook secret (whsec_…): ${String(err)}`);
  }
  let parsed: unknown;
  try {
    parsed = hook.verify(body, plain);
  } catch (err) {
    if (err instanceof WebhookVerificationError) {
      throw new WebhookVerificationFailed(`the webhook did not verify: ${err.message}`);
    }
    throw new MalformedResponse(`a signed webhook that is not JSON: ${String(err)}`);
  }
  const m = parsed as { type?: unknown; timestamp?: unknown; data?: unknown } | null;
  if (typeof m !== 'object' || m === null || Array.isArray(m) || typeof m.type !== 'string' ||
      typeof m.data !== 'object' || m.data === null || m.timestamp === undefined) {
    throw new MalformedResponse('a signed webhook that is not {type, timestamp, data}');
  }
  const data = m.data as Record<string, unknown>;
  return {
    webhookId: plain['webhook-id'] ?? '',
    type: m.type,
    timestamp: String(m.timestamp),
    data,
    decision: m.type === 'approval.settled' ? settledDecision(data) : null,
  };
}
