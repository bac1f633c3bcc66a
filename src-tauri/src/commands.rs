//! The window's typed commands. Each extracts its inputs, makes one call, maps the error.
//! Decisions and revocations go through the service with the approver token held here.

use std::sync::Arc;

use assent_core::{ApprovalAuditEvent, Role};
use assent_protocol::DecisionRequest;
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Manager, Runtime, State};
use tauri_plugin_autostart::ManagerExt;

use crate::desk::DeskSnapshot;
use crate::hub::{Hub, Switched};
use crate::ipc::CommandError;
use crate::live::Input;
use crate::pause::PauseChoice;
use crate::settings::Settings;
use crate::ServiceGuard;

type Shared<'a> = State<'a, Arc<Hub>>;

#[tauri::command]
pub fn desk_snapshot(hub: Shared<'_>) -> DeskSnapshot {
    hub.snapshot()
}

#[tauri::command]
pub async fn approval_decide(
    hub: Shared<'_>,
    approval_id: String,
    decision: DecisionRequest,
) -> Result<(), CommandError> {
    if let DecisionRequest::Deny { reason } = &decision {
        if reason.trim().is_empty() {
            return Err(CommandError::invalid(
                "a denial needs a reason for the agent",
            ));
        }
    }
    hub.client().decide(&approval_id, &decision).await?;
    Ok(())
}

#[tauri::command]
pub async fn grant_revoke(
    hub: Shared<'_>,
    grant_id: String,
    reason: String,
) -> Result<(), CommandError> {
    if reason.trim().is_empty() {
        return Err(CommandError::invalid("a revocation needs a reason"));
    }
    hub.client().revoke(&grant_id, &reason).await?;
    Ok(())
}

#[tauri::command]
pub async fn run_resume(hub: Shared<'_>, run_id: String) -> Result<(), CommandError> {
    if run_id.trim().is_empty() {
        return Err(CommandError::invalid("which run to resume?"));
    }
    hub.client().resume_run(&run_id).await?;
    Ok(())
}

#[tauri::command]
pub async fn audit_list(
    hub: Shared<'_>,
    run_id: Option<String>,
) -> Result<Vec<ApprovalAuditEvent>, CommandError> {
    let run_id = run_id.filter(|id| !id.trim().is_empty());
    Ok(hub.client().audit(None, run_id.as_deref()).await?)
}

#[tauri::command]
pub async fn pause_set(hub: Shared<'_>, choice: PauseChoice) -> Result<(), CommandError> {
    hub.inputs
        .send(Input::Pause(choice))
        .await
        .map_err(|_| CommandError::local("the app is shutting down"))
}

/// The settings as the window sees them: never the token itself.
#[derive(Debug, Clone, Serialize)]
pub struct SettingsView {
    /// The service in use now.
    pub connected_url: String,
    pub embedded: bool,
    /// The stored remote service (applies on save; `ASSENT_URL` + `ASSENT_TOKEN` win).
    pub service_url: String,
    pub has_token: bool,
    pub notifications: bool,
    pub autostart: bool,
    pub roles: Vec<Role>,
}

/// What the window may change. `token: None` keeps the stored token; `Some("")` clears it.
#[derive(Debug, Clone, Deserialize)]
pub struct SettingsInput {
    pub service_url: String,
    pub token: Option<String>,
    pub notifications: bool,
    pub autostart: bool,
    pub roles: Vec<Role>,
}

fn view<R: Runtime>(app: &AppHandle<R>, hub: &Hub) -> SettingsView {
    let settings = hub.settings();
    let current = hub.current();
    let autostart = app.autolaunch().is_enabled().unwrap_or(settings.autostart);
    SettingsView {
        connected_url: current.url,
        embedded: current.embedded,
        service_url: settings.service_url.unwrap_or_default(),
        has_token: settings.token.is_some_and(|t| !t.is_empty()),
        notifications: !settings.notifications_off,
        autostart,
        roles: settings.roles,
    }
}

#[tauri::command]
pub fn settings_get<R: Runtime>(app: AppHandle<R>, hub: Shared<'_>) -> SettingsView {
    view(&app, &hub)
}

/// Follows the service the settings name now, without a restart (the environment's
/// `ASSENT_URL` + `ASSENT_TOKEN` still win).
async fn follow_service<R: Runtime>(
    app: &AppHandle<R>,
    hub: &Hub,
    settings: &Settings,
) -> Result<(), CommandError> {
    let wanted = settings.service(
        std::env::var(assent_client::URL_ENV).ok(),
        std::env::var(assent_client::TOKEN_ENV).ok(),
    );
    match hub.follow(wanted).await {
        Ok(Switched::Unchanged) => Ok(()),
        Ok(Switched::To { url, stop_embedded }) => {
            tracing::info!(%url, "following the service from the settings");
            app.state::<ServiceGuard>().keep(stop_embedded);
            Ok(())
        }
        Err(err) => Err(CommandError::local(err.to_string())),
    }
}

#[tauri::command]
pub async fn settings_save<R: Runtime>(
    app: AppHandle<R>,
    hub: Shared<'_>,
    input: SettingsInput,
) -> Result<SettingsView, CommandError> {
    let mut settings = hub.settings();
    let url = input.service_url.trim();
    if !(url.is_empty() || url.starts_with("http://") || url.starts_with("https://")) {
        return Err(CommandError::invalid(
            "the service URL starts with http:// or https://",
        ));
    }
    settings.service_url = (!url.is_empty()).then(|| url.to_owned());
    if let Some(token) = input.token {
        let token = token.trim().to_owned();
        settings.token = (!token.is_empty()).then_some(token);
    }
    settings.notifications_off = !input.notifications;
    settings.autostart = input.autostart;
    settings.roles = input.roles;
    follow_service(&app, &hub, &settings).await?;
    let launcher = app.autolaunch();
    let toggled = if input.autostart {
        launcher.enable()
    } else {
        launcher.disable()
    };
    if let Err(err) = toggled {
        tracing::warn!(%err, "cannot change autostart");
    }
    settings
        .save(&hub.settings_path)
        .map_err(|err| CommandError::local(err.to_string()))?;
    hub.set_settings(settings);
    let _ = hub.inputs.send(Input::Redraw).await;
    Ok(view(&app, &hub))
}
