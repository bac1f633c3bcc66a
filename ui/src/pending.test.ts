import { describe, expect, it } from 'vitest';
import { shownPrompt } from './decide';
import { focusFromHash, signedIn } from './desk';
import { durationLabel } from './labels';
import {
  allReasons,
  buildApproval,
  buildDenial,
  customSeconds,
  decidability,
  type Decidability,
  defaultForm,
  keyIntent,
  longestSeconds,
  moveSelection,
  newestFirst,
  quickApproval,
  quickChoices,
  quickLabel,
  shortcutDecision,
} from './pending';
import { approval, FIXTURE_NOW, QUICK } from './test-fixtures';
import type { Approval, Me, QuickDecision, Role } from './types';

describe('pending', () => {
  it('orders batches newest first', () => {
    const list = [approval('a', '2030-01-01T00:00:00Z'), approval('c', '2030-01-01T00:02:00Z'), approval('b', '2030-01-01T00:01:00Z')];
    expect(newestFirst(list).map((a) => a.approval_id), 'the newest batch is on top').toEqual(['c', 'b', 'a']);
  });

  it('defaults to the recommended scope when it is offered', () => {
    expect(defaultForm(approval('a', FIXTURE_NOW.toString())).scope, 'recommendation wins').toBe('run');
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

  it('lists findings only once beside the reasons', () => {
    expect(allReasons(['a', 'b'], ['b', 'c']), 'no duplicates, reasons first').toEqual(['a', 'b', 'c']);
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
