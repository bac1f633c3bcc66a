//! Every story test of the `server` binary again, over PostgreSQL, and the tests that need
//! several replicas on one database: this binary's name makes `common::backend` open a
//! database of the binary's one throwaway cluster for each service (see
//! `server/common/backend.rs`), so a plain `cargo test` proves both backends with the same
//! tests, unchanged. The story files live in `tests/server/`; this binary names them by path.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]

#[path = "../server/common/mod.rs"]
mod common;
#[path = "../server/grant_moves/mod.rs"]
mod grant_moves;

mod replicas;
mod replicas_invalidation;
mod replicas_routing;
mod replicas_webhooks;
mod team;

#[path = "../server/agent_events.rs"]
mod agent_events;
#[path = "../server/audit_requester.rs"]
mod audit_requester;
#[path = "../server/capabilities.rs"]
mod capabilities;
#[path = "../server/decide.rs"]
mod decide;
#[path = "../server/diff_pr.rs"]
mod diff_pr;
#[path = "../server/durability.rs"]
mod durability;
#[path = "../server/escalation.rs"]
mod escalation;
#[path = "../server/events.rs"]
mod events;
#[path = "../server/exceptions.rs"]
mod exceptions;
#[path = "../server/executed.rs"]
mod executed;
#[path = "../server/fallback.rs"]
mod fallback;
#[path = "../server/fatigue.rs"]
mod fatigue;
#[path = "../server/grant_bounds.rs"]
mod grant_bounds;
#[path = "../server/identity_cache.rs"]
mod identity_cache;
#[path = "../server/invalidation.rs"]
mod invalidation;
#[path = "../server/invalidation_triggers.rs"]
mod invalidation_triggers;
#[path = "../server/observe.rs"]
mod observe;
#[path = "../server/people.rs"]
mod people;
#[path = "../server/policy_apply.rs"]
mod policy_apply;
#[path = "../server/restart.rs"]
mod restart;
#[path = "../server/reviewer_flow.rs"]
mod reviewer_flow;
#[path = "../server/runs_fleet.rs"]
mod runs_fleet;
#[path = "../server/screen.rs"]
mod screen;
#[path = "../server/security.rs"]
mod security;
#[path = "../server/storage.rs"]
mod storage;
#[path = "../server/storage_invalidation.rs"]
mod storage_invalidation;
#[path = "../server/submit.rs"]
mod submit;
#[path = "../server/symlinks.rs"]
mod symlinks;
#[path = "../server/web_desk.rs"]
mod web_desk;
#[path = "../server/web_push.rs"]
mod web_push;
#[path = "../server/webhooks.rs"]
mod webhooks;
