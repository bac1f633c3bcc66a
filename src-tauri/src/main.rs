//! `assent-window`: the approval window, a second process `assent-desktop` starts on *Open*
//! (see `assent_desktop::window`). It shows the page and forwards each call the page makes to
//! the tray process over stdout, answered on stdin; it holds no token. Closing the window ends
//! this process; so does the tray process closing our stdin. It knows the desk only by the
//! link's types (`assent-ipc`).
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod bridge;
mod window;

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;

use assent_ipc::{plain_id, CommandError, WindowCall, FOCUS_ARG};
use serde_json::Value;
use tauri::{Manager, State, WebviewUrl, WebviewWindowBuilder};
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::bridge::Bridge;
use crate::window::MAIN;

/// Every call of the page (`ui/src/api.ts` through the generated `ui/src/ipc.gen.ts`): parsed
/// here as a [`WindowCall`], so an unknown command or a mistyped argument goes no further, and
/// answered by the tray process.
#[tauri::command]
async fn desk_call(
    bridge: State<'_, Arc<Bridge>>,
    call: WindowCall,
) -> Result<Value, CommandError> {
    bridge.call(call).await
}

/// Esc or Ctrl+W in the page: closes the window (this process ends; the tray stays).
#[tauri::command]
fn window_close(window: tauri::WebviewWindow) -> Result<Value, CommandError> {
    window
        .close()
        .map_err(|err| CommandError::local(err.to_string()))?;
    Ok(Value::Null)
}

/// The log on stderr, filtered as the desk's (`ASSENT_LOG`: a level, or levels per target).
fn init_logging() {
    let filter = std::env::var("ASSENT_LOG")
        .ok()
        .and_then(|directives| directives.parse::<Targets>().ok())
        .unwrap_or_else(|| Targets::new().with_default(LevelFilter::INFO));
    tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
        .with(filter)
        .init();
}

fn main() -> ExitCode {
    assent_ipc::set_process_defaults();
    init_logging();
    if std::io::stdin().is_terminal() {
        eprintln!("assent-window is the window of assent-desktop: run assent-desktop to open it");
        return ExitCode::from(2);
    }
    let args: Vec<String> = std::env::args().collect();
    let focus = args
        .iter()
        .position(|arg| arg == FOCUS_ARG)
        .and_then(|at| args.get(at + 1))
        .filter(|id| plain_id(id))
        .cloned();
    let built = tauri::Builder::default()
        .invoke_handler(tauri::generate_handler![desk_call, window_close])
        .setup(move |app| {
            let bridge = Bridge::start(app.handle().clone());
            app.manage(bridge);
            let path = match &focus {
                Some(id) => format!("index.html#/pending/{id}"),
                None => "index.html".to_owned(),
            };
            WebviewWindowBuilder::new(app, MAIN, WebviewUrl::App(path.into()))
                .title("Assent")
                .inner_size(1100.0, 760.0)
                .min_inner_size(720.0, 480.0)
                .build()?;
            Ok(())
        })
        .build(tauri::generate_context!());
    match built {
        Ok(app) => {
            // The last window closed: this process ends (the tray process stays).
            app.run(|_, _| {});
            ExitCode::SUCCESS
        }
        Err(err) => {
            tracing::error!(%err, "cannot open the window");
            ExitCode::FAILURE
        }
    }
}
