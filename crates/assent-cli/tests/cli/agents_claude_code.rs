//! The real Claude Code CLI (npm `@anthropic-ai/claude-code`, pinned in tests/agents) with
//! Assent installed by `assent install claude-code` into a private home, driven by a scripted
//! model: what the agent ran, and what it sent back to the model, under each of Assent's
//! answers. A missing CLI fails the test with how to install it.

use std::thread::JoinHandle;
use std::time::Duration;

use crate::agents_support::model::{Block, ModelServer};
use crate::agents_support::*;
use crate::gate_support::*;
use assent_core::ScopeKind;
use serde_json::json;

pub const VERSION: &str = "2.1.332";

/// Claude Code (`claude -p go`), as the stories drive it.
pub struct Claude;

impl AgentCli for Claude {
    fn setup(&self, script: Vec<Vec<Block>>) -> Setup {
        let service = Service::start();
        let home = Home::new();
        home.put_on_path(&agent_bin("claude", VERSION), "claude");
        let printed = home.install("claude-code", "60");
        assert!(
            printed.contains(&format!("Claude Code {VERSION} honours onFailure")),
            "assent install reads the real CLI's version and knows it fails closed: {printed}"
        );
        Setup {
            service,
            home,
            model: ModelServer::start(script),
        }
    }

    fn start(&self, s: &Setup) -> JoinHandle<AgentRun> {
        let bin = agent_bin("claude", VERSION);
        let mut cmd = s.home.command(&bin, &s.service);
        cmd.args(["-p", "go", "--output-format", "json"])
            .env("ANTHROPIC_BASE_URL", &s.model.url)
            .env("ANTHROPIC_API_KEY", "sk-ant-test-dummy")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1");
        std::thread::spawn(move || run_agent(cmd, Duration::from_secs(120)))
    }

    fn shell(&self, command: &str) -> Block {
        Block::Tool("Bash", json!({"command": command, "description": "run it"}))
    }

    fn says_blocked(&self, _result: &str) -> bool {
        // Claude Code hands the hook's reason to the model as it is.
        true
    }
}

#[test]
fn equal_calls_make_one_prompt() {
    // `cat` is read-only to Claude Code, so it runs both calls of the turn at once; a read
    // outside the project is one the default policy asks a person about.
    let read = "cat ../outside.txt";
    let s = Claude.setup(vec![
        vec![Claude.shell(read), Claude.shell(read)],
        vec![Block::Text("finished".into())],
    ]);
    std::fs::write(s.home.path().join("outside.txt"), "outside-marker-3301\n").unwrap();
    let claude = Claude.start(&s);
    let prompt = wait_waiting(&s.service, 2);
    assert_eq!(prompt.len(), 1, "equal calls share one prompt: {prompt:?}");
    approve(&s.service, &prompt[0].approval_id, ScopeKind::Once);
    let run = claude.join().unwrap();
    assert_eq!(run.code, 0, "the agent finishes: {run:?}");
    let results = s.model.tool_results();
    assert_eq!(
        results
            .iter()
            .filter(|r| r.contains("outside-marker-3301"))
            .count(),
        2,
        "one approval let both equal calls run: {results:?}"
    );
}

#[test]
fn with_the_assent_binary_gone_the_hooks_fail_closed() {
    // A read the gate allows at once when it is there (see the safe-read test).
    let s = Claude.setup(one_call(Claude.shell("cat notes.txt")));
    std::fs::write(s.home.project.join("notes.txt"), "fail-open-marker-5521\n").unwrap();
    std::fs::remove_file(s.home.assent()).unwrap();
    let run = Claude.start(&s).join().unwrap();
    let results = s.model.tool_results();
    assert!(
        !results.iter().any(|r| r.contains("fail-open-marker-5521")),
        "with the gate missing, the file never reaches the model: {results:?}"
    );
    assert!(
        results.iter().any(|r| r.contains("onFailure")),
        "the model learns a hook failed and blocked the call: {results:?}"
    );
    assert_eq!(run.code, 0, "the agent itself goes on: {run:?}");
}
