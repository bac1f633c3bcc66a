// @vitest-environment happy-dom
// History as a person reads it: decisions, scopes and times in words, and sign-ins kept out of
// the decisions until asked for. Rendered with Preact into happy-dom; the audit is stubbed.
import { render } from 'preact';
import { act } from 'preact/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AuditEvent } from '../types';

let trail: AuditEvent[] = [];

vi.mock('../api', () => ({
  inWindow: true,
  api: {
    audit: async () => trail,
    denials: async () => [],
    forgetDenial: async () => undefined,
  },
}));

const { History } = await import('./History');

const T0 = new Date(2030, 0, 1, 14, 0, 0).getTime();

function event(id: string, extra: Partial<AuditEvent>): AuditEvent {
  return {
    event_id: id, timestamp: new Date(T0 - 60_000).toISOString(), run_id: '', task_id: '', action_kind: 'other', action_hash: '',
    requested_scope: null, decision: 'approved', reason: '', policy_version: 'v1', evidence_artifact_id: '', ...extra,
  } as AuditEvent;
}

let root: HTMLElement;

async function settle() {
  for (let i = 0; i < 6; i++) await act(async () => await Promise.resolve());
}

const rows = () => [...root.querySelectorAll('[data-testid=audit-row]')] as HTMLElement[];
const decisions = () => rows().map((r) => r.getAttribute('data-decision'));

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(T0);
  const granted = new Date(T0 + 3600_000).toISOString();
  trail = [
    event('e1', {
      decision: 'approved', run_id: '3f9a1c2b-5d6e-4f70-8a9b-0c1d2e3f4a5b', action_kind: 'shell', subject: 'mvn -q test', repo: '/work/shop',
      granted_scope: 'command_profile', grant_expires_at: granted, approver: 'owner', approver_role: 'task_author', reason: 'ok',
    }),
    event('e2', { decision: 'signed_in', subject: 'alice signed in to the web desk', approver: 'alice', reason: 'passkey' }),
    event('e3', { decision: 'invited', subject: `invite for bob to enrol a passkey, until ${new Date(T0 + 600_000).toISOString()}`, approver: 'owner' }),
  ];
  root = document.createElement('div');
  document.body.appendChild(root);
  await act(() => render(<History />, root));
  await settle();
});

afterEach(async () => {
  await act(() => render(null, root));
  root.remove();
  vi.useRealTimers();
});

describe('History', () => {
  it('speaks in words: the decision, the scope, no codes', () => {
    const row = rows().find((r) => r.getAttribute('data-decision') === 'approved')!;
    expect(row.querySelector('[data-testid=audit-decision]')?.textContent, 'the decision in words').toBe('Approved');
    expect(row.querySelector('[data-testid=audit-scope]')?.textContent, 'the scope in words, never command_profile').toBe('Command profile (any run)');
    expect(row.textContent, 'no code of the service is shown').not.toMatch(/command_profile|task_author|\bshell\b/);
  });

  it('keeps sign-ins and passkey invites out of the decisions until asked, then says them in words', async () => {
    expect(decisions(), 'only what was decided about agents shows at first').toEqual(['approved']);
    expect(root.querySelector('[data-testid=show-account]')?.textContent, 'says how many are hidden').toContain('(2 hidden)');
    const box = root.querySelector('[data-testid=show-account] input') as HTMLInputElement;
    await act(() => {
      box.checked = true;
      box.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await settle();
    expect(decisions().sort(), 'ticked: sign-ins and invites show too').toEqual(['approved', 'invited', 'signed_in']);
    const text = root.querySelector('[data-testid=audit]')?.textContent ?? '';
    expect(text, 'a sign-in in words').toContain('Signed in to the web desk');
    expect(text, 'no raw code').not.toContain('signed_in');
    expect(text, 'the invite says until when on the clock, not as an RFC 3339 stamp').toContain('until 14:10');
    expect(text, 'no raw timestamp').not.toMatch(/\d{4}-\d{2}-\d{2}T/);
  });
});

describe("History of the reviewer's calls", () => {
  it("says what a model reviewed and approved: model, outcome, rationale, and that it was a model", async () => {
    trail = [
      event('r1', {
        decision: 'reviewed', approver: 'reviewer:qwen3:8b', subject: 'mvn -q test', reason: 'runs the tests only',
        review: { model: 'qwen3:8b', prompt_version: 'assent-reviewer/1', state: 'approved', outcome: 'approve', risk: 'low', rationale: 'runs the tests only', latency_ms: 80, request_sha256: 'ab' },
      }),
      event('r2', { decision: 'approved', approver: 'reviewer:qwen3:8b', subject: 'mvn -q test', granted_scope: 'run', reason: 'runs the tests only' }),
      event('r3', {
        decision: 'reviewed', approver: 'reviewer:qwen3:8b', subject: 'git push', reason: '<script>x</script>',
        review: { model: 'qwen3:8b', prompt_version: 'assent-reviewer/1', state: 'failed', rationale: 'the reviewer timed out after 1s', latency_ms: 1000, request_sha256: 'cd' },
      }),
    ];
    // A fresh History: it reads the audit when it opens.
    await act(() => render(null, root));
    await act(() => render(<History />, root));
    await settle();
    const row = (id: string) => rows().find((r) => r.getAttribute('data-decision') && r.textContent?.includes(id)) ?? null;
    const reviewed = rows().filter((r) => r.getAttribute('data-decision') === 'reviewed');
    expect(reviewed.length, 'each audited call is a row').toBe(2);
    expect(reviewed.map((r) => r.querySelector('[data-testid=audit-decision]')?.textContent), 'the decision in words, never `reviewed`').toEqual(['Reviewed by a model', 'Reviewed by a model']);
    const reasons = reviewed.map((r) => r.querySelector('[data-testid=audit-reason]')?.textContent);
    expect(reasons, 'model, outcome and rationale in words; a failure says the person decides').toEqual([
      'Reviewer (qwen3:8b) approved it alone — runs the tests only',
      'Reviewer (qwen3:8b) failed — the reviewer timed out after 1s; the person decides',
    ]);
    const approved = rows().find((r) => r.getAttribute('data-decision') === 'approved')!;
    expect(approved.querySelector('[data-testid=audit-by]')?.textContent, 'approved by a model, said as such, not a bare actor id').toBe('Reviewer (qwen3:8b), a model');
    expect(row('git push')?.querySelector('script'), 'no element made from audit text').toBeNull();
  });
});
