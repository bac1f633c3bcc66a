//! People and agents in both stores: identities, their hashed tokens, and approvals by
//! several people (plain rows; every replica sees a change at its next request).

use std::collections::BTreeSet;

use assent_core::{Identity, IdentityKind, Role, Vote, ALL_ROLES};
use assent_protocol::IdentityInfo;
use chrono::{DateTime, Utc};
use sqlx::Row;

use super::backend::{Conn, DbRow};
use super::codec::{from_micros, json_col, micros, name_of, parse_name, placeholders};
use super::stmt::Stmt;
use crate::store::StoreError;

/// The `service_meta` key set once the first identities exist.
const SEEDED: &str = "identities_seeded";

fn identity_of(row: &DbRow) -> Result<Identity, StoreError> {
    let roles: BTreeSet<Role> = json_col(row, "roles")?;
    Ok(Identity {
        name: row.try_get("name")?,
        kind: parse_name(&row.try_get::<String, _>("kind")?)?,
        roles,
    })
}

/// The identity holding the token whose hash is `token_hash`.
pub async fn by_token(conn: &mut Conn, token_hash: &str) -> Result<Option<Identity>, StoreError> {
    let row = sqlx::query(
        "SELECT i.name, i.kind, i.roles FROM identity_tokens t \
         JOIN identities i ON i.name = t.identity WHERE t.token_hash = $1",
    )
    .bind(token_hash)
    .fetch_optional(conn)
    .await?;
    row.as_ref().map(identity_of).transpose()
}

pub async fn get(conn: &mut Conn, name: &str) -> Result<Option<Identity>, StoreError> {
    let row = sqlx::query("SELECT name, kind, roles FROM identities WHERE name = $1")
        .bind(name)
        .fetch_optional(conn)
        .await?;
    row.as_ref().map(identity_of).transpose()
}

pub async fn list(conn: &mut Conn, kind: IdentityKind) -> Result<Vec<IdentityInfo>, StoreError> {
    let rows = sqlx::query(
        "SELECT i.name, i.kind, i.roles, i.created_at, \
         (SELECT COUNT(*) FROM identity_tokens t WHERE t.identity = i.name) AS tokens \
         FROM identities i WHERE i.kind = $1 ORDER BY i.name",
    )
    .bind(name_of(&kind)?)
    .fetch_all(conn)
    .await?;
    rows.iter()
        .map(|row| {
            let identity = identity_of(row)?;
            let tokens: i64 = row.try_get("tokens")?;
            Ok(IdentityInfo {
                name: identity.name,
                kind: identity.kind,
                roles: identity.roles.into_iter().collect(),
                created_at: from_micros(row.try_get("created_at")?)?,
                tokens: u32::try_from(tokens).unwrap_or(u32::MAX),
            })
        })
        .collect()
}

/// Creates `identity` with one token; `Conflict` when the name is taken (by anyone).
pub async fn add(
    conn: &mut Conn,
    identity: &Identity,
    token_hash: &str,
    label: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    if !insert_identity(conn, identity, now).await? {
        return Err(StoreError::Conflict(format!(
            "{} already exists",
            identity.name
        )));
    }
    insert_token(conn, &identity.name, label, token_hash, now).await
}

async fn insert_token(
    conn: &mut Conn,
    name: &str,
    label: &str,
    token_hash: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO identity_tokens (token_hash, identity, label, created_at) \
         VALUES ($1, $2, $3, $4)",
    )
    .bind(token_hash)
    .bind(name)
    .bind(label)
    .bind(micros(now))
    .execute(conn)
    .await?;
    Ok(())
}

/// Removes the identity `name` of `kind` and its tokens; false when there is none.
pub async fn remove(conn: &mut Conn, name: &str, kind: IdentityKind) -> Result<bool, StoreError> {
    // PostgreSQL's ON DELETE CASCADE would take them; SQLite does not enforce foreign keys.
    // Only the tokens of the identity removed: a person's stay when asked to remove an agent.
    sqlx::query(
        "DELETE FROM identity_tokens WHERE identity IN \
         (SELECT name FROM identities WHERE name = $1 AND kind = $2)",
    )
    .bind(name)
    .bind(name_of(&kind)?)
    .execute(&mut *conn)
    .await?;
    let removed = sqlx::query("DELETE FROM identities WHERE name = $1 AND kind = $2")
        .bind(name)
        .bind(name_of(&kind)?)
        .execute(conn)
        .await?;
    Ok(removed.rows_affected() == 1)
}

/// Adds and removes roles of the person `name`; `None` when there is no such person. The row
/// is locked (PostgreSQL; SQLite has one writer), so two admins changing roles at once both
/// count.
pub async fn update_roles(
    conn: &mut Conn,
    name: &str,
    add: &[Role],
    remove: &[Role],
) -> Result<Option<Identity>, StoreError> {
    let row = sqlx::query(concat!(
        "SELECT name, kind, roles FROM identities WHERE name = $1",
        for_update!()
    ))
    .bind(name)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(mut person) = row.as_ref().map(identity_of).transpose()? else {
        return Ok(None);
    };
    if person.kind != IdentityKind::Person {
        return Ok(None);
    }
    person.roles.extend(add.iter().copied());
    for role in remove {
        person.roles.remove(role);
    }
    sqlx::query("UPDATE identities SET roles = $1 WHERE name = $2")
        .bind(serde_json::to_string(&person.roles)?)
        .bind(name)
        .execute(conn)
        .await?;
    Ok(Some(person))
}

/// Makes `token_hash` the one token of `name` labelled `label` (replacing an older one);
/// false when `name` does not exist.
pub async fn set_token(
    conn: &mut Conn,
    name: &str,
    label: &str,
    token_hash: &str,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let exists = sqlx::query(concat!(
        "SELECT 1 FROM identities WHERE name = $1",
        for_update!()
    ))
    .bind(name)
    .fetch_optional(&mut *conn)
    .await?;
    if exists.is_none() {
        return Ok(false);
    }
    drop_token(conn, name, label).await?;
    sqlx::query("DELETE FROM identity_tokens WHERE token_hash = $1")
        .bind(token_hash)
        .execute(&mut *conn)
        .await?;
    insert_token(conn, name, label, token_hash, now).await?;
    Ok(true)
}

pub async fn drop_token(conn: &mut Conn, name: &str, label: &str) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM identity_tokens WHERE identity = $1 AND label = $2")
        .bind(name)
        .bind(label)
        .execute(conn)
        .await?;
    Ok(())
}

/// Creates the person `owner` (every role) and the agent `default` the first time; true when
/// it did. Exactly one replica (or admin command) seeds: the `service_meta` row decides.
pub async fn seed_once(
    conn: &mut Conn,
    owner: &str,
    agent: &str,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let seeded = sqlx::query(
        "INSERT INTO service_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
    )
    .bind(SEEDED)
    .bind(micros(now).to_string())
    .execute(&mut *conn)
    .await?;
    if seeded.rows_affected() != 1 {
        return Ok(false);
    }
    for identity in [Identity::person(owner, ALL_ROLES), Identity::agent(agent)] {
        insert_identity(conn, &identity, now).await?;
    }
    Ok(true)
}

/// Inserts `identity` unless its name is taken; says whether it did.
async fn insert_identity(
    conn: &mut Conn,
    identity: &Identity,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let inserted = sqlx::query(
        "INSERT INTO identities (name, kind, roles, created_at) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (name) DO NOTHING",
    )
    .bind(&identity.name)
    .bind(name_of(&identity.kind)?)
    .bind(serde_json::to_string(&identity.roles)?)
    .bind(micros(now))
    .execute(conn)
    .await?;
    Ok(inserted.rows_affected() == 1)
}

/// The read of the votes on `ids` (at most 400), for [`votes_from`].
pub fn votes_read(ids: &[String]) -> Stmt {
    let mut read = Stmt::new(format!(
        "SELECT approval_id, voter, role, voted_at FROM approval_votes \
         WHERE approval_id IN ({}) ORDER BY approval_id, voted_at, voter",
        placeholders(ids.len())
    ));
    for id in ids {
        read = read.bind(id.clone());
    }
    read
}

/// Adds the votes of `rows` ([`votes_read`]'s) to `votes`, by approval.
pub fn votes_from(
    rows: &[DbRow],
    votes: &mut std::collections::HashMap<String, Vec<Vote>>,
) -> Result<(), StoreError> {
    for row in rows {
        votes
            .entry(row.try_get("approval_id")?)
            .or_default()
            .push(Vote {
                by: row.try_get("voter")?,
                role: parse_name(&row.try_get::<String, _>("role")?)?,
                at: from_micros(row.try_get("voted_at")?)?,
            });
    }
    Ok(())
}

/// Records `vote` (once per person).
pub async fn insert_vote(
    conn: &mut Conn,
    approval_id: &str,
    vote: &Vote,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO approval_votes (approval_id, voter, role, voted_at) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (approval_id, voter) DO NOTHING",
    )
    .bind(approval_id)
    .bind(&vote.by)
    .bind(name_of(&vote.role)?)
    .bind(micros(vote.at))
    .execute(conn)
    .await?;
    Ok(())
}
