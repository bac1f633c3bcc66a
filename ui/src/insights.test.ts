import { describe, expect, it } from 'vitest';
import {
  agreement,
  busiestRuns,
  calendarDays,
  duration,
  figures,
  label,
  LOCAL,
  nothingYet,
  openPrompts,
  percent,
  promptsPerDay,
  promptsPerHour,
  reviewerPerDay,
  settlesPrompt,
  topStats,
  totalOf,
  UTC,
  windowStart,
} from './insights';
import type { Approval, AuditDecision, InsightEvent, Metrics, PromptStats } from './types';

const NOW = Date.parse('2030-03-14T15:00:00Z');

let serial = 0;
/** A member of prompt `approval` settled with `decision` at `at`. */
function settled(approval: string, decision: AuditDecision, at: string, run = 'run-1'): InsightEvent {
  serial += 1;
  return { timestamp: at, decision, run_id: run, approval_id: approval, action_id: `ac-${serial}`, repo: 'shop' };
}

/** An action the policy decided alone (auto or blocked). */
function alone(decision: AuditDecision, at: string): InsightEvent {
  serial += 1;
  return { timestamp: at, decision, run_id: 'run-1', action_id: `ac-${serial}` };
}

function stats(prompts: number, extra: Partial<PromptStats> = {}): PromptStats {
  return {
    prompts, approved: 0, denied: 0, timed_out: 0, approve_rate: 0, deny_rate: 0,
    time_to_decide_seconds: { count: 0, mean: 0, p50: 0, p90: 0 }, rubber_stamps: 0, remembered_denials: 0, ...extra,
  };
}

function metrics(extra: Partial<Metrics> = {}): Metrics {
  return {
    actions_by_decision: {}, actions_total: 0, prompts_opened: 0, prompts_pending: 0, batch_size: { mean: 0, max: 0 },
    time_to_decision_seconds: { count: 0, mean: 0, p50: 0, p90: 0 }, grants_active: 0, prompts_per_100_actions: 0,
    by_rule: {}, by_profile: {}, prompts_per_run: { runs: 0, mean: 0, max: 0 }, rubber_stamps: 0, remembered_denials: 0,
    uncovered_executions: 0, ...extra,
  };
}

function pending(id: string, run: string): Approval {
  return { approval_id: id, run_id: run, repo: 'shop' } as Approval;
}

describe('calendar days', () => {
  it('starts the window at midnight thirteen days before today, for fourteen days', () => {
    const since = windowStart(NOW, 14, UTC);
    expect(new Date(since).toISOString(), 'the first day is whole, not 14×24 h before now').toBe('2030-03-01T00:00:00.000Z');
    const days = calendarDays(since, NOW, UTC);
    expect(days.length, 'fourteen days, today included').toBe(14);
    expect([days[0], days[13]], 'oldest first, today last').toEqual(['2030-03-01', '2030-03-14']);
  });

  it('counts local calendar days, whatever the time zone does', () => {
    const since = windowStart(NOW, 14, LOCAL);
    expect(LOCAL.dayOf(since), 'local midnight is the start of a local day').toBe(LOCAL.dayOf(since + 1000));
    expect(LOCAL.dayOf(since - 1000), 'a second earlier is the day before').not.toBe(LOCAL.dayOf(since));
    expect(calendarDays(since, NOW, LOCAL).length, 'fourteen local days (23- or 25-hour days included)').toBe(14);
  });
});

describe('prompts per day', () => {
  it('a fresh install has fourteen empty days, not a broken chart', () => {
    const days = promptsPerDay([], windowStart(NOW, 14, UTC), NOW, UTC);
    expect(days.length, 'every day of the window has a column').toBe(14);
    expect(totalOf(days), 'all zero').toEqual({ approved: 0, denied: 0, timedOut: 0, auto: 0, blocked: 0 });
  });

  it('counts each prompt once on the day it settled, by how it went', () => {
    const events = [
      // A batch of three members approved together is one prompt.
      settled('ap-1', 'approved', '2030-03-13T09:00:00Z'),
      settled('ap-1', 'approved', '2030-03-13T09:00:00Z'),
      settled('ap-1', 'approved', '2030-03-13T09:00:00Z'),
      settled('ap-2', 'denied', '2030-03-13T10:00:00Z'),
      // Later in the run the agent asked again: the remembered denial names the same prompt.
      settled('ap-2', 'denied', '2030-03-14T08:00:00Z'),
      settled('ap-3', 'expired', '2030-03-14T11:00:00Z'),
      alone('auto', '2030-03-14T11:30:00Z'),
      alone('auto', '2030-03-14T11:31:00Z'),
      alone('blocked', '2030-03-13T12:00:00Z'),
    ];
    const days = promptsPerDay(events, windowStart(NOW, 14, UTC), NOW, UTC);
    const byDay = Object.fromEntries(days.map((d) => [d.day, d]));
    expect(byDay['2030-03-13'], 'the 13th: one approved batch, one denial, one blocked action').toEqual({
      day: '2030-03-13', approved: 1, denied: 1, timedOut: 0, auto: 0, blocked: 1,
    });
    expect(byDay['2030-03-14'], 'the 14th: a timeout and two auto actions; the remembered denial is no new prompt').toEqual({
      day: '2030-03-14', approved: 0, denied: 0, timedOut: 1, auto: 2, blocked: 0,
    });
  });

  it('a grant running out is no prompt timing out', () => {
    const grantExpiry: InsightEvent = { timestamp: '2030-03-14T09:00:00Z', decision: 'expired', run_id: 'run-1', approval_id: 'ap-9' };
    expect(settlesPrompt(grantExpiry), 'a grant expiry names no action').toBe(false);
    const days = promptsPerDay([grantExpiry], windowStart(NOW, 14, UTC), NOW, UTC);
    expect(totalOf(days).timedOut, 'not counted as a timeout').toBe(0);
  });

  it('events outside the window and out of order are handled', () => {
    const events = [
      settled('ap-1', 'approved', '2030-03-14T09:00:00Z'),
      settled('ap-0', 'denied', '2030-02-01T09:00:00Z'),
      settled('ap-1', 'approved', '2030-03-12T09:00:00Z'),
    ];
    const days = promptsPerDay(events, windowStart(NOW, 14, UTC), NOW, UTC);
    const approved = days.filter((d) => d.approved > 0).map((d) => d.day);
    expect(approved, 'a prompt counts on its earliest settlement, even if listed later').toEqual(['2030-03-12']);
    expect(totalOf(days).denied, 'a denial before the window is not shown').toBe(0);
  });
});

describe('top rules and profiles', () => {
  it('sorts by prompts, then by name, and computes the approve rate of what was decided', () => {
    const rows = topStats({
      'profile.maven-test': stats(5, {
        approved: 3, denied: 1, timed_out: 1, time_to_decide_seconds: { count: 4, mean: 20, p50: 12, p90: 45 }, rubber_stamps: 2,
      }),
      'network.egress': stats(5, { denied: 2 }),
      'path.outside_repo': stats(7, { approved: 1 }),
      'never.asked': stats(0),
    });
    expect(rows.map((r) => r.name), 'most prompts first; a tie goes by name; a rule without prompts is left out').toEqual([
      'path.outside_repo', 'network.egress', 'profile.maven-test',
    ]);
    const maven = rows[2]!;
    expect(maven.approveRate, 'approved of decided: 3 of 4 (a timeout is no decision)').toBe(0.75);
    expect([maven.p50, maven.p90], 'time to decide comes from the service').toEqual([12, 45]);
    expect(rows[1]!.approveRate, 'all denied: 0, not missing').toBe(0);
    expect(rows[0]!.p50, 'no time to decide measured: none, not 0').toBeNull();
    expect(rows[0]!.open, '7 prompts, 1 approved: 6 still open').toBe(6);
  });

  it('a fresh install has no rows', () => {
    expect(topStats({}), 'no rule prompted yet').toEqual([]);
  });

  it('many rules: the top ten by name, the rest summed as others', () => {
    const many: Record<string, PromptStats> = {};
    for (let i = 1; i <= 25; i++) many[`rule.${String(i).padStart(2, '0')}`] = stats(100 - i, { approved: 1, denied: 1 });
    const rows = topStats(many);
    expect(rows.length, 'ten named and one for the rest').toBe(11);
    const others = rows[10]!;
    expect([others.name, others.others], 'the last row says how many it sums').toEqual(['15 others', 15]);
    expect(others.prompts, 'the prompts of rules 11 to 25').toBe(Array.from({ length: 15 }, (_, i) => 100 - (i + 11)).reduce((a, b) => a + b));
    expect(others.approveRate, 'the rate of the sums').toBe(0.5);
    expect(others.p50, 'percentiles of different rules do not add up').toBeNull();
  });

  it('one rule past the top is shown by name rather than as "1 others"', () => {
    const eleven: Record<string, PromptStats> = {};
    for (let i = 1; i <= 11; i++) eleven[`rule.${i}`] = stats(i);
    const rows = topStats(eleven);
    expect(rows.length, 'eleven named rows').toBe(11);
    expect(rows.every((r) => r.others === 0), 'no others row').toBe(true);
  });

  it('hostile rule names stay data: kept whole in the row, shown escaped and cut on an axis', () => {
    const hostile = '\u202e<img src=x onerror=alert(1)>' + 'x'.repeat(5000);
    const proto = '__proto__';
    const parsed = JSON.parse(`{"${proto}": ${JSON.stringify(stats(2))}, ${JSON.stringify(hostile)}: ${JSON.stringify(stats(3))}}`) as Record<string, PromptStats>;
    const rows = topStats(parsed);
    expect(rows.map((r) => r.name.length), 'names are kept whole for the table').toEqual([hostile.length, proto.length]);
    const shown = label(rows[0]!.name);
    expect([...shown].length, 'an axis label is cut to 32 characters').toBe(32);
    expect(shown.endsWith('…'), 'and says it was cut').toBe(true);
    expect(shown.includes('\\u{202e}'), 'a bidi override is shown, not obeyed').toBe(true);
    expect(label('profile.maven-test'), 'a short name is left alone').toBe('profile.maven-test');
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'prompts'), 'nothing leaked into Object.prototype').toBe(false);
  });
});

describe('runs with the most prompts', () => {
  it('counts settled and open prompts per run, each once', () => {
    const events = [
      settled('ap-1', 'approved', '2030-03-14T09:00:00Z', 'run-a'),
      settled('ap-1', 'approved', '2030-03-14T09:00:00Z', 'run-a'),
      settled('ap-2', 'denied', '2030-03-14T09:05:00Z', 'run-a'),
      settled('ap-2', 'denied', '2030-03-14T10:00:00Z', 'run-a'),
      settled('ap-3', 'expired', '2030-03-14T09:00:00Z', 'run-b'),
      alone('auto', '2030-03-14T09:00:00Z'),
    ];
    const runs = busiestRuns(events, [pending('ap-4', 'run-b'), pending('ap-5', 'run-b'), pending('ap-6', 'run-c')]);
    expect(runs, 'run-b: one timed out, two open; run-a: two (members and a remembered denial are not prompts)').toEqual([
      { runId: 'run-b', repo: 'shop', prompts: 3, open: 2 },
      { runId: 'run-a', repo: 'shop', prompts: 2, open: 0 },
      { runId: 'run-c', repo: 'shop', prompts: 1, open: 1 },
    ]);
  });

  it('shows at most ten runs, and none on a fresh install', () => {
    const events = Array.from({ length: 30 }, (_, i) => settled(`ap-${i}`, 'approved', '2030-03-14T09:00:00Z', `run-${i % 15}`));
    expect(busiestRuns(events, []).length, 'fifteen runs, ten shown').toBe(10);
    expect(busiestRuns([], []), 'nothing yet').toEqual([]);
  });
});

describe('headline figures', () => {
  it('come from the service totals, the approve rate over every rule', () => {
    const f = figures(metrics({
      prompts_opened: 9, prompts_per_run: { runs: 4, mean: 2.25, max: 5 }, rubber_stamps: 3, remembered_denials: 2,
      uncovered_executions: 1, by_rule: { a: stats(5, { approved: 3, denied: 1 }), b: stats(4, { approved: 1, denied: 3 }) },
    }));
    expect(f, 'prompts per run to one decimal; 4 of 8 decided were approved').toEqual({
      prompts: 9, perRun: '2.3', maxPerRun: 5, runs: 4, approveRate: 0.5, rubberStamps: 3, rememberedDenials: 2, uncovered: 1,
    });
  });

  it('a fresh install is nothing yet; one auto action already is something', () => {
    expect(nothingYet(metrics(), [], []), 'no action, no prompt, no event').toBe(true);
    expect(nothingYet(metrics({ actions_total: 1 }), [alone('auto', '2030-03-14T09:00:00Z')], []), 'an agent ran').toBe(false);
    expect(nothingYet(metrics(), [], [pending('ap-1', 'run-a')]), 'a prompt is open').toBe(false);
  });
});

describe('formatting', () => {
  it('rates and durations read at a glance', () => {
    expect([percent(null), percent(0), percent(0.756), percent(1)], 'no rate is a dash').toEqual(['—', '0 %', '76 %', '100 %']);
    expect([duration(null), duration(1.54), duration(42.4), duration(210), duration(7200)], 'seconds, then minutes, then hours').toEqual([
      '—', '1.5 s', '42 s', '3.5 min', '2.0 h',
    ]);
  });
});

describe('prompts per hour (the day view)', () => {
  it('has the 24 hours up to the current one, each named by its hour of the day', () => {
    const hours = promptsPerHour([], NOW, UTC);
    expect(hours.length, 'a column for every hour of the last day').toBe(24);
    expect([hours[0]!.hour, hours[23]!.hour], 'from the hour after this one yesterday to this one (15:00 UTC)').toEqual([16, 15]);
    expect(new Date(hours[23]!.start).toISOString(), 'the current hour starts on the hour').toBe('2030-03-14T15:00:00.000Z');
  });

  it('counts a prompt once in the hour it settled, and leaves out what is older than a day', () => {
    const events = [
      settled('ap-1', 'approved', '2030-03-14T14:10:00Z'),
      settled('ap-1', 'approved', '2030-03-14T14:10:00Z'),
      settled('ap-2', 'denied', '2030-03-14T09:59:59Z'),
      settled('ap-3', 'approved', '2030-03-13T12:00:00Z'),
    ];
    const hours = promptsPerHour(events, NOW, UTC);
    const at = (hour: number) => hours.find((h) => h.hour === hour)!;
    expect(at(14).approved, 'two members of one prompt are one prompt').toBe(1);
    expect(at(9).denied, 'a second before ten is in the nine o\'clock hour').toBe(1);
    expect(totalOf(hours).approved, 'yesterday at noon is more than 24 hours ago').toBe(1);
  });

  it('local hours start on the local hour', () => {
    const start = LOCAL.startOfHour(NOW + 1_234_567, 0);
    expect(new Date(start).getMinutes(), 'on the hour, in the person\'s zone').toBe(0);
    expect(LOCAL.hourOf(start), 'and named by the local hour').toBe(new Date(start).getHours());
  });
});

describe('prompts open now', () => {
  function open(id: string, createdAt: string, risk: Approval['risk'] = 'medium'): Approval {
    return {
      approval_id: id, run_id: 'run-1', repo: '/work/shop', risk, created_at: createdAt,
      evidence: { summary: 'Run `npm install left-pad` in shop', cwd: '/work/shop' },
    } as Approval;
  }

  it('lists the longest waiting first, with how long each has waited and what it asks in words', () => {
    const rows = openPrompts([open('ap-new', '2030-03-14T14:59:00Z'), open('ap-old', '2030-03-14T14:00:00Z', 'high')], NOW);
    expect(rows.map((r) => r.approvalId), 'the one waiting an hour comes before the one waiting a minute').toEqual(['ap-old', 'ap-new']);
    expect(rows.map((r) => r.waited), 'seconds since each opened').toEqual([3600, 60]);
    expect(rows[0]!.title, 'the title without backticks; it already says where').toBe('Run npm install left-pad in shop');
    const elsewhere = { ...open('ap-x', '2030-03-14T14:00:00Z'), evidence: { summary: 'Run npm test', cwd: '/work/shop' } } as Approval;
    expect(openPrompts([elsewhere], NOW)[0]!.title, 'a title that does not say where gets the repository by name').toBe('Run npm test · shop');
    expect(rows[0]!.risk, 'its risk, to colour the bar like the badge').toBe('high');
  });

  it('shows at most `top` prompts, and a clock behind the service never makes a negative wait', () => {
    const many = Array.from({ length: 12 }, (_, i) => open(`ap-${i}`, '2030-03-14T14:00:00Z'));
    expect(openPrompts(many, NOW, 10).length, 'ten bars at most').toBe(10);
    expect(openPrompts([open('ap-f', '2030-03-14T15:00:05Z')], NOW)[0]!.waited, 'opened "in the future": waited 0').toBe(0);
  });
});

describe('the model reviewer', () => {
  const model = 'reviewer:qwen3:8b';
  const byModel = (approval: string, at: string): InsightEvent => ({ ...settled(approval, 'approved', at), approver: model });
  const byPerson = (approval: string, decision: AuditDecision, at: string): InsightEvent => ({ ...settled(approval, decision, at), approver: 'owner' });
  const call = (approval: string, at: string, state: string, outcome?: string): InsightEvent => ({
    timestamp: at, decision: 'reviewed', run_id: 'run-1', approval_id: approval, approver: null, review: { state, outcome },
  });

  it('counts its approvals alone, each prompt once, and its failures per day', () => {
    const events = [
      call('ap-1', '2030-03-13T09:00:00Z', 'approved', 'approve'),
      // Two members of one prompt approved together are one approval.
      byModel('ap-1', '2030-03-13T09:00:01Z'),
      byModel('ap-1', '2030-03-13T09:00:01Z'),
      call('ap-2', '2030-03-14T10:00:00Z', 'failed'),
      call('ap-3', '2030-03-14T11:00:00Z', 'failed'),
      // A person's approval is not the model's.
      byPerson('ap-2', 'approved', '2030-03-14T10:05:00Z'),
    ];
    const days = reviewerPerDay(events, windowStart(NOW, 14, UTC), NOW, UTC);
    expect(days.length, 'every day of the window').toBe(14);
    expect(days.filter((d) => d.approved + d.failed > 0), 'each on its own day').toEqual([
      { day: '2030-03-13', approved: 1, failed: 0 },
      { day: '2030-03-14', approved: 0, failed: 2 },
    ]);
  });

  it('says how often the person decided as it advised', () => {
    const events = [
      call('a', '2030-03-14T09:00:00Z', 'advised', 'approve'),
      byPerson('a', 'approved', '2030-03-14T09:01:00Z'), // agreed
      call('b', '2030-03-14T09:00:00Z', 'advised', 'ask_person'),
      byPerson('b', 'denied', '2030-03-14T09:01:00Z'), // agreed: it would ask, the person said no
      call('c', '2030-03-14T09:00:00Z', 'advised', 'approve'),
      byPerson('c', 'denied', '2030-03-14T09:01:00Z'), // disagreed
      call('d', '2030-03-14T09:00:00Z', 'advised', 'approve'),
      settled('d', 'expired', '2030-03-14T10:00:00Z'), // nobody decided: tells nothing
      call('e', '2030-03-14T09:00:00Z', 'failed'),
      byPerson('e', 'approved', '2030-03-14T09:01:00Z'), // no advice: tells nothing
      call('f', '2030-03-14T09:00:00Z', 'advised', 'ask_person'), // still open
    ];
    const a = agreement(events);
    expect(a, 'two of three decided as advised').toEqual({ agreed: 2, disagreed: 1, rate: 2 / 3 });
    expect(agreement([]).rate, 'no advice yet: no rate, not 0 %').toBeNull();
  });
});
