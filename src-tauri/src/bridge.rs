//! The link to the tray process: calls go out on stdout as [`FromWindow`] lines, answers and
//! desk events come in on stdin as [`ToWindow`] lines (one JSON object per line). stdin closing
//! means the tray process is gone or quit: the window closes.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use assent_ipc::{CommandError, FromWindow, ToWindow, WindowCall, DESK_EVENT, MAX_LINE_BYTES};
use serde_json::Value;
use tauri::{AppHandle, Emitter};
use tokio::sync::oneshot;

/// How long a call waits for the tray process (a decision goes to the service and back).
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

type Answer = Result<Value, CommandError>;

pub struct Bridge {
    next_id: AtomicU64,
    waiting: Mutex<HashMap<u64, oneshot::Sender<Answer>>>,
    out: Mutex<std::io::Stdout>,
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Bridge {
    /// Starts reading stdin on its own thread.
    pub fn start(app: AppHandle) -> Arc<Bridge> {
        let bridge = Arc::new(Bridge {
            next_id: AtomicU64::new(1),
            waiting: Mutex::new(HashMap::new()),
            out: Mutex::new(std::io::stdout()),
        });
        let reader = Arc::clone(&bridge);
        let spawned = std::thread::Builder::new()
            .name("desk-link".to_owned())
            .spawn(move || reader.read(&app));
        if let Err(err) = spawned {
            tracing::error!(%err, "cannot read from the tray process");
        }
        bridge
    }

    fn read(&self, app: &AppHandle) {
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        let mut line = String::new();
        loop {
            line.clear();
            match input.read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) if line.len() > MAX_LINE_BYTES => {
                    tracing::warn!(bytes = line.len(), "ignoring an oversized line");
                }
                Ok(_) => match serde_json::from_str::<ToWindow>(&line) {
                    Ok(message) => self.on_message(app, message),
                    Err(err) => tracing::warn!(%err, "not a desk message"),
                },
            }
        }
        tracing::info!("the tray process closed the link: closing the window");
        for (_, waiting) in locked(&self.waiting).drain() {
            let _ = waiting.send(Err(CommandError::unavailable("Assent is quitting")));
        }
        app.exit(0);
    }

    fn on_message(&self, app: &AppHandle, message: ToWindow) {
        match message {
            ToWindow::Desk { event } => {
                if let Err(err) = app.emit(DESK_EVENT, event) {
                    tracing::warn!(%err, "cannot update the page");
                }
            }
            ToWindow::Focus { approval_id } => {
                let app = app.clone();
                let handle = app.clone();
                let _ = app.run_on_main_thread(move || crate::window::focus(&handle, approval_id));
            }
            ToWindow::Reply { id, result } => {
                if let Some(waiting) = locked(&self.waiting).remove(&id) {
                    let _ = waiting.send(result);
                }
            }
        }
    }

    /// Sends `call` to the tray process and waits for its answer.
    pub async fn call(&self, call: WindowCall) -> Answer {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (answer, answered) = oneshot::channel();
        locked(&self.waiting).insert(id, answer);
        let sent = serde_json::to_vec(&FromWindow::Call { id, call })
            .map_err(|err| err.to_string())
            .and_then(|mut line| {
                line.push(b'\n');
                let mut out = locked(&self.out);
                out.write_all(&line)
                    .and_then(|()| out.flush())
                    .map_err(|err| err.to_string())
            });
        if let Err(err) = sent {
            locked(&self.waiting).remove(&id);
            return Err(CommandError::unavailable(format!(
                "cannot reach the Assent tray process: {err}"
            )));
        }
        match tokio::time::timeout(CALL_TIMEOUT, answered).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err(CommandError::unavailable("Assent is quitting")),
            Err(_) => {
                locked(&self.waiting).remove(&id);
                Err(CommandError::unavailable(
                    "the Assent tray process did not answer in 30 s",
                ))
            }
        }
    }
}
