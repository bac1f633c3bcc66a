//! The Assent desktop app: tray, native notifications with action buttons, and the embedded
//! service, in a process that links neither GTK nor WebKit; the approval window is a second
//! process (`assent-window`, Tauri) started on *Open* and gone when it closes. A thin layer:
//! the service decides, this shows and forwards.
//!
//! Why two processes: a process that links WebKitGTK maps and relocates WebKit,
//! JavaScriptCore and GTK at start even if it never opens a webview; the tray idles all day,
//! so it must not carry them. The window process holds no token: every command it makes goes
//! to this process over its stdin/stdout ([`window`]).

mod app;
pub mod app_state;
mod autostart;
mod browser;
pub mod campaign_notice;
mod commands;
mod connection;
pub mod desk;
mod embed;
pub mod insights;
mod instance;
pub mod ipc;
pub mod link_notice;
mod live;
pub mod notices;
mod notifier;
pub mod pause;
pub mod prompt;
pub mod prompt_packet;
mod service;
pub mod settings;
pub mod text;
mod tray;
pub mod window;

#[cfg(test)]
mod fixtures;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use tokio::sync::mpsc;

use crate::app::{App, ServiceGuard};
use crate::app_state::{Current, Hub};
use crate::autostart::Autostart;
pub use crate::autostart::TRAY_FLAG;
use crate::commands::open_window;
use crate::live::input::Input;
use crate::notifier::{Notifier, Signal};
use crate::settings::Settings;
use crate::tray::MenuCommand;
use crate::window::WindowHost;

/// Overrides where the settings live (tests).
pub const SETTINGS_ENV: &str = "ASSENT_DESKTOP_SETTINGS";

#[derive(Debug, thiserror::Error)]
enum StartError {
    #[error(transparent)]
    Service(#[from] service::ServiceError),
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
}

/// Logs to stderr (both processes: the window's stdout is its link), filtered by `ASSENT_LOG`.
pub fn init_logging() {
    assent_server::logging::init("ASSENT_LOG");
}

/// The binary's entry point.
pub fn main_entry() -> ExitCode {
    init_logging();
    assent_core::quiet_parser_panics();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let settings_path = std::env::var_os(SETTINGS_ENV)
        .map(PathBuf::from)
        .or_else(Settings::default_path)
        .unwrap_or_else(|| PathBuf::from("assent-desktop.json"));
    // Two workers: the embedded service, the live task and the window link are all I/O-bound.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(StartError::Runtime);
    let result = runtime.and_then(|runtime| {
        let result = runtime.block_on(run(args, settings_path));
        // Quit does not wait on a name lookup or a slow request still in flight.
        runtime.shutdown_timeout(std::time::Duration::from_secs(2));
        result
    });
    match result {
        Ok(code) => code,
        Err(err) => {
            tracing::error!(%err, "cannot start Assent");
            service::tell_start_failure(&err.to_string());
            ExitCode::FAILURE
        }
    }
}

/// Claims the single instance, connects (or embeds) the service, starts the live task, the
/// tray and the notification listener, then serves commands until Quit.
async fn run(args: Vec<String>, settings_path: PathBuf) -> Result<ExitCode, StartError> {
    let tray_only = args.iter().any(|arg| arg == TRAY_FLAG);
    let (commands, mut received) = mpsc::unbounded_channel::<MenuCommand>();
    let bus = match zbus::Connection::session().await {
        Ok(bus) => Some(bus),
        Err(err) => {
            tracing::warn!(%err, "no session bus: no single instance, no notifications, no tray");
            None
        }
    };
    if let Some(bus) = &bus {
        if instance::claim(bus, commands.clone()).await == instance::Claim::Taken {
            instance::hand_over(bus, &args).await;
            return Ok(ExitCode::SUCCESS);
        }
    }
    let settings = Settings::load(&settings_path);
    let (env_url, env_token) = (
        std::env::var(assent_client::URL_ENV).ok(),
        std::env::var(assent_client::TOKEN_ENV).ok(),
    );
    let unused = settings.unused(env_url.as_deref(), env_token.as_deref());
    let service = settings.service(env_url, env_token);
    let connected = service::connect(service.clone()).await?;
    if let Some(message) = unused {
        service::tell_not_used(bus.as_ref(), &message).await;
    }
    let connected_embedded = connected.embedded;
    tracing::info!(url = %connected.url, embedded = connected.embedded, "service");
    let (inputs, receiver) = mpsc::channel(64);
    let hub = Arc::new(Hub::new(
        Current::of(&connected, service),
        inputs.clone(),
        settings,
        settings_path,
    ));
    let app = Arc::new(App {
        hub: Arc::clone(&hub),
        window: WindowHost::new(window::window_binary()),
        guard: ServiceGuard::default(),
        autostart: Autostart::new(),
    });
    app.guard.keep(connected.shutdown);
    let tray = match &bus {
        Some(_) => tray::spawn(commands.clone(), connected_embedded).await,
        None => None,
    };
    let notifier = match &bus {
        Some(bus) => connect_notifier(bus, inputs.clone()).await,
        None => None,
    };
    let live = tokio::spawn(live::run(Arc::clone(&app), tray, receiver, notifier));
    if !tray_only {
        open_window(&app, None);
    }
    let mut terminate = terminate_signal();
    loop {
        tokio::select! {
            command = received.recv() => match command {
                Some(MenuCommand::Quit) | None => break,
                Some(command) => on_menu(&app, &inputs, command),
            },
            () = &mut terminate => break,
        }
    }
    live::quit(&inputs, live).await;
    app.window.close();
    app.guard.stop();
    Ok(ExitCode::SUCCESS)
}

/// SIGTERM or Ctrl-C: stop like Quit (the embedded service finishes its writes).
fn terminate_signal() -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
    Box::pin(async {
        let term = async {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut term) => {
                    term.recv().await;
                }
                Err(_) => std::future::pending().await,
            }
        };
        tokio::select! {
            () = term => {}
            _ = tokio::signal::ctrl_c() => {}
        }
    })
}

async fn connect_notifier(bus: &zbus::Connection, inputs: mpsc::Sender<Input>) -> Option<Notifier> {
    let (signals, mut received) = mpsc::channel::<Signal>(64);
    tokio::spawn(async move {
        while let Some(signal) = received.recv().await {
            if inputs.send(Input::Signal(signal)).await.is_err() {
                break;
            }
        }
    });
    match Notifier::connect(bus, signals).await {
        Ok(notifier) => Some(notifier),
        Err(err) => {
            tracing::warn!(%err, "notifications are off, the tray still works");
            None
        }
    }
}

fn on_menu(app: &Arc<App>, inputs: &mpsc::Sender<Input>, command: MenuCommand) {
    match command {
        MenuCommand::OpenPrompt(id) => open_window(app, Some(&id)),
        MenuCommand::Open => open_window(app, None),
        MenuCommand::Pause(choice) => {
            if inputs.try_send(Input::Pause(choice)).is_err() {
                tracing::warn!("cannot pause notifications now");
            }
        }
        MenuCommand::Quit | MenuCommand::Stay => {}
    }
}
