-- Web Push: each person's browser subscriptions (an endpoint is one browser's: a new
-- subscriber on it takes it over) and the VAPID key of a service whose replicas share this
-- database (SQLite keeps it in the data dir's `push-key` file instead). Which prompt is
-- pushed to whom is routing's: each step pushes once, to the people it asks.
CREATE TABLE push_subscriptions (
    endpoint TEXT PRIMARY KEY,
    person TEXT NOT NULL REFERENCES identities (name) ON DELETE CASCADE,
    -- base64url: the browser's P-256 public key and its auth secret.
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    -- milliseconds since 1970, as the browser said (NULL: no end announced)
    expires_at_ms BIGINT,
    created_at BIGINT NOT NULL
);
CREATE INDEX push_subscriptions_person ON push_subscriptions (person);

CREATE TABLE push_key (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    secret TEXT NOT NULL
);
