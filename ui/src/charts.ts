// What a bar chart shows, as plain data the Chart view hands to uPlot: the Insights charts, and
// the arithmetic (stacks, axis ranges, ticks), pure and tested (Vitest).
import { type DayCount, dayLabel, duration, label, percent, type RunRow, type StatRow } from './insights';

export const COLOURS = {
  approved: '#38a169',
  denied: '#e53e3e',
  timedOut: '#d69e2e',
  open: '#a0aec0',
  auto: '#4a5568',
  p50: '#2b6cb0',
  p90: '#90cdf4',
  prompts: '#2b6cb0',
} as const;

export interface BarSeries {
  label: string;
  colour: string;
  values: number[];
}

export type ValueFormat = 'count' | 'rate' | 'seconds';

export interface BarSpec {
  /** One label per bar, already safe to show (see `label` in insights.ts). */
  categories: string[];
  series: BarSeries[];
  /** `stacked`: each series on top of the ones before; `overlaid`: all from zero, each narrower. */
  layout: 'stacked' | 'overlaid';
  /** Bars left to right from a names axis on the left (else up from a names axis below). */
  horizontal: boolean;
  format: ValueFormat;
  /** For context, a line on a second value axis (e.g. actions allowed without asking). */
  line?: BarSeries;
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

/** The end of a value axis: rates end at 100 %; others just above the tallest bar, never at 0. */
export function valueMax(format: ValueFormat, ends: number[]): number {
  if (format === 'rate') return 1;
  const top = Math.max(0, ...ends);
  if (top === 0) return format === 'count' ? 1 : 10;
  return format === 'count' ? Math.ceil(top * 1.1) : top * 1.1;
}

/** Tick steps uPlot may choose from: whole numbers for counts, tenths for rates. */
export function steps(format: ValueFormat): number[] | undefined {
  if (format === 'count') return [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000, 50_000, 100_000];
  if (format === 'rate') return [0.1, 0.2, 0.25, 0.5];
  return undefined;
}

export function tick(format: ValueFormat, value: number): string {
  if (format === 'rate') return percent(value);
  if (format === 'seconds') return duration(value);
  return String(value);
}

/** The width of a names axis for these labels (CSS pixels), from about 7 px a character. */
export function namesWidth(categories: string[]): number {
  const longest = Math.max(0, ...categories.map((c) => [...c].length));
  return Math.min(260, Math.max(48, longest * 7 + 16));
}

/** A horizontal chart grows with its bars; a vertical one has one height. */
export function chartHeight(spec: BarSpec): number {
  return spec.horizontal ? Math.max(110, spec.categories.length * 26 + 50) : 200;
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

/** Prompts per day by how they went, stacked; a line of actions allowed without asking, if any. */
export function perDayChart(days: DayCount[]): BarSpec {
  return {
    categories: days.map((d) => dayLabel(d.day)),
    series: [
      { label: 'approved', colour: COLOURS.approved, values: days.map((d) => d.approved) },
      { label: 'denied', colour: COLOURS.denied, values: days.map((d) => d.denied) },
      { label: 'timed out', colour: COLOURS.timedOut, values: days.map((d) => d.timedOut) },
    ],
    layout: 'stacked',
    horizontal: false,
    format: 'count',
    ...(days.some((d) => d.auto > 0)
      ? { line: { label: 'allowed without asking (right axis)', colour: COLOURS.auto, values: days.map((d) => d.auto) } }
      : {}),
  };
}

/** The prompts of each rule or profile by how they went, stacked. */
export function outcomesChart(rows: StatRow[]): BarSpec {
  return {
    categories: rows.map((r) => label(r.name)),
    series: [
      { label: 'approved', colour: COLOURS.approved, values: rows.map((r) => r.approved) },
      { label: 'denied', colour: COLOURS.denied, values: rows.map((r) => r.denied) },
      { label: 'timed out', colour: COLOURS.timedOut, values: rows.map((r) => r.timedOut) },
      { label: 'open', colour: COLOURS.open, values: rows.map((r) => r.open) },
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
    categories: decided.map((r) => label(r.name)),
    series: [{ label: 'approved of decided', colour: COLOURS.approved, values: decided.map((r) => r.approveRate ?? 0) }],
    layout: 'stacked',
    horizontal: true,
    format: 'rate',
  };
}

/** p50 in front of p90 for each rule with a measured time to decide. */
export function timeToDecideChart(rows: StatRow[]): BarSpec {
  const timed = rows.filter((r) => r.p50 !== null && r.p90 !== null);
  return {
    categories: timed.map((r) => label(r.name)),
    series: [
      { label: 'p90', colour: COLOURS.p90, values: timed.map((r) => r.p90 ?? 0) },
      { label: 'p50 (median)', colour: COLOURS.p50, values: timed.map((r) => r.p50 ?? 0) },
    ],
    layout: 'overlaid',
    horizontal: true,
    format: 'seconds',
  };
}

/** The runs' prompts, settled and still open. */
export function runsChart(runs: RunRow[]): BarSpec {
  return {
    categories: runs.map((r) => label(r.repo ? `${r.runId} · ${r.repo}` : r.runId)),
    series: [
      { label: 'settled', colour: COLOURS.prompts, values: runs.map((r) => r.prompts - r.open) },
      { label: 'open', colour: COLOURS.open, values: runs.map((r) => r.open) },
    ],
    layout: 'stacked',
    horizontal: true,
    format: 'count',
  };
}
