// The Insights view's logic, pure and tested (Vitest): where the prompts come from, how they
// went and how fast, per day, per rule, per command profile and per run.
import { plainTitle, placeOf } from './decide';
import { visible } from './text';
import type { Approval, InsightEvent, Metrics, PromptStats, Risk } from './types';

/** Calendar days the charts cover, today included. */
export const DAYS = 14;
/** Hours the day view covers, the current one included. */
export const HOURS = 24;
/** Rules, profiles and runs shown by name; further rules and profiles are summed as others. */
export const TOP = 10;
/** The most characters of a name on a chart axis (the table shows it whole). */
export const LABEL_CHARS = 32;

/** Calendar days: the person's own (`LOCAL`), or `UTC` where a test needs the same everywhere. */
export interface Calendar {
  /** `YYYY-MM-DD` of the day the instant `ms` falls on. */
  dayOf(ms: number): string;
  /** When the day `offset` days after the day of `ms` starts. */
  startOfDay(ms: number, offset: number): number;
  /** When the hour `offset` hours after the hour of `ms` starts. */
  startOfHour(ms: number, offset: number): number;
  /** The hour of the day (0–23) the instant `ms` falls in. */
  hourOf(ms: number): number;
}

const two = (n: number) => String(n).padStart(2, '0');
const ymd = (year: number, month: number, day: number) => `${year}-${two(month + 1)}-${two(day)}`;

export const LOCAL: Calendar = {
  dayOf: (ms) => {
    const d = new Date(ms);
    return ymd(d.getFullYear(), d.getMonth(), d.getDate());
  },
  // A day is 23 or 25 hours around a DST change: count in calendar days, not in hours.
  startOfDay: (ms, offset) => {
    const d = new Date(ms);
    return new Date(d.getFullYear(), d.getMonth(), d.getDate() + offset).getTime();
  },
  // Whole local hours: a zone half an hour off UTC starts its hours at :30 UTC.
  startOfHour: (ms, offset) => {
    const d = new Date(ms);
    d.setMinutes(0, 0, 0);
    return d.getTime() + offset * 3_600_000;
  },
  hourOf: (ms) => new Date(ms).getHours(),
};

export const UTC: Calendar = {
  dayOf: (ms) => {
    const d = new Date(ms);
    return ymd(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  },
  startOfDay: (ms, offset) => {
    const d = new Date(ms);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + offset);
  },
  startOfHour: (ms, offset) => (Math.floor(ms / 3_600_000) + offset) * 3_600_000,
  hourOf: (ms) => new Date(ms).getUTCHours(),
};

/** When the charts start: the beginning of the day `days - 1` days before today. */
export function windowStart(now: number, days: number, calendar: Calendar): number {
  return calendar.startOfDay(now, -(days - 1));
}

/** The calendar days from the one of `since` to the one of `now`, oldest first. */
export function calendarDays(since: number, now: number, calendar: Calendar): string[] {
  const days: string[] = [];
  for (let offset = 0; offset <= 400; offset++) {
    const start = calendar.startOfDay(since, offset);
    if (start > now) break;
    days.push(calendar.dayOf(start));
  }
  return days;
}

type Settlement = 'approved' | 'denied' | 'expired';

/**
 * Whether `event` settles a prompt: a person approved or denied it, or nobody answered in
 * time. The service audits one such event per member of the prompt; a grant running out is
 * also `expired` but names no action.
 */
export function settlesPrompt(event: InsightEvent): event is InsightEvent & { approval_id: string; decision: Settlement } {
  return (
    event.approval_id !== undefined &&
    event.action_id !== undefined &&
    (event.decision === 'approved' || event.decision === 'denied' || event.decision === 'expired')
  );
}

/** Audit events oldest first (the desk sends them so; this does not rely on it). */
function oldestFirst(events: InsightEvent[]): InsightEvent[] {
  return [...events].sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
}

/** How the prompts settled in a period went, and what the policy decided alone. */
export interface Tally {
  approved: number;
  denied: number;
  /** Nobody answered in time. */
  timedOut: number;
  /** Actions the policy allowed without asking. */
  auto: number;
  /** Actions the policy refused without asking. */
  blocked: number;
}

export interface DayCount extends Tally {
  day: string;
}

export interface HourCount extends Tally {
  /** When the hour starts. */
  start: number;
  /** Its hour of the day, 0–23. */
  hour: number;
}

const zero = (): Tally => ({ approved: 0, denied: 0, timedOut: 0, auto: 0, blocked: 0 });

/**
 * Counts each event into the row `rowOf` finds for its time: the prompts approved, denied and
 * timed out, each once in the period it settled (its members and a denial remembered later
 * name the same prompt), and for context the actions allowed or blocked without asking.
 */
function tally(events: InsightEvent[], rowOf: (ms: number) => Tally | undefined): void {
  const counted = new Set<string>();
  for (const event of oldestFirst(events)) {
    const row = rowOf(Date.parse(event.timestamp));
    if (!row) continue;
    if (event.decision === 'auto') row.auto += 1;
    else if (event.decision === 'blocked') row.blocked += 1;
    else if (settlesPrompt(event) && !counted.has(event.approval_id)) {
      counted.add(event.approval_id);
      if (event.decision === 'approved') row.approved += 1;
      else if (event.decision === 'denied') row.denied += 1;
      else row.timedOut += 1;
    }
  }
}

/** Per calendar day from `since` to `now`, oldest first: see `tally`. */
export function promptsPerDay(events: InsightEvent[], since: number, now: number, calendar: Calendar): DayCount[] {
  const days = new Map<string, DayCount>();
  for (const day of calendarDays(since, now, calendar)) days.set(day, { day, ...zero() });
  tally(events, (ms) => days.get(calendar.dayOf(ms)));
  return [...days.values()];
}

/** Per hour for the `hours` hours up to the one `now` falls in, oldest first: see `tally`. */
export function promptsPerHour(events: InsightEvent[], now: number, calendar: Calendar, hours = HOURS): HourCount[] {
  const rows = new Map<number, HourCount>();
  for (let offset = -(hours - 1); offset <= 0; offset++) {
    const start = calendar.startOfHour(now, offset);
    rows.set(start, { start, hour: calendar.hourOf(start), ...zero() });
  }
  tally(events, (ms) => rows.get(calendar.startOfHour(ms, 0)));
  return [...rows.values()];
}

/** The days summed. */
export function totalOf(days: Tally[]): Tally {
  const total = zero();
  for (const d of days) {
    total.approved += d.approved;
    total.denied += d.denied;
    total.timedOut += d.timedOut;
    total.auto += d.auto;
    total.blocked += d.blocked;
  }
  return total;
}

/** One policy rule or command profile (or several summed as others), as the charts and the table show it. */
export interface StatRow {
  /** As the service sent it; show it through `label` or `visible`. */
  name: string;
  prompts: number;
  approved: number;
  denied: number;
  timedOut: number;
  /** Neither approved, denied nor timed out: still open, or cancelled. */
  open: number;
  /** Approved of those a person decided; null when nobody decided any. */
  approveRate: number | null;
  /** Seconds to a person's decision; null when none was decided (and for others). */
  p50: number | null;
  p90: number | null;
  rubberStamps: number;
  /** How many names this row sums; 0 for a named row. */
  others: number;
}

function rate(approved: number, denied: number): number | null {
  return approved + denied > 0 ? approved / (approved + denied) : null;
}

function statRow(name: string, s: PromptStats): StatRow {
  const timed = s.time_to_decide_seconds.count > 0;
  return {
    name,
    prompts: s.prompts,
    approved: s.approved,
    denied: s.denied,
    timedOut: s.timed_out,
    open: Math.max(0, s.prompts - s.approved - s.denied - s.timed_out),
    approveRate: rate(s.approved, s.denied),
    p50: timed ? s.time_to_decide_seconds.p50 : null,
    p90: timed ? s.time_to_decide_seconds.p90 : null,
    rubberStamps: s.rubber_stamps,
    others: 0,
  };
}

function othersRow(rest: StatRow[]): StatRow {
  const sum = (pick: (row: StatRow) => number) => rest.reduce((total, row) => total + pick(row), 0);
  const approved = sum((r) => r.approved);
  const denied = sum((r) => r.denied);
  return {
    name: `${rest.length} others`,
    prompts: sum((r) => r.prompts),
    approved,
    denied,
    timedOut: sum((r) => r.timedOut),
    open: sum((r) => r.open),
    approveRate: rate(approved, denied),
    // Percentiles of different rules do not add up.
    p50: null,
    p90: null,
    rubberStamps: sum((r) => r.rubberStamps),
    others: rest.length,
  };
}

/**
 * The rules (or profiles) that prompt most, most first (ties by name); past `top`, the rest
 * summed in one last row (a single extra one is shown by name instead).
 */
export function topStats(stats: Record<string, PromptStats>, top = TOP): StatRow[] {
  const rows = Object.entries(stats)
    .filter(([, s]) => s.prompts > 0)
    .map(([name, s]) => statRow(name, s))
    .sort((a, b) => b.prompts - a.prompts || a.name.localeCompare(b.name));
  if (rows.length <= top + 1) return rows;
  return [...rows.slice(0, top), othersRow(rows.slice(top))];
}

export interface RunRow {
  runId: string;
  repo: string | null;
  prompts: number;
  /** Of which still open. */
  open: number;
}

/**
 * The runs that opened the most prompts: those settled in the audit and those still open on
 * the desk, each prompt once; most first (ties by run), `top` of them.
 */
export function busiestRuns(events: InsightEvent[], pending: Approval[], top = TOP): RunRow[] {
  const runs = new Map<string, { repo: string | null; prompts: Set<string>; open: Set<string> }>();
  const run = (runId: string, repo: string | undefined) => {
    let found = runs.get(runId);
    if (!found) {
      found = { repo: null, prompts: new Set(), open: new Set() };
      runs.set(runId, found);
    }
    found.repo ??= repo ?? null;
    return found;
  };
  for (const event of events) {
    if (settlesPrompt(event)) run(event.run_id, event.repo ?? undefined).prompts.add(event.approval_id);
  }
  for (const approval of pending) {
    const found = run(approval.run_id, approval.repo ?? undefined);
    found.prompts.add(approval.approval_id);
    found.open.add(approval.approval_id);
  }
  return [...runs.entries()]
    .map(([runId, r]) => ({ runId, repo: r.repo, prompts: r.prompts.size, open: r.open.size }))
    .sort((a, b) => b.prompts - a.prompts || a.runId.localeCompare(b.runId))
    .slice(0, top);
}

/** The headline figures, from the service's totals. */
export interface Figures {
  prompts: number;
  /** Mean prompts per run that had any, one decimal. */
  perRun: string;
  maxPerRun: number;
  runs: number;
  approveRate: number | null;
  rubberStamps: number;
  rememberedDenials: number;
  /** Something ran that nothing allowed: shown as an alarm when above 0. */
  uncovered: number;
}

export function figures(metrics: Metrics): Figures {
  const rules = Object.values(metrics.by_rule);
  const approved = rules.reduce((total, s) => total + s.approved, 0);
  const denied = rules.reduce((total, s) => total + s.denied, 0);
  return {
    prompts: metrics.prompts_opened,
    perRun: metrics.prompts_per_run.mean.toFixed(1),
    maxPerRun: metrics.prompts_per_run.max,
    runs: metrics.prompts_per_run.runs,
    approveRate: rate(approved, denied),
    rubberStamps: metrics.rubber_stamps,
    rememberedDenials: metrics.remembered_denials,
    uncovered: metrics.uncovered_executions,
  };
}

/** A fresh install: nothing was ever asked and nothing happened in the days shown. */
export function nothingYet(metrics: Metrics, events: InsightEvent[], pending: Approval[]): boolean {
  return metrics.prompts_opened === 0 && metrics.actions_total === 0 && events.length === 0 && pending.length === 0;
}

/** A name for a chart axis: hidden characters shown, at most `max` characters. */
export function label(name: string, max = LABEL_CHARS): string {
  const chars = [...visible(name)];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : chars.join('');
}

/** `84 %`, or `—` when there is no rate. */
export function percent(rate: number | null): string {
  return rate === null ? '—' : `${Math.round(rate * 100)} %`;
}

/** A time to decide: `1.5 s`, `42 s`, `3.5 min`, `2.0 h`, or `—`. */
export function duration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '—';
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${(seconds / 60).toFixed(1)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** A prompt open now, as the "open now" chart shows it. */
export interface OpenPrompt {
  approvalId: string;
  /** What it asks, in a few words, and where. */
  title: string;
  risk: Risk;
  runId: string;
  /** Seconds since it opened. */
  waited: number;
}

/** "Run npm test · shop", unless the title already says where ("… in shop"). */
function titleWithPlace(title: string, place: string): string {
  return place === '' || title.includes(place) ? title : `${title} · ${place}`;
}

/** The prompts open now, the longest waiting first (ties by id), `top` of them. */
export function openPrompts(pending: Approval[], now: number, top = TOP): OpenPrompt[] {
  return pending
    .map((a) => ({
      approvalId: a.approval_id,
      title: titleWithPlace(plainTitle(a.evidence.summary), placeOf(a)),
      risk: a.risk,
      runId: a.run_id,
      waited: Math.max(0, Math.floor((now - Date.parse(a.created_at)) / 1000)),
    }))
    .sort((a, b) => b.waited - a.waited || a.approvalId.localeCompare(b.approvalId))
    .slice(0, top);
}

/** The model reviewer's work on one calendar day. */
export interface ReviewerDay {
  day: string;
  /** Prompts the reviewer approved alone (`approved` by `reviewer:<model>`), each once. */
  approved: number;
  /** Calls that failed (timeout, error, no valid verdict): the person decided. */
  failed: number;
}

/** How often the person decided as the reviewer advised. */
export interface Agreement {
  /** Advised approve → the person approved; advised ask_person → the person denied. */
  agreed: number;
  /** The other way round. */
  disagreed: number;
  rate: number | null;
}

const byReviewer = (approver: string | null | undefined) => !!approver && approver.startsWith('reviewer:');

/** Per calendar day from `since` to `now`, oldest first: the reviewer's approvals and failures. */
export function reviewerPerDay(events: InsightEvent[], since: number, now: number, calendar: Calendar): ReviewerDay[] {
  const days = new Map<string, ReviewerDay>();
  for (const day of calendarDays(since, now, calendar)) days.set(day, { day, approved: 0, failed: 0 });
  const counted = new Set<string>();
  for (const event of oldestFirst(events)) {
    const row = days.get(calendar.dayOf(Date.parse(event.timestamp)));
    if (!row) continue;
    if (event.decision === 'reviewed' && event.review?.state === 'failed') row.failed += 1;
    else if (settlesPrompt(event) && event.decision === 'approved' && byReviewer(event.approver) && !counted.has(event.approval_id)) {
      counted.add(event.approval_id);
      row.approved += 1;
    }
  }
  return [...days.values()];
}

/**
 * Of the prompts the reviewer gave an opinion on (advised) and a person then approved or
 * denied, how many the person decided as advised. A prompt that timed out, or that the
 * reviewer itself approved, tells nothing of agreement.
 */
export function agreement(events: InsightEvent[]): Agreement {
  const advice = new Map<string, string>();
  const settled = new Map<string, 'approved' | 'denied'>();
  for (const event of oldestFirst(events)) {
    if (!event.approval_id) continue;
    if (event.decision === 'reviewed' && event.review?.state === 'advised' && event.review.outcome) advice.set(event.approval_id, event.review.outcome);
    else if (settlesPrompt(event) && event.decision !== 'expired' && !byReviewer(event.approver) && !settled.has(event.approval_id)) {
      settled.set(event.approval_id, event.decision);
    }
  }
  let agreed = 0;
  let disagreed = 0;
  for (const [id, outcome] of advice) {
    const person = settled.get(id);
    if (!person) continue;
    if ((outcome === 'approve') === (person === 'approved')) agreed += 1;
    else disagreed += 1;
  }
  return { agreed, disagreed, rate: agreed + disagreed > 0 ? agreed / (agreed + disagreed) : null };
}
