//! A press on a notification button: the decision it stands for, made through the service
//! with the desk's token; a press that cannot apply (the prompt settled since it was shown, or
//! the button is not offered to this person, or the service refuses) raises a notification
//! saying why, never only a log line.

use std::sync::Arc;

use assent_core::{ApprovalStatus, ScopeKind};
use assent_protocol::{Approval, DecisionRequest, Me};
use tokio::sync::mpsc;

use super::input::Input;
use crate::app::App;
use crate::app_state::locked;
use crate::browser::open_in_browser;
use crate::commands::open_window;
use crate::ipc::said;
use crate::prompt::{notice, open_only, open_only_line, refused_notice, PromptAction};

/// Expiry of a grant made from a notification's "Allow once".
const ONCE_EXPIRY_SECONDS: i64 = 15 * 60;
/// "End of run": the grant ends when the run ends, bounded by the default policy's 8 h.
const RUN_EXPIRY_SECONDS: i64 = 8 * 60 * 60;
/// The reason a notification's "Deny" sends back to the agent.
const NOTIFICATION_DENY_REASON: &str = "Denied from the Assent notification";

/// A notification button: opens the window, or decides through the service with the
/// approver token (never the webview's business). A click that does not go through — the
/// service refused it, the prompt settled since it was shown, or it does not offer that
/// button — raises a notification saying why.
pub(super) fn on_action(app: &Arc<App>, approval_id: String, action: PromptAction) {
    let hub = Arc::clone(&app.hub);
    let listed = locked(&hub.desk).pending(&approval_id).cloned();
    if action == PromptAction::Open {
        // Held for a passkey (`[approvals] step_up`): only the browser's desk can approve it.
        match listed.as_ref().and_then(|a| a.step_up_url.as_deref()) {
            Some(url) => open_in_browser(url),
            None => open_window(app, Some(&approval_id)),
        }
        return;
    }
    tokio::spawn(async move {
        let client = hub.client();
        let refuse = |approval: Option<&Approval>, message: &str| {
            raise_refusal(&hub.inputs, approval, action, message);
        };
        // Not listed: it settled since it was shown (or the desk is refetching) — what the
        // service holds now says which.
        let approval = match listed {
            Some(approval) => approval,
            None => match client.approval(&approval_id, None).await {
                Ok(approval) => approval,
                Err(err) => {
                    tracing::debug!(%err, %approval_id, "the pressed prompt is gone");
                    refuse(None, NO_LONGER_WAITING);
                    return;
                }
            },
        };
        if approval.status != ApprovalStatus::Requested {
            refuse(Some(&approval), &settled_line(&approval));
            return;
        }
        let me = locked(&hub.desk).me.clone();
        if let Some(message) = not_offered(&approval, me.as_ref(), action) {
            refuse(Some(&approval), &message);
            return;
        }
        // Only a deny button needs the person's reasons (the settings are copied to read them).
        let reasons = if action.denies() {
            hub.settings().deny_reasons()
        } else {
            Vec::new()
        };
        if action == PromptAction::Deny && !reasons.is_empty() {
            // Why first: the live task raises the "why deny?" notification.
            let _ = hub.inputs.try_send(Input::AskWhy(Box::new(approval)));
            return;
        }
        let Some(request) = decision_for(action, Some(&approval), &reasons) else {
            return;
        };
        if let Err(err) = client.decide(&approval.approval_id, &request).await {
            if let Some(url) = step_up_url(&err) {
                // The policy asks a passkey for this approval: the browser's desk asks for it.
                open_in_browser(&url);
            }
            refuse(Some(&approval), &said(&err));
        }
    });
}

/// The web desk's page for an approval the policy's step-up holds (the service names it in
/// its refusal), when that is why `err` refused the press.
fn step_up_url(err: &assent_client::ClientError) -> Option<String> {
    let assent_client::ClientError::Api { code, message, .. } = err else {
        return None;
    };
    if *code != assent_protocol::ErrorCode::StepUpRequired {
        return None;
    }
    let start = message
        .find("http://")
        .or_else(|| message.find("https://"))?;
    let url = message.get(start..)?.split([' ', ')']).next()?;
    url.contains("/desk/").then(|| url.to_owned())
}

/// Raises the "did not go through" notification for a press of `action`.
fn raise_refusal(
    inputs: &mpsc::Sender<Input>,
    approval: Option<&Approval>,
    action: PromptAction,
    message: &str,
) {
    tracing::warn!(%message, ?action, "a decision from a notification did not go through");
    let notice = refused_notice(approval, action, message);
    // The live task may be gone only while the app quits.
    let _ = inputs.try_send(Input::Refused(notice));
}

/// Why a press found no prompt to decide, when the service cannot say more.
const NO_LONGER_WAITING: &str =
    "This prompt is no longer waiting: it was decided elsewhere or expired.";

/// How a prompt that is no longer waiting was settled, in the service's facts.
fn settled_line(approval: &Approval) -> String {
    let by = approval
        .decided_by
        .as_deref()
        .map(|who| format!(" by {who}"))
        .unwrap_or_default();
    match approval.status {
        ApprovalStatus::ApprovedOnce
        | ApprovalStatus::ApprovedForRun
        | ApprovalStatus::ApprovedForPolicyScope => {
            format!("This prompt is no longer waiting: it was already approved{by}.")
        }
        ApprovalStatus::Denied => {
            format!("This prompt is no longer waiting: it was already denied{by}.")
        }
        ApprovalStatus::Expired => {
            "This prompt is no longer waiting: it expired before the press.".to_owned()
        }
        _ => NO_LONGER_WAITING.to_owned(),
    }
}

/// Why `action` is not offered on the pending `approval` (this person may not decide it, or
/// it offers no such button), or `None` when it is.
fn not_offered(approval: &Approval, me: Option<&Me>, action: PromptAction) -> Option<String> {
    // The "why deny?" buttons stand for the prompt's Deny.
    let offered = if action.denies() {
        PromptAction::Deny
    } else {
        action
    };
    if notice(approval, me).is_some_and(|notice| notice.actions.contains(&offered)) {
        return None;
    }
    Some(match open_only(approval, me) {
        Some(why) => open_only_line(why),
        None => format!("This prompt does not offer \"{}\".", action.label()),
    })
}

/// How long a button's grant lasts: what the service's `quick_decisions` allow for that scope
/// (the policy's bound), else the desk's default capped by nothing the service told us.
fn quick_seconds(approval: Option<&Approval>, scope: ScopeKind, default: i64) -> i64 {
    approval
        .and_then(|a| a.quick_decisions.iter().find(|q| q.scope == scope))
        .map_or(default, |q| q.expires_in_seconds)
}

/// The decision a notification button stands for on `approval`; `reasons` are the person's
/// deny reasons, which a "why deny?" button picks by place.
fn decision_for(
    action: PromptAction,
    approval: Option<&Approval>,
    reasons: &[String],
) -> Option<DecisionRequest> {
    let approve = |scope, expires_in_seconds, reason: &str| DecisionRequest::Approve {
        scope,
        expires_in_seconds,
        max_uses: None,
        reason: Some(reason.to_owned()),
        path_patterns: None,
    };
    match action {
        PromptAction::Open => None,
        PromptAction::AllowOnce => Some(approve(
            ScopeKind::Once,
            quick_seconds(approval, ScopeKind::Once, ONCE_EXPIRY_SECONDS),
            "Allowed once from the Assent notification",
        )),
        PromptAction::AllowForRun => Some(approve(
            ScopeKind::Run,
            quick_seconds(approval, ScopeKind::Run, RUN_EXPIRY_SECONDS),
            "Allowed for this run from the Assent notification",
        )),
        PromptAction::DenyWith(i) => Some(DecisionRequest::Deny {
            reason: reasons
                .get(usize::from(i))
                .map_or(NOTIFICATION_DENY_REASON, String::as_str)
                .to_owned(),
        }),
        PromptAction::Deny | PromptAction::DenyPlain => Some(DecisionRequest::Deny {
            reason: NOTIFICATION_DENY_REASON.to_owned(),
        }),
    }
}

#[cfg(test)]
mod step_up_tests {
    use super::step_up_url;
    use assent_client::ClientError;
    use assent_protocol::ErrorCode;

    #[test]
    fn a_step_up_refusal_opens_the_desk_on_that_prompt_and_nothing_else_does() {
        let step_up = ClientError::Api {
            status: 403,
            code: ErrorCode::StepUpRequired,
            message: "approving a high risk prompt needs your passkey: confirm it in the web desk (http://localhost:7391/desk/#/pending/a-1)".to_owned(),
        };
        assert_eq!(
            step_up_url(&step_up).as_deref(),
            Some("http://localhost:7391/desk/#/pending/a-1"),
            "the refusal's page, exactly"
        );
        let role = ClientError::Api {
            status: 403,
            code: ErrorCode::Forbidden,
            message: "needs a maintainer (http://localhost:7391/desk/)".to_owned(),
        };
        assert_eq!(step_up_url(&role), None, "only a step-up opens a browser");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_run_button_asks_for_what_the_policy_allows() {
        let mut approval = crate::fixtures::approval("a-1");
        approval.quick_decisions = vec![assent_core::QuickDecision {
            label: "Allow maven-test for run".to_owned(),
            scope: ScopeKind::Run,
            expires_in_seconds: 14_400,
        }];
        match decision_for(PromptAction::AllowForRun, Some(&approval), &[]) {
            Some(DecisionRequest::Approve {
                expires_in_seconds, ..
            }) => assert_eq!(
                expires_in_seconds, 14_400,
                "a policy capping run grants at 4 h gets a 4 h click, not a refused 8 h one"
            ),
            other => panic!("'Allow for run' must approve, got {other:?}"),
        }
    }

    #[test]
    fn a_reason_button_sends_that_reason_to_the_agent() {
        let reasons = [
            "use the staging environment".to_owned(),
            "out of scope".to_owned(),
        ];
        let denied = |action| match decision_for(action, None, &reasons) {
            Some(DecisionRequest::Deny { reason }) => reason,
            other => panic!("{action:?} must deny, got {other:?}"),
        };
        assert_eq!(
            denied(PromptAction::DenyWith(1)),
            "out of scope",
            "the agent is told the reason picked, as written in Settings (not the label)"
        );
        assert_eq!(
            denied(PromptAction::DenyPlain),
            NOTIFICATION_DENY_REASON,
            "'Just deny' still says where the denial came from"
        );
        assert_eq!(
            denied(PromptAction::DenyWith(5)),
            NOTIFICATION_DENY_REASON,
            "a reason removed from Settings since the notice was shown still denies"
        );
    }

    #[test]
    fn a_press_on_a_settled_prompt_says_how_it_settled() {
        let mut approval = crate::fixtures::approval("a-1");
        approval.decided_by = Some("reviewer".to_owned());
        let cases = [
            (
                ApprovalStatus::Denied,
                "This prompt is no longer waiting: it was already denied by reviewer.",
            ),
            (
                ApprovalStatus::ApprovedForRun,
                "This prompt is no longer waiting: it was already approved by reviewer.",
            ),
            (
                ApprovalStatus::Expired,
                "This prompt is no longer waiting: it expired before the press.",
            ),
            (ApprovalStatus::Revoked, NO_LONGER_WAITING),
        ];
        for (status, line) in cases {
            approval.status = status;
            assert_eq!(
                settled_line(&approval),
                line,
                "{status:?}: the person learns why the press did nothing"
            );
        }
    }

    #[test]
    fn notification_buttons_map_to_the_documented_decisions() {
        assert_eq!(
            decision_for(PromptAction::Open, None, &[]),
            None,
            "the body click only opens the window"
        );
        match decision_for(PromptAction::AllowForRun, None, &[]) {
            Some(DecisionRequest::Approve {
                scope,
                expires_in_seconds,
                ..
            }) => {
                assert_eq!(
                    scope,
                    ScopeKind::Run,
                    "'Allow for run' grants the run scope"
                );
                assert!(expires_in_seconds > 0, "every grant expires");
            }
            other => panic!("'Allow for run' must approve, got {other:?}"),
        }
        match decision_for(PromptAction::AllowOnce, None, &[]) {
            Some(DecisionRequest::Approve { scope, .. }) => {
                assert_eq!(
                    scope,
                    ScopeKind::Once,
                    "'Allow once' grants exactly this action"
                );
            }
            other => panic!("'Allow once' must approve, got {other:?}"),
        }
        match decision_for(PromptAction::Deny, None, &[]) {
            Some(DecisionRequest::Deny { reason }) => {
                assert!(
                    !reason.trim().is_empty(),
                    "a denial carries a reason for the agent"
                );
            }
            other => panic!("'Deny' must deny, got {other:?}"),
        }
    }
}
