// The Pending view's logic, pure and tested (Vitest): the queue's order and keys, the
// decision form and the one-click approvals the policy offers, who may decide.
import { durationLabel, ROLE_NAMES, SCOPE_LABELS } from './labels';
import { visible } from './text';
import type { Approval, DecisionRequest, Me, QuickDecision, Scope } from './types';

/**
 * What the window offers when the service sent no `quick_decisions` (a prompt opened by an
 * older service): the desk's notification defaults, still checked by the service.
 */
const FALLBACK_SECONDS: Partial<Record<Scope, number>> = { once: 15 * 60, run: 8 * 60 * 60 };
const FALLBACK_OTHER_SECONDS = 15 * 60;

/** Batches newest first (ties: by id, for a stable order). */
export function newestFirst(pending: Approval[]): Approval[] {
  return [...pending].sort(
    (a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || b.approval_id.localeCompare(a.approval_id),
  );
}

/**
 * The one-click approvals of a prompt: the service's `quick_decisions` (bounded by the policy's
 * lifetimes), or, for a prompt that came without them, one per offered scope at the desk's
 * defaults. Only offered scopes, so no button asks for a scope the policy did not offer.
 */
export function quickChoices(approval: Approval): QuickDecision[] {
  const quick = approval.quick_decisions ?? [];
  if (quick.length > 0) return quick.filter((q) => approval.offered_scopes.includes(q.scope));
  return approval.offered_scopes.map((scope) => ({
    label: scope === 'once' ? 'Allow once' : scope === 'run' ? 'Allow for run' : `Allow (${SCOPE_LABELS[scope]})`,
    scope,
    expires_in_seconds: FALLBACK_SECONDS[scope] ?? FALLBACK_OTHER_SECONDS,
  }));
}

/** The longest a grant of `scope` may last on this prompt, in seconds; null when not offered. */
export function longestSeconds(approval: Approval, scope: Scope): number | null {
  const allowed = quickChoices(approval)
    .filter((q) => q.scope === scope)
    .map((q) => q.expires_in_seconds);
  return allowed.length > 0 ? Math.max(...allowed) : null;
}

/** A quick decision's button text: its label, with how long it lasts unless the label says so. */
export function quickLabel(quick: QuickDecision): string {
  const label = visible(quick.label);
  const lasts = durationLabel(quick.expires_in_seconds);
  return label.endsWith(lasts) ? label : `${label} · ${lasts}`;
}

/**
 * Seconds for the custom expiry of `scope`: empty means the longest allowed; otherwise a whole
 * number of minutes from 1 up to that longest (never more than the policy allows).
 */
export function customSeconds(approval: Approval, scope: Scope, minutesText: string): number | { error: string } {
  const longest = longestSeconds(approval, scope);
  if (longest === null) return { error: `Scope "${scope}" is not offered` };
  const text = minutesText.trim();
  if (text === '') return longest;
  if (!/^\d+$/.test(text)) return { error: 'Expiry: a whole number of minutes' };
  const seconds = Number(text) * 60;
  if (seconds < 60) return { error: 'Expiry: at least 1 minute' };
  if (seconds > longest) {
    return { error: `Expiry: at most ${Math.floor(longest / 60)} minutes (${durationLabel(longest)}) for this scope, as the policy allows` };
  }
  return seconds;
}

export interface DecisionForm {
  scope: Scope;
  /** Minutes for "Approve with scope"; empty is the longest the policy allows for the scope. */
  customMinutes: string;
  maxUses: string;
  reason: string;
}

/** The default form for a prompt: the recommended scope if offered, else the first offered. */
export function defaultForm(approval: Approval): DecisionForm {
  const recommended = approval.recommendation.scope;
  const scope =
    recommended && approval.offered_scopes.includes(recommended) ? recommended : (approval.offered_scopes[0] ?? 'once');
  return { scope, customMinutes: '', maxUses: '', reason: '' };
}

export type Built = { ok: DecisionRequest } | { error: string };

function approve(scope: Scope, seconds: number, form: DecisionForm): Built {
  const request: DecisionRequest = { decision: 'approve', scope, expires_in_seconds: seconds };
  const uses = form.maxUses.trim();
  if (uses !== '') {
    if (!/^\d+$/.test(uses) || Number(uses) < 1 || Number(uses) > 1_000_000) {
      return { error: 'Max uses: a whole number from 1' };
    }
    request.max_uses = Number(uses);
  }
  const reason = form.reason.trim();
  if (reason !== '') request.reason = reason;
  return { ok: request };
}

/** "Approve with scope": the form's scope for the form's expiry, checked against the prompt. */
export function buildApproval(approval: Approval, form: DecisionForm): Built {
  if (!approval.offered_scopes.includes(form.scope)) return { error: `Scope "${form.scope}" is not offered` };
  const seconds = customSeconds(approval, form.scope, form.customMinutes);
  if (typeof seconds !== 'number') return seconds;
  return approve(form.scope, seconds, form);
}

/** One quick-decision button: its scope for its lifetime, with the form's max uses and reason. */
export function quickApproval(approval: Approval, form: DecisionForm, quick: QuickDecision): Built {
  const longest = longestSeconds(approval, quick.scope);
  if (longest === null) return { error: `Scope "${quick.scope}" is not offered` };
  return approve(quick.scope, Math.min(quick.expires_in_seconds, longest), form);
}

/** A denial: the reason is required (it goes back to the agent). */
export function buildDenial(reason: string): Built {
  const text = reason.trim();
  if (text === '') return { error: 'A denial needs a reason: it goes back to the agent' };
  return { ok: { decision: 'deny', reason: text } };
}

/** The shortcut buttons and keys: a = allow once, r = allow for run, d = deny. */
export type Shortcut = 'once' | 'run' | 'deny';

/** a and r: the quick decision for once or for this run, as its button would ask. */
export function shortcutDecision(approval: Approval, form: DecisionForm, shortcut: Shortcut): Built {
  if (shortcut === 'deny') return buildDenial(form.reason);
  const quick = quickChoices(approval).find((q) => q.scope === shortcut);
  if (!quick) return { error: shortcut === 'run' ? 'Allow for this run is not offered here' : 'Allow once is not offered here' };
  return quickApproval(approval, form, quick);
}

export type KeyIntent = { kind: 'shortcut'; shortcut: Shortcut } | { kind: 'move'; by: 1 | -1 } | null;

/** What a key press on the Pending view means (none while typing in a field). */
export function keyIntent(key: string, typing: boolean): KeyIntent {
  if (typing) return null;
  switch (key) {
    case 'a':
      return { kind: 'shortcut', shortcut: 'once' };
    case 'r':
      return { kind: 'shortcut', shortcut: 'run' };
    case 'd':
      return { kind: 'shortcut', shortcut: 'deny' };
    case 'ArrowDown':
    case 'ArrowRight':
      return { kind: 'move', by: 1 };
    case 'ArrowUp':
    case 'ArrowLeft':
      return { kind: 'move', by: -1 };
    default:
      return null;
  }
}

/** The selection after moving by `by`, clamped to the list. */
export function moveSelection(ids: string[], current: string | null, by: 1 | -1): string | null {
  if (ids.length === 0) return null;
  const at = current === null ? -1 : ids.indexOf(current);
  if (at === -1) return ids[0] ?? null;
  return ids[Math.min(ids.length - 1, Math.max(0, at + by))] ?? null;
}

/** The policy's reasons followed by findings not already among them. */
export function allReasons(reasons: string[], findings: string[]): string[] {
  return [...reasons, ...findings.filter((f) => !reasons.includes(f))];
}

/** "3 min ago" style age. */
export function waitingSince(createdAt: string, nowMs: number): string {
  const s = Math.max(0, Math.floor((nowMs - Date.parse(createdAt)) / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** Whether the signed-in person may decide a prompt, and where a threshold stands. */
export interface Decidability {
  /** The service would accept this person's approve or deny now. */
  decide: boolean;
  /** Why not: "needs platform_admin", "you requested this", "you approved; waiting for 1 more"… */
  why: string | null;
  /** A prompt needing several people: "1 of 2 approvals: alice (platform_admin)". */
  progress: string | null;
}

/**
 * What `me` (the service's answer to `/v1/me`) may do with `approval`, by the service's own
 * rules: agents never decide; the requester never decides its own request; a prompt naming a
 * role needs it, one naming none needs any role; who approved already waits for the others.
 * The service still enforces them; this only keeps the window from offering a refused button.
 */
export function decidability(approval: Approval, me: Me | null): Decidability {
  const required = Math.max(1, approval.required_approvals);
  const votes = approval.approvals;
  const progress =
    required > 1
      ? `${votes.length} of ${required} approvals${votes.length > 0 ? `: ${votes.map((v) => `${v.by} (${ROLE_NAMES[v.role]})`).join(', ')}` : ''}`
      : null;
  const no = (why: string): Decidability => ({ decide: false, why, progress });
  if (me === null) return no('not yet known who you are');
  if (me.kind !== 'person') return no('agents never decide');
  if (approval.requester === me.name) return no('you requested this');
  const role = approval.required_role;
  if (role != null && !me.roles.includes(role)) return no(`needs a ${ROLE_NAMES[role]}`);
  if (role == null && me.roles.length === 0) return no('needs a role; you hold none');
  if (votes.some((v) => v.by === me.name)) {
    const missing = Math.max(1, required - votes.length);
    return no(`you approved; waiting for ${missing} more`);
  }
  return { decide: true, why: null, progress };
}
