//! The permission tool's MCP tasks (`io.modelcontextprotocol/tasks`, spec 2026-07-28): when
//! the client declares the extension, a call a person must decide is answered at once with a
//! task handle instead of holding the call open. The client polls `tasks/get` (each poll asks
//! the service once, without waiting) and may `tasks/cancel`.
//!
//! A task is the approval it waits on plus the tool input to give back on an allow. It ends
//! when the approval settles (approved: allow; denied, expired or the run ended: deny with the
//! reason), when the client cancels it, or at its time-to-live (deny: nobody decided). Nothing
//! but a settled approval the service calls approved ever answers allow.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use assent_client::blocking;
use assent_client::is_settled;
use chrono::{SecondsFormat, Utc};
use rmcp::model::{
    CallToolResult, ContentBlock, DetailedTask, JsonObject, Task, TaskPayload, TaskStatus,
};
use serde_json::{Map, Value};

use assent_gate::outcome::{settled, unreached, Outcome};

/// How often a client should poll, in milliseconds (one cheap GET per poll).
pub const POLL_INTERVAL_MS: u64 = 2_000;

/// Longest wait for the service to answer one poll.
const POLL_TIMEOUT: Duration = Duration::from_secs(5);

/// The tasks of one MCP session, by task id.
#[derive(Debug, Default)]
pub struct TaskBook {
    tasks: Mutex<HashMap<String, Entry>>,
}

#[derive(Debug, Clone)]
struct Entry {
    approval_id: String,
    /// The tool's input, returned unchanged as `updatedInput` on an allow.
    input: Map<String, Value>,
    created_at: String,
    last_updated_at: String,
    /// The time-to-live's end.
    ends: Instant,
    ttl: Duration,
    state: State,
}

#[derive(Debug, Clone)]
enum State {
    Working {
        message: String,
    },
    /// The permission answer (`{"behavior": …}`) and the line saying why.
    Done {
        answer: Value,
        message: String,
    },
    Cancelled,
}

fn now() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

impl TaskBook {
    /// Opens a task for `approval_id`; returns its seed state (`working`).
    pub fn open(&self, approval_id: &str, input: Map<String, Value>, ttl: Duration) -> Task {
        let created = now();
        let task_id = format!("task-{approval_id}-{}", uuid::Uuid::new_v4().simple());
        let entry = Entry {
            approval_id: approval_id.to_owned(),
            input,
            created_at: created.clone(),
            last_updated_at: created,
            ends: Instant::now() + ttl,
            ttl,
            state: State::Working {
                message: waiting_message(approval_id),
            },
        };
        let task = entry.task(&task_id);
        self.lock().insert(task_id, entry);
        task
    }

    /// The task's state now, asking the service once when it is still working; `None` when no
    /// task has that id.
    pub fn get(&self, task_id: &str, client: Option<&blocking::Client>) -> Option<DetailedTask> {
        let entry = self.lock().get(task_id)?.clone();
        let State::Working { message } = &entry.state else {
            return Some(entry.detailed(task_id));
        };
        let next = poll(&entry, client);
        let mut tasks = self.lock();
        let stored = tasks.get_mut(task_id)?;
        let unchanged = matches!(&next, State::Working { message: m } if m == message);
        // A cancel that came in while the service was being asked wins.
        if matches!(stored.state, State::Working { .. }) && !unchanged {
            stored.state = next;
            stored.last_updated_at = now();
        }
        Some(stored.detailed(task_id))
    }

    /// Cancels a working task (a finished one keeps its answer). `false` when no task has that id.
    pub fn cancel(&self, task_id: &str) -> bool {
        let mut tasks = self.lock();
        let Some(entry) = tasks.get_mut(task_id) else {
            return false;
        };
        if matches!(entry.state, State::Working { .. }) {
            entry.state = State::Cancelled;
            entry.last_updated_at = now();
        }
        true
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.tasks
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

fn waiting_message(approval_id: &str) -> String {
    format!("Waiting for a person to decide in Assent (approval {approval_id})")
}

/// The next state of a working task: the approval's, or the time-to-live's end.
fn poll(entry: &Entry, client: Option<&blocking::Client>) -> State {
    let id = &entry.approval_id;
    let fetched = client.map(|c| c.approval(id, None, Instant::now() + POLL_TIMEOUT));
    match fetched {
        Some(Ok(approval)) if is_settled(&approval) => done(&entry.input, settled(&approval)),
        _ if Instant::now() >= entry.ends => done(
            &entry.input,
            Outcome::TimedOut {
                reason: format!(
                    "Assent: nobody decided approval {id} within {}s, so this is not allowed. \
                     The approval may still be open in Assent; once a person approves it, \
                     retrying the same action is covered",
                    entry.ttl.as_secs()
                ),
            },
        ),
        Some(Ok(_)) => State::Working {
            message: waiting_message(id),
        },
        Some(Err(err)) => State::Working {
            message: format!(
                "{}; cannot reach Assent to check ({}), will ask again",
                waiting_message(id),
                unreached(&err, POLL_TIMEOUT).outcome.reason()
            ),
        },
        None => State::Working {
            message: format!("{}; no client to ask Assent", waiting_message(id)),
        },
    }
}

fn done(input: &Map<String, Value>, outcome: Outcome) -> State {
    let message = outcome.reason().to_owned();
    let answer = match outcome {
        Outcome::Allowed { .. } => allow(input),
        other => deny(other.reason()),
    };
    State::Done { answer, message }
}

/// The permission answer that lets the tool run with its input unchanged.
pub fn allow(input: &Map<String, Value>) -> Value {
    serde_json::json!({ "behavior": "allow", "updatedInput": input })
}

/// The permission answer that refuses the tool, with the reason for the model to read.
pub fn deny(message: &str) -> Value {
    serde_json::json!({ "behavior": "deny", "message": message })
}

/// A permission answer as the tool's result: one text content holding the JSON.
pub fn tool_result(answer: &Value) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(answer.to_string())])
}

impl Entry {
    fn task(&self, task_id: &str) -> Task {
        let (status, message) = match &self.state {
            State::Working { message } => (TaskStatus::Working, message.clone()),
            State::Done { message, .. } => (TaskStatus::Completed, message.clone()),
            State::Cancelled => (
                TaskStatus::Cancelled,
                "Cancelled by the client: the tool does not run".to_owned(),
            ),
        };
        Task::new(task_id, status, &self.created_at, &self.last_updated_at)
            .with_status_message(message)
            .with_ttl_ms(u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX))
            .with_poll_interval_ms(POLL_INTERVAL_MS)
    }

    fn detailed(&self, task_id: &str) -> DetailedTask {
        let payload = match &self.state {
            State::Working { .. } => TaskPayload::Working,
            State::Cancelled => TaskPayload::Cancelled,
            State::Done { answer, .. } => TaskPayload::Completed {
                result: result_object(answer),
            },
        };
        DetailedTask::new(self.task(task_id), payload)
    }
}

fn result_object(answer: &Value) -> JsonObject {
    match serde_json::to_value(tool_result(answer)) {
        Ok(Value::Object(object)) => object,
        // A CallToolResult is always an object; should it not be, the client gets a denial.
        _ => {
            let mut object = JsonObject::new();
            object.insert("isError".into(), Value::Bool(true));
            object
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn input() -> Map<String, Value> {
        json!({"command": "make deploy"})
            .as_object()
            .unwrap()
            .clone()
    }

    #[test]
    fn a_task_without_an_answer_stays_working_until_its_ttl_ends_then_denies() {
        let book = TaskBook::default();
        let seed = book.open("apr_1", input(), Duration::from_secs(3600));
        assert_eq!(seed.status, TaskStatus::Working, "a new task is working");
        assert_eq!(
            seed.ttl_ms,
            Some(3_600_000),
            "its TTL is the configured one"
        );
        let polled = book.get(&seed.task_id, None).unwrap();
        assert_eq!(
            polled.status(),
            TaskStatus::Working,
            "no answer from the service is never an allow"
        );

        let expired = book.open("apr_2", input(), Duration::ZERO);
        let polled = book.get(&expired.task_id, None).unwrap();
        assert_eq!(polled.status(), TaskStatus::Completed, "the TTL ends it");
        let TaskPayload::Completed { result } = polled.payload else {
            panic!("completed carries a result")
        };
        let text = result["content"][0]["text"].as_str().unwrap();
        let answer: Value = serde_json::from_str(text).unwrap();
        assert_eq!(
            answer["behavior"], "deny",
            "nobody deciding is a deny: {answer}"
        );
        assert!(
            answer["message"]
                .as_str()
                .unwrap()
                .contains("nobody decided"),
            "and says why: {answer}"
        );
    }

    #[test]
    fn cancel_ends_a_working_task_and_unknown_ids_are_reported() {
        let book = TaskBook::default();
        let seed = book.open("apr_3", input(), Duration::from_secs(60));
        assert!(book.cancel(&seed.task_id), "a known task can be cancelled");
        assert_eq!(
            book.get(&seed.task_id, None).unwrap().status(),
            TaskStatus::Cancelled,
            "a cancelled task stays cancelled, polling does not revive it"
        );
        assert!(
            !book.cancel("task-nope"),
            "an unknown id is not acknowledged"
        );
        assert!(book.get("task-nope", None).is_none(), "nor found");
    }
}
