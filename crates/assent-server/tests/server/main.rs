//! assent-server's integration tests in one binary: a real service on a free port over the
//! story backend (SQLite unless `ASSENT_TEST_BACKEND` names another, see `common::backend`),
//! each former test file a module, sharing `common`'s harness, linked once. The
//! `on_postgres` binary runs the same story modules again over PostgreSQL.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]

mod common;
mod grant_moves;

mod agent_events;
mod audit_chain;
mod audit_requester;
mod capabilities;
mod decide;
mod diff_pr;
mod durability;
mod escalation;
mod events;
mod exceptions;
mod executed;
mod fallback;
mod fatigue;
mod grant_bounds;
mod identity_cache;
mod invalidation;
mod invalidation_triggers;
mod observe;
mod openapi;
mod people;
mod policy_apply;
mod restart;
mod reviewer_flow;
mod reviewer_http;
mod runs_fleet;
mod screen;
mod security;
mod storage;
mod storage_invalidation;
mod submit;
mod symlinks;
mod team_reach;
mod web_desk;
mod web_push;
mod webhooks;
