-- The audit chain (docs/security.md): every audit row appended from now on carries its place
-- in the chain (`chain_seq`, 1, 2, 3… with no gap), the hash of the row before it and its own
-- hash over its canonical form. Rows written before this upgrade keep NULLs: `assent audit
-- verify` reports them as "before the chain started", not covered.
ALTER TABLE audit_events ADD COLUMN chain_seq BIGINT;
ALTER TABLE audit_events ADD COLUMN prev_hash TEXT;
ALTER TABLE audit_events ADD COLUMN hash TEXT;
CREATE UNIQUE INDEX audit_events_chain ON audit_events (chain_seq);

-- Signed heads of the chain: each names the chain position and hash it signs, the checkpoint
-- before it (its signature) and the key that signed it.
CREATE TABLE audit_checkpoints (
    id BIGINT PRIMARY KEY,
    chain_seq BIGINT NOT NULL,
    head_hash TEXT NOT NULL,
    prev_signature TEXT NOT NULL,
    key_id TEXT NOT NULL,
    signed_at BIGINT NOT NULL,
    signature TEXT NOT NULL
);
