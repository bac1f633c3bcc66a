//! The real Codex CLI (npm `@openai/codex`, pinned in tests/agents) with Assent installed by
//! `assent install codex` into a private `CODEX_HOME`, driven by a scripted Responses-API
//! model: `codex exec --approve-for-me` (a command asking for escalation also reaches the
//! PermissionRequest hook, ../shared/CODEX.md) and plain `codex exec` (PreToolUse only). Every
//! ask is held at PreToolUse for the scripted person, and exactly one prompt is made per
//! decision. A missing CLI fails the test with how to install it.

use std::thread::JoinHandle;
use std::time::Duration;

use crate::agents_support::model::{Block, ModelServer};
use crate::agents_support::*;
use crate::gate_support::*;
use assent_core::ScopeKind;
use serde_json::json;

pub const VERSION: &str = "0.169.0";

/// `codex exec --approve-for-me go`, as the stories drive it; its push asks for escalation, so
/// both its PreToolUse and PermissionRequest hooks answer it.
pub struct Codex;

impl AgentCli for Codex {
    fn setup(&self, script: Vec<Vec<Block>>) -> Setup {
        let service = Service::start();
        let home = Home::new();
        let model = ModelServer::start(script);
        seed_config(&home, &model);
        home.install("codex", "60");
        Setup {
            service,
            home,
            model,
        }
    }

    fn start(&self, s: &Setup) -> JoinHandle<AgentRun> {
        start_codex_with(s, &["--approve-for-me"])
    }

    fn shell(&self, command: &str) -> Block {
        shell(command)
    }

    fn push(&self) -> Block {
        escalated(PUSH)
    }

    fn says_blocked(&self, _result: &str) -> bool {
        // Codex hands the hook's reason to the model as it is.
        true
    }
}

/// The provider settings a user has (the scripted model as a Responses-API provider); `assent
/// install codex` must leave them as they are.
pub fn seed_config(home: &Home, model: &ModelServer) {
    let codex_home = home.path().join(".codex");
    std::fs::create_dir_all(&codex_home).unwrap();
    std::fs::create_dir_all(home.path().join("tmp")).unwrap();
    std::fs::write(
        codex_home.join("config.toml"),
        format!(
            r#"model = "gpt-5.1-codex"
model_provider = "scripted"
check_for_update_on_startup = false

[model_providers.scripted]
name = "scripted"
base_url = "{}/v1"
wire_api = "responses"
env_key = "SCRIPTED_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

# Codex's sandbox protects `.git` under every writable root, creating an empty `/tmp/.git`
# while it runs (and leaving it if killed); /tmp is not this project's to write.
[sandbox_workspace_write]
exclude_slash_tmp = true
"#,
            model.url
        ),
    )
    .unwrap();
}

/// `codex exec <flags> go` in the project, in the background.
fn start_codex_with(s: &Setup, flags: &[&str]) -> JoinHandle<AgentRun> {
    let bin = agent_bin("codex", VERSION);
    let mut cmd = s.home.command(&bin, &s.service);
    cmd.args(["exec", "--skip-git-repo-check"])
        .args(flags)
        .arg("go")
        .env("CODEX_HOME", s.home.path().join(".codex"))
        .env("SCRIPTED_API_KEY", "dummy")
        // Codex makes its helper binaries only outside the temp dir (CODEX.md).
        .env("TMPDIR", s.home.path().join("tmp"));
    std::thread::spawn(move || run_agent(cmd, Duration::from_secs(120)))
}

fn shell(command: &str) -> Block {
    Block::Tool("exec_command", json!({"cmd": command}))
}

/// A command asking to run outside the sandbox: what makes Codex ask (PermissionRequest).
fn escalated(command: &str) -> Block {
    Block::Tool(
        "exec_command",
        json!({"cmd": command, "sandbox_permissions": "require_escalated",
            "justification": "publish the fix"}),
    )
}

#[test]
fn equal_calls_make_one_prompt() {
    let read = "cat ../outside.txt";
    let s = Codex.setup(vec![
        vec![escalated(read), escalated(read)],
        vec![Block::Text("finished".into())],
    ]);
    std::fs::write(s.home.path().join("outside.txt"), "outside-marker-4410\n").unwrap();
    let codex = Codex.start(&s);
    let prompt = wait_waiting(&s.service, 2);
    assert_eq!(prompt.len(), 1, "equal calls share one prompt: {prompt:?}");
    approve(&s.service, &prompt[0].approval_id, ScopeKind::Once);
    let run = codex.join().unwrap();
    assert_eq!(run.code, 0, "the agent finishes: {run:?}");
    let results = s.model.tool_results();
    assert_eq!(
        results
            .iter()
            .filter(|r| r.contains("outside-marker-4410"))
            .count(),
        2,
        "one approval let both equal calls run: {results:?}\n{run:?}"
    );
    assert_eq!(
        (s.prompts_decided(), none_pending(&s.service)),
        (1, true),
        "both calls' PermissionRequests were covered by the one approval"
    );
}

/// Plain `codex exec` never asks for permission itself: PreToolUse is the only gate, and it
/// holds an ask for the person. `rm` of a build output is an ask.
#[test]
fn under_plain_exec_an_ask_is_held_and_a_denial_reason_reaches_the_model() {
    let s = Codex.setup(one_call(shell("rm build/out.txt")));
    std::fs::create_dir_all(s.home.project.join("build")).unwrap();
    let out = s.home.project.join("build").join("out.txt");
    std::fs::write(&out, "keep me\n").unwrap();
    let codex = start_codex_with(&s, &[]);
    let pending = wait_pending(&s.service, 1);
    deny(
        &s.service,
        &pending[0].approval_id,
        "the release needs that file",
    );
    let run = codex.join().unwrap();
    assert_eq!(run.code, 0, "the agent goes on after a denial: {run:?}");
    assert!(out.exists(), "a denied rm never runs");
    let result = s.only_result();
    assert!(
        result.contains("the release needs that file"),
        "the person's reason reaches the model, so it can try another way: {result:?}"
    );
    assert_eq!(
        s.prompts_decided(),
        1,
        "exactly one prompt for the one call"
    );
}

#[test]
fn under_plain_exec_an_approved_ask_runs() {
    let s = Codex.setup(one_call(shell("rm build/out.txt")));
    std::fs::create_dir_all(s.home.project.join("build")).unwrap();
    let out = s.home.project.join("build").join("out.txt");
    std::fs::write(&out, "old\n").unwrap();
    // Plain exec's sandbox is read-only: the approved rm needs the workspace to be writable.
    let codex = start_codex_with(&s, &["--sandbox", "workspace-write"]);
    let pending = wait_pending(&s.service, 1);
    approve(&s.service, &pending[0].approval_id, ScopeKind::Once);
    let run = codex.join().unwrap();
    assert_eq!(run.code, 0, "the agent finishes: {run:?}");
    assert!(
        !out.exists(),
        "the approved rm ran: {:?}\n{run:?}",
        s.model.tool_results()
    );
    assert_eq!(
        (s.prompts_decided(), none_pending(&s.service)),
        (1, true),
        "exactly one prompt, and none left open"
    );
}

/// `--approve-for-me` without escalation: Codex's reviewer would decide on its own, and no
/// PermissionRequest fires (the issue's `git push origin main` ran with 0 prompts).
#[test]
fn under_approve_for_me_an_unescalated_push_waits_for_the_person() {
    let s = Codex.setup(one_call(shell(PUSH)));
    let remote = s.home.with_remote();
    let codex = Codex.start(&s);
    let pending = wait_pending(&s.service, 1);
    assert!(
        !remote_has_main(&remote),
        "nothing is pushed while the person has not decided"
    );
    approve(&s.service, &pending[0].approval_id, ScopeKind::Once);
    let run = codex.join().unwrap();
    assert_eq!(run.code, 0, "the agent finishes: {run:?}");
    assert_eq!(
        s.prompts_decided(),
        1,
        "one prompt for the push: {:?}",
        s.model.tool_results()
    );
    let result = s.only_result();
    assert!(
        !result.contains("blocked by PreToolUse"),
        "an approved push is not blocked by the hook: {result:?}"
    );
}

/// Three equal verifier calls in one turn: one prompt, one approval, all three run.
#[test]
fn three_equal_verifier_calls_make_one_prompt() {
    let verify = "cat ../verify-report.txt";
    let s = Codex.setup(vec![
        vec![shell(verify), shell(verify), shell(verify)],
        vec![Block::Text("finished".into())],
    ]);
    std::fs::write(
        s.home.path().join("verify-report.txt"),
        "verify-marker-7301\n",
    )
    .unwrap();
    let codex = start_codex_with(&s, &[]);
    let prompt = wait_waiting(&s.service, 3);
    assert_eq!(
        (prompt.len(), prompt[0].agents_waiting),
        (1, 3),
        "the three held calls wait on one prompt: {prompt:?}"
    );
    approve(&s.service, &prompt[0].approval_id, ScopeKind::Once);
    let run = codex.join().unwrap();
    assert_eq!(run.code, 0, "the agent finishes: {run:?}");
    let results = s.model.tool_results();
    assert_eq!(
        results
            .iter()
            .filter(|r| r.contains("verify-marker-7301"))
            .count(),
        3,
        "all three equal calls ran: {results:?}\n{run:?}"
    );
    assert_eq!(
        (s.prompts_decided(), none_pending(&s.service)),
        (1, true),
        "three equal calls, one prompt, one decision for all of them"
    );
}

#[test]
fn with_the_assent_binary_gone_the_hooks_fail_closed() {
    let s = Codex.setup(one_call(shell("cat notes.txt")));
    std::fs::write(
        s.home.project.join("notes.txt"),
        "fail-closed-marker-5521\n",
    )
    .unwrap();
    std::fs::remove_file(s.home.assent()).unwrap();
    let run = Codex.start(&s).join().unwrap();
    assert_eq!(
        run.code,
        0,
        "codex exec finishes: {run:?}\nmodel saw:\n{}",
        s.model.log()
    );
    assert!(
        run.stderr.contains("hook: PreToolUse Blocked"),
        "the shell's `|| exit 2` turns the missing gate into Codex's deny, not a failed hook: {run:?}"
    );
    let results = s.model.tool_results();
    assert!(
        !results
            .iter()
            .any(|r| r.contains("fail-closed-marker-5521")),
        "the file's content never reaches the model when Assent's gate is gone: {results:?}"
    );
}
