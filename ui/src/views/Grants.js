import { jsx as _jsx, jsxs as _jsxs } from "preact/jsx-runtime";
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { constraintLines, countdown, pastStatus, splitGrants, usesLabel, visible } from '../logic';
import { grantEnd, isException } from '../packets';
import { byWords, grantLine } from '../words';
const REVOKE_REASONS = ['No longer needed', 'Too broad', 'Run finished', 'Suspicious use'];
export function Grants({ grants }) {
    const [now, setNow] = useState(Date.now());
    const [reason, setReason] = useState(REVOKE_REASONS[0]);
    const [error, setError] = useState(null);
    const { active, past } = splitGrants(grants, now);
    // The countdown ticks only while this view is open and something can expire.
    useEffect(() => {
        if (active.length === 0)
            return;
        const timer = window.setInterval(() => setNow(Date.now()), 1000);
        return () => window.clearInterval(timer);
    }, [active.length]);
    const revoke = async (grant) => {
        setError(null);
        try {
            await api.revoke(grant.grant_id, reason);
        }
        catch (err) {
            setError(err.message);
        }
    };
    return (_jsxs("div", { class: "grants", children: [_jsxs("div", { class: "revoke-reason", children: [_jsxs("label", { children: ["Revoke reason", _jsx("select", { "data-testid": "revoke-reason", value: reason, onChange: (e) => setReason(e.currentTarget.value), children: REVOKE_REASONS.map((r) => (_jsx("option", { children: r }, r))) })] }), error && _jsx("span", { class: "error", children: error })] }), _jsx("h2", { children: "Active" }), active.length === 0 && (_jsx("p", { class: "empty", "data-testid": "grants-empty", children: "No active grants. An approval for a run, a profile or some paths shows here until it expires, with Revoke." })), _jsx("table", { children: _jsx("tbody", { "data-testid": "grants-active", children: active.map((g) => (_jsxs("tr", { "data-testid": "grant", "data-grant-id": g.grant_id, "data-status": "active", children: [_jsxs("td", { children: [_jsx("strong", { "data-testid": "grant-line", children: grantLine(g.summary, g.expires_at, g.used_count, g.max_uses, now) }), _jsxs("div", { class: "sub", "data-testid": "granted-by", children: ["by ", byWords(g.created_by, g.created_by_role)] }), _jsxs("details", { class: "more-info", children: [_jsx("summary", { children: "Details" }), _jsx("div", { class: "sub", children: constraintLines(g).map(visible).join(' · ') }), _jsxs("div", { class: "sub", children: ["grant ", visible(g.grant_id)] })] }), isException(g) && _jsxs("div", { class: "sub warn", "data-testid": "exception-note", children: ["exception: goes past ", visible((g.constraints.exception_rules ?? []).join(', ')), " in ", visible(g.constraints.repo ?? ''), (g.constraints.hosts ?? []).length > 0 ? ` for ${visible((g.constraints.hosts ?? []).join(', '))}` : ''] }), g.action_kinds.includes('credential') && _jsx("div", { class: "sub", "data-testid": "credential-note", children: "Revoke stops later uses; a process already running keeps the secret it got." })] }), _jsx("td", { "data-testid": "scope", children: g.scope_kind }), _jsx("td", { "data-testid": "countdown", class: "countdown", children: countdown(g.expires_at, now) }), _jsx("td", { "data-testid": "uses", children: usesLabel(g) }), _jsx("td", { children: g.revocable && (_jsx("button", { "data-testid": "revoke", class: "deny", onClick: () => void revoke(g), children: "Revoke" })) })] }, g.grant_id))) }) }), _jsx("h2", { children: "Expired, revoked and invalidated" }), _jsx("table", { class: "past", children: _jsx("tbody", { "data-testid": "grants-past", children: past.map((g) => (_jsxs("tr", { "data-testid": "grant", "data-grant-id": g.grant_id, "data-status": pastStatus(g), children: [_jsx("td", { children: visible(g.summary) }), _jsx("td", { children: g.scope_kind }), _jsx("td", { "data-testid": "grant-status", children: pastStatus(g) }), _jsx("td", { children: usesLabel(g) }), _jsx("td", { class: "sub", "data-testid": "grant-end", children: visible(grantEnd(g)) })] }, g.grant_id))) }) })] }));
}
