//! The real GitHub Copilot CLI (npm `@github/copilot` 1.0.102, pinned in tests/agents) with
//! Assent installed by `assent install copilot` (its hook file in the private home's
//! `~/.copilot/hooks`), driven offline by the suite's scripted OpenAI-compatible chat API:
//! Copilot CLI's BYOK mode (`COPILOT_PROVIDER_BASE_URL`, `copilot help providers`) needs no
//! GitHub sign-in, so a `-p` run reaches only the scripted model. What the agent ran, and what
//! it sent back to the model, under each of Assent's answers. No `--allow-all-tools`: the
//! gate's allow is what lets a tool run. A missing CLI fails the test with how to install it.

use std::thread::JoinHandle;
use std::time::Duration;

use crate::agents_support::model::{Block, ModelServer};
use crate::agents_support::*;
use crate::gate_support::*;
use assent_core::{AuditDecision, ScopeKind};
use serde_json::json;

const VERSION: &str = "1.0.102";

/// `copilot -p go`, as the stories drive it.
pub struct Copilot;

impl AgentCli for Copilot {
    fn setup(&self, script: Vec<Vec<Block>>) -> Setup {
        let service = Service::start();
        let home = Home::new();
        let model = ModelServer::start(script);
        let printed = home.install("copilot", "60");
        assert!(
            home.path().join(".copilot/hooks/assent.json").exists(),
            "the install writes the hook file where Copilot loads the user's hooks: {printed}"
        );
        Setup {
            service,
            home,
            model,
        }
    }

    fn start(&self, s: &Setup) -> JoinHandle<AgentRun> {
        let bin = agent_bin("copilot", VERSION);
        let mut cmd = s.home.command(&bin, &s.service);
        cmd.args(["-p", "go", "--trust-folder", "--disable-client-telemetry"])
            .env("COPILOT_PROVIDER_BASE_URL", format!("{}/v1", s.model.url))
            .env("COPILOT_PROVIDER_API_KEY", "x")
            .env("COPILOT_MODEL", "gpt-4.1")
            .env("COPILOT_AUTO_UPDATE", "false");
        std::thread::spawn(move || run_agent(cmd, Duration::from_secs(120)))
    }

    fn shell(&self, command: &str) -> Block {
        Block::Tool(
            "bash",
            json!({ "command": command, "description": "scripted" }),
        )
    }

    fn says_blocked(&self, result: &str) -> bool {
        result.contains("Denied by preToolUse hook")
    }
}

#[test]
fn three_equal_verifier_calls_make_one_prompt() {
    // Copilot runs the preToolUse hooks of one turn's calls one after another (observed), so
    // the three never wait at once: the person approves the verifier for the run, and that
    // one approval covers the next two.
    let s = Copilot.setup(vec![
        vec![
            Copilot.shell("cargo test"),
            Copilot.shell("cargo test"),
            Copilot.shell("cargo test"),
        ],
        vec![Block::Text("finished".into())],
    ]);
    let cargo = s.home.path().join("bin/cargo");
    std::fs::write(&cargo, "#!/bin/sh\necho verifier-marker-3301\n").unwrap();
    std::fs::set_permissions(&cargo, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let copilot = Copilot.start(&s);
    let prompt = wait_pending(&s.service, 1);
    assert!(
        prompt[0].facts.offered_scopes.contains(&ScopeKind::Run),
        "a verifier may be approved for the run: {prompt:?}"
    );
    approve(&s.service, &prompt[0].approval_id, ScopeKind::Run);
    let run = copilot.join().unwrap();
    assert_eq!(run.code, 0, "the agent finishes: {run:?}");
    let results = s.model.tool_results();
    assert_eq!(
        results
            .iter()
            .filter(|r| r.contains("verifier-marker-3301"))
            .count(),
        3,
        "one approval let the three equal calls run: {results:?}"
    );
    let audit = s.audit();
    let count = |d: AuditDecision| audit.iter().filter(|e| e.decision == d).count();
    assert_eq!(
        (count(AuditDecision::Approved), none_pending(&s.service)),
        (1, true),
        "one prompt was decided; the run's grant covered the other two: {audit:?}"
    );
}

#[test]
fn with_the_assent_binary_gone_the_hook_fails_closed() {
    let s = Copilot.setup(one_call(Copilot.shell("cat notes.txt")));
    std::fs::write(s.home.project.join("notes.txt"), "fail-open-marker-5521\n").unwrap();
    std::fs::remove_file(s.home.assent()).unwrap();
    let run = Copilot.start(&s).join().unwrap();
    let results = s.model.tool_results();
    assert!(
        !results.iter().any(|r| r.contains("fail-open-marker-5521")),
        "with the gate missing, the file never reaches the model: {results:?}"
    );
    assert!(
        results
            .iter()
            .any(|r| r.contains("Denied by preToolUse hook")),
        "Copilot denies the call when the hook fails: {results:?}"
    );
    assert_eq!(run.code, 0, "the agent itself goes on: {run:?}");
}
