import { describe, expect, it } from 'vitest';
import {
  approveRateChart,
  barEnds,
  type BarSpec,
  CHAR_PX,
  chartHeight,
  durationTick,
  fitNames,
  GAP_PX,
  namesWidth,
  openNowChart,
  outcomesChart,
  perDayChart,
  perHourChart,
  placeValue,
  runsChart,
  segments,
  steps,
  tick,
  timeTicks,
  timeToDecideChart,
  usableLanguage,
  valueMax,
} from './charts';
import type { DayCount, HourCount, OpenPrompt, StatRow } from './insights';
import { knownRuns } from './words';

function spec(layout: BarSpec['layout'], values: number[][]): BarSpec {
  return {
    categories: values[0]!.map((_, i) => `c${i}`),
    series: values.map((v, i) => ({ label: `s${i}`, colour: '#000', values: v })),
    axes: { names: 'names', values: 'values' },
    layout,
    horizontal: true,
    format: 'count',
  };
}

describe('bars', () => {
  it('stacked: each series starts where the ones before it end', () => {
    const segs = segments(spec('stacked', [[1, 0, 2], [3, 1, 0], [0, 2, 5]]));
    expect(segs.map((s) => s.from), 'bases are the running sums').toEqual([[0, 0, 0], [1, 0, 2], [4, 1, 2]]);
    expect(segs[2]!.to, 'the last series ends at the totals').toEqual([4, 3, 7]);
  });

  it('overlaid: every series from zero (p90 behind p50)', () => {
    const segs = segments(spec('overlaid', [[30, 90], [10, 40]]));
    expect(segs.map((s) => s.from), 'all from zero').toEqual([[0, 0], [0, 0]]);
    expect(segs.map((s) => s.to), 'ending at their own values').toEqual([[30, 90], [10, 40]]);
  });

  it('a bar ends at its total when stacked, at its longest series when overlaid', () => {
    expect(barEnds(spec('stacked', [[1, 0], [3, 0]])), 'the value written at the end of a stack is its total; an empty bar ends at 0').toEqual([4, 0]);
    expect(barEnds(spec('overlaid', [[30, 90], [10, 40]])), 'overlaid bars end at the longest').toEqual([30, 90]);
  });

  it('a series shorter than the categories counts the missing bars as zero', () => {
    const short = spec('stacked', [[1, 1, 1]]);
    short.series.push({ label: 'late', colour: '#000', values: [2] });
    expect(segments(short)[1]!.to, 'no NaN bar').toEqual([3, 1, 1]);
  });
});

describe("a bar's value", () => {
  const [gap, right] = [8, 500];
  it('is written after its bar when it fits, clear of the bar', () => {
    const at = placeValue(100, 300, 30, right, gap);
    expect(at, 'after the end, a gap away: no bar drawn over it').toEqual({ x: 308, inside: false });
  });

  it('goes inside the end of a long bar at the right edge, wholly within the bar', () => {
    const at = placeValue(100, 495, 30, right, gap);
    expect(at.inside, 'no room after the bar').toBe(true);
    expect(at.x >= 100 && at.x + 30 <= 495, `within the bar, not across its end: ${at.x}`).toBe(true);
  });

  it('is never drawn over the names axis, even when the bar is too short to hold it', () => {
    const at = placeValue(100, 110, 30, 120, gap);
    expect(at.x >= 110, `after the short bar, not left of the plot: ${at.x}`).toBe(true);
  });
});

describe('value axis', () => {
  it('ends just above the tallest bar, with whole-number steps for counts', () => {
    expect(valueMax('count', [4, 9, 2]), '9 prompts: room above the bar').toBe(10);
    expect(valueMax('count', []), 'no bars yet: an axis of 0..1, not 0..0').toBe(1);
    expect(valueMax('rate', [0.3]), 'a rate axis always ends at 100 %').toBe(1);
    expect(valueMax('seconds', [0]), 'no time measured: a sensible empty axis').toBe(10);
    expect(valueMax('seconds', [0.04]), 'a decision in 0.04 s is a sliver on a 10 s axis, not a full bar').toBe(10);
    expect(steps('count')?.every(Number.isInteger), 'no half prompts on a count axis').toBe(true);
  });

  it('ticks read as counts, percentages or durations', () => {
    expect([tick('count', 5), tick('rate', 0.5), tick('seconds', 90)], 'each in its unit').toEqual(['5', '50 %', '1.5 min']);
  });
});

describe('layout', () => {
  it('a names axis fits its longest label within bounds', () => {
    expect(namesWidth([]), 'an empty axis keeps a minimum').toBe(48);
    expect(namesWidth(['profile.maven-test']), 'about 7 px a character').toBe(18 * 7 + 16);
    expect(namesWidth(['x'.repeat(500)]), 'never wider than 260 px').toBe(260);
  });

  it('a horizontal chart grows with its bars', () => {
    const few = spec('stacked', [[1, 2]]);
    const many = spec('stacked', [Array.from({ length: 11 }, () => 1)]);
    expect(chartHeight(few) < chartHeight(many), 'eleven bars need more room than two').toBe(true);
    expect(chartHeight({ ...few, horizontal: false }), 'a day chart has one height').toBe(220);
  });
});

describe('language', () => {
  it('the C locale is no language Intl accepts; a real one is', () => {
    expect(usableLanguage('C'), 'WebKitGTK under LANG=C says "C": uPlot would throw as it loads').toBe(false);
    expect(usableLanguage(''), 'no language at all').toBe(false);
    expect(usableLanguage('en-US'), 'a real language is kept').toBe(true);
  });
});

function row(name: string, extra: Partial<StatRow> = {}): StatRow {
  return {
    name, prompts: 4, approved: 2, denied: 1, timedOut: 1, open: 0, approveRate: 2 / 3, p50: 5, p90: 30, rubberStamps: 0, others: 0,
    ...extra,
  };
}

describe('the Insights charts', () => {
  it('prompts per day stack approved, denied and timed out, on one value axis', () => {
    const quiet: DayCount[] = [{ day: '2030-03-13', approved: 1, denied: 2, timedOut: 0, auto: 0, blocked: 0 }];
    const chart = perDayChart(quiet);
    expect(chart.categories, 'days in words, not 2030-03-13 or 03-13').toEqual(['Wed 13 Mar']);
    expect(chart.time, 'a time axis, so its ticks are thinned to fit').toEqual({ kind: 'days', days: ['2030-03-13'] });
    expect(chart.series.map((s) => s.label), 'how prompts went, in words, in this order').toEqual([
      'Approved',
      'Denied',
      'Nobody answered in time',
    ]);
    expect(chart.axes, 'both axes named in words').toEqual({ names: 'Day', values: 'Prompts' });
    const busy = perDayChart([{ ...quiet[0]!, auto: 40 }]);
    expect(Object.keys(busy.axes), 'actions allowed without asking get no second axis over the prompts one (said under the chart)').toEqual([
      'names',
      'values',
    ]);
    expect(busy.series.flatMap((s) => s.values), 'and no bar: the chart counts prompts').toEqual([1, 2, 0]);
  });

  it('the day view has one bar an hour, named like a clock', () => {
    const hours: HourCount[] = [13, 14].map((hour) => ({ start: hour * 3_600_000, hour, approved: 1, denied: 0, timedOut: 0, auto: 0, blocked: 0 }));
    const chart = perHourChart(hours);
    expect(chart.categories, 'hours as 14:00, never an epoch number').toEqual(['13:00', '14:00']);
    expect([chart.axes.names, chart.time], 'an hour axis').toEqual(['Hour', { kind: 'hours', hours: [13, 14] }]);
  });

  it('rules are named by what they ask about, their ids kept out of the chart', () => {
    const chart = outcomesChart([row('ask.network', { open: 3 }), row('profile.maven-test'), row('2 others', { others: 2 })]);
    expect(chart.categories, 'words a person reads; "2 others" as it is').toEqual([
      'Reaches the network',
      'Command profile maven-test',
      '2 others',
    ]);
    expect(chart.series.map((s) => s.values[0]), 'approved, denied, timed out, open').toEqual([2, 1, 1, 3]);
    expect(chart.series.map((s) => s.label).at(-1), 'the open ones say so').toBe('Still open');
    expect(chart.axes.names, 'the names axis says these are policy rules').toBe('Policy rule');
    const cut = outcomesChart([row('x'.repeat(100))], 'profile');
    expect([...cut.categories[0]!].length, 'a long name is cut on the axis').toBe(32);
    expect(cut.axes.names, 'profiles are profiles, by their own name (short: the name runs along a one-bar chart)').toBe('Profile');
  });

  it('approve rate and time to decide leave out rules with nothing to show', () => {
    const rows = [row('decided'), row('undecided', { approveRate: null, p50: null, p90: null }), row('12 others', { p50: null, p90: null, others: 12 })];
    expect(approveRateChart(rows).categories, 'a rule nobody decided has no rate, not 0 %').toEqual(['decided', '12 others']);
    const time = timeToDecideChart(rows);
    expect(time.categories, 'only rules with measured times').toEqual(['decided']);
    expect(time.series.map((s) => s.label), 'the slow answers drawn first, the typical one in front, both in words (no p90/p50)').toEqual([
      'Slow answers (9 in 10 were faster)',
      'Typical answer (half were faster)',
    ]);
    expect(time.layout, 'both from zero').toBe('overlaid');
    expect(time.axes.values, 'the value axis says what it measures').toBe('Time to decide');
  });

  it('runs are named by their agent, when the window first saw them and a short id, with their repo', () => {
    const now = new Date(2030, 2, 14, 15, 0).getTime();
    const seen = new Date(2030, 2, 14, 14, 2).toISOString();
    const known = knownRuns([{ run_id: 'run-a', created_at: seen, requester: 'default', requested_by: 'agent' }]);
    const chart = runsChart([{ runId: 'run-a', repo: '/work/shop', prompts: 3, open: 1 }, { runId: 'run-b', repo: null, prompts: 1, open: 0 }], known, now);
    expect(chart.categories, 'agent · first seen · short id · repo by name; a run with no approval in view by its id').toEqual([
      'agent default · first seen 14:02 · run run-a · shop',
      'run run-b',
    ]);
    expect(chart.series.map((s) => s.values), 'settled then open').toEqual([[2, 1], [1, 0]]);
    expect(chart.series.map((s) => s.label), 'in words').toEqual(['Settled (answered or timed out)', 'Open now']);
  });

  it('the prompts open now are one bar each, as long as it waited, coloured and named by its risk', () => {
    const open: OpenPrompt[] = [
      { approvalId: 'a', title: 'Sync to S3 · shop', risk: 'high', runId: 'r', waited: 600 },
      { approvalId: 'b', title: 'Run npm test · shop', risk: 'low', runId: 'r', waited: 30 },
    ];
    const chart = openNowChart(open);
    expect(chart.categories, 'each prompt by what it asks').toEqual(['Sync to S3 · shop', 'Run npm test · shop']);
    expect(chart.series.map((s) => s.label), 'only the risks shown, riskiest first').toEqual(['High risk', 'Low risk']);
    expect(chart.series.map((s) => s.values), 'each bar in its risk\'s series only').toEqual([[600, 0], [0, 30]]);
    expect([chart.format, chart.axes.values], 'a duration axis named in words').toEqual(['seconds', 'Time waited']);
    expect(openNowChart([]).categories, 'none open: no bars (the view says so in words)').toEqual([]);
  });

  it('every chart names both axes and every series in words', () => {
    const charts = [
      perDayChart([{ day: '2030-03-13', approved: 1, denied: 0, timedOut: 0, auto: 1, blocked: 0 }]),
      outcomesChart([row('ask.delete')]),
      approveRateChart([row('ask.delete')]),
      timeToDecideChart([row('ask.delete')]),
      runsChart([{ runId: 'r', repo: null, prompts: 1, open: 1 }], new Map(), 0),
      openNowChart([{ approvalId: 'a', title: 't', risk: 'critical', runId: 'r', waited: 1 }]),
    ];
    const words = /^[A-Z][a-z]/;
    for (const chart of charts) {
      expect(words.test(chart.axes.names) && words.test(chart.axes.values), `axes named: ${JSON.stringify(chart.axes)}`).toBe(true);
      for (const s of chart.series) expect(words.test(s.label), `a series in words: ${s.label}`).toBe(true);
    }
  });
});

/** How wide the labels of `ticks` are and how far apart their bars are, `slot` px each. */
function overlaps(ticks: string[], slot: number): boolean {
  const shown = ticks.map((t, i) => [t, i] as const).filter(([t]) => t !== '');
  return shown.some(([t, i], k) => {
    const next = shown[k + 1];
    if (!next) return false;
    const room = (next[1] - i) * slot;
    return ([...t].length * CHAR_PX) / 2 + ([...next[0]].length * CHAR_PX) / 2 + GAP_PX > room;
  });
}

describe('time ticks', () => {
  const days = Array.from({ length: 14 }, (_, i) => `2030-11-${String(18 + i).padStart(2, '0')}`).map((d) => (d === '2030-11-31' ? '2030-12-01' : d));

  it('a wide chart names every day with its weekday', () => {
    const ticks = timeTicks({ kind: 'days', days }, 1400);
    expect(ticks[0], 'a day as people say it, not 2030-11-18').toBe('Mon 18 Nov');
    expect(ticks.at(-1), 'a new month reads as its first day').toBe('Sun 1 Dec');
    expect(ticks.every((t) => t !== ''), 'room for all fourteen').toBe(true);
  });

  it('at 800 px (a plot of about 700) the labels are thinned, never overlap, and today keeps its label', () => {
    const ticks = timeTicks({ kind: 'days', days }, 700);
    expect(ticks.some((t) => t === ''), 'fourteen "Mon 18 Nov" do not fit in 700 px').toBe(true);
    expect(overlaps(ticks, 700 / 14), `no two labels overlap: ${JSON.stringify(ticks)}`).toBe(false);
    expect(ticks.at(-1), 'today is always named').not.toBe('');
    expect(ticks.some((t) => /\d{4}|T\d\d:/.test(t)), 'never an ISO date').toBe(false);
  });

  it('even a very narrow chart only shows what fits', () => {
    for (const width of [120, 250, 400, 560]) {
      const ticks = timeTicks({ kind: 'days', days }, width);
      expect(overlaps(ticks, width / 14), `${width} px: ${JSON.stringify(ticks)}`).toBe(false);
      expect(ticks.filter((t) => t !== '').length >= 1, `${width} px: at least today`).toBe(true);
    }
  });

  it('hours read 14:00 and are thinned to round hours', () => {
    const hours = Array.from({ length: 24 }, (_, i) => (16 + i) % 24);
    const wide = timeTicks({ kind: 'hours', hours }, 2000);
    expect(wide.slice(0, 2), 'every hour when there is room').toEqual(['16:00', '17:00']);
    const narrow = timeTicks({ kind: 'hours', hours }, 700);
    const shown = narrow.filter((t) => t !== '');
    expect(overlaps(narrow, 700 / 24), `no overlap at 700 px: ${JSON.stringify(narrow)}`).toBe(false);
    const step = Number(shown[1]!.slice(0, 2)) - Number(shown[0]!.slice(0, 2));
    expect(shown.every((t) => Number(t.slice(0, 2)) % step === 0), `on round hours (every ${step}): ${shown}`).toBe(true);
  });
});

describe('durations and names on axes', () => {
  it('a time axis steps in round durations and says them plainly', () => {
    expect(steps('seconds')?.includes(50), 'no 50 s step: it reads as an odd number of minutes').toBe(false);
    expect(durationTick(0.04), 'a fraction of a second is not "0 s"').toBe('0.0 s');
    expect([durationTick(30), durationTick(300), durationTick(90), durationTick(7200), durationTick(172_800)], 'seconds, minutes, hours, days').toEqual([
      '30 s',
      '5 min',
      '1.5 min',
      '2 h',
      '2 d',
    ]);
  });

  it('names are cut to keep 60 % of a chart for its bars', () => {
    const long = 'agent default · first seen 14:02 · run 3f9a1c2b · shop';
    const narrow = fitNames([long], 360);
    expect(narrow.size <= 144, `the names axis takes at most 40 % of 360 px: ${narrow.size}`).toBe(true);
    expect(narrow.labels[0]!.endsWith('…'), 'a cut name says it was cut').toBe(true);
    expect(fitNames([long], 1100).labels[0], 'a wide chart shows it whole').toBe(long);
  });
});
