//! The async client (reqwest): every call of the API, typed. The desktop app and the MCP gate
//! use it; the hook gate uses [`crate::blocking::Client`], which shares the wire types.

use std::time::Duration;

use assent_core::{ActionRequest, ApprovalAuditEvent};
use assent_protocol::{
    Approval, ApprovalList, AuditKeyInfo, AuditVerification, DecisionRequest, DecisionResponse,
    Grant, GrantList, Me, Metrics, PolicyStatus, RevokeRequest, RunEndResponse, RunList, RunState,
    SubmitResponse, SuggestionApplied, SuggestionApply, SuggestionList,
};
use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::config::{ClientConfig, Endpoint, Scheme};
use crate::error::ClientError;
use crate::tls::Trust;
use crate::wire::encode_segment;

/// Time allowed for a call that does not long-poll.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// Time allowed for the service to walk its whole audit chain (a million events take
/// seconds; see docs/benchmarks.md).
pub const VERIFY_TIMEOUT: Duration = Duration::from_secs(300);
/// Extra time beyond a long-poll's `wait` for the answer to travel.
const WAIT_SLACK: Duration = Duration::from_secs(10);

/// An async client of the service.
#[derive(Clone)]
pub struct Client {
    pub(crate) http: reqwest::Client,
    pub(crate) base: String,
    pub(crate) token: String,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("base", &self.base).finish()
    }
}

/// `GET /v1/audit` answers either a list or `{"events": [...]}`.
#[derive(Deserialize, Serialize)]
#[serde(untagged)]
enum AuditAnswer {
    List(Vec<ApprovalAuditEvent>),
    Wrapped { events: Vec<ApprovalAuditEvent> },
}

impl Client {
    /// A client of `base_url` (`http[s]://host:port`) presenting `token`; `https://` trusts
    /// the system roots and `ASSENT_CA_FILE`.
    pub fn new(base_url: &str, token: &str) -> Result<Client, ClientError> {
        Client::with_trust(base_url, token, &Trust::from_env())
    }

    /// A client of `base_url` trusting the system roots and `trust` on `https://`.
    pub fn with_trust(base_url: &str, token: &str, trust: &Trust) -> Result<Client, ClientError> {
        if token.is_empty() || token.contains(['\r', '\n']) {
            return Err(ClientError::Config(
                "the token is empty or spans lines".into(),
            ));
        }
        let mut builder = reqwest::Client::builder().connect_timeout(Duration::from_secs(5));
        if Endpoint::parse(base_url)?.scheme == Scheme::Https {
            builder = builder.use_preconfigured_tls(trust.tls_config()?.as_ref().clone());
        }
        let http = builder
            .build()
            .map_err(|err| ClientError::Config(format!("cannot build the HTTP client: {err}")))?;
        Ok(Client {
            http,
            base: base_url.trim_end_matches('/').to_owned(),
            token: token.to_owned(),
        })
    }

    /// A client from a resolved configuration.
    pub fn from_config(config: &ClientConfig) -> Result<Client, ClientError> {
        Client::new(&config.url, &config.token)
    }

    /// `POST /v1/actions`.
    pub async fn submit(&self, request: &ActionRequest) -> Result<SubmitResponse, ClientError> {
        self.send(self.post("/v1/actions").json(request), CALL_TIMEOUT)
            .await
    }

    /// `GET /v1/approvals/{id}[?wait=S]`: with `wait`, the service holds the answer until the
    /// approval settles or `wait` passes.
    pub async fn approval(
        &self,
        id: &str,
        wait: Option<Duration>,
    ) -> Result<Approval, ClientError> {
        let mut path = format!("/v1/approvals/{}", encode_segment(id));
        let mut timeout = CALL_TIMEOUT;
        if let Some(wait) = wait {
            path.push_str(&format!("?wait={}", wait.as_secs()));
            timeout = wait + WAIT_SLACK;
        }
        self.send(self.get(&path), timeout).await
    }

    /// Repeated long-polls until the approval settles, or [`ClientError::Timeout`] once
    /// `deadline` has passed.
    pub async fn wait_settled(
        &self,
        id: &str,
        deadline: Duration,
    ) -> Result<Approval, ClientError> {
        let until = tokio::time::Instant::now() + deadline;
        loop {
            let left = until.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                return Err(ClientError::Timeout);
            }
            let wait = crate::poll::long_poll_wait(left);
            let call = self.approval(id, Some(wait));
            let approval = tokio::time::timeout(left, call)
                .await
                .map_err(|_| ClientError::Timeout)??;
            if crate::poll::is_settled(&approval) {
                return Ok(approval);
            }
            if wait.as_secs() == 0 {
                tokio::time::sleep(crate::poll::SHORT_POLL_PAUSE.min(left)).await;
            }
        }
    }

    /// `GET /v1/me`: who the token belongs to (its name, person or agent, and roles).
    pub async fn me(&self) -> Result<Me, ClientError> {
        self.send(self.get("/v1/me"), CALL_TIMEOUT).await
    }

    /// `GET /v1/approvals?status=pending` (approver).
    pub async fn pending(&self) -> Result<Vec<Approval>, ClientError> {
        let list: ApprovalList = self
            .send(self.get("/v1/approvals?status=pending"), CALL_TIMEOUT)
            .await?;
        Ok(list.approvals)
    }

    /// `POST /v1/approvals/{id}/decision` (approver).
    pub async fn decide(
        &self,
        id: &str,
        decision: &DecisionRequest,
    ) -> Result<DecisionResponse, ClientError> {
        let path = format!("/v1/approvals/{}/decision", encode_segment(id));
        self.send(self.post(&path).json(decision), CALL_TIMEOUT)
            .await
    }

    /// `GET /v1/runs/{id}/denials` (person): the run's remembered denials, newest first.
    /// Each answers equivalent requests of its run at once, until [`Client::forget_denial`].
    pub async fn denials(&self, run_id: &str) -> Result<Vec<Approval>, ClientError> {
        let path = format!("/v1/runs/{}/denials", encode_segment(run_id));
        let list: ApprovalList = self.send(self.get(&path), CALL_TIMEOUT).await?;
        Ok(list.approvals)
    }

    /// `POST /v1/approvals/{id}/forget` (person): undoes a remembered denial, so equivalent
    /// requests of its run ask again; 409 when it is not one.
    pub async fn forget_denial(&self, approval_id: &str) -> Result<Approval, ClientError> {
        let path = format!("/v1/approvals/{}/forget", encode_segment(approval_id));
        let body = serde_json::json!({});
        self.send(self.post(&path).json(&body), CALL_TIMEOUT).await
    }

    /// `GET /v1/grants[?status=active]` (approver).
    pub async fn grants(&self, active_only: bool) -> Result<Vec<Grant>, ClientError> {
        let path = if active_only {
            "/v1/grants?status=active"
        } else {
            "/v1/grants"
        };
        let list: GrantList = self.send(self.get(path), CALL_TIMEOUT).await?;
        Ok(list.grants)
    }

    /// `POST /v1/grants/{id}/revoke` (approver).
    pub async fn revoke(&self, id: &str, reason: &str) -> Result<Grant, ClientError> {
        let path = format!("/v1/grants/{}/revoke", encode_segment(id));
        let body = RevokeRequest {
            reason: reason.to_owned(),
        };
        self.send(self.post(&path).json(&body), CALL_TIMEOUT).await
    }

    /// `POST /v1/runs/{id}/end`.
    pub async fn end_run(&self, run_id: &str) -> Result<RunEndResponse, ClientError> {
        let path = format!("/v1/runs/{}/end", encode_segment(run_id));
        self.send(self.post(&path), CALL_TIMEOUT).await
    }

    /// `GET /v1/runs?status=paused` (approver): runs waiting for a person to resume them.
    pub async fn paused_runs(&self) -> Result<Vec<RunState>, ClientError> {
        let list: RunList = self
            .send(self.get("/v1/runs?status=paused"), CALL_TIMEOUT)
            .await?;
        Ok(list.runs)
    }

    /// `POST /v1/runs/{id}/resume` (approver).
    pub async fn resume_run(&self, run_id: &str) -> Result<RunState, ClientError> {
        let path = format!("/v1/runs/{}/resume", encode_segment(run_id));
        self.send(self.post(&path), CALL_TIMEOUT).await
    }

    /// `GET /v1/audit[?since=&run_id=]` (approver).
    pub async fn audit(
        &self,
        since: Option<DateTime<Utc>>,
        run_id: Option<&str>,
    ) -> Result<Vec<ApprovalAuditEvent>, ClientError> {
        let mut query = Vec::new();
        if let Some(since) = since {
            query.push(format!("since={}", encode_segment(&since.to_rfc3339())));
        }
        if let Some(run_id) = run_id {
            query.push(format!("run_id={}", encode_segment(run_id)));
        }
        let mut path = "/v1/audit".to_owned();
        if !query.is_empty() {
            path.push('?');
            path.push_str(&query.join("&"));
        }
        let answer: AuditAnswer = self.send(self.get(&path), CALL_TIMEOUT).await?;
        Ok(match answer {
            AuditAnswer::List(events) | AuditAnswer::Wrapped { events } => events,
        })
    }

    /// `GET /v1/audit/key` (person): the public key that checks the service's audit
    /// checkpoints, and its fingerprint.
    pub async fn audit_key(&self) -> Result<AuditKeyInfo, ClientError> {
        self.send(self.get("/v1/audit/key"), CALL_TIMEOUT).await
    }

    /// `GET /v1/audit/verify` (person): the service walks its audit chain and checkpoints and
    /// says where they break, and which executions nothing covered.
    pub async fn audit_verify(&self) -> Result<AuditVerification, ClientError> {
        self.send(self.get("/v1/audit/verify"), VERIFY_TIMEOUT)
            .await
    }

    /// `GET /v1/metrics` (person): what the service decided, where the prompts come from (per
    /// rule and command profile) and how fast people answered.
    pub async fn metrics(&self) -> Result<Metrics, ClientError> {
        self.send(self.get("/v1/metrics"), CALL_TIMEOUT).await
    }

    /// `GET /v1/suggestions?since_days=` (person): policy changes proposed from what people
    /// decided, each with its evidence.
    pub async fn suggestions(
        &self,
        since_days: i64,
    ) -> Result<Vec<assent_core::suggest::Suggestion>, ClientError> {
        let path = format!("/v1/suggestions?since_days={since_days}");
        let list: SuggestionList = self.send(self.get(&path), CALL_TIMEOUT).await?;
        Ok(list.suggestions)
    }

    /// `POST /v1/suggestions/apply` (platform_admin): writes a suggested change into the
    /// service's policy file and puts it in force.
    pub async fn suggestion_apply(
        &self,
        apply: &SuggestionApply,
    ) -> Result<SuggestionApplied, ClientError> {
        self.send(self.post("/v1/suggestions/apply").json(apply), CALL_TIMEOUT)
            .await
    }

    /// `GET /v1/policy` (person): the policy in force and whether its file's last edit loaded.
    pub async fn policy_status(&self) -> Result<PolicyStatus, ClientError> {
        self.send(self.get("/v1/policy"), CALL_TIMEOUT).await
    }

    /// `GET /healthz`.
    pub async fn health(&self) -> Result<(), ClientError> {
        let response = self
            .http
            .get(format!("{}/healthz", self.base))
            .timeout(CALL_TIMEOUT)
            .send()
            .await
            .map_err(transport_error)?;
        let status = response.status().as_u16();
        if response.status().is_success() {
            return Ok(());
        }
        let body = response.bytes().await.map_err(transport_error)?;
        Err(ClientError::from_status(status, &body))
    }

    pub(crate) fn get(&self, path: &str) -> reqwest::RequestBuilder {
        self.http
            .get(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
    }

    pub(crate) fn post(&self, path: &str) -> reqwest::RequestBuilder {
        self.http
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
    }

    pub(crate) async fn send<T: DeserializeOwned>(
        &self,
        request: reqwest::RequestBuilder,
        timeout: Duration,
    ) -> Result<T, ClientError> {
        let response = request
            .timeout(timeout)
            .send()
            .await
            .map_err(transport_error)?;
        let status = response.status().as_u16();
        let body = response.bytes().await.map_err(transport_error)?;
        crate::wire::decode(status, &body)
    }
}

/// Maps a reqwest failure to the client's error; an unreachable service says why, down to
/// the refused certificate.
pub(crate) fn transport_error(err: reqwest::Error) -> ClientError {
    if err.is_timeout() {
        ClientError::Timeout
    } else if err.is_decode() || err.is_body() {
        ClientError::Malformed(err.to_string())
    } else {
        ClientError::Unavailable(crate::tls::explain(&err))
    }
}
