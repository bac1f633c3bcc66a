-- Assent service schema (SQLite). Times are microseconds since the Unix epoch (BIGINT),
-- JSON documents are TEXT; the Postgres backend keeps the same tables with its own types.

CREATE TABLE approval_requests (
    id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    requester TEXT NOT NULL,
    batch_key TEXT NOT NULL,
    action_kind TEXT NOT NULL,
    risk_level TEXT NOT NULL,
    status TEXT NOT NULL,
    resolution TEXT,
    requested_scope TEXT NOT NULL,
    evidence_artifact_id TEXT NOT NULL,
    required_role TEXT,
    action_hash TEXT NOT NULL,
    first_request TEXT NOT NULL,
    detail TEXT NOT NULL,
    member_count BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    decided_at BIGINT,
    decided_by TEXT,
    decision_reason TEXT,
    grant_id TEXT
);
CREATE INDEX approval_requests_batch ON approval_requests (status, batch_key);
CREATE INDEX approval_requests_expiry ON approval_requests (status, expires_at);
CREATE INDEX approval_requests_run ON approval_requests (run_id, status);

CREATE TABLE approval_grants (
    id TEXT PRIMARY KEY,
    approval_request_id TEXT NOT NULL REFERENCES approval_requests (id),
    run_id TEXT NOT NULL,
    scope_kind TEXT NOT NULL,
    action_kinds TEXT NOT NULL,
    constraints TEXT NOT NULL,
    max_uses BIGINT,
    used_count BIGINT NOT NULL DEFAULT 0,
    expires_at BIGINT NOT NULL,
    revoked_at BIGINT,
    revoke_reason TEXT,
    expiry_announced BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    created_by TEXT NOT NULL,
    revocable BIGINT NOT NULL,
    policy_version TEXT NOT NULL,
    summary TEXT NOT NULL
);
CREATE INDEX approval_grants_live ON approval_grants (revoked_at, expires_at);
CREATE INDEX approval_grants_run ON approval_grants (run_id, scope_kind);

CREATE TABLE actions (
    id TEXT PRIMARY KEY,
    requester TEXT NOT NULL,
    idempotency_key TEXT,
    body_hash TEXT NOT NULL,
    run_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    action_hash TEXT NOT NULL,
    decision TEXT NOT NULL,
    status TEXT NOT NULL,
    approval_id TEXT,
    batch_position BIGINT,
    grant_id TEXT,
    command_line TEXT,
    response TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX actions_idempotency ON actions (requester, idempotency_key);
CREATE INDEX actions_approval ON actions (approval_id);

CREATE TABLE audit_events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id TEXT NOT NULL UNIQUE,
    occurred_at BIGINT NOT NULL,
    run_id TEXT NOT NULL,
    decision TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX audit_events_time ON audit_events (occurred_at);
CREATE INDEX audit_events_run ON audit_events (run_id, occurred_at);

CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    occurred_at BIGINT NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL
);
