//! The window's commands, answered in the tray process (the window forwards each one, see
//! [`crate::window`]). Each extracts its inputs, makes one call, maps the error. Decisions,
//! revocations and undone denials go through the service with the token held here, never in
//! the window.

use std::sync::Arc;

use assent_protocol::Me;
use serde::Serialize;

use crate::app::App;
use crate::app_state::{locked, Hub, Switched};
use crate::browser::open_in_browser;
use crate::insights;
use crate::ipc::{command_error, CommandError};
use crate::live::input::Input;
use crate::settings::Settings;
pub use assent_ipc::SettingsInput;
use assent_ipc::WindowCall;

/// Focuses the window (on the prompt `focus`), or starts one whose calls these commands answer.
pub(crate) fn open_window(app: &Arc<App>, focus: Option<&str>) {
    let answering = Arc::clone(app);
    app.window.open(focus, move |call| {
        let app = Arc::clone(&answering);
        async move { handle(&app, call).await }
    });
}

/// Answers one call from the window with the JSON the page expects.
pub(crate) async fn handle(
    app: &Arc<App>,
    call: WindowCall,
) -> Result<serde_json::Value, CommandError> {
    let hub = &app.hub;
    match call {
        WindowCall::DeskSnapshot => to_json(&hub.snapshot()),
        WindowCall::ApprovalDecide {
            approval_id,
            decision,
        } => {
            if let assent_protocol::DecisionRequest::Deny { reason } = &decision {
                if reason.trim().is_empty() {
                    return Err(CommandError::invalid(
                        "a denial needs a reason for the agent",
                    ));
                }
            }
            to_json(
                &hub.client()
                    .decide(&approval_id, &decision)
                    .await
                    .map_err(command_error)?,
            )
        }
        WindowCall::GrantRevoke { grant_id, reason } => {
            if reason.trim().is_empty() {
                return Err(CommandError::invalid("a revocation needs a reason"));
            }
            to_json(
                &hub.client()
                    .revoke(&grant_id, &reason)
                    .await
                    .map_err(command_error)?,
            )
        }
        WindowCall::RunResume { run_id } => {
            if run_id.trim().is_empty() {
                return Err(CommandError::invalid("which run to resume?"));
            }
            hub.client()
                .resume_run(&run_id)
                .await
                .map_err(command_error)?;
            Ok(serde_json::Value::Null)
        }
        WindowCall::CampaignList => {
            to_json(&hub.client().campaigns().await.map_err(command_error)?)
        }
        WindowCall::CampaignResume { campaign_id } => {
            if campaign_id.trim().is_empty() {
                return Err(CommandError::invalid("which campaign to resume?"));
            }
            to_json(
                &hub.client()
                    .campaign_resume(&campaign_id)
                    .await
                    .map_err(command_error)?,
            )
        }
        WindowCall::AuditList { run_id } => {
            let run_id = run_id.filter(|id| !id.trim().is_empty());
            to_json(
                &hub.client()
                    .audit(None, run_id.as_deref())
                    .await
                    .map_err(command_error)?,
            )
        }
        WindowCall::DenialList { run_id } => {
            if run_id.trim().is_empty() {
                return Err(CommandError::invalid("which run's denials?"));
            }
            to_json(&hub.client().denials(&run_id).await.map_err(command_error)?)
        }
        WindowCall::DenialForget { approval_id } => {
            if approval_id.trim().is_empty() {
                return Err(CommandError::invalid("which denial to undo?"));
            }
            to_json(
                &hub.client()
                    .forget_denial(&approval_id)
                    .await
                    .map_err(command_error)?,
            )
        }
        WindowCall::InsightsGet { since } => {
            let since = insights::check_since(since, chrono::Utc::now())
                .map_err(|err| CommandError::invalid(err.to_string()))?;
            to_json(
                &insights::gather(&hub.client(), since)
                    .await
                    .map_err(command_error)?,
            )
        }
        WindowCall::SuggestionsGet { since_days } => to_json(
            &hub.client()
                .suggestions(since_days)
                .await
                .map_err(command_error)?,
        ),
        WindowCall::SuggestionApply { change, since_days } => {
            let apply = assent_protocol::SuggestionApply {
                change,
                since_days: Some(since_days),
            };
            to_json(
                &hub.client()
                    .suggestion_apply(&apply)
                    .await
                    .map_err(command_error)?,
            )
        }
        WindowCall::PauseSet { choice } => {
            hub.inputs
                .send(Input::Pause(choice))
                .await
                .map_err(|_| CommandError::local("the app is shutting down"))?;
            Ok(serde_json::Value::Null)
        }
        WindowCall::ServiceRetry => {
            hub.inputs
                .send(Input::Reconnect)
                .await
                .map_err(|_| CommandError::local("the app is shutting down"))?;
            Ok(serde_json::Value::Null)
        }
        WindowCall::StepUpOpen { approval_id } => {
            let listed = locked(&hub.desk).pending(&approval_id).cloned();
            let url = listed
                .and_then(|approval| approval.step_up_url)
                .ok_or_else(|| CommandError::invalid("this prompt needs no passkey, or is gone"))?;
            open_in_browser(&url);
            Ok(serde_json::Value::Null)
        }
        WindowCall::SettingsGet => to_json(&view(app)),
        WindowCall::AuditKeyGet => to_json(&hub.client().audit_key().await.map_err(command_error)?),
        WindowCall::AuditVerify => {
            to_json(&hub.client().audit_verify().await.map_err(command_error)?)
        }
        WindowCall::SettingsSave { input } => to_json(&settings_save(app, input).await?),
    }
}

fn to_json(value: &impl Serialize) -> Result<serde_json::Value, CommandError> {
    serde_json::to_value(value).map_err(|err| CommandError::local(err.to_string()))
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
    /// Who the service says this desk signs in as, with their roles (granted by an admin,
    /// never a setting); `None` until the service answered.
    pub me: Option<Me>,
    /// The deny reasons offered in one tap.
    pub deny_reasons: Vec<String>,
    /// Which of `ASSENT_URL` / `ASSENT_TOKEN` are set in the environment: when both are, they
    /// win over the stored service and "Save and connect" cannot change it.
    pub env_overrides: Vec<String>,
    /// Why part of the configured service is not used (a saved URL without a token, half of
    /// the environment's pair), in words; `None` when all of it is.
    pub service_warning: Option<String>,
    /// In the answer to a save only: why "start at login" could not be changed (the rest was
    /// saved; `autostart` says what holds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub autostart_error: Option<String>,
}

/// The names of `ASSENT_URL` and `ASSENT_TOKEN` that are set (non-empty) in `env`.
pub fn env_overrides(env: impl Fn(&str) -> Option<String>) -> Vec<String> {
    [assent_client::URL_ENV, assent_client::TOKEN_ENV]
        .into_iter()
        .filter(|name| env(name).is_some_and(|v| !v.trim().is_empty()))
        .map(str::to_owned)
        .collect()
}

fn view(app: &App) -> SettingsView {
    let settings = app.hub.settings();
    let current = app.hub.current();
    let autostart = app.autostart.is_enabled().unwrap_or(settings.autostart);
    let deny_reasons = settings.deny_reasons();
    let service_warning = settings.unused(
        std::env::var(assent_client::URL_ENV).ok().as_deref(),
        std::env::var(assent_client::TOKEN_ENV).ok().as_deref(),
    );
    SettingsView {
        connected_url: current.url,
        embedded: current.embedded,
        service_url: settings.service_url.unwrap_or_default(),
        has_token: settings.token.is_some_and(|t| !t.is_empty()),
        notifications: !settings.notifications_off,
        autostart,
        me: locked(&app.hub.desk).me.clone(),
        deny_reasons,
        env_overrides: env_overrides(|name| std::env::var(name).ok()),
        service_warning,
        autostart_error: None,
    }
}

/// Follows the service the settings name now, without a restart (the environment's
/// `ASSENT_URL` + `ASSENT_TOKEN` still win).
async fn follow_service(app: &App, settings: &Settings) -> Result<(), CommandError> {
    let wanted = settings.service(
        std::env::var(assent_client::URL_ENV).ok(),
        std::env::var(assent_client::TOKEN_ENV).ok(),
    );
    match app.hub.follow(wanted).await {
        Ok(Switched::Unchanged) => Ok(()),
        Ok(Switched::To { url, stop_embedded }) => {
            tracing::info!(%url, "following the service from the settings");
            app.guard.keep(stop_embedded);
            Ok(())
        }
        Err(err) => Err(CommandError::local(err.to_string())),
    }
}

async fn settings_save(app: &App, input: SettingsInput) -> Result<SettingsView, CommandError> {
    let hub: &Hub = &app.hub;
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
    if let Some(reasons) = input.deny_reasons {
        settings.deny_reasons =
            Some(crate::settings::clean_deny_reasons(&reasons).map_err(CommandError::invalid)?);
    }
    settings.notifications_off = !input.notifications;
    settings.autostart = input.autostart;
    follow_service(app, &settings).await?;
    // Written before start at login changes, so a save that fails changes nothing the page
    // then shows as it was.
    settings
        .save(&hub.settings_path)
        .map_err(|err| CommandError::local(err.to_string()))?;
    let autostart_error = app.autostart.set(input.autostart).err().map(|err| {
        tracing::warn!(%err, "cannot change autostart");
        err.to_string()
    });
    hub.set_settings(settings);
    let _ = hub.inputs.send(Input::Redraw).await;
    Ok(SettingsView {
        autostart_error,
        ..view(app)
    })
}

#[cfg(test)]
#[path = "commands_tests.rs"]
mod tests;
