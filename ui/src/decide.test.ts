import { describe, expect, it } from 'vitest';
import { anyRun, approvedToast, byBreadth, clock, coverOf, decidedElsewhere, grantSentence, notDecidedToast, oneAct, placeOf, plainTitle, scopeButton, shownPrompt, subjectOf, successor, undoLabel, undoneToast } from './decide';
import type { Approval, Grant, Risk } from './types';

const NOW = new Date(2030, 0, 1, 14, 0, 0).getTime();

const count = (text: string, c: string) => text.split(c).length - 1;

function approval(extra: Partial<Approval> = {}): Approval {
  const at = new Date(NOW - 60_000).toISOString();
  return {
    approval_id: 'ap-1', run_id: 'run-window-0123456789', task_id: 't', repo: '/work/shop', requested_by: 'agent', action_kind: 'shell',
    status: 'requested', decision: 'ask', risk: 'medium', reasons: ['r'], rule: 'profile.maven-test',
    recommendation: { decision: 'approve', scope: 'run', text: 'Allow for this run' }, profile: 'maven-test',
    evidence: { type: 'tool', summary: 'Run maven-test in shop', command_line: 'mvn -q test', cwd: '/work/shop', paths: [], network: [], policy_findings: [], suspicious_text: false },
    offered_scopes: ['once', 'run'], batch_key: 'b', count: 1, members: [], reason: 'why',
    created_at: at, updated_at: at, expires_at: at, requester: 'claude', required_approvals: 1, approvals: [],
    quick_decisions: [], approval_type: 'tool', agents_waiting: 1, quick_up_to: 'medium', fallback_on_timeout: 'deny', words: { headline: '', summary: [], flags: [] }, ...extra,
  };
}

function grant(extra: Partial<Grant> = {}): Grant {
  return {
    grant_id: 'g-1', approval_id: 'ap-1', run_id: 'run-1', scope_kind: 'run', action_kinds: ['shell'],
    constraints: { run_id: 'run-1', path_patterns: [] }, created_at: new Date(NOW).toISOString(),
    expires_at: new Date(NOW + 8 * 3600_000).toISOString(), max_uses: null, used_count: 0, created_by: 'owner', revocable: true,
    revoked_at: null, policy_version: 'v1', status: 'active', summary: 'mvn for run run-1', ...extra,
  };
}

describe('friction grows with the risk', () => {
  it('allows one act up to the policy line and no further', () => {
    const at = (risk: Risk, line: Risk = 'medium') => oneAct(approval({ risk, quick_up_to: line }));
    expect([at('low'), at('medium')], 'low and medium keep their quick paths by default').toEqual([true, true]);
    expect([at('high'), at('critical')], 'high and critical need the confirm step').toEqual([false, false]);
    expect(at('medium', 'low'), 'quick_up_to = low makes medium deliberate').toBe(false);
    expect(at('high', 'high'), 'quick_up_to = high makes high one act').toBe(true);
    const older = approval({ risk: 'high' }) as Partial<Approval>;
    delete older.quick_up_to;
    expect(oneAct(older as Approval), 'an older service without the field still gets the default line').toBe(false);
  });
});

describe('what a decision grants, in words', () => {
  it('names the action, where, the scope, whose run and until when', () => {
    const sentence = grantSentence(approval(), { decision: 'approve', scope: 'run', expires_in_seconds: 8 * 3600 }, NOW);
    expect(sentence, 'the confirm step says exactly what will be granted').toBe(
      'Allow mvn -q test in shop for this run (run run-window-0…  of claude) until 22:00 · 8 h'.replace('…  ', '… '),
    );
    const once = grantSentence(approval(), { decision: 'approve', scope: 'once', expires_in_seconds: 900, max_uses: 1 }, NOW);
    expect(once, 'once, with its limit of uses').toContain('once (run run-window-0… of claude) until 14:15 · 15 min · at most 1 use');
  });

  it('a fleet campaign has no place: no "in /" in its confirm', () => {
    const fleet = approval({
      repo: null,
      approval_type: 'fleet',
      evidence: { ...approval().evidence, summary: 'Fleet campaign c1: 3 repositories, stop after 2 failures', command_line: null, cwd: '/' },
    });
    const sentence = grantSentence(fleet, { decision: 'approve', scope: 'once', expires_in_seconds: 900 }, NOW);
    expect(sentence, 'a campaign runs in no one directory, so the sentence names none').toMatch(/^Allow Fleet campaign c1: 3 repositories, stop after 2 failures once \(/);
    expect(sentence, 'never the root directory as a place').not.toContain(' in /');
    expect(placeOf(fleet), 'no place is empty, not "/"').toBe('');
  });

  it('an old row without a command line is quoted, never joined bare', () => {
    const old = approval({ evidence: { ...approval().evidence, command_line: null, command: ['sh', '-c', 'ls -la; rm -rf ../../.config'] } });
    expect(subjectOf(old), 'joined bare it reads as two commands').toBe("sh -c 'ls -la; rm -rf ../../.config'");
  });

  it('keeps agent text plain: no backticks, no kind prefix, hidden characters shown', () => {
    expect(plainTitle('file_write: `src/app.ts`'), 'titles read as words').toBe('src/app.ts');
    expect(plainTitle('rm\u202e -rf'), 'a bidi override cannot reorder the title').toBe('rm\\u{202e} -rf');
    expect(subjectOf(approval({ evidence: { ...approval().evidence, command_line: null, command: null } })), 'no command: the summary').toBe('Run maven-test in shop');
    expect(placeOf(approval({ repo: null })), 'no repo: the cwd by its last part').toBe('shop');
  });

  it('never shows a title cut inside a parenthesis or a word', () => {
    const old = 'aws: uploads to s3://shop-prod-assets and deletes every object there that is not in ./dist (sync --delete… in shop';
    const title = plainTitle(old);
    expect(title, 'the open bracket and the words cut inside it go; the place after the cut stays').toBe(
      'aws: uploads to s3://shop-prod-assets and deletes every object there that is not in ./dist… in shop',
    );
    expect(count(title, '('), 'no bracket is left open').toBe(count(title, ')'));
    expect(plainTitle('Run `gh repo edit acme/shop (public (+2 steps)…` in shop'), 'nested brackets are all closed or gone').toBe('Run gh repo edit acme/shop… in shop');
    expect(plainTitle('Run `npm test (unit)` in shop'), 'a title that was not cut keeps its brackets').toBe('Run npm test (unit) in shop');
    expect(plainTitle('Run `ls -la…` in shop'), 'a cut with no bracket open is left as it was').toBe('Run ls -la… in shop');
  });

  it('shows the date only when the time is not today', () => {
    expect(clock(NOW + 3600_000, NOW), 'today: the time').toBe('15:00');
    expect(clock(NOW + 36 * 3600_000, NOW), 'another day: with the date').toBe('2030-01-03 02:00');
  });
});

describe('the selection after a decision', () => {
  it('moves to the next prompt in the order the person saw, never back to the top', () => {
    const before = ['s3-sync', 'ci-edit', 'npm-install'];
    expect(successor(before, ['s3-sync', 'npm-install'], 'ci-edit'), 'the next one below, not the riskier one on top').toBe('npm-install');
    expect(successor(before, ['s3-sync', 'ci-edit'], 'npm-install'), 'the last one decided: the one above it').toBe('ci-edit');
    expect(successor(['a', 'b', 'c'], ['new', 'a', 'c'], 'b'), 'a new prompt arriving on top does not steal the selection').toBe('c');
    expect(successor(['a'], [], 'a'), 'nothing left').toBeNull();
  });

  it('keeps the prompt on screen while others arrive, and follows a notification once its prompt is listed', () => {
    expect(shownPrompt(['new', 'a'], ['a'], 'a', null), 'an arrival listed first does not replace the prompt shown').toBe('a');
    expect(shownPrompt(['new', 'b'], ['a', 'b'], 'a', null), 'the prompt shown left: its successor in the order seen').toBe('b');
    expect(shownPrompt(['x', 'a'], ['a'], 'a', 'x'), 'the prompt a notification asked for, once listed').toBe('x');
    expect(shownPrompt(['a'], ['a'], 'a', 'x'), 'not listed (yet): the prompt shown stays').toBe('a');
    expect(shownPrompt(['new', 'a'], [], null, null), 'nothing shown before: the top').toBe('new');
    expect(shownPrompt([], ['a'], 'a', null), 'nothing left').toBeNull();
    expect(shownPrompt(['b'], ['a', 'b'], 'a', null, 'a'), 'a prompt that left by itself stays until the person moves on').toBe('a');
    expect(shownPrompt(['x', 'b'], ['a', 'b'], 'a', 'x', 'a'), 'a notification the person opened still shows its prompt').toBe('x');
  });
});

describe('the toast after a decision, and Undo', () => {
  it('says what was granted, to whom, until when, and offers Undo of the grant', () => {
    const toast = approvedToast(approval(), { decision: 'approve', scope: 'run', expires_in_seconds: 8 * 3600 }, grant(), NOW);
    expect(toast.text, 'a sentence in the past tense, naming the run the grant was made for').toBe('Allowed mvn -q test in shop for this run (run run-1 of claude) until 22:00 · 8 h.');
    expect(toast.grantId, 'Undo revokes this grant').toBe('g-1');
  });

  it('says a vote counted when the prompt needs more people, with nothing to undo', () => {
    const toast = approvedToast(approval(), { decision: 'approve', scope: 'once', expires_in_seconds: 900 }, null, NOW);
    expect([toast.grantId, toast.deniedId], 'nothing was granted yet').toEqual([null, null]);
    expect(toast.text, 'it says what happened').toContain('waits for the others');
  });

  it('after a denial says what the agent was told and can forget it', () => {
    const toast = approvedToast(approval(), { decision: 'deny', reason: 'use the staging environment' }, null, NOW);
    expect(toast.text, 'the reason the agent got').toBe('Denied mvn -q test in shop: “use the staging environment” — the agent was told.');
    expect(toast.deniedId, 'Undo forgets the remembered denial').toBe('ap-1');
  });

  it('says so when the agent already used what Undo revoked', () => {
    expect(undoneToast(grant({ used_count: 0, status: 'revoked' })), 'unused').toContain('before the agent used it');
    expect(undoneToast(grant({ used_count: 1, status: 'revoked' })), 'used once').toContain('already used it once');
    expect(undoneToast(grant({ used_count: 3, status: 'revoked' })), 'used more').toContain('already used it 3 times');
  });

  it('never says the agent did not go ahead when the approval itself released waiting agents', () => {
    const toast = approvedToast(approval({ agents_waiting: 2 }), { decision: 'approve', scope: 'run', expires_in_seconds: 3600 }, grant(), NOW);
    expect(toast.released, 'the two gates waiting went ahead on the approval').toBe(2);
    expect(undoLabel(toast), 'the button revokes: it cannot undo what ran').toBe('Revoke');
    const said = undoneToast(grant({ used_count: 0, status: 'revoked' }), 2);
    expect(said, 'a grant unused since is still no grant unused by the agent').not.toContain('before the agent used it');
    expect(said, 'what went ahead is said').toBe('Revoked for later requests — but the 2 requests that were waiting went ahead when you approved; what ran stays done.');
    expect(undoneToast(grant({ used_count: 1, status: 'revoked' }), 1), 'and the uses since').toBe(
      'Revoked for later requests — but the request that was waiting went ahead when you approved, and the grant was used once since; what ran stays done.',
    );
    const quiet = approvedToast(approval({ agents_waiting: 0 }), { decision: 'approve', scope: 'run', expires_in_seconds: 3600 }, grant(), NOW);
    expect(undoLabel(quiet), 'nobody waiting: Undo takes it back before anything ran').toBe('Undo');
  });

  it('names the rest of a batched prompt in what is granted', () => {
    const batch = approval({ count: 3 });
    const request = { decision: 'approve', scope: 'run', expires_in_seconds: 3600 } as const;
    expect(grantSentence(batch, request, NOW), 'one decision settles all three').toContain('Allow mvn -q test and 2 more maven-test requests in shop for this run');
    expect(grantSentence(approval({ count: 2, profile: null }), request, NOW), 'one more, no profile').toContain('Allow mvn -q test and 1 more request in shop');
    expect(grantSentence(approval(), request, NOW), 'a single request says nothing more').toContain('Allow mvn -q test in shop for this run');
  });

  it('says a decision that did not go through, with why', () => {
    const toast = notDecidedToast(approval(), 'It was already settled: expired');
    expect(toast.text, 'what was not decided, where, and why').toBe('Not decided: mvn -q test in shop. It was already settled: expired');
    expect([toast.grantId, toast.deniedId], 'nothing to undo').toEqual([null, null]);
  });
});

describe('what each scope covers', () => {
  const request = (scope: 'once' | 'run' | 'command_profile' | 'path_pattern' | 'repo' | 'exception') => ({ decision: 'approve', scope, expires_in_seconds: 3600 }) as const;

  it('says any run of the agent in the repository for scopes not bound to the run', () => {
    expect(coverOf(approval(), 'once'), 'once: this action, in this run').toBe('mvn -q test in shop once (run run-window-0… of claude)');
    expect(coverOf(approval(), 'run'), 'run: this run').toBe('mvn -q test in shop for this run (run run-window-0… of claude)');
    expect(coverOf(approval(), 'command_profile'), 'a profile grant covers every run of the agent in the repository').toBe('maven-test commands in any run of claude in shop');
    expect(coverOf(approval(), 'path_pattern'), 'paths: any run').toContain('in any run of claude in shop');
    expect(coverOf(approval(), 'repo'), 'a repository grant: any run').toContain('in any run of claude in shop');
    expect(coverOf(approval(), 'exception'), 'an exception holds for every agent').toBe('the exception for every agent and run in shop');
    expect(coverOf(approval({ run_id: '3f9a1c2b-5d6e-4f70-8a9b-0c1d2e3f4a5b' }), 'run'), 'a session id as the list shows it, no full UUID').toBe(
      'mvn -q test in shop for this run (run 3f9a1c2b of claude)',
    );
    for (const scope of ['command_profile', 'path_pattern', 'repo'] as const) {
      expect(grantSentence(approval(), request(scope), NOW), `${scope} names no run: it covers them all`).not.toContain('run-window');
    }
    expect([anyRun('once'), anyRun('run'), anyRun('command_profile')], 'only once and run are bound to the run').toEqual([false, false, true]);
  });

  it('words the toast by the grant the service made, not the button pressed', () => {
    const profileGrant = grant({ scope_kind: 'command_profile', run_id: 'g2', expires_at: new Date(NOW + 3600_000).toISOString(), constraints: { profile: 'npm-test', repo: '/tmp/x/shop', requester: 'claude-code', path_patterns: [] } });
    const toast = approvedToast(approval({ profile: 'npm-test' }), request('command_profile'), profileGrant, NOW);
    expect(toast.text, 'every run of claude-code in shop, and no "(run g2 of …)"').toBe('Allowed npm-test commands in any run of claude-code in shop until 15:00 · 1 h.');
  });

  it('orders the buttons narrowest first and words them by what they cover', () => {
    const order = byBreadth([{ scope: 'command_profile' }, { scope: 'run' }, { scope: 'exception' }, { scope: 'once' }, { scope: 'path_pattern' }]);
    expect(order.map((q) => q.scope), 'once, this run, then the scopes covering any run').toEqual(['once', 'run', 'path_pattern', 'command_profile', 'exception']);
    const a = approval();
    expect(scopeButton(a, { label: 'Allow maven-test for run', scope: 'run', expires_in_seconds: 8 * 3600 }), 'this run').toBe('Allow maven-test for this run · 8 h');
    expect(scopeButton(a, { label: 'Allow maven-test for 1 h', scope: 'command_profile', expires_in_seconds: 3600 }), 'any run, whose, where').toBe(
      'Allow maven-test in any run of claude in shop · 1 h',
    );
    expect(scopeButton(a, { label: 'Allow\u202e once', scope: 'once', expires_in_seconds: 3600 }), 'the words are the window\'s, not the agent-reachable label').toBe('Allow once · 1 h');
  });
});

describe('a prompt settled elsewhere, in words', () => {
  const at = new Date(NOW + 90_000).toISOString();
  it('says who decided it, when and how; or that it expired or its run ended', () => {
    const settled = (extra: Partial<Approval>) => approval({ decided_at: at, decided_by: 'alice', ...extra });
    expect(decidedElsewhere(settled({ status: 'denied', resolution: 'denied', decision_reason: 'not now' }), NOW), 'a denial').toBe('Decided by alice at 14:01: denied — “not now”.');
    expect(decidedElsewhere(settled({ status: 'approved_for_run', resolution: 'approved' }), NOW), 'an approval').toBe('Decided by alice at 14:01: approved for its run.');
    expect(decidedElsewhere(settled({ status: 'expired', resolution: 'timed_out', decided_by: 'timeout' }), NOW), 'a timeout names no person').toBe(
      'Nobody decided it in time: it expired at 14:01.',
    );
    expect(decidedElsewhere(settled({ status: 'expired', resolution: 'cancelled', decided_by: 'run-end' }), NOW), 'the run ended').toBe('Closed at 14:01: its run ended.');
    expect(decidedElsewhere(null, NOW), 'not known yet: nothing invented').toBe('No longer waiting: it was decided elsewhere or closed.');
  });
});
