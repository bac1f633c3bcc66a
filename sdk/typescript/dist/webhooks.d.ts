/** Verifying the service's signed webhooks (Standard Webhooks: `webhook-id`,
 * `webhook-timestamp`, `webhook-signature`) with the reference library, which compares in
 * constant time and refuses a timestamp more than five minutes off. */
import { type Decision } from './results.js';
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
export declare function verifyWebhook(secret: string, body: string | Uint8Array, headers: Record<string, string | string[] | undefined> | Headers): WebhookMessage;
