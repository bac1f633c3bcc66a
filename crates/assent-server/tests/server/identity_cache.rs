//! The service caches token → identity, and never serves a stale one: a change of the
//! identities made anywhere else — an admin command's own store handle (as `assent people …`
//! does, from another process), another replica, or plain SQL on the database — applies to
//! the very next request. Every story warms the cache first (the same token answered twice),
//! then changes the identity behind it, then asks once. Two services on one data dir are two
//! replicas on one database (`on_postgres_identity_cache` runs this file over PostgreSQL;
//! over SQLite they are two handles on one file, as a service and a CLI process are).

use crate::common;
use std::path::Path;
use std::sync::Arc;

use crate::common::{start_time, Service};
use assent_core::{IdentityKind, Role};
use assent_server::store::TokenRecord;
use assent_server::{Directory, FakeClock};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// Replicas A and B on one database.
async fn two_replicas() -> (Service, Service) {
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let clock = Arc::new(FakeClock::new(start_time()));
    let a = Service::start_in(dir.clone(), clock.clone(), |_| {}).await;
    let b = Service::start_in(dir, clock, |_| {}).await;
    (a, b)
}

async fn directory(svc: &Service) -> Directory {
    common::backend::directory(&svc.data_dir()).await
}

/// `GET /v1/me` twice on `svc`: the second answer comes from the cache, and both must agree.
async fn warm(svc: &Service, token: &str) -> Value {
    let (status, first) = svc.get("/v1/me", token).await;
    assert_eq!(status, StatusCode::OK, "the token is known: {first}");
    let (status, second) = svc.get("/v1/me", token).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "a cached token still works: {second}"
    );
    assert_eq!(first, second, "the cached identity is the stored one");
    first
}

async fn unknown_on(svc: &Service, token: &str, why: &str) {
    let (status, body) = svc.get("/v1/me", token).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{why}: {body}");
}

/// Runs `sql` on the service's database over a connection of its own (as psql or sqlite3
/// would), bypassing the service and its `Store` altogether.
async fn raw_sql(data_dir: &Path, sql: &str) {
    use sqlx::Connection;
    match common::backend::backend().as_str() {
        "postgres" => {
            let url = common::pg::shared().database_for(data_dir);
            let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
            sqlx::query(sql).execute(&mut conn).await.unwrap();
            conn.close().await.unwrap();
        }
        _ => {
            let path = data_dir.join("assent.db");
            let url = format!("sqlite://{}", path.display());
            let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
            sqlx::query(sql).execute(&mut conn).await.unwrap();
            conn.close().await.unwrap();
        }
    }
}

#[tokio::test]
async fn a_removed_agent_is_refused_by_every_replica_on_the_very_next_request() {
    let (a, b) = two_replicas().await;
    let admin = directory(&a).await;
    let token = admin.add_agent("ci-bot").await.unwrap();
    let me = warm(&a, &token).await;
    assert_eq!(
        me,
        json!({"name":"ci-bot","kind":"agent","roles":[]}),
        "replica A knows the new agent"
    );
    warm(&b, &token).await;
    admin.remove("ci-bot", IdentityKind::Agent).await.unwrap();
    let why = "the agent was removed through another store handle: its cached token must stop";
    unknown_on(&a, &token, why).await;
    unknown_on(&b, &token, why).await;
    admin.close().await;
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn a_removed_person_is_refused_and_cannot_decide() {
    let (a, b) = two_replicas().await;
    let admin = directory(&b).await;
    let token = admin
        .add_person("pat", &[Role::PlatformAdmin])
        .await
        .unwrap();
    warm(&a, &token).await;
    let (status, _) = a.get("/v1/approvals", &token).await;
    assert_eq!(status, StatusCode::OK, "a person may list approvals");
    admin.remove("pat", IdentityKind::Person).await.unwrap();
    let (status, body) = a.get("/v1/approvals", &token).await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "the person removed beside replica A may not read or decide there any more: {body}"
    );
    admin.close().await;
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn a_rotated_token_stops_and_its_successor_works_at_once() {
    let (a, b) = two_replicas().await;
    let admin = directory(&a).await;
    let old = admin.add_agent("builder").await.unwrap();
    warm(&a, &old).await;
    warm(&b, &old).await;
    // Rotation as the service does it for a token file: the label's one token is replaced.
    let new = assent_server::identities::new_token(IdentityKind::Agent);
    let store = common::backend::open_store(&a.data_dir()).await;
    let hash = assent_server::identities::token_hash(&new);
    let record = TokenRecord {
        hash: &hash,
        label: "cli",
    };
    let set = store.token_set("builder", record, start_time()).await;
    assert!(set.unwrap(), "the agent exists, so its token is replaced");
    for svc in [&a, &b] {
        unknown_on(
            svc,
            &old,
            "the rotated-out token is cached but was replaced",
        )
        .await;
        let me = warm(svc, &new).await;
        assert_eq!(me["name"], "builder", "the new token is the same agent's");
    }
    store.close().await;
    admin.close().await;
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn a_role_change_applies_to_the_very_next_request() {
    let (a, b) = two_replicas().await;
    let admin = directory(&b).await;
    let token = admin.add_person("sam", &[Role::TaskAuthor]).await.unwrap();
    let me = warm(&a, &token).await;
    assert_eq!(
        me["roles"],
        json!(["task_author"]),
        "sam starts as a task author"
    );
    admin
        .roles("sam", &[Role::SecurityReviewer], &[Role::TaskAuthor])
        .await
        .unwrap();
    let (_, me) = a.get("/v1/me", &token).await;
    assert_eq!(
        me["roles"],
        json!(["security_reviewer"]),
        "replica A answers with the roles changed through another handle, not the cached ones"
    );
    let (_, me) = b.get("/v1/me", &token).await;
    assert_eq!(
        me["roles"],
        json!(["security_reviewer"]),
        "so does replica B"
    );
    admin.close().await;
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn a_token_deleted_with_plain_sql_stops_at_once() {
    let (a, b) = two_replicas().await;
    let admin = directory(&a).await;
    let token = admin.add_agent("nightly").await.unwrap();
    warm(&a, &token).await;
    warm(&b, &token).await;
    raw_sql(
        &a.data_dir(),
        "DELETE FROM identity_tokens WHERE identity = 'nightly'",
    )
    .await;
    let why = "the token row was deleted by SQL outside the service: the triggers count it";
    unknown_on(&a, &token, why).await;
    unknown_on(&b, &token, why).await;
    raw_sql(
        &a.data_dir(),
        "UPDATE identities SET roles = '[\"platform_admin\"]' WHERE name = 'owner'",
    )
    .await;
    let (status, me) = a.get("/v1/me", &a.approver).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the owner's token still works: {me}"
    );
    assert_eq!(
        me["roles"],
        json!(["platform_admin"]),
        "a role edited with plain SQL is what the next request sees"
    );
    admin.close().await;
    a.stop().await;
    b.stop().await;
}
