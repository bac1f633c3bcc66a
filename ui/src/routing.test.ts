import { describe, expect, it } from 'vitest';
import type { Approval } from './types';
import { askedLine } from './words';

const NOW = new Date(2030, 0, 1, 12, 30, 0).getTime();
const OPENED = new Date(2030, 0, 1, 12, 0, 0).toISOString();
const ESCALATED = new Date(2030, 0, 1, 12, 5, 0).toISOString();

function prompt(asked: Approval['asked'], role: Approval['required_role'] = 'platform_admin'): Approval {
  return { asked, required_role: role } as Approval;
}

describe('who a prompt asks', () => {
  it('names the people present, then the escalation with its time', () => {
    const first = prompt({ step: 1, people: ['alice', 'bob'], basis: 'present', at: OPENED, escalated_to: [] });
    expect(askedLine(first, NOW), 'the first step names who it asked').toBe('Asked alice, bob');
    const second = prompt({ ...first.asked!, step: 2, escalated_at: ESCALATED, escalated_to: ['carol'] });
    expect(askedLine(second, NOW), 'the escalation says to whom (the role), when, and who is new').toBe(
      'Asked alice, bob · escalated to everyone with role Platform admin at 12:05 (carol)',
    );
    const nobodyNew = prompt({ ...second.asked!, escalated_to: [] });
    expect(askedLine(nobodyNew, NOW), 'an escalation that adds nobody says so').toBe(
      'Asked alice, bob · escalated to everyone with role Platform admin at 12:05 (nobody new)',
    );
  });

  it('says when it asked everyone, and why', () => {
    const away = prompt({ step: 1, people: ['alice', 'bob'], basis: 'nobody_present', at: OPENED, escalated_to: [] });
    expect(askedLine(away, NOW), 'nobody was present: everyone holding the role').toBe(
      'Asked everyone with role Platform admin (alice, bob): nobody was present',
    );
    const unrouted = prompt({ step: 1, people: ['alice'], basis: 'everyone', at: OPENED, escalated_to: [] }, null);
    expect(askedLine(unrouted, NOW), 'no role needed: everyone who may decide it').toBe('Asked everyone who may decide it (alice)');
    expect(askedLine(prompt(undefined), NOW), 'a prompt the service said nothing about: no line').toBeNull();
  });

  it('shows names as text, with control characters made visible', () => {
    const odd = prompt({ step: 1, people: ['a\u202eb'], basis: 'present', at: OPENED, escalated_to: [] });
    expect(askedLine(odd, NOW), 'a bidi override never reorders the line').not.toContain('\u202e');
  });
});
