-- The chain's start (docs/security.md, "The audit chain"): one signed record, written by the
-- service's first start on this schema, of the audit rows from before the chain (their count,
-- the table row of the last one and the hash of the last one, after the service links them
-- among themselves in `prev_hash`/`hash`, `chain_seq` staying NULL). A fresh store's record
-- signs zero rows, so any row without a link is one inserted by hand.
CREATE TABLE audit_chain_start (
    id BIGINT PRIMARY KEY CHECK (id = 1),
    events BIGINT NOT NULL,
    last_seq BIGINT NOT NULL,
    head_hash TEXT NOT NULL,
    key_id TEXT NOT NULL,
    signed_at BIGINT NOT NULL,
    signature TEXT NOT NULL
);
