// Fixtures of the views' unit tests: a prompt and a grant as the service sends them.
import type { Approval, Grant, QuickDecision } from './types';

export function approval(id: string, createdAt: string, extra: Partial<Approval> = {}): Approval {
  return {
    approval_id: id, run_id: 'run-1', task_id: 't', repo: 'shop', requested_by: 'agent', action_kind: 'shell',
    status: 'requested', decision: 'ask', risk: 'medium', reasons: ['r'], rule: 'profile.maven-test',
    recommendation: { decision: 'approve', scope: 'run', text: 'Allow for this run' }, profile: 'maven-test',
    evidence: { type: 'tool', summary: 's', cwd: '/w', paths: [], network: [], policy_findings: [], suspicious_text: false },
    offered_scopes: ['once', 'run'], batch_key: 'b', count: 1, members: [], reason: 'why',
    created_at: createdAt, updated_at: createdAt, expires_at: createdAt, requester: 'default',
    required_approvals: 1, approvals: [], quick_decisions: [...QUICK], approval_type: 'tool', agents_waiting: 0, quick_up_to: 'medium',
    fallback_on_timeout: 'deny', words: { headline: '', summary: [], flags: [] }, ...extra,
  };
}

/** What the service sends under a policy capping run grants at 4 h: run first, then once. */
export const QUICK: QuickDecision[] = [
  { label: 'Allow maven-test for run', scope: 'run', expires_in_seconds: 4 * 3600 },
  { label: 'Allow once', scope: 'once', expires_in_seconds: 3600 },
];

export function fixtureGrant(id: string, extra: Partial<Grant> = {}): Grant {
  return {
    grant_id: id, approval_id: 'a', run_id: 'run-1', scope_kind: 'run', action_kinds: ['shell'],
    constraints: { run_id: 'run-1', profile: 'maven-test', path_patterns: [] }, created_at: '2030-01-01T00:00:00Z',
    expires_at: '2030-01-01T01:00:00Z', max_uses: null, used_count: 0, created_by: 'approver', revocable: true,
    revoked_at: null, policy_version: 'v1', status: 'active', summary: 'maven-test for run run-1', ...extra,
  };
}

export const FIXTURE_NOW = Date.parse('2030-01-01T00:30:00Z');
