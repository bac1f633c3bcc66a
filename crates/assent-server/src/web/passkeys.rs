//! The WebAuthn ceremonies: registering a passkey (with an invite, or while signed in) and
//! signing in with one. webauthn-rs does the verification; here is only what it needs —
//! the relying party per origin, the ceremony's state kept in the store between start and
//! finish (so any replica may finish it, once), and the passkeys' rows.

use assent_core::{AuditDecision, Identity};
use assent_protocol::{CeremonyStart, PasskeyInfo};
use chrono::TimeDelta;
use serde_json::Value;
use sha2::{Digest, Sha256};
use webauthn_rs::prelude::{
    CredentialID, DiscoverableAuthentication, Passkey, PasskeyAuthentication, PasskeyRegistration,
    PublicKeyCredential, RegisterPublicKeyCredential, Url, Uuid, Webauthn, WebauthnBuilder,
};

use crate::error::ApiError;
use crate::state::Shared;
use crate::store::{CeremonyRow, PasskeyRow};

/// How long a ceremony may take from start to finish (the browser's own timeout is 5 min).
const CEREMONY_FOR: TimeDelta = TimeDelta::minutes(5);
const REGISTER: &str = "register";
const SIGN_IN: &str = "sign_in";
const STEP_UP: &str = "step_up";

/// The verifier for the desk at `origin` (its host is the relying party id).
fn webauthn(origin: &str) -> Result<Webauthn, ApiError> {
    let rp_id = super::origin::rp_id(origin).ok_or_else(|| {
        ApiError::BadRequest(
            "passkeys need a host name, not an IP address: open the desk at http://localhost:PORT/desk/"
                .to_owned(),
        )
    })?;
    let url = Url::parse(origin).map_err(|_| ApiError::BadRequest("bad origin".to_owned()))?;
    WebauthnBuilder::new(rp_id, &url)
        .and_then(|builder| builder.rp_name("Assent").build())
        .map_err(|err| ApiError::BadRequest(format!("passkeys cannot be used here: {err}")))
}

/// The WebAuthn user handle of a person: stable, derived from the name (names are unique
/// and never reused while the person exists).
fn user_handle(person: &str) -> Uuid {
    let digest = Sha256::digest(person.as_bytes());
    let mut bytes = [0_u8; 16];
    bytes.copy_from_slice(digest.get(..16).unwrap_or(&[0; 16]));
    Uuid::from_bytes(bytes)
}

/// A credential id as the browser writes it (`id` of the credential's JSON): base64url,
/// unpadded.
fn id_text(id: &CredentialID) -> String {
    use base64::Engine;
    let bytes: &[u8] = id.as_ref();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn internal(err: impl std::fmt::Display) -> ApiError {
    ApiError::Internal(crate::store::StoreError::Corrupt(err.to_string()))
}

fn refused(what: &str, err: impl std::fmt::Display) -> ApiError {
    ApiError::Forbidden(format!("{what} was refused: {err}"))
}

/// The `publicKey` member of webauthn-rs's options: what `parse…OptionsFromJSON` reads.
fn public_key_of(options: impl serde::Serialize) -> Result<Value, ApiError> {
    let mut options = serde_json::to_value(options).map_err(internal)?;
    Ok(options
        .get_mut("publicKey")
        .map(Value::take)
        .unwrap_or_default())
}

/// Keeps a ceremony's state and answers its start.
async fn keep(
    shared: &Shared,
    kind: &str,
    person: Option<&str>,
    bound: Option<String>,
    origin: &str,
    state: &impl serde::Serialize,
    public_key: Value,
) -> Result<CeremonyStart, ApiError> {
    let now = shared.clock.now();
    let id = super::random_code("c_");
    shared
        .store
        .ceremony_put(
            &CeremonyRow {
                id: id.clone(),
                kind: kind.to_owned(),
                person: person.map(str::to_owned),
                bound,
                origin: origin.to_owned(),
                state: serde_json::to_string(state).map_err(internal)?,
                expires_at: now + CEREMONY_FOR,
            },
            now,
        )
        .await?;
    Ok(CeremonyStart {
        ceremony: id,
        public_key,
    })
}

/// Takes the ceremony `id` of `kind`, started at `origin`: each finishes once, where it began.
async fn take(
    shared: &Shared,
    id: &str,
    kind: &str,
    origin: &str,
) -> Result<CeremonyRow, ApiError> {
    let ceremony = shared
        .store
        .ceremony_take(id, shared.clock.now())
        .await?
        .filter(|c| c.kind == kind)
        .ok_or_else(|| {
            ApiError::Forbidden(
                "this ceremony is unknown, finished or expired: start again".to_owned(),
            )
        })?;
    if ceremony.origin != origin {
        return Err(ApiError::Forbidden(
            "this ceremony began at another origin".to_owned(),
        ));
    }
    Ok(ceremony)
}

/// Starts registering a passkey for `person`; `invite` is the hash of the code it came with.
pub async fn register_start(
    shared: &Shared,
    origin: &str,
    person: &str,
    invite: Option<String>,
) -> Result<CeremonyStart, ApiError> {
    let webauthn = webauthn(origin)?;
    let mut exclude = Vec::new();
    for row in shared.store.passkeys_of(person).await? {
        let key: Passkey = serde_json::from_str(&row.passkey).map_err(internal)?;
        exclude.push(key.cred_id().clone());
    }
    let (options, state): (_, PasskeyRegistration) = webauthn
        .start_passkey_registration(user_handle(person), person, person, Some(exclude))
        .map_err(|err| refused("starting the registration", err))?;
    let mut public_key = public_key_of(options)?;
    // A discoverable credential, so signing in needs no name: the passkey says whose it is.
    if let Some(selection) = public_key.get_mut("authenticatorSelection") {
        selection["residentKey"] = Value::from("required");
        selection["requireResidentKey"] = Value::from(true);
    }
    keep(
        shared,
        REGISTER,
        Some(person),
        invite,
        origin,
        &state,
        public_key,
    )
    .await
}

/// A verified registration: the passkey's row, and the invite it used (to spend).
pub struct Registered {
    pub person: String,
    pub key: PasskeyRow,
    pub invite: Option<String>,
}

/// Verifies a registration and stores the passkey (spending its invite, audited).
pub async fn register_finish(
    shared: &Shared,
    origin: &str,
    ceremony_id: &str,
    credential: Value,
    label: Option<&str>,
) -> Result<Registered, ApiError> {
    let ceremony = take(shared, ceremony_id, REGISTER, origin).await?;
    let person = ceremony.person.clone().unwrap_or_default();
    let state: PasskeyRegistration = serde_json::from_str(&ceremony.state).map_err(internal)?;
    let credential: RegisterPublicKeyCredential = serde_json::from_value(credential)
        .map_err(|err| ApiError::BadRequest(format!("not a registration credential: {err}")))?;
    let passkey = webauthn(origin)?
        .finish_passkey_registration(&credential, &state)
        .map_err(|err| refused("the passkey", err))?;
    let now = shared.clock.now();
    let label = label
        .map(clean_label)
        .filter(|l| !l.is_empty())
        .unwrap_or_else(|| "passkey".to_owned());
    let key = PasskeyRow {
        credential_id: id_text(passkey.cred_id()),
        person: person.clone(),
        label: label.clone(),
        passkey: serde_json::to_string(&passkey).map_err(internal)?,
        created_at: now,
        last_used_at: None,
    };
    let how = if ceremony.bound.is_some() {
        "with an invite"
    } else {
        "while signed in"
    };
    let audit = super::audit(
        AuditDecision::Enrolled,
        &person,
        None,
        format!("{person} registered the passkey \"{label}\""),
        how,
        now,
    );
    shared
        .store
        .passkey_enrol(&key, ceremony.bound.as_deref(), &audit)
        .await?;
    Ok(Registered {
        person,
        key,
        invite: ceremony.bound,
    })
}

/// Starts a sign-in with any passkey of this desk (discoverable: no name asked).
pub async fn sign_in_start(shared: &Shared, origin: &str) -> Result<CeremonyStart, ApiError> {
    let (options, state): (_, DiscoverableAuthentication) = webauthn(origin)?
        .start_discoverable_authentication()
        .map_err(|err| refused("starting the sign-in", err))?;
    let public_key = public_key_of(options)?;
    keep(shared, SIGN_IN, None, None, origin, &state, public_key).await
}

/// Verifies a sign-in assertion: the person whose passkey made it.
pub async fn sign_in_finish(
    shared: &Shared,
    origin: &str,
    ceremony_id: &str,
    credential: Value,
) -> Result<Identity, ApiError> {
    let ceremony = take(shared, ceremony_id, SIGN_IN, origin).await?;
    let state: DiscoverableAuthentication =
        serde_json::from_str(&ceremony.state).map_err(internal)?;
    let credential: PublicKeyCredential = serde_json::from_value(credential)
        .map_err(|err| ApiError::BadRequest(format!("not an assertion: {err}")))?;
    let webauthn = webauthn(origin)?;
    let (handle, raw_id) = webauthn
        .identify_discoverable_authentication(&credential)
        .map_err(|err| refused("the passkey", err))?;
    let id = id_text(&CredentialID::from(raw_id.to_vec()));
    let row = shared
        .store
        .passkey(&id)
        .await?
        .ok_or_else(|| ApiError::Forbidden("this passkey is not registered here".to_owned()))?;
    if handle != user_handle(&row.person) {
        return Err(ApiError::Forbidden(
            "this passkey belongs to someone else".to_owned(),
        ));
    }
    let mut passkey: Passkey = serde_json::from_str(&row.passkey).map_err(internal)?;
    let result = webauthn
        .finish_discoverable_authentication_v2(&credential, state, &passkey)
        .map_err(|err| refused("the passkey", err))?;
    if !result.user_verified() {
        return Err(ApiError::Forbidden(
            "the passkey did not verify its user".to_owned(),
        ));
    }
    // The counter moved: keep the key's new state; else only when it was used.
    let state = if passkey.update_credential(&result) == Some(true) {
        serde_json::to_string(&passkey).map_err(internal)?
    } else {
        row.passkey
    };
    shared
        .store
        .passkey_used(&id, &state, shared.clock.now())
        .await?;
    shared
        .store
        .identity(&row.person)
        .await?
        .filter(Identity::is_person)
        .ok_or_else(|| ApiError::Forbidden("this passkey's person is gone".to_owned()))
}

/// What a step-up is bound to: the approval and the action that opened it. A proof made for
/// one approval never decides another, nor the same id after its action changed.
pub fn step_up_binding(approval_id: &str, action_hashes: &str) -> String {
    format!("{approval_id}:{action_hashes}")
}

/// Starts a step-up for `person` on the approval `binding` names: an assertion by one of
/// their own passkeys, with user verification, for this approval only.
pub async fn step_up_start(
    shared: &Shared,
    origin: &str,
    person: &Identity,
    binding: String,
) -> Result<CeremonyStart, ApiError> {
    let mut keys = Vec::new();
    for row in shared.store.passkeys_of(&person.name).await? {
        keys.push(serde_json::from_str::<Passkey>(&row.passkey).map_err(internal)?);
    }
    if keys.is_empty() {
        return Err(ApiError::StepUpRequired(format!(
            "{} has no passkey: enrol one (assent people invite {}) to approve this",
            person.name, person.name
        )));
    }
    let (options, state): (_, PasskeyAuthentication) = webauthn(origin)?
        .start_passkey_authentication(&keys)
        .map_err(|err| refused("starting the step-up", err))?;
    let public_key = public_key_of(options)?;
    keep(
        shared,
        STEP_UP,
        Some(&person.name),
        Some(binding),
        origin,
        &state,
        public_key,
    )
    .await
}

/// Verifies a step-up proof: made by `person`'s passkey, in a ceremony started for
/// `binding`, once.
pub async fn step_up_finish(
    shared: &Shared,
    person: &Identity,
    binding: &str,
    ceremony_id: &str,
    credential: Value,
) -> Result<(), ApiError> {
    let ceremony = shared
        .store
        .ceremony_take(ceremony_id, shared.clock.now())
        .await?
        .filter(|c| c.kind == STEP_UP)
        .ok_or_else(|| {
            ApiError::StepUpRequired(
                "this step-up is unknown, used or expired: confirm again".to_owned(),
            )
        })?;
    if ceremony.person.as_deref() != Some(person.name.as_str()) {
        return Err(ApiError::StepUpRequired(
            "this step-up was made by someone else".to_owned(),
        ));
    }
    if ceremony.bound.as_deref() != Some(binding) {
        return Err(ApiError::StepUpRequired(
            "this step-up was made for another approval".to_owned(),
        ));
    }
    let state: PasskeyAuthentication = serde_json::from_str(&ceremony.state).map_err(internal)?;
    let credential: PublicKeyCredential = serde_json::from_value(credential)
        .map_err(|err| ApiError::BadRequest(format!("not an assertion: {err}")))?;
    let result = webauthn(&ceremony.origin)?
        .finish_passkey_authentication(&credential, &state)
        .map_err(|err| ApiError::StepUpRequired(format!("the passkey was refused: {err}")))?;
    if !result.user_verified() {
        return Err(ApiError::StepUpRequired(
            "the passkey did not verify its user".to_owned(),
        ));
    }
    let id = id_text(result.cred_id());
    if let Some(row) = shared.store.passkey(&id).await? {
        let mut passkey: Passkey = serde_json::from_str(&row.passkey).map_err(internal)?;
        passkey.update_credential(&result);
        let state = serde_json::to_string(&passkey).map_err(internal)?;
        shared
            .store
            .passkey_used(&id, &state, shared.clock.now())
            .await?;
    }
    Ok(())
}

/// A passkey's name as a person typed it, on one line: no control or bidi characters, at
/// most 40 characters.
fn clean_label(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .filter(|c| !matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}'))
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(40)
        .collect()
}

/// A passkey as the desk lists it.
pub fn info(row: &PasskeyRow) -> PasskeyInfo {
    PasskeyInfo {
        id: row.credential_id.clone(),
        label: row.label.clone(),
        created_at: row.created_at,
        last_used_at: row.last_used_at,
    }
}

/// Removes one of `person`'s passkeys (audited); false when they hold none with that id.
pub async fn remove(shared: &Shared, person: &Identity, id: &str) -> Result<bool, ApiError> {
    let audit = super::audit(
        AuditDecision::PasskeyRemoved,
        &person.name,
        person.role_for(None),
        format!("{} removed a passkey", person.name),
        "",
        shared.clock.now(),
    );
    Ok(shared
        .store
        .passkey_remove(&person.name, id, &audit)
        .await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_one_short_plain_line() {
        assert_eq!(
            clean_label("  my\nphone\t "),
            "my phone",
            "controls become spaces, trimmed"
        );
        assert_eq!(
            clean_label("evil\u{202e}gnp.exe"),
            "evilgnp.exe",
            "bidi overrides are dropped"
        );
        assert_eq!(
            clean_label(&"x".repeat(500)).chars().count(),
            40,
            "at most 40 characters"
        );
    }

    #[test]
    fn a_person_has_one_handle_and_people_differ() {
        assert_eq!(
            user_handle("alice"),
            user_handle("alice"),
            "stable across sign-ins"
        );
        assert_ne!(
            user_handle("alice"),
            user_handle("bob"),
            "no two people share a handle"
        );
    }
}
