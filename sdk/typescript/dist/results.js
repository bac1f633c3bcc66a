/** The service's answers as values: what a submission got and how a person (or the policy's
 * timeout) decided, as discriminated unions on `kind`. */
import { MalformedResponse } from './errors.js';
const SCOPE_OF_STATUS = { approved_once: 'once', approved_for_run: 'run' };
export function submitted(response) {
    const base = { actionId: response.action_id, response };
    switch (response.status) {
        case 'allowed':
            return { ...base, kind: 'allowed', grantId: response.grant_id ?? null, rule: response.rule };
        case 'pending':
            if (!response.approval_id)
                throw new MalformedResponse('a pending answer without an approval_id');
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
export function decisionOf(approval) {
    const resolution = approval.resolution ?? null;
    const status = approval.status;
    const reason = approval.decision_reason ?? null;
    const approvalId = approval.approval_id;
    if (resolution === null && status === 'requested')
        return { kind: 'still_pending', approvalId, approval };
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
export function checkApproval(value, where) {
    const a = value;
    if (typeof a !== 'object' || a === null ||
        typeof a.approval_id !== 'string' || typeof a.status !== 'string' ||
        typeof a.run_id !== 'string' || typeof a.fallback_on_timeout !== 'string') {
        throw new MalformedResponse(`${where}: not an Approval (approval_id, run_id, status, fallback_on_timeout)`);
    }
    return a;
}
const STATUSES = new Set(['allowed', 'pending', 'blocked', 'denied', 'would_ask']);
export function checkSubmitResponse(value, where) {
    const r = value;
    if (typeof r !== 'object' || r === null ||
        typeof r.action_id !== 'string' || typeof r.rule !== 'string' ||
        typeof r.status !== 'string' || !STATUSES.has(r.status) || !Array.isArray(r.reasons)) {
        throw new MalformedResponse(`${where}: not a SubmitResponse (action_id, rule, reasons, status)`);
    }
    return r;
}
/** The decision an `approval.settled` webhook's `data` carries (`approval_id`, `decision`,
 * `reason`, `decided_by`, `scope`, `grant_id`, `grant_expires_at` …). */
export function settledDecision(data) {
    const str = (key) => {
        const v = data[key];
        if (v === undefined || v === null)
            return null;
        if (typeof v !== 'string')
            throw new MalformedResponse(`a settled webhook whose ${key} is not a string`);
        return v;
    };
    const approvalId = str('approval_id');
    const outcome = str('decision');
    if (approvalId === null || outcome === null)
        throw new MalformedResponse('a settled webhook without approval_id and decision');
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
