//! Sign-in rows in both stores (the web desk's, `crate::web`): enrolment invites, passkeys,
//! browser sessions and the WebAuthn ceremonies in flight. Codes and cookies are stored as SHA-256 hashes.

use chrono::{DateTime, Utc};
use sqlx::Row;

use super::backend::{Conn, DbRow};
use super::codec::{from_micros, micros, opt_from_micros};
use crate::store::{CeremonyRow, InviteState, PasskeyRow, SessionRow, StoreError};

pub async fn invite_add(
    conn: &mut Conn,
    code_hash: &str,
    person: &str,
    made_by: &str,
    now: DateTime<Utc>,
    expires_at: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO desk_invites (code_hash, person, made_by, created_at, expires_at) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(code_hash)
    .bind(person)
    .bind(made_by)
    .bind(micros(now))
    .bind(micros(expires_at))
    .execute(conn)
    .await?;
    Ok(())
}

/// Whether the invite with `code_hash` may still enrol a passkey at `now`.
pub async fn invite_state(
    conn: &mut Conn,
    code_hash: &str,
    now: DateTime<Utc>,
) -> Result<InviteState, StoreError> {
    let row =
        sqlx::query("SELECT person, expires_at, used_at FROM desk_invites WHERE code_hash = $1")
            .bind(code_hash)
            .fetch_optional(conn)
            .await?;
    let Some(row) = row else {
        return Ok(InviteState::Unknown);
    };
    if row.try_get::<Option<i64>, _>("used_at")?.is_some() {
        return Ok(InviteState::Used);
    }
    if row.try_get::<i64, _>("expires_at")? <= micros(now) {
        return Ok(InviteState::Expired);
    }
    Ok(InviteState::Open(row.try_get("person")?))
}

/// Marks the invite used; false when it was used or expired meanwhile (single use).
pub async fn invite_use(
    conn: &mut Conn,
    code_hash: &str,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let done = sqlx::query(
        "UPDATE desk_invites SET used_at = $2 \
         WHERE code_hash = $1 AND used_at IS NULL AND expires_at > $2",
    )
    .bind(code_hash)
    .bind(micros(now))
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

fn passkey_of(row: &DbRow) -> Result<PasskeyRow, StoreError> {
    Ok(PasskeyRow {
        credential_id: row.try_get("credential_id")?,
        person: row.try_get("person")?,
        label: row.try_get("label")?,
        passkey: row.try_get("passkey")?,
        created_at: from_micros(row.try_get("created_at")?)?,
        last_used_at: opt_from_micros(row.try_get("last_used_at")?)?,
    })
}

/// Adds a passkey; `Conflict` when its credential id is registered already (to anyone).
pub async fn passkey_add(conn: &mut Conn, key: &PasskeyRow) -> Result<(), StoreError> {
    let added = sqlx::query(
        "INSERT INTO passkeys (credential_id, person, label, passkey, created_at) \
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (credential_id) DO NOTHING",
    )
    .bind(&key.credential_id)
    .bind(&key.person)
    .bind(&key.label)
    .bind(&key.passkey)
    .bind(micros(key.created_at))
    .execute(conn)
    .await?;
    if added.rows_affected() == 0 {
        return Err(StoreError::Conflict(
            "this passkey is registered already".to_owned(),
        ));
    }
    Ok(())
}

pub async fn passkeys_of(conn: &mut Conn, person: &str) -> Result<Vec<PasskeyRow>, StoreError> {
    let rows = sqlx::query(
        "SELECT credential_id, person, label, passkey, created_at, last_used_at \
         FROM passkeys WHERE person = $1 ORDER BY created_at, credential_id",
    )
    .bind(person)
    .fetch_all(conn)
    .await?;
    rows.iter().map(passkey_of).collect()
}

pub async fn passkey(
    conn: &mut Conn,
    credential_id: &str,
) -> Result<Option<PasskeyRow>, StoreError> {
    let row = sqlx::query(
        "SELECT credential_id, person, label, passkey, created_at, last_used_at \
         FROM passkeys WHERE credential_id = $1",
    )
    .bind(credential_id)
    .fetch_optional(conn)
    .await?;
    row.as_ref().map(passkey_of).transpose()
}

/// Stores a passkey's state after a use (its signature counter) and when it was used.
pub async fn passkey_used(
    conn: &mut Conn,
    credential_id: &str,
    passkey: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE passkeys SET passkey = $2, last_used_at = $3 WHERE credential_id = $1")
        .bind(credential_id)
        .bind(passkey)
        .bind(micros(now))
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn passkey_remove(
    conn: &mut Conn,
    person: &str,
    credential_id: &str,
) -> Result<bool, StoreError> {
    let done = sqlx::query("DELETE FROM passkeys WHERE person = $1 AND credential_id = $2")
        .bind(person)
        .bind(credential_id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

pub async fn session_add(
    conn: &mut Conn,
    token_hash: &str,
    person: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO desk_sessions (token_hash, person, created_at, last_seen_at) \
         VALUES ($1, $2, $3, $3)",
    )
    .bind(token_hash)
    .bind(person)
    .bind(micros(now))
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn session(conn: &mut Conn, token_hash: &str) -> Result<Option<SessionRow>, StoreError> {
    let row = sqlx::query(
        "SELECT person, created_at, last_seen_at, ended_at FROM desk_sessions \
         WHERE token_hash = $1",
    )
    .bind(token_hash)
    .fetch_optional(conn)
    .await?;
    row.map(|row| {
        Ok(SessionRow {
            person: row.try_get("person")?,
            created_at: from_micros(row.try_get("created_at")?)?,
            last_seen_at: from_micros(row.try_get("last_seen_at")?)?,
            ended_at: opt_from_micros(row.try_get("ended_at")?)?,
        })
    })
    .transpose()
}

pub async fn session_seen(
    conn: &mut Conn,
    token_hash: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE desk_sessions SET last_seen_at = $2 WHERE token_hash = $1")
        .bind(token_hash)
        .bind(micros(now))
        .execute(conn)
        .await?;
    Ok(())
}

/// Ends the session; false when it had ended already (or never existed).
pub async fn session_end(
    conn: &mut Conn,
    token_hash: &str,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let done = sqlx::query(
        "UPDATE desk_sessions SET ended_at = $2 WHERE token_hash = $1 AND ended_at IS NULL",
    )
    .bind(token_hash)
    .bind(micros(now))
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Ends every open session of `person` (their last passkey went, or they sign out everywhere).
pub async fn sessions_end_of(
    conn: &mut Conn,
    person: &str,
    now: DateTime<Utc>,
) -> Result<u64, StoreError> {
    let done = sqlx::query(
        "UPDATE desk_sessions SET ended_at = $2 WHERE person = $1 AND ended_at IS NULL",
    )
    .bind(person)
    .bind(micros(now))
    .execute(conn)
    .await?;
    Ok(done.rows_affected())
}

/// Keeps a ceremony until it finishes or expires; ceremonies expired by `now` are dropped.
pub async fn ceremony_put(
    conn: &mut Conn,
    ceremony: &CeremonyRow,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM web_ceremonies WHERE expires_at <= $1")
        .bind(micros(now))
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        "INSERT INTO web_ceremonies (id, kind, person, bound, origin, state, expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(&ceremony.id)
    .bind(&ceremony.kind)
    .bind(&ceremony.person)
    .bind(&ceremony.bound)
    .bind(&ceremony.origin)
    .bind(&ceremony.state)
    .bind(micros(ceremony.expires_at))
    .execute(conn)
    .await?;
    Ok(())
}

/// Takes the ceremony `id` away (each finishes at most once); `None` when there is none, or
/// it expired by `now`.
pub async fn ceremony_take(
    conn: &mut Conn,
    id: &str,
    now: DateTime<Utc>,
) -> Result<Option<CeremonyRow>, StoreError> {
    let row = sqlx::query(
        "DELETE FROM web_ceremonies WHERE id = $1 \
         RETURNING id, kind, person, bound, origin, state, expires_at",
    )
    .bind(id)
    .fetch_optional(conn)
    .await?;
    let Some(row) = row else {
        return Ok(None);
    };
    let ceremony = CeremonyRow {
        id: row.try_get("id")?,
        kind: row.try_get("kind")?,
        person: row.try_get("person")?,
        bound: row.try_get("bound")?,
        origin: row.try_get("origin")?,
        state: row.try_get("state")?,
        expires_at: from_micros(row.try_get("expires_at")?)?,
    };
    Ok((ceremony.expires_at > now).then_some(ceremony))
}
