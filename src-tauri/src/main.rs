//! `assent-window`: the approval window, a second process `assent-desktop` starts on *Open*
//! (see `assent_desktop::window`). It shows the page and forwards each command the page
//! invokes to the tray process over stdout, answered on stdin; it holds no token. Closing the
//! window ends this process; so does the tray process closing our stdin.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod bridge;
mod window;

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;

use assent_desktop::ipc::CommandError;
use assent_desktop::window::{plain_id, WindowCall, FOCUS_ARG};
use assent_protocol::DecisionRequest;
use serde_json::Value;
use tauri::{Manager, State, WebviewUrl, WebviewWindowBuilder};

use crate::bridge::Bridge;
use crate::window::MAIN;

type Shared<'a> = State<'a, Arc<Bridge>>;

#[tauri::command]
async fn desk_snapshot(bridge: Shared<'_>) -> Result<Value, CommandError> {
    bridge.call(WindowCall::DeskSnapshot).await
}

#[tauri::command]
async fn approval_decide(
    bridge: Shared<'_>,
    approval_id: String,
    decision: DecisionRequest,
) -> Result<Value, CommandError> {
    bridge
        .call(WindowCall::ApprovalDecide {
            approval_id,
            decision,
        })
        .await
}

#[tauri::command]
async fn grant_revoke(
    bridge: Shared<'_>,
    grant_id: String,
    reason: String,
) -> Result<Value, CommandError> {
    bridge
        .call(WindowCall::GrantRevoke { grant_id, reason })
        .await
}

#[tauri::command]
async fn step_up_open(bridge: Shared<'_>, approval_id: String) -> Result<Value, CommandError> {
    bridge.call(WindowCall::StepUpOpen { approval_id }).await
}

#[tauri::command]
async fn run_resume(bridge: Shared<'_>, run_id: String) -> Result<Value, CommandError> {
    bridge.call(WindowCall::RunResume { run_id }).await
}

#[tauri::command]
async fn campaign_list(bridge: Shared<'_>) -> Result<Value, CommandError> {
    bridge.call(WindowCall::CampaignList).await
}

#[tauri::command]
async fn campaign_resume(bridge: Shared<'_>, campaign_id: String) -> Result<Value, CommandError> {
    bridge
        .call(WindowCall::CampaignResume { campaign_id })
        .await
}

#[tauri::command]
async fn audit_list(bridge: Shared<'_>, run_id: Option<String>) -> Result<Value, CommandError> {
    bridge.call(WindowCall::AuditList { run_id }).await
}

#[tauri::command]
async fn denial_list(bridge: Shared<'_>, run_id: String) -> Result<Value, CommandError> {
    bridge.call(WindowCall::DenialList { run_id }).await
}

#[tauri::command]
async fn denial_forget(bridge: Shared<'_>, approval_id: String) -> Result<Value, CommandError> {
    bridge.call(WindowCall::DenialForget { approval_id }).await
}

#[tauri::command]
async fn insights_get(
    bridge: Shared<'_>,
    since: chrono::DateTime<chrono::Utc>,
) -> Result<Value, CommandError> {
    bridge.call(WindowCall::InsightsGet { since }).await
}

#[tauri::command]
async fn suggestions_get(bridge: Shared<'_>, since_days: i64) -> Result<Value, CommandError> {
    bridge.call(WindowCall::SuggestionsGet { since_days }).await
}

#[tauri::command]
async fn suggestion_apply(
    bridge: Shared<'_>,
    change: assent_protocol::PolicyChange,
    since_days: i64,
) -> Result<Value, CommandError> {
    bridge
        .call(WindowCall::SuggestionApply { change, since_days })
        .await
}

#[tauri::command]
async fn pause_set(
    bridge: Shared<'_>,
    choice: assent_desktop::pause::PauseChoice,
) -> Result<Value, CommandError> {
    bridge.call(WindowCall::PauseSet { choice }).await
}

#[tauri::command]
async fn settings_get(bridge: Shared<'_>) -> Result<Value, CommandError> {
    bridge.call(WindowCall::SettingsGet).await
}

#[tauri::command]
async fn audit_key_get(bridge: Shared<'_>) -> Result<Value, CommandError> {
    bridge.call(WindowCall::AuditKeyGet).await
}

#[tauri::command]
async fn audit_verify(bridge: Shared<'_>) -> Result<Value, CommandError> {
    bridge.call(WindowCall::AuditVerify).await
}

#[tauri::command]
async fn settings_save(
    bridge: Shared<'_>,
    input: assent_desktop::window::SettingsInput,
) -> Result<Value, CommandError> {
    bridge.call(WindowCall::SettingsSave { input }).await
}

#[tauri::command]
async fn service_retry(bridge: Shared<'_>) -> Result<Value, CommandError> {
    bridge.call(WindowCall::ServiceRetry).await
}

/// Esc or Ctrl+W in the page: closes the window (this process ends; the tray stays).
#[tauri::command]
fn window_close(window: tauri::WebviewWindow) -> Result<Value, CommandError> {
    window
        .close()
        .map_err(|err| CommandError::local(err.to_string()))?;
    Ok(Value::Null)
}

fn main() -> ExitCode {
    assent_desktop::window::set_process_defaults();
    assent_desktop::init_logging();
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
        .invoke_handler(tauri::generate_handler![
            desk_snapshot,
            approval_decide,
            grant_revoke,
            run_resume,
            step_up_open,
            campaign_list,
            campaign_resume,
            audit_list,
            denial_list,
            denial_forget,
            insights_get,
            suggestions_get,
            suggestion_apply,
            pause_set,
            settings_get,
            audit_key_get,
            audit_verify,
            settings_save,
            service_retry,
            window_close,
        ])
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
