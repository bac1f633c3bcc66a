-- Routing (the policy's `[routing]`, docs/policy.md): who each prompt asked and when it
-- escalated (`asked`: the wire `Asked` as JSON, NULL on prompts opened before this upgrade),
-- and `escalated_at` to find the open prompts still due to escalate (after a restart too).
ALTER TABLE approval_requests ADD COLUMN asked TEXT;
ALTER TABLE approval_requests ADD COLUMN escalated_at BIGINT;

-- People whose desk is connected to a replica's event stream, so every replica of a team's
-- service knows who is present: one row per person and replica, touched while a stream is
-- open, removed when that person's last stream on that replica ends. A crashed replica's rows
-- stop counting once they are stale (crates/assent-server/src/routing/presence.rs).
CREATE TABLE desk_presence (
    person TEXT NOT NULL REFERENCES identities (name) ON DELETE CASCADE,
    replica TEXT NOT NULL,
    seen_at BIGINT NOT NULL,
    PRIMARY KEY (person, replica)
);
