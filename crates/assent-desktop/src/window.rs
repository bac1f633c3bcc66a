//! The window: a second process (`assent-window`, the Tauri webview) started on *Open* and
//! gone when the window closes, so the idle tray process carries neither GTK nor WebKit.
//!
//! The link is one JSON object per line: [`ToWindow`] on the window's stdin, [`FromWindow`] on
//! its stdout (its stderr is the log). The window holds no token: each command the page
//! invokes is forwarded here as a [`WindowCall`], answered by [`crate::commands`] through the
//! service with the approver token this process holds. Closing the window ends the process;
//! this process closing the window's stdin (Quit, or this process dying) ends it too.

use std::future::Future;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use assent_protocol::DecisionRequest;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::app_state::locked;
use crate::ipc::{CommandError, DeskEvent};
use crate::pause::PauseChoice;

/// Overrides where the window binary is (default: `assent-window` beside this binary).
pub const WINDOW_BIN_ENV: &str = "ASSENT_WINDOW_BIN";
/// The window binary's name.
pub const WINDOW_BIN: &str = "assent-window";
/// The window's argument naming the prompt to show first.
pub const FOCUS_ARG: &str = "--focus";
/// The longest line either side accepts (a desk snapshot with hundreds of prompts fits).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// What the window may change. `token: None` keeps the stored token; `Some("")` clears it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SettingsInput {
    pub service_url: String,
    pub token: Option<String>,
    pub notifications: bool,
    pub autostart: bool,
    /// The deny reasons offered in one tap, one per entry; `None` keeps them.
    #[serde(default)]
    pub deny_reasons: Option<Vec<String>>,
}

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

/// A command the page invoked (same names and arguments as the page's typed IPC).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "command", content = "args", rename_all = "snake_case")]
pub enum WindowCall {
    DeskSnapshot,
    ApprovalDecide {
        approval_id: String,
        decision: DecisionRequest,
    },
    GrantRevoke {
        grant_id: String,
        reason: String,
    },
    RunResume {
        run_id: String,
    },
    /// Fleet campaigns: their stages, batches and outcomes.
    CampaignList,
    /// Let a stopped campaign go on (the desk's person token).
    CampaignResume {
        campaign_id: String,
    },
    AuditList {
        run_id: Option<String>,
    },
    /// The run's remembered denials (a person's denial answering equivalent requests).
    DenialList {
        run_id: String,
    },
    /// Undo a remembered denial: equivalent requests of its run ask again.
    DenialForget {
        approval_id: String,
    },
    /// The Insights view's figures: the service's metrics and the audit since `since`.
    InsightsGet {
        since: chrono::DateTime<chrono::Utc>,
    },
    /// Policy changes proposed from the decisions of the last `since_days` days.
    SuggestionsGet {
        since_days: i64,
    },
    /// Apply one suggested change: the service writes its policy file and puts it in force.
    SuggestionApply {
        change: assent_core::suggest::PolicyChange,
        since_days: i64,
    },
    PauseSet {
        choice: PauseChoice,
    },
    SettingsGet,
    /// The public key that checks the service's audit checkpoints (Settings).
    AuditKeyGet,
    /// The service walks its audit chain: where it breaks, or how much of it holds.
    AuditVerify,
    SettingsSave {
        input: SettingsInput,
    },
    /// "Retry now" on the lost-service banner: reconnect at once instead of after the backoff.
    ServiceRetry,
    /// "Confirm in the browser" on a prompt the policy's step-up holds: the tray opens the web
    /// desk's page the service named for it (never an address the page supplies).
    StepUpOpen {
        approval_id: String,
    },
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

/// Whether `id` is safe to hand to the window (it becomes part of the page's URL).
pub fn plain_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// `ASSENT_WINDOW_BIN`, else `assent-window` beside this binary, else on `PATH`.
pub fn window_binary() -> PathBuf {
    if let Some(path) = std::env::var_os(WINDOW_BIN_ENV) {
        return PathBuf::from(path);
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(WINDOW_BIN)))
        .filter(|path| path.exists())
        .unwrap_or_else(|| PathBuf::from(WINDOW_BIN))
}

struct Open {
    to_window: mpsc::UnboundedSender<ToWindow>,
    /// Killed when dropped (Quit); tokio reaps it once it has exited.
    process: tokio::process::Child,
}

impl Open {
    /// Whether the process still runs (it may have ended a moment before its pipe said so).
    /// A window whose main thread has exited while its other threads wind down is a zombie
    /// `waitpid` cannot reap yet: it is ending, and a focus sent to it would be lost.
    fn runs(&mut self) -> bool {
        matches!(self.process.try_wait(), Ok(None))
            && self.process.id().is_some_and(|pid| !exiting(pid))
    }
}

/// Whether process `pid` is gone or a zombie (`/proc/PID/stat` state `Z` or `X`).
fn exiting(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit_once(')')
                .map(|(_, rest)| rest.trim_start().starts_with(['Z', 'X']))
        })
        .unwrap_or(true)
}

/// The window process, when one runs.
pub struct WindowHost {
    binary: PathBuf,
    /// Shared with the task reading the window's stdout, which clears it when the window ends.
    open: Arc<Mutex<Option<Open>>>,
}

impl WindowHost {
    pub fn new(binary: PathBuf) -> WindowHost {
        WindowHost {
            binary,
            open: Arc::new(Mutex::new(None)),
        }
    }

    /// Focuses the running window (on `focus`), or starts one whose calls `answer` answers.
    pub(crate) fn open<A, F>(&self, focus: Option<&str>, answer: A)
    where
        A: Fn(WindowCall) -> F + Send + Sync + 'static,
        F: Future<Output = Result<serde_json::Value, CommandError>> + Send + 'static,
    {
        let focus = focus.filter(|id| plain_id(id));
        let mut open = locked(&self.open);
        if let Some(running) = open.as_mut() {
            let focus = ToWindow::Focus {
                approval_id: focus.map(str::to_owned),
            };
            if running.runs() && running.to_window.send(focus).is_ok() {
                return;
            }
        }
        match self.spawn(focus, answer) {
            Ok((to_window, process)) => *open = Some(Open { to_window, process }),
            Err(err) => {
                tracing::error!(%err, binary = %self.binary.display(), "cannot open the window");
                *open = None;
            }
        }
    }

    fn spawn<A, F>(
        &self,
        focus: Option<&str>,
        answer: A,
    ) -> std::io::Result<(mpsc::UnboundedSender<ToWindow>, tokio::process::Child)>
    where
        A: Fn(WindowCall) -> F + Send + Sync + 'static,
        F: Future<Output = Result<serde_json::Value, CommandError>> + Send + 'static,
    {
        let mut command = tokio::process::Command::new(&self.binary);
        if let Some(id) = focus {
            command.arg(FOCUS_ARG).arg(id);
        }
        // The window inherits the environment (display, WebDriver's inspector address in the
        // end-to-end tests) but never the service token.
        command
            .env_remove(assent_client::TOKEN_ENV)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(std::io::Error::other("the window's pipes are missing"));
        };
        let (to_window, mut outgoing) = mpsc::unbounded_channel::<ToWindow>();
        tokio::spawn(async move {
            let mut stdin = stdin;
            while let Some(message) = outgoing.recv().await {
                let Ok(mut line) = serde_json::to_vec(&message) else {
                    continue;
                };
                line.push(b'\n');
                if stdin.write_all(&line).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
            // Dropping stdin tells the window to close.
        });
        let replies = to_window.clone();
        let open = Arc::clone(&self.open);
        tokio::spawn(async move {
            let mut stdout = BufReader::new(stdout);
            while let Ok(Some(line)) = next_line(&mut stdout, MAX_LINE_BYTES).await {
                let line = match line {
                    Line::Text(line) => line,
                    Line::TooLong(bytes) => {
                        tracing::warn!(bytes, "ignoring an oversized line from the window");
                        continue;
                    }
                };
                match serde_json::from_str::<FromWindow>(&line) {
                    Ok(FromWindow::Call { id, call }) => {
                        let answered = answer(call);
                        let replies = replies.clone();
                        tokio::spawn(async move {
                            let result = answered.await;
                            let _ = replies.send(ToWindow::Reply { id, result });
                        });
                    }
                    Err(err) => tracing::debug!(%err, "not a window message: {line:.200}"),
                }
            }
            tracing::info!("the window closed");
            ended(&open, &replies);
        });
        Ok((to_window, child))
    }

    /// Whether a window process runs.
    pub fn is_open(&self) -> bool {
        locked(&self.open).is_some()
    }

    /// Sends `event` to the page, if the window is open.
    pub fn emit(&self, event: &DeskEvent) {
        let open = locked(&self.open);
        let Some(running) = open.as_ref() else {
            return;
        };
        match serde_json::to_value(event) {
            Ok(event) => {
                let _ = running.to_window.send(ToWindow::Desk { event });
            }
            Err(err) => tracing::warn!(%err, "cannot encode the desk event"),
        }
    }

    /// Closes the window (Quit): its stdin closes and it exits.
    pub fn close(&self) {
        *locked(&self.open) = None;
    }
}

/// The window process whose link `to_window` is ended (its stdout closed); a newer one started
/// since stays.
fn ended(open: &Mutex<Option<Open>>, to_window: &mpsc::UnboundedSender<ToWindow>) {
    let mut open = locked(open);
    if open
        .as_ref()
        .is_some_and(|o| o.to_window.same_channel(to_window))
    {
        *open = None;
    }
}

/// One line read from the window.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    Text(String),
    /// Longer than the limit: skipped without being held in memory (its length in bytes).
    TooLong(usize),
}

fn text(bytes: &[u8]) -> Line {
    Line::Text(String::from_utf8_lossy(bytes).into_owned())
}

/// The next `\n`-terminated line (the last may lack it), holding at most `max` bytes of it in
/// memory; `None` at the end of the stream.
pub async fn next_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    max: usize,
) -> std::io::Result<Option<Line>> {
    let mut line = Vec::new();
    let mut skipped = 0usize;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(match (line.is_empty(), skipped) {
                (true, 0) => None,
                (false, 0) => Some(text(&line)),
                _ => Some(Line::TooLong(skipped)),
            });
        }
        let newline = available.iter().position(|byte| *byte == b'\n');
        let (chunk, used) = match newline {
            Some(at) => (available.split_at(at).0, at + 1),
            None => (available, available.len()),
        };
        if skipped > 0 || line.len() + chunk.len() > max {
            skipped += line.len() + chunk.len();
            line = Vec::new();
        } else {
            line.extend_from_slice(chunk);
        }
        reader.consume(used);
        if newline.is_some() {
            return Ok(Some(if skipped > 0 {
                Line::TooLong(skipped)
            } else {
                text(&line)
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines_of(input: &[u8], max: usize) -> Vec<Line> {
        // A tiny buffer: lines arrive in many pieces, as from a pipe.
        let mut reader = tokio::io::BufReader::with_capacity(3, input);
        let mut lines = Vec::new();
        while let Some(line) = next_line(&mut reader, max).await.expect("read") {
            lines.push(line);
        }
        lines
    }

    #[tokio::test]
    async fn lines_are_bounded_and_garbage_does_not_stop_the_link() {
        let huge = "x".repeat(100);
        let input = format!("{{\"a\":1}}\n{huge}\nGtk-WARNING noise\n\n\u{202e}evil\nlast");
        let lines = lines_of(input.as_bytes(), 40).await;
        assert_eq!(
            lines,
            [
                Line::Text("{\"a\":1}".to_owned()),
                Line::TooLong(100),
                Line::Text("Gtk-WARNING noise".to_owned()),
                Line::Text(String::new()),
                Line::Text("\u{202e}evil".to_owned()),
                Line::Text("last".to_owned()),
            ],
            "an oversized line is skipped whole and the next one still reads"
        );
        assert_eq!(
            lines_of(b"\xff\xfe{}\n", 40).await,
            [Line::Text("\u{fffd}\u{fffd}{}".to_owned())],
            "invalid UTF-8 is replaced, not fatal (the JSON parse then rejects the line)"
        );
        assert_eq!(
            lines_of(huge.as_bytes(), 40).await,
            [Line::TooLong(100)],
            "an oversized last line without a newline"
        );
        assert!(
            lines_of(b"", 40).await.is_empty(),
            "nothing in, nothing out"
        );
    }

    #[test]
    fn only_plain_ids_reach_the_window() {
        assert!(plain_id("ap_01H-xyz"), "ids of the service are plain");
        for hostile in ["", "../x", "a#b", "a?b=c", "a b", &"x".repeat(129)] {
            assert!(!plain_id(hostile), "{hostile:?} must not shape the URL");
        }
    }

    #[test]
    fn calls_keep_the_page_command_names_and_arguments() {
        // The window forwards the page's invoke(name, args) as {"command": name, "args": args}:
        // the names and argument keys are the page's typed IPC and must not drift.
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
        for hostile in [
            serde_json::json!({"command": "insights_get", "args": {"since": "two weeks ago"}}),
            serde_json::json!({"command": "shell_exec", "args": {"cmd": "rm -rf ~"}}),
            serde_json::json!({"command": "approval_decide", "args": {"approval_id": "a"}}),
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
