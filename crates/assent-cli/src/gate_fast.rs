//! The fast gate: `assent-gate AGENT …`, a binary of its own beside `assent` that answers the
//! hook gates (`assent gate claude-code`, `codex`, `gemini`, `cursor`, `copilot`, `opencode`)
//! with the very same code and flags, but links nothing else — no service, stores, async
//! runtime or TLS set-up for `http://` — so each tool call pays for loading a small binary,
//! not the whole desk.
//! `assent install` names it when it is installed beside `assent`; `assent gate AGENT` stays.

use std::path::{Path, PathBuf};

/// The fast gate's file name, beside `assent`.
pub const PROGRAM: &str = "assent-gate";

/// The gates `assent-gate` answers itself; any other (`mcp`, a word it does not know) it
/// hands to `assent gate …` beside it.
pub const AGENTS: [&str; 6] = [
    "claude-code",
    "codex",
    "gemini",
    "cursor",
    "copilot",
    "opencode",
];

/// `assent-gate` in the directory of `assent` (`bin`), when it is an executable file there.
pub fn beside(assent: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let fast = assent.parent()?.join(PROGRAM);
    let meta = std::fs::metadata(&fast).ok()?;
    (meta.is_file() && meta.permissions().mode() & 0o111 != 0).then_some(fast)
}
