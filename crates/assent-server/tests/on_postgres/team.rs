//! PostgreSQL as the shared store of several replicas: migrating once, identities made by the
//! admin commands' directory, the event log's ids shared by every replica.

use crate::common;
use std::sync::Arc;

use crate::common::pg;
use assent_core::{IdentityKind, Policy, Role};
use assent_server::{App, Config, Database, Directory, DirectoryError, PgStore};
use reqwest::StatusCode;
use serde_json::Value;
use tokio::sync::oneshot;

/// A replica of the service on `url`, answering on a free port.
struct Replica {
    url: String,
    stop: Option<oneshot::Sender<()>>,
    handle: tokio::task::JoinHandle<Result<(), assent_server::LaunchError>>,
}

impl Replica {
    async fn start(database_url: &str) -> Replica {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::new(dir.path(), Policy::default());
        config.database = Database::Postgres(database_url.to_owned());
        let app = App::open(config).await.unwrap();
        assert!(
            app.tokens().is_none(),
            "with a database URL the service holds no token of its own"
        );
        let written: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            written,
            [assent_server::audit_chain::KEY_FILE],
            "with a database URL no token file is written (only the replica's checkpoint key)"
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = oneshot::channel::<()>();
        let handle = tokio::spawn(app.serve(listener, async move {
            let _ = stopped.await;
        }));
        Replica {
            url,
            stop: Some(stop),
            handle,
        }
    }

    async fn get(&self, path: &str, token: &str) -> (StatusCode, Value) {
        let resp = reqwest::Client::new()
            .get(format!("{}{path}", self.url))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        let status = resp.status();
        (status, resp.json().await.unwrap_or(Value::Null))
    }

    async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.handle.await.unwrap().unwrap();
    }
}

#[tokio::test]
async fn replicas_starting_together_migrate_once() {
    let url = pg::database();
    let opened = futures::future::join_all((0..4).map(|_| PgStore::open(&url))).await;
    for store in &opened {
        assert!(
            store.is_ok(),
            "every replica starting at once opens the database: {store:?}"
        );
    }
    let store = opened.into_iter().next().unwrap().unwrap();
    let directory = Directory::over(Arc::new(store), Arc::new(assent_server::SystemClock));
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let applied: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM _sqlx_migrations")
        .fetch_one(&pool)
        .await
        .unwrap();
    let files = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations/postgres"))
        .unwrap()
        .count();
    assert_eq!(
        applied as usize, files,
        "each migration is applied exactly once however many replicas raced"
    );
    directory.close().await;
}

#[tokio::test]
async fn people_made_by_the_directory_are_known_on_every_replica() {
    let url = pg::database();
    let (a, b) = (Replica::start(&url).await, Replica::start(&url).await);
    let directory = Directory::connect(&url).await.unwrap();
    let alice = directory
        .add_person("alice", &[Role::RepoMaintainer])
        .await
        .unwrap();
    let agent = directory.add_agent("ci").await.unwrap();
    for replica in [&a, &b] {
        let (status, me) = replica.get("/v1/me", &alice).await;
        assert_eq!(
            status,
            StatusCode::OK,
            "alice's token works on every replica"
        );
        assert_eq!(me["name"], "alice", "the token names its person: {me}");
        let (status, _) = replica.get("/v1/me", &agent).await;
        assert_eq!(
            status,
            StatusCode::OK,
            "the agent's token works on every replica"
        );
    }
    assert!(
        matches!(
            directory.add_agent("alice").await,
            Err(DirectoryError::Exists(_))
        ),
        "names are shared by people and agents, across the database"
    );
    let roles = directory
        .roles("alice", &[Role::SecurityReviewer], &[Role::RepoMaintainer])
        .await
        .unwrap();
    assert_eq!(
        roles.roles.into_iter().collect::<Vec<_>>(),
        vec![Role::SecurityReviewer],
        "roles are added and removed as asked"
    );
    let (_, me) = b.get("/v1/me", &alice).await;
    assert_eq!(
        me["roles"],
        serde_json::json!(["security_reviewer"]),
        "another replica sees the new roles at the next request"
    );
    let people = directory.list(IdentityKind::Person).await.unwrap();
    assert_eq!(
        people.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        vec!["alice"],
        "a PostgreSQL database starts with no seeded owner: every identity is added by name"
    );
    directory
        .remove("alice", IdentityKind::Person)
        .await
        .unwrap();
    let (status, _) = a.get("/v1/me", &alice).await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "a removed person's token stops working at once on every replica"
    );
    directory.close().await;
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn losing_the_database_answers_503_and_the_replica_reconnects_by_itself() {
    // Its own cluster: this test stops the server under a running replica.
    let cluster = pg::Cluster::start(false);
    let url = cluster.database();
    let replica = Replica::start(&url).await;
    let directory = Directory::connect(&url).await.unwrap();
    let alice = directory
        .add_person("alice", &[Role::RepoMaintainer])
        .await
        .unwrap();
    let agent = directory.add_agent("ci").await.unwrap();
    directory.close().await;

    cluster.kill();
    let (status, body) = replica.get("/v1/me", &alice).await;
    assert_eq!(
        status,
        StatusCode::SERVICE_UNAVAILABLE,
        "without its database the service answers 503, not 500 or 401: {body}"
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("database is unreachable"),
        "the error says what is wrong: {body}"
    );
    let submit = reqwest::Client::new()
        .post(format!("{}/v1/actions", replica.url))
        .bearer_auth(&agent)
        .json(&common::maven("r-1"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        submit.status(),
        StatusCode::SERVICE_UNAVAILABLE,
        "a request is not acknowledged while nothing can be recorded (a gate fails closed)"
    );

    cluster.resume();
    let (status, me) = replica.get("/v1/me", &alice).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the replica reconnects by itself once the database is back: {me}"
    );
    let events = reqwest::Client::new()
        .get(format!("{}/v1/events", replica.url))
        .bearer_auth(&alice)
        .send()
        .await
        .unwrap();
    assert_eq!(events.status(), StatusCode::OK, "the stream opens again");
    let mut body = events.bytes_stream();
    let asked = reqwest::Client::new()
        .post(format!("{}/v1/actions", replica.url))
        .bearer_auth(&agent)
        .json(&common::maven("r-2"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        asked.status(),
        StatusCode::OK,
        "requests are recorded again"
    );
    let mut text = String::new();
    while !text.contains("approval.requested") {
        use futures::StreamExt;
        let chunk = tokio::time::timeout(std::time::Duration::from_secs(10), body.next())
            .await
            .expect("the event arrives: the listener reconnected")
            .unwrap()
            .unwrap();
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    replica.stop().await;
}
