//! The identity-cache stories over PostgreSQL with two replicas on one database (this
//! binary's name makes `common::backend` choose PostgreSQL).

#[path = "identity_cache.rs"]
mod identity_cache;
