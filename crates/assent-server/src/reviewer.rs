//! The model reviewer's HTTP side: posts the exact bytes the core built, bounded by the
//! configured timeout, and reads the verdict strictly. Any failure is a value the person
//! reads ("the reviewer timed out"), never an approval.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use assent_core::reviewer::request::{build, verdict_text};
use assent_core::reviewer::verdict::parse;
use assent_core::reviewer::{ReviewFailure, ReviewerApi, ReviewerConfig, Verdict, PROMPT_VERSION};
use serde_json::Value;

/// The largest answer read from a reviewer.
const MAX_ANSWER_BYTES: usize = 1 << 20;
/// Failures in a row after which the desk says the reviewer is unavailable.
pub const UNAVAILABLE_AFTER: u32 = 3;

/// One call's record: what was sent (its hash), how long it took, what came back.
#[derive(Debug, Clone)]
pub struct Review {
    pub model: String,
    pub prompt_version: &'static str,
    /// SHA-256 of the exact request body sent.
    pub request_sha256: String,
    pub latency: Duration,
    pub result: Result<Verdict, ReviewFailure>,
}

/// Calls and failures since the service started, for the desk and `/metrics`.
#[derive(Debug, Default)]
pub struct Health {
    failures_in_a_row: AtomicU32,
    calls: AtomicU64,
    failures: AtomicU64,
}

impl Health {
    /// Whether the last [`UNAVAILABLE_AFTER`] calls or more all failed.
    pub fn unavailable(&self) -> bool {
        self.failures_in_a_row.load(Ordering::Relaxed) >= UNAVAILABLE_AFTER
    }

    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }

    pub fn failures(&self) -> u64 {
        self.failures.load(Ordering::Relaxed)
    }

    fn record(&self, ok: bool) {
        self.calls.fetch_add(1, Ordering::Relaxed);
        if ok {
            self.failures_in_a_row.store(0, Ordering::Relaxed);
        } else {
            self.failures.fetch_add(1, Ordering::Relaxed);
            self.failures_in_a_row.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// A configured reviewer and its HTTP client.
#[derive(Debug, Clone)]
pub struct Reviewer {
    pub config: ReviewerConfig,
    /// The key read from `key_env` when the reviewer was made (never logged or sent elsewhere).
    key: Option<String>,
    http: reqwest::Client,
    pub health: Arc<Health>,
}

impl Reviewer {
    /// A reviewer for `config`: no redirects (the evidence goes where the policy says and
    /// nowhere else), the system's CA roots, the configured timeout over the whole call.
    pub fn new(config: ReviewerConfig) -> Result<Reviewer, std::io::Error> {
        let key = config
            .key_env
            .as_deref()
            .and_then(|name| std::env::var(name).ok());
        Reviewer::with_key(config, key)
    }

    /// A reviewer sending `key` (the value `key_env` names).
    pub fn with_key(
        config: ReviewerConfig,
        key: Option<String>,
    ) -> Result<Reviewer, std::io::Error> {
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(config.timeout().min(Duration::from_secs(10)));
        for cert in rustls_native_certs::load_native_certs().certs {
            if let Ok(cert) = reqwest::Certificate::from_der(&cert) {
                builder = builder.add_root_certificate(cert);
            }
        }
        let http = builder.build().map_err(std::io::Error::other)?;
        Ok(Reviewer {
            config,
            key: key.filter(|k| !k.is_empty()),
            http,
            health: Arc::new(Health::default()),
        })
    }

    /// Sends `document` (see `assent_core::reviewer::request::review_document`) and reads the
    /// verdict. Never fails: a failure is the review's result.
    pub async fn review(&self, document: &Value) -> Review {
        let request = build(&self.config, document);
        let started = Instant::now();
        let limit = self.config.timeout();
        let result =
            match tokio::time::timeout(limit, self.call(&request.endpoint, request.body)).await {
                Ok(result) => result,
                Err(_) => Err(ReviewFailure::Timeout(self.config.timeout.clone())),
            };
        self.health.record(result.is_ok());
        Review {
            model: self.config.model.clone(),
            prompt_version: PROMPT_VERSION,
            request_sha256: request.sha256,
            latency: started.elapsed(),
            result,
        }
    }

    async fn call(&self, endpoint: &str, body: Vec<u8>) -> Result<Verdict, ReviewFailure> {
        let mut call = self
            .http
            .post(endpoint)
            .header("content-type", "application/json")
            .body(body);
        call = match (self.config.api, self.key.clone()) {
            (ReviewerApi::Openai, Some(key)) => call.bearer_auth(key),
            (ReviewerApi::Anthropic, key) => {
                let call = call.header("anthropic-version", "2023-06-01");
                match key {
                    Some(key) => call.header("x-api-key", key),
                    None => call,
                }
            }
            (ReviewerApi::Openai, None) => call,
        };
        let mut answer = call.send().await.map_err(|e| {
            ReviewFailure::Unreachable(if e.is_connect() {
                "connection refused or no route".to_owned()
            } else {
                e.to_string()
            })
        })?;
        let status = answer.status();
        let mut bytes = Vec::new();
        while let Some(chunk) = answer
            .chunk()
            .await
            .map_err(|e| ReviewFailure::Unreachable(e.to_string()))?
        {
            if bytes.len() + chunk.len() > MAX_ANSWER_BYTES {
                return Err(ReviewFailure::Malformed(
                    "the answer was larger than 1 MiB".to_owned(),
                ));
            }
            bytes.extend_from_slice(&chunk);
        }
        if !status.is_success() {
            return Err(ReviewFailure::Http(status.as_u16()));
        }
        parse(&verdict_text(self.config.api, &bytes)?)
    }
}
