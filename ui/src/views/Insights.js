import { jsx as _jsx, jsxs as _jsxs, Fragment as _Fragment } from "preact/jsx-runtime";
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { approveRateChart, openNowChart, outcomesChart, perDayChart, perHourChart, runsChart, timeToDecideChart } from '../charts';
import { busiestRuns, DAYS, duration, figures, HOURS, LOCAL, nothingYet, openPrompts, percent, promptsPerDay, promptsPerHour, TOP, topStats, totalOf, windowStart, } from '../insights';
import { visible } from '../logic';
import { knownRuns, ruleWords } from '../words';
import { Chart } from './Chart';
import { Suggestions } from './Suggestions';
function Figure({ name, value, detail, alarm = false }) {
    return (_jsxs("div", { class: alarm ? 'figure alarm' : 'figure', "data-testid": `figure-${name}`, "data-alarm": String(alarm), children: [_jsx("strong", { "data-testid": "value", children: value }), _jsx("span", { children: detail })] }));
}
function Empty({ testid, text }) {
    return (_jsx("p", { class: "empty", "data-testid": testid, children: text }));
}
/** What to do when nothing was asked yet. */
const START_HINT = (_jsxs(_Fragment, { children: ["run ", _jsx("code", { children: "assent install claude-code" }), " (or ", _jsx("code", { children: "assent install codex" }), ") and start an agent."] }));
function RulesTable({ rules }) {
    return (_jsx("div", { class: "wide-table", children: _jsxs("table", { "data-testid": "rules-table", children: [_jsx("thead", { children: _jsxs("tr", { children: [_jsx("th", { children: "Policy rule that asked" }), _jsx("th", { children: "Prompts" }), _jsx("th", { children: "Approved" }), _jsx("th", { children: "Denied" }), _jsx("th", { children: "Nobody answered" }), _jsx("th", { children: "Approved, share" }), _jsx("th", { title: "half of the decisions came faster than this", children: "Typical answer time" }), _jsx("th", { title: "nine decisions in ten came faster than this", children: "Slow answers (9 in 10 faster)" }), _jsx("th", { title: "approved within 2 seconds of asking", children: "Approved within 2 s" })] }) }), _jsx("tbody", { children: rules.map((r) => (_jsxs("tr", { "data-testid": "rule-row", "data-rule": r.name, class: r.others > 0 ? 'others' : '', children: [_jsx("td", { "data-testid": "rule-name", title: r.others > 0 ? undefined : `Policy rule ${visible(r.name)}`, children: r.others > 0 ? r.name : ruleWords(r.name) }), _jsx("td", { "data-testid": "rule-prompts", children: r.prompts }), _jsx("td", { children: r.approved }), _jsx("td", { children: r.denied }), _jsx("td", { children: r.timedOut }), _jsx("td", { "data-testid": "rule-rate", children: percent(r.approveRate) }), _jsx("td", { "data-testid": "rule-p50", children: duration(r.p50) }), _jsx("td", { "data-testid": "rule-p90", children: duration(r.p90) }), _jsx("td", { children: r.rubberStamps })] }, r.name))) })] }) }));
}
/** A chart, or why there is none yet. */
function ChartOr({ spec, title, testid, none }) {
    return spec.categories.length === 0 ? _jsx(Empty, { testid: `${testid}-empty`, text: none }) : _jsx(Chart, { title: title, spec: spec, testid: testid });
}
/** The prompts waiting now, each as long as it has waited; or that none waits. */
function OpenNow({ pending, clock }) {
    const spec = useMemo(() => openNowChart(openPrompts(pending, clock)), [pending, clock]);
    const more = pending.length - spec.categories.length;
    return (_jsxs("div", { class: "wide", children: [_jsx(ChartOr, { spec: spec, title: `Open now: ${pending.length} ${pending.length === 1 ? 'prompt waits' : 'prompts wait'} for you, longest waiting first`, testid: "chart-open-now", none: "No prompt is waiting for you now. New ones appear in Pending, and here with how long they have waited." }), more > 0 && _jsx("p", { class: "sub", children: `and ${more} more in Pending (the ${TOP} longest waiting are shown).` })] }));
}
function Charts({ data, pending, now, clock }) {
    const [range, setRange] = useState('days');
    const days = useMemo(() => promptsPerDay(data.events, Date.parse(data.since), now, LOCAL), [data, now]);
    const hours = useMemo(() => promptsPerHour(data.events, now, LOCAL), [data, now]);
    const rules = useMemo(() => topStats(data.metrics.by_rule), [data]);
    const specs = useMemo(() => ({
        perDay: perDayChart(days),
        perHour: perHourChart(hours),
        rules: outcomesChart(rules, 'rule'),
        profiles: outcomesChart(topStats(data.metrics.by_profile), 'profile'),
        rate: approveRateChart(rules),
        time: timeToDecideChart(rules),
        runs: runsChart(busiestRuns(data.events, pending), knownRuns(pending, data.events), now),
    }), [days, hours, rules, data, pending, now]);
    const total = totalOf(range === 'days' ? days : hours);
    const period = range === 'days' ? `the last ${DAYS} days` : `the last ${HOURS} hours`;
    return (_jsxs(_Fragment, { children: [_jsxs("div", { class: "charts", children: [_jsx(OpenNow, { pending: pending, clock: clock }), _jsxs("div", { class: "wide", children: [_jsxs("div", { class: "range", role: "group", "aria-label": "Period shown", children: [_jsxs("button", { type: "button", class: range === 'days' ? 'on' : '', "aria-pressed": range === 'days', "data-testid": "range-days", onClick: () => setRange('days'), children: ["Last ", DAYS, " days"] }), _jsxs("button", { type: "button", class: range === 'day' ? 'on' : '', "aria-pressed": range === 'day', "data-testid": "range-day", onClick: () => setRange('day'), children: ["Last ", HOURS, " hours"] })] }), range === 'days' ? (_jsx(Chart, { title: `Prompts per day, last ${DAYS} days`, spec: specs.perDay, testid: "chart-per-day" })) : (_jsx(Chart, { title: `Prompts per hour, last ${HOURS} hours`, spec: specs.perHour, testid: "chart-per-hour" })), _jsx("p", { class: "sub", "data-testid": "per-day-context", children: `In ${period}: ${total.approved} approved, ${total.denied} denied, ${total.timedOut} nobody answered in time; ` +
                                    `${total.auto} actions allowed and ${total.blocked} blocked without asking.` }), !data.complete && (_jsx("p", { class: "warn", "data-testid": "insights-incomplete", children: "The audit holds more events than one view reads: the most recent days are not all counted." }))] }), _jsx(ChartOr, { spec: specs.rules, title: "What the prompts were about (policy rules)", testid: "chart-rules", none: _jsxs(_Fragment, { children: ["No prompt yet: ", START_HINT] }) }), _jsx(ChartOr, { spec: specs.profiles, title: "Commands that prompt most (command profiles)", testid: "chart-profiles", none: "No command of a known profile (a test or build command the policy names) asked yet." }), _jsx(ChartOr, { spec: specs.rate, title: "How often you approved, per rule", testid: "chart-approve-rate", none: "Nobody approved or denied a prompt yet: decide one in Pending and it is counted here." }), _jsx(ChartOr, { spec: specs.time, title: "How fast you decided, per rule", testid: "chart-time-to-decide", none: "No time to decide measured yet: it is counted from a prompt opening to your answer." }), _jsx("div", { class: "wide", children: _jsx(ChartOr, { spec: specs.runs, title: `Runs with the most prompts, last ${DAYS} days`, testid: "chart-runs", none: _jsxs(_Fragment, { children: ["No run asked in the last ", DAYS, " days: ", START_HINT] }) }) })] }), _jsx("h2", { children: "Top rules" }), _jsx(RulesTable, { rules: rules })] }));
}
/** What changes the picture: a prompt opening or settling, the link coming back. */
function changeKey(pending, link) {
    return `${link.state}|${pending.map((a) => `${a.approval_id}:${a.count}`).join(',')}`;
}
/** Fatigue and judgment: where the prompts come from, how they went and how fast. */
export function Insights({ pending, link }) {
    const [data, setData] = useState(null);
    const [now, setNow] = useState(Date.now());
    const [error, setError] = useState(null);
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
            if (call !== latest.current)
                return;
            setData(answer);
            setNow(at);
            setClock(at);
            setError(null);
        })
            .catch((err) => {
            if (call === latest.current)
                setError(err.message);
        });
    };
    // On opening the view, and again (once things settle) whenever a prompt opens or settles.
    const key = changeKey(pending, link);
    useEffect(() => {
        if (link.state !== 'connected' && data !== null)
            return;
        const timer = window.setTimeout(() => void load(), data === null ? 0 : 300);
        return () => window.clearTimeout(timer);
    }, [key]);
    const f = data ? figures(data.metrics) : null;
    return (_jsxs("div", { class: "insights", children: [_jsxs("div", { class: "filters", children: [_jsx("button", { "data-testid": "insights-refresh", onClick: () => void load(), children: "Refresh" }), error && (_jsx("span", { class: "error", "data-testid": "insights-error", children: error }))] }), !data && !error && _jsx("p", { class: "empty", children: "Loading\u2026" }), data && f && (_jsxs(_Fragment, { children: [_jsxs("div", { class: "figures", "data-testid": "insights-figures", children: [_jsx(Figure, { name: "prompts", value: String(f.prompts), detail: `prompts, ${percent(f.approveRate)} approved` }), _jsx(Figure, { name: "per-run", value: f.perRun, detail: `prompts per run (max ${f.maxPerRun}, ${f.runs} runs)` }), _jsx(Figure, { name: "rubber-stamps", value: String(f.rubberStamps), detail: "rubber stamps: approved within 2 s" }), _jsx(Figure, { name: "remembered-denials", value: String(f.rememberedDenials), detail: "remembered denials: not asked twice" }), _jsx(Figure, { name: "uncovered", value: String(f.uncovered), detail: f.uncovered > 0 ? 'ran without cover: nothing allowed it' : 'uncovered executions', alarm: f.uncovered > 0 })] }), _jsxs("p", { class: "sub", children: ["Figures and rules: since the service started. Days and runs: the last ", DAYS, " days."] }), _jsx(Suggestions, { reload: data }), nothingYet(data.metrics, data.events, pending) ? (_jsx(Empty, { testid: "insights-empty", text: _jsxs(_Fragment, { children: ["No prompts yet: ", START_HINT, " Then this shows the prompts waiting for you, where they come from, how you answered them and how fast."] }) })) : (_jsx(Charts, { data: data, pending: pending, now: now, clock: clock }))] }))] }));
}
