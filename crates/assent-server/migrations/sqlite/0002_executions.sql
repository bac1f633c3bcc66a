-- What an executed-action report needs to audit itself: the action's kind and policy version,
-- and when the agent reported running it (once).
ALTER TABLE actions ADD COLUMN action_kind TEXT NOT NULL DEFAULT 'other';
ALTER TABLE actions ADD COLUMN policy_version TEXT NOT NULL DEFAULT '';
ALTER TABLE actions ADD COLUMN executed_at BIGINT;
