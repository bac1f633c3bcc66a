// Wire types as the desktop app's Rust side sends them (assent-protocol JSON).

export type Risk = 'low' | 'medium' | 'high' | 'critical';
export type Scope = 'once' | 'command_profile' | 'path_pattern' | 'run' | 'task_type' | 'repo' | 'org';
export type Role = 'task_author' | 'repo_maintainer' | 'security_reviewer' | 'platform_admin';

export interface Evidence {
  summary: string;
  command?: string[];
  command_line?: string;
  cwd: string;
  paths: string[];
  /** Paths that lead elsewhere than written: `link → real path`. */
  symlinks?: string[];
  network: string[];
  credentials?: string;
  mutation?: string;
  diff_summary?: string;
  policy_findings: string[];
  verification_status?: string;
  secret_risk?: string;
  suspicious_text: boolean;
}

export interface Member {
  action_id: string;
  action_hash: string;
  task_id: string;
  command_line?: string;
  created_at: string;
}

/** One person's approval of a prompt that needs more than one (`approvals`). */
export interface ApprovalVote {
  by: string;
  role: Role;
  at: string;
}

/** One approval a person may take in one click, bounded by the policy's lifetimes. */
export interface QuickDecision {
  label: string;
  scope: Scope;
  expires_in_seconds: number;
}

/** How a settled approval ended. */
export type Resolution = 'approved' | 'denied' | 'timed_out' | 'cancelled';

export interface Approval {
  approval_id: string;
  run_id: string;
  task_id: string;
  repo?: string;
  requested_by: string;
  action_kind: string;
  status: string;
  /** How it settled, once it has. */
  resolution?: Resolution;
  decision: 'ask' | 'escalate';
  risk: Risk;
  reasons: string[];
  rule: string;
  recommendation: { decision: string; scope?: Scope; text: string };
  required_role?: Role;
  profile?: string;
  evidence: Evidence;
  offered_scopes: Scope[];
  batch_key: string;
  count: number;
  members: Member[];
  reason: string;
  created_at: string;
  updated_at: string;
  expires_at: string;
  decided_at?: string;
  decided_by?: string;
  /** The role the deciding person acted in. */
  decided_role?: Role;
  decision_reason?: string;
  grant_id?: string;
  /** The identity whose requests wait on this prompt; it can never decide it. */
  requester: string;
  /** How many distinct people must approve. */
  required_approvals: number;
  /** Who approved so far. */
  approvals: ApprovalVote[];
  /**
   * The one-click approvals the policy allows (the notification's buttons and the window's
   * expiry choices); the largest per scope bounds a custom expiry.
   */
  quick_decisions: QuickDecision[];
}

export interface Constraints {
  action_hash?: string;
  batch_key?: string;
  run_id?: string;
  profile?: string;
  path_patterns?: string[];
  repo?: string;
  base_sha?: string;
  diff_fingerprint?: string;
  task_type?: string;
}

export interface Grant {
  grant_id: string;
  approval_id: string;
  run_id: string;
  scope_kind: Scope;
  action_kinds: string[];
  constraints: Constraints;
  created_at: string;
  expires_at: string;
  max_uses: number | null;
  used_count: number;
  created_by: string;
  revocable: boolean;
  revoked_at: string | null;
  policy_version: string;
  status: 'active' | 'expired' | 'revoked' | 'exhausted';
  revoke_reason?: string;
  summary: string;
  /** The role the granting person (`created_by`) acted in. */
  created_by_role?: Role;
  revoked_by?: string;
}

export type AuditDecision =
  | 'auto'
  | 'approved'
  | 'denied'
  | 'blocked'
  | 'expired'
  | 'revoked'
  | 'used'
  | 'executed'
  | 'resumed'
  /** A person undid a remembered denial: equivalent requests of the run ask again. */
  | 'forgotten'
  /** `assent policy suggest --apply` changed the policy file. */
  | 'policy_changed';

export interface AuditEvent {
  event_id: string;
  timestamp: string;
  approval_id?: string;
  action_id?: string;
  run_id: string;
  task_id: string;
  action_kind: string;
  action_hash: string;
  decision: AuditDecision;
  /** The person who decided (or revoked, or resumed). */
  approver?: string;
  /** The role they acted in. */
  approver_role?: Role;
  reason: string;
  grant_id?: string;
  repo?: string;
  /** The scope actually granted. */
  granted_scope?: Scope;
  /** Until when the grant ran. */
  grant_expires_at?: string;
  /** What was decided: the command line, the paths or the target. */
  subject?: string;
}

/** `GET /v1/me`: who the desk's token belongs to, with the roles the service holds for them. */
export interface Me {
  name: string;
  kind: 'person' | 'agent';
  roles: Role[];
}

export type Link = { state: 'connecting' } | { state: 'connected' } | { state: 'disconnected'; reason: string };

/** A run held by a timeout fallback (`GET /v1/runs?status=paused`). */
export interface RunState {
  run_id: string;
  status: 'running' | 'paused' | 'cancelled';
  reason?: string;
  approval_id?: string;
  updated_at?: string;
}

export interface DeskSnapshot {
  link: Link;
  /** Who the desk signs in as; null until the service answered. */
  me: Me | null;
  pending: Approval[];
  grants: Grant[];
  /** Runs paused by an unanswered prompt, most recently paused first. */
  held_runs: RunState[];
  paused: string | null;
}

export type DeskEvent = { type: 'state'; snapshot: DeskSnapshot } | { type: 'focus'; approval_id: string };

export type DecisionRequest =
  | { decision: 'approve'; scope: Scope; expires_in_seconds: number; max_uses?: number; reason?: string }
  | { decision: 'deny'; reason: string };

export interface CommandError {
  code: 'invalid' | 'unavailable' | 'conflict' | 'refused' | 'local';
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
}

export interface SettingsInput {
  service_url: string;
  token: string | null;
  notifications: boolean;
  autostart: boolean;
}

/** Seconds from a prompt opening to a person's decision. */
export interface DecisionTimes {
  count: number;
  mean: number;
  p50: number;
  p90: number;
}

/** How the prompts of one policy rule or command profile went. */
export interface PromptStats {
  prompts: number;
  approved: number;
  denied: number;
  /** Nobody answered in time. */
  timed_out: number;
  /** approved / (approved + denied); 0 when none was decided. */
  approve_rate: number;
  deny_rate: number;
  time_to_decide_seconds: DecisionTimes;
  /** Approved within 2 s of opening: read too fast to be a judgment. */
  rubber_stamps: number;
  remembered_denials: number;
}

/** `GET /v1/metrics`: totals since the service started. */
export interface Metrics {
  actions_by_decision: Record<string, number>;
  actions_total: number;
  prompts_opened: number;
  prompts_pending: number;
  batch_size: { mean: number; max: number };
  time_to_decision_seconds: DecisionTimes;
  grants_active: number;
  prompts_per_100_actions: number;
  by_rule: Record<string, PromptStats>;
  by_profile: Record<string, PromptStats>;
  /** Over the runs that had any prompt. */
  prompts_per_run: { runs: number; mean: number; max: number };
  rubber_stamps: number;
  /** Requests answered by a person's earlier denial instead of a new prompt. */
  remembered_denials: number;
  /** Executions the agent reported that nothing allowed. */
  uncovered_executions: number;
}

/** An audited decision trimmed to what the Insights charts count. */
export type InsightEvent = Pick<AuditEvent, 'timestamp' | 'decision' | 'run_id' | 'approval_id' | 'action_id' | 'repo'>;

/** `insights_get`: the metrics, and the audit's prompt decisions since `since` (oldest first). */
export interface Insights {
  metrics: Metrics;
  since: string;
  events: InsightEvent[];
  /** False when the audit held more than one view reads: the newest days are missing. */
  complete: boolean;
}

/** A change `suggestion_apply` writes into the service's policy file. */
export type PolicyChange = { change: 'trust_repo'; repo: string } | { change: 'block_command'; pattern: string };

/** `suggestions_get`: a policy change proposed from what people decided, with its evidence. */
export interface Suggestion {
  /** Stable for the same change. */
  id: string;
  change: PolicyChange;
  /** One line, e.g. "`npm-test` approved 14 of 14 times in /src/shop → auto in this trusted repo". */
  evidence: string;
  decisions: number;
}

/** `suggestion_apply`: the policy now in force. */
export interface SuggestionApplied {
  policy_version: string;
  path: string;
  /** What changed, e.g. `trusted_repos += /src/shop`. */
  applied: string;
}
