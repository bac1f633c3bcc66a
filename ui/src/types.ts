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

export interface Approval {
  approval_id: string;
  run_id: string;
  task_id: string;
  repo?: string;
  requested_by: string;
  action_kind: string;
  status: string;
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
  | 'resumed';

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
  approver?: string;
  reason: string;
  grant_id?: string;
  repo?: string;
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
  roles: Role[];
}

export interface SettingsInput {
  service_url: string;
  token: string | null;
  notifications: boolean;
  autostart: boolean;
  roles: Role[];
}
