// What a decision grants, said before (the confirm step) and after (the toast), and where the
// selection goes next. Pure and tested (Vitest).
import { actorWords } from './reviewer';
import { durationLabel } from './labels';
import { visible } from './text';
import { shellLine } from './packets';
import type { Approval, DecisionRequest, Grant, QuickDecision, Risk, Scope } from './types';

const RANK: Record<Risk, number> = { low: 0, medium: 1, high: 2, critical: 3 };

/**
 * Whether a person may approve `approval` in one act (a key, one click): its risk is at most
 * the policy's `[desk] quick_up_to` (medium unless the policy moved it). Riskier prompts need
 * the confirm step, which names what will be granted.
 */
export function oneAct(approval: Approval): boolean {
  return RANK[approval.risk] <= RANK[approval.quick_up_to ?? 'medium'];
}

/** What the approval is about, in a few words: the command line, else the summary. */
export function subjectOf(approval: Approval): string {
  const e = approval.evidence;
  // An old row without a command line is quoted: `sh -c ls -la; rm …` would read as two commands.
  const line = e.command_line ?? (e.command ? shellLine(e.command) : undefined);
  return plainTitle(line && line.trim() !== '' ? line : e.summary);
}

/**
 * A title as people read it: no markdown backticks, no `file_write:`-style kind prefixes, the
 * control characters made visible.
 */
export function plainTitle(text: string): string {
  const noPrefix = text.replace(/^(shell|file_write|file_read|file_delete|network|credential|mcp|pr|other)\s*:\s*/i, '');
  return visible(mendCut(noPrefix.replace(/`+/g, '')));
}

const BRACKETS: [string, string][] = [
  ['(', ')'],
  ['[', ']'],
  ['{', '}'],
];

function count(text: string, c: string): number {
  return text.split(c).length - 1;
}

/**
 * A title whose text was cut (an ellipsis) inside a bracket — `… ./dist (sync --delete… in
 * shop`, as a service before issue 42 cut summaries at 100 characters whatever was there — is
 * cut back before the bracket it left open, whole words only: `… ./dist… in shop`. What
 * follows the cut (` in shop`) stays; a title without a cut is untouched.
 */
export function mendCut(text: string): string {
  const at = text.indexOf('…');
  if (at === -1) return text;
  let head = text.slice(0, at);
  const tail = text.slice(at + 1);
  for (const [open, close] of BRACKETS) {
    while (count(head, open) > count(head, close)) head = head.slice(0, head.lastIndexOf(open)).trimEnd();
  }
  head = head.replace(/[,;:·\s]+$/, '');
  return `${head}…${tail}`;
}

/**
 * Where: the repository's name (the last part of its path), else the cwd's last part; '' when
 * there is no place (a fleet campaign's cwd is `/`), never `/`.
 */
export function placeOf(approval: Approval): string {
  const where = (approval.repo ?? approval.evidence.cwd ?? '').replace(/\/+$/, '');
  return visible(where.split('/').pop() ?? '');
}

/** " in shop", or nothing when there is no place: never "in /". */
function inPlace(approval: Approval): string {
  const place = placeOf(approval);
  return place === '' ? '' : ` in ${place}`;
}

/** "14:05" (local time), with the date when it is not today. */
export function clock(at: number, nowMs: number): string {
  const d = new Date(at);
  const today = new Date(nowMs);
  const hm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  if (d.toDateString() === today.toDateString()) return hm;
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')} ${hm}`;
}

/**
 * The grant a decision asks for, as a sentence naming what it really covers: "Allow mvn -q
 * test in shop for this run (run run-1 of codex) until 16:20 · 8 h", "Allow maven-test
 * commands in any run of codex in shop until 15:00 · 1 h". Said in the confirm step and in
 * the toast; `grant` (the toast's) states the coverage the service recorded.
 */
export function grantSentence(approval: Approval, request: DecisionRequest, nowMs: number, grant?: Grant | null): string {
  if (request.decision !== 'approve') return `Deny ${subjectOf(approval)}${othersOf(approval)}${inPlace(approval)}`;
  const seconds = request.expires_in_seconds;
  const until = clock(nowMs + seconds * 1000, nowMs);
  const uses = request.max_uses ? ` · at most ${request.max_uses} ${request.max_uses === 1 ? 'use' : 'uses'}` : '';
  const cover = coverOf(approval, grant?.scope_kind ?? request.scope, grant);
  return `Allow ${cover} until ${until} · ${durationLabel(seconds)}${uses}`;
}

/** How broad each scope is, narrowest first: the buttons go in this order. */
const BREADTH: Record<Scope, number> = {
  once: 0,
  run: 1,
  path_pattern: 2,
  command_profile: 3,
  task_type: 4,
  repo: 5,
  exception: 6,
  org: 7,
};

/** The quick decisions narrowest first (once, this run, then what covers any run). */
export function byBreadth<T extends { scope: Scope }>(choices: T[]): T[] {
  return [...choices].sort((a, b) => BREADTH[a.scope] - BREADTH[b.scope]);
}

/** Whether a grant of `scope` covers other runs than the one that asked. */
export function anyRun(scope: Scope): boolean {
  return BREADTH[scope] > BREADTH.run;
}

/** The agent a grant is for: the grant's recorded requester, else the prompt's. */
function agentOf(approval: Approval, grant?: Grant | null): string {
  return visible(grant?.constraints?.requester ?? (approval.requester || approval.requested_by));
}

/** Where a grant holds: the grant's recorded repository by name, else the prompt's place. */
function whereOf(approval: Approval, grant?: Grant | null): string {
  const repo = grant?.constraints?.repo;
  if (!repo) return placeOf(approval);
  return visible(repo.replace(/\/+$/, '').split('/').pop() || repo);
}

/**
 * What a grant of `scope` covers, in words, as `crates/assent-core/src/grant/scope.rs` binds
 * it: once → this exact action; run → equivalent requests of this run; command_profile → the
 * profile's commands in any run of this agent in this repository; path_pattern → these paths,
 * any run; task_type, repo → any run of this agent in this repository; exception → every
 * agent and run in the repository. Every grant but an exception is this agent's only.
 */
export function coverOf(approval: Approval, scope: Scope, grant?: Grant | null): string {
  const what = `${subjectOf(approval)}${othersOf(approval)}`;
  const agent = agentOf(approval, grant);
  const where = whereOf(approval, grant);
  const run = shortId(grant?.constraints?.run_id ?? approval.run_id);
  const profile = approval.profile ? visible(approval.profile) : null;
  const inWhere = where === '' ? '' : ` in ${where}`;
  const anyRunOf = `in any run of ${agent}${inWhere}`;
  switch (scope) {
    case 'once':
      return `${what}${inWhere} once (run ${run} of ${agent})`;
    case 'run':
      return `${what}${inWhere} for this run (run ${run} of ${agent})`;
    case 'command_profile':
      return `${profile ? `${profile} commands` : what} ${anyRunOf}`;
    case 'path_pattern':
      return `${what} and other changes to these paths ${anyRunOf}`;
    case 'task_type':
      return `${what} and the like for this task type ${anyRunOf}`;
    case 'repo':
      return `${what} and anything asking no more ${anyRunOf}`;
    case 'exception':
      return `the exception for every agent and run${inWhere}`;
    case 'org':
      return `${what} everywhere`;
  }
}

/**
 * A quick decision's button, worded by what it covers: "Allow once · 1 h", "Allow
 * maven-test for this run · 8 h", "Allow maven-test in any run of codex in shop · 1 h".
 */
export function scopeButton(approval: Approval, quick: QuickDecision): string {
  const lasts = durationLabel(quick.expires_in_seconds);
  const profile = approval.profile ? `${visible(approval.profile)} ` : '';
  const anyRunOf = `in any run of ${agentOf(approval)}${inPlace(approval)}`;
  const words: Record<Scope, string> = {
    once: 'Allow once',
    run: `Allow ${profile}for this run`,
    command_profile: `Allow ${profile}${anyRunOf}`,
    path_pattern: `Allow these paths ${anyRunOf}`,
    task_type: `Allow this task type ${anyRunOf}`,
    repo: `Allow like this ${anyRunOf}`,
    exception: `Allow the exception for every run${inPlace(approval)}`,
    org: 'Allow everywhere',
  };
  return `${words[quick.scope]} · ${lasts}`;
}

/** The rest of a batched prompt, which one decision settles too: " and 2 more maven-test
 * requests" (a command profile's batch may hold other command lines than the first). */
export function othersOf(approval: Approval): string {
  const more = approval.count - 1;
  if (!(more > 0)) return '';
  const profile = approval.profile ? `${visible(approval.profile)} ` : '';
  return ` and ${more} more ${profile}${more === 1 ? 'request' : 'requests'}`;
}

/** Ids as people can hold them: a session id (hex, UUID) by its first 8 characters, as the
 * list shows runs; any other at most 12 characters (the full id on hover). */
export function shortId(id: string): string {
  if (/^[0-9a-f-]{16,}$/i.test(id)) return id.slice(0, 8);
  return id.length > 12 ? `${id.slice(0, 12)}…` : id;
}

/**
 * The prompt the detail shows: the one a notification or link asked for (`wanted`) once it is
 * listed; else the one shown before (`selected`) — still listed, or `kept`: it left by
 * itself (decided elsewhere, expired) and stays on screen, marked, until the person moves on —
 * or its successor when it left after the person decided it here; the top only when nothing
 * was shown. A prompt arriving never takes the place of the one on screen.
 */
export function shownPrompt(ids: string[], seen: string[], selected: string | null, wanted: string | null, kept: string | null = null): string | null {
  if (wanted !== null && ids.includes(wanted)) return wanted;
  if (selected !== null && ids.includes(selected)) return selected;
  if (selected !== null && selected === kept) return selected;
  if (selected !== null && seen.includes(selected)) return successor(seen, ids, selected);
  return ids[0] ?? null;
}

/**
 * Where the selection goes when `gone` left the list: the prompt that followed it in the order
 * the person saw (`before`), else the one before it — never the top of the list, which may be
 * a riskier prompt the person was not looking at.
 */
export function successor(before: string[], now: string[], gone: string): string | null {
  const at = before.indexOf(gone);
  if (at === -1) return now[0] ?? null;
  for (const id of before.slice(at + 1)) if (now.includes(id)) return id;
  for (const id of before.slice(0, at).reverse()) if (now.includes(id)) return id;
  return now[0] ?? null;
}

/** What the toast says after a decision went through. */
export interface Toast {
  text: string;
  /** The grant Undo revokes, when there is one. */
  grantId: string | null;
  /** The denied approval Undo forgets (its next equivalent request asks again). */
  deniedId: string | null;
  /** How many agents were waiting on the prompt when it was approved: the approval itself let
   * them go ahead, so revoking the grant cannot take that back. */
  released?: number;
}

export function approvedToast(approval: Approval, request: DecisionRequest, grant: Grant | null | undefined, nowMs: number): Toast {
  if (request.decision === 'deny') {
    return { text: `Denied ${subjectOf(approval)}${inPlace(approval)}: “${visible(request.reason)}” — the agent was told.`, grantId: null, deniedId: approval.approval_id };
  }
  if (!grant) {
    // One of several approvals the prompt needs: nothing is granted yet.
    return { text: `Your approval of ${subjectOf(approval)} is counted; it waits for the others.`, grantId: null, deniedId: null };
  }
  const sentence = grantSentence(approval, { ...request, expires_in_seconds: secondsUntil(grant.expires_at, nowMs) }, nowMs, grant);
  return { text: `${sentence.replace(/^Allow/, 'Allowed')}.`, grantId: grant.grant_id, deniedId: null, released: approval.agents_waiting };
}

/** The toast's button for a grant: Undo while nothing went ahead on it, else Revoke (what
 * already ran stays done). */
export function undoLabel(toast: Toast): string {
  return (toast.released ?? 0) > 0 ? 'Revoke' : 'Undo';
}

/** What the toast says when a decision could not be sent and its prompt has left the screen
 * meanwhile (settled elsewhere, expired): said, never lost with the view that sent it. */
export function notDecidedToast(approval: Approval, why: string): Toast {
  return { text: `Not decided: ${subjectOf(approval)}${inPlace(approval)}. ${why}`, grantId: null, deniedId: null };
}

function secondsUntil(at: string, nowMs: number): number {
  return Math.max(60, Math.round((Date.parse(at) - nowMs) / 1000));
}

/** The toast after Undo revoked the grant: whether the agent had used it already, or had
 * gone ahead on the approval itself (`released`: the agents that were waiting on it). */
export function undoneToast(grant: Grant, released = 0): string {
  const used = grant.used_count;
  if (released > 0) {
    const waiting = released === 1 ? 'the request that was waiting' : `the ${released} requests that were waiting`;
    const since = used > 0 ? `, and the grant was used ${used === 1 ? 'once' : `${used} times`} since` : '';
    return `Revoked for later requests — but ${waiting} went ahead when you approved${since}; what ran stays done.`;
  }
  if (used === 0) return 'Undone: the grant is revoked before the agent used it.';
  return `Revoked — but the agent already used it ${used === 1 ? 'once' : `${used} times`}; what ran stays done.`;
}

const APPROVED_HOW: Partial<Record<Approval['status'], string>> = {
  approved_once: 'approved once',
  approved_for_run: 'approved for its run',
  approved_for_policy_scope: 'approved for a wider scope',
};

/**
 * What the detail says of a prompt that left while on screen though the person did not decide
 * it here: who decided it and when — "Decided by alice at 14:05: denied — “out of scope”." —
 * or that it expired, or its run ended. `settled` is the prompt as the service settled it
 * (null while the desk has not heard how).
 */
export function decidedElsewhere(settled: Approval | null, nowMs: number): string {
  if (settled === null || settled.status === 'requested') return 'No longer waiting: it was decided elsewhere or closed.';
  const at = clock(Date.parse(settled.decided_at ?? settled.updated_at), nowMs);
  const by = visible(actorWords(settled.decided_by ?? 'someone'));
  switch (settled.resolution) {
    case 'timed_out':
      return `Nobody decided it in time: it expired at ${at}.`;
    case 'cancelled':
      return `Closed at ${at}: its run ended.`;
    case 'denied': {
      const why = settled.decision_reason ? ` — “${visible(settled.decision_reason)}”` : '';
      return `Decided by ${by} at ${at}: denied${why}.`;
    }
    default:
      return `Decided by ${by} at ${at}: ${APPROVED_HOW[settled.status] ?? 'approved'}.`;
  }
}
