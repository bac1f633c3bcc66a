-- Outbound webhooks and their durable outbox. A delivery row is written in the same
-- transaction as the event it carries (so none is lost when the service dies), then claimed
-- (`lease_until`, on PostgreSQL with `FOR UPDATE SKIP LOCKED`) by one replica per attempt.
CREATE TABLE webhooks (
    id TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    -- the event types delivered, each between commas: ",approval.settled,grant.revoked,"
    events TEXT NOT NULL,
    -- only this agent's own events (NULL: everyone's)
    agent TEXT,
    allow_private BIGINT NOT NULL,
    -- "whsec_" + base64 of the HMAC key: what signing needs; never answered after creation
    secret TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE webhook_deliveries (
    -- the `webhook-id` header, the same on every attempt: "msg_<event id>_<webhook id>"
    id TEXT PRIMARY KEY,
    webhook_id TEXT NOT NULL,
    event_id BIGINT NOT NULL,
    kind TEXT NOT NULL,
    -- the exact body posted on every attempt
    body TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    -- pending, delivered, failed
    state TEXT NOT NULL,
    -- when the next attempt is due (pending only)
    next_at BIGINT,
    -- a replica is attempting it until then
    lease_until BIGINT,
    attempts BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_at);
CREATE INDEX webhook_deliveries_hook ON webhook_deliveries (webhook_id, event_id);

CREATE TABLE webhook_attempts (
    delivery_id TEXT NOT NULL,
    n BIGINT NOT NULL,
    at BIGINT NOT NULL,
    -- the receiver's HTTP status (NULL: no answer)
    status BIGINT,
    latency_ms BIGINT NOT NULL,
    error TEXT,
    PRIMARY KEY (delivery_id, n)
);
