//! The window's typed commands. Each extracts its inputs, makes one call, maps the error.
//! Decisions and revocations go through the service with the approver token held here.

use std::sync::Arc;

use assent_core::{ApprovalAuditEvent, Role};
use assent_protocol::DecisionRequest;
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Runtime, State};
use tauri_plugin_autostart::ManagerExt;

use crate::desk::DeskSnapshot;
use crate::ipc::CommandError;
use crate::live::{Hub, Input};
use crate::pause::PauseChoice;

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
    hub.client.decide(&approval_id, &decision).await?;
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
    hub.client.revoke(&grant_id, &reason).await?;
    Ok(())
}

#[tauri::command]
pub async fn audit_list(
    hub: Shared<'_>,
    run_id: Option<String>,
) -> Result<Vec<ApprovalAuditEvent>, CommandError> {
    let run_id = run_id.filter(|id| !id.trim().is_empty());
    Ok(hub.client.audit(None, run_id.as_deref()).await?)
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
    /// The stored remote service (applies at the next start).
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
    let autostart = app.autolaunch().is_enabled().unwrap_or(settings.autostart);
    SettingsView {
        connected_url: hub.service_url.clone(),
        embedded: hub.embedded,
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
