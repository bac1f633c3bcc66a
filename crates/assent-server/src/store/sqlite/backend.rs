//! What SQLite gives the statement files of `store/sql/` (compiled here as `sqlite::sql`): the
//! types they run on, and the dialect macros where its SQL differs from PostgreSQL's
//! (`store/pg/backend.rs` is the other one). The SQL is text with `$N` placeholders, which
//! both drivers read.

/// The connection a statement runs on (a transaction derefs to it).
pub type Conn = sqlx::SqliteConnection;
/// A row a statement answers.
pub type DbRow = sqlx::sqlite::SqliteRow;
/// The database, for `QueryBuilder<Db>`.
pub type Db = sqlx::Sqlite;
/// The pool reads run on.
pub type Pool = sqlx::SqlitePool;
/// The write transaction the shared `Tx` implementation (`sql/tx.rs`) is for.
pub type WriteTx = super::tx::SqliteTx;
/// The store the shared `Store` implementation (`sql/store.rs`) is for.
pub type StoreImpl = super::SqliteStore;

/// Nothing to lock: one writer (`BEGIN IMMEDIATE`) holds the whole database.
macro_rules! skip_locked {
    () => {
        ""
    };
}

/// Nothing to lock, as for `skip_locked!`.
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
