//! The backend every story test runs over, so one suite proves every store.
//!
//! SQLite in the test's data dir by default; `ASSENT_TEST_BACKEND` names another. A backend
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

use assent_server::{Directory, SqliteStore, Store, SystemClock};

/// The environment variable naming the backend.
pub const BACKEND_VAR: &str = "ASSENT_TEST_BACKEND";

/// The backend the suite runs over (`sqlite` unless [`BACKEND_VAR`] says otherwise).
pub fn backend() -> String {
    std::env::var(BACKEND_VAR).unwrap_or_else(|_| "sqlite".to_owned())
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
        other => panic!("{BACKEND_VAR}={other:?} is not a backend this suite knows (sqlite)"),
    }
}

/// The identities of the service whose data dir is `data_dir`, on the same backend, as an
/// admin command beside the running service sees them.
pub async fn directory(data_dir: &Path) -> Directory {
    Directory::over(open_store(data_dir).await, Arc::new(SystemClock))
}
