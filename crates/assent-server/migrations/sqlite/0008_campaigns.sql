-- Fleet campaigns: one row per campaign, its stages and outcomes in `document` (the JSON of
-- assent_core::campaign::Campaign). `status` is copied out for listing.
CREATE TABLE campaigns (
    campaign_id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    document TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
