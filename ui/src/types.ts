// The wire types are generated from the service's OpenAPI document (ui/openapi.json →
// api.gen.ts, `npm run gen`); these are their short names. The desk's Tauri commands forward
// the same protocol JSON. Only the desk's own shapes (snapshot, link, settings) are written here.
import type { components } from './api.gen';
import type { CommandErrorCode, DeskEvent as LinkEvent } from './ipc.gen';

/** What the window may change (`settings_save`): the window link's type. */
export type { SettingsInput } from './ipc.gen';

type Schemas = components['schemas'];

export type Risk = Schemas['RiskLevel'];
export type Scope = Schemas['ScopeKind'];
export type ActionKind = Schemas['ActionKind'];
export type Role = Schemas['Role'];
export type ApprovalType = Schemas['ApprovalType'];
export type Evidence = Schemas['ApprovalEvidence'];
export type DiffPacket = Schemas['DiffPacket'];
export type DiffFile = Schemas['DiffFile'];
export type DiffFlag = Schemas['DiffFlag'];
export type PrPacket = Schemas['PrPacket'];
export type CredentialPacket = Schemas['CredentialPacket'];
export type PreRunPacket = Schemas['PreRunPacket'];
export type FleetPacket = Schemas['FleetPacket'];
export type ExceptionPacket = Schemas['ExceptionPacket'];
export type DiffApprovalRef = Schemas['DiffApprovalRef'];
export type DiffApprovalState = Schemas['DiffApprovalState'];
export type Member = Schemas['ApprovalMember'];
/** One person's approval of a prompt that needs more than one (`approvals`). */
export type ApprovalVote = Schemas['ApprovalVote'];
/** One approval a person may take in one click, bounded by the policy's lifetimes. */
export type QuickDecision = Schemas['QuickDecision'];
/** How a settled approval ended. */
export type Resolution = Schemas['Resolution'];
export type Approval = Schemas['Approval'];
/** What a prompt asks, in words, made once by the service (`words`): the headline the
 * notification asks, a typed packet's lines, a diff's flags. Raw text: shown through `visible`. */
export type PromptWords = Schemas['PromptWords'];
/** The model reviewer's part of a prompt (`review`). */
export type ApprovalReview = Schemas['ApprovalReview'];
export type Constraints = Schemas['GrantConstraints'];
export type GrantStatus = Schemas['GrantStatus'];
export type Grant = Schemas['Grant'];
export type AuditDecision = Schemas['AuditDecision'];
export type AuditEvent = Schemas['ApprovalAuditEvent'];
/** `GET /v1/audit/key`: the public key checking the audit's checkpoints, and its fingerprint. */
export type AuditKeyInfo = Schemas['AuditKeyInfo'];
/** `GET /v1/audit/verify`: the chain walked, with the key it was checked with. */
export type AuditVerification = Schemas['AuditVerification'];
export type AuditReport = Schemas['Report'];
/** One place where the audit does not hold (by `kind`). */
export type AuditBreak = Schemas['Break'];
/** `GET /v1/me`: who the desk's token belongs to, with the roles the service holds for them. */
export type Me = Schemas['Me'];
/** A run held by a timeout fallback (`GET /v1/runs?status=paused`). */
export type RunState = Schemas['RunState'];
export type DecisionRequest = Schemas['DecisionRequest'];
/** What a decision answers: the approval and the grant it made, if any. */
export type DecisionResponse = Schemas['DecisionResponse'];
/** Seconds from a prompt opening to a person's decision. */
export type DecisionTimes = Schemas['DecisionTimes'];
/** How the prompts of one policy rule or command profile went. */
export type PromptStats = Schemas['PromptStats'];
/** `GET /v1/metrics`: totals since the service started. */
export type Metrics = Schemas['Metrics'];
/** A change `suggestion_apply` writes into the service's policy file. */
export type PolicyChange = Schemas['PolicyChange'];
/** `suggestions_get`: a policy change proposed from what people decided, with its evidence. */
export type Suggestion = Schemas['Suggestion'];
/** `suggestion_apply`: the policy now in force. */
export type SuggestionApplied = Schemas['SuggestionApplied'];

export type Link = { state: 'connecting' } | { state: 'connected' } | { state: 'disconnected'; reason: string };

export interface DeskSnapshot {
  link: Link;
  /** Who the desk signs in as; null until the service answered. */
  me: Me | null;
  pending: Approval[];
  grants: Grant[];
  /** Runs paused by an unanswered prompt, most recently paused first. */
  held_runs: RunState[];
  paused: string | null;
  /** Prompts settled lately (newest first), as the service settled them: who decided, when.
   * The detail says so of a prompt that left while on screen. Absent from older desks. */
  settled?: Approval[];
}

/** What the desk hears: a new state, a prompt to show (a notification's press), or — in a
 * browser — that the session ended. The first two are the window link's (`ipc.gen.ts`). */
export type DeskEvent = LinkEvent<DeskSnapshot> | { type: 'signed_out' };

/** Why a call failed: the window link's codes (`ipc.gen.ts`), and in a browser also
 * `signed_out` (the session ended, or never began: sign in again) and `step_up_required`
 * (approving this needs a passkey made for it, `[approvals] step_up`). */
export interface CommandError {
  code: CommandErrorCode | 'signed_out' | 'step_up_required';
  message: string;
}

export interface SettingsView {
  connected_url: string;
  embedded: boolean;
  service_url: string;
  has_token: boolean;
  notifications: boolean;
  autostart: boolean;
  /** Who the service says the desk signs in as (roles are granted by an admin, not set here). */
  me: Me | null;
  /** The deny reasons offered in one tap. */
  deny_reasons: string[];
  /** `ASSENT_URL` / `ASSENT_TOKEN` set in the environment (both set: they win over these settings). */
  env_overrides: string[];
  /** Why part of the configured service is not used (a saved URL without a token…); null when all of it is. */
  service_warning: string | null;
  /** In the answer to a save only: why "start at login" could not be changed (the rest was saved). */
  autostart_error?: string;
  /** `browser`: the desk at `/desk/` (no tray, no token, no notifications of its own). */
  shell?: 'window' | 'browser';
}

/** An audited decision trimmed to what the Insights charts count. */
export type InsightEvent = Pick<AuditEvent, 'timestamp' | 'decision' | 'run_id' | 'approval_id' | 'action_id' | 'repo' | 'approver'> & {
  /** On a `reviewed` event: what the reviewer's call came to (its rationale stays in History). */
  review?: { state: string; outcome?: string | null } | null;
};

/** `insights_get`: the metrics, and the audit's prompt decisions since `since` (oldest first). */
export interface Insights {
  metrics: Metrics;
  since: string;
  events: InsightEvent[];
  /** False when the audit held more than one view reads: the newest days are missing. */
  complete: boolean;
}


/** One of a person's passkeys (never its key). */
export type PasskeyInfo = Schemas['PasskeyInfo'];
export type Invite = Schemas['Invite'];
export type CeremonyStart = Schemas['CeremonyStart'];
export type Enrolled = Schemas['Enrolled'];
export type PushKey = Schemas['PushKey'];
export type PushSubscriptionInfo = Schemas['PushSubscriptionInfo'];
