//! Recording a submission: the action row, and for asks the grant use or the prompt.

use std::collections::HashMap;

use assent_core::workflow::{held_decision, remembered_denial, Earlier, RunHold};
use assent_core::{ApprovalAuditEvent, AuditDecision, Decision};
use assent_protocol::{Event, RunState, RunStatus, SubmitResponse, SubmitStatus};
use sqlx::{QueryBuilder, Row, Sqlite, SqliteConnection};

use super::sqlite_rows::{insert_audit, insert_audits, insert_event, json_col, micros, name_of};
use super::{sqlite_approvals, sqlite_grants, StoreError, Submission, Submitted};
use crate::records::{response, submission_audit};

/// One row of `actions`.
pub struct ActionRow {
    id: String,
    requester: String,
    idempotency_key: Option<String>,
    body_hash: String,
    run_id: String,
    task_id: String,
    action_hash: String,
    decision: String,
    status: String,
    approval_id: Option<String>,
    batch_position: Option<i64>,
    grant_id: Option<String>,
    command_line: Option<String>,
    response: String,
    created_at: i64,
    action_kind: String,
    policy_version: String,
}

impl ActionRow {
    fn of(
        s: &Submission,
        answer: &SubmitResponse,
        batch_position: Option<i64>,
    ) -> Result<ActionRow, StoreError> {
        let action = &s.request.action;
        Ok(ActionRow {
            id: s.action_id.clone(),
            requester: s.requester.clone(),
            idempotency_key: s.request.idempotency_key.clone(),
            body_hash: s.body_hash.clone(),
            run_id: s.request.run_id.clone(),
            task_id: s.request.task_id.clone(),
            action_hash: s.eval.action_hash.clone(),
            decision: name_of(&s.eval.decision.decision)?,
            status: name_of(&answer.status)?,
            approval_id: answer.approval_id.clone(),
            batch_position,
            grant_id: answer.grant_id.clone(),
            command_line: action
                .command
                .clone()
                .or_else(|| action.argv.as_ref().map(|a| a.join(" "))),
            response: serde_json::to_string(answer)?,
            created_at: micros(s.now),
            action_kind: name_of(&action.kind)?,
            policy_version: s.eval.policy_version.clone(),
        })
    }
}

/// Writes `rows` with one statement.
pub async fn insert_actions(
    conn: &mut SqliteConnection,
    rows: &[ActionRow],
) -> Result<(), StoreError> {
    if rows.is_empty() {
        return Ok(());
    }
    let mut insert = QueryBuilder::<Sqlite>::new(
        "INSERT INTO actions (id, requester, idempotency_key, body_hash, run_id, task_id, \
         action_hash, decision, status, approval_id, batch_position, grant_id, command_line, \
         response, created_at, action_kind, policy_version) ",
    );
    insert.push_values(rows, |mut b, r| {
        b.push_bind(&r.id)
            .push_bind(&r.requester)
            .push_bind(&r.idempotency_key)
            .push_bind(&r.body_hash)
            .push_bind(&r.run_id)
            .push_bind(&r.task_id)
            .push_bind(&r.action_hash)
            .push_bind(&r.decision)
            .push_bind(&r.status)
            .push_bind(&r.approval_id)
            .push_bind(r.batch_position)
            .push_bind(&r.grant_id)
            .push_bind(&r.command_line)
            .push_bind(&r.response)
            .push_bind(r.created_at)
            .push_bind(&r.action_kind)
            .push_bind(&r.policy_version);
    });
    insert.build().execute(conn).await?;
    Ok(())
}

async fn insert_action(
    conn: &mut SqliteConnection,
    s: &Submission,
    answer: &SubmitResponse,
    batch_position: Option<i64>,
) -> Result<(), StoreError> {
    insert_actions(conn, &[ActionRow::of(s, answer, batch_position)?]).await
}

/// Rows of plain decisions (auto, block) held back to be written together at the batch's end.
#[derive(Default)]
pub struct Deferred {
    pub actions: Vec<ActionRow>,
    pub audits: Vec<ApprovalAuditEvent>,
    /// Idempotency keys of the held-back rows: (requester, key) → (body hash, answer).
    keys: HashMap<(String, String), (String, SubmitResponse)>,
}

impl Deferred {
    /// Writes what was held back, in the caller's transaction.
    pub async fn flush(&mut self, conn: &mut SqliteConnection) -> Result<(), StoreError> {
        for chunk in self.actions.chunks(ROWS_PER_INSERT) {
            insert_actions(conn, chunk).await?;
        }
        for chunk in self.audits.chunks(ROWS_PER_INSERT) {
            insert_audits(conn, chunk).await?;
        }
        self.actions.clear();
        self.audits.clear();
        self.keys.clear();
        Ok(())
    }
}

/// Rows per multi-row INSERT (15 columns × 128 stays far below SQLite's variable limit).
const ROWS_PER_INSERT: usize = 128;

/// Records an ask/escalate: a covering grant is used, else the request joins or opens a prompt.
async fn record_guarded(
    conn: &mut SqliteConnection,
    s: &Submission,
) -> Result<SubmitResponse, StoreError> {
    if let Some(grant) = sqlite_grants::use_covering(conn, &s.request, &s.eval, s.now).await? {
        let grant_id = grant.grant.grant_id.clone();
        let answer = response(s, SubmitStatus::Allowed, None, Some(grant_id.clone()));
        insert_action(conn, s, &answer, None).await?;
        let audit = submission_audit(
            s,
            AuditDecision::Used,
            Some(grant.grant.approval_id.clone()),
            Some(grant_id),
        );
        insert_audit(conn, &audit).await?;
        let event = Event::GrantUsed {
            grant,
            action_id: s.action_id.clone(),
        };
        insert_event(conn, s.now, &event).await?;
        return Ok(answer);
    }
    if let Some(denial) = sqlite_approvals::remembered_denial(conn, s).await? {
        return remember_denial(conn, s, denial).await;
    }
    let seat = sqlite_approvals::join_or_open(conn, s).await?;
    let approval_id = seat.approval_id;
    let answer = response(s, SubmitStatus::Pending, Some(approval_id.clone()), None);
    insert_action(conn, s, &answer, Some(seat.position)).await?;
    let record = sqlite_approvals::load(conn, &approval_id)
        .await?
        .ok_or_else(|| StoreError::Corrupt(format!("approval {approval_id} vanished")))?;
    let event = if seat.opened {
        Event::ApprovalRequested {
            approval: record.approval,
        }
    } else {
        Event::ApprovalUpdated {
            approval: record.approval,
        }
    };
    insert_event(conn, s.now, &event).await?;
    Ok(answer)
}

/// Answers a request a person already denied in this run: denied at once with their reason,
/// no prompt, audited as a denial naming the original approval.
async fn remember_denial(
    conn: &mut SqliteConnection,
    s: &Submission,
    denial: sqlite_approvals::RememberedDenial,
) -> Result<SubmitResponse, StoreError> {
    let id = denial.approval_id;
    let words = remembered_denial(
        Earlier {
            approval_id: &id,
            decided_by: &denial.decided_by,
            reason: &denial.reason,
        },
        &s.request.run_id,
    );
    let mut answer = response(s, SubmitStatus::Denied, Some(id.clone()), None);
    answer.reasons = vec![words.answer];
    insert_action(conn, s, &answer, None).await?;
    let mut audit = submission_audit(s, AuditDecision::Denied, Some(id.clone()), None);
    audit.approver = Some(denial.decided_by);
    audit.approver_role = denial
        .decided_role
        .as_deref()
        .map(super::sqlite_rows::parse_name)
        .transpose()?;
    audit.reason = words.audit;
    insert_audit(conn, &audit).await?;
    Ok(answer)
}

/// Records one submission in the caller's transaction; plain decisions are held in
/// `deferred`. Says whether it wrote events.
pub async fn record_submission(
    conn: &mut SqliteConnection,
    s: &Submission,
    hold: Option<&RunState>,
    deferred: &mut Deferred,
) -> Result<(Submitted, bool), StoreError> {
    if let Some(earlier) = replayed(conn, s, deferred).await? {
        return Ok((earlier, false));
    }
    let held = hold.and_then(|run| held_by(run, s));
    let s = held.as_ref().unwrap_or(s);
    let audited = match s.eval.decision.decision {
        Decision::Auto => (SubmitStatus::Allowed, AuditDecision::Auto),
        Decision::Block => (SubmitStatus::Blocked, AuditDecision::Blocked),
        Decision::Ask | Decision::Escalate => {
            let answer = record_guarded(conn, s).await?;
            return Ok((Submitted::Recorded(answer), true));
        }
    };
    let answer = response(s, audited.0, None, None);
    deferred.actions.push(ActionRow::of(s, &answer, None)?);
    deferred
        .audits
        .push(submission_audit(s, audited.1, None, None));
    if let Some(key) = &s.request.idempotency_key {
        let entry = (s.body_hash.clone(), answer.clone());
        deferred
            .keys
            .insert((s.requester.clone(), key.clone()), entry);
    }
    Ok((Submitted::Recorded(answer), false))
}

/// The submission as its held run answers it (`assent_core::workflow::held_decision`);
/// `None` when the hold does not apply.
fn held_by(run: &RunState, s: &Submission) -> Option<Submission> {
    let reason = run.reason.as_deref();
    let hold = match run.status {
        RunStatus::Running => RunHold::Running,
        RunStatus::Paused => RunHold::Paused { reason },
        RunStatus::Cancelled => RunHold::Cancelled { reason },
    };
    let decision = held_decision(hold, &run.run_id, &s.eval.decision)?;
    let mut blocked = s.clone();
    blocked.eval.decision = decision;
    Some(blocked)
}

/// The first answer when this requester used this idempotency key before.
async fn replayed(
    conn: &mut SqliteConnection,
    s: &Submission,
    deferred: &Deferred,
) -> Result<Option<Submitted>, StoreError> {
    let Some(key) = &s.request.idempotency_key else {
        return Ok(None);
    };
    let held = deferred.keys.get(&(s.requester.clone(), key.clone()));
    let (body_hash, answer) = match held {
        Some((body_hash, answer)) => (body_hash.clone(), answer.clone()),
        None => {
            let row = sqlx::query(
                "SELECT body_hash, response FROM actions \
                 WHERE requester = ? AND idempotency_key = ?",
            )
            .bind(&s.requester)
            .bind(key)
            .fetch_optional(conn)
            .await?;
            let Some(row) = row else {
                return Ok(None);
            };
            (row.try_get("body_hash")?, json_col(&row, "response")?)
        }
    };
    if body_hash == s.body_hash {
        Ok(Some(Submitted::Replayed(answer)))
    } else {
        Ok(Some(Submitted::KeyReused))
    }
}
