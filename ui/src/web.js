import { call } from './http';
import { EMPTY_DESK } from './logic';
import { assert } from './passkeys';
/** The deny reasons a browser keeps for itself (the tray app keeps its own in its settings). */
const REASONS_KEY = 'assent.deny_reasons';
const DEFAULT_REASONS = ['use the staging environment', 'out of scope', 'ask me first'];
/** Every event the service streams: each one may change what the desk shows. */
export const STREAM_EVENTS = [
    'approval.requested', 'approval.updated', 'approval.settled', 'approval.waiting',
    'grant.created', 'grant.used', 'grant.revoked', 'grant.expired', 'grant.invalidated',
    'run.ended', 'run.paused', 'run.resumed', 'policy.changed', 'credential.released',
    'campaign.updated', 'campaign.stopped', 'reset',
];
/** What the insights view counts (the rest of a busy audit is dropped as it arrives). */
const COUNTED = new Set(['auto', 'approved', 'denied', 'blocked', 'expired']);
const q = (params) => {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(params))
        if (value !== null && value !== undefined)
            search.set(key, String(value));
    const text = search.toString();
    return text ? `?${text}` : '';
};
async function snapshot() {
    const [me, pending, grants, runs] = await Promise.all([
        call('GET', '/v1/me'),
        call('GET', '/v1/approvals?status=pending'),
        call('GET', '/v1/grants'),
        call('GET', '/v1/runs?status=paused'),
    ]);
    const newest = (items, at) => [...items].sort((a, b) => at(b).localeCompare(at(a)));
    return {
        link: { state: 'connected' },
        me,
        pending: newest(pending.approvals, (a) => a.created_at),
        grants: newest(grants.grants, (g) => g.created_at),
        held_runs: newest(runs.runs, (r) => r.updated_at ?? ''),
        paused: null,
    };
}
/** The audit since `since`, a page at a time, trimmed to what the charts count. */
async function insights(since) {
    const page = 10_000;
    const seen = new Set();
    const events = [];
    let from = since.toISOString();
    let complete = false;
    const metrics = await call('GET', '/v1/metrics');
    for (let round = 0; round < 5; round++) {
        const list = await call('GET', `/v1/audit${q({ since: from, limit: page })}`);
        let fresh = false;
        for (const event of list.events) {
            if (seen.has(event.event_id))
                continue;
            seen.add(event.event_id);
            fresh = true;
            if (!COUNTED.has(event.decision))
                continue;
            const { timestamp, decision, run_id, approval_id, action_id, repo } = event;
            events.push({ timestamp, decision, run_id, approval_id, action_id, repo });
        }
        const last = list.events.at(-1);
        if (list.events.length < page || !fresh || !last) {
            complete = true;
            break;
        }
        from = last.timestamp;
    }
    return { metrics, since: since.toISOString(), events, complete };
}
function denyReasons() {
    try {
        const stored = JSON.parse(localStorage.getItem(REASONS_KEY) ?? 'null');
        if (Array.isArray(stored) && stored.every((r) => typeof r === 'string'))
            return stored;
    }
    catch {
        // A reason list another version wrote: the defaults.
    }
    return DEFAULT_REASONS;
}
async function settings() {
    let me = null;
    try {
        me = await call('GET', '/v1/me');
    }
    catch {
        me = null;
    }
    return {
        connected_url: window.location.origin,
        embedded: false,
        service_url: window.location.origin,
        has_token: false,
        notifications: false,
        autostart: false,
        me,
        deny_reasons: denyReasons(),
        env_overrides: [],
        service_warning: null,
        shell: 'browser',
    };
}
async function saveSettings(input) {
    if (input.deny_reasons)
        localStorage.setItem(REASONS_KEY, JSON.stringify(input.deny_reasons));
    return settings();
}
/** Follows the event stream; every change reads the snapshot again (at most one read at a time). */
function onDesk(handler) {
    let source = null;
    let reading = false;
    let again = false;
    let stopped = false;
    const read = async () => {
        if (reading) {
            again = true;
            return;
        }
        reading = true;
        do {
            again = false;
            try {
                handler({ type: 'state', snapshot: await snapshot() });
            }
            catch (err) {
                const error = err;
                if (error.code === 'signed_out') {
                    handler({ type: 'signed_out' });
                    source?.close();
                }
                else {
                    handler({ type: 'state', snapshot: { ...EMPTY_DESK, link: { state: 'disconnected', reason: error.message } } });
                }
            }
        } while (again && !stopped);
        reading = false;
    };
    const open = () => {
        source?.close();
        source = new EventSource('/v1/events', { withCredentials: true });
        for (const name of STREAM_EVENTS)
            source.addEventListener(name, () => void read());
        source.onopen = () => void read();
        source.onerror = () => {
            // The browser reconnects by itself (with Last-Event-ID); say so meanwhile.
            if (!stopped)
                void read();
        };
    };
    reconnect = open;
    open();
    return Promise.resolve(() => {
        stopped = true;
        source?.close();
    });
}
let reconnect = () => { };
/** A decision; when the policy asks a passkey for this approval (`step_up_required`), the
 * browser asks for one made for it, and sends the decision again with the proof. */
async function decide(approvalId, decision) {
    const path = `/v1/approvals/${encodeURIComponent(approvalId)}`;
    try {
        return await call('POST', `${path}/decision`, decision);
    }
    catch (err) {
        if (err.code !== 'step_up_required')
            throw err;
        const start = await call('POST', `${path}/step-up`, {});
        const credential = await assert(start);
        return call('POST', `${path}/decision`, { ...decision, step_up: { ceremony: start.ceremony, credential } });
    }
}
export const webApi = {
    snapshot,
    decide,
    revoke: (grantId, reason) => call('POST', `/v1/grants/${encodeURIComponent(grantId)}/revoke`, { reason }),
    resumeRun: async (runId) => {
        await call('POST', `/v1/runs/${encodeURIComponent(runId)}/resume`, {});
    },
    audit: async (runId) => (await call('GET', `/v1/audit${q({ run_id: runId })}`)).events,
    denials: async (runId) => (await call('GET', `/v1/runs/${encodeURIComponent(runId)}/denials`)).approvals,
    forgetDenial: (approvalId) => call('POST', `/v1/approvals/${encodeURIComponent(approvalId)}/forget`, {}),
    insights,
    suggestions: async (sinceDays) => (await call('GET', `/v1/suggestions${q({ since_days: sinceDays })}`)).suggestions,
    applySuggestion: (change, sinceDays) => call('POST', '/v1/suggestions/apply', { change, since_days: sinceDays }),
    pause: (_choice) => Promise.reject({ code: 'local', message: 'Pausing notifications is the tray app’s: this browser shows no notifications of its own.' }),
    settings,
    saveSettings,
    auditKey: () => call('GET', '/v1/audit/key'),
    auditVerify: () => call('GET', '/v1/audit/verify'),
    retryService: () => {
        reconnect();
        return Promise.resolve();
    },
    closeWindow: () => Promise.resolve(),
    onDesk,
    campaigns: () => call('GET', '/v1/campaigns'),
    campaignResume: (campaignId) => call('POST', `/v1/campaigns/${encodeURIComponent(campaignId)}/resume`, {}),
};
