import { jsx as _jsx, jsxs as _jsxs } from "preact/jsx-runtime";
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api } from '../api';
import { clock } from '../decide';
import { absolute, factsOf, knownRuns, relative, repoName, runTitle, runWords } from '../words';
import { auditBy, deniedRuns, denialBy, denialSubject, filterAudit, mergeDenials, undoneMessage, visible } from '../logic';
const DECISIONS = ['', 'auto', 'approved', 'denied', 'blocked', 'expired', 'revoked', 'used', 'executed', 'resumed', 'forgotten'];
export function History() {
    const [events, setEvents] = useState([]);
    const [denials, setDenials] = useState([]);
    const [filter, setFilter] = useState({ run: '', repo: '', decision: '' });
    const [error, setError] = useState(null);
    const [done, setDone] = useState(null);
    const [busy, setBusy] = useState(null);
    const now = Date.now();
    /** The audit trail, then the remembered denials of the runs in it that have a denial. */
    const load = async () => {
        try {
            const list = await api.audit(null);
            setEvents(list);
            setDenials(mergeDenials(await Promise.all(deniedRuns(list).map((run) => api.denials(run)))));
            return null;
        }
        catch (err) {
            return err.message;
        }
    };
    const refresh = async () => {
        setDone(null);
        setError(await load());
    };
    useEffect(() => void refresh(), []);
    const undo = async (denial) => {
        setBusy(denial.approval_id);
        setDone(null);
        setError(null);
        let failed = null;
        try {
            await api.forgetDenial(denial.approval_id);
        }
        catch (err) {
            const e = err;
            failed = e.code === 'conflict' ? `Already undone: ${e.message}` : e.message;
        }
        const reloaded = await load();
        setBusy(null);
        setError(failed ?? reloaded);
        if (failed === null)
            setDone(undoneMessage(denial));
    };
    const remembered = new Set(denials.map((d) => d.approval_id));
    // Runs by their agent (a denial names it; the audit does not) and the earliest moment in view.
    const runs = useMemo(() => knownRuns(denials, events), [denials, events]);
    const shown = filterAudit(events, filter);
    const set = (patch) => setFilter((f) => ({ ...f, ...patch }));
    return (_jsxs("div", { class: "history", children: [denials.length > 0 && (_jsxs("section", { class: "remembered", "data-testid": "remembered-denials", children: [_jsx("h2", { children: "Remembered denials" }), _jsx("p", { class: "sub", children: "The same request in the same run is denied at once with the reason given, without asking. Undo to be asked again." }), _jsx("ul", { children: denials.map((d) => (_jsxs("li", { "data-testid": "remembered-denial", "data-approval-id": d.approval_id, children: [_jsxs("span", { children: [_jsx("code", { "data-testid": "denial-subject", children: denialSubject(d) }), _jsxs("span", { class: "sub", children: [' ', "\u00B7 ", _jsx("span", { title: runTitle(factsOf(runs, d.run_id)), children: runWords(factsOf(runs, d.run_id), now) }), d.repo ? ` · ${repoName(d.repo)}` : '', " \u00B7 denied by ", _jsx("span", { "data-testid": "denial-by", children: denialBy(d) })] })] }), _jsx("button", { type: "button", "data-testid": "undo-denial", disabled: busy !== null, onClick: () => void undo(d), children: "Undo" })] }, d.approval_id))) })] })), done && (_jsx("p", { class: "done", "data-testid": "undo-done", children: done })), error && (_jsx("p", { class: "error", "data-testid": "history-error", children: error })), _jsxs("div", { class: "filters", children: [_jsx("input", { "data-testid": "filter-run", placeholder: "run", value: filter.run, onInput: (e) => set({ run: e.currentTarget.value }) }), _jsx("input", { "data-testid": "filter-repo", placeholder: "repo", value: filter.repo, onInput: (e) => set({ repo: e.currentTarget.value }) }), _jsx("select", { "data-testid": "filter-decision", value: filter.decision, onChange: (e) => set({ decision: e.currentTarget.value }), children: DECISIONS.map((d) => (_jsx("option", { value: d, children: d === '' ? 'any decision' : d }, d))) }), _jsx("button", { onClick: () => void refresh(), children: "Refresh" })] }), _jsx("div", { class: "wide-table", children: _jsxs("table", { children: [_jsx("thead", { children: _jsxs("tr", { children: [_jsx("th", { children: "When" }), _jsx("th", { children: "Decision" }), _jsx("th", { children: "What" }), _jsx("th", { children: "Scope" }), _jsx("th", { children: "By" }), _jsx("th", { children: "Until" }), _jsx("th", { children: "Run \u00B7 repo" }), _jsx("th", { children: "Reason" })] }) }), _jsx("tbody", { "data-testid": "audit", children: shown.map((e) => {
                                const stillRemembered = e.decision === 'denied' && !!e.approval_id && remembered.has(e.approval_id);
                                return (_jsxs("tr", { "data-testid": "audit-row", "data-decision": e.decision, "data-approval-id": e.approval_id ?? '', "data-remembered": stillRemembered ? 'yes' : 'no', children: [_jsx("td", { title: absolute(e.timestamp), children: relative(e.timestamp, now) }), _jsxs("td", { class: `decision ${e.decision}`, children: [e.decision, stillRemembered && _jsx("div", { class: "sub", children: "remembered" })] }), _jsxs("td", { "data-testid": "audit-subject", children: [_jsx("code", { children: visible(e.subject ?? '') }), _jsx("div", { class: "sub", children: e.action_kind })] }), _jsx("td", { "data-testid": "audit-scope", children: e.granted_scope ?? '' }), _jsx("td", { "data-testid": "audit-by", children: visible(auditBy(e)) }), _jsx("td", { "data-testid": "audit-until", title: e.grant_expires_at ? absolute(e.grant_expires_at) : undefined, children: e.grant_expires_at ? clock(Date.parse(e.grant_expires_at), now) : '' }), _jsxs("td", { title: runTitle(factsOf(runs, e.run_id)), "data-testid": "audit-run", children: [runWords(factsOf(runs, e.run_id), now), e.repo && (_jsx("div", { class: "sub", title: visible(e.repo), children: repoName(e.repo) }))] }), _jsx("td", { children: visible(e.reason) })] }, e.event_id));
                            }) })] }) })] }));
}
