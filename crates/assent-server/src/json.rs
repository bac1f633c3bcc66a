//! Strict request bodies and query strings: JSON only, 512 KiB, no duplicate keys.

use std::collections::HashSet;
use std::fmt;

use axum::extract::{FromRequest, FromRequestParts, Query, Request};
use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use axum::http::request::Parts;
use serde::de::{self, DeserializeOwned, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use crate::error::ApiError;

/// The largest body accepted: an action carries a diff of up to `MAX_DIFF_BYTES` (256 KiB)
/// and an edit's old and new text of up to `MAX_EDIT_BYTES` (64 KiB) each.
pub const BODY_LIMIT: usize = 512 * 1024;

/// A JSON body, checked strictly before it is typed.
#[derive(Debug)]
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, _state: &S) -> Result<Self, ApiError> {
        let headers = req.headers();
        let is_json = headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"));
        if !is_json {
            return Err(ApiError::UnsupportedMediaType);
        }
        let declared = headers
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        if declared.is_some_and(|len| len > BODY_LIMIT) {
            return Err(ApiError::PayloadTooLarge);
        }
        let bytes = axum::body::to_bytes(req.into_body(), BODY_LIMIT)
            .await
            .map_err(|_| ApiError::PayloadTooLarge)?;
        parse(&bytes).map(Body)
    }
}

/// Parses `bytes` as `T`, refusing duplicate keys at any depth.
pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice::<Unique>(bytes)
        .map_err(|err| ApiError::BadRequest(format!("malformed JSON: {err}")))?;
    serde_json::from_slice(bytes)
        .map_err(|err| ApiError::BadRequest(format!("invalid body: {err}")))
}

/// A JSON value that has been checked for duplicate keys and thrown away.
struct Unique;

impl<'de> Deserialize<'de> for Unique {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(UniqueVisitor)
    }
}

struct UniqueVisitor;

impl<'de> Visitor<'de> for UniqueVisitor {
    type Value = Unique;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_str<E>(self, _: &str) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_unit<E>(self) -> Result<Unique, E> {
        Ok(Unique)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Unique, A::Error> {
        while seq.next_element::<Unique>()?.is_some() {}
        Ok(Unique)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Unique, A::Error> {
        let mut keys = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !keys.insert(key.clone()) {
                return Err(de::Error::custom(format!("duplicate key {key:?}")));
            }
            map.next_value::<Unique>()?;
        }
        Ok(Unique)
    }
}

/// A typed query string whose errors answer 400 in the API's error shape.
#[derive(Debug)]
pub struct Params<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for Params<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        Query::try_from_uri(&parts.uri)
            .map(|Query(value)| Params(value))
            .map_err(|err| ApiError::BadRequest(format!("invalid query: {}", err.body_text())))
    }
}
