// History in words: what each audited decision was, its scope, and the times inside its text,
// as a person reads them; and which records are about people's sign-ins rather than about what
// agents asked. Pure and tested (Vitest).
import { whenWords } from './words';
import { SCOPE_LABELS, visible } from './logic';
import type { AuditDecision, AuditEvent, Scope } from './types';

/** Each decision the audit records, in words (the filter's choices in this order). */
export const DECISION_WORDS: Record<AuditDecision, string> = {
  approved: 'Approved',
  denied: 'Denied',
  auto: 'Allowed by the policy',
  blocked: 'Blocked by the policy',
  expired: 'Nobody answered in time',
  revoked: 'Grant revoked',
  invalidated: 'Grant no longer covers',
  used: 'Grant used',
  executed: 'Ran',
  resumed: 'Run resumed',
  forgotten: 'Denial undone',
  asked: 'Asked people',
  escalated: 'Asked more people',
  policy_changed: 'Policy changed',
  credential_released: 'Credential handed out',
  stopped: 'Campaign stopped',
  reported: 'Campaign result reported',
  invited: 'Passkey invite made',
  enrolled: 'Passkey enrolled',
  passkey_removed: 'Passkey removed',
  signed_in: 'Signed in to the web desk',
  reviewed: 'Reviewed by a model',
  webhook_added: 'Webhook added',
  webhook_removed: 'Webhook removed',
};

/** Records about people's access to the desk, not about what an agent asked: hidden from the
 * decisions unless the person asks to see them. */
const ACCOUNT: ReadonlySet<AuditDecision> = new Set(['signed_in', 'enrolled', 'passkey_removed', 'invited']);

export function isAccountEvent(event: Pick<AuditEvent, 'decision'>): boolean {
  return ACCOUNT.has(event.decision);
}

/** A decision in words; one this desk does not know yet is read from its code ("policy paused"). */
export function decisionWords(decision: string): string {
  return (DECISION_WORDS as Record<string, string>)[decision] ?? visible(decision.replace(/_/g, ' '));
}

/** The scope a record granted in words ("This run", "Command profile (any run)"), never `command_profile`. */
export function auditScopeWords(scope: Scope | null | undefined): string {
  return scope ? (SCOPE_LABELS[scope] ?? visible(scope)) : '';
}

/** An RFC 3339 time as the service writes it into a record's text (`2026-12-05T22:32:48.523079211+00:00`). */
const STAMP = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g;

/**
 * A record's text with every time in it said as the desk says times ("until 22:32", "until
 * 30 Nov 22:32"), on the local 24-hour clock; the rest as it was, hidden characters shown.
 */
export function textInWords(text: string | null | undefined, nowMs: number): string {
  return visible(text ?? '').replace(STAMP, (stamp) => {
    // Nanoseconds as Rust writes them: Date.parse reads at most milliseconds everywhere.
    const at = Date.parse(stamp.replace(/(\.\d{3})\d+/, '$1'));
    return Number.isNaN(at) ? stamp : whenWords(at, nowMs);
  });
}
