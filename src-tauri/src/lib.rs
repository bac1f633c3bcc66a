//! The Assent desktop app: tray, native notifications with action buttons, and the approval
//! window. A thin layer: the service decides, this shows and forwards.

mod commands;
pub mod desk;
mod embed;
pub mod ipc;
mod live;
pub mod notices;
mod notifier;
pub mod pause;
pub mod prompt;
mod service;
pub mod settings;
pub mod text;
mod tray;
mod window;

#[cfg(test)]
mod fixtures;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use tauri::{AppHandle, Manager, RunEvent, Runtime};
use tokio::sync::mpsc;

use crate::live::{Hub, Input};
use crate::notifier::{Notifier, Signal};
use crate::settings::Settings;
use crate::tray::MenuCommand;

/// Starts with no window (autostart uses it).
pub const TRAY_FLAG: &str = "--tray";
/// Overrides where the settings live (tests).
pub const SETTINGS_ENV: &str = "ASSENT_DESKTOP_SETTINGS";

#[derive(Debug, thiserror::Error)]
enum StartError {
    #[error(transparent)]
    Service(#[from] service::ServiceError),
    #[error(transparent)]
    Tauri(#[from] tauri::Error),
}

/// The binary's entry point.
pub fn main_entry() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("ASSENT_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let tray_only = std::env::args().any(|arg| arg == TRAY_FLAG);
    let settings_path = std::env::var_os(SETTINGS_ENV)
        .map(PathBuf::from)
        .or_else(Settings::default_path)
        .unwrap_or_else(|| PathBuf::from("assent-desktop.json"));
    let built = tauri::Builder::default()
        .plugin(tauri_plugin_single_instance::init(|app, argv, _cwd| {
            if !argv.iter().any(|arg| arg == TRAY_FLAG) {
                window::open(app, None);
            }
        }))
        .plugin(tauri_plugin_autostart::init(
            tauri_plugin_autostart::MacosLauncher::LaunchAgent,
            Some(vec![TRAY_FLAG]),
        ))
        .invoke_handler(tauri::generate_handler![
            commands::desk_snapshot,
            commands::approval_decide,
            commands::grant_revoke,
            commands::audit_list,
            commands::pause_set,
            commands::settings_get,
            commands::settings_save,
        ])
        .setup(move |app| {
            start(app.handle(), tray_only, settings_path.clone())
                .map_err(|err| Box::new(err) as Box<dyn std::error::Error>)
        })
        .build(tauri::generate_context!());
    let app = match built {
        Ok(app) => app,
        Err(err) => {
            tracing::error!(%err, "cannot start Assent");
            return ExitCode::FAILURE;
        }
    };
    app.run(|app, event| match event {
        // The last window closed: the tray (and the service) stay until Quit.
        RunEvent::ExitRequested {
            code: None, api, ..
        } => api.prevent_exit(),
        RunEvent::Exit => stop_service(app),
        _ => {}
    });
    ExitCode::SUCCESS
}

/// Connects (or embeds) the service, starts the live task, the tray and the listener.
fn start<R: Runtime>(
    app: &AppHandle<R>,
    tray_only: bool,
    settings_path: PathBuf,
) -> Result<(), StartError> {
    let settings = Settings::load(&settings_path);
    let service = settings.service(
        std::env::var(assent_client::URL_ENV).ok(),
        std::env::var(assent_client::TOKEN_ENV).ok(),
    );
    let connected = tauri::async_runtime::block_on(service::connect(service))?;
    tracing::info!(url = %connected.url, embedded = connected.embedded, "service");
    let (inputs, receiver) = mpsc::channel(64);
    let hub = Arc::new(Hub::new(
        connected.client,
        inputs.clone(),
        settings,
        settings_path,
        connected.url,
        connected.embedded,
    ));
    app.manage(Arc::clone(&hub));
    app.manage(ServiceGuard(std::sync::Mutex::new(connected.shutdown)));
    let menu_inputs = inputs.clone();
    tray::create(app, move |app, command| on_menu(app, &menu_inputs, command))?;
    let handle = app.clone();
    tauri::async_runtime::spawn(async move {
        let notifier = connect_notifier(inputs).await;
        live::run(handle, hub, receiver, notifier).await;
    });
    if !tray_only {
        window::open(app, None);
    }
    Ok(())
}

/// Holds the embedded service's shutdown sender for the app's lifetime.
struct ServiceGuard(std::sync::Mutex<Option<tokio::sync::oneshot::Sender<()>>>);

/// Asks the embedded service to stop (on Quit).
fn stop_service<R: Runtime>(app: &AppHandle<R>) {
    let Some(guard) = app.try_state::<ServiceGuard>() else {
        return;
    };
    let sender = guard
        .0
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    if let Some(sender) = sender {
        let _ = sender.send(());
    }
}

async fn connect_notifier(inputs: mpsc::Sender<Input>) -> Option<Notifier> {
    let (signals, mut received) = mpsc::channel::<Signal>(64);
    tokio::spawn(async move {
        while let Some(signal) = received.recv().await {
            if inputs.send(Input::Signal(signal)).await.is_err() {
                break;
            }
        }
    });
    match Notifier::connect(signals).await {
        Ok(notifier) => Some(notifier),
        Err(err) => {
            tracing::warn!(%err, "no session bus: notifications are off, the tray still works");
            None
        }
    }
}

fn on_menu<R: Runtime>(app: &AppHandle<R>, inputs: &mpsc::Sender<Input>, command: MenuCommand) {
    match command {
        MenuCommand::OpenPrompt(id) => window::open(app, Some(&id)),
        MenuCommand::Open => window::open(app, None),
        MenuCommand::Pause(choice) => {
            if inputs.try_send(Input::Pause(choice)).is_err() {
                tracing::warn!("cannot pause notifications now");
            }
        }
        MenuCommand::Quit => app.exit(0),
    }
}
