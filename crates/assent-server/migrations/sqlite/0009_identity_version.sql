-- A counter bumped (by triggers, in the same transaction) on every change of the identity
-- tables, by anyone: the service, `assent people|agents …` in another process, or sqlite3.
-- The service caches token -> identity and trusts an entry only while this counter is the
-- one it read before looking the entry up, so a change is seen by the very next request.
CREATE TABLE identity_version (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
);
INSERT INTO identity_version (id, version) VALUES (1, 0);

CREATE TRIGGER identities_insert_version AFTER INSERT ON identities
BEGIN UPDATE identity_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER identities_update_version AFTER UPDATE ON identities
BEGIN UPDATE identity_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER identities_delete_version AFTER DELETE ON identities
BEGIN UPDATE identity_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER identity_tokens_insert_version AFTER INSERT ON identity_tokens
BEGIN UPDATE identity_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER identity_tokens_update_version AFTER UPDATE ON identity_tokens
BEGIN UPDATE identity_version SET version = version + 1 WHERE id = 1; END;
CREATE TRIGGER identity_tokens_delete_version AFTER DELETE ON identity_tokens
BEGIN UPDATE identity_version SET version = version + 1 WHERE id = 1; END;
