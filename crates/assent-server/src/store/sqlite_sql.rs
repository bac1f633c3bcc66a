//! SQLite's copy of the statements in `sql/`: each file there is compiled once per backend,
//! here with SQLite's connection and row types and its dialect. The SQL is text with `$N`
//! placeholders (sqlx's SQLite driver reads them too); the macros below are the only places
//! where the two dialects differ. `pg_sql.rs` is the other copy.

#![allow(
    clippy::duplicate_mod,
    reason = "the statement files are compiled once per backend on purpose"
)]

// The store's types (`StoreError`, `rows`, `codec`…) as `super::…` in the files below.
#[allow(
    unused_imports,
    reason = "each statement file takes the names it needs from here"
)]
use super::*;

/// The connection, row, database and pool types the statements run on.
mod backend {
    pub type Conn = sqlx::SqliteConnection;
    pub type DbRow = sqlx::sqlite::SqliteRow;
    pub type Db = sqlx::Sqlite;
    pub type WriteTx = crate::store::sqlite_tx::SqliteTx;
    pub type StoreImpl = crate::store::sqlite::SqliteStore;
    pub type Pool = sqlx::SqlitePool;
}

/// Nothing to lock: one writer (`BEGIN IMMEDIATE`) holds the whole database.
macro_rules! skip_locked {
    () => {
        ""
    };
}

/// Nothing to lock: one writer holds the whole database.
macro_rules! for_update {
    () => {
        ""
    };
}

/// The text at a path of a JSON column stored as text: `json_text!("detail", "evidence", "type")`.
macro_rules! json_text {
    ($col:literal, $first:literal $(, $rest:literal)*) => {
        concat!("json_extract(", $col, ", '$.", $first, $(".", $rest,)* "')")
    };
}

#[path = "sql/actions.rs"]
pub mod actions;
#[path = "sql/approvals.rs"]
pub mod approvals;
#[path = "sql/campaigns.rs"]
pub mod campaigns;
#[path = "sql/db_rows.rs"]
pub mod db_rows;
#[path = "sql/executed.rs"]
pub mod executed;
#[path = "sql/expiry.rs"]
pub mod expiry;
#[path = "sql/grants.rs"]
pub mod grants;
#[path = "sql/identities.rs"]
pub mod identities;
#[path = "sql/metrics.rs"]
pub mod metrics;
#[path = "sql/runs.rs"]
pub mod runs;
#[path = "sql/store.rs"]
mod store;
#[path = "sql/tx.rs"]
mod tx;
