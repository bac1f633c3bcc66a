-- The web desk's sign-in: one-time enrolment invites, people's passkeys, browser sessions and
-- the WebAuthn ceremonies in flight (kept here, not in a replica's memory, so a ceremony
-- started on one replica finishes on another). Secrets are stored hashed (SHA-256): an
-- invite's code and a session's cookie value.
CREATE TABLE desk_invites (
    code_hash TEXT PRIMARY KEY,
    person TEXT NOT NULL REFERENCES identities (name) ON DELETE CASCADE,
    made_by TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);

CREATE TABLE passkeys (
    credential_id TEXT PRIMARY KEY,
    person TEXT NOT NULL REFERENCES identities (name) ON DELETE CASCADE,
    label TEXT NOT NULL,
    -- webauthn-rs's Passkey (public key, counter), as JSON.
    passkey TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    last_used_at BIGINT
);
CREATE INDEX passkeys_person ON passkeys (person);

CREATE TABLE desk_sessions (
    token_hash TEXT PRIMARY KEY,
    person TEXT NOT NULL REFERENCES identities (name) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    ended_at BIGINT
);
CREATE INDEX desk_sessions_person ON desk_sessions (person);

CREATE TABLE web_ceremonies (
    id TEXT PRIMARY KEY,
    -- register | sign_in | step_up
    kind TEXT NOT NULL,
    -- Who the ceremony is for (registration), or NULL (a sign-in finds out).
    person TEXT,
    -- What the ceremony is bound to: an invite's code hash, or an approval id and action hash.
    bound TEXT,
    -- The origin it was started from: it must finish there.
    origin TEXT NOT NULL,
    -- webauthn-rs's server-side state, as JSON.
    state TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);
