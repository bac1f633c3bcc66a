-- A person's denial answers equivalent requests of its run until forgotten (the desk's Undo).
ALTER TABLE approval_requests ADD COLUMN forgotten_at BIGINT;
CREATE INDEX approval_requests_denials ON approval_requests (run_id, resolution, decided_at);
