import { describe, expect, it } from 'vitest';
import { grantEndWords, grantId, grantReach, grantWhat, scopeWords } from './grants';
import { constraintLines, countdown, pastStatus, splitGrants, usesLabel } from './grants';
import { FIXTURE_NOW, fixtureGrant } from './test-fixtures';
import type { Grant } from './types';

const NOW = new Date(2030, 0, 1, 14, 0, 0).getTime();
const RUN = '3f9a1c2b-5d6e-4f70-8a9b-0c1d2e3f4a5b';

function grant(extra: Partial<Grant> = {}): Grant {
  return {
    grant_id: '7c1e2f30-aaaa-4bbb-8ccc-123456789abc', approval_id: 'ap-1', run_id: RUN, scope_kind: 'run', action_kinds: ['shell'],
    constraints: {
      run_id: RUN, profile: 'maven-test', repo: '/tmp/x/src/shop', base_sha: '1a2b3c4d5e6f7a8b9c0d', requester: 'claude-code', path_patterns: [],
      approved: { rules: ['profile.maven-test'], risk: 'medium', approval_type: 'tool' },
    },
    created_at: new Date(NOW - 60_000).toISOString(), expires_at: new Date(NOW + 3600_000).toISOString(), max_uses: null, used_count: 2,
    created_by: 'owner', revocable: true, revoked_at: null, policy_version: 'v1', status: 'active', summary: `maven-test for run ${RUN}`, ...extra,
  };
}

describe('a grant at a glance', () => {
  it('says for which agent, where, on which commit, and for this run or any run, with no raw ids', () => {
    expect(grantWhat(grant()), 'what it allows, without the run id the summary carries').toBe('maven-test');
    expect(grantReach(grant()), 'agent, repository by name, short commit, this run by its short id').toBe(
      'for claude-code · in shop · at commit 1a2b3c4 · this run (run 3f9a1c2b)',
    );
    const profile = grant({ scope_kind: 'command_profile', summary: 'maven-test (command profile)' });
    expect(grantWhat(profile), 'a profile grant allows its commands').toBe('maven-test commands');
    expect(grantReach(profile), 'a profile grant holds for any run').toBe('for claude-code · in shop · at commit 1a2b3c4 · any run');
    expect(scopeWords(profile), 'the scope in words, never command_profile').toBe('Command profile (any run)');
    expect(scopeWords(grant()), 'the run scope in words').toBe('This run');
    expect(grantId(grant()), 'no full UUID: the first 8 characters').toBe('7c1e2f30');
    const exception = grant({ scope_kind: 'exception', constraints: { repo: '/tmp/x/src/shop', exception_rules: ['r'], path_patterns: [] } });
    expect(grantReach(exception), 'an exception is every agent’s').toBe('for every agent · in shop · any run');
  });

  it('never shows [object Object] among the details', () => {
    const lines = constraintLines(grant());
    expect(lines.join(' '), 'what was approved is said field by field').not.toContain('[object Object]');
    expect(lines, 'the approved record in words').toContain('approved: rules profile.maven-test; risk medium; approval_type tool');
  });

  it('says why a grant ended, and when', () => {
    const at = new Date(NOW - 120_000).toISOString();
    expect(grantEndWords(grant({ status: 'revoked', revoked_at: at, revoked_by: 'ana', revoke_reason: 'Too broad' }), NOW), 'who revoked it, when, why').toBe(
      'revoked by ana at 13:58: Too broad',
    );
    expect(grantEndWords(grant({ status: 'invalidated', invalidated_at: at, invalidated_reason: 'base commit changed abc123 → def456' }), NOW), 'a new commit').toBe(
      'invalidated at 13:58: base commit changed abc123 → def456',
    );
    expect(grantEndWords(grant({ status: 'exhausted', max_uses: 1, used_count: 1, scope_kind: 'once' }), NOW), 'used up').toBe('used up (1 of 1 use)');
    expect(grantEndWords(grant({ status: 'expired', expires_at: at }), NOW), 'a run grant ends with its run or its time').toBe(
      'ended at 13:58: its time ran out or its run ended',
    );
    expect(grantEndWords(grant({ status: 'active', expires_at: at, scope_kind: 'command_profile' }), NOW), 'past its time while still listed active').toBe('expired at 13:58');
  });
});

describe('grants', () => {
  it('counts down and says expired at zero', () => {
    expect(countdown('2030-01-01T00:45:00Z', FIXTURE_NOW), 'minutes and seconds').toBe('15:00');
    expect(countdown('2030-01-01T02:30:05Z', FIXTURE_NOW), 'hours').toBe('2:00:05');
    expect(countdown('2030-01-01T00:30:00Z', FIXTURE_NOW), 'zero left').toBe('expired');
    expect(countdown('not a date', FIXTURE_NOW), 'garbage is not a countdown').toBe('expired');
  });

  it('splits active from expired and revoked', () => {
    const grants = [
      fixtureGrant('later', { expires_at: '2030-01-01T02:00:00Z' }),
      fixtureGrant('sooner', { expires_at: '2030-01-01T00:40:00Z' }),
      fixtureGrant('lapsed', { expires_at: '2030-01-01T00:10:00Z' }),
      fixtureGrant('revoked', { status: 'revoked', revoked_at: '2030-01-01T00:20:00Z' }),
    ];
    const { active, past } = splitGrants(grants, FIXTURE_NOW);
    expect(active.map((g) => g.grant_id), 'active, soonest to expire first').toEqual(['sooner', 'later']);
    expect(past.map((g) => g.grant_id), 'past below, newest first').toEqual(['revoked', 'lapsed']);
    expect(pastStatus(grants[2]!), 'an active grant past its expiry shows as expired').toBe('expired');
  });

  it('labels uses and constraints', () => {
    expect(usesLabel(fixtureGrant('g', { used_count: 2, max_uses: 5 })), 'bounded').toBe('2 / 5 uses');
    expect(usesLabel(fixtureGrant('g', { used_count: 3 })), 'unbounded').toBe('3 uses');
    expect(constraintLines(fixtureGrant('g')), 'empty constraints are skipped').toEqual(['run_id: run-1', 'profile: maven-test']);
    const hashed = fixtureGrant('h', { constraints: { batch_key: 'bf13e05c1da2f75267cd91fb', run_id: 'r' } });
    expect(constraintLines(hashed), 'hashes are shortened').toEqual(['batch_key: bf13e05c1da2…', 'run_id: r']);
  });
});
