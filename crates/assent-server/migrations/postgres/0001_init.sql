-- Assent service schema (PostgreSQL): the SQLite schema (migrations/sqlite 0001..0005) in one
-- step, with the same columns and meanings. Times are microseconds since the Unix epoch
-- (BIGINT) and JSON documents are TEXT, as in SQLite, so both backends encode rows alike.
-- Event and audit ids come from identity columns: every replica reads the same ids.

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
    grant_id TEXT,
    decided_role TEXT,
    forgotten_at BIGINT
);
CREATE INDEX approval_requests_batch ON approval_requests (status, batch_key);
CREATE INDEX approval_requests_expiry ON approval_requests (status, expires_at);
CREATE INDEX approval_requests_run ON approval_requests (run_id, status);
CREATE INDEX approval_requests_denials ON approval_requests (run_id, resolution, decided_at);

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
    summary TEXT NOT NULL,
    created_by_role TEXT,
    revoked_by TEXT
);
CREATE INDEX approval_grants_live ON approval_grants (revoked_at, expires_at);
CREATE INDEX approval_grants_run ON approval_grants (run_id, scope_kind);
CREATE INDEX approval_grants_unannounced ON approval_grants (expiry_announced, revoked_at, expires_at);

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
    created_at BIGINT NOT NULL,
    action_kind TEXT NOT NULL DEFAULT 'other',
    policy_version TEXT NOT NULL DEFAULT '',
    executed_at BIGINT
);
-- Idempotency keys are unique per requester across every replica.
CREATE UNIQUE INDEX actions_idempotency ON actions (requester, idempotency_key);
CREATE INDEX actions_approval ON actions (approval_id);

CREATE TABLE audit_events (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id TEXT NOT NULL UNIQUE,
    occurred_at BIGINT NOT NULL,
    run_id TEXT NOT NULL,
    decision TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX audit_events_time ON audit_events (occurred_at);
CREATE INDEX audit_events_run ON audit_events (run_id, occurred_at);

-- The SSE log. Writers take a transaction-level advisory lock before appending, so ids become
-- visible in order and a stream reading `id > last` never skips a late commit.
CREATE TABLE events (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    occurred_at BIGINT NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL
);

CREATE TABLE runs (
    run_id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    reason TEXT,
    approval_id TEXT,
    updated_at BIGINT NOT NULL
);

CREATE TABLE identities (
    name TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    roles TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE identity_tokens (
    token_hash TEXT PRIMARY KEY,
    identity TEXT NOT NULL REFERENCES identities (name) ON DELETE CASCADE,
    label TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX identity_tokens_identity ON identity_tokens (identity, label);

CREATE TABLE approval_votes (
    approval_id TEXT NOT NULL REFERENCES approval_requests (id),
    voter TEXT NOT NULL,
    role TEXT NOT NULL,
    voted_at BIGINT NOT NULL,
    PRIMARY KEY (approval_id, voter)
);

CREATE TABLE service_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
