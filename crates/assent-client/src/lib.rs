//! Typed client of Assent's HTTP API.
//!
//! [`Client`] is async (reqwest) and covers every call, including the live event stream
//! with reconnect and `Last-Event-ID` resume. [`blocking::Client`] is the gate's lean
//! requester client: HTTP/1.1 over a `std` socket, each call bounded by a deadline.
//! Both speak the wire types of `assent-protocol`, `http://` or `https://` (system roots
//! plus [`CA_FILE_ENV`], see [`Trust`]), and fail with one [`ClientError`].

pub mod blocking;
mod campaigns;
mod client;
mod config;
mod error;
mod events;
mod poll;
mod tls;
mod webhooks;
mod wire;

pub use client::{Client, CALL_TIMEOUT};
pub use config::{
    agent_token_path, default_data_dir, ClientConfig, Endpoint, Scheme, TOKEN_ENV, URL_ENV,
};
pub use error::ClientError;
pub use events::{StreamItem, FIRST_BACKOFF, IDLE_LIMIT, MAX_BACKOFF};
pub use poll::is_settled;
pub use tls::{Trust, CA_FILE_ENV};
pub use wire::parse_response;
