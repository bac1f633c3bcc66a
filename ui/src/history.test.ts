import { describe, expect, it } from 'vitest';
import { auditScopeWords, DECISION_WORDS, decisionWords, isAccountEvent, textInWords } from './history';
import type { AuditDecision } from './types';

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
