// A grant as people read it in the Grants view: what it allows, for whom, where, on which
// commit, for this run or any run, and — once it ended — why. Pure and tested (Vitest).
import { clock, shortId } from './decide';
import { SCOPE_LABELS } from './labels';
import { visible } from './text';
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
