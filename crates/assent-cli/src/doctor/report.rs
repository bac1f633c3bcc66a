//! What a check found, and how the findings are printed: one line per check (`✓`, `!`, `✗`)
//! with the fix under each failure and warning, or one JSON document for scripts.

use serde::Serialize;

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// As it should be.
    Pass,
    /// Worth fixing, but nothing gets through unguarded because of it.
    Warn,
    /// Something could let an action through unguarded, or the guard cannot work.
    Fail,
}

/// One check's finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// Which check, a stable name (`service`, `tokens`, `claude-code.hooks`…).
    pub check: String,
    pub status: Status,
    /// What was found.
    pub message: String,
    /// What to do about it (failures and warnings).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// A failure that makes the gates refuse every call (no service, no token) rather than
    /// let one through: the summary says which.
    #[serde(skip)]
    pub closed: bool,
}

impl Check {
    pub fn pass(check: &str, message: impl Into<String>) -> Check {
        Check {
            check: check.to_owned(),
            status: Status::Pass,
            message: message.into(),
            fix: None,
            closed: false,
        }
    }

    pub fn warn(check: &str, message: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            check: check.to_owned(),
            status: Status::Warn,
            message: message.into(),
            fix: Some(fix.into()),
            closed: false,
        }
    }

    pub fn fail(check: &str, message: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            check: check.to_owned(),
            status: Status::Fail,
            message: message.into(),
            fix: Some(fix.into()),
            closed: false,
        }
    }

    /// A failure that refuses every gated call (the gates fail closed), not one that lets a
    /// call through.
    pub fn fail_closed(check: &str, message: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            closed: true,
            ..Check::fail(check, message, fix)
        }
    }
}

/// Exit code: every check passed or only warned.
pub const EXIT_OK: u8 = 0;
/// Exit code: a check failed — an action could go through unguarded, or the guard is broken.
pub const EXIT_FAILED: u8 = 1;

/// The exit code for these findings.
pub fn exit_code(checks: &[Check]) -> u8 {
    if checks.iter().any(|c| c.status == Status::Fail) {
        EXIT_FAILED
    } else {
        EXIT_OK
    }
}

/// The findings as text: one line per check, the fix indented under it.
pub fn text(checks: &[Check]) -> String {
    let mut out = String::new();
    for check in checks {
        let mark = match check.status {
            Status::Pass => "✓",
            Status::Warn => "!",
            Status::Fail => "✗",
        };
        out.push_str(&format!("{mark} {}: {}\n", check.check, check.message));
        if let Some(fix) = &check.fix {
            out.push_str(&format!("    fix: {fix}\n"));
        }
    }
    let failed = checks.iter().filter(|c| c.status == Status::Fail).count();
    let warned = checks.iter().filter(|c| c.status == Status::Warn).count();
    let open = checks.iter().any(|c| c.status == Status::Fail && !c.closed);
    out.push_str(&match (failed, open) {
        (0, _) => format!("all guarded ({warned} warning(s))\n"),
        (n, true) => format!("{n} check(s) failed: actions may go through unguarded\n"),
        (n, false) => {
            format!("{n} check(s) failed: every gated tool call is refused until they are fixed\n")
        }
    });
    out
}

#[derive(Serialize)]
struct Document<'a> {
    ok: bool,
    exit_code: u8,
    checks: &'a [Check],
}

/// The findings as one JSON document: `{"ok", "exit_code", "checks": [{"check", "status",
/// "message", "fix"?}]}`.
pub fn json(checks: &[Check]) -> String {
    let code = exit_code(checks);
    let doc = Document {
        ok: code == EXIT_OK,
        exit_code: code,
        checks,
    };
    serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_says_whether_a_failure_refuses_or_lets_through() {
        let down = [
            Check::fail_closed("service", "down", "start it"),
            Check::warn("desktop.tray", "no tray", "start one"),
        ];
        let summary = text(&down);
        assert!(
            summary.ends_with(
                "1 check(s) failed: every gated tool call is refused until they are fixed\n"
            ),
            "a stopped service refuses every call, it lets none through: {summary}"
        );
        let open = [
            Check::fail_closed("service", "down", "start it"),
            Check::fail("claude-code.fail-closed", "no onFailure", "install again"),
        ];
        let summary = text(&open);
        assert!(
            summary.ends_with("2 check(s) failed: actions may go through unguarded\n"),
            "one failure that lets a call through is enough to say so: {summary}"
        );
    }

    #[test]
    fn warnings_do_not_fail_but_failures_do() {
        let warned = [
            Check::pass("a", "fine"),
            Check::warn("b", "no tray", "start one"),
        ];
        assert_eq!(
            exit_code(&warned),
            EXIT_OK,
            "a warning lets nothing through"
        );
        let failed = [
            Check::pass("a", "fine"),
            Check::fail("c", "down", "start it"),
        ];
        assert_eq!(
            exit_code(&failed),
            EXIT_FAILED,
            "a failure is reported in the exit code"
        );
        let shown = text(&failed);
        assert!(
            shown.contains("✗ c: down\n    fix: start it\n"),
            "the fix sits under the failure: {shown}"
        );
    }
}
