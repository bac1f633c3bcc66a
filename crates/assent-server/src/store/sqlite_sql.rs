//! SQLite's copy of the statements in `sql/`: each file there is compiled once per backend,
//! here with SQLite's connection and row types and its dialect. The SQL is text with `$N`
//! placeholders (sqlx's SQLite driver reads them too); the macros below are the only places
//! where the two dialects differ. `pg_sql.rs` is the other copy.

backend! {
    conn: sqlx::SqliteConnection, row: sqlx::sqlite::SqliteRow, db: sqlx::Sqlite,
    tx: crate::store::sqlite_tx::SqliteTx, store: crate::store::sqlite::SqliteStore,
    pool: sqlx::SqlitePool,
    // Nothing to lock: one writer (`BEGIN IMMEDIATE`) holds the whole database.
    skip_locked: "", for_update: ""
}

/// The text at a path of a JSON column stored as text: `json_text!("detail", "evidence", "type")`.
macro_rules! json_text {
    ($col:literal, $first:literal $(, $rest:literal)*) => {
        concat!("json_extract(", $col, ", '$.", $first, $(".", $rest,)* "')")
    };
}

statement_files!();
