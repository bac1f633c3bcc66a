// The desk's calls, in two shells: in the Tauri window, the app's commands and its one event
// channel (the approver token stays in Rust); in a browser (`/desk/`), the service's own API
// with the session cookie (`web.ts`). The views call `api` and never know which.
import { invoke } from '@tauri-apps/api/core';
import { listen, type UnlistenFn } from '@tauri-apps/api/event';
import type { Approval, AuditEvent, AuditKeyInfo, AuditVerification, DecisionRequest, DecisionResponse, DeskEvent, DeskSnapshot, Grant, SettingsInput, SettingsView } from './types';
import type { Insights, PolicyChange, Suggestion, SuggestionApplied } from './types';
import type { CampaignList } from './campaigns';
import { webApi } from './web';

export const DESK_EVENT = 'assent:desk';

/** Whether the page runs in the Tauri window (else in a browser, served at `/desk/`). */
export const inWindow = typeof window !== 'undefined' && '__TAURI_INTERNALS__' in window;

const windowApi = {
  snapshot: () => invoke<DeskSnapshot>('desk_snapshot'),
  /** The service's answer: the approval and, when something was granted, the grant (for Undo). */
  decide: (approvalId: string, decision: DecisionRequest) =>
    invoke<DecisionResponse>('approval_decide', { approvalId, decision }),
  /** The revoked grant, with how often it was used before. */
  revoke: (grantId: string, reason: string) => invoke<Grant>('grant_revoke', { grantId, reason }),
  resumeRun: (runId: string) => invoke<void>('run_resume', { runId }),
  /** A prompt the policy's step-up holds: the tray opens its page in the person's browser. */
  openStepUp: (approvalId: string) => invoke<void>('step_up_open', { approvalId }),
  audit: (runId: string | null) => invoke<AuditEvent[]>('audit_list', { runId }),
  /** A run's remembered denials (each answers equivalent requests without asking). */
  denials: (runId: string) => invoke<Approval[]>('denial_list', { runId }),
  /** Undo a remembered denial: the next equivalent request asks again. */
  forgetDenial: (approvalId: string) => invoke<Approval>('denial_forget', { approvalId }),
  insights: (since: Date) => invoke<Insights>('insights_get', { since: since.toISOString() }),
  /** Policy changes proposed from the decisions of the last `sinceDays` days. */
  suggestions: (sinceDays: number) => invoke<Suggestion[]>('suggestions_get', { sinceDays }),
  /** Write one suggested change into the service's policy file; in force at once. */
  applySuggestion: (change: PolicyChange, sinceDays: number) =>
    invoke<SuggestionApplied>('suggestion_apply', { change, sinceDays }),
  pause: (choice: 'half_hour' | 'hour' | 'until_resumed' | 'resume') => invoke<void>('pause_set', { choice }),
  settings: () => invoke<SettingsView>('settings_get'),
  /** The public key checking the audit's signed checkpoints, and its fingerprint. */
  auditKey: () => invoke<AuditKeyInfo>('audit_key_get'),
  /** The service walks its audit chain: where it breaks, or how much of it holds. */
  auditVerify: () => invoke<AuditVerification>('audit_verify'),
  saveSettings: (input: SettingsInput) => invoke<SettingsView>('settings_save', { input }),
  /** Reconnect to the service now instead of after the backoff. */
  retryService: () => invoke<void>('service_retry'),
  /** Close the window (Esc, Ctrl+W); the desk stays in the tray. */
  closeWindow: () => invoke<void>('window_close'),
  onDesk: (handler: (event: DeskEvent) => void): Promise<UnlistenFn> =>
    listen<DeskEvent>(DESK_EVENT, (event) => handler(event.payload)),
  campaigns: () => invoke<CampaignList>('campaign_list'),
  campaignResume: (campaignId: string) => invoke<unknown>('campaign_resume', { campaignId }),
};

export type DeskApi = typeof windowApi;

export const api: DeskApi = inWindow ? windowApi : webApi;
