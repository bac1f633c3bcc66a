// What the window shows of a diff or PR approval's packet: flags and states in words, the diff
// split into styled lines (rendered as text, never markup), collapsed when long.
import { durationLabel, visible } from './logic';
/** Lines of a diff shown before "Show all". */
export const DIFF_PREVIEW_LINES = 40;
const FLAG_WORDS = {
    workflow_changed: 'CI workflow changed',
    security_changed: 'Security file changed',
    dependency_changed: 'Dependencies changed',
    lockfile_changed: 'Lock file changed',
    tests_deleted: 'Tests deleted',
    tests_weakened: 'Tests weakened',
    public_api_changed: 'Public API changed',
    wide: 'Wide change',
    policy_path: 'Policy-listed path',
};
/** A diff flag in words ("CI workflow changed"), the same words as the notification. */
export function flagLabel(flag) {
    return FLAG_WORDS[flag] ?? flag;
}
/** "+3 −1" for a text file, "binary" for a binary one (counted, never shown). */
export function fileCounts(file) {
    return file.binary ? 'binary' : `+${file.added} −${file.removed}`;
}
/** A unified diff as lines with their kind: `+`/`-` lines, `@@` hunks, file headers. */
export function diffLines(diff) {
    const lines = diff.split('\n');
    if (lines.length > 0 && lines[lines.length - 1] === '')
        lines.pop();
    return lines.map((line) => ({ kind: lineKind(line), text: visible(line) }));
}
function lineKind(line) {
    if (line.startsWith('+++ ') || line.startsWith('--- ') || line.startsWith('diff ') || line.startsWith('index ')) {
        return 'file';
    }
    if (line.startsWith('@@'))
        return 'hunk';
    if (line.startsWith('+'))
        return 'add';
    if (line.startsWith('-'))
        return 'del';
    return 'context';
}
/** The lines to show: all when `expanded` or short, else the first [`DIFF_PREVIEW_LINES`]. */
export function shownLines(lines, expanded) {
    if (expanded || lines.length <= DIFF_PREVIEW_LINES)
        return { shown: lines, hidden: 0 };
    return { shown: lines.slice(0, DIFF_PREVIEW_LINES), hidden: lines.length - DIFF_PREVIEW_LINES };
}
/** How a diff approval stands for a PR, in words. */
export function stateLabel(state) {
    switch (state) {
        case 'current':
            return 'approved, current';
        case 'stale':
            return 'stale';
        case 'pending':
            return 'pending';
        case 'denied':
            return 'denied';
    }
}
/** Where a PR goes: "origin/fix-build", or whichever of the two is known. */
export function prTarget(packet) {
    if (packet.remote && packet.branch)
        return `${packet.remote}/${packet.branch}`;
    return packet.remote ?? packet.branch ?? null;
}
/** Why a past grant ended, for people: who revoked it and why, or why it was invalidated. */
export function grantEnd(grant) {
    if (grant.invalidated_reason)
        return grant.invalidated_reason;
    const by = grant.revoked_by ? `${grant.revoked_by}: ` : '';
    return `${by}${grant.revoke_reason ?? ''}`;
}
/** What a capability is for: "GET, HEAD on repo.maven.apache.org", or "any host" when unbounded. */
export function capabilityReach(packet) {
    const hosts = packet.hosts ?? [];
    const methods = packet.methods ?? [];
    const where = hosts.length > 0 ? hosts.join(', ') : 'any host';
    return methods.length > 0 ? `${methods.join(', ')} on ${where}` : where;
}
/** How long a capability's grant lasts: "at most 1 h". */
export function capabilityTtl(packet) {
    return `at most ${durationLabel(packet.ttl_seconds)}`;
}
/** How far an exception reaches: "every run in /home/dev/shop for 30 d". */
export function exceptionReach(packet) {
    const hosts = packet.hosts ?? [];
    const what = hosts.length > 0 ? `any command reaching only ${hosts.join(', ')}, ` : '';
    return `${what}every run in ${packet.repo} for ${durationLabel(packet.lifetime_seconds)}`;
}
/** Whether a grant is an exception (it goes past a policy rule, for a repository). */
export function isException(grant) {
    return grant.scope_kind === 'exception';
}
/** Which approval of a campaign this is: "Definition" or "Stage 2: 3 repos". */
export function fleetStage(packet) {
    if (packet.stage === undefined || packet.stage === null)
        return 'Definition';
    const n = (packet.batch ?? []).length;
    return `Stage ${packet.stage}: ${n} ${n === 1 ? 'repo' : 'repos'}`;
}
/** How the campaign went so far against its stop policy: "3 passed, 1 failed of 12; stops at 2 failed". */
export function fleetProgress(packet) {
    const passed = packet.passed ?? 0;
    const failed = packet.failed ?? 0;
    const total = packet.target_repos.length;
    return `${passed} passed, ${failed} failed of ${total}; stops at ${packet.failure_threshold} failed`;
}
