// Generated from crates/assent-ipc by ts-rs: do not edit. Regenerate with `cd ui && npm run gen`;
// the test `typescript::tests::the_committed_file_is_fresh` (cargo test -p assent-ipc) fails
// when this file is stale. The protocol's types come from the service's OpenAPI document.
import type { components } from './api.gen';

type DecisionRequest = components['schemas']['DecisionRequest'];
type PolicyChange = components['schemas']['PolicyChange'];

/**
 * A command the page invokes, forwarded by the window to the desk as it came. Anything else
 * (an unknown command, a missing or mistyped argument) does not parse and reaches nobody.
 */
export type WindowCall = { "command": "desk_snapshot" } | { "command": "approval_decide", "args": { approval_id: string, decision: DecisionRequest, } } | { "command": "grant_revoke", "args": { grant_id: string, reason: string, } } | { "command": "run_resume", "args": { run_id: string, } } | { "command": "campaign_list" } | { "command": "campaign_resume", "args": { campaign_id: string, } } | { "command": "audit_list", "args": { run_id: string | null, } } | { "command": "denial_list", "args": { run_id: string, } } | { "command": "denial_forget", "args": { approval_id: string, } } | { "command": "insights_get", "args": { since: string, } } | { "command": "suggestions_get", "args": { since_days: number, } } | { "command": "suggestion_apply", "args": { change: PolicyChange, since_days: number, } } | { "command": "pause_set", "args": { choice: PauseChoice, } } | { "command": "settings_get" } | { "command": "audit_key_get" } | { "command": "audit_verify" } | { "command": "settings_save", "args": { input: SettingsInput, } } | { "command": "service_retry" } | { "command": "step_up_open", "args": { approval_id: string, } };

/**
 * What the window may change. `token: None` keeps the stored token; `Some("")` clears it.
 */
export type SettingsInput = { service_url: string, token: string | null, notifications: boolean, autostart: boolean, 
/**
 * The deny reasons offered in one tap, one per entry; absent keeps them.
 */
deny_reasons?: Array<string>, };

/**
 * "Pause notifications", as the person picked it (tray menu or window): 30 min, 1 h, until
 * resumed, or resume now.
 */
export type PauseChoice = "half_hour" | "hour" | "until_resumed" | "resume";

/** The one event channel from the desk to the page. */
export const DESK_EVENT = "assent:desk";

/**
 * Every event on [`DESK_EVENT`]. `S` is the desk's snapshot (`assent_desktop::desk::
 * DeskSnapshot`, whose page side is written in `ui/src/types.ts`); the window only ever sends
 * [`DeskEvent::Focus`] itself and passes the desk's events on as they came.
 */
export type DeskEvent<S> = { "type": "state", snapshot: S, } | { "type": "focus", approval_id: string, };

/**
 * Why a command failed. The page branches on `code`, never on `message`.
 */
export type CommandError = { code: CommandErrorCode, message: string, };

export type CommandErrorCode = "invalid" | "unavailable" | "conflict" | "refused" | "local";
