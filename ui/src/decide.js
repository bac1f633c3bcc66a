// What a decision grants, said before (the confirm step) and after (the toast), and where the
// selection goes next. Pure and tested (Vitest).
import { durationLabel, visible } from './logic';
const RANK = { low: 0, medium: 1, high: 2, critical: 3 };
/**
 * Whether a person may approve `approval` in one act (a key, one click): its risk is at most
 * the policy's `[desk] quick_up_to` (medium unless the policy moved it). Riskier prompts need
 * the confirm step, which names what will be granted.
 */
export function oneAct(approval) {
    return RANK[approval.risk] <= RANK[approval.quick_up_to ?? 'medium'];
}
/** What the approval is about, in a few words: the command line, else the summary. */
export function subjectOf(approval) {
    const e = approval.evidence;
    const line = e.command_line ?? e.command?.join(' ');
    return plainTitle(line && line.trim() !== '' ? line : e.summary);
}
/**
 * A title as people read it: no markdown backticks, no `file_write:`-style kind prefixes, the
 * control characters made visible.
 */
export function plainTitle(text) {
    const noPrefix = text.replace(/^(shell|file_write|file_read|file_delete|network|credential|mcp|pr|other)\s*:\s*/i, '');
    return visible(noPrefix.replace(/`+/g, ''));
}
/** Where: the repository's name (the last part of its path), else the cwd's last part. */
export function placeOf(approval) {
    const where = (approval.repo ?? approval.evidence.cwd ?? '').replace(/\/+$/, '');
    const name = where.split('/').pop() ?? where;
    return visible(name === '' ? where || '/' : name);
}
const SCOPE_WORDS = {
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
export function clock(at, nowMs) {
    const d = new Date(at);
    const today = new Date(nowMs);
    const hm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
    if (d.toDateString() === today.toDateString())
        return hm;
    return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')} ${hm}`;
}
/**
 * The grant a decision asks for, as a sentence: "Allow mvn -q test in shop for this run
 * (run-1, agent codex) until 16:20 · 8 h". Said in the confirm step and in the toast.
 */
export function grantSentence(approval, request, nowMs) {
    if (request.decision !== 'approve')
        return `Deny ${subjectOf(approval)} in ${placeOf(approval)}`;
    const seconds = request.expires_in_seconds;
    const until = clock(nowMs + seconds * 1000, nowMs);
    const uses = request.max_uses ? ` · at most ${request.max_uses} ${request.max_uses === 1 ? 'use' : 'uses'}` : '';
    return `Allow ${subjectOf(approval)} in ${placeOf(approval)} ${SCOPE_WORDS[request.scope]} (${whoAsked(approval)}) until ${until} · ${durationLabel(seconds)}${uses}`;
}
/** "run run-1 of agent default" — to whom the grant goes. */
export function whoAsked(approval) {
    return visible(`run ${shortId(approval.run_id)} of ${approval.requester || approval.requested_by}`);
}
/** Ids as people can hold them: at most 12 characters (the full id on hover). */
export function shortId(id) {
    return id.length > 12 ? `${id.slice(0, 12)}…` : id;
}
/**
 * Where the selection goes when `gone` left the list: the prompt that followed it in the order
 * the person saw (`before`), else the one before it — never the top of the list, which may be
 * a riskier prompt the person was not looking at.
 */
export function successor(before, now, gone) {
    const at = before.indexOf(gone);
    if (at === -1)
        return now[0] ?? null;
    for (const id of before.slice(at + 1))
        if (now.includes(id))
            return id;
    for (const id of before.slice(0, at).reverse())
        if (now.includes(id))
            return id;
    return now[0] ?? null;
}
export function approvedToast(approval, request, grant, nowMs) {
    if (request.decision === 'deny') {
        return { text: `Denied ${subjectOf(approval)} in ${placeOf(approval)}: “${visible(request.reason)}” — the agent was told.`, grantId: null, deniedId: approval.approval_id };
    }
    if (!grant) {
        // One of several approvals the prompt needs: nothing is granted yet.
        return { text: `Your approval of ${subjectOf(approval)} is counted; it waits for the others.`, grantId: null, deniedId: null };
    }
    const sentence = grantSentence(approval, { ...request, expires_in_seconds: secondsUntil(grant.expires_at, nowMs) }, nowMs);
    return { text: `${sentence.replace(/^Allow/, 'Allowed')}.`, grantId: grant.grant_id, deniedId: null };
}
function secondsUntil(at, nowMs) {
    return Math.max(60, Math.round((Date.parse(at) - nowMs) / 1000));
}
/** The toast after Undo revoked the grant: whether the agent had used it already. */
export function undoneToast(grant) {
    const used = grant.used_count;
    if (used === 0)
        return 'Undone: the grant is revoked before the agent used it.';
    return `Revoked — but the agent already used it ${used === 1 ? 'once' : `${used} times`}; what ran stays done.`;
}
