// What a bar chart shows, as plain data the Chart view hands to uPlot: the Insights charts, and
// the arithmetic (stacks, axis ranges, ticks), pure and tested (Vitest).
import { type DayCount, type HourCount, label, type OpenPrompt, percent, type RunRow, type StatRow } from './insights';
import type { Risk } from './types';
import { dayWords, factsOf, hourWords, repoName, ruleWords, type RunFacts, runWords } from './words';

export const COLOURS = {
  approved: '#38a169',
  denied: '#e53e3e',
  timedOut: '#d69e2e',
  open: '#a0aec0',
  p50: '#2b6cb0',
  p90: '#90cdf4',
  prompts: '#2b6cb0',
} as const;

/** The risk badges' colours, so an open prompt's bar reads like its badge in Pending. */
export const RISK_COLOURS: Record<Risk, string> = { low: '#718096', medium: '#d69e2e', high: '#dd6b20', critical: '#c53030' };
const RISKS: Risk[] = ['critical', 'high', 'medium', 'low'];
const RISK_WORDS: Record<Risk, string> = { low: 'Low risk', medium: 'Medium risk', high: 'High risk', critical: 'Critical risk' };

export interface BarSeries {
  label: string;
  colour: string;
  values: number[];
}

export type ValueFormat = 'count' | 'rate' | 'seconds';

/** A names axis of time: calendar days (`YYYY-MM-DD`) or hours of the day (0–23), one per bar. */
export type TimeAxis = { kind: 'days'; days: string[] } | { kind: 'hours'; hours: number[] };

export interface BarSpec {
  /** One label per bar, already safe to show (see `label` in insights.ts), in words. */
  categories: string[];
  /** What each axis shows, in words: the bars' names and their values (one value axis: a
   * second one over it reads as if the bars meant its numbers). */
  axes: { names: string; values: string };
  /** When the bars are periods of time: their ticks are chosen to fit (`timeTicks`). */
  time?: TimeAxis;
  series: BarSeries[];
  /** `stacked`: each series on top of the ones before; `overlaid`: all from zero, each narrower. */
  layout: 'stacked' | 'overlaid';
  /** Bars left to right from a names axis on the left (else up from a names axis below). */
  horizontal: boolean;
  format: ValueFormat;
}

/** Where each series' bars start and end. */
export interface Segment {
  from: number[];
  to: number[];
}

export function segments(spec: BarSpec): Segment[] {
  const base = spec.categories.map(() => 0);
  return spec.series.map((series) => {
    const from = spec.layout === 'stacked' ? [...base] : spec.categories.map(() => 0);
    const to = spec.categories.map((_, i) => from[i]! + (series.values[i] ?? 0));
    if (spec.layout === 'stacked') to.forEach((end, i) => (base[i] = end));
    return { from, to };
  });
}

/** Where each bar ends (stacked: the total; overlaid: the longest), to write its value there. */
export function barEnds(spec: BarSpec): number[] {
  const segs = segments(spec);
  return spec.categories.map((_, i) => Math.max(0, ...segs.map((s) => s.to[i] ?? 0)));
}

/** Where a bar's value is written: its left edge (canvas pixels), and whether inside the bar. */
export interface ValuePlace {
  x: number;
  inside: boolean;
}

/**
 * Where to write a horizontal bar's value (`width` wide) so that no bar is drawn over it and it
 * is drawn over no bar but its own end: after the bar when it fits before the plot's right
 * edge; else inside the bar's end when the bar is long enough to hold it; else after the bar
 * all the same (cut by the edge, never over the names axis on the left).
 */
export function placeValue(barStart: number, barEnd: number, width: number, plotRight: number, gap: number): ValuePlace {
  if (barEnd + gap + width <= plotRight) return { x: barEnd + gap, inside: false };
  if (barEnd - barStart >= width + 2 * gap) return { x: barEnd - gap - width, inside: true };
  return { x: barEnd + gap, inside: false };
}

/** The end of a value axis: rates end at 100 %; others just above the tallest bar, never at 0. */
export function valueMax(format: ValueFormat, ends: number[]): number {
  if (format === 'rate') return 1;
  const top = Math.max(0, ...ends);
  if (top === 0) return format === 'count' ? 1 : 10;
  // A time axis spans at least 10 s: decisions in a fraction of a second are a sliver, not a full bar.
  return format === 'count' ? Math.ceil(top * 1.1) : Math.max(10, top * 1.1);
}

/** Tick steps uPlot may choose from: whole numbers for counts, tenths for rates. */
export function steps(format: ValueFormat): number[] | undefined {
  if (format === 'count') return [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000, 50_000, 100_000];
  if (format === 'rate') return [0.1, 0.2, 0.25, 0.5];
  // Round durations: 30 s, 1 min, 5 min, 1 h, 1 d — never 50 s or 1.7 min.
  return [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400, 172_800, 604_800];
}

/** A round duration on an axis: "30 s", "5 min", "1.5 min", "2 h", "3 d"; under 10 s to a tenth ("0.4 s"). */
export function durationTick(seconds: number): string {
  const round = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));
  if (seconds < 10 && !Number.isInteger(seconds)) return `${seconds.toFixed(1)} s`;
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${round(seconds / 60)} min`;
  if (seconds < 172_800) return `${round(seconds / 3600)} h`;
  return `${round(seconds / 86_400)} d`;
}

export function tick(format: ValueFormat, value: number): string {
  if (format === 'rate') return percent(value);
  if (format === 'seconds') return durationTick(value);
  return String(value);
}

/** About how wide a label of the charts' 12 px font is: 7 px a character. */
export const CHAR_PX = 7;
/** The least room between two ticks' labels. */
export const GAP_PX = 12;

/** The width of a names axis for these labels (CSS pixels), from about 7 px a character. */
export function namesWidth(categories: string[], max = 260): number {
  const longest = Math.max(0, ...categories.map((c) => [...c].length));
  return Math.min(max, Math.max(48, longest * CHAR_PX + 16));
}

/**
 * The names of a horizontal chart `width` px wide, cut so that their axis takes at most 40 %
 * of it (the bars keep the rest), and that axis' width.
 */
export function fitNames(categories: string[], width: number): { labels: string[]; size: number } {
  const max = Math.max(48, Math.min(420, Math.floor(width * 0.4)));
  const chars = Math.max(4, Math.floor((max - 16) / CHAR_PX));
  const labels = categories.map((c) => label(c, chars));
  return { labels, size: namesWidth(labels, max) };
}

/**
 * The tick labels of a time axis drawn `plotWidth` px wide: one per bar, empty where a label
 * would not fit. Every bar is labelled when there is room, else every second, third…; days
 * say "Mon 30 Nov" when that fits, else "30 Nov", counted back from today (always labelled);
 * hours say "14:00", on round hours (every 2, 3, 4, 6 or 12).
 */
export function timeTicks(axis: TimeAxis, plotWidth: number): string[] {
  const fits = (labels: string[], every: number) =>
    Math.max(0, ...labels.map((l) => [...l].length * CHAR_PX)) + GAP_PX <= every * (plotWidth / Math.max(1, labels.length));
  if (axis.kind === 'hours') {
    const labels = axis.hours.map(hourWords);
    const every = [1, 2, 3, 4, 6, 12].find((e) => fits(labels, e)) ?? 24;
    return axis.hours.map((h, i) => (h % every === 0 ? labels[i]! : ''));
  }
  const n = axis.days.length;
  for (let every = 1; every <= n; every++) {
    for (const style of ['long', 'short'] as const) {
      const labels = axis.days.map((d) => dayWords(d, style));
      if (fits(labels, every)) return labels.map((l, i) => ((n - 1 - i) % every === 0 ? l : ''));
    }
  }
  return axis.days.map((d, i) => (i === n - 1 ? dayWords(d, 'short') : ''));
}

/** A horizontal chart grows with its bars; a vertical one has one height (both with room for an axis' name). */
export function chartHeight(spec: BarSpec): number {
  return spec.horizontal ? Math.max(120, spec.categories.length * 26 + 70) : 220;
}

/**
 * Whether `Intl` accepts `tag` as a language. uPlot builds a number format from
 * `navigator.language` as it loads; under the C locale WebKitGTK reports `C`, which `Intl`
 * refuses with a RangeError.
 */
export function usableLanguage(tag: string): boolean {
  try {
    return Intl.NumberFormat.supportedLocalesOf([tag]).length > 0;
  } catch {
    return false;
  }
}

/** How the prompts of each period went, stacked. What ran without asking is said under the
 * chart in words, not drawn as a line on a second axis over the prompts' one. */
function periodChart(rows: (DayCount | HourCount)[], time: TimeAxis, names: string): BarSpec {
  return {
    categories: time.kind === 'days' ? time.days.map((d) => dayWords(d)) : time.hours.map(hourWords),
    axes: { names, values: 'Prompts' },
    time,
    series: [
      { label: 'Approved', colour: COLOURS.approved, values: rows.map((d) => d.approved) },
      { label: 'Denied', colour: COLOURS.denied, values: rows.map((d) => d.denied) },
      { label: 'Nobody answered in time', colour: COLOURS.timedOut, values: rows.map((d) => d.timedOut) },
    ],
    layout: 'stacked',
    horizontal: false,
    format: 'count',
  };
}

/** Prompts per calendar day. */
export function perDayChart(days: DayCount[]): BarSpec {
  return periodChart(days, { kind: 'days', days: days.map((d) => d.day) }, 'Day');
}

/** Prompts per hour, for the day view. */
export function perHourChart(hours: HourCount[]): BarSpec {
  return periodChart(hours, { kind: 'hours', hours: hours.map((h) => h.hour) }, 'Hour');
}

/** A rule's or profile's name in words: rules by what they ask about, profiles by name, "3 others" as it is. */
function statName(row: StatRow, kind: 'rule' | 'profile'): string {
  if (row.others > 0) return row.name;
  return label(kind === 'rule' ? ruleWords(row.name) : row.name);
}

/** The prompts of each rule or profile by how they went, stacked. */
export function outcomesChart(rows: StatRow[], kind: 'rule' | 'profile' = 'rule'): BarSpec {
  return {
    categories: rows.map((r) => statName(r, kind)),
    axes: { names: kind === 'rule' ? 'Policy rule' : 'Profile', values: 'Prompts' },
    series: [
      { label: 'Approved', colour: COLOURS.approved, values: rows.map((r) => r.approved) },
      { label: 'Denied', colour: COLOURS.denied, values: rows.map((r) => r.denied) },
      { label: 'Nobody answered in time', colour: COLOURS.timedOut, values: rows.map((r) => r.timedOut) },
      { label: 'Still open', colour: COLOURS.open, values: rows.map((r) => r.open) },
    ],
    layout: 'stacked',
    horizontal: true,
    format: 'count',
  };
}

/** The approve rate of the rules somebody decided a prompt of (none: no bar, not a 0 % one). */
export function approveRateChart(rows: StatRow[]): BarSpec {
  const decided = rows.filter((r) => r.approveRate !== null);
  return {
    categories: decided.map((r) => statName(r, 'rule')),
    axes: { names: 'Policy rule', values: 'Approved, of the prompts decided' },
    series: [{ label: 'Approved, of the prompts a person decided', colour: COLOURS.approved, values: decided.map((r) => r.approveRate ?? 0) }],
    layout: 'stacked',
    horizontal: true,
    format: 'rate',
  };
}

/** The typical time (median) in front of the slow one (9 in 10 faster) for each rule with a measured time to decide. */
export function timeToDecideChart(rows: StatRow[]): BarSpec {
  const timed = rows.filter((r) => r.p50 !== null && r.p90 !== null);
  return {
    categories: timed.map((r) => statName(r, 'rule')),
    axes: { names: 'Policy rule', values: 'Time to decide' },
    series: [
      { label: 'Slow answers (9 in 10 were faster)', colour: COLOURS.p90, values: timed.map((r) => r.p90 ?? 0) },
      { label: 'Typical answer (half were faster)', colour: COLOURS.p50, values: timed.map((r) => r.p50 ?? 0) },
    ],
    layout: 'overlaid',
    horizontal: true,
    format: 'seconds',
  };
}

/** The runs' prompts, settled and still open, each run named by its agent, first sighting and short id. */
export function runsChart(runs: RunRow[], known: Map<string, RunFacts>, now: number): BarSpec {
  return {
    categories: runs.map((r) => {
      const words = runWords(factsOf(known, r.runId), now);
      return label(r.repo ? `${words} · ${repoName(r.repo)}` : words, 64);
    }),
    axes: { names: 'Run', values: 'Prompts' },
    series: [
      { label: 'Settled (answered or timed out)', colour: COLOURS.prompts, values: runs.map((r) => r.prompts - r.open) },
      { label: 'Open now', colour: COLOURS.open, values: runs.map((r) => r.open) },
    ],
    layout: 'stacked',
    horizontal: true,
    format: 'count',
  };
}

/** The prompts open now, one bar each as long as it has waited, coloured by its risk (only the risks shown are in the legend). */
export function openNowChart(open: OpenPrompt[]): BarSpec {
  const risks = RISKS.filter((risk) => open.some((p) => p.risk === risk));
  return {
    categories: open.map((p) => label(p.title, 64)),
    axes: { names: 'Prompt', values: 'Time waited' },
    series: risks.map((risk) => ({
      label: RISK_WORDS[risk],
      colour: RISK_COLOURS[risk],
      values: open.map((p) => (p.risk === risk ? p.waited : 0)),
    })),
    layout: 'stacked',
    horizontal: true,
    format: 'seconds',
  };
}
