//! Whether each installed agent runs its commands in its own sandbox with Assent's places out
//! of reach (`assent install … --sandbox`). Not sandboxed is a warning, not a failure: the
//! hooks still guard every action; the sandbox is what holds when the policy has a hole.
//! Agents whose hooks are not installed are not reported.

use serde_json::Value;
use toml_edit::DocumentMut;

use super::report::Check;
use crate::install::{claude_sandbox, codex_sandbox};
use crate::sandbox::places::Places;

/// Claude Code's settings (the file holding the gate's hooks).
pub fn claude_code(settings: Option<&Value>, places: &Places) -> Check {
    judge(
        "claude-code.sandbox",
        "Claude Code",
        &claude_sandbox::gaps(settings, places),
        "assent install claude-code --sandbox",
    )
}

/// Codex's config (the file holding the gate's hooks); `exists` says which places are there.
pub fn codex(
    doc: Option<&DocumentMut>,
    places: &Places,
    exists: &dyn Fn(&std::path::Path) -> bool,
) -> Check {
    judge(
        "codex.sandbox",
        "Codex",
        &codex_sandbox::gaps(doc, places, exists),
        "assent install codex --sandbox (or run codex under `assent sandbox`)",
    )
}

fn judge(check: &str, agent: &str, gaps: &[String], fix: &str) -> Check {
    if gaps.is_empty() {
        Check::pass(
            check,
            format!(
                "{agent} runs commands sandboxed: Assent's places and the secret stores \
                 unreadable, the hook settings unwritable, no unsandboxed fallback"
            ),
        )
    } else {
        Check::warn(
            check,
            format!(
                "{agent} is not sandboxed ({}): a hole in the policy could reach Assent's \
                 tokens",
                gaps.join("; ")
            ),
            fix,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::claude_sandbox::with_sandbox;
    use serde_json::json;

    #[test]
    fn sandboxed_passes_and_a_setting_off_warns() {
        let places = Places {
            hidden: vec!["/h/.local/share/assent".into()],
            read_only: vec!["/h/.claude/settings.json".into()],
        };
        let (on, _) = with_sandbox(&json!({}), &places, None);
        let check = claude_code(Some(&on), &places);
        assert_eq!(
            check.status,
            super::super::report::Status::Pass,
            "{check:?}"
        );
        let mut off = on.clone();
        off["sandbox"]["allowUnsandboxedCommands"] = json!(true);
        let check = claude_code(Some(&off), &places);
        assert_eq!(
            check.status,
            super::super::report::Status::Warn,
            "an unsandboxed fallback is no sandbox: {check:?}"
        );
        assert!(
            check.message.contains("allowUnsandboxedCommands"),
            "{check:?}"
        );
    }
}
