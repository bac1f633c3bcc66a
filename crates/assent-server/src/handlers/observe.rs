//! Read-only views: `/healthz`, `/v1/audit`, `/v1/audit/verify`, `/v1/audit/key`, `/metrics`,
//! `/v1/metrics`.

use std::fmt::Write;

use assent_protocol::{AuditList, ErrorBody, Health, Metrics};
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::Json;
use chrono::{DateTime, Utc};
use serde::Deserialize;

use crate::audit_chain::{self, AuditKeyInfo, AuditVerification};
use crate::error::ApiError;
use crate::guard::Person;
use crate::json::Params;
use crate::state::AppState;

#[utoipa::path(get, path = "/healthz", tag = "service", responses((status = 200, body = Health)))]
pub async fn healthz() -> Json<Health> {
    Json(Health {
        status: "ok".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
    })
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct AuditQuery {
    /// Only events at or after this time (RFC 3339).
    #[param(value_type = Option<String>)]
    pub since: Option<DateTime<Utc>>,
    pub run_id: Option<String>,
    /// At most this many (default and maximum 10 000).
    pub limit: Option<i64>,
}

#[utoipa::path(get, path = "/v1/audit", tag = "audit", params(AuditQuery),
    responses((status = 200, body = AuditList), (status = 403, body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn audit_list(
    State(state): State<AppState>,
    _person: Person,
    Params(query): Params<AuditQuery>,
) -> Result<Json<AuditList>, ApiError> {
    let limit = query.limit.unwrap_or(10_000).clamp(1, 10_000);
    let events = state
        .inner
        .store
        .audit(query.since, query.run_id.as_deref(), limit)
        .await?;
    Ok(Json(AuditList { events }))
}

#[utoipa::path(get, path = "/v1/audit/verify", tag = "audit",
    responses((status = 200, body = AuditVerification), (status = 403, body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn audit_verify(
    State(state): State<AppState>,
    _person: Person,
) -> Result<Json<AuditVerification>, ApiError> {
    let shared = &state.inner;
    let keys: Vec<_> = shared.audit_key.iter().map(|k| k.public()).collect();
    let report = audit_chain::verify(shared.store.as_ref(), &keys).await?;
    Ok(Json(AuditVerification {
        public_key: shared.audit_key.as_ref().map(|k| k.public_hex()),
        key_id: shared.audit_key.as_ref().map(|k| k.key_id()),
        report,
    }))
}

#[utoipa::path(get, path = "/v1/audit/key", tag = "audit",
    responses((status = 200, body = AuditKeyInfo), (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn audit_key(
    State(state): State<AppState>,
    _person: Person,
) -> Result<Json<AuditKeyInfo>, ApiError> {
    let key =
        state.inner.audit_key.as_ref().ok_or_else(|| {
            ApiError::NotFound("this service signs no audit checkpoints".to_owned())
        })?;
    Ok(Json(AuditKeyInfo {
        public_key: key.public_hex(),
        key_id: key.key_id(),
    }))
}

#[utoipa::path(get, path = "/v1/metrics", tag = "audit",
    responses((status = 200, body = Metrics), (status = 403, body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn metrics_json(
    State(state): State<AppState>,
    _person: Person,
) -> Result<Json<Metrics>, ApiError> {
    let shared = &state.inner;
    Ok(Json(shared.store.metrics(shared.clock.now()).await?))
}

#[utoipa::path(get, path = "/metrics", tag = "audit",
    responses((status = 200, content_type = "text/plain", body = String, description = "Prometheus text format")),
    security(("bearer" = [])))]
pub async fn metrics_prometheus(
    State(state): State<AppState>,
    _person: Person,
) -> Result<impl IntoResponse, ApiError> {
    let shared = &state.inner;
    let metrics = shared.store.metrics(shared.clock.now()).await?;
    let mut text = prometheus_text(&metrics);
    // Not in `Metrics` (the store's counts): whether the policy file's last edit loaded.
    let broken = shared.policy.status().error.is_some();
    let _ = writeln!(
        text,
        "# HELP assent_policy_file_error 1 when the policy file's last edit did not load (the previous policy stays in force)\n# TYPE assent_policy_file_error gauge\nassent_policy_file_error {}",
        u8::from(broken)
    );
    // Nor this: how durable the submissions' commits were when their callers were answered.
    let (fsynced, committed) = shared.workflow.commit_counts();
    let _ = writeln!(
        text,
        "# HELP assent_submission_commits_total Commits of submitted actions: fsynced before the answer, or committed only (the policy's own decisions, on disk a moment later)\n# TYPE assent_submission_commits_total counter\nassent_submission_commits_total{{durability=\"fsynced\"}} {fsynced}\nassent_submission_commits_total{{durability=\"committed\"}} {committed}"
    );
    // And the model reviewer's calls on this replica (none until the first).
    if let Some(health) = shared.reviews.health() {
        let _ = writeln!(
            text,
            "# HELP assent_reviewer_calls_total Calls to the model reviewer, and those that failed (timeout, error, no valid verdict)\n# TYPE assent_reviewer_calls_total counter\nassent_reviewer_calls_total{{result=\"all\"}} {}\nassent_reviewer_calls_total{{result=\"failed\"}} {}\n# HELP assent_reviewer_unavailable 1 after 3 failed calls in a row, until one succeeds: every prompt goes to a person\n# TYPE assent_reviewer_unavailable gauge\nassent_reviewer_unavailable {}",
            health.calls(),
            health.failures(),
            u8::from(health.unavailable())
        );
    }
    Ok(([(CONTENT_TYPE, "text/plain; version=0.0.4")], text))
}

/// The Prometheus text exposition of `m`.
pub fn prometheus_text(m: &Metrics) -> String {
    let mut out = String::new();
    let mut metric = |name: &str, kind: &str, help: &str, samples: &[(String, f64)]| {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        for (labels, value) in samples {
            let _ = writeln!(out, "{name}{labels} {value}");
        }
    };
    let by_decision: Vec<(String, f64)> = m
        .actions_by_decision
        .iter()
        .map(|(decision, n)| (format!("{{decision=\"{decision}\"}}"), *n as f64))
        .collect();
    metric(
        "assent_actions_total",
        "counter",
        "Submitted actions by policy decision.",
        &by_decision,
    );
    let one = |v: f64| vec![(String::new(), v)];
    metric(
        "assent_prompts_opened_total",
        "counter",
        "Prompts opened.",
        &one(m.prompts_opened as f64),
    );
    metric(
        "assent_prompts_pending",
        "gauge",
        "Prompts waiting for a person.",
        &one(m.prompts_pending as f64),
    );
    metric(
        "assent_batch_size_mean",
        "gauge",
        "Mean requests per prompt.",
        &one(m.batch_size.mean),
    );
    metric(
        "assent_batch_size_max",
        "gauge",
        "Largest batch.",
        &one(m.batch_size.max as f64),
    );
    let t = &m.time_to_decision_seconds;
    let quantiles = vec![
        ("{quantile=\"0.5\"}".to_owned(), t.p50),
        ("{quantile=\"0.9\"}".to_owned(), t.p90),
        ("_count".to_owned(), t.count as f64),
    ];
    metric(
        "assent_time_to_decision_seconds",
        "summary",
        "Seconds from prompt to decision.",
        &quantiles,
    );
    metric(
        "assent_grants_active",
        "gauge",
        "Grants that can still be used.",
        &one(m.grants_active as f64),
    );
    metric(
        "assent_prompts_per_100_actions",
        "gauge",
        "Prompts opened per 100 submitted actions.",
        &one(m.prompts_per_100_actions),
    );
    metric(
        "assent_prompts_per_run_mean",
        "gauge",
        "Mean prompts per run that had any.",
        &one(m.prompts_per_run.mean),
    );
    metric(
        "assent_rubber_stamps_total",
        "counter",
        "Approvals decided within 2 s of the prompt opening.",
        &one(m.rubber_stamps as f64),
    );
    metric(
        "assent_remembered_denials_total",
        "counter",
        "Requests answered by a person's earlier denial instead of a new prompt.",
        &one(m.remembered_denials as f64),
    );
    metric(
        "assent_uncovered_executions_total",
        "counter",
        "Executions the agent reported that nothing allowed.",
        &one(m.uncovered_executions as f64),
    );
    for (label, stats) in [("rule", &m.by_rule), ("profile", &m.by_profile)] {
        let per = |value: &dyn Fn(&assent_protocol::PromptStats) -> f64| -> Vec<(String, f64)> {
            stats
                .iter()
                .map(|(name, s)| (format!("{{{label}=\"{}\"}}", label_value(name)), value(s)))
                .collect()
        };
        let prefix = format!("assent_{label}");
        metric(
            &format!("{prefix}_prompts_total"),
            "counter",
            "Prompts opened.",
            &per(&|s| s.prompts as f64),
        );
        metric(
            &format!("{prefix}_approve_rate"),
            "gauge",
            "Approved / (approved + denied).",
            &per(&|s| s.approve_rate),
        );
        metric(
            &format!("{prefix}_time_to_decide_p90_seconds"),
            "gauge",
            "90th percentile of seconds from prompt to decision.",
            &per(&|s| s.time_to_decide_seconds.p90),
        );
        metric(
            &format!("{prefix}_rubber_stamps_total"),
            "counter",
            "Approvals decided within 2 s.",
            &per(&|s| s.rubber_stamps as f64),
        );
        metric(
            &format!("{prefix}_remembered_denials_total"),
            "counter",
            "Requests answered by a remembered denial.",
            &per(&|s| s.remembered_denials as f64),
        );
    }
    out
}

/// A label value in Prometheus text: backslash, quote and newline escaped.
fn label_value(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}
