import { jsx as _jsx, jsxs as _jsxs } from "preact/jsx-runtime";
import { useState } from 'preact/hooks';
import { api } from '../api';
import { factsOf, heldRunWords, knownRuns, runTitle } from '../words';
/**
 * Runs paused because nobody answered a prompt in time: the agent waits until a person
 * resumes. Each named by its agent and when the window first saw it, from the prompts in
 * `pending` (a paused run's prompt may still be there).
 */
export function HeldRuns({ runs, pending = [] }) {
    const [error, setError] = useState(null);
    if (runs.length === 0)
        return null;
    const now = Date.now();
    const known = knownRuns(pending);
    const resume = async (run) => {
        setError(null);
        try {
            await api.resumeRun(run.run_id);
        }
        catch (err) {
            setError(err.message);
        }
    };
    return (_jsxs("section", { class: "held-runs", "data-testid": "held-runs", children: [_jsx("h2", { children: "Paused runs" }), error && _jsx("p", { class: "error", children: error }), _jsx("ul", { children: runs.map((run) => (_jsxs("li", { "data-testid": `held-${run.run_id}`, children: [_jsx("span", { title: runTitle(factsOf(known, run.run_id)), children: heldRunWords(factsOf(known, run.run_id), run.reason, run.updated_at, now) }), _jsx("button", { type: "button", "data-testid": `resume-${run.run_id}`, onClick: () => resume(run), children: "Resume run" })] }, run.run_id))) })] }));
}
