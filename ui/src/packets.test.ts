import { describe, expect, it } from 'vitest';
import {
  DIFF_PREVIEW_LINES, capabilityReach, capabilityTtl, diffLines, exceptionReach, isException, fileCounts, fleetProgress, fleetStage, grantEnd, prTarget,
  shownLines, stateLabel,
} from './packets';
import type { Grant, GrantStatus } from './types';

describe('diff packet', () => {
  it('counts added and removed lines per file, and a binary file as binary', () => {
    expect(fileCounts({ path: 'a.rs', change: 'modified', added: 3, removed: 1, binary: false }), 'counts in +/−').toBe('+3 −1');
    expect(fileCounts({ path: 'logo.png', change: 'added', added: 0, removed: 0, binary: true }), 'a binary file is never shown').toBe('binary');
  });

  it('styles + and − lines apart from file headers and hunks, and shows hidden characters', () => {
    const lines = diffLines('--- a/x.yml\n+++ b/x.yml\n@@ -1,2 +1,2 @@\n keep\n-old\n+new \u202e<b>\n');
    expect(lines.map((l) => l.kind), 'headers are not additions or removals').toEqual(['file', 'file', 'hunk', 'context', 'del', 'add']);
    expect(lines[5]!.text, 'a bidi override is an escape and markup stays text').toBe('+new \\u{202e}<b>');
  });

  it('collapses a long diff to its first lines until expanded', () => {
    const long = diffLines(Array.from({ length: DIFF_PREVIEW_LINES + 5 }, (_, i) => `+line ${i}`).join('\n'));
    const collapsed = shownLines(long, false);
    expect(collapsed.shown.length, 'a long diff shows its first lines').toBe(DIFF_PREVIEW_LINES);
    expect(collapsed.hidden, 'and says how many more there are').toBe(5);
    expect(shownLines(long, true).shown.length, 'expanded shows every line').toBe(DIFF_PREVIEW_LINES + 5);
    expect(shownLines(diffLines('+a\n-b'), false).hidden, 'a short diff is never collapsed').toBe(0);
  });
});

describe('PR packet', () => {
  it('says where the PR goes with whatever is known', () => {
    expect(prTarget({ remote: 'origin', branch: 'fix', diff_approvals: [] }), 'remote and branch').toBe('origin/fix');
    expect(prTarget({ branch: 'fix', diff_approvals: [] }), 'the branch alone').toBe('fix');
    expect(prTarget({ diff_approvals: [] }), 'nothing known').toBeNull();
  });

  it('names each diff approval state', () => {
    expect(stateLabel('current'), 'an approval still counting').toBe('approved, current');
    expect(stateLabel('stale'), 'the base or diff changed since').toBe('stale');
    expect(stateLabel('pending')).toBe('pending');
    expect(stateLabel('denied')).toBe('denied');
  });
});

describe('grant end', () => {
  const grant = (extra: Partial<Grant>): Grant => ({
    grant_id: 'g', approval_id: 'a', run_id: 'r', scope_kind: 'once', action_kinds: ['file_write'], constraints: {},
    created_at: '2030-01-01T00:00:00Z', expires_at: '2030-01-01T01:00:00Z', max_uses: null, used_count: 0,
    created_by: 'owner', revocable: true, revoked_at: null, policy_version: 'v', status: 'expired', summary: 's', ...extra,
  });

  it('shows why an invalidated grant stopped covering', () => {
    const invalidated = grant({
      status: 'invalidated' as GrantStatus,
      invalidated_reason: 'base commit changed abc123 → def456',
    });
    expect(grantEnd(invalidated), 'the reason names the change').toBe('base commit changed abc123 → def456');
  });

  it('shows who revoked a grant and why', () => {
    expect(grantEnd(grant({ status: 'revoked', revoked_by: 'ana', revoke_reason: 'Too broad' })), 'by and reason').toBe('ana: Too broad');
    expect(grantEnd(grant({})), 'an expired grant has no note').toBe('');
  });
});

describe('credential, pre-run and fleet packets', () => {
  const credential = {
    capability: 'registry.maven.readonly', ttl_seconds: 3600, hosts: ['repo.maven.apache.org'], methods: ['GET', 'HEAD'],
    inject_as: 'MAVEN_TOKEN', reason: 'fetch dependencies', run_id: 'r1', agent_visibility: 'masked in output',
  };

  it('says what a capability opens and for how long, never more than the packet holds', () => {
    expect(capabilityReach(credential), 'methods on hosts, as the policy declares them').toMatch(/^GET, HEAD on repo\.maven\.apache\.org \(declared/);
    expect(capabilityReach(credential), 'nothing enforces hosts or methods: the words do not claim it').toContain('not enforced');
    expect(capabilityReach({ ...credential, hosts: [], methods: [] }), 'an unbounded capability says so').toMatch(/^any host /);
    expect(capabilityTtl(credential), 'the TTL is an upper bound').toBe('at most 1 h');
  });

  const fleet = {
    campaign: 'spring-boot-3.4', target_repos: ['a', 'b', 'c', 'd'], batch: [] as string[], selection_criteria: 'java',
    prompt_contract: 'upgrade', risk: 'high', verifier_profile: 'maven-test', stop_policy: 'stop after 2 failed',
    failure_threshold: 2, sample_diff: '', expected_pr_body: '', cost_estimate: '$4',
  };

  it('tells the definition from a stage and counts the stage\'s repos', () => {
    expect(fleetStage(fleet), 'no stage: the campaign definition').toBe('Definition');
    expect(fleetStage({ ...fleet, stage: 2, batch: ['a', 'b'] }), 'a stage names its batch size').toBe('Stage 2: 2 repos');
    expect(fleetStage({ ...fleet, stage: 1, batch: ['a'] }), 'one repo is singular').toBe('Stage 1: 1 repo');
  });

  it('shows progress against the stop policy', () => {
    expect(fleetProgress({ ...fleet, passed: 3, failed: 1 }), 'outcomes so far and the threshold').toBe('3 passed, 1 failed of 4; stops at 2 failed');
    expect(fleetProgress(fleet), 'no outcomes yet reads as zero').toBe('0 passed, 0 failed of 4; stops at 2 failed');
  });
});

describe('exception packet', () => {
  const packet = {
    rule: 'ask.network', finding: 'network access beyond the baseline: https://pkg.example.com', rules: ['ask.network'],
    lifetime_seconds: 30 * 24 * 3600, repo: '/home/dev/shop', reason: 'only published there', covered_command: 'curl …',
  };

  it('says where and how long an exception holds', () => {
    expect(exceptionReach(packet), 'every run of the repository, for its lifetime').toBe('every run in /home/dev/shop for 30 d');
  });

  it('says when an exception holds for hosts, not one command', () => {
    expect(
      exceptionReach({ ...packet, hosts: ['pkg.example.com'] }),
      'a host-held exception covers other commands too: the reviewer must see how wide it is',
    ).toBe('any command reaching only pkg.example.com, every run in /home/dev/shop for 30 d');
  });

  it('tells exception grants from the others', () => {
    const grant = {
      grant_id: 'g', approval_id: 'a', run_id: 'r', scope_kind: 'exception', action_kinds: ['shell'],
      constraints: { repo: '/home/dev/shop', exception_rules: ['ask.network'] }, created_at: '', expires_at: '', max_uses: null,
      used_count: 0, created_by: 'sam', revocable: true, revoked_at: null, policy_version: 'p', summary: 's',
    } as unknown as Grant;
    expect(isException(grant), 'the exception scope marks it').toBe(true);
    expect(isException({ ...grant, scope_kind: 'run' }), 'a run grant is not one').toBe(false);
  });
});
