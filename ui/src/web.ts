// The desk in a browser (`/desk/`): the same calls as the window's Tauri commands, made to the
// service itself with the session cookie (the page never holds a token). The snapshot is
// read again whenever the event stream says something changed.
import type { Approval, AuditEvent, AuditKeyInfo, AuditVerification, DecisionRequest, DecisionResponse, DeskEvent, DeskSnapshot, Grant, SettingsInput, SettingsView } from './types';
import type { CommandError, Insights, InsightEvent, Me, Metrics, PolicyChange, Suggestion, SuggestionApplied } from './types';
import type { components } from './api.gen';
import type { CampaignList } from './campaigns';
import type { PauseChoice } from './ipc.gen';
import { call } from './http';
import { EMPTY_DESK } from './desk';
import { assert } from './passkeys';
import type { CeremonyStart } from './types';

type Schemas = components['schemas'];

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

const q = (params: Record<string, string | number | null | undefined>) => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== null && value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
};

async function snapshot(): Promise<DeskSnapshot> {
  const [me, pending, grants, runs] = await Promise.all([
    call<Me>('GET', '/v1/me'),
    call<Schemas['ApprovalList']>('GET', '/v1/approvals?status=pending'),
    call<Schemas['GrantList']>('GET', '/v1/grants'),
    call<Schemas['RunList']>('GET', '/v1/runs?status=paused'),
  ]);
  const newest = <T,>(items: T[], at: (item: T) => string) => [...items].sort((a, b) => at(b).localeCompare(at(a)));
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
async function insights(since: Date): Promise<Insights> {
  const page = 10_000;
  const seen = new Set<string>();
  const events: InsightEvent[] = [];
  let from = since.toISOString();
  let complete = false;
  const metrics = await call<Metrics>('GET', '/v1/metrics');
  for (let round = 0; round < 5; round++) {
    const list = await call<Schemas['AuditList']>('GET', `/v1/audit${q({ since: from, limit: page })}`);
    let fresh = false;
    for (const event of list.events) {
      if (seen.has(event.event_id)) continue;
      seen.add(event.event_id);
      fresh = true;
      if (!COUNTED.has(event.decision)) continue;
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

function denyReasons(): string[] {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(REASONS_KEY) ?? 'null');
    if (Array.isArray(stored) && stored.every((r) => typeof r === 'string')) return stored as string[];
  } catch {
    // A reason list another version wrote: the defaults.
  }
  return DEFAULT_REASONS;
}

async function settings(): Promise<SettingsView> {
  let me: Me | null = null;
  try {
    me = await call<Me>('GET', '/v1/me');
  } catch {
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

async function saveSettings(input: SettingsInput): Promise<SettingsView> {
  if (input.deny_reasons) localStorage.setItem(REASONS_KEY, JSON.stringify(input.deny_reasons));
  return settings();
}

/** Follows the event stream; every change reads the snapshot again (at most one read at a time). */
function onDesk(handler: (event: DeskEvent) => void): Promise<() => void> {
  let source: EventSource | null = null;
  let reading = false;
  let again = false;
  let stopped = false;
  // What the desk showed last: a failed read keeps it on screen, marked out of reach.
  let last: DeskSnapshot = EMPTY_DESK;
  const read = async () => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    do {
      again = false;
      try {
        const fresh = await snapshot();
        last = { ...fresh, settled: await settledSince(last, fresh) };
        handler({ type: 'state', snapshot: last });
      } catch (err) {
        const error = err as CommandError;
        if (error.code === 'signed_out') {
          handler({ type: 'signed_out' });
          source?.close();
        } else {
          handler({ type: 'state', snapshot: failedRead(last, error) });
        }
      }
    } while (again && !stopped);
    reading = false;
  };
  const open = () => {
    source?.close();
    source = new EventSource('/v1/events', { withCredentials: true });
    for (const name of STREAM_EVENTS) source.addEventListener(name, () => void read());
    source.onopen = () => void read();
    source.onerror = () => {
      // The browser reconnects by itself (with Last-Event-ID); say so meanwhile.
      if (!stopped) void read();
    };
  };
  reconnect = open;
  open();
  return Promise.resolve(() => {
    stopped = true;
    source?.close();
  });
}

let reconnect: () => void = () => {};

/** How many settled prompts the desk keeps (the window's desk keeps as many). */
export const SETTLED_KEPT = 16;

/** The prompts that left the list between two reads, as the service settled them (who
 * decided, when), newest first before those known already; at most [`SETTLED_KEPT`]. A prompt
 * that cannot be read is left out: the detail then says only that it no longer waits. */
export async function settledSince(before: DeskSnapshot, now: DeskSnapshot, read = readApproval): Promise<Approval[]> {
  const still = new Set(now.pending.map((a) => a.approval_id));
  const gone = before.pending.filter((a) => !still.has(a.approval_id)).slice(0, SETTLED_KEPT);
  const settled = (await Promise.all(gone.map((a) => read(a.approval_id).catch(() => null)))).filter(
    (a): a is Approval => a !== null && a.status !== 'requested',
  );
  const known = (before.settled ?? []).filter((a) => !settled.some((s) => s.approval_id === a.approval_id));
  return [...settled, ...known].slice(0, SETTLED_KEPT);
}

const readApproval = (id: string) => call<Approval>('GET', `/v1/approvals/${encodeURIComponent(id)}`);

/** The desk as last read, while the service is out of reach: the prompts stay listed (nothing
 * can be decided while the link is down) instead of an empty queue that says nothing waits. */
export function unreachable(last: DeskSnapshot, reason: string): DeskSnapshot {
  return { ...last, link: { state: 'disconnected', reason } };
}

/** What the desk shows after a read failed: the last read while the service is out of reach;
 * nothing of it when the service answered with a refusal or an error (access may be gone). */
export function failedRead(last: DeskSnapshot, error: CommandError): DeskSnapshot {
  return unreachable(error.code === 'unavailable' ? last : EMPTY_DESK, error.message);
}


/** A decision; when the policy asks a passkey for this approval (`step_up_required`), the
 * browser asks for one made for it, and sends the decision again with the proof. */
async function decide(approvalId: string, decision: DecisionRequest): Promise<DecisionResponse> {
  const path = `/v1/approvals/${encodeURIComponent(approvalId)}`;
  try {
    return await call<DecisionResponse>('POST', `${path}/decision`, decision);
  } catch (err) {
    if ((err as CommandError).code !== 'step_up_required') throw err;
    const start = await call<CeremonyStart>('POST', `${path}/step-up`, {});
    const credential = await assert(start);
    return call<DecisionResponse>('POST', `${path}/decision`, { ...decision, step_up: { ceremony: start.ceremony, credential } });
  }
}

export const webApi = {
  snapshot,
  decide,
  revoke: (grantId: string, reason: string) => call<Grant>('POST', `/v1/grants/${encodeURIComponent(grantId)}/revoke`, { reason }),
  /** Already in the browser, which holds the passkey: the prompt's own page. */
  openStepUp: async (approvalId: string) => {
    window.location.hash = `#/pending/${encodeURIComponent(approvalId)}`;
  },
  resumeRun: async (runId: string) => {
    await call<unknown>('POST', `/v1/runs/${encodeURIComponent(runId)}/resume`, {});
  },
  audit: async (runId: string | null) => (await call<Schemas['AuditList']>('GET', `/v1/audit${q({ run_id: runId })}`)).events as AuditEvent[],
  denials: async (runId: string) =>
    (await call<Schemas['ApprovalList']>('GET', `/v1/runs/${encodeURIComponent(runId)}/denials`)).approvals as Approval[],
  forgetDenial: (approvalId: string) => call<Approval>('POST', `/v1/approvals/${encodeURIComponent(approvalId)}/forget`, {}),
  insights,
  suggestions: async (sinceDays: number) =>
    (await call<Schemas['SuggestionList']>('GET', `/v1/suggestions${q({ since_days: sinceDays })}`)).suggestions as Suggestion[],
  applySuggestion: (change: PolicyChange, sinceDays: number) =>
    call<SuggestionApplied>('POST', '/v1/suggestions/apply', { change, since_days: sinceDays }),
  pause: (_choice: PauseChoice) =>
    Promise.reject({ code: 'local', message: 'Pausing notifications is the tray app’s: this browser shows no notifications of its own.' } satisfies CommandError),
  settings,
  saveSettings,
  auditKey: () => call<AuditKeyInfo>('GET', '/v1/audit/key'),
  auditVerify: () => call<AuditVerification>('GET', '/v1/audit/verify'),
  retryService: () => {
    reconnect();
    return Promise.resolve();
  },
  closeWindow: () => Promise.resolve(),
  onDesk,
  campaigns: () => call<CampaignList>('GET', '/v1/campaigns'),
  campaignResume: (campaignId: string) => call<unknown>('POST', `/v1/campaigns/${encodeURIComponent(campaignId)}/resume`, {}),
};
