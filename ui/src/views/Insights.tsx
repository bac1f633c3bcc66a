import { type ComponentChildren, Fragment } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { approveRateChart, type BarSpec, openNowChart, outcomesChart, perDayChart, perHourChart, runsChart, timeToDecideChart } from '../charts';
import {
  agreement,
  busiestRuns,
  DAYS,
  duration,
  figures,
  HOURS,
  LOCAL,
  nothingYet,
  openPrompts,
  percent,
  promptsPerDay,
  promptsPerHour,
  reviewerPerDay,
  type StatRow,
  TOP,
  topStats,
  totalOf,
  windowStart,
} from '../insights';
import { visible } from '../text';
import { knownRuns, ruleWords } from '../words';
import type { Approval, CommandError, Insights as Data, Link } from '../types';
import { Chart } from './Chart';
import { Suggestions } from './Suggestions';

function Figure({ name, value, detail, alarm = false }: { name: string; value: string; detail: string; alarm?: boolean }) {
  return (
    <div class={alarm ? 'figure alarm' : 'figure'} data-testid={`figure-${name}`} data-alarm={String(alarm)}>
      <strong data-testid="value">{value}</strong>
      <span>{detail}</span>
    </div>
  );
}

function Empty({ testid, text }: { testid: string; text: ComponentChildren }) {
  return (
    <p class="empty" data-testid={testid}>
      {text}
    </p>
  );
}

/** What to do when nothing was asked yet. */
const START_HINT = (
  <>
    run <code>assent install claude-code</code> (or <code>assent install codex</code>) and start an agent.
  </>
);

/** Text that wraps between words only: a name such as `maven-test` is never cut at its hyphen. */
function WholeWords({ text }: { text: string }) {
  const words = text.split(' ');
  return (
    <>
      {words.map((w, i) => (
        <Fragment key={i}>
          {i > 0 && ' '}
          <span class="word">{w}</span>
        </Fragment>
      ))}
    </>
  );
}

function RulesTable({ rules }: { rules: StatRow[] }) {
  return (
    <div class="wide-table">
    <table class="words-whole" data-testid="rules-table">
      <thead>
        <tr>
          <th>Policy rule that asked</th>
          <th>Prompts</th>
          <th>Approved</th>
          <th>Denied</th>
          <th>Nobody answered</th>
          <th>Approved, share</th>
          <th title="half of the decisions came faster than this">Typical answer time</th>
          <th title="nine decisions in ten came faster than this">Slow answers (9 in 10 faster)</th>
          <th title="approved within 2 seconds of asking">Approved within 2 s</th>
        </tr>
      </thead>
      <tbody>
        {rules.map((r) => (
          <tr key={r.name} data-testid="rule-row" data-rule={r.name} class={r.others > 0 ? 'others' : ''}>
            <td data-testid="rule-name" title={r.others > 0 ? undefined : `Policy rule ${visible(r.name)}`}>
              <WholeWords text={r.others > 0 ? r.name : ruleWords(r.name)} />
            </td>
            <td data-testid="rule-prompts">{r.prompts}</td>
            <td>{r.approved}</td>
            <td>{r.denied}</td>
            <td>{r.timedOut}</td>
            <td data-testid="rule-rate">{percent(r.approveRate)}</td>
            <td data-testid="rule-p50">{duration(r.p50)}</td>
            <td data-testid="rule-p90">{duration(r.p90)}</td>
            <td>{r.rubberStamps}</td>
          </tr>
        ))}
      </tbody>
    </table>
    </div>
  );
}

/** A chart, or why there is none yet. */
function ChartOr({ spec, title, testid, none }: { spec: BarSpec; title: string; testid: string; none: ComponentChildren }) {
  return spec.categories.length === 0 ? <Empty testid={`${testid}-empty`} text={none} /> : <Chart title={title} spec={spec} testid={testid} />;
}

type Range = 'days' | 'day';

/** The prompts waiting now, each as long as it has waited; or that none waits. */
function OpenNow({ pending, clock }: { pending: Approval[]; clock: number }) {
  const spec = useMemo(() => openNowChart(openPrompts(pending, clock)), [pending, clock]);
  const more = pending.length - spec.categories.length;
  return (
    <div class="wide">
      <ChartOr
        spec={spec}
        title={`Open now: ${pending.length} ${pending.length === 1 ? 'prompt waits' : 'prompts wait'} for you, longest waiting first`}
        testid="chart-open-now"
        none="No prompt is waiting for you now. New ones appear in Pending, and here with how long they have waited."
      />
      {more > 0 && <p class="sub">{`and ${more} more in Pending (the ${TOP} longest waiting are shown).`}</p>}
    </div>
  );
}

function Charts({ data, pending, now, clock }: { data: Data; pending: Approval[]; now: number; clock: number }) {
  const [range, setRange] = useState<Range>('days');
  const days = useMemo(() => promptsPerDay(data.events, Date.parse(data.since), now, LOCAL), [data, now]);
  const hours = useMemo(() => promptsPerHour(data.events, now, LOCAL), [data, now]);
  const rules = useMemo(() => topStats(data.metrics.by_rule), [data]);
  const specs = useMemo(
    () => ({
      perDay: perDayChart(days),
      perHour: perHourChart(hours),
      rules: outcomesChart(rules, 'rule'),
      profiles: outcomesChart(topStats(data.metrics.by_profile), 'profile'),
      rate: approveRateChart(rules),
      time: timeToDecideChart(rules),
      runs: runsChart(busiestRuns(data.events, pending), knownRuns(pending, data.events), now),
    }),
    [days, hours, rules, data, pending, now],
  );
  const total = totalOf(range === 'days' ? days : hours);
  const period = range === 'days' ? `the last ${DAYS} days` : `the last ${HOURS} hours`;
  return (
    <>
      <div class="charts">
        <OpenNow pending={pending} clock={clock} />
        <div class="wide">
          <div class="range" role="group" aria-label="Period shown">
            <button type="button" class={range === 'days' ? 'on' : ''} aria-pressed={range === 'days'} data-testid="range-days" onClick={() => setRange('days')}>
              Last {DAYS} days
            </button>
            <button type="button" class={range === 'day' ? 'on' : ''} aria-pressed={range === 'day'} data-testid="range-day" onClick={() => setRange('day')}>
              Last {HOURS} hours
            </button>
          </div>
          {range === 'days' ? (
            <Chart key="per-day" title={`Prompts per day, last ${DAYS} days`} spec={specs.perDay} testid="chart-per-day" />
          ) : (
            <Chart key="per-hour" title={`Prompts per hour, last ${HOURS} hours`} spec={specs.perHour} testid="chart-per-hour" />
          )}
          <p class="sub" data-testid="per-day-context">
            {`In ${period}: ${total.approved} approved, ${total.denied} denied, ${total.timedOut} nobody answered in time; ` +
              `${total.auto} actions allowed and ${total.blocked} blocked without asking.`}
          </p>
          {!data.complete && (
            <p class="warn" data-testid="insights-incomplete">
              The audit holds more events than one view reads: the most recent days are not all counted.
            </p>
          )}
        </div>
        <ChartOr
          spec={specs.rules}
          title="What the prompts were about (policy rules)"
          testid="chart-rules"
          none={<>No prompt yet: {START_HINT}</>}
        />
        <ChartOr
          spec={specs.profiles}
          title="Commands that prompt most (command profiles)"
          testid="chart-profiles"
          none="No command of a known profile (a test or build command the policy names) asked yet."
        />
        <ChartOr
          spec={specs.rate}
          title="How often you approved, per rule"
          testid="chart-approve-rate"
          none="Nobody approved or denied a prompt yet: decide one in Pending and it is counted here."
        />
        <ChartOr
          spec={specs.time}
          title="How fast you decided, per rule"
          testid="chart-time-to-decide"
          none="No time to decide measured yet: it is counted from a prompt opening to your answer."
        />
        <div class="wide">
          <ChartOr
            spec={specs.runs}
            title={`Runs with the most prompts, last ${DAYS} days`}
            testid="chart-runs"
            none={<>No run asked in the last {DAYS} days: {START_HINT}</>}
          />
        </div>
      </div>
      <h2>Top rules</h2>
      <RulesTable rules={rules} />
      <Reviewer data={data} now={now} />
    </>
  );
}

/** The model reviewer's share, when it did anything in the days shown: its approvals per day,
 * its failures, and how often the person decided as it advised. */
function Reviewer({ data, now }: { data: Data; now: number }) {
  const days = useMemo(() => reviewerPerDay(data.events, Date.parse(data.since), now, LOCAL), [data, now]);
  const agreed = useMemo(() => agreement(data.events), [data]);
  const active = days.filter((d) => d.approved + d.failed > 0);
  if (active.length === 0 && agreed.agreed + agreed.disagreed === 0) return null;
  const approved = days.reduce((n, d) => n + d.approved, 0);
  const failed = days.reduce((n, d) => n + d.failed, 0);
  const advised = agreed.agreed + agreed.disagreed;
  return (
    <section class="reviewer-insights" data-testid="reviewer-insights">
      <h2>Model reviewer</h2>
      <p data-testid="reviewer-summary">
        {`In the last ${DAYS} days the model reviewer approved ${approved} prompt${approved === 1 ? '' : 's'} alone and failed ${failed} time${failed === 1 ? '' : 's'} (you decided those). `}
        {advised > 0
          ? `You decided as it advised on ${agreed.agreed} of ${advised} prompts (${percent(agreed.rate)}).`
          : 'You have not decided a prompt it advised on yet.'}
      </p>
      {active.length > 0 && (
        <table data-testid="reviewer-days">
          <thead>
            <tr>
              <th>Day</th>
              <th>Approved by the model</th>
              <th>Its failures</th>
            </tr>
          </thead>
          <tbody>
            {active.map((d) => (
              <tr key={d.day}>
                <td>{d.day}</td>
                <td>{d.approved}</td>
                <td>{d.failed}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** What changes the picture: a prompt opening or settling, the link coming back. */
function changeKey(pending: Approval[], link: Link): string {
  return `${link.state}|${pending.map((a) => `${a.approval_id}:${a.count}`).join(',')}`;
}

/** Fatigue and judgment: where the prompts come from, how they went and how fast. */
export function Insights({ pending, link }: { pending: Approval[]; link: Link }) {
  const [data, setData] = useState<Data | null>(null);
  const [now, setNow] = useState(Date.now());
  const [error, setError] = useState<string | null>(null);
  // How long the open prompts have waited grows by the minute, between loads too.
  const [clock, setClock] = useState(Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setClock(Date.now()), 60_000);
    return () => window.clearInterval(timer);
  }, []);

  // Only the latest answer is shown: an earlier call that answers late is dropped.
  const latest = useRef(0);

  const load = () => {
    const at = Date.now();
    const call = ++latest.current;
    return api
      .insights(new Date(windowStart(at, DAYS, LOCAL)))
      .then((answer) => {
        if (call !== latest.current) return;
        setData(answer);
        setNow(at);
        setClock(at);
        setError(null);
      })
      .catch((err: CommandError) => {
        if (call === latest.current) setError(err.message);
      });
  };

  // On opening the view, and again (once things settle) whenever a prompt opens or settles.
  const key = changeKey(pending, link);
  useEffect(() => {
    if (link.state !== 'connected' && data !== null) return;
    const timer = window.setTimeout(() => void load(), data === null ? 0 : 300);
    return () => window.clearTimeout(timer);
  }, [key]);

  const f = data ? figures(data.metrics) : null;
  return (
    <div class="insights">
      <div class="filters">
        <button data-testid="insights-refresh" onClick={() => void load()}>
          Refresh
        </button>
        {error && (
          <span class="error" data-testid="insights-error">
            {error}
          </span>
        )}
      </div>
      {!data && !error && <p class="empty">Loading…</p>}
      {data && f && (
        <>
          <div class="figures" data-testid="insights-figures">
            <Figure name="prompts" value={String(f.prompts)} detail={`prompts, ${percent(f.approveRate)} approved`} />
            <Figure name="per-run" value={f.perRun} detail={`prompts per run (max ${f.maxPerRun}, ${f.runs} runs)`} />
            <Figure name="rubber-stamps" value={String(f.rubberStamps)} detail="rubber stamps: approved within 2 s" />
            <Figure name="remembered-denials" value={String(f.rememberedDenials)} detail="remembered denials: not asked twice" />
            <Figure
              name="uncovered"
              value={String(f.uncovered)}
              detail={f.uncovered > 0 ? 'ran without cover: nothing allowed it' : 'uncovered executions'}
              alarm={f.uncovered > 0}
            />
          </div>
          <p class="sub">Figures and rules: since the service started. Days and runs: the last {DAYS} days.</p>
          <Suggestions reload={data} />
          {nothingYet(data.metrics, data.events, pending) ? (
            <Empty
              testid="insights-empty"
              text={
                <>
                  No prompts yet: {START_HINT} Then this shows the prompts waiting for you, where they come from, how you
                  answered them and how fast.
                </>
              }
            />
          ) : (
            <Charts data={data} pending={pending} now={now} clock={clock} />
          )}
        </>
      )}
    </div>
  );
}
