// What the window shows of a diff or PR approval's packet: states in words, the diff
// split into styled lines (rendered as text, never markup), collapsed when long.
import { durationLabel } from './labels';
import { visible } from './text';
import type { CredentialPacket, DiffApprovalState, DiffFile, ExceptionPacket, FleetPacket, Grant, PrPacket } from './types';

/** Lines of a diff shown before "Show all". */
export const DIFF_PREVIEW_LINES = 40;

/** "+3 −1" for a text file, "binary" for a binary one (counted, never shown). */
export function fileCounts(file: DiffFile): string {
  return file.binary ? 'binary' : `+${file.added} −${file.removed}`;
}

export type DiffLineKind = 'add' | 'del' | 'hunk' | 'file' | 'context';

export interface DiffLine {
  kind: DiffLineKind;
  /** The line as text, hidden characters shown as escapes. */
  text: string;
}

/** A unified diff as lines with their kind: `+`/`-` lines, `@@` hunks, file headers. */
export function diffLines(diff: string): DiffLine[] {
  const lines = diff.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => ({ kind: lineKind(line), text: visible(line) }));
}

function lineKind(line: string): DiffLineKind {
  if (line.startsWith('+++ ') || line.startsWith('--- ') || line.startsWith('diff ') || line.startsWith('index ')) {
    return 'file';
  }
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  return 'context';
}

/** The lines to show: all when `expanded` or short, else the first [`DIFF_PREVIEW_LINES`]. */
export function shownLines(lines: DiffLine[], expanded: boolean): { shown: DiffLine[]; hidden: number } {
  if (expanded || lines.length <= DIFF_PREVIEW_LINES) return { shown: lines, hidden: 0 };
  return { shown: lines.slice(0, DIFF_PREVIEW_LINES), hidden: lines.length - DIFF_PREVIEW_LINES };
}

/** How a diff approval stands for a PR, in words. */
export function stateLabel(state: DiffApprovalState): string {
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
export function prTarget(packet: PrPacket): string | null {
  if (packet.remote && packet.branch) return `${packet.remote}/${packet.branch}`;
  return packet.remote ?? packet.branch ?? null;
}

/** Why a past grant ended, for people: who revoked it and why, or why it was invalidated. */
export function grantEnd(grant: Grant): string {
  if (grant.invalidated_reason) return grant.invalidated_reason;
  const by = grant.revoked_by ? `${grant.revoked_by}: ` : '';
  return `${by}${grant.revoke_reason ?? ''}`;
}

/**
 * What a capability is declared for — "GET, HEAD on repo.maven.apache.org (declared; not
 * enforced: …)". Nothing limits the process that gets the value to those hosts or methods, so
 * the words say it is what the policy declares, not what is enforced.
 */
export function capabilityReach(packet: CredentialPacket): string {
  const hosts = packet.hosts ?? [];
  const methods = packet.methods ?? [];
  const where = hosts.length > 0 ? hosts.join(', ') : 'any host';
  const declared = methods.length > 0 ? `${methods.join(', ')} on ${where}` : where;
  return `${declared} (declared by the policy; not enforced: the process that gets it can use it with any host and method)`;
}

/** What a push sends: "2 commits not on origin/main", or why that is unknown. */
export function pushCommitsLine(packet: PrPacket): string | null {
  const push = packet.push;
  if (!push) return null;
  const commits = push.commits;
  if (!commits) return `Commits unknown: ${push.unknown ?? 'not read'}`;
  const n = commits.count === 1 ? '1 commit' : `${commits.count} commits`;
  return `${n} not on ${commits.against}${commits.diffstat ? ` · ${commits.diffstat}` : ''}`;
}

/** What a force push drops: "drops 3 commits origin/main has" (null when it is no force). */
export function pushDropsLine(packet: PrPacket): string | null {
  const push = packet.push;
  if (!push?.force) return null;
  const dropped = push.commits?.overwritten;
  if (dropped === undefined || dropped === null) return "Force: the remote's history may be rewritten";
  if (dropped === 0) return 'Force: drops no commit the remote has now';
  const against = push.commits?.against ?? 'the remote';
  return `Force: drops ${dropped === 1 ? '1 commit' : `${dropped} commits`} ${against} has`;
}

/**
 * argv as one shell line, each word quoted where the shell would split it. A word holding a
 * variable's or a substitution's spelling (`$f`, `$(date)`) is double-quoted, where the shell
 * still expands it: single quotes would change its meaning (`node --check '$f'` checks a file
 * named `$f`), as the service's steps are quoted too.
 */
export function shellLine(argv: string[]): string {
  return argv
    .map((w) => {
      if (w !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(w)) return w;
      if (w.includes('$')) return `"${w.replace(/["\\`]/g, '\\$&')}"`;
      return `'${w.replace(/'/g, "'\\''")}'`;
    })
    .join(' ');
}

/** How long a capability's grant lasts: "at most 1 h". */
export function capabilityTtl(packet: CredentialPacket): string {
  return `at most ${durationLabel(packet.ttl_seconds)}`;
}

/** How far an exception reaches: "every run in /home/dev/shop for 30 d". */
export function exceptionReach(packet: ExceptionPacket): string {
  const hosts = packet.hosts ?? [];
  const what = hosts.length > 0 ? `any command reaching only ${hosts.join(', ')}, ` : '';
  return `${what}every run in ${packet.repo} for ${durationLabel(packet.lifetime_seconds)}`;
}

/** Whether a grant is an exception (it goes past a policy rule, for a repository). */
export function isException(grant: Grant): boolean {
  return grant.scope_kind === 'exception';
}

/** Which approval of a campaign this is: "Definition" or "Stage 2: 3 repos". */
export function fleetStage(packet: FleetPacket): string {
  if (packet.stage === undefined || packet.stage === null) return 'Definition';
  const n = (packet.batch ?? []).length;
  return `Stage ${packet.stage}: ${n} ${n === 1 ? 'repo' : 'repos'}`;
}

/** How the campaign went so far against its stop policy: "3 passed, 1 failed of 12; stops at 2 failed". */
export function fleetProgress(packet: FleetPacket): string {
  const passed = packet.passed ?? 0;
  const failed = packet.failed ?? 0;
  const total = packet.target_repos.length;
  return `${passed} passed, ${failed} failed of ${total}; stops at ${packet.failure_threshold} failed`;
}
