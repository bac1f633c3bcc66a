//! The agents' hook gates: what an agent runs on every tool call. `assent gate AGENT` (the
//! CLI) and `assent-gate AGENT` (this crate's binary, beside `assent`) are the same gates,
//! from the one table [`AGENTS`]. The binary links only this: no service, stores, async
//! runtime or TLS set-up for `http://`, so each tool call pays for loading a small binary, not
//! the whole desk. `assent install` names it when it is installed beside `assent`.
//!
//! Also here, for `assent request` / `exec` / `policy`: the shared decision path
//! ([`outcome`]), the repository and diff evidence of a request ([`repo`], [`change`]).

pub mod agent;
pub mod args;
pub mod change;
pub mod codex_pass;
pub mod hook;
pub mod outcome;
pub mod push;
pub mod repo;

use std::path::{Path, PathBuf};

pub use agent::{agent, Agent, Gate, AGENTS};
pub use args::{HookArgs, OnUnavailable, ServiceArgs};

/// The fast gate's file name, beside `assent`.
pub const PROGRAM: &str = "assent-gate";

/// `assent-gate` in the directory of `assent` (`bin`), when it is an executable file there.
pub fn beside(assent: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let fast = assent.parent()?.join(PROGRAM);
    let meta = std::fs::metadata(&fast).ok()?;
    (meta.is_file() && meta.permissions().mode() & 0o111 != 0).then_some(fast)
}
