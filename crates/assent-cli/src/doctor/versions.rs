//! The agents' versions support what the install relies on: Claude Code honours `onFailure`
//! (2.1.295, [`ON_FAILURE_SINCE`]); Codex runs hooks at all (0.169). Pure functions of what
//! `claude --version` / `codex --version` told.

use crate::install::claude_version::{ClaudeCode, Version, ON_FAILURE_SINCE};

use super::report::Check;

/// The first Codex with hooks.
pub const CODEX_HOOKS_SINCE: Version = Version {
    major: 0,
    minor: 169,
    patch: 0,
};

/// Claude Code's version, for hooks that are (`hooked`) or are not installed.
pub fn claude_code(found: &ClaudeCode, hooked: bool) -> Check {
    const CHECK: &str = "claude-code.version";
    match found {
        ClaudeCode::Found(v) if *v >= ON_FAILURE_SINCE => Check::pass(
            CHECK,
            format!("Claude Code {v} honours onFailure: \"block\""),
        ),
        ClaudeCode::Found(v) => {
            let message = format!(
                "Claude Code {v} is older than {ON_FAILURE_SINCE} and ignores onFailure: if the \
                 gate cannot start, the tool runs unguarded"
            );
            let fix =
                format!("upgrade Claude Code to {ON_FAILURE_SINCE} or later (`claude update`)");
            if hooked {
                Check::fail(CHECK, message, fix)
            } else {
                Check::warn(CHECK, message, fix)
            }
        }
        ClaudeCode::NotFound if !hooked => {
            Check::pass(CHECK, "no `claude` on PATH and no hooks: nothing to check")
        }
        ClaudeCode::NotFound => Check::warn(
            CHECK,
            "no `claude` on PATH: its version is unknown",
            format!("use Claude Code {ON_FAILURE_SINCE} or later; check with `claude --version`"),
        ),
        ClaudeCode::Unknown(why) => Check::warn(
            CHECK,
            format!("cannot tell Claude Code's version: {why}"),
            format!("check `claude --version` is {ON_FAILURE_SINCE} or later"),
        ),
    }
}

/// Codex's version, for hooks that are (`hooked`) or are not installed.
pub fn codex(found: &ClaudeCode, hooked: bool) -> Check {
    const CHECK: &str = "codex.version";
    let fix =
        format!("upgrade Codex to {CODEX_HOOKS_SINCE} or later (`npm install -g @openai/codex`)");
    match found {
        ClaudeCode::Found(v) if *v >= CODEX_HOOKS_SINCE => {
            Check::pass(CHECK, format!("Codex {v} runs hooks"))
        }
        ClaudeCode::Found(v) => {
            let message = format!(
                "Codex {v} is older than {CODEX_HOOKS_SINCE} and runs no hooks: its tools go unguarded"
            );
            if hooked {
                Check::fail(CHECK, message, fix)
            } else {
                Check::warn(CHECK, message, fix)
            }
        }
        ClaudeCode::NotFound if !hooked => {
            Check::pass(CHECK, "no `codex` on PATH and no hooks: nothing to check")
        }
        ClaudeCode::NotFound => {
            Check::warn(CHECK, "no `codex` on PATH: its version is unknown", fix)
        }
        ClaudeCode::Unknown(why) => {
            Check::warn(CHECK, format!("cannot tell Codex's version: {why}"), fix)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::report::Status;

    #[test]
    fn an_old_agent_fails_only_when_it_is_hooked() {
        let old = ClaudeCode::Found(Version {
            major: 2,
            minor: 1,
            patch: 294,
        });
        assert_eq!(
            claude_code(&old, true).status,
            Status::Fail,
            "hooks that fail open"
        );
        assert_eq!(
            claude_code(&old, false).status,
            Status::Warn,
            "nothing relies on it yet"
        );
        assert_eq!(
            claude_code(&ClaudeCode::Found(ON_FAILURE_SINCE), true).status,
            Status::Pass,
            "the first version with onFailure"
        );
        let old_codex = ClaudeCode::Found(Version {
            major: 0,
            minor: 168,
            patch: 9,
        });
        assert_eq!(
            codex(&old_codex, true).status,
            Status::Fail,
            "a Codex without hooks runs tools unguarded"
        );
        assert_eq!(
            codex(&ClaudeCode::Found(CODEX_HOOKS_SINCE), true).status,
            Status::Pass,
            "0.169 runs hooks"
        );
    }
}
