//! The backend every story test runs over, so one suite proves every store.
//!
//! SQLite in the test's data dir by default; `ASSENT_TEST_BACKEND` names another, and the
//! `on_postgres` test binary (every story file again) runs over `postgres`, so a plain
//! `cargo test` proves both backends. A backend
//! joins the suite as one arm of [`open_store`]: it gets the test's data dir (unique per
//! service, and the same again when a test restarts the service on it, so a restart must
//! find the same data — e.g. derive a database name from the path) and returns the store.
//! Every test then runs against it unchanged:
//!
//! ```sh
//! cargo test -p assent-server                                  # SQLite
//! ASSENT_TEST_BACKEND=postgres cargo test -p assent-server     # once the arm exists
//! ```

use std::path::Path;
use std::sync::Arc;

use assent_server::{Directory, PgStore, SqliteStore, Store, SystemClock};

/// The environment variable naming the backend.
pub const BACKEND_VAR: &str = "ASSENT_TEST_BACKEND";

/// The test binary that runs every story over PostgreSQL (`tests/on_postgres/main.rs`).
const POSTGRES_BINARY: &str = "on_postgres";

/// The backend the suite runs over: [`BACKEND_VAR`] if set, else `postgres` in the
/// `on_postgres` binary, else `sqlite`.
pub fn backend() -> String {
    if let Ok(named) = std::env::var(BACKEND_VAR) {
        return named;
    }
    let binary = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    if binary.starts_with(POSTGRES_BINARY) {
        "postgres".to_owned()
    } else {
        "sqlite".to_owned()
    }
}

/// Opens (creating on first use) the store of the service whose data dir is `data_dir`.
pub async fn open_store(data_dir: &Path) -> Arc<dyn Store> {
    match backend().as_str() {
        "sqlite" => Arc::new({
            std::fs::create_dir_all(data_dir).expect("the test's data dir can be created");
            SqliteStore::open(&data_dir.join("assent.db"))
                .await
                .expect("the SQLite store opens in the test's data dir")
        }),
        // A database of the binary's throwaway cluster, named after the data dir: a restart
        // on the same data dir finds the same data.
        "postgres" => Arc::new(
            PgStore::open(&super::pg::shared().database_for(data_dir))
                .await
                .expect("the PostgreSQL store opens in the test's database"),
        ),
        other => {
            panic!("{BACKEND_VAR}={other:?} is not a backend this suite knows (sqlite, postgres)")
        }
    }
}

/// The identities of the service whose data dir is `data_dir`, on the same backend, as an
/// admin command beside the running service sees them.
pub async fn directory(data_dir: &Path) -> Directory {
    Directory::over(open_store(data_dir).await, Arc::new(SystemClock))
}

/// Runs `sql` on the database the test backend keeps for `data_dir` the way an attacker with
/// write access would: the `sqlite3` CLI on the file, `psql` on the PostgreSQL database.
/// `{overriding}` in `sql` becomes `OVERRIDING SYSTEM VALUE` on PostgreSQL (to write its
/// identity column `seq`), nothing on SQLite.
pub fn tamper(data_dir: &Path, sql: &str) {
    let mut cmd = match backend().as_str() {
        "postgres" => {
            let mut psql = std::process::Command::new("psql");
            psql.args([
                &super::pg::shared().database_for(data_dir),
                "-v",
                "ON_ERROR_STOP=1",
                "-qc",
                &sql.replace("{overriding}", "OVERRIDING SYSTEM VALUE"),
            ]);
            psql
        }
        _ => {
            // The store's WAL checkpointer may still hold the file a moment after close: wait
            // on it the way an attacker's sqlite3 would (its busy timeout), not with a sleep.
            let mut sqlite3 = std::process::Command::new("sqlite3");
            sqlite3
                .args(["-cmd", ".timeout 5000"])
                .arg(data_dir.join("assent.db"))
                .arg(sql.replace("{overriding}", ""));
            sqlite3
        }
    };
    let out = cmd.output().expect("the database's CLI runs");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
