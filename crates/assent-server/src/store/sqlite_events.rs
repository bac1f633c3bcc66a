//! The SQLite event bus: the `events` table, and an in-process watch of its newest id that
//! a transaction moves after committing events (`SqliteTx::commit`).

pub use super::sqlite_sql::events::{bounds, Events as SqliteEvents};
