//! The web desk: the window's UI served at `/desk/` for any browser, and how a browser signs
//! in — one-time invites, passkeys (WebAuthn, verified by webauthn-rs), and a session cookie
//! bound to the person. The page never holds a bearer token; the API accepts the desk's own
//! origin only with a session (see [`origin`]).

pub mod assets;
pub mod invite;
pub mod origin;
pub mod passkeys;
pub mod session;

use assent_core::{ActionKind, ApprovalAuditEvent, AuditDecision, Role};
use chrono::{DateTime, Utc};

/// An audit record of the sign-in (no approval, no action): who, what, about whom.
pub(crate) fn audit(
    decision: AuditDecision,
    by: &str,
    role: Option<Role>,
    subject: String,
    reason: &str,
    now: DateTime<Utc>,
) -> ApprovalAuditEvent {
    ApprovalAuditEvent {
        review: None,
        event_id: uuid::Uuid::new_v4().to_string(),
        timestamp: now,
        approval_id: None,
        action_id: None,
        run_id: String::new(),
        task_id: String::new(),
        action_kind: ActionKind::Other,
        action_hash: String::new(),
        requested_scope: serde_json::Value::Null,
        decision,
        approver: Some(by.to_owned()),
        approver_role: role,
        requester: None,
        reason: reason.to_owned(),
        policy_version: String::new(),
        evidence_artifact_id: String::new(),
        grant_id: None,
        repo: None,
        granted_scope: None,
        grant_expires_at: None,
        subject: Some(subject),
    }
}

/// A risk as a person reads it ("high").
pub(crate) fn risk_word(risk: assent_core::RiskLevel) -> String {
    match serde_json::to_value(risk) {
        Ok(serde_json::Value::String(word)) => word,
        _ => format!("{risk:?}").to_lowercase(),
    }
}

/// 160 random bits, hex: an invite's code, a session's cookie, a ceremony's id.
pub(crate) fn random_code(prefix: &str) -> String {
    use rand::RngCore;
    let mut bytes = [0_u8; 20];
    rand::rng().fill_bytes(&mut bytes);
    format!("{prefix}{}", hex::encode(bytes))
}
