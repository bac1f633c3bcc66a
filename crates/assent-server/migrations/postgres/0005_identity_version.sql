-- A counter bumped (by statement triggers, in the same transaction) on every change of the
-- identity tables, by anyone: any replica, `assent people|agents …`, or psql. Each replica
-- caches token -> identity and trusts an entry only while this counter is the one it read
-- before looking the entry up, so a change is seen by the very next request on every replica.
CREATE TABLE identity_version (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    version BIGINT NOT NULL
);
INSERT INTO identity_version (id, version) VALUES (1, 0);

CREATE FUNCTION bump_identity_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE identity_version SET version = version + 1 WHERE id = 1;
    RETURN NULL;
END
$$;

CREATE TRIGGER identities_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON identities
    FOR EACH STATEMENT EXECUTE FUNCTION bump_identity_version();
CREATE TRIGGER identity_tokens_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON identity_tokens
    FOR EACH STATEMENT EXECUTE FUNCTION bump_identity_version();
