//! What PostgreSQL gives the statement files of `store/sql/` (compiled here as `pg::sql`): the
//! types they run on, and the dialect macros where its SQL differs from SQLite's
//! (`store/sqlite/backend.rs` is the other one). The SQL is text with `$N` placeholders, which
//! both drivers read.

/// The connection a statement runs on (a transaction derefs to it).
pub type Conn = sqlx::PgConnection;
/// A row a statement answers.
pub type DbRow = sqlx::postgres::PgRow;
/// The database, for `QueryBuilder<Db>`.
pub type Db = sqlx::Postgres;
/// The pool reads run on.
pub type Pool = sqlx::PgPool;
/// The write transaction the shared `Tx` implementation (`sql/tx.rs`) is for.
pub type WriteTx = super::tx::PgTx;
/// The store the shared `Store` implementation (`sql/store.rs`) is for.
pub type StoreImpl = super::PgStore;

/// Locks the rows selected and skips those another writer holds: of several replicas
/// sweeping at once, each takes its own rows.
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
