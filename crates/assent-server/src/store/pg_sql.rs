//! PostgreSQL's copy of the statements in `sql/`: each file there is compiled once per backend,
//! here with PostgreSQL's connection and row types and its dialect. The SQL is text with `$N`
//! placeholders (sqlx's SQLite driver reads them too); the macros below are the only places
//! where the two dialects differ. `sqlite_sql.rs` is the other copy.

backend! {
    conn: sqlx::PgConnection, row: sqlx::postgres::PgRow, db: sqlx::Postgres,
    tx: crate::store::pg_tx::PgTx, store: crate::store::pg::PgStore, pool: sqlx::PgPool,
    // Of several replicas sweeping at once, each takes its own rows.
    skip_locked: " FOR UPDATE SKIP LOCKED", for_update: " FOR UPDATE"
}

/// The text at a path of a JSON column stored as text: `json_text!("detail", "evidence", "type")`.
macro_rules! json_text {
    ($col:literal $(, $key:literal)+) => {
        concat!("jsonb_extract_path_text(", $col, "::jsonb", $(", '", $key, "'",)+ ")")
    };
}

statement_files!();
