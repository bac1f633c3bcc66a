/** The service's answers as values: what a submission got and how a person (or the policy's
 * timeout) decided, as discriminated unions on `kind`. */
import type { components } from './api.gen.js';
export type SubmitResponse = components['schemas']['SubmitResponse'];
export type Approval = components['schemas']['Approval'];
export type ActionRequest = components['schemas']['ActionRequest'];
export type Grant = components['schemas']['Grant'];
export type RunState = components['schemas']['RunState'];
export type EventEnvelope = components['schemas']['EventEnvelope'];
export type SettledData = components['schemas']['SettledData'];
export type WebhookPayload = components['schemas']['WebhookPayload'];
/** What `submit` got: go ahead, wait for a person, or not at all. */
export type Submitted = {
    kind: 'allowed';
    actionId: string;
    grantId: string | null;
    rule: string;
    response: SubmitResponse;
} | {
    kind: 'pending';
    actionId: string;
    approvalId: string;
    rule: string;
    response: SubmitResponse;
} | {
    kind: 'blocked';
    actionId: string;
    reasons: string[];
    rule: string;
    response: SubmitResponse;
} | {
    kind: 'remembered_denial';
    actionId: string;
    approvalId: string | null;
    reasons: string[];
    response: SubmitResponse;
} | {
    kind: 'would_ask';
    actionId: string;
    response: SubmitResponse;
};
/** How a prompt settled; `still_pending` when nothing was decided yet (ask again later).
 * `approval` is the whole approval when the answer carried one (long-poll, event stream), null
 * from a webhook. */
export type Decision = {
    kind: 'granted';
    approvalId: string;
    grantId: string | null;
    /** `once`, `run` …, when the answer names it (a webhook does). */
    scope: string | null;
    expiresAt: string | null;
    decidedBy: string | null;
    decidedAt: string | null;
    reason: string | null;
    approval: Approval | null;
} | {
    kind: 'denied';
    approvalId: string;
    reason: string;
    decidedBy: string | null;
    decidedAt: string | null;
    approval: Approval | null;
} | {
    kind: 'timed_out';
    approvalId: string;
    reason: string;
    /** The policy's `fallback_on_timeout`, when the answer names it (a webhook does not: ask `run`). */
    fallback: Approval['fallback_on_timeout'] | null;
    approval: Approval | null;
} | {
    kind: 'cancelled';
    approvalId: string;
    reason: string;
    approval: Approval | null;
};
export type StillPending = {
    kind: 'still_pending';
    approvalId: string;
    approval: Approval;
};
export declare function submitted(response: SubmitResponse): Submitted;
/** What a (settled or pending) approval says, as a value. */
export declare function decisionOf(approval: Approval): Decision | StillPending;
/** Checks the fields the SDK relies on, so a malformed answer is an error, not a wrong value. */
export declare function checkApproval(value: unknown, where: string): Approval;
export declare function checkSubmitResponse(value: unknown, where: string): SubmitResponse;
/** The decision an `approval.settled` webhook's `data` carries (`approval_id`, `decision`,
 * `reason`, `decided_by`, `scope`, `grant_id`, `grant_expires_at` …). */
export declare function settledDecision(data: Record<string, unknown>): Decision;
