-- The fleet campaign a run belongs to (set when `assent run start --campaign` starts it, kept
-- by every later hold): a campaign that stops pauses its started runs, and its resume lets
-- the runs it paused go on.
ALTER TABLE runs ADD COLUMN campaign TEXT;
CREATE INDEX runs_campaign ON runs (campaign, status);
