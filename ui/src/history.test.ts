import { describe, expect, it } from 'vitest';
import {
  auditBy,
  auditScopeWords,
  DECISION_WORDS,
  decisionWords,
  deniedRuns,
  denialBy,
  denialSubject,
  filterAudit,
  isAccountEvent,
  mergeDenials,
  textInWords,
  undoneMessage,
} from './history';
import { approval } from './test-fixtures';
import type { Approval, AuditDecision, AuditEvent } from './types';

const NOW = new Date(2026, 11, 5, 23, 0, 0).getTime();

describe('History in words', () => {
  it('says every decision in words, never its code', () => {
    const codes = Object.keys(DECISION_WORDS) as AuditDecision[];
    for (const code of codes) {
      expect(decisionWords(code), `${code} is said in words`).not.toMatch(/_/);
    }
    expect(decisionWords('signed_in'), 'a sign-in reads as one').toBe('Signed in to the web desk');
    expect(decisionWords('expired'), 'an expired prompt: nobody answered').toBe('Nobody answered in time');
    expect(decisionWords('policy_paused'), 'a decision this desk does not know yet is read from its code').toBe('policy paused');
  });

  it('says the scope in words', () => {
    expect(auditScopeWords('command_profile'), 'never command_profile').toBe('Command profile (any run)');
    expect(auditScopeWords('run')).toBe('This run');
    expect(auditScopeWords(null), 'no scope, no words').toBe('');
  });

  it('says the times inside a record as the desk says times, on the local 24-hour clock', () => {
    const at = new Date(2026, 11, 5, 22, 32, 48, 523);
    const rust = `${at.toISOString().replace('Z', '')}079211+00:00`;
    expect(rust, 'precondition: nanoseconds, as Rust writes them').toMatch(/\.\d{9}\+00:00$/);
    expect(textInWords(`invite for bob to enrol a passkey, until ${rust}`, NOW), 'no raw timestamp is left').toBe(
      'invite for bob to enrol a passkey, until 22:32',
    );
    const earlier = new Date(2026, 10, 20, 9, 5).toISOString();
    expect(textInWords(`until ${earlier}`, NOW), 'another day names the day').toBe('until 20 Nov 09:05');
    expect(textInWords('denied: out of scope', NOW), 'text without a time is as it was').toBe('denied: out of scope');
  });

  it('tells sign-ins and passkey changes from decisions about what agents asked', () => {
    for (const decision of ['signed_in', 'enrolled', 'passkey_removed', 'invited'] as const) {
      expect(isAccountEvent({ decision }), `${decision} is about people's access`).toBe(true);
    }
    for (const decision of ['approved', 'denied', 'auto', 'expired', 'revoked'] as const) {
      expect(isAccountEvent({ decision }), `${decision} is a decision`).toBe(false);
    }
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
