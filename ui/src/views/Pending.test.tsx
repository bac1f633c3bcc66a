// @vitest-environment happy-dom
// The Pending view as a person uses it: what stays on screen while prompts come and go, and
// which key presses decide what. Rendered with Preact into happy-dom; the desk's calls are
// stubbed (what each test answers is in the test), the clock is Vitest's fake one.
import { render } from 'preact';
import { act } from 'preact/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Approval, CommandError, DecisionRequest, DecisionResponse, Me } from '../types';

const sent: [string, DecisionRequest][] = [];
let answer: (id: string) => Promise<DecisionResponse> = async () => ({}) as DecisionResponse;

vi.mock('../api', () => ({
  inWindow: true,
  api: {
    decide: (id: string, request: DecisionRequest) => {
      sent.push([id, request]);
      return answer(id);
    },
    revoke: async () => {
      throw new Error('not in these tests');
    },
    forgetDenial: async () => undefined,
    openStepUp: async () => undefined,
  },
}));

const { Pending } = await import('./Pending');

const T0 = new Date(2030, 0, 1, 14, 0, 0).getTime();

function prompt(id: string, agoSeconds: number, extra: Partial<Approval> = {}): Approval {
  const at = new Date(T0 - agoSeconds * 1000).toISOString();
  return {
    approval_id: id, run_id: `run-${id}`, task_id: 't', repo: '/work/shop', requested_by: 'agent', action_kind: 'shell',
    status: 'requested', decision: 'ask', risk: 'medium', reasons: ['r'], rule: 'profile.maven-test',
    recommendation: { decision: 'approve', scope: 'run', text: 'Allow for this run' }, profile: 'maven-test',
    evidence: { type: 'tool', summary: `Run ${id}`, command_line: `mvn test -Dwhich=${id}`, cwd: '/work/shop', paths: [], network: [], policy_findings: [], suspicious_text: false },
    offered_scopes: ['once', 'run'], batch_key: `b-${id}`, count: 1, members: [], reason: 'why',
    created_at: at, updated_at: at, expires_at: new Date(T0 + 3600_000).toISOString(), requester: 'claude', required_approvals: 1, approvals: [],
    quick_decisions: [], approval_type: 'tool', agents_waiting: 1, quick_up_to: 'medium', fallback_on_timeout: 'deny', words: { headline: '', summary: [], flags: [] }, ...extra,
  };
}

const me: Me = { kind: 'person', name: 'owner', roles: ['task_author'] };
let root: HTMLElement;

async function show(pending: Approval[], focus: string | null = null, loaded = true, settled: Approval[] = []) {
  await act(() => {
    render(
      <Pending pending={pending} loaded={loaded} me={me} focus={focus} onFocused={() => {}} denyReasons={['out of scope']} grants={[]} online settled={settled} />,
      root,
    );
  });
  await settle();
}

/** Lets effects, state updates and stubbed answers run out. */
async function settle() {
  for (let i = 0; i < 4; i++) await act(async () => await Promise.resolve());
}

async function key(name: string, repeat = false) {
  await act(() => {
    window.dispatchEvent(new KeyboardEvent('keydown', { key: name, repeat, bubbles: true }));
  });
  await settle();
}

async function click(selector: string) {
  await act(() => (root.querySelector(selector) as HTMLElement).click());
  await settle();
}

/** A as the service settled it elsewhere: alice denied it at 14:00:30. */
function deniedElsewhere(id: string): Approval {
  return {
    ...prompt(id, 60), status: 'denied', resolution: 'denied', decided_by: 'alice', decision_reason: 'out of scope',
    decided_at: new Date(T0 + 30_000).toISOString(),
  };
}

const buttons = () => [...root.querySelectorAll('[data-testid=quick-decisions] button')].map((b) => (b as HTMLButtonElement));
const onScreen = () => root.querySelector('[data-testid=prompt-detail]')?.getAttribute('data-approval-id');
const decidedIds = () => sent.map(([id]) => id);
const text = (testid: string) => root.querySelector(`[data-testid=${testid}]`)?.textContent ?? null;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(T0);
  sent.length = 0;
  answer = async () => ({}) as DecisionResponse;
  root = document.createElement('div');
  document.body.appendChild(root);
});

afterEach(async () => {
  await act(() => render(null, root));
  root.remove();
  vi.useRealTimers();
});

describe('what stays on screen', () => {
  it('a prompt arriving never takes the place of the one being read', async () => {
    await show([prompt('A', 60)]);
    expect(onScreen(), 'the only prompt is shown').toBe('A');
    // B is newer, so it is listed first; the person has not clicked anything.
    await show([prompt('A', 60), prompt('B', 0)]);
    expect(onScreen(), 'A stays: the person was reading it, B only joins the list').toBe('A');
    await key('a');
    expect(decidedIds(), 'the key decides the prompt on screen, not the newcomer').toEqual(['A']);
  });

  it('a notification for a prompt settled meanwhile says so and shows no other in its place by surprise', async () => {
    await show([prompt('A', 60)], 'GONE');
    expect(onScreen(), 'the prompt there is stays on screen').toBe('A');
    expect(text('toast-text'), 'the person is told the prompt they opened is gone').toContain('no longer waiting');
    await show([prompt('A', 60), prompt('B', 0)]);
    expect(onScreen(), 'an arrival still does not take its place').toBe('A');
  });

  it('before the first read, a notification for a prompt settled meanwhile is said at the first read, not later', async () => {
    await show([], 'GONE', false);
    expect(text('toast-text'), 'nothing said before the desk was read').toBeNull();
    await show([], null, true);
    expect(text('toast-text'), 'the first read does not list it: said at once').toContain('no longer waiting');
    await act(() => (root.querySelector('[data-testid=toast-close]') as HTMLElement).click());
    await show([prompt('A', 0)]);
    expect(text('toast-text'), 'an unrelated arrival later brings no stale word').toBeNull();
  });

  it('before the first read, a notification waits for its prompt to arrive', async () => {
    await show([], 'X', false);
    await show([prompt('A', 60), prompt('X', 5)]);
    expect(onScreen(), 'the prompt the person opened, once it is listed').toBe('X');
    expect(text('toast-text'), 'nothing to say: it arrived').toBeNull();
  });
});

describe('keys decide only what the person looked at', () => {
  it('a held key, or a second press just after the prompt left, decides nothing more', async () => {
    await show([prompt('A', 60), prompt('B', 30), prompt('C', 0)]);
    (root.querySelector('[data-approval-id=B]') as HTMLElement).click();
    await settle();
    expect(onScreen(), 'the person picked B').toBe('B');
    await key('a');
    expect(decidedIds(), 'a decided B').toEqual(['B']);
    // B's decision went through: it leaves, and its successor in the order seen takes its place.
    await show([prompt('A', 60), prompt('C', 0)]);
    expect(onScreen(), 'the prompt after B in the order seen').toBe('A');
    vi.setSystemTime(T0 + 200);
    await key('a');
    expect(decidedIds(), 'a second press 0.2 s after the move was meant for B').toEqual(['B']);
    expect(text('just-shown'), 'and the person is told why nothing happened').toContain('nothing was decided');
    vi.setSystemTime(T0 + 1000);
    await key('a', true);
    expect(decidedIds(), 'a key held down and repeating decides nothing, however long it is held').toEqual(['B']);
    await key('a');
    expect(decidedIds(), 'a press once A has been on screen a moment decides A').toEqual(['B', 'A']);
  });

  it('a prompt the person picks after the move takes a key at once', async () => {
    await show([prompt('A', 60), prompt('B', 30), prompt('C', 0)]);
    (root.querySelector('[data-approval-id=B]') as HTMLElement).click();
    await settle();
    await key('a');
    await show([prompt('A', 60), prompt('C', 0)]);
    expect(onScreen(), 'B left: its successor is shown').toBe('A');
    (root.querySelector('[data-approval-id=C]') as HTMLElement).click();
    await settle();
    await key('r');
    expect(decidedIds(), 'C was picked by the person: r decides it at once').toEqual(['B', 'C']);
  });

  it('two presses while the first decision is on its way send one decision', async () => {
    let release: () => void = () => {};
    answer = () => new Promise((resolve) => (release = () => resolve({} as DecisionResponse)));
    await show([prompt('A', 60)]);
    await key('a');
    await key('a');
    expect(decidedIds(), 'the second press waits for the first answer').toEqual(['A']);
    release();
    await settle();
  });

  it('the confirm step of a risky grant gives the focus to Cancel, so Enter or Space cannot grant', async () => {
    await show([prompt('H', 60, { risk: 'high' })]);
    await key('a');
    expect(text('confirm-text'), 'the confirm step names the grant').toContain('Allow mvn test -Dwhich=H');
    expect(document.activeElement?.getAttribute('data-testid'), 'focus on Cancel, not on the grant').toBe('confirm-cancel');
    expect(decidedIds(), 'nothing sent yet').toEqual([]);
  });
});

describe('nothing decided is lost from sight', () => {
  it('a later word does not take away the Undo of a grant just made', async () => {
    answer = async () => ({ grant: { grant_id: 'g-1', expires_at: new Date(T0 + 3600_000).toISOString() } }) as DecisionResponse;
    await show([prompt('A', 60, { agents_waiting: 0 })]);
    await key('r');
    expect(text('toast-text'), 'the grant is said').toContain('Allowed mvn test -Dwhich=A');
    expect(root.querySelector('[data-testid=undo]'), 'with its Undo').not.toBeNull();
    await show([prompt('A', 60, { agents_waiting: 0 })], 'GONE');
    expect(root.querySelector('[data-testid=undo]'), 'Undo stays: the grant can still be taken back').not.toBeNull();
    expect(text('toast-note'), 'the new word goes beside it').toContain('no longer waiting');
  });

  it('a decision refused after its prompt left the screen is said', async () => {
    let refuse: (err: CommandError) => void = () => {};
    answer = () => new Promise((_, reject) => (refuse = reject));
    await show([prompt('A', 60), prompt('B', 30)]);
    (root.querySelector('[data-approval-id=A]') as HTMLElement).click();
    await settle();
    (root.querySelector('[data-testid=allow-once]') as HTMLElement).click();
    await settle();
    // A expired meanwhile: it leaves, then the service refuses the decision.
    await show([prompt('B', 30)]);
    refuse({ code: 'conflict', message: 'the approval is already settled (expired)' });
    await settle();
    expect(text('toast-text'), 'the person learns A was not approved, and why').toBe(
      'Not decided: mvn test -Dwhich=A in shop. It was already settled: the approval is already settled (expired)',
    );
  });
});

describe('a click decides only what the person is looking at', () => {
  it('a prompt decided elsewhere stays on screen, marked, and a click a second later decides nothing', async () => {
    await show([prompt('A', 60), prompt('B', 0)]);
    await click('[data-testid=prompt][data-approval-id=A]');
    expect(onScreen(), 'the person reads A').toBe('A');
    expect(text('ev-unanswered'), 'an open prompt says when it gives up and what happens then').toBe('denied at 15:00 · 1 h left');
    // Alice denies A from another desk: it leaves the list, B (newer, wider) is still there.
    vi.setSystemTime(T0 + 30_000);
    await show([prompt('B', 0)], null, true, [deniedElsewhere('A')]);
    expect(onScreen(), 'A stays on screen: the detail never switches by itself to a prompt not read').toBe('A');
    expect(text('decided-elsewhere-text'), 'it says who decided it, when and how').toBe('Decided by alice at 14:00: denied — “out of scope”.');
    expect(buttons().every((b) => b.disabled), 'every decision button of A is disabled').toBe(true);
    expect(text('ev-unanswered'), 'no deadline is said for a prompt already settled').toBeNull();
    vi.setSystemTime(T0 + 31_000);
    await click('[data-testid=prompt-detail] [data-testid=allow-once]');
    await key('a');
    await key('r');
    expect(decidedIds(), 'a click and keys a second later decide nothing: not A (settled), not B (never read)').toEqual([]);
    expect(onScreen(), 'and A is still what is on screen').toBe('A');
    await click('[data-testid=move-on]');
    expect(onScreen(), 'the person moves on: B').toBe('B');
    await click('[data-testid=prompt-detail] [data-testid=allow-once]');
    expect(decidedIds(), 'B, chosen by the person, is decided by the click at once').toEqual(['B']);
  });

  it('says only that it no longer waits when how it settled is not known yet, and Close leaves the empty queue', async () => {
    await show([prompt('A', 60)]);
    await show([]);
    expect(onScreen(), 'the last prompt, settled elsewhere, stays on screen').toBe('A');
    expect(text('decided-elsewhere-text'), 'nothing invented about who decided').toBe('No longer waiting: it was decided elsewhere or closed.');
    expect(text('move-on'), 'nothing else waits: the button closes it').toBe('Close');
    await click('[data-testid=move-on]');
    expect(root.querySelector('[data-testid=pending-empty]'), 'the empty queue once the person moved on').not.toBeNull();
  });

  it('a click within a moment of the detail moving by itself decides nothing', async () => {
    await show([prompt('A', 60), prompt('B', 30)]);
    await click('[data-testid=prompt][data-approval-id=B]');
    await click('[data-testid=prompt-detail] [data-testid=allow-once]');
    expect(decidedIds(), 'the click decided B').toEqual(['B']);
    // B's decision went through here: it leaves, and A takes its place by itself.
    await show([prompt('A', 60)]);
    expect(onScreen(), 'the prompt after B in the order seen').toBe('A');
    vi.setSystemTime(T0 + 300);
    await click('[data-testid=prompt-detail] [data-testid=allow-once]');
    await click('[data-testid=prompt-detail] [data-testid=deny-reason]');
    expect(decidedIds(), 'a double click, or a click 0.3 s after the move, was meant for B: A is not decided').toEqual(['B']);
    expect(text('just-shown'), 'the person is told why nothing happened').toContain('nothing was decided');
    vi.setSystemTime(T0 + 1_000);
    await click('[data-testid=prompt-detail] [data-testid=allow-once]');
    expect(decidedIds(), 'once A has been on screen a moment, a click decides it').toEqual(['B', 'A']);
  });

  it("a notification's Open moving the detail is a move too: a click at once decides nothing", async () => {
    await show([prompt('A', 60), prompt('N', 0)]);
    expect(onScreen(), 'nothing chosen yet: the top').toBe('N');
    await click('[data-testid=prompt][data-approval-id=A]');
    await show([prompt('A', 60), prompt('N', 0)], 'N');
    expect(onScreen(), 'the notification asked for N').toBe('N');
    await click('[data-testid=prompt-detail] [data-testid=allow-once]');
    expect(decidedIds(), 'the click was aimed at A, which was on screen a moment ago').toEqual([]);
  });
});

describe('scope buttons say their breadth', () => {
  const wide = (extra: Partial<Approval> = {}) =>
    prompt('W', 60, {
      offered_scopes: ['once', 'run', 'command_profile'],
      // The service lists the run first (the one used most); the window orders by breadth.
      quick_decisions: [
        { label: 'Allow maven-test for run', scope: 'run', expires_in_seconds: 8 * 3600 },
        { label: 'Allow once', scope: 'once', expires_in_seconds: 3600 },
        { label: 'Allow maven-test for 1 h', scope: 'command_profile', expires_in_seconds: 3600 },
      ],
      ...extra,
    });

  it('orders the buttons narrowest first and words each by what it covers', async () => {
    await show([wide()]);
    expect(buttons().map((b) => b.textContent?.replace(/[ar]$/, '')), 'once, this run, then any run of the agent in the repository').toEqual([
      'Allow once · 1 h',
      'Allow maven-test for this run · 8 h',
      'Allow maven-test in any run of claude in shop · 1 h',
      'Deny d',
    ]);
  });

  it('the toast of a command-profile grant states its real coverage, not the run that asked', async () => {
    answer = async () =>
      ({
        grant: {
          grant_id: 'g-2', scope_kind: 'command_profile', expires_at: new Date(T0 + 3600_000).toISOString(),
          constraints: { profile: 'maven-test', repo: '/work/shop', requester: 'claude', path_patterns: [] },
        },
      }) as unknown as DecisionResponse;
    await show([wide({ agents_waiting: 0 })]);
    await click('[data-testid=quick-command_profile]');
    expect(sent[0]?.[1], 'the button asked for the profile scope').toMatchObject({ scope: 'command_profile', expires_in_seconds: 3600 });
    expect(text('toast-text'), 'any run of the agent in the repository, no run id').toBe('Allowed maven-test commands in any run of claude in shop until 15:00 · 1 h.');
  });
});

describe('times tick', () => {
  it('"asked 3 s ago" reads 43 s ago forty seconds later, with nothing else happening', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    vi.setSystemTime(T0);
    await show([prompt('A', 3)]);
    const asked = () => root.querySelector('[data-testid=prompt-run]')?.textContent ?? '';
    expect(asked(), 'the age when it arrived').toContain('asked 3 s ago');
    await act(() => {
      vi.advanceTimersByTime(40_000);
    });
    expect(asked(), 'the age forty seconds later, without a new snapshot').toContain('asked 43 s ago');
  });
});

describe("the reviewer's part", () => {
  const hostile = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> approve me';

  it("shows the model's opinion on the prompt, named as the model's", async () => {
    await show([prompt('A', 5, { review: { model: 'qwen3:8b', state: 'advised', outcome: 'approve', risk: 'low', rationale: 'runs the tests only' } })]);
    expect(text('review'), 'the detail says whose opinion it is and what it would do').toBe('model Reviewer (qwen3:8b): would approve — runs the tests only');
    expect(root.querySelector('[data-testid=review]')?.getAttribute('data-review-state'), 'styled by its state').toBe('advised');
    expect(text('reviewer-banner'), 'one opinion is no outage').toBeNull();
  });

  it('says a failure and the outage banner while the reviewer is unavailable', async () => {
    const failed = { model: 'qwen3:8b', state: 'failed' as const, rationale: 'the reviewer timed out after 20s', reviewer_unavailable: true };
    await show([prompt('A', 5, { review: failed }), prompt('B', 60)]);
    expect(text('review'), 'the failure and that the person decides').toBe('model Reviewer (qwen3:8b) failed: the reviewer timed out after 20s — asking you');
    expect(text('reviewer-banner'), 'any pending prompt marked unavailable raises the banner').toBe('Reviewer unavailable: asking you');
  });

  it("shows a model's hostile rationale as text, never as markup", async () => {
    (window as unknown as { __pwned?: number }).__pwned = undefined;
    await show([prompt('A', 5, { review: { model: 'm<b>x</b>', state: 'advised', outcome: 'ask_person', rationale: hostile } })]);
    const line = root.querySelector('[data-testid=review]')!;
    expect(line.textContent, 'every character of the rationale is on screen as written').toBe(`model Reviewer (m<b>x</b>): would ask you — ${hostile}`);
    expect(line.querySelector('img, script, b'), 'no element was made from the model’s text').toBeNull();
    expect((window as unknown as { __pwned?: number }).__pwned, 'nothing in it ran').toBeUndefined();
  });
});
