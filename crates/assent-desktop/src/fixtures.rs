//! Test fixtures: a pending approval as the service sends it, and a real service (assent-server
//! in this process, a real SQLite file, real HTTP on a free port) with a request it asks about.
#![allow(clippy::expect_used, reason = "tests")]

use assent_core::{
    Action, ActionContext, ActionKind, ActionRequest, IdentityKind, Policy, RequestedBy, Role,
    ALL_ROLES,
};
use assent_protocol::Me;
use assent_server::{App, Config, Tokens};
use tokio::sync::oneshot;

/// The pending approval and the instants the protocol's tests use too: one fixture.
pub use assent_protocol::fixtures::{approval, at};

/// A person as `GET /v1/me` answers for them.
pub fn person(name: &str, roles: &[Role]) -> Me {
    Me {
        name: name.to_owned(),
        kind: IdentityKind::Person,
        roles: roles.to_vec(),
    }
}

/// The local install's owner: a person holding every role (the embedded desk signs in as them).
pub fn owner() -> Me {
    person("owner", &ALL_ROLES)
}

/// A running service; it stops when dropped.
pub struct Running {
    _dir: tempfile::TempDir,
    pub url: String,
    pub tokens: Tokens,
    _stop: oneshot::Sender<()>,
}

pub async fn service() -> Running {
    let dir = tempfile::tempdir().expect("temp dir");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    let app = App::open(Config::new(dir.path(), Policy::default()))
        .await
        .expect("open");
    let tokens = app.tokens().expect("SQLite has tokens").clone();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(app.serve(listener, async {
        let _ = stopped.await;
    }));
    Running {
        _dir: dir,
        url,
        tokens,
        _stop: stop,
    }
}

/// `mvn -q test` in run `run_id`: the default policy asks a person.
pub fn asked(run_id: &str) -> ActionRequest {
    ActionRequest {
        run_id: run_id.to_owned(),
        task_id: "task".to_owned(),
        requested_by: RequestedBy::Agent,
        idempotency_key: None,
        action: Action {
            kind: ActionKind::Shell,
            command: Some("mvn -q test".to_owned()),
            argv: None,
            cwd: "/work/shop".to_owned(),
            paths: Vec::new(),
            network: Vec::new(),
            credential_scope: None,
            tool: None,
        },
        context: ActionContext::default(),
        reason: "run the tests".to_owned(),
    }
}
