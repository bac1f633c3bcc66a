import { describe, expect, it, vi } from 'vitest';
import type { Approval } from './types';
import { absolute, byWords, DATE_TIME, relative, repoName, roleWords, rolesWords, unansweredLine, waitLine } from './words';

const NOW = new Date(2030, 0, 1, 19, 30, 0).getTime();

describe('human words', () => {
  it('says in the packet when the prompt gives up and what happens then', () => {
    const at = new Date(NOW + 59 * 60_000).toISOString();
    expect(unansweredLine({ expires_at: at, fallback_on_timeout: 'deny' }, NOW), 'denied, on the clock, with the time left').toBe(
      'denied at 20:29 · 59 min left',
    );
    expect(unansweredLine({ expires_at: at, fallback_on_timeout: 'pause' }, NOW), 'a pausing policy says the run pauses').toBe(
      'the run pauses at 20:29 · 59 min left',
    );
  });

  it('writes an absolute time on a 24-hour clock, whatever the locale prefers', () => {
    const afternoon = new Date(2030, 0, 1, 14, 5, 0).getTime();
    expect(absolute(afternoon), 'one time format everywhere: 14:05, never 2:05 PM').toMatch(/14:05:00/);
    expect(absolute(afternoon), 'no AM/PM').not.toMatch(/[AP]M/);
  });

  it('writes an absolute time exactly as toLocaleString does, and keeps an unreadable one', () => {
    for (const at of ['2030-01-01T19:30:00Z', '2029-12-31T23:59:59.999Z', '1999-07-04T00:00:01+02:00']) {
      expect(absolute(at), `the hover reads as it did before the formatter was shared: ${at}`).toBe(
        new Date(at).toLocaleString(undefined, DATE_TIME),
      );
    }
    expect(absolute(NOW), 'a time in milliseconds too').toBe(new Date(NOW).toLocaleString(undefined, DATE_TIME));
    expect(absolute('not a time'), 'an unreadable time is shown as it came, not thrown on').toBe('not a time');
  });

  it('follows a change of the time zone within a minute', () => {
    const at = '2030-01-01T19:30:00Z';
    vi.useFakeTimers();
    try {
      vi.stubEnv('TZ', 'UTC');
      vi.setSystemTime(NOW);
      expect(absolute(at), 'in UTC').toBe(new Date(at).toLocaleString(undefined, DATE_TIME));
      vi.stubEnv('TZ', 'Asia/Tokyo');
      vi.setSystemTime(NOW + 61_000);
      expect(absolute(at), 'a minute after the zone changed, the hover is in the new zone').toBe(
        new Date(at).toLocaleString(undefined, DATE_TIME),
      );
    } finally {
      vi.useRealTimers();
      vi.unstubAllEnvs();
    }
  });

  it('names roles in words', () => {
    expect(roleWords('platform_admin'), 'a role').toBe('Platform admin');
    expect(rolesWords(['task_author', 'repo_maintainer']), 'several').toBe('Task author, Repository maintainer');
    expect(rolesWords([]), 'none').toBe('no role');
  });

  it("names the grant's maker, a model as a model (Grants: `by …`)", () => {
    // A grant the reviewer made reads as a model's, so the person knows what to revoke.
    expect(byWords('reviewer:qwen3:8b', null)).toBe('Reviewer (qwen3:8b), a model');
    expect(byWords('alice', 'task_author'), 'a person as before').toBe('alice (Task author)');
  });

  it('says when the agents stopped waiting', () => {
    const waiting = { agents_waiting: 1 } as Approval;
    const gone = { agents_waiting: 0 } as Approval;
    expect(waitLine(waiting, null, NOW), 'an agent still waits: nothing to say').toBeNull();
    expect(waitLine(gone, new Date(2030, 0, 1, 19, 12).getTime(), NOW), 'seen waiting, then gone').toBe(
      'The agent stopped waiting at 19:12; approving covers a retry.',
    );
    expect(waitLine(gone, null, NOW), 'never seen waiting: no claim either way').toBeNull();
    const told = { agents_waiting: 0, agents_stopped_waiting_at: new Date(2030, 0, 1, 19, 5).toISOString() } as Approval;
    expect(waitLine(told, null, NOW), 'the service said when, though the window never saw it waiting').toBe(
      'The agent stopped waiting at 19:05; approving covers a retry.',
    );
    expect(
      waitLine({ ...told, agents_waiting: 1 }, null, NOW),
      'an agent came back: the prompt is live again, whatever was said before',
    ).toBeNull();
  });

  it('says times relative and repositories by name', () => {
    expect(relative(new Date(NOW - 90_000).toISOString(), NOW), 'minutes').toBe('1 min ago');
    expect(relative(new Date(NOW - 3 * 86400_000).toISOString(), NOW), 'days').toBe('3 d ago');
    expect(repoName('/work/shop/'), 'the last part of the path').toBe('shop');
    expect(repoName(null), 'none').toBe('');
  });
});

describe('grants as sentences', () => {
  it('says what a grant allows, how long it has left and how often it was used', async () => {
    const { grantLine, usedWords, leftWords } = await import('./words');
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(grantLine('`npm install left-pad` in shop for this run', '2030-01-01T07:59:30Z', 1, null, now), 'one sentence').toBe(
      'Allows npm install left-pad in shop for this run · 7 h 59 min left · used once',
    );
    expect(usedWords(0, null), 'unused').toBe('not used yet');
    expect(usedWords(2, 5), 'bounded').toBe('used 2 of 5 times');
    expect(leftWords('2029-12-31T23:00:00Z', now), 'past').toBe('expired');
  });
});

describe('days, hours and moments in words', () => {
  it('says a calendar day the way people do', async () => {
    const { dayWords } = await import('./words');
    expect(dayWords('2030-11-30'), 'weekday, day, month — not 2030-11-30').toBe('Sat 30 Nov');
    expect(dayWords('2030-12-01', 'short'), 'the short form drops the weekday').toBe('1 Dec');
    expect(dayWords('not a day'), 'anything else is shown as it is, never as "NaN"').toBe('not a day');
  });

  it('says an hour like a clock', async () => {
    const { hourWords } = await import('./words');
    expect([hourWords(0), hourWords(9), hourWords(14)], 'two digits, on the hour').toEqual(['00:00', '09:00', '14:00']);
  });

  it('says a moment as short as it can be without being ambiguous', async () => {
    const { whenWords } = await import('./words');
    const at = (d: number, h: number, m: number, month = 0, year = 2030) => new Date(year, month, d, h, m).getTime();
    expect(whenWords(at(1, 14, 2), NOW), 'today: the time alone').toBe('14:02');
    expect(whenWords(at(31, 23, 50, 11, 2029), NOW), 'the evening before (another year even)').toBe('yesterday 23:50');
    const thisWeek = new Date(2030, 0, 8, 10, 0).getTime();
    expect(whenWords(at(5, 9, 0), thisWeek), 'within the week: the weekday').toBe('Sat 09:00');
    expect(whenWords(at(1, 9, 0), new Date(2030, 5, 1).getTime()), 'earlier this year: day and month').toBe('1 Jan 09:00');
    expect(whenWords(at(30, 9, 0, 10, 2029), NOW), 'another year: with the year').toBe('30 Nov 2029 09:00');
  });
});

describe('runs in words', () => {
  const T = (h: number, m: number) => new Date(2030, 0, 1, h, m).toISOString();
  const approval = (run: string, createdAt: string, requester = 'default', requestedBy: Approval['requested_by'] = 'agent') =>
    ({ run_id: run, created_at: createdAt, requester, requested_by: requestedBy }) as Approval;

  it('names who asked by identity and kind', async () => {
    const { agentWords } = await import('./words');
    expect(agentWords('default', 'agent'), 'the local install\'s agent').toBe('agent default');
    expect(agentWords('ci', 'verifier'), 'a verifier says so').toBe('verifier ci');
    expect(agentWords('', 'pr-orchestrator'), 'no name: the kind alone').toBe('PR orchestrator');
  });

  it('shortens a session id to 8 characters and keeps a short name whole', async () => {
    const { runShortId } = await import('./words');
    expect(runShortId('3f9a1c2b-7d4e-4f00-9a1b-1234567890ab'), 'a Claude Code session id').toBe('3f9a1c2b');
    expect(runShortId('run-a'), 'a short name is already short').toBe('run-a');
    expect(runShortId('nightly-dependency-update'), 'a long name is cut and says so').toBe('nightly-dep…');
  });

  it('knows a run by its agent and the earliest moment it appears, from approvals and audit events', async () => {
    const { knownRuns, factsOf } = await import('./words');
    const runs = knownRuns(
      [approval('r1', T(14, 30)), approval('r1', T(14, 2)), approval('r2', T(15, 0), 'ci', 'verifier')],
      [{ run_id: 'r1', timestamp: T(14, 10) }, { run_id: 'r3', timestamp: T(9, 0) }],
    );
    expect(factsOf(runs, 'r1'), 'the earliest of its prompts and decisions, and its agent').toEqual({
      runId: 'r1',
      agent: 'agent default',
      firstSeen: Date.parse(T(14, 2)),
    });
    expect(factsOf(runs, 'r3').agent, 'the audit does not name the agent: not made up').toBeNull();
    expect(factsOf(runs, 'r9'), 'a run not in view is known by its id only').toEqual({ runId: 'r9', agent: null, firstSeen: null });
  });

  it('says a run as agent, first sighting and short id, the full id on hover', async () => {
    const { runWords, runTitle } = await import('./words');
    const run = { runId: '3f9a1c2b-7d4e-4f00-9a1b-1234567890ab', agent: 'agent default', firstSeen: new Date(2030, 0, 1, 14, 2).getTime() };
    expect(runWords(run, NOW), 'agent, start as far as the window knows it ("first seen", not "started"), short id').toBe(
      'agent default · first seen 14:02 · run 3f9a1c2b',
    );
    expect(runWords({ ...run, agent: null }, NOW), 'no agent in view: the run leads').toBe('run 3f9a1c2b · first seen 14:02');
    expect(runWords({ ...run, agent: null, firstSeen: null }, NOW), 'nothing but the id').toBe('run 3f9a1c2b');
    const title = runTitle(run);
    expect(title.startsWith(`Run ${run.runId}`), 'the hover carries the full id to copy').toBe(true);
    expect(title.includes('the service does not say when a run started'), 'and why it says "first seen"').toBe(true);
  });

  it('says a paused run with why and since when', async () => {
    const { heldRunWords } = await import('./words');
    const run = { runId: 'run-1', agent: 'agent default', firstSeen: null };
    expect(heldRunWords(run, null, new Date(NOW - 180_000).toISOString(), NOW), 'no reason given: the usual one').toBe(
      'agent default · run run-1 — paused awaiting a person · paused 3 min ago',
    );
  });
});

describe('policy rules in words', () => {
  it('names a rule by what it asks about, and reads an unknown one from its id', async () => {
    const { ruleWords } = await import('./words');
    expect(ruleWords('ask.network'), 'a known rule').toBe('Reaches the network');
    expect(ruleWords('escalate.cloud'), 'an escalation says so').toBe('Changes cloud resources (escalated)');
    expect(ruleWords('profile.maven-test'), 'a command profile by its name').toBe('Command profile maven-test');
    expect(ruleWords('ask.publish'), 'the rule behind git push, gh pr and npm publish: not only packages').toBe('Publishes (a push, a pull request or a package)');
    expect(ruleWords('ask.cache_purge'), 'a rule this list does not know: no dots or underscores').toBe('Ask: cache purge');
    expect(ruleWords('custom'), 'no family: as it is').toBe('custom');
  });
});
