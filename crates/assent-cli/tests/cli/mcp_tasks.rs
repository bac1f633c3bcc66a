//! `assent gate mcp` with a client that declares the MCP tasks extension
//! (`io.modelcontextprotocol/tasks`): a call a person must decide is answered at once with a
//! task, polled with `tasks/get` and ended with `tasks/cancel`. Raw JSON-RPC over the real
//! binary's stdio (no MCP client library speaks the extension yet), against a real
//! `assent serve`.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use crate::gate_support::*;
use assent_core::ScopeKind;
use serde_json::{json, Value};

const TASKS: &str = "io.modelcontextprotocol/tasks";

struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Session {
    /// `assent gate mcp` started and initialised; `capabilities` is what the client declares.
    fn start(url: &str, token: &str, cwd: &Path, capabilities: Value) -> Session {
        let mut child = Command::new(BIN)
            .args(["gate", "mcp"])
            .current_dir(cwd)
            .env("ASSENT_URL", url)
            .env("ASSENT_TOKEN", token)
            .env("ASSENT_RUN_ID", "mcp-task-run")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut session = Session {
            child,
            stdin,
            stdout,
            next_id: 0,
        };
        let init = session.call(
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": capabilities,
                "clientInfo": {"name": "assent-tests", "version": "1"},
            }),
        );
        assert!(
            init["result"]["capabilities"]["extensions"]
                .get(TASKS)
                .is_some(),
            "the server declares the tasks extension, so clients know they may ask for tasks: {init}"
        );
        session.notify("notifications/initialized");
        session
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str) {
        self.send(&json!({"jsonrpc": "2.0", "method": method}));
    }

    /// Sends one request and returns its response (notifications in between are skipped).
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            let read = self.stdout.read_line(&mut line).unwrap();
            assert!(
                read > 0,
                "the server closed its output before answering {method}"
            );
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("the server wrote a non-JSON line {line:?}: {e}"));
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    fn approve_tool(&mut self, tool_name: &str, input: &Value, tool_use_id: &str) -> Value {
        let reply = self.call(
            "tools/call",
            json!({"name": "approve", "arguments": {
                "tool_name": tool_name, "input": input, "tool_use_id": tool_use_id,
            }}),
        );
        assert!(
            reply.get("error").is_none(),
            "the call is answered: {reply}"
        );
        reply["result"].clone()
    }

    fn get(&mut self, task_id: &str) -> Value {
        let reply = self.call("tasks/get", json!({"taskId": task_id}));
        assert!(
            reply.get("error").is_none(),
            "a known task is found: {reply}"
        );
        reply["result"].clone()
    }

    fn close(mut self) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "the MCP session ends cleanly: {status}");
    }
}

/// The permission answer inside a tool result (`content[0].text`, JSON).
fn permission(result: &Value) -> Value {
    assert_eq!(
        result["isError"], false,
        "the tool answers, it does not error: {result}"
    );
    let text = result["content"][0]["text"].as_str().unwrap_or_else(|| {
        panic!("a permission answer is one text content: {result}");
    });
    serde_json::from_str(text).unwrap()
}

fn with_tasks() -> Value {
    json!({"extensions": {TASKS: {}}})
}

#[test]
fn a_call_for_a_person_is_a_task_that_completes_with_their_answer() {
    let service = Service::start();
    let (_tmp, root) = repo();
    let mut session = Session::start(&service.url, &service.requester, &root, with_tasks());

    let auto = json!({"command": "git status"});
    let answered = session.approve_tool("Bash", &auto, "toolu_t0");
    assert_ne!(
        answered["resultType"], "task",
        "what the policy answers needs no task, even for a client that takes them: {answered}"
    );
    assert_eq!(
        permission(&answered),
        json!({"behavior": "allow", "updatedInput": auto}),
        "auto is allowed at once"
    );

    let fetch = json!({"url": "https://mcp-tasks.unknown-example.org/", "prompt": "x"});
    let created = session.approve_tool("WebFetch", &fetch, "toolu_t1");
    assert_eq!(
        created["resultType"], "task",
        "a call a person must decide is not held open: the client gets a task: {created}"
    );
    assert_eq!(created["status"], "working", "a new task is working");
    assert!(
        created["pollIntervalMs"].as_u64().is_some_and(|ms| ms > 0),
        "the task tells the client how often to poll: {created}"
    );
    let task_id = created["taskId"].as_str().unwrap().to_owned();

    let pending = wait_pending(&service, 1);
    assert_eq!(
        pending[0].run_id, "mcp-task-run",
        "the approval is open on the desk, in the session's run"
    );
    let polled = session.get(&task_id);
    assert_eq!(
        polled["status"], "working",
        "until a person decides, polling says working: {polled}"
    );
    assert!(
        polled.get("result").is_none(),
        "and carries no answer yet: {polled}"
    );

    approve(&service, &pending[0].approval_id, ScopeKind::Once);
    let done = session.get(&task_id);
    assert_eq!(done["status"], "completed", "the person decided: {done}");
    assert_eq!(
        permission(&done["result"]),
        json!({"behavior": "allow", "updatedInput": fetch}),
        "the task's result is the permission answer the blocking call would have given"
    );
    assert_eq!(
        session.get(&task_id)["status"],
        "completed",
        "a finished task keeps its answer on later polls"
    );

    let merge = json!({"pull_number": 7});
    let created = session.approve_tool("mcp__github__merge_pull_request", &merge, "toolu_t2");
    let task_id = created["taskId"].as_str().unwrap().to_owned();
    let pending = wait_pending(&service, 1);
    deny(
        &service,
        &pending[0].approval_id,
        "merges go through review",
    );
    let done = session.get(&task_id);
    assert_eq!(done["status"], "completed", "a denial completes the task");
    let denied = permission(&done["result"]);
    assert_eq!(
        denied["behavior"], "deny",
        "with a deny, never an allow: {denied}"
    );
    assert!(
        denied["message"]
            .as_str()
            .unwrap()
            .contains("merges go through review"),
        "the person's reason reaches the model so it can try another way: {denied}"
    );
    session.close();
}

#[test]
fn a_cancelled_task_never_answers_and_unknown_tasks_are_errors() {
    let service = Service::start();
    let (_tmp, root) = repo();
    let mut session = Session::start(&service.url, &service.requester, &root, with_tasks());

    let created = session.approve_tool(
        "WebFetch",
        &json!({"url": "https://cancel.unknown-example.org/", "prompt": "x"}),
        "toolu_c1",
    );
    let task_id = created["taskId"].as_str().unwrap().to_owned();
    let pending = wait_pending(&service, 1);

    let cancelled = session.call("tasks/cancel", json!({"taskId": task_id}));
    assert!(
        cancelled.get("error").is_none(),
        "a working task can be cancelled: {cancelled}"
    );
    approve(&service, &pending[0].approval_id, ScopeKind::Once);
    let polled = session.get(&task_id);
    assert_eq!(
        polled["status"], "cancelled",
        "an approval arriving after the client gave up does not revive the call: {polled}"
    );
    assert!(
        polled.get("result").is_none(),
        "a cancelled task carries no answer: {polled}"
    );

    for method in ["tasks/get", "tasks/cancel"] {
        let reply = session.call(method, json!({"taskId": "task-that-never-was"}));
        assert_eq!(
            reply["error"]["code"], -32602,
            "{method} on an unknown task is an invalid-params error, not a silent answer: {reply}"
        );
    }
    let huge = "t".repeat(100_000);
    let reply = session.call("tasks/get", json!({"taskId": huge}));
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(
        !message.is_empty() && message.len() < 400,
        "a huge unknown id gets a short error, not an echo of the input: {reply}"
    );
    session.close();
}

#[test]
fn a_client_without_tasks_still_gets_the_blocking_answer() {
    let service = Service::start();
    let (_tmp, root) = repo();
    let mut session = Session::start(&service.url, &service.requester, &root, json!({}));
    let fetch = json!({"url": "https://blocking.unknown-example.org/", "prompt": "x"});
    // The call is held until a person decides: the person decides from another thread.
    let answer = std::thread::scope(|scope| {
        scope.spawn(|| {
            let pending = wait_pending(&service, 1);
            approve(&service, &pending[0].approval_id, ScopeKind::Once);
        });
        session.approve_tool("WebFetch", &fetch, "toolu_b1")
    });
    assert_ne!(
        answer["resultType"], "task",
        "a client that did not declare tasks never gets one (it could not read it): {answer}"
    );
    assert_eq!(
        permission(&answer),
        json!({"behavior": "allow", "updatedInput": fetch}),
        "it gets the person's answer on the call itself, as before tasks"
    );

    // A client of the 2026-07-28 protocol declares its capabilities on each request instead.
    let reply = session.call(
        "tools/call",
        json!({
            "name": "approve",
            "arguments": {
                "tool_name": "WebFetch",
                "input": {"url": "https://per-request.unknown-example.org/", "prompt": "x"},
                "tool_use_id": "toolu_b2",
            },
            "_meta": {"io.modelcontextprotocol/clientCapabilities": with_tasks()},
        }),
    );
    assert_eq!(
        reply["result"]["resultType"], "task",
        "a call whose own metadata declares tasks gets a task: {reply}"
    );
    session.close();
}
