//! The link between the two processes: one JSON object per line, [`ToWindow`] on the window's
//! stdin, [`FromWindow`] on its stdout (its stderr is the log); and how the desk starts the
//! window process.

use serde::{Deserialize, Serialize};

use crate::call::WindowCall;
use crate::error::CommandError;

/// The window's argument naming the prompt to show first.
pub const FOCUS_ARG: &str = "--focus";
/// The longest line either side accepts (a desk snapshot with hundreds of prompts fits).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// From the desk to the window, one per line on the window's stdin.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToWindow {
    /// Forward to the page on the desk event channel.
    Desk { event: serde_json::Value },
    /// Show and focus the window, on this prompt if given.
    Focus { approval_id: Option<String> },
    /// The answer to the window's call `id`.
    Reply {
        id: u64,
        result: Result<serde_json::Value, CommandError>,
    },
}

/// From the window to the desk, one per line on the window's stdout.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromWindow {
    Call { id: u64, call: WindowCall },
}

/// Whether `id` is safe to hand to the window (it becomes part of the page's URL).
pub fn plain_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The window process's defaults, set before GTK and WebKit start (a value the person set
/// wins); WebKit's web and network processes inherit them. GTK's own GL is not needed for the
/// window's chrome (the webview renders in WebKit's process). The DMA-BUF renderer costs more
/// while the window is open and shows the same page. JavaScriptCore's JIT costs memory in the
/// web process (JIT worker threads, executable memory) for a page whose scripts are a few
/// small views the interpreter runs fast enough (docs/benchmarks.md has the measurements).
pub const WINDOW_PROCESS_DEFAULTS: [(&str, &str); 3] = [
    ("GDK_GL", "disable"),
    ("WEBKIT_DISABLE_DMABUF_RENDERER", "1"),
    ("JSC_useJIT", "0"),
];

/// Sets [`WINDOW_PROCESS_DEFAULTS`] the person has not set. Call first in `main`, before any
/// thread exists: nothing may read the environment concurrently.
pub fn set_process_defaults() {
    for (name, value) in WINDOW_PROCESS_DEFAULTS {
        if std::env::var_os(name).is_none() {
            std::env::set_var(name, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_ids_reach_the_window() {
        assert!(plain_id("ap_01H-xyz"), "ids of the service are plain");
        for hostile in ["", "../x", "a#b", "a?b=c", "a b", &"x".repeat(129)] {
            assert!(!plain_id(hostile), "{hostile:?} must not shape the URL");
        }
    }

    #[test]
    fn calls_keep_the_page_command_names_and_arguments() {
        // The page invokes desk_call with {"command": name, "args": args} (ui/src/ipc.gen.ts,
        // generated from WindowCall): names and argument keys are the page's and must not drift.
        let call: WindowCall = serde_json::from_value(serde_json::json!({
            "command": "grant_revoke",
            "args": {"grant_id": "g-1", "reason": "done"}
        }))
        .expect("grant_revoke parses");
        assert!(
            matches!(call, WindowCall::GrantRevoke { ref grant_id, ref reason } if grant_id == "g-1" && reason == "done"),
            "{call:?}"
        );
        let call: WindowCall =
            serde_json::from_value(serde_json::json!({"command": "desk_snapshot"}))
                .expect("a call without arguments parses");
        assert!(matches!(call, WindowCall::DeskSnapshot), "{call:?}");
        let call: WindowCall = serde_json::from_value(serde_json::json!({
            "command": "insights_get",
            "args": {"since": "2030-01-01T00:00:00+01:00"}
        }))
        .expect("insights_get parses");
        assert!(
            matches!(call, WindowCall::InsightsGet { since } if since.to_rfc3339() == "2029-12-31T23:00:00+00:00"),
            "the page's local midnight arrives as an instant: {call:?}"
        );
        let call: WindowCall = serde_json::from_value(serde_json::json!({
            "command": "settings_save",
            "args": {"input": {"service_url": "http://127.0.0.1:7", "token": null,
                               "notifications": true, "autostart": false}}
        }))
        .expect("settings_save without deny_reasons parses");
        assert!(
            matches!(call, WindowCall::SettingsSave { ref input } if input.deny_reasons.is_none()),
            "absent deny reasons keep the stored ones: {call:?}"
        );
        for hostile in [
            serde_json::json!({"command": "insights_get", "args": {"since": "two weeks ago"}}),
            serde_json::json!({"command": "shell_exec", "args": {"cmd": "rm -rf ~"}}),
            serde_json::json!({"command": "approval_decide", "args": {"approval_id": "a"}}),
            serde_json::json!({"command": "suggestions_get", "args": {"since_days": "7"}}),
            serde_json::json!({"command": "pause_set", "args": {"choice": "forever"}}),
            serde_json::json!("approval_decide"),
        ] {
            assert!(
                serde_json::from_value::<WindowCall>(hostile.clone()).is_err(),
                "only the listed commands with their arguments reach the desk: {hostile}"
            );
        }
    }

    #[test]
    fn a_reply_round_trips_with_its_error_code() {
        let reply = ToWindow::Reply {
            id: 7,
            result: Err(CommandError::invalid("a denial needs a reason")),
        };
        let line = serde_json::to_string(&reply).expect("encode");
        assert!(!line.contains('\n'), "one message is one line: {line}");
        let back: ToWindow = serde_json::from_str(&line).expect("decode");
        match back {
            ToWindow::Reply {
                id,
                result: Err(err),
            } => {
                assert_eq!(id, 7, "the reply names its call");
                assert_eq!(
                    err,
                    CommandError::invalid("a denial needs a reason"),
                    "the code survives"
                );
            }
            other => panic!("a reply must decode as a reply: {other:?}"),
        }
    }
}
