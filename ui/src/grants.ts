// A grant as people read it in the Grants view: what it allows, for whom, where, on which
// commit, for this run or any run, and — once it ended — why. Pure and tested (Vitest).
import { clock, shortId } from './decide';
import { SCOPE_LABELS, visible } from './logic';
import type { Grant } from './types';

/** What the grant allows, from the service's one-line summary without the scope words it
 * carries ("maven-test for run 3f9a…" → "maven-test"): those are said, in words, beside it. */
export function grantWhat(grant: Grant): string {
  const s = grant.summary.replace(/`+/g, '');
  const stripped: Partial<Record<Grant['scope_kind'], RegExp>> = {
    once: / once \(run .*\)$/,
    run: / for run .*$/,
    command_profile: / \(command profile\)$/,
    task_type: / for this task type$/,
    repo: / in this repository$/,
    org: / everywhere$/,
  };
  const re = stripped[grant.scope_kind];
  const what = re ? s.replace(re, '') : s;
  const profile = grant.constraints.profile;
  if (grant.scope_kind === 'command_profile' && profile && what === profile) return `${visible(profile)} commands`;
  return visible(what);
}

/** The repository by its name. */
function repoName(repo: string): string {
  const trimmed = repo.replace(/\/+$/, '');
  return trimmed.split('/').pop() || trimmed;
}

/**
 * For whom, where, on which commit and for which runs: "for claude-code · in shop · at commit
 * 1a2b3c4 · this run (run 3f9a1c2b)", "for codex · in shop · any run". An exception is every
 * agent's.
 */
export function grantReach(grant: Grant): string {
  const c = grant.constraints;
  const parts: string[] = [];
  if (grant.scope_kind === 'exception') parts.push('for every agent');
  else if (c.requester) parts.push(`for ${visible(c.requester)}`);
  if (c.repo) parts.push(`in ${visible(repoName(c.repo))}`);
  if (c.base_sha) parts.push(`at commit ${visible(c.base_sha.slice(0, 7))}`);
  if ((c.path_patterns ?? []).length > 0) parts.push(`on ${visible((c.path_patterns ?? []).join(', '))}`);
  if (c.task_type) parts.push(`task type ${visible(c.task_type)}`);
  const run = c.run_id ?? grant.run_id;
  parts.push(grant.scope_kind === 'once' || grant.scope_kind === 'run' ? `this run (run ${visible(shortId(run))})` : 'any run');
  return parts.join(' · ');
}

/** The scope in words ("This run", "Command profile (any run)"), never its wire name. */
export function scopeWords(grant: Grant): string {
  return SCOPE_LABELS[grant.scope_kind] ?? visible(grant.scope_kind);
}

/**
 * Why a grant that is no longer active ended, with when: "revoked by alice at 14:05: too
 * broad", "expired at 14:05", "used up (1 of 1 use)", "invalidated at 14:05: base commit
 * changed abc123 → def456". A run's grants also end when the run ends: the service records
 * that as expiry, so an expired run grant says both.
 */
export function grantEndWords(grant: Grant, nowMs: number): string {
  const at = (when: string | null | undefined) => (when ? ` at ${clock(Date.parse(when), nowMs)}` : '');
  const status = grant.status === 'active' && Date.parse(grant.expires_at) <= nowMs ? 'expired' : grant.status;
  switch (status) {
    case 'revoked': {
      const by = grant.revoked_by ? ` by ${visible(grant.revoked_by)}` : '';
      const why = grant.revoke_reason ? `: ${visible(grant.revoke_reason)}` : '';
      return `revoked${by}${at(grant.revoked_at)}${why}`;
    }
    case 'exhausted':
      return `used up (${grant.used_count} of ${grant.max_uses ?? grant.used_count} ${grant.max_uses === 1 ? 'use' : 'uses'})`;
    case 'invalidated': {
      const why = grant.invalidated_reason ? `: ${visible(grant.invalidated_reason)}` : ': what it was bound to changed';
      return `invalidated${at(grant.invalidated_at)}${why}`;
    }
    case 'expired':
      return grant.scope_kind === 'run' ? `ended${at(grant.expires_at)}: its time ran out or its run ended` : `expired${at(grant.expires_at)}`;
    default:
      return 'active';
  }
}

/** The grant's id as people can hold it (the full id on hover). */
export function grantId(grant: Grant): string {
  return visible(shortId(grant.grant_id));
}
