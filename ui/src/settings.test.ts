import { describe, expect, it } from 'vitest';
import { auditSummary, describeBreak, envOverride, fingerprint, pauseWords, reasonLines, savedWords } from './settings';
import type { AuditReport } from './types';

describe('settings', () => {
  it('says until when notifications are paused on the 24-hour clock', () => {
    const now = new Date(2030, 0, 1, 12, 0).getTime();
    const at = new Date(2030, 0, 1, 14, 5).toISOString();
    expect(pauseWords(at, now), 'one time format: 14:05, never 2:05:00 PM').toBe('until 14:05');
    expect(pauseWords('until_resumed', now)).toBe('until resumed');
    expect(pauseWords(null, now)).toBe('not paused');
  });

  it('says when the environment chooses the service', () => {
    expect(envOverride(['ASSENT_URL', 'ASSENT_TOKEN']), 'both set: the screen says they win').toContain('they choose the service');
    expect(envOverride(['ASSENT_URL']), 'one alone overrides nothing').toBeNull();
    expect(envOverride([]), 'none set').toBeNull();
  });

  it('says a save went through, and what of it did not', () => {
    expect(savedWords(undefined, null), 'all of it').toBe('Saved.');
    const failed = savedWords('cannot write the autostart entry /h/.config/autostart/Assent.desktop: Not a directory', null);
    expect(failed, 'start at login that did not change is said, with why').toBe(
      'Saved. Start at login was not changed: cannot write the autostart entry /h/.config/autostart/Assent.desktop: Not a directory.',
    );
    expect(savedWords(undefined, 'The environment wins.'), 'the override still said').toBe('Saved. The environment wins.');
  });

  it('reads deny reasons one per line', () => {
    expect(reasonLines(' out of scope \n\nask me first\n'), 'trimmed, blank lines dropped').toEqual(['out of scope', 'ask me first']);
  });
});

describe('the audit check in settings', () => {
  const report = (extra: Partial<AuditReport> = {}): AuditReport => ({
    ok: true, events: 1234, before_chain: 0, head_seq: 1234, head_hash: 'ab'.repeat(32), checkpoints: 2, last_checkpoint_seq: 1000,
    last_checkpoint_at: '2026-01-01T09:00:00Z', breaks: [], ...extra,
  });
  const when = (iso: string) => `<${iso}>`;

  it('groups the fingerprint in fours', () => {
    expect(fingerprint('0123456789abcdef'), 'sixteen hex digits read as four groups').toBe('0123 4567 89ab cdef');
  });

  it('says quietly how much of the chain holds and when it was last signed', () => {
    const s = auditSummary(report(), when);
    expect(s.ok, 'an intact chain is no warning').toBe(true);
    expect(s.headline, 'the count and the last checkpoint, in the page locale').toBe('Verified 1,234 events, last checkpoint at <2026-01-01T09:00:00Z> (event 1000).');
    expect(auditSummary(report({ last_checkpoint_at: null, checkpoints: 0, events: 1 }), when).headline, 'a new service has no checkpoint yet').toBe('Verified 1 event, no checkpoint yet.');
    expect(auditSummary(report({ before_chain: 3 }), when).headline, 'rows older than the chain are said to be uncovered').toContain('3 events from before the chain started are not covered.');
  });

  it('warns where the chain breaks and what kind of break it is', () => {
    const s = auditSummary(report({ ok: false, breaks: [{ kind: 'changed', chain_seq: 3, event_id: 'ev-3' }, { kind: 'checkpoint', id: 2, why: 'it signs a different hash at event 4' }] }), when);
    expect(s.ok, 'a broken chain is a warning').toBe(false);
    expect(s.headline, 'the count, then the first place and kind').toBe('The audit does not hold: 2 broken links. First: event 3 (ev-3) was changed: its hash is not the hash of what it holds.');
    expect(s.lines, 'each break in the words of assent audit verify').toEqual([
      'event 3 (ev-3) was changed: its hash is not the hash of what it holds',
      'checkpoint 2 no longer matches: it signs a different hash at event 4',
    ]);
  });

  it('counts uncovered executions apart from broken links', () => {
    const s = auditSummary(report({ ok: false, breaks: [{ kind: 'uncovered', chain_seq: 9, event_id: 'ev-9' }] }), when);
    expect(s.headline, 'an execution nothing allowed is named as such').toBe('The audit does not hold: 1 uncovered execution. First: event 9 (ev-9): an execution no auto decision, grant or approval covered.');
  });

  it('lists at most ten breaks, then says how many more', () => {
    const breaks = Array.from({ length: 13 }, (_, i) => ({ kind: 'missing' as const, after: i, found: i + 2 }));
    const s = auditSummary(report({ ok: false, breaks }), when);
    expect(s.lines.length, 'ten and a line for the rest').toBe(11);
    expect(s.lines[10], 'the rest are in the CLI').toBe('and 3 more (assent audit verify lists them all)');
  });

  it('describes every kind of break', () => {
    expect(describeBreak({ kind: 'missing', after: 2, found: 4 }), 'a deletion names the gap').toBe('events missing after 2: the next one is 4');
    expect(describeBreak({ kind: 'relinked', chain_seq: 5, event_id: 'e' }), 'a move names the event out of place').toContain('does not follow the event before it');
    expect(describeBreak({ kind: 'unlinked', event_id: 'forged' }), 'a forged row is named by its id').toBe('event forged has no link: inserted outside the service');
    expect(describeBreak({ kind: 'signature', id: 1, key_id: 'k' }), 'a bad signature names the key it claims').toBe('checkpoint 1: its signature does not verify with key k');
  });
});
