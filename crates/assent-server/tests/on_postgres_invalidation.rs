//! The invalidation stories and the store's side of them again, over PostgreSQL: this binary's name makes
//! `common::backend` open a database of the binary's throwaway cluster for each service (see
//! `common/backend.rs`), the same tests unchanged.
#![allow(
    clippy::duplicate_mod,
    reason = "each story file brings its own `common`, as in its own binary"
)]

#[path = "invalidation.rs"]
mod invalidation;
#[path = "invalidation_triggers.rs"]
mod invalidation_triggers;
#[path = "storage_invalidation.rs"]
mod storage_invalidation;
