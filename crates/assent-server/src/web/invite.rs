//! One-time enrolment links: `<desk>/enrol#<code>`. Only the code's hash is kept; a link
//! works once, for a short time, and making one is audited.

use assent_core::{AuditDecision, Identity, Role};
use assent_protocol::Invite;
use chrono::{DateTime, TimeDelta, Utc};

use crate::store::{InviteState, Store, StoreError};
use crate::token::token_hash;

/// How long a link works unless told otherwise.
pub const DEFAULT_FOR: TimeDelta = TimeDelta::minutes(15);
/// The longest a link may work.
pub const LONGEST: TimeDelta = TimeDelta::days(1);

/// Why an invite cannot be made or used.
#[derive(Debug, thiserror::Error)]
pub enum InviteError {
    #[error("there is no person named {0}")]
    NoSuchPerson(String),
    #[error("an invite works for at least a minute and at most a day")]
    BadLifetime,
    #[error("only a platform_admin may invite someone else")]
    NotAllowed,
    #[error("this invite is not known here (was the link copied whole?)")]
    Unknown,
    #[error("this invite was used already: ask for a new one")]
    Used,
    #[error("this invite has expired: ask for a new one")]
    Expired,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Makes a link enrolling `person`, by `by` (a person: the desk, or `admin` for the CLI).
pub async fn make(
    store: &dyn Store,
    person: &str,
    by: Option<&Identity>,
    valid_for: TimeDelta,
    desk_url: &str,
    now: DateTime<Utc>,
) -> Result<Invite, InviteError> {
    if valid_for < TimeDelta::minutes(1) || valid_for > LONGEST {
        return Err(InviteError::BadLifetime);
    }
    if let Some(by) = by {
        if by.name != person && !by.roles.contains(&Role::PlatformAdmin) {
            return Err(InviteError::NotAllowed);
        }
    }
    match store.identity(person).await? {
        Some(identity) if identity.is_person() => {}
        _ => return Err(InviteError::NoSuchPerson(person.to_owned())),
    }
    let code = super::random_code("");
    let expires_at = now + valid_for;
    let by_name = by.map_or("admin", |by| by.name.as_str());
    let audit = super::audit(
        AuditDecision::Invited,
        by_name,
        by.and_then(|by| by.role_for(None)),
        format!(
            "invite for {person} to enrol a passkey, until {}",
            expires_at.to_rfc3339()
        ),
        "",
        now,
    );
    store
        .invite_add(&token_hash(&code), person, expires_at, &audit)
        .await?;
    Ok(Invite {
        person: person.to_owned(),
        link: format!("{}/desk/enrol#{code}", desk_url.trim_end_matches('/')),
        expires_at,
    })
}

/// The person an invite's `code` enrols, while it is open.
pub async fn check(
    store: &dyn Store,
    code: &str,
    now: DateTime<Utc>,
) -> Result<String, InviteError> {
    match store.invite_state(&token_hash(code), now).await? {
        InviteState::Open(person) => Ok(person),
        InviteState::Used => Err(InviteError::Used),
        InviteState::Expired => Err(InviteError::Expired),
        InviteState::Unknown => Err(InviteError::Unknown),
    }
}

/// `15m`, `2h`, `1d`, `90s`: a link's lifetime.
pub fn parse_for(text: &str) -> Result<TimeDelta, InviteError> {
    let text = text.trim();
    let (number, unit) = text.split_at(
        text.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len()),
    );
    let n: i64 = number.parse().map_err(|_| InviteError::BadLifetime)?;
    let span = match unit {
        "s" => TimeDelta::try_seconds(n),
        "m" | "min" => TimeDelta::try_minutes(n),
        "h" => TimeDelta::try_hours(n),
        "d" => TimeDelta::try_days(n),
        _ => None,
    };
    span.ok_or(InviteError::BadLifetime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifetimes_read_as_written() {
        assert_eq!(parse_for("15m").ok(), Some(TimeDelta::minutes(15)));
        assert_eq!(parse_for("2h").ok(), Some(TimeDelta::hours(2)));
        assert_eq!(parse_for("1d").ok(), Some(TimeDelta::days(1)));
        for bad in [
            "",
            "m",
            "15",
            "15 minutes",
            "-5m",
            "99999999999999999999m",
            "1w",
        ] {
            assert!(parse_for(bad).is_err(), "{bad:?} is no lifetime");
        }
    }
}
