/** Assent for agents that cannot block: submit an action, get the answer as a value, and learn
 * the person's decision by long-poll, the agent event stream or a signed webhook. */
export { Client, envelope, LONG_POLL_SLICE } from './client.js';
export type { AgentEvent, ClientOptions, EventsOptions } from './client.js';
export { AssentError, MalformedResponse, ServiceError, Unavailable, WebhookVerificationFailed } from './errors.js';
export { decisionOf, settledDecision, submitted } from './results.js';
export type { ActionRequest, Approval, Decision, EventEnvelope, Grant, RunState, SettledData, StillPending, Submitted, SubmitResponse, WebhookPayload, } from './results.js';
export { MAX_LINE_BYTES } from './sse.js';
export { verifyWebhook } from './webhooks.js';
export type { WebhookMessage } from './webhooks.js';
export type { components, paths } from './api.gen.js';
