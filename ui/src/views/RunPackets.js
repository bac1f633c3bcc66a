import { jsx as _jsx, Fragment as _Fragment, jsxs as _jsxs } from "preact/jsx-runtime";
// The credential, pre-run and fleet approvals' packets. Every text is the service's (already
// masked) and rendered as text, never markup.
import { visible } from '../logic';
import { capabilityReach, capabilityTtl, exceptionReach, fleetProgress, fleetStage } from '../packets';
function Item({ label, value, test }) {
    if (value === undefined || value === null || value === '')
        return null;
    return (_jsxs(_Fragment, { children: [_jsx("dt", { children: label }), _jsx("dd", { "data-testid": test, children: visible(value) })] }));
}
function List({ label, items, test }) {
    if (!items || items.length === 0)
        return null;
    return (_jsxs(_Fragment, { children: [_jsx("dt", { children: label }), _jsx("dd", { children: _jsx("ul", { "data-testid": test, children: items.map((item, i) => (_jsx("li", { children: visible(item) }, i))) }) })] }));
}
/** A capability request: what it opens, for how long, to which hosts — never the secret. */
export function CredentialView({ packet }) {
    return (_jsxs("section", { class: "packet", "data-testid": "ev-credential", children: [_jsxs("dl", { children: [_jsx(Item, { label: "Capability", value: packet.capability, test: "ev-capability" }), _jsx(Item, { label: "For", value: capabilityReach(packet), test: "ev-capability-reach" }), _jsx(Item, { label: "Lasts", value: capabilityTtl(packet), test: "ev-capability-ttl" }), _jsx(Item, { label: "Injected as", value: packet.inject_as, test: "ev-capability-env" }), _jsx(Item, { label: "Why", value: packet.reason, test: "ev-capability-reason" }), _jsx(Item, { label: "The agent sees", value: packet.agent_visibility, test: "ev-capability-visibility" })] }), _jsx("p", { class: "sub", children: "Revoking stops later uses; a process already running keeps the value it was given." })] }));
}
/** A run that asks before it starts: the task, where it goes, what it expects to do. */
export function PreRunView({ packet }) {
    return (_jsx("section", { class: "packet", "data-testid": "ev-pre-run", children: _jsxs("dl", { children: [_jsx(Item, { label: "Task", value: packet.task, test: "ev-task" }), _jsx(Item, { label: "Task risk", value: packet.task_risk, test: "ev-task-risk" }), _jsx(Item, { label: "Campaign", value: packet.campaign, test: "ev-task-campaign" }), _jsx(List, { label: "Repositories", items: packet.repos, test: "ev-task-repos" }), _jsx(List, { label: "Expected actions", items: packet.expected_actions, test: "ev-task-expected" }), _jsx(List, { label: "Credentials", items: packet.expected_credentials, test: "ev-task-credentials" }), _jsx(Item, { label: "Remote changes", value: packet.remote_mutation, test: "ev-task-remote" }), _jsx(List, { label: "Asked because", items: packet.triggers, test: "ev-task-triggers" })] }) }));
}
/** A fleet campaign's definition or one of its stages, with its stop policy and progress. */
export function FleetView({ packet }) {
    return (_jsxs("section", { class: "packet", "data-testid": "ev-fleet", children: [_jsxs("dl", { children: [_jsx(Item, { label: "Campaign", value: packet.campaign, test: "ev-fleet-campaign" }), _jsx(Item, { label: "Approving", value: fleetStage(packet), test: "ev-fleet-stage" }), _jsx(List, { label: "This batch", items: packet.batch, test: "ev-fleet-batch" }), _jsx(Item, { label: "Progress", value: fleetProgress(packet), test: "ev-fleet-progress" }), _jsx(Item, { label: "Stop policy", value: packet.stop_policy, test: "ev-fleet-stop" }), _jsx(Item, { label: "Targets", value: packet.target_repos.join(', '), test: "ev-fleet-targets" }), _jsx(Item, { label: "Selection", value: packet.selection_criteria }), _jsx(Item, { label: "Excluded", value: (packet.excluded_repos ?? []).join(', ') }), _jsx(Item, { label: "Verifier", value: packet.verifier_profile }), _jsx(Item, { label: "Cost estimate", value: packet.cost_estimate }), _jsx(Item, { label: "Owners told", value: packet.owner_notification })] }), _jsxs("details", { children: [_jsx("summary", { children: "Prompt contract, sample diff and PR body" }), _jsx("pre", { "data-testid": "ev-fleet-contract", children: visible(packet.prompt_contract) }), _jsx("pre", { class: "diff", children: visible(packet.sample_diff) }), _jsx("pre", { children: visible(packet.expected_pr_body) })] })] }));
}
/** An exception: the rule it goes past, what the rule found, where and for how long, and why. */
export function ExceptionView({ packet }) {
    return (_jsxs("section", { class: "packet", "data-testid": "ev-exception", children: [_jsxs("dl", { children: [_jsx(Item, { label: "Exception to", value: packet.rules.join(', '), test: "ev-exception-rule" }), _jsx(Item, { label: "The rule found", value: packet.finding, test: "ev-exception-finding" }), _jsx(Item, { label: "Holds for", value: exceptionReach(packet), test: "ev-exception-reach" }), _jsx(Item, { label: "Why", value: packet.reason, test: "ev-exception-reason" }), _jsx(Item, { label: (packet.hosts ?? []).length > 0 ? 'Asked with' : 'Covers', value: packet.covered_command, test: "ev-exception-command" })] }), _jsx("p", { class: "sub", children: "Longer or wider than a normal grant: a security reviewer decides. It is revocable like any grant." })] }));
}
