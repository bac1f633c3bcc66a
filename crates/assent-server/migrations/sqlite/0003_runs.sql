-- Runs held by an unanswered prompt's fallback: `paused` (until an approver resumes it) or
-- `cancelled` (for good); a row returns to `running` when resumed. Runs without a row run.
CREATE TABLE runs (
    run_id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    reason TEXT,
    approval_id TEXT,
    updated_at BIGINT NOT NULL
);

-- The sweeper's next deadline among grants whose expiry is not announced yet: one seek.
CREATE INDEX approval_grants_unannounced ON approval_grants (expiry_announced, revoked_at, expires_at);
