// The desk's calls, in two shells: in the Tauri window, one command (`desk_call`) taking a
// `WindowCall` and the app's one event channel (the approver token stays in Rust); in a
// browser (`/desk/`), the service's own API with the session cookie (`web.ts`). The views call
// `api` and never know which.
import { invoke } from '@tauri-apps/api/core';
import { listen, type UnlistenFn } from '@tauri-apps/api/event';
import type { Approval, AuditEvent, AuditKeyInfo, AuditVerification, DecisionRequest, DecisionResponse, DeskEvent, DeskSnapshot, Grant, SettingsInput, SettingsView } from './types';
import type { Insights, PolicyChange, Suggestion, SuggestionApplied } from './types';
import type { CampaignList } from './campaigns';
import { DESK_EVENT, type PauseChoice, type WindowCall } from './ipc.gen';
import { webApi } from './web';

/** Whether the page runs in the Tauri window (else in a browser, served at `/desk/`). */
export const inWindow = typeof window !== 'undefined' && '__TAURI_INTERNALS__' in window;

/** One call to the desk: the window parses it as a `WindowCall` (`ipc.gen.ts`, generated from
 * the Rust type) and the tray process answers it. */
const call = <T>(call: WindowCall) => invoke<T>('desk_call', { call });

const windowApi = {
  snapshot: () => call<DeskSnapshot>({ command: 'desk_snapshot' }),
  /** The service's answer: the approval and, when something was granted, the grant (for Undo). */
  decide: (approvalId: string, decision: DecisionRequest) =>
    call<DecisionResponse>({ command: 'approval_decide', args: { approval_id: approvalId, decision } }),
  /** The revoked grant, with how often it was used before. */
  revoke: (grantId: string, reason: string) =>
    call<Grant>({ command: 'grant_revoke', args: { grant_id: grantId, reason } }),
  resumeRun: (runId: string) => call<void>({ command: 'run_resume', args: { run_id: runId } }),
  /** A prompt the policy's step-up holds: the tray opens its page in the person's browser. */
  openStepUp: (approvalId: string) => call<void>({ command: 'step_up_open', args: { approval_id: approvalId } }),
  audit: (runId: string | null) => call<AuditEvent[]>({ command: 'audit_list', args: { run_id: runId } }),
  /** A run's remembered denials (each answers equivalent requests without asking). */
  denials: (runId: string) => call<Approval[]>({ command: 'denial_list', args: { run_id: runId } }),
  /** Undo a remembered denial: the next equivalent request asks again. */
  forgetDenial: (approvalId: string) =>
    call<Approval>({ command: 'denial_forget', args: { approval_id: approvalId } }),
  insights: (since: Date) => call<Insights>({ command: 'insights_get', args: { since: since.toISOString() } }),
  /** Policy changes proposed from the decisions of the last `sinceDays` days. */
  suggestions: (sinceDays: number) =>
    call<Suggestion[]>({ command: 'suggestions_get', args: { since_days: sinceDays } }),
  /** Write one suggested change into the service's policy file; in force at once. */
  applySuggestion: (change: PolicyChange, sinceDays: number) =>
    call<SuggestionApplied>({ command: 'suggestion_apply', args: { change, since_days: sinceDays } }),
  pause: (choice: PauseChoice) => call<void>({ command: 'pause_set', args: { choice } }),
  settings: () => call<SettingsView>({ command: 'settings_get' }),
  /** The public key checking the audit's signed checkpoints, and its fingerprint. */
  auditKey: () => call<AuditKeyInfo>({ command: 'audit_key_get' }),
  /** The service walks its audit chain: where it breaks, or how much of it holds. */
  auditVerify: () => call<AuditVerification>({ command: 'audit_verify' }),
  saveSettings: (input: SettingsInput) => call<SettingsView>({ command: 'settings_save', args: { input } }),
  /** Reconnect to the service now instead of after the backoff. */
  retryService: () => call<void>({ command: 'service_retry' }),
  closeWindow: () => invoke<void>('window_close'),
  onDesk: (handler: (event: DeskEvent) => void): Promise<UnlistenFn> =>
    listen<DeskEvent>(DESK_EVENT, (event) => handler(event.payload)),
  campaigns: () => call<CampaignList>({ command: 'campaign_list' }),
  campaignResume: (campaignId: string) =>
    call<unknown>({ command: 'campaign_resume', args: { campaign_id: campaignId } }),
};

export type DeskApi = typeof windowApi;

export const api: DeskApi = inWindow ? windowApi : webApi;
