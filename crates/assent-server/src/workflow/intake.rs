//! An agent's request as the workflow records it: checked, evaluated under the policy in
//! force, given its deadlines, and — when it opens a prompt — handed on with what the model
//! reviewer needs, so nothing is read or evaluated again. The route only says who asks.

use std::sync::Arc;

use assent_core::request::{MAX_TASK_TURNS, MAX_TASK_TURN_CHARS};
use assent_core::{ActionRequest, Environment, Evaluation, Policy};
use assent_protocol::{SubmitResponse, SubmitStatus};
use sha2::{Digest, Sha256};

use crate::clock::Clock;
use crate::error::ApiError;
use crate::reload::LivePolicy;
use crate::reviews::Reviews;
use crate::store::{ApprovalRecord, StoreError, Submission, Submitted};

/// Longest identifier accepted for runs, tasks and idempotency keys.
const MAX_ID_LEN: usize = 200;

/// What the workflow decides requests against, shared with the rest of the service: the
/// policy in force, the machine it guards, the clock, and the model reviewer's part in each
/// prompt.
#[derive(Debug, Clone)]
pub struct Context {
    pub policy: Arc<LivePolicy>,
    pub env: Environment,
    pub clock: Arc<dyn Clock>,
    pub reviews: Arc<Reviews>,
}

/// Why a request was not recorded.
#[derive(Debug, thiserror::Error)]
pub enum SubmitError {
    /// The request is malformed, or does not evaluate.
    #[error("{0}")]
    Invalid(String),
    /// Its idempotency key came before with another body.
    #[error("this idempotency key was used with another request")]
    KeyReused,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<SubmitError> for ApiError {
    fn from(err: SubmitError) -> Self {
        match err {
            SubmitError::Invalid(message) => ApiError::BadRequest(message),
            SubmitError::KeyReused => ApiError::Unprocessable(err.to_string()),
            SubmitError::Store(store) => store.into(),
        }
    }
}

/// A request's answer, once committed.
#[derive(Debug)]
pub struct Answered {
    pub answer: SubmitResponse,
    /// The prompt it opened or joined, when newly pending in one.
    pub prompt: Option<Prompted>,
}

/// A prompt as the submission's commit left it, with the policy the submission was evaluated
/// under: what the model reviewer starts from.
#[derive(Debug)]
pub struct Prompted {
    pub record: ApprovalRecord,
    /// This submission opened the prompt (it is its first member) rather than joined it.
    pub opened: bool,
    /// The prompt's first request evaluated under `policy`, when this submission opened it
    /// (a request joining a prompt is not its first).
    pub evaluation: Option<Evaluation>,
    pub policy: Arc<Policy>,
    /// The run's last audit events, read while the submission was written, when the reviewer
    /// was expected to take the prompt (it waits on nothing more before its call).
    pub recent: Option<RecentRead>,
}

/// At most this many of the run's last audit events are read for the reviewer.
pub const RECENT_AUDIT: i64 = 50;

/// A read of a run's last audit events, under way.
pub type RecentRead =
    tokio::task::JoinHandle<Result<Vec<assent_core::ApprovalAuditEvent>, StoreError>>;

/// Starts reading `run_id`'s last audit events for the reviewer. Begun before the submission
/// is written, it reads what was there before it: a prompt's opening adds no audit event of
/// its own but the routing step's, which is this very request, not one of the run's last.
pub(super) fn read_recent(store: &Arc<dyn crate::store::Store>, run_id: &str) -> RecentRead {
    let (store, run_id) = (Arc::clone(store), run_id.to_owned());
    tokio::spawn(async move { store.recent_audit(&run_id, RECENT_AUDIT).await })
}

/// A request made ready to record.
pub(super) struct Intake {
    pub submission: Box<Submission>,
    /// What the reviewer was expected to do with the prompt it may open (see
    /// [`Reviews::expect`]): undone when it opens none.
    pub expected: Option<crate::reviews::Expected>,
    /// Its evaluation, kept when it may open a prompt (for the reviewer).
    pub evaluation: Option<Evaluation>,
    /// The policy it was evaluated under.
    pub policy: Arc<Policy>,
}

/// `requester`'s `request`, checked and evaluated under the policy in force.
pub(super) fn submission(
    context: &Context,
    requester: &str,
    mut request: ActionRequest,
    screen: bool,
) -> Result<Intake, SubmitError> {
    validate(&request)?;
    let policy = context.policy.current();
    keep_task_turns(&mut request, &policy);
    let eval = assent_core::evaluate(&policy, &request, &context.env)
        .map_err(|err| SubmitError::Invalid(err.to_string()))?;
    let kept = (!screen && eval.decision.decision.needs_person()).then(|| eval.clone());
    // Known before the prompt is announced: whether the reviewer will take it.
    let expected = kept
        .as_ref()
        .and_then(|e| context.reviews.expect(e, &policy));
    let body_hash = body_hash(&request)?;
    let now = context.clock.now();
    let required_approvals =
        policy.approvals_required(eval.decision.required_role, &eval.decision.rule);
    let submission = Box::new(Submission {
        action_id: uuid::Uuid::new_v4().to_string(),
        requester: requester.to_owned(),
        body_hash,
        request,
        eval,
        now,
        approval_expires_at: now + policy.approval_timeout(),
        fallback_on_timeout: policy.fallback_on_timeout(),
        required_approvals,
        denials_since: policy.deny_memory.remembered_since(now),
        screen,
        routed: policy.routing.escalate_after().is_some(),
        reviewer_takes: expected.as_ref().is_some_and(|e| e.takes),
    });
    Ok(Intake {
        submission,
        expected,
        evaluation: kept,
        policy,
    })
}

/// What recording came to, as the caller is answered: a new pending prompt carries its
/// record and evaluation.
pub(super) fn answered(
    submitted: Submitted,
    evaluation: Option<Evaluation>,
    policy: Arc<Policy>,
    recent: Option<RecentRead>,
) -> Result<Answered, SubmitError> {
    match submitted {
        Submitted::Prompted(answer, record) => {
            let first = record.approval.members.first().map(|m| &m.action_id);
            let opened = first == Some(&answer.action_id);
            let prompt = (answer.status == SubmitStatus::Pending).then(|| Prompted {
                opened,
                evaluation: evaluation.filter(|_| opened),
                record: *record,
                policy,
                recent,
            });
            Ok(Answered { answer, prompt })
        }
        Submitted::Recorded(answer) | Submitted::Replayed(answer) => Ok(Answered {
            answer,
            prompt: None,
        }),
        Submitted::KeyReused => Err(SubmitError::KeyReused),
    }
}

/// The hash that tells a resubmission under an idempotency key from the key's reuse with
/// another body; empty without a key (nothing is ever compared with it).
fn body_hash(request: &ActionRequest) -> Result<String, SubmitError> {
    if request.idempotency_key.is_none() {
        return Ok(String::new());
    }
    let body = serde_json::to_vec(request)
        .map_err(|err| SubmitError::Invalid(format!("invalid body: {err}")))?;
    Ok(hex::encode(Sha256::digest(&body)))
}

fn validate(request: &ActionRequest) -> Result<(), SubmitError> {
    let ids = [
        ("run_id", Some(&request.run_id)),
        ("task_id", Some(&request.task_id)),
        ("idempotency_key", request.idempotency_key.as_ref()),
    ];
    for (field, value) in ids {
        let Some(value) = value else { continue };
        if value.is_empty() || value.len() > MAX_ID_LEN || value.chars().any(char::is_control) {
            return Err(SubmitError::Invalid(format!(
                "{field} must be 1 to {MAX_ID_LEN} printable characters"
            )));
        }
    }
    let turns = &request.context.task_turns;
    if turns.len() > MAX_TASK_TURNS
        || turns
            .iter()
            .any(|t| t.chars().count() > MAX_TASK_TURN_CHARS)
    {
        return Err(SubmitError::Invalid(format!(
            "context.task_turns holds at most {MAX_TASK_TURNS} turns of at most \
             {MAX_TASK_TURN_CHARS} characters each"
        )));
    }
    Ok(())
}

/// The person's task turns stay only when the model reviewer may read them (`share_task`),
/// masked; otherwise they are dropped on arrival and never stored.
fn keep_task_turns(request: &mut ActionRequest, policy: &Policy) {
    let turns = &mut request.context.task_turns;
    if policy.reviewer.as_ref().is_some_and(|r| r.share_task) {
        for turn in turns.iter_mut() {
            *turn = assent_core::mask::mask_secrets(turn);
        }
    } else {
        turns.clear();
    }
}
