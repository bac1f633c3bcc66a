import { jsx as _jsx, jsxs as _jsxs } from "preact/jsx-runtime";
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { DAYS } from '../insights';
import { visible } from '../logic';
import { canApply, changeText, outcomeText, suggestionRows } from '../suggestions';
/** Policy changes proposed from what people decided, each with its evidence, applied by one click. */
export function Suggestions({ reload }) {
    const [listed, setListed] = useState(null);
    const [error, setError] = useState(null);
    const [outcomes, setOutcomes] = useState(new Map());
    const latest = useRef(0);
    const load = () => {
        const call = ++latest.current;
        return api
            .suggestions(DAYS)
            .then((answer) => {
            if (call !== latest.current)
                return;
            setListed(answer);
            setError(null);
        })
            .catch((err) => {
            if (call === latest.current)
                setError(err.message);
        });
    };
    useEffect(() => void load(), [reload]);
    const settle = (suggestion, outcome) => setOutcomes((before) => new Map(before).set(suggestion.id, { suggestion, outcome }));
    const apply = (suggestion) => {
        settle(suggestion, { state: 'applying' });
        api
            .applySuggestion(suggestion.change, DAYS)
            .then((answer) => settle(suggestion, { state: 'applied', answer }))
            .catch((err) => settle(suggestion, { state: 'error', error: err }))
            .finally(() => void load());
    };
    const rows = listed ? suggestionRows(listed, outcomes) : [];
    return (_jsxs("section", { class: "suggestions", "data-testid": "suggestions", children: [_jsx("h2", { children: "Suggestions" }), error && (_jsx("p", { class: "error", "data-testid": "suggestions-error", children: error })), listed && rows.length === 0 && (_jsx("p", { class: "empty", "data-testid": "suggestions-empty", children: `No suggestion: in the last ${DAYS} days no verifier was always approved in a repo, and no command always denied.` })), rows.map((row) => (_jsxs("div", { class: "suggestion", "data-testid": "suggestion", "data-suggestion-id": row.suggestion.id, "data-change": row.suggestion.change.change, children: [_jsxs("div", { children: [_jsx("strong", { "data-testid": "suggestion-change", children: changeText(row.suggestion.change) }), _jsx("p", { class: "sub", "data-testid": "suggestion-evidence", children: visible(row.suggestion.evidence) }), row.outcome && (_jsx("p", { class: row.outcome.state === 'error' ? 'error' : 'done', "data-testid": "suggestion-outcome", "data-outcome": row.outcome.state, children: outcomeText(row.outcome) }))] }), row.listed && (_jsx("button", { "data-testid": "suggestion-apply", disabled: !canApply(row), onClick: () => apply(row.suggestion), children: "Apply" }))] }, row.suggestion.id)))] }));
}
