//! Recording one submission in a transaction: the idempotency check, the run's hold, and for
//! asks the grant use, a remembered denial, or the prompt it joins or opens.

use std::collections::HashMap;

use assent_core::workflow::{held_decision, joinable, remembered_denial, Earlier, RunHold};
use assent_core::{ApprovalAuditEvent, ApprovalType, AuditDecision, Decision};
use assent_protocol::{Event, RunState, RunStatus, SubmitResponse, SubmitStatus};

use crate::records::{new_id, prompt_detail, response, Recording};
use crate::store::rows::{ActionRow, ApprovalRow, AskProbe, AskReads, DenialProbe};
use crate::store::{StoreError, Submission, Submitted, Tx};
use assent_core::workflow::{grant_use_audit, submission_audit};

/// Rows of plain decisions (auto, block) held back to be written together at the batch's end.
#[derive(Default)]
pub struct Deferred {
    actions: Vec<ActionRow>,
    audits: Vec<ApprovalAuditEvent>,
    /// Idempotency keys of the held-back rows: (requester, key) → (body hash, answer).
    keys: HashMap<(String, String), (String, SubmitResponse)>,
}

impl Deferred {
    /// How many plain decisions are held back.
    pub fn len(&self) -> usize {
        self.actions.len()
    }

    /// Writes what was held back, in the caller's transaction.
    pub async fn flush(&mut self, tx: &mut dyn Tx) -> Result<(), StoreError> {
        tx.insert_actions(&self.actions).await?;
        tx.insert_audits(&self.audits).await?;
        self.actions.clear();
        self.audits.clear();
        self.keys.clear();
        Ok(())
    }
}

/// The action row of `r` answered with `answer`.
fn action_row(
    r: &Recording<'_>,
    answer: &SubmitResponse,
    batch_position: Option<i64>,
) -> ActionRow {
    let (s, eval) = (r.s, &*r.eval);
    let action = &s.request.action;
    ActionRow {
        id: s.action_id.clone(),
        requester: s.requester.clone(),
        idempotency_key: s.request.idempotency_key.clone(),
        body_hash: s.body_hash.clone(),
        run_id: s.request.run_id.clone(),
        task_id: s.request.task_id.clone(),
        action_hash: eval.action_hash.clone(),
        decision: eval.decision.decision,
        status: answer.status,
        approval_id: answer.approval_id.clone(),
        batch_position,
        grant_id: answer.grant_id.clone(),
        command_line: crate::records::command_line(action),
        response: answer.clone(),
        created_at: s.now,
        action_kind: action.kind,
        policy_version: eval.policy_version.clone(),
    }
}

/// What recording `r` with `answer` writes, built in one place: the answer, the action row
/// that keeps it, and the audit record (`audited`, naming `approval_id` and the answer's
/// grant).
struct Written {
    answer: SubmitResponse,
    row: ActionRow,
    audit: ApprovalAuditEvent,
}

fn written(
    r: &Recording<'_>,
    answer: SubmitResponse,
    audited: AuditDecision,
    approval_id: Option<String>,
) -> Written {
    Written {
        row: action_row(r, &answer, None),
        audit: submission_audit(
            new_id(),
            r.asked(),
            audited,
            approval_id,
            answer.grant_id.clone(),
        ),
        answer,
    }
}

/// Records one submission in the caller's transaction; plain decisions are held in
/// `deferred`. `hold` is its run's hold, if any.
pub async fn record(
    tx: &mut dyn Tx,
    s: &Submission,
    hold: Option<&RunState>,
    deferred: &mut Deferred,
) -> Result<Submitted, StoreError> {
    if let Some(earlier) = replayed(tx, s, deferred).await? {
        return Ok(earlier);
    }
    let mut r = Recording::of(s);
    if let Some(run) = hold {
        held_by(run, &mut r);
    }
    let publishing =
        r.eval.approval_type() == ApprovalType::Pr && r.eval.decision.decision.needs_person();
    if publishing {
        super::pr_gate::gated(tx, &mut r).await?;
    }
    let r = &r;
    let audited = match r.eval.decision.decision {
        Decision::Auto => (SubmitStatus::Allowed, AuditDecision::Auto),
        // A block the policy lets an exception set aside: a live exception grant covers it
        // (when screening too: a hook that can only deny must not deny what it covers).
        Decision::Block if r.eval.exceptionable => {
            let candidates = tx.grant_candidates(&s.request.run_id, s.now).await?;
            if let Some(answer) = use_covering_grant(tx, r, candidates).await? {
                return Ok(Submitted::Recorded(answer));
            }
            (SubmitStatus::Blocked, AuditDecision::Blocked)
        }
        Decision::Block => (SubmitStatus::Blocked, AuditDecision::Blocked),
        Decision::Ask | Decision::Escalate => {
            if s.screen {
                return Ok(Submitted::Recorded(screened(tx, r).await?));
            }
            return record_guarded(tx, r).await;
        }
    };
    let (status, audited) = audited;
    let Written { answer, row, audit } = written(r, response(r, status, None, None), audited, None);
    deferred.actions.push(row);
    deferred.audits.push(audit);
    if let Some(key) = &s.request.idempotency_key {
        let entry = (s.body_hash.clone(), answer.clone());
        deferred
            .keys
            .insert((s.requester.clone(), key.clone()), entry);
    }
    Ok(Submitted::Recorded(answer))
}

/// Records `r` as its held run answers it (`assent_core::workflow::held_decision`), when the
/// hold applies.
fn held_by(run: &RunState, r: &mut Recording<'_>) {
    let reason = run.reason.as_deref();
    let hold = match run.status {
        RunStatus::Running => RunHold::Running,
        RunStatus::Paused => RunHold::Paused { reason },
        RunStatus::Cancelled => RunHold::Cancelled { reason },
        RunStatus::AwaitingApproval => RunHold::AwaitingApproval { reason },
    };
    if let Some(decision) = held_decision(hold, &run.run_id, &r.eval.decision) {
        r.eval.to_mut().decision = decision;
    }
}

/// Records an ask/escalate: a covering grant is used, a remembered denial answers, else the
/// request joins or opens a prompt (answered with the prompt as recorded).
async fn record_guarded(tx: &mut dyn Tx, r: &Recording<'_>) -> Result<Submitted, StoreError> {
    let s = r.s;
    let probe = AskProbe {
        run_id: &s.request.run_id,
        requester: &s.requester,
        batch_key: &r.eval.batch_key,
        now: s.now,
        denial: denial_probe(r),
    };
    let AskReads {
        candidates,
        denial,
        joinable,
        people,
    } = tx.ask_reads(probe).await?;
    if let Some(answer) = use_covering_grant(tx, r, candidates).await? {
        return Ok(Submitted::Recorded(answer));
    }
    if let Some(denial) = denial {
        return Ok(Submitted::Recorded(answer_remembered(tx, r, denial).await?));
    }
    let (approval_id, position, opened) = join_or_open(tx, r, joinable, people).await?;
    // Audited when it settles, per member.
    let answer = response(r, SubmitStatus::Pending, Some(approval_id.clone()), None);
    tx.insert_actions(&[action_row(r, &answer, Some(position))])
        .await?;
    let prompt = tx
        .approval(&approval_id)
        .await?
        .ok_or_else(|| StoreError::Corrupt(format!("approval {approval_id} vanished")))?;
    let approval = prompt.approval.clone();
    let event = if opened {
        Event::ApprovalRequested { approval }
    } else {
        Event::ApprovalUpdated { approval }
    };
    tx.insert_event(s.now, &event).await?;
    Ok(Submitted::Prompted(answer, Box::new(prompt)))
}

/// Screens an ask/escalate: a remembered denial answers (recorded, as in `record_guarded`);
/// otherwise a person would decide, and nothing is recorded or opened.
async fn screened(tx: &mut dyn Tx, r: &Recording<'_>) -> Result<SubmitResponse, StoreError> {
    if let Some(denial) = remembered(tx, r).await? {
        return answer_remembered(tx, r, denial).await;
    }
    Ok(response(r, SubmitStatus::WouldAsk, None, None))
}

/// The denial of an equivalent action this run remembers, if the policy remembers denials.
async fn remembered(
    tx: &mut dyn Tx,
    r: &Recording<'_>,
) -> Result<Option<crate::store::rows::RememberedDenial>, StoreError> {
    match denial_probe(r) {
        Some(probe) => tx.remembered_denial(probe).await,
        None => Ok(None),
    }
}

/// What `r`'s remembered denial is looked up by, when the policy remembers denials.
fn denial_probe<'a>(r: &'a Recording<'_>) -> Option<DenialProbe<'a>> {
    let s = r.s;
    Some(DenialProbe {
        run_id: &s.request.run_id,
        requester: &s.requester,
        action_hash: &r.eval.action_hash,
        batch_key: &r.eval.batch_key,
        since: s.denials_since?,
    })
}

/// Consumes one use of the oldest live grant among `candidates` (the run's, read for it)
/// covering the request, and records the use.
async fn use_covering_grant(
    tx: &mut dyn Tx,
    r: &Recording<'_>,
    candidates: Vec<assent_core::ApprovalGrant>,
) -> Result<Option<SubmitResponse>, StoreError> {
    let s = r.s;
    super::invalidate::invalidate_moved(tx, s, &candidates).await?;
    for candidate in candidates {
        if candidate
            .covers(&s.request, &r.eval, &s.requester, s.now)
            .is_err()
            || !tx.use_grant(&candidate.grant_id, s.now).await?
        {
            continue;
        }
        let Some(grant) = tx.grant(&candidate.grant_id, s.now).await? else {
            continue;
        };
        // A grant's use names its approval in the audit, not in the agent's answer; the
        // record says which scope the grant was for and until when (as the grant is now).
        let answer = response(r, SubmitStatus::Allowed, None, Some(candidate.grant_id));
        let row = action_row(r, &answer, None);
        let audit = grant_use_audit(new_id(), r.asked(), &grant.grant);
        tx.insert_actions(&[row]).await?;
        tx.insert_audits(&[audit]).await?;
        let event = Event::GrantUsed {
            grant,
            action_id: s.action_id.clone(),
        };
        tx.insert_event(s.now, &event).await?;
        return Ok(Some(answer));
    }
    Ok(None)
}

/// Joins the prompt core's `joinable` picks among the candidates (the next one when another
/// writer closed it first), or opens one. The prompt's id, the member's position, and
/// whether it opened.
async fn join_or_open(
    tx: &mut dyn Tx,
    r: &Recording<'_>,
    mut candidates: Vec<assent_core::workflow::PendingPrompt>,
    people: Vec<assent_core::Identity>,
) -> Result<(String, i64, bool), StoreError> {
    let (s, eval) = (r.s, &*r.eval);
    while let Some(pick) = joinable(&candidates, &s.requester, &eval.batch_key, s.now) {
        let id = pick.approval_id.clone();
        if let Some(position) = tx.join_approval(&id, s.now).await? {
            return Ok((id, position, false));
        }
        candidates.retain(|c| c.approval_id != id);
    }
    let id = crate::records::new_id();
    let d = &eval.decision;
    let asked =
        super::ask_steps::first_step(tx, people, d.required_role, &s.requester, s.routed, s.now)
            .await?;
    if s.routed {
        let mut audit = submission_audit(
            new_id(),
            r.asked(),
            AuditDecision::Asked,
            Some(id.clone()),
            None,
        );
        audit.reason = assent_core::policy::routing::first_step_reason(&asked.people, asked.basis);
        tx.insert_audits(&[audit]).await?;
    }
    let row = ApprovalRow {
        id: id.clone(),
        run_id: s.request.run_id.clone(),
        task_id: s.request.task_id.clone(),
        requester: s.requester.clone(),
        batch_key: eval.batch_key.clone(),
        action_kind: s.request.action.kind,
        risk: d.risk,
        requested_scope: d.offered_scopes.clone(),
        required_role: d.required_role,
        action_hash: eval.action_hash.clone(),
        first_request: s.request.clone(),
        detail: prompt_detail(r),
        expires_at: s.approval_expires_at,
        created_at: s.now,
        asked: Some(asked),
    };
    tx.insert_approval(&row).await?;
    Ok((id, 1, true))
}

/// Answers a request a person already denied in this run: denied at once with their reason,
/// no prompt, audited as a denial naming the original approval.
async fn answer_remembered(
    tx: &mut dyn Tx,
    r: &Recording<'_>,
    denial: crate::store::rows::RememberedDenial,
) -> Result<SubmitResponse, StoreError> {
    let s = r.s;
    let id = denial.approval_id;
    let words = remembered_denial(
        Earlier {
            approval_id: &id,
            decided_by: &denial.decided_by,
            reason: &denial.reason,
        },
        &s.request.run_id,
    );
    let mut denied = response(r, SubmitStatus::Denied, Some(id.clone()), None);
    denied.facts.reasons = vec![words.answer];
    let Written {
        answer,
        row,
        mut audit,
    } = written(r, denied, AuditDecision::Denied, Some(id));
    tx.insert_actions(&[row]).await?;
    audit.approver = Some(denial.decided_by);
    audit.approver_role = denial.decided_role;
    audit.reason = words.audit;
    tx.insert_audits(&[audit]).await?;
    Ok(answer)
}

/// The first answer when this requester used this idempotency key before.
async fn replayed(
    tx: &mut dyn Tx,
    s: &Submission,
    deferred: &Deferred,
) -> Result<Option<Submitted>, StoreError> {
    let Some(key) = &s.request.idempotency_key else {
        return Ok(None);
    };
    let (body_hash, answer) = match deferred.keys.get(&(s.requester.clone(), key.clone())) {
        Some((body_hash, answer)) => (body_hash.clone(), answer.clone()),
        None => match tx.keyed_action(&s.requester, key).await? {
            Some(keyed) => (keyed.body_hash, keyed.response),
            None => return Ok(None),
        },
    };
    if body_hash == s.body_hash {
        Ok(Some(Submitted::Replayed(answer)))
    } else {
        Ok(Some(Submitted::KeyReused))
    }
}
