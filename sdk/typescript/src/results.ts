/** The service's answers as values: what a submission got and how a person (or the policy's
 * timeout) decided, as discriminated unions on `kind`. */

import type { components } from './api.gen.js';
import { MalformedResponse } from './errors.js';

export type SubmitResponse = components['schemas']['SubmitResponse'];
export type Approval = components['schemas']['Approval'];
export type ActionRequest = components['schemas']['ActionRequest'];
export type Grant = components['schemas']['Grant'];
export type RunState = components['schemas']['RunState'];
export type EventEnvelope = components['schemas']['EventEnvelope'];
export type SettledData = components['schemas']['SettledData'];
export type WebhookPayload = components['schemas']['WebhookPayload'];

/** What `submit` got: go ahead, wait for a person, or not at all. */
export type Submitted =
  | { kind: 'allowed'; actionId: string; grantId: string | null; rule: string; response: SubmitResponse }
  | { kind: 'pending'; actionId: string; approvalId: string; rule: string; response: SubmitResponse }
  | { kind: 'blocked'; actionId: string; reasons: string[]; rule: string; response: SubmitResponse }
  | { kind: 'remembered_denial'; actionId: string; approvalId: string | null; reasons: string[]; response: SubmitResponse }
  | { kind: 'would_ask'; actionId: string; response: SubmitResponse };

/** How a prompt settled; `still_pending` when nothing was decided yet (ask again later).
 * `approval` is the whole approval when the answer carried one (long-poll, event stream), null
 * from a webhook. */
export type Decision =
  | {
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
    }
  | { kind: 'denied'; approvalId: string; reason: string; decidedBy: string | null; decidedAt: string | null; approval: Approval | null }
  | {
      kind: 'timed_out';
      approvalId: string;
      reason: string;
      /** The policy's `fallback_on_timeout`, when the answer names it (a webhook does not: ask `run`). */
      fallback: Approval['fallback_on_timeout'] | null;
      approval: Approval | null;
    }
  | { kind: 'cancelled'; approvalId: string; reason: string; approval: Approval | null };

export type StillPending = { kind: 'still_pending'; approvalId: string; approval: Approval };

const SCOPE_OF_STATUS: Record<string, string> = { approved_once: 'once', approved_for_run: 'run' };

export function submitted(response: SubmitResponse): Submitted {
  const base = { actionId: response.action_id, response };
  switch (response.status) {
    case 'allowed':
      return { ...base, kind: 'allowed', grantId: response.grant_id ?? null, rule: response.rule };
    case 'pending':
      if (!response.approval_id) throw new MalformedResponse('a pending answer without an approval_id');
      return { ...base, kind: 'pending', approvalId: response.approval_id, rule: response.rule };
    case 'blocked':
      return { ...base, kind: 'blocked', reasons: [...response.reasons], rule: response.rule };
    case 'denied':
      return { ...base, kind: 'remembered_denial', approvalId: response.approval_id ?? null, reasons: [...response.reasons] };
    case 'would_ask':
      return { ...base, kind: 'would_ask' };
    default:
      throw new MalformedResponse(`unknown submission status ${JSON.stringify(response.status)}`);
  }
}

/** What a (settled or pending) approval says, as a value. */
export function decisionOf(approval: Approval): Decision | StillPending {
  const resolution = approval.resolution ?? null;
  const status = approval.status;
  const reason = approval.decision_reason ?? null;
  const approvalId = approval.approval_id;
  if (resolution === null && status === 'requested') return { kind: 'still_pending', approvalId, approval };
  if (resolution === 'approved' || (resolution === null && status.startsWith('approved'))) {
    return {
      kind: 'granted',
      approvalId,
      grantId: approval.grant_id ?? null,
      scope: SCOPE_OF_STATUS[status] ?? null,
      expiresAt: null,
      decidedBy: approval.decided_by ?? null,
      decidedAt: approval.decided_at ?? null,
      reason,
      approval,
    };
  }
  if (resolution === 'denied' || (resolution === null && (status === 'denied' || status === 'blocked'))) {
    return {
      kind: 'denied',
      approvalId,
      reason: reason ?? 'denied',
      decidedBy: approval.decided_by ?? null,
      decidedAt: approval.decided_at ?? null,
      approval,
    };
  }
  if (resolution === 'timed_out' || (resolution === null && status === 'expired')) {
    return { kind: 'timed_out', approvalId, reason: reason ?? 'nobody answered in time', fallback: approval.fallback_on_timeout, approval };
  }
  return { kind: 'cancelled', approvalId, reason: reason ?? `closed (${status})`, approval };
}

/** Checks the fields the SDK relies on, so a malformed answer is an error, not a wrong value. */
export function checkApproval(value: unknown, where: string): Approval {
  const a = value as Partial<Approval> | null;
  if (
    typeof a !== 'object' || a === null ||
    typeof a.approval_id !== 'string' || typeof a.status !== 'string' ||
    typeof a.run_id !== 'string' || typeof a.fallback_on_timeout !== 'string'
  ) {
    throw new MalformedResponse(`${where}: not an Approval (approval_id, run_id, status, fallback_on_timeout)`);
  }
  return a as Approval;
}

const STATUSES = new Set(['allowed', 'pending', 'blocked', 'denied', 'would_ask']);

export function checkSubmitResponse(value: unknown, where: string): SubmitResponse {
  const r = value as Partial<SubmitResponse> | null;
  if (
    typeof r !== 'object' || r === null ||
    typeof r.action_id !== 'string' || typeof r.rule !== 'string' ||
    typeof r.status !== 'string' || !STATUSES.has(r.status) || !Array.isArray(r.reasons)
  ) {
    throw new MalformedResponse(`${where}: not a SubmitResponse (action_id, rule, reasons, status)`);
  }
  return r as SubmitResponse;
}

/** The decision an `approval.settled` webhook's `data` carries (`approval_id`, `decision`,
 * `reason`, `decided_by`, `scope`, `grant_id`, `grant_expires_at` …). */
export function settledDecision(data: Record<string, unknown>): Decision {
  const str = (key: string): string | null => {
    const v = data[key];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string') throw new MalformedResponse(`a settled webhook whose ${key} is not a string`);
    return v;
  };
  const approvalId = str('approval_id');
  const outcome = str('decision');
  if (approvalId === null || outcome === null) throw new MalformedResponse('a settled webhook without approval_id and decision');
  const reason = str('reason');
  const decidedBy = str('decided_by');
  const decidedAt = str('decided_at');
  switch (outcome) {
    case 'approved':
      return { kind: 'granted', approvalId, grantId: str('grant_id'), scope: str('scope'), expiresAt: str('grant_expires_at'), decidedBy, decidedAt, reason, approval: null };
    case 'denied':
      return { kind: 'denied', approvalId, reason: reason ?? 'denied', decidedBy, decidedAt, approval: null };
    case 'timed_out':
      return { kind: 'timed_out', approvalId, reason: reason ?? 'nobody answered in time', fallback: null, approval: null };
    case 'cancelled':
      return { kind: 'cancelled', approvalId, reason: reason ?? 'cancelled', approval: null };
    default:
      throw new MalformedResponse(`a settled webhook with an unknown decision ${JSON.stringify(outcome)}`);
  }
}
