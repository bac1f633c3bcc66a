// The desk's calls, in two shells: in the Tauri window, the app's commands and its one event
// channel (the approver token stays in Rust); in a browser (`/desk/`), the service's own API
// with the session cookie (`web.ts`). The views call `api` and never know which.
import { invoke } from '@tauri-apps/api/core';
import { listen } from '@tauri-apps/api/event';
import { webApi } from './web';
export const DESK_EVENT = 'assent:desk';
/** Whether the page runs in the Tauri window (else in a browser, served at `/desk/`). */
export const inWindow = typeof window !== 'undefined' && '__TAURI_INTERNALS__' in window;
const windowApi = {
    snapshot: () => invoke('desk_snapshot'),
    /** The service's answer: the approval and, when something was granted, the grant (for Undo). */
    decide: (approvalId, decision) => invoke('approval_decide', { approvalId, decision }),
    /** The revoked grant, with how often it was used before. */
    revoke: (grantId, reason) => invoke('grant_revoke', { grantId, reason }),
    resumeRun: (runId) => invoke('run_resume', { runId }),
    audit: (runId) => invoke('audit_list', { runId }),
    /** A run's remembered denials (each answers equivalent requests without asking). */
    denials: (runId) => invoke('denial_list', { runId }),
    /** Undo a remembered denial: the next equivalent request asks again. */
    forgetDenial: (approvalId) => invoke('denial_forget', { approvalId }),
    insights: (since) => invoke('insights_get', { since: since.toISOString() }),
    /** Policy changes proposed from the decisions of the last `sinceDays` days. */
    suggestions: (sinceDays) => invoke('suggestions_get', { sinceDays }),
    /** Write one suggested change into the service's policy file; in force at once. */
    applySuggestion: (change, sinceDays) => invoke('suggestion_apply', { change, sinceDays }),
    pause: (choice) => invoke('pause_set', { choice }),
    settings: () => invoke('settings_get'),
    /** The public key checking the audit's signed checkpoints, and its fingerprint. */
    auditKey: () => invoke('audit_key_get'),
    /** The service walks its audit chain: where it breaks, or how much of it holds. */
    auditVerify: () => invoke('audit_verify'),
    saveSettings: (input) => invoke('settings_save', { input }),
    /** Reconnect to the service now instead of after the backoff. */
    retryService: () => invoke('service_retry'),
    /** Close the window (Esc, Ctrl+W); the desk stays in the tray. */
    closeWindow: () => invoke('window_close'),
    onDesk: (handler) => listen(DESK_EVENT, (event) => handler(event.payload)),
    campaigns: () => invoke('campaign_list'),
    campaignResume: (campaignId) => invoke('campaign_resume', { campaignId }),
};
export const api = inWindow ? windowApi : webApi;
