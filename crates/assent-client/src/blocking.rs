//! The blocking client: one connection per call, every call bounded by an absolute deadline.
//! The gate uses it: no async runtime and no pool to start, and on `http://` no TLS either;
//! `https://` trusts the system roots plus `ASSENT_CA_FILE`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use assent_core::ActionRequest;
use assent_protocol::{Approval, RunEndResponse, SubmitResponse};
use serde::de::DeserializeOwned;

use crate::config::{ClientConfig, Endpoint, Scheme};
use crate::error::ClientError;
use crate::poll::{is_settled, long_poll_wait, SHORT_POLL_PAUSE};
use crate::tls::Trust;
use crate::wire::{decode, encode_segment, exchange, Exchange};

pub use crate::poll::LONG_POLL_SLICE;

/// A blocking client of the service (requester calls).
#[derive(Clone)]
pub struct Client {
    endpoint: Endpoint,
    token: String,
    /// Built for an `https://` endpoint only.
    tls: Option<Arc<rustls::ClientConfig>>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("blocking::Client")
            .field("endpoint", &self.endpoint)
            .finish()
    }
}

impl Client {
    /// A client of `base_url` (`http[s]://host:port`) presenting `token`; `https://` trusts
    /// the system roots and `ASSENT_CA_FILE`.
    pub fn new(base_url: &str, token: &str) -> Result<Client, ClientError> {
        Client::with_trust(base_url, token, &Trust::from_env())
    }

    /// A client of `base_url` trusting the system roots and `trust` on `https://`.
    pub fn with_trust(base_url: &str, token: &str, trust: &Trust) -> Result<Client, ClientError> {
        let endpoint = Endpoint::parse(base_url)?;
        if token.is_empty() || token.contains(['\r', '\n']) {
            return Err(ClientError::Config(
                "the token is empty or spans lines".into(),
            ));
        }
        let tls = match endpoint.scheme {
            Scheme::Http => None,
            Scheme::Https => Some(trust.tls_config()?),
        };
        Ok(Client {
            endpoint,
            token: token.to_owned(),
            tls,
        })
    }

    /// A client from a resolved configuration.
    pub fn from_config(config: &ClientConfig) -> Result<Client, ClientError> {
        Client::new(&config.url, &config.token)
    }

    /// `POST /v1/actions`.
    pub fn submit(
        &self,
        request: &ActionRequest,
        deadline: Instant,
    ) -> Result<SubmitResponse, ClientError> {
        let body = serde_json::to_vec(request)
            .map_err(|err| ClientError::Config(format!("cannot encode the request: {err}")))?;
        self.call("POST", "/v1/actions", Some(&body), deadline)
    }

    /// `POST /v1/actions/screen`: the policy's answer and a remembered denial, without
    /// opening a prompt (an ask answers [`SubmitStatus::WouldAsk`](assent_protocol::SubmitStatus)).
    pub fn screen(
        &self,
        request: &ActionRequest,
        deadline: Instant,
    ) -> Result<SubmitResponse, ClientError> {
        let body = serde_json::to_vec(request)
            .map_err(|err| ClientError::Config(format!("cannot encode the request: {err}")))?;
        self.call("POST", "/v1/actions/screen", Some(&body), deadline)
    }

    /// `GET /v1/approvals/{id}[?wait=S]`. The socket deadline is `deadline`; `wait` is how
    /// long the service may hold the answer.
    pub fn approval(
        &self,
        id: &str,
        wait: Option<Duration>,
        deadline: Instant,
    ) -> Result<Approval, ClientError> {
        let mut target = format!("/v1/approvals/{}", encode_segment(id));
        if let Some(wait) = wait {
            target.push_str(&format!("?wait={}", wait.as_secs()));
        }
        self.call("GET", &target, None, deadline)
    }

    /// Long-polls until the approval settles or `deadline` passes ([`ClientError::Timeout`]).
    pub fn wait_settled(&self, id: &str, deadline: Instant) -> Result<Approval, ClientError> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(ClientError::Timeout);
            }
            let wait = long_poll_wait(left);
            let approval = self.approval(id, Some(wait), deadline)?;
            if is_settled(&approval) {
                return Ok(approval);
            }
            if wait.as_secs() == 0 {
                std::thread::sleep(SHORT_POLL_PAUSE.min(left));
            }
        }
    }

    /// `POST /v1/runs/{id}/end`.
    pub fn end_run(&self, run_id: &str, deadline: Instant) -> Result<RunEndResponse, ClientError> {
        let target = format!("/v1/runs/{}/end", encode_segment(run_id));
        self.call("POST", &target, None, deadline)
    }

    /// `POST /v1/actions/executed`: the agent ran the action it submitted under
    /// `idempotency_key` in `run_id` (the audit's coverage check); `action`, the action
    /// itself, names it when it was submitted without that key.
    pub fn record_executed(
        &self,
        run_id: &str,
        idempotency_key: &str,
        action: Option<&ActionRequest>,
        deadline: Instant,
    ) -> Result<(), ClientError> {
        let report = assent_protocol::ExecutedRequest {
            run_id: run_id.to_owned(),
            idempotency_key: idempotency_key.to_owned(),
            action: action.cloned(),
        };
        let body = serde_json::to_string(&report)
            .map_err(|err| ClientError::Config(format!("cannot encode the report: {err}")))?;
        let (status, bytes) = self.raw(
            "POST",
            "/v1/actions/executed",
            Some(body.as_bytes()),
            deadline,
        )?;
        if (200..300).contains(&status) {
            Ok(())
        } else {
            Err(ClientError::from_status(status, &bytes))
        }
    }

    /// `POST /v1/credentials/release`: the secret of the approved capability request
    /// submitted under `idempotency_key` in `run_id`, for that one execution.
    pub fn release_credential(
        &self,
        run_id: &str,
        idempotency_key: &str,
        deadline: Instant,
    ) -> Result<assent_protocol::CredentialRelease, ClientError> {
        let body =
            serde_json::json!({ "run_id": run_id, "idempotency_key": idempotency_key }).to_string();
        self.call(
            "POST",
            "/v1/credentials/release",
            Some(body.as_bytes()),
            deadline,
        )
    }

    /// `GET /healthz`.
    pub fn health(&self, deadline: Instant) -> Result<(), ClientError> {
        let (status, body) = self.raw("GET", "/healthz", None, deadline)?;
        if (200..300).contains(&status) {
            Ok(())
        } else {
            Err(ClientError::from_status(status, &body))
        }
    }

    pub(crate) fn raw(
        &self,
        method: &str,
        target: &str,
        body: Option<&[u8]>,
        deadline: Instant,
    ) -> Result<(u16, Vec<u8>), ClientError> {
        exchange(
            &self.endpoint,
            self.tls.as_ref(),
            &Exchange {
                method,
                target,
                token: &self.token,
                body,
                deadline,
            },
        )
    }

    pub(crate) fn call<T: DeserializeOwned>(
        &self,
        method: &str,
        target: &str,
        body: Option<&[u8]>,
        deadline: Instant,
    ) -> Result<T, ClientError> {
        let (status, bytes) = self.raw(method, target, body, deadline)?;
        decode(status, &bytes)
    }
}
