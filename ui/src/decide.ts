// What a decision grants, said before (the confirm step) and after (the toast), and where the
// selection goes next. Pure and tested (Vitest).
import { durationLabel, visible } from './logic';
import { shellLine } from './packets';
import type { Approval, DecisionRequest, Grant, Risk, Scope } from './types';

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
  return visible(noPrefix.replace(/`+/g, ''));
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

const SCOPE_WORDS: Record<Scope, string> = {
  once: 'once',
  command_profile: 'for this command profile',
  path_pattern: 'for these paths',
  run: 'for this run',
  task_type: 'for this task type',
  repo: 'in this repository',
  org: 'everywhere',
  exception: 'as an exception',
};

/** "14:05" (local time), with the date when it is not today. */
export function clock(at: number, nowMs: number): string {
  const d = new Date(at);
  const today = new Date(nowMs);
  const hm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  if (d.toDateString() === today.toDateString()) return hm;
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')} ${hm}`;
}

/**
 * The grant a decision asks for, as a sentence: "Allow mvn -q test in shop for this run
 * (run-1, agent codex) until 16:20 · 8 h". Said in the confirm step and in the toast.
 */
export function grantSentence(approval: Approval, request: DecisionRequest, nowMs: number): string {
  if (request.decision !== 'approve') return `Deny ${subjectOf(approval)}${othersOf(approval)}${inPlace(approval)}`;
  const seconds = request.expires_in_seconds;
  const until = clock(nowMs + seconds * 1000, nowMs);
  const uses = request.max_uses ? ` · at most ${request.max_uses} ${request.max_uses === 1 ? 'use' : 'uses'}` : '';
  return `Allow ${subjectOf(approval)}${othersOf(approval)}${inPlace(approval)} ${SCOPE_WORDS[request.scope]} (${whoAsked(approval)}) until ${until} · ${durationLabel(seconds)}${uses}`;
}

/** The rest of a batched prompt, which one decision settles too: " and 2 more maven-test
 * requests" (a command profile's batch may hold other command lines than the first). */
export function othersOf(approval: Approval): string {
  const more = approval.count - 1;
  if (!(more > 0)) return '';
  const profile = approval.profile ? `${visible(approval.profile)} ` : '';
  return ` and ${more} more ${profile}${more === 1 ? 'request' : 'requests'}`;
}

/** "run run-1 of agent default" — to whom the grant goes. */
export function whoAsked(approval: Approval): string {
  return visible(`run ${shortId(approval.run_id)} of ${approval.requester || approval.requested_by}`);
}

/** Ids as people can hold them: at most 12 characters (the full id on hover). */
export function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 12)}…` : id;
}

/**
 * Where the selection goes when `gone` left the list: the prompt that followed it in the order
 * the person saw (`before`), else the one before it — never the top of the list, which may be
 * a riskier prompt the person was not looking at.
 */
/**
 * The prompt the detail shows: the one a notification or link asked for (`wanted`) once it is
 * listed; else the one shown before (`selected`), or its successor when it left; the top only
 * when nothing was shown. A prompt arriving never takes the place of the one on screen.
 */
export function shownPrompt(ids: string[], seen: string[], selected: string | null, wanted: string | null): string | null {
  if (wanted !== null && ids.includes(wanted)) return wanted;
  if (selected !== null && ids.includes(selected)) return selected;
  if (selected !== null && seen.includes(selected)) return successor(seen, ids, selected);
  return ids[0] ?? null;
}

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
  const sentence = grantSentence(approval, { ...request, expires_in_seconds: secondsUntil(grant.expires_at, nowMs) }, nowMs);
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
