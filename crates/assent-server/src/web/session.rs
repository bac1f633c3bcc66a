//! The web desk's session: a random cookie value (`assent_session`, HttpOnly, SameSite=Strict,
//! Secure except on plain loopback) whose SHA-256 names a row bound to one person. It ends
//! after [`IDLE`] without a request, after [`ABSOLUTE`] in any case, on sign-out, when the
//! person is removed, or when their last passkey goes.

use assent_core::{AuditDecision, Identity};
use assent_protocol::SESSION_COOKIE;
use axum::http::{HeaderMap, HeaderValue};
use chrono::{DateTime, TimeDelta, Utc};

use crate::error::ApiError;
use crate::state::Shared;
use crate::token::token_hash;

/// A session unused this long ends.
pub const IDLE: TimeDelta = TimeDelta::hours(12);
/// A session ends this long after sign-in, used or not.
pub const ABSOLUTE: TimeDelta = TimeDelta::days(7);
/// How stale `last_seen_at` may get before a request writes it again (one write a minute at
/// most per session, not one per request).
const SEEN_EVERY: TimeDelta = TimeDelta::minutes(1);

/// The session cookie's value in `headers`, if any.
pub fn cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == SESSION_COOKIE)
        .map(|(_, value)| value.trim())
        .filter(|value| !value.is_empty())
}

/// The person whose open session `value` is; `None` when it is unknown, ended or timed out.
pub async fn person(shared: &Shared, value: &str) -> Result<Option<Identity>, ApiError> {
    let hash = token_hash(value);
    let Some(row) = shared.store.session(&hash).await? else {
        return Ok(None);
    };
    let now = shared.clock.now();
    if row.ended_at.is_some() || !open_at(row.created_at, row.last_seen_at, now) {
        return Ok(None);
    }
    let Some(identity) = shared.store.identity(&row.person).await? else {
        return Ok(None);
    };
    if !identity.is_person() {
        return Ok(None);
    }
    if now - row.last_seen_at >= SEEN_EVERY {
        shared.store.session_seen(&hash, now).await?;
    }
    Ok(Some(identity))
}

/// Whether a session signed in at `created` and last used at `seen` is still open at `now`.
pub fn open_at(created: DateTime<Utc>, seen: DateTime<Utc>, now: DateTime<Utc>) -> bool {
    now - seen < IDLE && now - created < ABSOLUTE
}

/// Opens a session for `person` (audited); the cookie value to set.
pub async fn open(shared: &Shared, person: &Identity, how: &str) -> Result<String, ApiError> {
    let value = super::random_code("assent_s_");
    let now = shared.clock.now();
    let audit = super::audit(
        AuditDecision::SignedIn,
        &person.name,
        person.role_for(None),
        format!("{} signed in to the web desk", person.name),
        how,
        now,
    );
    shared
        .store
        .session_add(&token_hash(&value), &person.name, &audit)
        .await?;
    Ok(value)
}

/// Ends the session `value` names; false when it was not open.
pub async fn end(shared: &Shared, value: &str) -> Result<bool, ApiError> {
    Ok(shared
        .store
        .session_end(&token_hash(value), shared.clock.now())
        .await?)
}

/// `Set-Cookie` for a new session at `origin`.
pub fn set_cookie(value: &str, origin: &str) -> HeaderValue {
    cookie_header(value, ABSOLUTE.num_seconds(), origin)
}

/// `Set-Cookie` that removes the session cookie.
pub fn clear_cookie(origin: &str) -> HeaderValue {
    cookie_header("", 0, origin)
}

fn cookie_header(value: &str, max_age: i64, origin: &str) -> HeaderValue {
    let secure = if super::origin::is_plain_loopback(origin) {
        ""
    } else {
        "; Secure"
    };
    let text = format!(
        "{SESSION_COOKIE}={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age={max_age}{secure}"
    );
    // Only our own hex value and fixed words: always a valid header value.
    HeaderValue::from_str(&text)
        .unwrap_or_else(|_| HeaderValue::from_static("assent_session=; Max-Age=0"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cookie_is_found_among_others_and_empty_is_none() {
        let mut headers = HeaderMap::new();
        headers.insert(
            axum::http::header::COOKIE,
            HeaderValue::from_static("theme=dark; assent_session=assent_s_ab12 ; other=1"),
        );
        assert_eq!(
            cookie(&headers),
            Some("assent_s_ab12"),
            "the desk's cookie among others"
        );
        headers.insert(
            axum::http::header::COOKIE,
            HeaderValue::from_static("assent_session="),
        );
        assert_eq!(cookie(&headers), None, "an empty value is no session");
        headers.insert(
            axum::http::header::COOKIE,
            HeaderValue::from_static("xassent_session=1"),
        );
        assert_eq!(cookie(&headers), None, "only the exact name counts");
    }

    #[test]
    fn sessions_end_when_idle_or_old() {
        let t0 = DateTime::from_timestamp(1_800_000_000, 0).unwrap_or_default();
        assert!(
            open_at(t0, t0, t0 + TimeDelta::hours(11)),
            "used within the idle time"
        );
        assert!(
            !open_at(t0, t0, t0 + IDLE),
            "unused for the idle time: ended"
        );
        let seen = t0 + ABSOLUTE - TimeDelta::minutes(1);
        assert!(
            !open_at(t0, seen, t0 + ABSOLUTE),
            "used all along, but past the absolute limit"
        );
    }

    #[test]
    fn the_cookie_is_secure_except_on_plain_loopback() {
        let local = set_cookie("v", "http://localhost:7391");
        let local = local.to_str().unwrap_or_default();
        assert!(
            local.contains("HttpOnly") && local.contains("SameSite=Strict"),
            "{local}"
        );
        assert!(
            !local.contains("Secure"),
            "http://localhost cannot carry a Secure cookie everywhere: {local}"
        );
        let public = set_cookie("v", "https://desk.example.com");
        assert!(
            public.to_str().unwrap_or_default().ends_with("; Secure"),
            "a public desk's cookie is Secure"
        );
    }
}
