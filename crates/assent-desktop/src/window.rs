//! The window: a second process (`assent-window`, the Tauri webview) started on *Open* and
//! gone when the window closes, so the idle tray process carries neither GTK nor WebKit.
//!
//! The link is one JSON object per line: [`ToWindow`] on the window's stdin, [`FromWindow`] on
//! its stdout (its stderr is the log); both sides' types are the crate `assent-ipc`. The window
//! holds no token: each command the page invokes is forwarded here as a [`WindowCall`],
//! answered by [`crate::commands`] through the service with the approver token this process
//! holds. Closing the window ends the process; this process closing the window's stdin (Quit, or
//! this process dying) ends it too.

use std::future::Future;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use assent_ipc::{plain_id, FromWindow, ToWindow, WindowCall, FOCUS_ARG, MAX_LINE_BYTES};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::app_state::locked;
use crate::ipc::{CommandError, DeskEvent};

/// Overrides where the window binary is (default: `assent-window` beside this binary).
pub const WINDOW_BIN_ENV: &str = "ASSENT_WINDOW_BIN";
/// The window binary's name.
pub const WINDOW_BIN: &str = "assent-window";

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
}
