//! What can go wrong in a store, for every backend.

/// A storage failure. `Conflict` is the only one a client may cause.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0}")]
    Conflict(String),
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("stored data cannot be read: {0}")]
    Corrupt(String),
    #[error("the write of this batch failed: {0}")]
    Batch(String),
    #[error("the store is closed")]
    Closed,
    /// The disk holding the database is full (SQLite's SQLITE_FULL, PostgreSQL's
    /// `disk_full`, or ENOSPC): nothing was recorded.
    #[error("the disk is full: {0}")]
    DiskFull(String),
}

impl StoreError {
    /// Whether the write failed because the disk is full, so a person can be told so.
    pub fn is_disk_full(&self) -> bool {
        match self {
            StoreError::DiskFull(_) => true,
            StoreError::Database(err) => sqlx_disk_full(err),
            _ => false,
        }
    }
}

/// SQLite's SQLITE_FULL (13), PostgreSQL's SQLSTATE 53100 `disk_full`, or ENOSPC.
fn sqlx_disk_full(err: &sqlx::Error) -> bool {
    const ENOSPC: i32 = 28;
    match err {
        sqlx::Error::Database(db) => db
            .code()
            .is_some_and(|code| code == "13" || code == "53100"),
        sqlx::Error::Io(io) => io.raw_os_error() == Some(ENOSPC),
        _ => false,
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(err: serde_json::Error) -> Self {
        StoreError::Corrupt(err.to_string())
    }
}
