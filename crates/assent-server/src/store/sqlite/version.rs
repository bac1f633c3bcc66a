//! The identity version (see `migrations/sqlite/0009_identity_version.sql`), read on every
//! request over one plain SQLite connection of its own. A query through the sqlx pool costs
//! a round trip to the connection's worker thread (about what the token lookup it replaces
//! costs); this read is done in place.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::store::StoreError;

const READ: &str = "SELECT version FROM identity_version WHERE id = 1";

#[derive(Debug)]
pub struct VersionReader {
    /// `None` once the store is closed.
    conn: Mutex<Option<Connection>>,
}

fn failed(err: rusqlite::Error) -> StoreError {
    StoreError::Corrupt(format!("the identity version: {err}"))
}

impl VersionReader {
    /// Opens the (existing, migrated) database at `path`. It only reads; in WAL mode it never
    /// waits for the writer.
    pub fn open(path: &Path) -> Result<VersionReader, StoreError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(failed)?;
        conn.busy_timeout(Duration::from_secs(5)).map_err(failed)?;
        conn.query_row(READ, [], |row| row.get::<_, i64>(0))
            .map_err(failed)?;
        Ok(VersionReader {
            conn: Mutex::new(Some(conn)),
        })
    }

    /// The committed identity version, as of now.
    pub fn read(&self) -> Result<i64, StoreError> {
        let guard = self.conn.lock().map_err(|_| StoreError::Closed)?;
        let conn = guard.as_ref().ok_or(StoreError::Closed)?;
        let mut statement = conn.prepare_cached(READ).map_err(failed)?;
        statement.query_row([], |row| row.get(0)).map_err(failed)
    }

    pub fn close(&self) {
        if let Ok(mut guard) = self.conn.lock() {
            guard.take();
        }
    }
}
