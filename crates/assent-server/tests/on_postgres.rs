//! Every story test again, over PostgreSQL: this binary's name makes `common::backend` open a
//! database of the binary's throwaway cluster for each service (see `common/backend.rs`), so
//! a plain `cargo test` proves both backends with the same tests, unchanged.
#![allow(
    clippy::duplicate_mod,
    reason = "each story file brings its own `common`, as in its own binary"
)]

#[path = "capabilities.rs"]
mod capabilities;
#[path = "decide.rs"]
mod decide;
#[path = "diff_pr.rs"]
mod diff_pr;
#[path = "events.rs"]
mod events;
#[path = "exceptions.rs"]
mod exceptions;
#[path = "executed.rs"]
mod executed;
#[path = "fallback.rs"]
mod fallback;
#[path = "fatigue.rs"]
mod fatigue;
#[path = "observe.rs"]
mod observe;
#[path = "people.rs"]
mod people;
#[path = "policy_apply.rs"]
mod policy_apply;
#[path = "restart.rs"]
mod restart;
#[path = "runs_fleet.rs"]
mod runs_fleet;
#[path = "screen.rs"]
mod screen;
#[path = "security.rs"]
mod security;
#[path = "storage.rs"]
mod storage;
#[path = "submit.rs"]
mod submit;
#[path = "symlinks.rs"]
mod symlinks;
