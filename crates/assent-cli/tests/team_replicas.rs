#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! Team mode with the real binary: `assent serve` replicas on one throwaway PostgreSQL, and
//! identities made by `assent people|agents add --database URL`.

mod gate_support;
#[path = "../../assent-server/tests/common/pg.rs"]
mod pg;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use gate_support::{finish, free_port, runtime, Ran, BIN};

/// One `assent serve` replica on a database; killed on drop.
struct Replica {
    child: Child,
    url: String,
    data_dir: tempfile::TempDir,
}

impl Replica {
    /// Starts a replica; `via_env` names the database with ASSENT_DATABASE_URL instead of the
    /// flag.
    fn start(database: &str, via_env: bool) -> Replica {
        let data_dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let mut cmd = Command::new(BIN);
        cmd.args(["serve", "--listen", &format!("127.0.0.1:{port}")])
            .arg("--data-dir")
            .arg(data_dir.path())
            .env("RUST_LOG", "warn")
            .env_remove("ASSENT_DATABASE_URL")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if via_env {
            cmd.env("ASSENT_DATABASE_URL", database);
        } else {
            cmd.args(["--database", database]);
        }
        let mut replica = Replica {
            child: cmd.spawn().unwrap(),
            url: format!("http://127.0.0.1:{port}"),
            data_dir,
        };
        replica.wait_ready();
        replica
    }

    /// Polls `/healthz` until the replica answers (the ready signal of a separate process).
    fn wait_ready(&mut self) {
        let client = assent_client::blocking::Client::new(&self.url, "none").unwrap();
        let until = Instant::now() + Duration::from_secs(60);
        while Instant::now() < until {
            if client
                .health(Instant::now() + Duration::from_secs(1))
                .is_ok()
            {
                return;
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("assent serve exited early with {status}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("assent serve did not become healthy");
    }

    fn client(&self, token: &str) -> assent_client::Client {
        assent_client::Client::new(&self.url, token).unwrap()
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `assent ARGS`, naming the database by flag or (with `env`) by ASSENT_DATABASE_URL.
fn admin(args: &[&str], database: &str, env: bool) -> Ran {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env_remove("ASSENT_DATABASE_URL")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if env {
        cmd.env("ASSENT_DATABASE_URL", database);
    } else {
        cmd.args(["--database", database]);
    }
    finish(cmd.spawn().unwrap())
}

fn token_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".token"))
        .collect()
}

#[test]
fn identities_made_with_database_work_on_every_replica_and_no_token_file_is_written() {
    let database = pg::database();
    let a = Replica::start(&database, false);
    let b = Replica::start(&database, true);
    let alice = admin(
        &["people", "add", "alice", "--role", "repo_maintainer"],
        &database,
        false,
    );
    assert_eq!(
        alice.code, 0,
        "people add --database works: {}",
        alice.stderr
    );
    let agent = admin(&["agents", "add", "ci-bot"], &database, true);
    assert_eq!(
        agent.code, 0,
        "agents add with ASSENT_DATABASE_URL works: {}",
        agent.stderr
    );
    let (alice, agent) = (alice.stdout.trim(), agent.stdout.trim());
    assert!(
        alice.starts_with("assent_p_"),
        "a person's token is printed: {alice}"
    );
    assert!(
        agent.starts_with("assent_a_"),
        "an agent's token is printed: {agent}"
    );

    let rt = runtime();
    for replica in [&a, &b] {
        let me = rt.block_on(replica.client(alice).me()).unwrap();
        assert_eq!(me.name, "alice", "alice's token works on every replica");
        let me = rt.block_on(replica.client(agent).me()).unwrap();
        assert_eq!(
            me.name, "ci-bot",
            "the agent's token works on every replica"
        );
        assert!(
            token_files(replica.data_dir.path()).is_empty(),
            "with a database URL no token file is written"
        );
    }

    let listed = admin(&["people", "list", "--json"], &database, false);
    assert_eq!(
        listed.code, 0,
        "people list --database works: {}",
        listed.stderr
    );
    assert_eq!(
        listed.json()["identities"][0]["name"],
        "alice",
        "the list reads the shared database"
    );
    let roles = admin(
        &["people", "roles", "alice", "--add", "security_reviewer"],
        &database,
        false,
    );
    assert_eq!(
        roles.code, 0,
        "people roles --database works: {}",
        roles.stderr
    );
    let removed = admin(&["agents", "remove", "ci-bot"], &database, false);
    assert_eq!(
        removed.code, 0,
        "agents remove --database works: {}",
        removed.stderr
    );
    assert!(
        rt.block_on(b.client(agent).me()).is_err(),
        "a removed agent's token stops working on every replica"
    );
}

#[test]
fn a_database_that_is_not_sqlite_or_postgres_is_refused_without_echoing_secrets() {
    let ran = admin(
        &["people", "list"],
        "mysql://root:hunter2@db.example/assent",
        false,
    );
    assert_ne!(ran.code, 0, "an unknown database kind is refused");
    assert!(
        ran.stderr.contains("postgres://"),
        "the error says what is accepted: {}",
        ran.stderr
    );
    assert!(
        !ran.stderr.contains("hunter2"),
        "the password is never echoed: {}",
        ran.stderr
    );
}
