//! The model reviewer's calls (`[reviewer]` in the policy): one per prompt, off the agent's
//! path. In `decide` mode it approves alone only what the policy finds eligible
//! (`assent_core::reviewer::eligibility`, checked before any call and again at the approval);
//! otherwise its opinion, or its failure, goes to the person with the prompt
//! (`crate::reviews` keeps its part in each). Every call is audited (`reviewed`).

use assent_core::reviewer::request::{review_document, RecentAction};
use assent_core::reviewer::verdict::{approves, not_applied};
use assent_core::reviewer::{eligibility, ReviewerConfig, ReviewerMode};
use assent_core::{ApprovalAuditEvent, ApprovalStatus, AuditDecision, AuditReview, Policy};
use assent_protocol::{Approval, ApprovalReview, ReviewState};

use crate::reviewer::Review;
use crate::reviews::part;
use crate::state::AppState;
use crate::workflow::{ByReviewer, Ground, Prompted, RecentRead, RECENT_AUDIT};

/// A prompt opened (or joined): the reviewer reviews it once (see the module's doc), starting
/// from the prompt as the submission recorded it and the evaluation it was opened under.
/// Runs off the agent's path; every outcome is recorded, none is an error.
pub async fn opened(state: &AppState, prompt: Prompted) {
    let shared = &state.inner;
    let Prompted {
        record,
        evaluation,
        policy,
        recent,
        ..
    } = prompt;
    // Under the policy in force now (reloaded since the submission, it is evaluated again).
    let (policy, evaluation) = shared.workflow.evaluated_now(&record, policy, evaluation);
    let approval_id = record.approval.approval_id.as_str();
    let batch_key = record.approval.batch_key.clone();
    let (Some(config), Ok(evaluation)) = (policy.reviewer.clone(), evaluation) else {
        shared.reviews.unexpect(&batch_key);
        return;
    };
    if record.approval.status != ApprovalStatus::Requested
        || !shared.reviews.claim(approval_id, &config)
    {
        // Settled already, or a request joining a prompt reviewed before: its part is known.
        shared.reviews.unexpect(&batch_key);
        return;
    }
    let eligible = eligibility(&evaluation, &policy, config.up_to);
    if config.mode == ReviewerMode::Decide {
        if let Err(not) = &eligible {
            // Never sent to the model: the person decides, and reads why.
            let review = part(&config, ReviewState::NotEligible, None, not.reason.clone());
            shared.reviews.settle(approval_id, &batch_key, review);
            return;
        }
    }
    let Some(reviewer) = shared.reviews.reviewer(&config) else {
        let review = part(
            &config,
            ReviewState::Failed,
            None,
            "the reviewer could not be set up".to_owned(),
        );
        shared.reviews.settle(approval_id, &batch_key, review);
        return;
    };
    let recent = recent_actions(state, &record.approval.run_id, recent).await;
    // The person's task, only when the policy shares it (the service kept it only then).
    let task = &record.first_request.context.task_turns;
    let task = (config.share_task && !task.is_empty()).then_some(task.as_slice());
    let document = review_document(&evaluation, &record.first_request.reason, &recent, task);
    let review = reviewer.review(&document).await;
    let may_approve = config.mode == ReviewerMode::Decide && eligible.is_ok();
    let (part, approve) = match &review.result {
        Ok(verdict) if may_approve && approves(verdict, config.up_to) => (
            part(
                &config,
                ReviewState::Approved,
                Some(verdict),
                verdict.rationale.clone(),
            ),
            true,
        ),
        Ok(verdict) => {
            // An approval it may not give (a risk above up_to, a task against it): the person
            // decides, and reads why.
            let rationale = match not_applied(verdict, config.up_to).filter(|_| may_approve) {
                Some(why) => format!("{} (not applied: {why})", verdict.rationale),
                None => verdict.rationale.clone(),
            };
            (
                part(&config, ReviewState::Advised, Some(verdict), rationale),
                false,
            )
        }
        Err(failure) => (
            part(&config, ReviewState::Failed, None, failure.to_string()),
            false,
        ),
    };
    if approve {
        let call = Call {
            config: &config,
            review: &review,
            part,
        };
        approve_alone(state, &record, call, evaluation, policy).await;
        return;
    }
    let now = shared.clock.now();
    let audit = audit_of(
        &record,
        &evaluation.action_hash,
        &policy,
        &config,
        &review,
        &part,
        now,
    );
    announce(state, &record.approval, part, Some(&audit)).await;
}

/// The reviewer approved `record`, which the policy found eligible when the call began: it is
/// settled as `reviewer:<model>` with the call audited, in one transaction — checked against
/// the policy in force now (evaluated again only when it was reloaded during the call). When
/// it no longer may, its verdict is only an opinion for the person.
async fn approve_alone(
    state: &AppState,
    record: &crate::store::ApprovalRecord,
    call: Call<'_>,
    evaluation: assent_core::Evaluation,
    policy: std::sync::Arc<Policy>,
) {
    let Call {
        config,
        review,
        part,
    } = call;
    let shared = &state.inner;
    let approval_id = &record.approval.approval_id;
    let action_hash = evaluation.action_hash.clone();
    let (policy, evaluation) = shared
        .workflow
        .evaluated_now(record, policy, Some(evaluation));
    let now = shared.clock.now();
    let decided = match (&policy.reviewer, &evaluation) {
        (Some(today), Ok(evaluation)) if today.mode == ReviewerMode::Decide => {
            let audit = audit_of(record, &action_hash, &policy, config, review, &part, now);
            let ground = Ground {
                policy: &policy,
                env: &shared.env,
                gate_waiting: shared.waiters.count(approval_id) > 0,
                now,
            };
            let actor = config.actor();
            let by = ByReviewer {
                actor: &actor,
                up_to: config.up_to.min(today.up_to),
                audit: &audit,
            };
            // Its part is known before the commit: a waiter woken by the commit (here or by
            // the follower reading it back) is answered with the approval and this part, never
            // with "reviewing". Should the settlement not apply, the opinion below replaces it.
            shared
                .reviews
                .settle(approval_id, &record.approval.batch_key, part.clone());
            shared
                .workflow
                .reviewer_approves(record, by, evaluation, ground)
                .await
                .map_err(|err| err.to_string())
        }
        (_, Err(err)) => Err(format!("the request no longer evaluates: {err}")),
        _ => Err("the policy no longer lets the reviewer decide".to_owned()),
    };
    match decided {
        Ok(decided) => {
            if let Some(grant) = &decided.grant {
                shared.deadlines.propose(grant.grant.expires_at);
            }
            // The waiting agent is answered with it now, not once the follower has read the
            // commit back from the log.
            shared.approval_watch.settled(&decided.approval);
        }
        Err(why) => {
            // Settled meanwhile by a person, no longer eligible, or not recorded: only an
            // opinion, audited as such.
            let advised = ApprovalReview {
                state: ReviewState::Advised,
                rationale: format!("{} (not applied: {why})", part.rationale),
                ..part
            };
            let audit = audit_of(record, &action_hash, &policy, config, review, &advised, now);
            announce(state, &record.approval, advised, Some(&audit)).await;
        }
    }
}

/// One reviewer call that approved: the configuration it was made under, the call, and the
/// reviewer's part it gives the prompt.
struct Call<'a> {
    config: &'a ReviewerConfig,
    review: &'a Review,
    part: ApprovalReview,
}

/// Records `review` as the reviewer's part and announces the prompt with it, in one
/// transaction with the call's `audit` record when there is one.
async fn announce(
    state: &AppState,
    approval: &Approval,
    review: ApprovalReview,
    audit: Option<&ApprovalAuditEvent>,
) {
    let shared = &state.inner;
    shared
        .reviews
        .settle(&approval.approval_id, &approval.batch_key, review.clone());
    let mut approval = approval.clone();
    approval.review = Some(review);
    let now = shared.clock.now();
    if let Err(err) = shared
        .workflow
        .record_review(audit, Some(&approval), now)
        .await
    {
        tracing::warn!(%err, "the reviewer's part could not be recorded and announced");
    }
}

/// The run's last audited actions and what became of them, oldest first: as `read` (begun
/// with the submission) found them, or read now.
async fn recent_actions(
    state: &AppState,
    run_id: &str,
    read: Option<RecentRead>,
) -> Vec<RecentAction> {
    // A read whose task did not finish (the runtime is stopping) is made again.
    let begun = match read {
        Some(read) => read.await.ok(),
        None => None,
    };
    let events = match begun {
        Some(events) => events,
        None => state.inner.store.recent_audit(run_id, RECENT_AUDIT).await,
    };
    let Ok(events) = events else {
        return Vec::new();
    };
    events
        .into_iter()
        .filter(|e| {
            matches!(
                e.decision,
                AuditDecision::Auto
                    | AuditDecision::Approved
                    | AuditDecision::Denied
                    | AuditDecision::Blocked
                    | AuditDecision::Used
            )
        })
        .map(|e| RecentAction {
            summary: e.subject.unwrap_or_default(),
            outcome: match e.decision {
                AuditDecision::Denied => format!("denied: {}", e.reason),
                other => serde_json::to_value(other)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
            },
        })
        .collect()
}

fn audit_of(
    record: &crate::store::ApprovalRecord,
    action_hash: &str,
    policy: &Policy,
    config: &ReviewerConfig,
    review: &Review,
    part: &ApprovalReview,
    now: chrono::DateTime<chrono::Utc>,
) -> ApprovalAuditEvent {
    let approval = &record.approval;
    let state = serde_json::to_value(part.state)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    ApprovalAuditEvent {
        event_id: crate::records::new_id(),
        timestamp: now,
        approval_id: Some(approval.approval_id.clone()),
        action_id: None,
        run_id: approval.run_id.clone(),
        task_id: approval.task_id.clone(),
        action_kind: approval.action_kind,
        action_hash: action_hash.to_owned(),
        requested_scope: serde_json::Value::Null,
        decision: AuditDecision::Reviewed,
        approver: Some(config.actor()),
        approver_role: None,
        requester: Some(record.requester.clone()),
        reason: part.rationale.clone(),
        policy_version: policy.version().to_owned(),
        evidence_artifact_id: approval.approval_id.clone(),
        grant_id: None,
        repo: approval.repo.clone(),
        granted_scope: None,
        grant_expires_at: None,
        subject: Some(approval.evidence.summary.clone()),
        review: Some(AuditReview {
            model: review.model.clone(),
            prompt_version: review.prompt_version.to_owned(),
            state,
            outcome: part.outcome.clone(),
            risk: part.risk,
            rationale: part.rationale.clone(),
            latency_ms: u64::try_from(review.latency.as_millis()).unwrap_or(u64::MAX),
            request_sha256: review.request_sha256.clone(),
        }),
    }
}
