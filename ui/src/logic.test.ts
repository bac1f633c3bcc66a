import { describe, expect, it } from 'vitest';
import { shownPrompt } from './decide';
import {
  allReasons,
  auditBy,
  buildApproval,
  buildDenial,
  constraintLines,
  countdown,
  customSeconds,
  decidability,
  type Decidability,
  defaultForm,
  deniedRuns,
  denialBy,
  denialSubject,
  durationLabel,
  filterAudit,
  focusFromHash,
  keyIntent,
  longestSeconds,
  mergeDenials,
  moveSelection,
  newestFirst,
  pastStatus,
  quickApproval,
  quickChoices,
  quickLabel,
  shortcutDecision,
  signedIn,
  splitGrants,
  undoneMessage,
  usesLabel,
  visible,
} from './logic';
import type { Approval, AuditEvent, Grant, Me, QuickDecision, Role } from './types';

function approval(id: string, createdAt: string, extra: Partial<Approval> = {}): Approval {
  return {
    approval_id: id, run_id: 'run-1', task_id: 't', repo: 'shop', requested_by: 'agent', action_kind: 'shell',
    status: 'requested', decision: 'ask', risk: 'medium', reasons: ['r'], rule: 'profile.maven-test',
    recommendation: { decision: 'approve', scope: 'run', text: 'Allow for this run' }, profile: 'maven-test',
    evidence: { type: 'tool', summary: 's', cwd: '/w', paths: [], network: [], policy_findings: [], suspicious_text: false },
    offered_scopes: ['once', 'run'], batch_key: 'b', count: 1, members: [], reason: 'why',
    created_at: createdAt, updated_at: createdAt, expires_at: createdAt, requester: 'default',
    required_approvals: 1, approvals: [], quick_decisions: [...QUICK], approval_type: 'tool', agents_waiting: 0, quick_up_to: 'medium',
    fallback_on_timeout: 'deny', ...extra,
  };
}

/** What the service sends under a policy capping run grants at 4 h: run first, then once. */
const QUICK: QuickDecision[] = [
  { label: 'Allow maven-test for run', scope: 'run', expires_in_seconds: 4 * 3600 },
  { label: 'Allow once', scope: 'once', expires_in_seconds: 3600 },
];

function grant(id: string, extra: Partial<Grant> = {}): Grant {
  return {
    grant_id: id, approval_id: 'a', run_id: 'run-1', scope_kind: 'run', action_kinds: ['shell'],
    constraints: { run_id: 'run-1', profile: 'maven-test', path_patterns: [] }, created_at: '2030-01-01T00:00:00Z',
    expires_at: '2030-01-01T01:00:00Z', max_uses: null, used_count: 0, created_by: 'approver', revocable: true,
    revoked_at: null, policy_version: 'v1', status: 'active', summary: 'maven-test for run run-1', ...extra,
  };
}

const NOW = Date.parse('2030-01-01T00:30:00Z');

describe('pending', () => {
  it('orders batches newest first', () => {
    const list = [approval('a', '2030-01-01T00:00:00Z'), approval('c', '2030-01-01T00:02:00Z'), approval('b', '2030-01-01T00:01:00Z')];
    expect(newestFirst(list).map((a) => a.approval_id), 'the newest batch is on top').toEqual(['c', 'b', 'a']);
  });

  it('defaults to the recommended scope when it is offered', () => {
    expect(defaultForm(approval('a', NOW.toString())).scope, 'recommendation wins').toBe('run');
    const onlyOnce = approval('a', '2030-01-01T00:00:00Z', { offered_scopes: ['once'] });
    expect(defaultForm(onlyOnce).scope, 'an unoffered recommendation falls back to what is offered').toBe('once');
  });

  it('builds an approval with max uses and reason, only for offered scopes', () => {
    const a = approval('a', '2030-01-01T00:00:00Z');
    const built = buildApproval(a, { scope: 'once', customMinutes: '5', maxUses: '2', reason: ' ok ' });
    expect(built, 'every field reaches the request').toEqual({
      ok: { decision: 'approve', scope: 'once', expires_in_seconds: 300, max_uses: 2, reason: 'ok' },
    });
    const repo = buildApproval(a, { scope: 'repo', customMinutes: '', maxUses: '', reason: '' });
    expect('error' in repo, 'a scope the policy did not offer cannot be granted').toBe(true);
    const uses = buildApproval(a, { scope: 'once', customMinutes: '', maxUses: '0', reason: '' });
    expect('error' in uses, 'zero max uses is refused').toBe(true);
  });

  it('requires a reason to deny', () => {
    expect('error' in buildDenial('   '), 'an empty reason cannot go back to the agent').toBe(true);
    expect(buildDenial(' too broad '), 'the reason is trimmed').toEqual({ ok: { decision: 'deny', reason: 'too broad' } });
  });

  it('maps the a / r / d shortcuts to the quick decisions the policy allows', () => {
    const a = approval('a', '2030-01-01T00:00:00Z');
    const form = defaultForm(a);
    expect(shortcutDecision(a, form, 'run'), 'r: for this run, as long as the policy lets a run grant last (4 h here)').toEqual({
      ok: { decision: 'approve', scope: 'run', expires_in_seconds: 4 * 3600 },
    });
    expect(shortcutDecision(a, form, 'once'), 'a: once, for the lifetime of the once button').toEqual({
      ok: { decision: 'approve', scope: 'once', expires_in_seconds: 3600 },
    });
    expect(shortcutDecision(a, { ...form, maxUses: '3', reason: 'ci' }, 'run'), "the form's max uses and reason ride along").toEqual({
      ok: { decision: 'approve', scope: 'run', expires_in_seconds: 4 * 3600, max_uses: 3, reason: 'ci' },
    });
    expect('error' in shortcutDecision(a, form, 'deny'), 'd without a reason asks for one').toBe(true);
    const noRun = approval('b', '2030-01-01T00:00:00Z', { offered_scopes: ['once'], quick_decisions: [QUICK[1]!] });
    expect('error' in shortcutDecision(noRun, defaultForm(noRun), 'run'), 'r is refused where run is not offered').toBe(true);
  });

  it('reads keys only when not typing, and moves the selection within bounds', () => {
    expect(keyIntent('a', false), 'a').toEqual({ kind: 'shortcut', shortcut: 'once' });
    expect(keyIntent('d', true), 'typing a "d" in the reason must not deny').toBeNull();
    expect(keyIntent('ArrowDown', false), 'arrows move').toEqual({ kind: 'move', by: 1 });
    expect(keyIntent('x', false), 'other keys do nothing').toBeNull();
    const ids = ['c', 'b', 'a'];
    expect(moveSelection(ids, 'c', 1), 'down').toBe('b');
    expect(moveSelection(ids, 'a', 1), 'stays at the end').toBe('a');
    expect(moveSelection(ids, 'c', -1), 'stays at the top').toBe('c');
    expect(moveSelection([], null, 1), 'nothing to select').toBeNull();
    expect(shownPrompt(ids, [], 'b', null), 'a still pending selection is kept').toBe('b');
    expect(shownPrompt(ids, [], 'gone', null), 'a settled selection never seen moves to the newest').toBe('c');
  });

  it('focuses only plain prompt ids from the URL', () => {
    expect(focusFromHash('#/pending/ap_1-x'), 'plain id').toBe('ap_1-x');
    expect(focusFromHash('#/pending/<script>'), 'hostile fragment').toBeNull();
    expect(focusFromHash(''), 'no fragment').toBeNull();
  });
});

describe('grants', () => {
  it('counts down and says expired at zero', () => {
    expect(countdown('2030-01-01T00:45:00Z', NOW), 'minutes and seconds').toBe('15:00');
    expect(countdown('2030-01-01T02:30:05Z', NOW), 'hours').toBe('2:00:05');
    expect(countdown('2030-01-01T00:30:00Z', NOW), 'zero left').toBe('expired');
    expect(countdown('not a date', NOW), 'garbage is not a countdown').toBe('expired');
  });

  it('splits active from expired and revoked', () => {
    const grants = [
      grant('later', { expires_at: '2030-01-01T02:00:00Z' }),
      grant('sooner', { expires_at: '2030-01-01T00:40:00Z' }),
      grant('lapsed', { expires_at: '2030-01-01T00:10:00Z' }),
      grant('revoked', { status: 'revoked', revoked_at: '2030-01-01T00:20:00Z' }),
    ];
    const { active, past } = splitGrants(grants, NOW);
    expect(active.map((g) => g.grant_id), 'active, soonest to expire first').toEqual(['sooner', 'later']);
    expect(past.map((g) => g.grant_id), 'past below, newest first').toEqual(['revoked', 'lapsed']);
    expect(pastStatus(grants[2]!), 'an active grant past its expiry shows as expired').toBe('expired');
  });

  it('labels uses and constraints', () => {
    expect(usesLabel(grant('g', { used_count: 2, max_uses: 5 })), 'bounded').toBe('2 / 5 uses');
    expect(usesLabel(grant('g', { used_count: 3 })), 'unbounded').toBe('3 uses');
    expect(constraintLines(grant('g')), 'empty constraints are skipped').toEqual(['run_id: run-1', 'profile: maven-test']);
    const hashed = grant('h', { constraints: { batch_key: 'bf13e05c1da2f75267cd91fb', run_id: 'r' } });
    expect(constraintLines(hashed), 'hashes are shortened').toEqual(['batch_key: bf13e05c1da2…', 'run_id: r']);
  });

  it('lists findings only once beside the reasons', () => {
    expect(allReasons(['a', 'b'], ['b', 'c']), 'no duplicates, reasons first').toEqual(['a', 'b', 'c']);
  });
});

describe('history', () => {
  const event = (id: string, run: string, repo: string | undefined, decision: AuditEvent['decision'], ts: string): AuditEvent => ({
    event_id: id, timestamp: ts, run_id: run, task_id: 't', action_kind: 'shell', action_hash: 'h', decision, reason: '', repo,
    evidence_artifact_id: id, policy_version: 'v', requested_scope: null,
  });
  const events = [
    event('1', 'run-1', 'shop', 'approved', '2030-01-01T00:00:00Z'),
    event('2', 'run-2', 'shop', 'denied', '2030-01-01T00:01:00Z'),
    event('3', 'run-1', 'docs', 'denied', '2030-01-01T00:02:00Z'),
    event('4', 'run-3', undefined, 'blocked', '2030-01-01T00:03:00Z'),
  ];

  it('filters by run, repo and decision, newest first', () => {
    const all = { run: '', repo: '', decision: '' };
    expect(filterAudit(events, all).map((e) => e.event_id), 'no filter: everything, newest first').toEqual(['4', '3', '2', '1']);
    expect(filterAudit(events, { ...all, run: 'run-1' }).map((e) => e.event_id), 'by run').toEqual(['3', '1']);
    expect(filterAudit(events, { ...all, repo: 'SHOP' }).map((e) => e.event_id), 'by repo, any case').toEqual(['2', '1']);
    expect(filterAudit(events, { ...all, decision: 'denied', repo: 'shop' }).map((e) => e.event_id), 'combined').toEqual(['2']);
  });
});

describe('visible', () => {
  it('shows hidden characters as escapes and leaves ordinary text alone', () => {
    expect(visible('a\u202eb\u200bc\nd\u0007'), 'bidi, zero-width and controls are shown').toBe('a\\u{202e}b\\u{200b}c\\nd\\u{0007}');
    expect(visible('cargo test é 日本'), 'letters stay').toBe('cargo test é 日本');
    expect(visible('cat notes\u{E003B}\u{E0072}\u{E006D}'), 'a string spelled in tag characters is shown, not hidden').toBe('cat notes\\u{e003b}\\u{e0072}\\u{e006d}');
    expect(visible('re\u{E0101}port pass\u00adwd'), 'a supplementary variation selector and a soft hyphen are shown').toBe('re\\u{e0101}port pass\\u{00ad}wd');
    expect(visible('✅ done ✨'), 'emoji stay').toBe('✅ done ✨');
  });
});

describe('who may decide (from the service answer to /v1/me)', () => {
  const T = '2030-01-01T00:00:00Z';
  const person = (name: string, roles: Role[]): Me => ({ name, kind: 'person', roles });
  const owner = person('owner', ['task_author', 'repo_maintainer', 'security_reviewer', 'platform_admin']);
  const alice = person('alice', ['repo_maintainer']);
  const admin = person('alice', ['platform_admin']);
  const escalation = (role: Role, extra: Partial<Approval> = {}) =>
    approval('e', T, { decision: 'escalate', required_role: role, ...extra });
  const vote = (by: string, role: Role = 'platform_admin') => ({ by, role, at: T });

  const scenarios: [string, Approval, Me | null, Decidability][] = [
    ['the owner (every role) decides a plain ask', approval('a', T), owner, { decide: true, why: null, progress: null }],
    ['a maintainer decides an escalation needing repo_maintainer', escalation('repo_maintainer'), alice, { decide: true, why: null, progress: null }],
    ['a maintainer cannot decide an escalation needing platform_admin', escalation('platform_admin'), alice, { decide: false, why: 'needs a Platform admin', progress: null }],
    ['a person holding no role decides nothing, not even a plain ask', approval('a', T), person('bob', []), { decide: false, why: 'needs a role; you hold none', progress: null }],
    ['the requester never decides its own request, whatever its roles', approval('a', T, { requester: 'owner' }), owner, { decide: false, why: 'you requested this', progress: null }],
    ['an agent token never decides', approval('a', T), { name: 'ci', kind: 'agent', roles: [] }, { decide: false, why: 'agents never decide', progress: null }],
    ['before the service answered, nothing is decidable', approval('a', T), null, { decide: false, why: 'not yet known who you are', progress: null }],
    [
      'who approved already waits for the others',
      escalation('platform_admin', { required_approvals: 2, approvals: [vote('alice')] }),
      admin,
      { decide: false, why: 'you approved; waiting for 1 more', progress: '1 of 2 approvals: alice (Platform admin)' },
    ],
    [
      'a second admin may add the missing approval',
      escalation('platform_admin', { required_approvals: 2, approvals: [vote('carol')] }),
      admin,
      { decide: true, why: null, progress: '1 of 2 approvals: carol (Platform admin)' },
    ],
    [
      'a threshold with no approval yet says so',
      escalation('platform_admin', { required_approvals: 2 }),
      admin,
      { decide: true, why: null, progress: '0 of 2 approvals' },
    ],
    [
      'a missing role wins over a threshold, which still shows',
      escalation('platform_admin', { required_approvals: 3, approvals: [vote('carol'), vote('dave')] }),
      alice,
      { decide: false, why: 'needs a Platform admin', progress: '2 of 3 approvals: carol (Platform admin), dave (Platform admin)' },
    ],
  ];
  for (const [scenario, prompt, me, want] of scenarios) {
    it(scenario, () => {
      expect(decidability(prompt, me), `${scenario}: the window offers buttons only where the service would accept them`).toEqual(want);
    });
  }

  it('says who is signed in and with which roles', () => {
    expect(signedIn(alice), 'name and roles').toBe('Signed in as alice · Repository maintainer');
    expect(signedIn(person('bob', [])), 'a person with no role').toBe('Signed in as bob · no role');
    expect(signedIn({ name: 'ci', kind: 'agent', roles: [] }), 'an agent token is called out').toBe('Signed in as ci (an agent: decides nothing)');
    expect(signedIn(null), 'before the service answered').toBe('signing in…');
  });
});

describe('history', () => {
  const event = (extra: Partial<AuditEvent>): AuditEvent => ({
    event_id: 'e', timestamp: '2030-01-01T00:00:00Z', run_id: 'r', task_id: 't', action_kind: 'shell',
    action_hash: 'h', decision: 'approved', reason: 'ok', evidence_artifact_id: 'e', policy_version: 'v',
    requested_scope: null, ...extra,
  });

  it('names who decided and in which role', () => {
    expect(auditBy(event({ approver: 'alice', approver_role: 'platform_admin' })), 'person and role').toBe('alice (Platform admin)');
    expect(auditBy(event({ approver: 'alice' })), 'an older event without a role').toBe('alice');
    expect(auditBy(event({ decision: 'auto' })), 'an automatic decision has nobody').toBe('');
  });
});

describe('expiry choices come from the policy (quick_decisions)', () => {
  const T = '2030-01-01T00:00:00Z';
  const a = approval('a', T);
  const older = approval('old', T, { quick_decisions: [] });

  const custom: [string, Approval, Parameters<typeof customSeconds>[1], string, number | 'refused'][] = [
    ['empty asks for the longest run grant the policy allows', a, 'run', '', 4 * 3600],
    ['empty asks for the longest once grant the policy allows', a, 'once', '', 3600],
    ['a custom expiry within the limit is taken as is', a, 'run', '90', 90 * 60],
    ['exactly the limit is allowed', a, 'run', '240', 4 * 3600],
    ['one minute beyond what the policy allows is refused, not sent', a, 'run', '241', 'refused'],
    ["once never borrows the run's longer limit", a, 'once', '61', 'refused'],
    ['zero minutes would be no grant', a, 'once', '0', 'refused'],
    ['a negative number', a, 'once', '-5', 'refused'],
    ['a fraction', a, 'once', '1.5', 'refused'],
    ['an exponent is not a whole number of minutes', a, 'once', '1e3', 'refused'],
    ['text', a, 'once', 'soon', 'refused'],
    ['a scope the policy did not offer has no lifetime at all', a, 'repo', '', 'refused'],
    ['a prompt from an older service (no quick_decisions) is bounded by the desk defaults: run 8 h', older, 'run', '', 8 * 3600],
    ['a prompt from an older service: once 15 min', older, 'once', '16', 'refused'],
  ];
  for (const [scenario, prompt, scope, minutes, want] of custom) {
    it(scenario, () => {
      const got = customSeconds(prompt, scope, minutes);
      if (want === 'refused') expect(typeof got, `${scenario}: the window refuses before asking the service`).toBe('object');
      else expect(got, `${scenario}: no click asks for more than the policy allows`).toBe(want);
    });
  }

  it('offers the service list in its order, and only offered scopes', () => {
    expect(quickChoices(a), 'the buttons are exactly what the service sent, run first').toEqual(QUICK);
    const stray = approval('s', T, { offered_scopes: ['once'] });
    expect(quickChoices(stray).map((q) => q.scope), 'a quick decision for a scope not offered is no button').toEqual(['once']);
    expect(
      quickChoices(older).map((q) => [q.scope, q.expires_in_seconds]),
      'without quick_decisions: one button per offered scope at the desk defaults',
    ).toEqual([['once', 900], ['run', 8 * 3600]]);
    expect(longestSeconds(a, 'run'), 'the largest allowed for run bounds its custom expiry').toBe(4 * 3600);
    expect(longestSeconds(a, 'path_pattern'), 'nothing is allowed for a scope not offered').toBeNull();
  });

  it('turns a quick decision into exactly its scope and lifetime', () => {
    expect(quickApproval(a, defaultForm(a), QUICK[0]!), 'the run button asks for the 4 h the policy allows').toEqual({
      ok: { decision: 'approve', scope: 'run', expires_in_seconds: 4 * 3600 },
    });
    const greedy: QuickDecision = { label: 'Allow for run', scope: 'run', expires_in_seconds: 99 * 3600 };
    expect(quickApproval(a, defaultForm(a), greedy), 'a button claiming more than the list allows is cut to the limit').toEqual({
      ok: { decision: 'approve', scope: 'run', expires_in_seconds: 4 * 3600 },
    });
    const repo: QuickDecision = { label: 'Allow everywhere', scope: 'repo', expires_in_seconds: 60 };
    expect('error' in quickApproval(a, defaultForm(a), repo), 'a button for a scope not offered is refused').toBe(true);
  });

  it('labels buttons with how long they last unless the label says it', () => {
    expect(quickLabel(QUICK[0]!), 'the run button says how long a run grant lasts').toBe('Allow maven-test for run · 4 h');
    expect(quickLabel({ label: 'Allow maven-test for 1 h', scope: 'command_profile', expires_in_seconds: 3600 }), 'no repetition').toBe(
      'Allow maven-test for 1 h',
    );
    expect(
      quickLabel({ label: 'Allow maven-test for 1 h', scope: 'command_profile', expires_in_seconds: 1800 }),
      'a policy cap below the label shows the true lifetime',
    ).toBe('Allow maven-test for 1 h · 30 min');
    expect(quickLabel({ label: 'Allow\u202e once', scope: 'once', expires_in_seconds: 60 }), 'hidden characters are shown').toBe(
      'Allow\\u{202e} once · 1 min',
    );
  });

  it('says durations the way people read them', () => {
    const cases: [number, string][] = [[30, '1 min'], [900, '15 min'], [3600, '1 h'], [16200, '4 h 30 min'], [8 * 3600, '8 h'], [2 * 86400, '2 d']];
    for (const [seconds, want] of cases) expect(durationLabel(seconds), `${seconds} s`).toBe(want);
  });
});

describe('remembered denials', () => {
  const T = '2030-01-01T00:00:00Z';
  const event = (id: string, run: string, decision: AuditEvent['decision'], ts: string, approvalId?: string): AuditEvent => ({
    event_id: id, timestamp: ts, run_id: run, task_id: 't', action_kind: 'shell', action_hash: 'h', decision, reason: '',
    evidence_artifact_id: id, policy_version: 'v', requested_scope: null, approval_id: approvalId,
  });
  const denied = (id: string, run: string, decidedAt: string, extra: Partial<Approval> = {}) =>
    approval(id, T, {
      run_id: run, status: 'denied', resolution: 'denied', decided_at: decidedAt, decided_by: 'owner',
      decided_role: 'task_author', decision_reason: 'not on this branch', ...extra,
    });

  it('asks only about runs with a person\'s denial, newest first, each once, bounded', () => {
    const events = [
      event('1', 'run-a', 'denied', '2030-01-01T00:01:00Z', 'ap-1'),
      event('2', 'run-b', 'approved', '2030-01-01T00:02:00Z', 'ap-2'),
      event('3', 'run-c', 'denied', '2030-01-01T00:03:00Z', 'ap-3'),
      event('4', 'run-a', 'denied', '2030-01-01T00:04:00Z', 'ap-1'),
      event('5', 'run-d', 'denied', '2030-01-01T00:05:00Z'),
    ];
    expect(deniedRuns(events), 'run-a (newest denial) before run-c; an approval-less denial names no prompt to undo').toEqual([
      'run-a',
      'run-c',
    ]);
    expect(deniedRuns(events, 1), 'no more service calls than the limit').toEqual(['run-a']);
    expect(deniedRuns([]), 'nothing audited, nothing to ask').toEqual([]);
  });

  it('merges the runs\' lists, each denial once, most recently denied first', () => {
    const older = denied('ap-1', 'run-a', '2030-01-01T00:01:00Z');
    const newer = denied('ap-3', 'run-c', '2030-01-01T00:03:00Z');
    expect(mergeDenials([[older], [newer, older]]).map((d) => d.approval_id), 'one row per remembered denial').toEqual(['ap-3', 'ap-1']);
  });

  it('says what is denied, by whom and why, with agent text made visible', () => {
    const d = denied('ap-1', 'run-a', T, { evidence: { ...approval('x', T).evidence, command_line: 'mvn -q test\u202e' } });
    expect(denialSubject(d), 'the command line, hidden characters shown').toBe('mvn -q test\\u{202e}');
    expect(denialSubject(denied('ap-2', 'run-a', T)), 'the summary when there is no command line').toBe('s');
    expect(denialBy(d), 'who, in which role, and the reason the agent keeps getting').toBe('owner (Task author): not on this branch');
    expect(denialBy(denied('ap-3', 'run-a', T, { decided_role: undefined, decision_reason: undefined })), 'no role, no reason').toBe('owner');
    expect(undoneMessage(d), 'the confirmation says what happens next').toBe(
      'Undone: the next "mvn -q test\\u{202e}" in run run-a asks you again.',
    );
  });
});
