import { jsx as _jsx, jsxs as _jsxs, Fragment as _Fragment } from "preact/jsx-runtime";
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { approvedToast, grantSentence, oneAct, placeOf, plainTitle, subjectOf, successor, undoneToast, } from '../decide';
import { buildApproval, buildDenial, decidability, defaultForm, durationLabel, keepSelection, keyIntent, longestSeconds, moveSelection, newestFirst, quickApproval, quickChoices, quickLabel, SCOPE_LABELS, shortcutDecision, visible, waitingSince, } from '../logic';
import { factsOf, knownRuns, roleWords, runTitle, runWords, waitLine } from '../words';
import { Evidence } from './Evidence';
export function Pending({ pending, me, focus, onFocused, denyReasons, online }) {
    const batches = useMemo(() => newestFirst(pending), [pending]);
    const runs = useMemo(() => knownRuns(pending), [pending]);
    const ids = batches.map((a) => a.approval_id);
    const [selected, setSelected] = useState(null);
    const [toast, setToast] = useState(null);
    const [toastNote, setToastNote] = useState(null);
    // The order the person last saw, so a prompt leaving moves the selection to the next one.
    const seen = useRef([]);
    // When each prompt's agents were last seen waiting, to say when they stopped.
    const waited = useRef(new Map());
    const now = Date.now();
    for (const a of batches)
        if (a.agents_waiting > 0)
            waited.current.set(a.approval_id, now);
    // A prompt the person saw that left (decided here or elsewhere): the next one in order. A
    // focus on a prompt not listed yet stays wanted until it arrives.
    let current = focus ?? selected;
    if (current !== null && !ids.includes(current) && seen.current.includes(current)) {
        current = successor(seen.current, ids, current);
    }
    current = keepSelection(ids, current);
    useEffect(() => {
        const left = selected !== null && seen.current.includes(selected) && !ids.includes(selected);
        seen.current = ids;
        if (left)
            setSelected(current);
    }, [ids.join(',')]);
    useEffect(() => {
        if (focus !== null) {
            setSelected(focus);
            onFocused();
        }
    }, [focus]);
    useEffect(() => {
        const onKey = (event) => {
            const target = event.target;
            const typing = !!target && ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
            if (event.ctrlKey || event.altKey || event.metaKey)
                return;
            const intent = keyIntent(event.key, typing);
            if (intent?.kind === 'move') {
                event.preventDefault();
                setSelected(moveSelection(ids, current, intent.by));
            }
            else if (intent?.kind === 'shortcut') {
                event.preventDefault();
                window.dispatchEvent(new CustomEvent('assent-shortcut', { detail: intent.shortcut }));
            }
        };
        window.addEventListener('keydown', onKey);
        return () => window.removeEventListener('keydown', onKey);
    }, [ids.join(','), current]);
    const decided = (d) => {
        setToastNote(null);
        setToast(approvedToast(d.approval, d.request, d.grant, Date.now()));
    };
    const undo = async (t) => {
        try {
            if (t.grantId) {
                const revoked = await api.revoke(t.grantId, 'undone from the desk right after approving');
                setToastNote(undoneToast(revoked));
            }
            else if (t.deniedId) {
                await api.forgetDenial(t.deniedId);
                setToastNote('Undone: the denial is forgotten; the agent’s next equivalent request asks you again.');
            }
            setToast({ ...t, grantId: null, deniedId: null });
        }
        catch (err) {
            setToastNote(`Undo failed: ${err.message ?? String(err)}`);
        }
    };
    const toastBox = toast && (_jsxs("div", { class: "toast", role: "status", "data-testid": "toast", children: [_jsx("span", { "data-testid": "toast-text", children: toast.text }), toastNote && (_jsx("span", { "data-testid": "toast-note", class: "note", children: toastNote })), (toast.grantId || toast.deniedId) && (_jsx("button", { type: "button", "data-testid": "undo", onClick: () => void undo(toast), children: "Undo" })), _jsx("button", { type: "button", class: "plain", "aria-label": "Dismiss", "data-testid": "toast-close", onClick: () => setToast(null), children: "\u00D7" })] }));
    if (batches.length === 0) {
        return (_jsxs(_Fragment, { children: [toastBox, _jsxs("div", { class: "empty-state", "data-testid": "pending-empty", children: [_jsx("p", { children: "Nothing waiting for you." }), _jsxs("p", { class: "sub", children: ["Prompts appear here when an agent asks. To gate an agent, run ", _jsx("code", { children: "assent install claude-code" }), " (or", ' ', _jsx("code", { children: "codex" }), ", ", _jsx("code", { children: "gemini" }), ") in a terminal."] })] })] }));
    }
    const approval = batches.find((a) => a.approval_id === current) ?? batches[0];
    const may = decidability(approval, me);
    const stopped = waitLine(approval, waited.current.get(approval.approval_id) ?? null, now);
    return (_jsxs(_Fragment, { children: [toastBox, _jsxs("div", { class: "split", children: [_jsx("ul", { class: "list", "data-testid": "pending-list", "aria-label": "Waiting prompts", children: batches.map((a) => (_jsxs("li", { "data-testid": "prompt", "data-approval-id": a.approval_id, tabIndex: 0, "aria-selected": a.approval_id === approval.approval_id, class: `item risk-${a.risk}${a.approval_id === approval.approval_id ? ' sel' : ''}`, onClick: () => setSelected(a.approval_id), onKeyDown: (e) => {
                                if (e.key === 'Enter' || e.key === ' ') {
                                    e.preventDefault();
                                    setSelected(a.approval_id);
                                }
                            }, children: [_jsx("span", { class: `badge risk-${a.risk}`, children: a.risk }), _jsx("span", { class: "title", title: subjectOf(a), children: plainTitle(a.evidence.summary) }), a.count > 1 && _jsxs("span", { class: "count", children: ["\u00D7", a.count] }), _jsxs("span", { class: "sub", "data-testid": "prompt-run", title: `${visible(a.repo ?? a.evidence.cwd)}\n${runTitle(factsOf(runs, a.run_id))}`, children: [placeOf(a), " \u00B7 ", runWords(factsOf(runs, a.run_id), now), " \u00B7", ' ', _jsxs("span", { title: new Date(a.created_at).toLocaleString(), children: ["asked ", waitingSince(a.created_at, now), " ago"] })] }), _jsx(NotYours, { approval: a, me: me })] }, a.approval_id))) }), _jsxs("section", { class: "detail", "data-testid": "prompt-detail", "data-approval-id": approval.approval_id, children: [_jsxs("div", { class: "evidence-scroll", children: [_jsx("h2", { children: plainTitle(approval.evidence.summary) }), approval.decision === 'escalate' && (_jsxs("p", { class: "warn", children: ["Escalation: needs a ", roleWords(approval.required_role ?? null) ?? 'person with the required role', "."] })), stopped && (_jsx("p", { class: "stopped", "data-testid": "stopped-waiting", children: stopped })), may.progress && (_jsx("p", { class: "progress", "data-testid": "progress", children: visible(may.progress) })), _jsx(Evidence, { approval: approval, now: now, runs: runs })] }), may.decide ? (_jsx(Decide, { approval: approval, denyReasons: denyReasons, onDecided: decided, online: online }, approval.approval_id)) : (_jsxs("p", { class: "not-decidable decide-bar", children: ["Not yours to decide: ", _jsx("span", { "data-testid": "not-decidable", children: may.why })] }))] })] })] }));
}
/** The list's hint on a prompt this person may not decide ("needs platform_admin"). */
function NotYours({ approval, me }) {
    const may = decidability(approval, me);
    return may.decide ? null : (_jsx("span", { class: "sub", "data-testid": "prompt-why", children: may.why }));
}
function Decide({ approval, denyReasons, onDecided, online, }) {
    const [form, setForm] = useState(() => defaultForm(approval));
    const [error, setError] = useState(null);
    const [sending, setBusy] = useState(false);
    const busy = sending || !online;
    const [confirming, setConfirming] = useState(null);
    const reasonRef = useRef(null);
    const confirmRef = useRef(null);
    const set = (patch) => setForm((f) => ({ ...f, ...patch }));
    const deliberate = !oneAct(approval);
    const go = async (request) => {
        setBusy(true);
        setError(null);
        try {
            const answer = await api.decide(approval.approval_id, request);
            onDecided({ approval, request, grant: answer?.grant ?? null });
        }
        catch (err) {
            const e = err;
            setError(e.code === 'conflict' ? 'Already decided elsewhere.' : e.message);
        }
        finally {
            setBusy(false);
        }
    };
    const send = async (built, isDeny) => {
        if (!online) {
            setError('Assent is out of reach: nothing was decided.');
            return;
        }
        if ('error' in built) {
            setError(built.error);
            if (isDeny)
                reasonRef.current?.focus();
            return;
        }
        if (deliberate && built.ok.decision === 'approve') {
            // Not one act: say what will be granted and wait for a deliberate confirmation.
            setError(null);
            setConfirming({ request: built.ok, sentence: grantSentence(approval, built.ok, Date.now()) });
            return;
        }
        await go(built.ok);
    };
    useEffect(() => {
        if (confirming)
            confirmRef.current?.focus();
    }, [confirming]);
    useEffect(() => {
        const onShortcut = (event) => {
            const shortcut = event.detail;
            if (confirming)
                return; // a key never confirms: only the confirm button does
            void send(shortcutDecision(approval, form, shortcut), shortcut === 'deny');
        };
        const onEscape = (event) => {
            if (event.key === 'Escape' && confirming) {
                event.preventDefault();
                event.stopImmediatePropagation();
                setConfirming(null);
            }
        };
        window.addEventListener('assent-shortcut', onShortcut);
        window.addEventListener('keydown', onEscape, true);
        return () => {
            window.removeEventListener('assent-shortcut', onShortcut);
            window.removeEventListener('keydown', onEscape, true);
        };
    }, [approval, form, confirming]);
    const quick = quickChoices(approval);
    const longest = longestSeconds(approval, form.scope);
    const ellipsis = deliberate ? '…' : '';
    return (_jsxs("form", { class: "decide decide-bar", "data-testid": "decide", "data-deliberate": deliberate ? 'yes' : 'no', onSubmit: (e) => e.preventDefault(), children: [confirming ? (_jsxs("div", { class: "confirm", "data-testid": "confirm", role: "alertdialog", "aria-label": "Confirm the grant", children: [_jsxs("p", { children: [_jsxs("strong", { children: [approval.risk.toUpperCase(), " risk."] }), " This grants: ", _jsx("span", { "data-testid": "confirm-text", children: confirming.sentence })] }), _jsxs("div", { class: "buttons", children: [_jsx("button", { type: "button", ref: confirmRef, class: "grant", "data-testid": "confirm-grant", disabled: busy, onClick: () => void go(confirming.request), children: "Confirm: grant it" }), _jsxs("button", { type: "button", class: "plain", "data-testid": "confirm-cancel", onClick: () => setConfirming(null), children: ["Cancel ", _jsx("kbd", { children: "Esc" })] })] })] })) : (_jsxs(_Fragment, { children: [!online && (_jsx("p", { class: "sub deliberate", "data-testid": "offline-note", children: "Assent is out of reach: decisions wait until it is back." })), deliberate && (_jsxs("p", { class: "sub deliberate", "data-testid": "deliberate-note", children: [approval.risk === 'critical' ? 'Critical' : 'High', " risk: approving asks you to confirm what is granted."] })), _jsx("div", { class: "fields", children: _jsxs("label", { class: "grow", children: ["Reason", _jsx("input", { ref: reasonRef, "data-testid": "reason", placeholder: "required to deny; sent to the agent (Enter denies)", value: form.reason, onInput: (e) => set({ reason: e.currentTarget.value }), onKeyDown: (e) => {
                                        if (e.key === 'Enter') {
                                            e.preventDefault();
                                            void send(buildDenial(e.currentTarget.value), true);
                                        }
                                    } })] }) }), denyReasons.length > 0 && (_jsx("div", { class: "chips", "data-testid": "deny-reasons", "aria-label": "Deny with a reason", children: denyReasons.map((r) => (_jsxs("button", { type: "button", class: "chip-button", "data-testid": "deny-reason", disabled: busy, onClick: () => void send(buildDenial(r), true), children: ["Deny: ", r] }, r))) })), _jsxs("div", { class: "buttons", "data-testid": "quick-decisions", children: [quick.map((q) => (_jsxs("button", { type: "button", "data-testid": quickTestId(q), "data-seconds": q.expires_in_seconds, disabled: busy, title: `${SCOPE_LABELS[q.scope]}, for ${durationLabel(q.expires_in_seconds)}`, onClick: () => void send(quickApproval(approval, form, q), false), children: [deliberate ? quickLabel(q).replace(/^(.*?)( · |$)/, '$1…$2') : quickLabel(q), q.scope === 'once' && _jsx("kbd", { children: "a" }), q.scope === 'run' && _jsx("kbd", { children: "r" })] }, `${q.scope}-${q.expires_in_seconds}`))), _jsxs("button", { type: "button", class: "deny", "data-testid": "deny", disabled: busy, onClick: () => void send(buildDenial(form.reason), true), children: ["Deny ", _jsx("kbd", { children: "d" })] })] }), _jsxs("details", { class: "custom", children: [_jsxs("summary", { children: ["Another scope, expiry or use limit", form.maxUses.trim() !== '' ? ` (at most ${form.maxUses.trim()} uses)` : ''] }), _jsxs("div", { class: "fields", children: [_jsxs("label", { children: ["Max uses (every button)", _jsx("input", { "data-testid": "max-uses", inputMode: "numeric", placeholder: "no limit", value: form.maxUses, onInput: (e) => set({ maxUses: e.currentTarget.value }) })] }), _jsxs("label", { children: ["Scope", _jsx("select", { "data-testid": "scope", value: form.scope, onChange: (e) => set({ scope: e.currentTarget.value, customMinutes: '' }), children: approval.offered_scopes.map((s) => (_jsx("option", { value: s, children: SCOPE_LABELS[s] }, s))) })] }), _jsxs("label", { children: ["Expires after (minutes)", _jsx("input", { "data-testid": "custom-minutes", inputMode: "numeric", placeholder: longest === null ? '' : `up to ${Math.floor(longest / 60)}`, value: form.customMinutes, onInput: (e) => set({ customMinutes: e.currentTarget.value }) })] }), _jsxs("button", { type: "button", "data-testid": "approve", disabled: busy, onClick: () => void send(buildApproval(approval, form), false), children: ["Approve with scope", ellipsis] }), _jsx("span", { class: "sub", "data-testid": "expiry-limit", children: longest === null ? 'this scope is not offered' : `empty means ${durationLabel(longest)}, the longest the policy allows` })] })] })] })), error && (_jsx("p", { class: "error", "data-testid": "decide-error", children: error }))] }));
}
/** The once and run buttons keep the ids the keys and tests know them by. */
function quickTestId(quick) {
    if (quick.scope === 'once')
        return 'allow-once';
    if (quick.scope === 'run')
        return 'allow-run';
    return `quick-${quick.scope}`;
}
