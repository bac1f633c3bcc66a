//! PostgreSQL's copy of the statements in `sql/`: each file there is compiled once per backend,
//! here with PostgreSQL's connection and row types and its dialect. The SQL is text with `$N`
//! placeholders (sqlx's SQLite driver reads them too); the macros below are the only places
//! where the two dialects differ. `sqlite_sql.rs` is the other copy.

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
    pub type Conn = sqlx::PgConnection;
    pub type DbRow = sqlx::postgres::PgRow;
    pub type Db = sqlx::Postgres;
    pub type WriteTx = crate::store::pg_tx::PgTx;
    pub type StoreImpl = crate::store::pg::PgStore;
    pub type Pool = sqlx::PgPool;
}

/// Locks the rows selected and skips those another replica holds: of several replicas
/// sweeping at once, each takes its own.
macro_rules! skip_locked {
    () => {
        " FOR UPDATE SKIP LOCKED"
    };
}

/// Locks the row selected until the transaction ends.
macro_rules! for_update {
    () => {
        " FOR UPDATE"
    };
}

/// The text at a path of a JSON column stored as text: `json_text!("detail", "evidence", "type")`.
macro_rules! json_text {
    ($col:literal $(, $key:literal)+) => {
        concat!("jsonb_extract_path_text(", $col, "::jsonb", $(", '", $key, "'",)+ ")")
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
