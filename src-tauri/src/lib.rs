//! The Assent desktop app: tray, native notifications with action buttons, and the approval
//! window. A thin layer: the service decides, this shows and forwards.

mod commands;
pub mod desk;
mod embed;
pub mod hub;
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

use crate::hub::{Current, Hub};
use crate::live::Input;
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

/// Rendering defaults set before GTK and WebKit start (a value the person set wins). The
/// tray process draws nothing with OpenGL: without `GDK_GL=disable`, GDK probes GLX when it
/// opens the display and maps the whole GL driver (Mesa llvmpipe here: ≈32 MiB PSS, mostly
/// libLLVM) into a process that idles in the tray; the webview renders in WebKit's own
/// process either way. The DMA-BUF renderer costs ≈60 MiB more while the window is open and
/// shows the same page (docs/benchmarks.md has both measurements).
const RENDERING_DEFAULTS: [(&str, &str); 2] = [
    ("GDK_GL", "disable"),
    ("WEBKIT_DISABLE_DMABUF_RENDERER", "1"),
];

fn set_rendering_defaults() {
    for (name, value) in RENDERING_DEFAULTS {
        if std::env::var_os(name).is_none() {
            // Before any thread exists: nothing reads the environment concurrently.
            std::env::set_var(name, value);
        }
    }
}

/// The binary's entry point.
pub fn main_entry() -> ExitCode {
    set_rendering_defaults();
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
            commands::run_resume,
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
    let connected = tauri::async_runtime::block_on(service::connect(service.clone()))?;
    tracing::info!(url = %connected.url, embedded = connected.embedded, "service");
    let (inputs, receiver) = mpsc::channel(64);
    let hub = Arc::new(Hub::new(
        Current::of(&connected, service),
        inputs.clone(),
        settings,
        settings_path,
    ));
    app.manage(Arc::clone(&hub));
    let guard = ServiceGuard::default();
    guard.keep(connected.shutdown);
    app.manage(guard);
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

/// Holds the embedded service's shutdown sender for the app's lifetime (dropping it would
/// stop the service). It is started at most once per process: a second start attaches.
#[derive(Default)]
pub(crate) struct ServiceGuard(std::sync::Mutex<Vec<tokio::sync::oneshot::Sender<()>>>);

impl ServiceGuard {
    pub(crate) fn keep(&self, stop: Option<tokio::sync::oneshot::Sender<()>>) {
        if let Some(stop) = stop {
            hub::locked(&self.0).push(stop);
        }
    }
}

/// Asks the embedded service to stop (on Quit).
fn stop_service<R: Runtime>(app: &AppHandle<R>) {
    let Some(guard) = app.try_state::<ServiceGuard>() else {
        return;
    };
    for sender in hub::locked(&guard.0).drain(..) {
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
