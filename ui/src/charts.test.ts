import { describe, expect, it } from 'vitest';
import {
  approveRateChart,
  type BarSpec,
  chartHeight,
  namesWidth,
  outcomesChart,
  perDayChart,
  runsChart,
  segments,
  steps,
  tick,
  timeToDecideChart,
  usableLanguage,
  valueMax,
} from './charts';
import type { DayCount, StatRow } from './insights';

function spec(layout: BarSpec['layout'], values: number[][]): BarSpec {
  return {
    categories: values[0]!.map((_, i) => `c${i}`),
    series: values.map((v, i) => ({ label: `s${i}`, colour: '#000', values: v })),
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

  it('a series shorter than the categories counts the missing bars as zero', () => {
    const short = spec('stacked', [[1, 1, 1]]);
    short.series.push({ label: 'late', colour: '#000', values: [2] });
    expect(segments(short)[1]!.to, 'no NaN bar').toEqual([3, 1, 1]);
  });
});

describe('value axis', () => {
  it('ends just above the tallest bar, with whole-number steps for counts', () => {
    expect(valueMax('count', [4, 9, 2]), '9 prompts: room above the bar').toBe(10);
    expect(valueMax('count', []), 'no bars yet: an axis of 0..1, not 0..0').toBe(1);
    expect(valueMax('rate', [0.3]), 'a rate axis always ends at 100 %').toBe(1);
    expect(valueMax('seconds', [0]), 'no time measured: a sensible empty axis').toBe(10);
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
    expect(chartHeight({ ...few, horizontal: false }), 'a day chart has one height').toBe(200);
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
  it('prompts per day stack approved, denied and timed out; the auto line only when agents did something unasked', () => {
    const quiet: DayCount[] = [{ day: '2030-03-13', approved: 1, denied: 2, timedOut: 0, auto: 0, blocked: 0 }];
    const chart = perDayChart(quiet);
    expect(chart.categories, 'days read as month-day').toEqual(['03-13']);
    expect(chart.series.map((s) => s.label), 'how prompts went, in this order').toEqual(['approved', 'denied', 'timed out']);
    expect(chart.line, 'no flat line over days without unasked actions').toBeUndefined();
    const busy = perDayChart([{ ...quiet[0]!, auto: 40 }]);
    expect(busy.line?.values, 'the unasked actions, on their own axis').toEqual([40]);
  });

  it('rules stack their outcomes under names cut for the axis', () => {
    const chart = outcomesChart([row('x'.repeat(100), { open: 3 })]);
    expect([...chart.categories[0]!].length, 'a long name is cut on the axis').toBe(32);
    expect(chart.series.map((s) => s.values[0]), 'approved, denied, timed out, open').toEqual([2, 1, 1, 3]);
  });

  it('approve rate and time to decide leave out rules with nothing to show', () => {
    const rows = [row('decided'), row('undecided', { approveRate: null, p50: null, p90: null }), row('12 others', { p50: null, p90: null, others: 12 })];
    expect(approveRateChart(rows).categories, 'a rule nobody decided has no rate, not 0 %').toEqual(['decided', '12 others']);
    const time = timeToDecideChart(rows);
    expect(time.categories, 'only rules with measured times').toEqual(['decided']);
    expect(time.series.map((s) => s.label), 'p90 drawn first, p50 in front').toEqual(['p90', 'p50 (median)']);
    expect(time.layout, 'both from zero').toBe('overlaid');
  });

  it('runs show settled and open prompts, named with their repo', () => {
    const chart = runsChart([{ runId: 'run-a', repo: 'shop', prompts: 3, open: 1 }, { runId: 'run-b', repo: null, prompts: 1, open: 0 }]);
    expect(chart.categories, 'run · repo').toEqual(['run-a · shop', 'run-b']);
    expect(chart.series.map((s) => s.values), 'settled then open').toEqual([[2, 1], [1, 0]]);
  });
});
