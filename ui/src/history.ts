// History in words: what each audited decision was, its scope, and the times inside its text,
// as a person reads them; and which records are about people's sign-ins rather than about what
// agents asked. Pure and tested (Vitest).
import { whenWords } from './words';
import { actorWords } from './reviewer';
import { ROLE_NAMES, SCOPE_LABELS } from './labels';
import { visible } from './text';
import type { Approval, AuditDecision, AuditEvent, Scope } from './types';

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

export interface AuditFilter {
  run: string;
  repo: string;
  decision: string;
}

/** Audit events matching every non-empty filter (run and repo by substring), newest first. */
export function filterAudit(events: AuditEvent[], filter: AuditFilter): AuditEvent[] {
  const run = filter.run.trim().toLowerCase();
  const repo = filter.repo.trim().toLowerCase();
  return events
    .filter((e) => run === '' || e.run_id.toLowerCase().includes(run))
    .filter((e) => repo === '' || (e.repo ?? '').toLowerCase().includes(repo))
    .filter((e) => filter.decision === '' || e.decision === filter.decision)
    .sort((a, b) => Date.parse(b.timestamp) - Date.parse(a.timestamp));
}

/** Who decided an audit event: "alice (Platform admin)", "alice", or "" (automatic). */
export function auditBy(event: AuditEvent): string {
  if (!event.approver) return '';
  const who = actorWords(event.approver);
  return event.approver_role ? `${who} (${ROLE_NAMES[event.approver_role]})` : who;
}

/** How many runs' remembered denials History asks for at most (the newest runs with a denial). */
export const DENIAL_RUNS = 20;

/**
 * The runs whose remembered denials History asks the service for: runs with a person's denial
 * in the audit trail (newest first, each once, at most `limit`).
 */
export function deniedRuns(events: AuditEvent[], limit = DENIAL_RUNS): string[] {
  const runs: string[] = [];
  const newest = [...events].sort((a, b) => Date.parse(b.timestamp) - Date.parse(a.timestamp));
  for (const e of newest) {
    if (e.decision === 'denied' && e.approval_id && !runs.includes(e.run_id)) runs.push(e.run_id);
    if (runs.length >= limit) break;
  }
  return runs;
}

/** The remembered denials of several runs as one list, each once, most recently denied first. */
export function mergeDenials(lists: Approval[][]): Approval[] {
  const byId = new Map<string, Approval>();
  for (const list of lists) for (const a of list) byId.set(a.approval_id, a);
  const at = (a: Approval) => Date.parse(a.decided_at ?? a.updated_at);
  return [...byId.values()].sort((a, b) => at(b) - at(a) || b.approval_id.localeCompare(a.approval_id));
}

/** What a remembered denial stands for: the command line, else the evidence's summary. */
export function denialSubject(approval: Approval): string {
  return visible(approval.evidence.command_line ?? approval.evidence.summary);
}

/** "owner: not on this branch" — who denied it and the reason the agent keeps getting. */
export function denialBy(approval: Approval): string {
  const by = actorWords(approval.decided_by ?? '?');
  const who = approval.decided_role ? `${by} (${ROLE_NAMES[approval.decided_role]})` : by;
  return visible(approval.decision_reason ? `${who}: ${approval.decision_reason}` : who);
}

/** The confirmation after Undo. */
export function undoneMessage(approval: Approval): string {
  return `Undone: the next "${denialSubject(approval)}" in run ${visible(approval.run_id)} asks you again.`;
}
