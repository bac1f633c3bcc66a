-- A grant stops counting when what it was bound to moves (its base commit, its diff): when
-- and why, shown as status `invalidated`. An invalidated grant's expiry is never announced
-- (its `expiry_announced` is set with `invalidated_at`): it had already stopped covering.
ALTER TABLE approval_grants ADD COLUMN invalidated_at BIGINT;
ALTER TABLE approval_grants ADD COLUMN invalidated_reason TEXT;
