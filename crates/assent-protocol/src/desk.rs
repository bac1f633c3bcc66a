//! The web desk's sign-in: invites, passkey ceremonies (the JSON the browser's
//! `PublicKeyCredential.parse…OptionsFromJSON` reads and a credential's `toJSON()` answers),
//! and the person's passkeys.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The name of the web desk's session cookie (HttpOnly, SameSite=Strict).
pub const SESSION_COOKIE: &str = "assent_session";

/// `POST /v1/invites`: a one-time link to enrol a passkey.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct InviteRequest {
    /// Who the link enrols: yourself when omitted; someone else needs `platform_admin`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub person: Option<String>,
    /// How long the link works, e.g. `15m`, `1h` (default 15 minutes, at most a day).
    #[serde(default, rename = "for", skip_serializing_if = "Option::is_none")]
    pub valid_for: Option<String>,
}

/// A one-time enrolment link (shown once: only its hash is kept).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Invite {
    pub person: String,
    /// `<desk>/enrol#<code>`: the code travels in the fragment, never to a server's log.
    pub link: String,
    pub expires_at: DateTime<Utc>,
}

/// `POST /v1/passkeys/register/start`: with an invite's code, or from a signed-in session
/// (adding another passkey).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RegisterStart {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invite: Option<String>,
}

/// What each ceremony's start answers: the options for `navigator.credentials`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CeremonyStart {
    pub ceremony: String,
    /// `PublicKeyCredentialCreationOptionsJSON` or `…RequestOptionsJSON`.
    #[serde(rename = "publicKey")]
    #[schema(value_type = Object)]
    pub public_key: serde_json::Value,
}

/// What each ceremony's finish takes: the ceremony and the credential's `toJSON()`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CeremonyFinish {
    pub ceremony: String,
    #[schema(value_type = Object)]
    pub credential: serde_json::Value,
    /// A name for a new passkey ("phone", "laptop"); registration only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// One of a person's passkeys (never its key material).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PasskeyInfo {
    /// The credential id, base64url.
    pub id: String,
    pub label: String,
    pub created_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_used_at: Option<DateTime<Utc>>,
}

/// `POST /v1/passkeys/register/finish`: the new passkey, and whether the browser is now
/// signed in (an invite's enrolment signs in at once).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Enrolled {
    pub person: String,
    pub passkey: PasskeyInfo,
    pub signed_in: bool,
}

/// `"step_up"` of a decision: a passkey assertion made for this approval, from the ceremony
/// `POST /v1/approvals/{id}/step-up` started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StepUpProof {
    pub ceremony: String,
    #[schema(value_type = Object)]
    pub credential: serde_json::Value,
}

/// The body of `POST /v1/approvals/{id}/decision`: the decision, and the step-up proof the
/// policy may ask of an approval (`{"decision":"approve",…,"step_up":{…}}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecisionBody {
    pub request: crate::DecisionRequest,
    pub step_up: Option<StepUpProof>,
}

impl<'de> Deserialize<'de> for DecisionBody {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut map = serde_json::Map::<String, serde_json::Value>::deserialize(deserializer)?;
        let step_up = map
            .remove("step_up")
            .filter(|v| !v.is_null())
            .map(serde_json::from_value::<StepUpProof>)
            .transpose()
            .map_err(D::Error::custom)?;
        let request =
            serde_json::from_value(serde_json::Value::Object(map)).map_err(D::Error::custom)?;
        Ok(DecisionBody { request, step_up })
    }
}

/// `GET /v1/push/key`: the service's VAPID public key, base64url (no padding) of the
/// uncompressed P-256 point, as `pushManager.subscribe({applicationServerKey})` takes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PushKey {
    pub key: String,
}

/// `POST /v1/push/subscriptions`: a browser's `PushSubscription.toJSON()`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PushSubscriptionJson {
    /// The push service's URL for this browser: `https://`, or `http://` on loopback.
    pub endpoint: String,
    /// When the push service ends the subscription (milliseconds since 1970), if it says.
    #[serde(default, rename = "expirationTime")]
    pub expiration_time: Option<f64>,
    pub keys: PushSubscriptionKeys,
}

/// The browser's keys for RFC 8291: its P-256 public key and its 16-byte auth secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PushSubscriptionKeys {
    /// base64url of the uncompressed P-256 point (65 bytes).
    pub p256dh: String,
    /// base64url of 16 bytes.
    pub auth: String,
}

/// `DELETE /v1/push/subscriptions`: which of the caller's subscriptions to remove.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PushUnsubscribe {
    pub endpoint: String,
}

/// What a push message carries (encrypted for the browser): which prompt, how risky, and
/// the one-line summary the desk shows — never the command, a path's content or a secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PushPayload {
    pub approval_id: String,
    pub risk: assent_core::RiskLevel,
    pub summary: String,
    /// Whether the policy asks a passkey for approving it (`[approvals] step_up`) or its risk
    /// is past the desk's one-act line: the notification then only opens the prompt.
    pub open_only: bool,
}

/// `GET /v1/push/subscriptions`: one of the caller's subscriptions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PushSubscriptionInfo {
    pub endpoint: String,
}
