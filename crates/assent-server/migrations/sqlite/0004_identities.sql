-- People and agents, each with tokens stored hashed (SHA-256 of the token; tokens are 256-bit
-- random, so a fast hash is enough). A token row's label says where the token lives:
-- `approver.token` / `requester.token` (the data dir's files), `desk` (the desktop's
-- in-memory session), `cli` (printed once by `assent people|agents add`).
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

-- Approvals by distinct people, while an approval needs more than one.
CREATE TABLE approval_votes (
    approval_id TEXT NOT NULL REFERENCES approval_requests (id),
    voter TEXT NOT NULL,
    role TEXT NOT NULL,
    voted_at BIGINT NOT NULL,
    PRIMARY KEY (approval_id, voter)
);

-- One-off facts about the database (e.g. that the first identities were created).
CREATE TABLE service_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

ALTER TABLE approval_requests ADD COLUMN decided_role TEXT;
ALTER TABLE approval_grants ADD COLUMN created_by_role TEXT;
ALTER TABLE approval_grants ADD COLUMN revoked_by TEXT;

-- Before identities there were two fixed names; they are now the agent `default` and the
-- person `owner`.
UPDATE actions SET requester = 'default' WHERE requester = 'requester';
UPDATE approval_requests SET requester = 'default' WHERE requester = 'requester';
UPDATE approval_requests SET decided_by = 'owner' WHERE decided_by = 'approver';
UPDATE approval_grants SET created_by = 'owner' WHERE created_by = 'approver';
