// The views' logic, pure and tested (Vitest): ordering, decisions, keys, countdowns, filters.
import { actorWords } from './reviewer';
import type { Approval, AuditEvent, DecisionRequest, DeskSnapshot, Grant, Me, QuickDecision, Role, Scope } from './types';

/**
 * What the window offers when the service sent no `quick_decisions` (a prompt opened by an
 * older service): the desk's notification defaults, still checked by the service.
 */
const FALLBACK_SECONDS: Partial<Record<Scope, number>> = { once: 15 * 60, run: 8 * 60 * 60 };
const FALLBACK_OTHER_SECONDS = 15 * 60;

/** Roles in words, as people say them. */
export const ROLE_NAMES: Record<Role, string> = {
  task_author: 'Task author',
  repo_maintainer: 'Repository maintainer',
  security_reviewer: 'Security reviewer',
  platform_admin: 'Platform admin',
};

/** The scopes by what they cover (a command profile, paths, a task type and a repository
 * hold for any run of the agent that asked). */
export const SCOPE_LABELS: Record<Scope, string> = {
  once: 'Once (this exact action)',
  command_profile: 'Command profile (any run)',
  path_pattern: 'These paths (any run)',
  run: 'This run',
  task_type: 'Task type (any run)',
  repo: 'Repository (any run)',
  org: 'Organisation',
  exception: 'Exception (past a policy rule, in this repository, any agent and run)',
};

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

/** "15 min", "1 h", "4 h 30 min", "2 d". */
export function durationLabel(seconds: number): string {
  const minutes = Math.max(1, Math.floor(seconds / 60));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours >= 48 && hours % 24 === 0 && rest === 0) return `${hours / 24} d`;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
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

/** "m:ss", "h:mm:ss", or "expired". */
export function countdown(expiresAt: string, nowMs: number): string {
  const left = Math.floor((Date.parse(expiresAt) - nowMs) / 1000);
  if (!(left > 0)) return 'expired';
  const h = Math.floor(left / 3600);
  const m = Math.floor((left % 3600) / 60);
  const s = left % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/** "2 / 5 uses" or "3 uses". */
export function usesLabel(grant: Grant): string {
  return grant.max_uses === null ? `${grant.used_count} uses` : `${grant.used_count} / ${grant.max_uses} uses`;
}

/** Active grants (soonest to expire first) and past ones (newest first). */
export function splitGrants(grants: Grant[], nowMs: number): { active: Grant[]; past: Grant[] } {
  const isActive = (g: Grant) => g.status === 'active' && Date.parse(g.expires_at) > nowMs;
  const active = grants.filter(isActive).sort((a, b) => Date.parse(a.expires_at) - Date.parse(b.expires_at));
  const past = grants
    .filter((g) => !isActive(g))
    .sort((a, b) => Date.parse(b.revoked_at ?? b.expires_at) - Date.parse(a.revoked_at ?? a.expires_at));
  return { active, past };
}

/** The status a past grant shows (an "active" one past its expiry is expired). */
export function pastStatus(grant: Grant): string {
  return grant.status === 'active' ? 'expired' : grant.status;
}

const HASH_KEYS = new Set(['action_hash', 'batch_key', 'diff_fingerprint', 'base_sha']);

const filled = ([, v]: [string, unknown]) => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0);

/** A constraint's value as text: a list joined, a record (what was approved) as its fields,
 * never `[object Object]`. */
function valueText(v: unknown): string {
  if (Array.isArray(v)) return v.map(valueText).join(', ');
  if (typeof v === 'object' && v !== null) {
    return Object.entries(v as Record<string, unknown>)
      .filter(filled)
      .map(([k, inner]) => `${k} ${valueText(inner)}`)
      .join('; ');
  }
  return String(v);
}

/** Constraints as "key: value" lines, skipping empty ones; hashes shortened to 12 characters. */
export function constraintLines(grant: Grant): string[] {
  return Object.entries(grant.constraints)
    .filter(filled)
    .map(([k, v]) => {
      const text = valueText(v);
      return `${k}: ${HASH_KEYS.has(k) && text.length > 12 ? `${text.slice(0, 12)}…` : text}`;
    });
}

/** The policy's reasons followed by findings not already among them. */
export function allReasons(reasons: string[], findings: string[]): string[] {
  return [...reasons, ...findings.filter((f) => !reasons.includes(f))];
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

/** The prompt a URL fragment points at (`#/pending/<id>`). */
export function focusFromHash(hash: string): string | null {
  const match = /^#\/pending\/([A-Za-z0-9_-]{1,128})$/.exec(hash);
  return match ? (match[1] ?? null) : null;
}

/** "3 min ago" style age. */
export function waitingSince(createdAt: string, nowMs: number): string {
  const s = Math.max(0, Math.floor((nowMs - Date.parse(createdAt)) / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** Control, bidi, zero-width and tag characters shown as visible escapes (`\n`, `\u{202e}`);
 * the service's `assent_core::is_invisible` is the same list. */
export function visible(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (isHidden(code)) out += `\\u{${code.toString(16).padStart(4, '0')}}`;
    else out += ch;
  }
  return out;
}

function isHidden(code: number): boolean {
  return (
    code < 0x20 || (code >= 0x7f && code <= 0x9f) || (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x202a && code <= 0x202e) || (code >= 0x2060 && code <= 0x2064) || (code >= 0x2066 && code <= 0x2069) ||
    code === 0x061c || code === 0x180e || code === 0xfeff || code === 0x00ad ||
    // Tag characters and supplementary variation selectors: a whole string can hide in them.
    (code >= 0xe0000 && code <= 0xe007f) || (code >= 0xe0100 && code <= 0xe01ef)
  );
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

/** "Signed in as owner · task_author, platform_admin" (an agent's token says it never decides). */
export function signedIn(me: Me | null): string {
  if (me === null) return 'signing in…';
  if (me.kind !== 'person') return `Signed in as ${me.name} (an agent: decides nothing)`;
  return `Signed in as ${me.name} · ${me.roles.length > 0 ? me.roles.map((r) => ROLE_NAMES[r]).join(', ') : 'no role'}`;
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

/** The desk before the service answered: nothing pending, still connecting. */
export const EMPTY_DESK: DeskSnapshot = { link: { state: 'connecting' }, me: null, pending: [], grants: [], held_runs: [], paused: null, settled: [] };
