//! The real Gemini CLI (npm `@google/gemini-cli`, pinned in tests/agents) with Assent installed
//! by `assent install gemini` into a private home, driven offline by a scripted Gemini API
//! (`GOOGLE_GEMINI_BASE_URL`): what the agent ran, and what it sent back to the model, under
//! each of Assent's answers. Headless (`-p`) under `--approval-mode=yolo`, the mode in which
//! Gemini offers and runs its shell tool without its own prompt: Assent's BeforeTool hook is
//! the only gate. A missing CLI fails the test with how to install it.

use std::thread::JoinHandle;
use std::time::Duration;

use crate::agents_support::model::{Block, ModelServer};
use crate::agents_support::*;
use crate::gate_support::*;
use assent_core::ScopeKind;
use serde_json::json;

pub const VERSION: &str = "0.61.0";

/// `gemini -p go --approval-mode=yolo`, as the stories drive it.
pub struct Gemini;

/// Gemini's settings before Assent's install: API-key auth, no telemetry, no updates.
pub fn seed_settings(home: &Home) {
    let dir = home.path().join(".gemini");
    std::fs::create_dir_all(&dir).unwrap();
    let settings = json!({
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": false},
        "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
    });
    std::fs::write(dir.join("settings.json"), settings.to_string()).unwrap();
    let trusted = json!({ home.project.to_string_lossy(): "TRUST_FOLDER" });
    std::fs::write(dir.join("trustedFolders.json"), trusted.to_string()).unwrap();
}

impl AgentCli for Gemini {
    fn setup(&self, script: Vec<Vec<Block>>) -> Setup {
        let service = Service::start();
        let home = Home::new();
        seed_settings(&home);
        let printed = home.install("gemini", "60");
        let settings: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(home.path().join(".gemini/settings.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(
            settings["security"]["auth"]["selectedType"], "gemini-api-key",
            "the install keeps the user's other settings: {printed}"
        );
        assert_eq!(
            settings["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"], 70_000,
            "the hook's timeout (ms) outlasts the gate's 60 s wait, since a timeout runs the tool"
        );
        Setup {
            service,
            home,
            model: ModelServer::start(script),
        }
    }

    fn start(&self, s: &Setup) -> JoinHandle<AgentRun> {
        let bin = agent_bin("gemini", VERSION);
        let mut cmd = s.home.command(&bin, &s.service);
        cmd.args(["-p", "go", "--approval-mode=yolo"])
            .env("GOOGLE_GEMINI_BASE_URL", &s.model.url)
            .env("GEMINI_API_KEY", "scripted-key");
        std::thread::spawn(move || run_agent(cmd, Duration::from_secs(120)))
    }

    fn shell(&self, command: &str) -> Block {
        Block::Tool(
            "run_shell_command",
            json!({"command": command, "description": "run it"}),
        )
    }

    fn says_blocked(&self, result: &str) -> bool {
        result.starts_with("Tool execution blocked: ")
    }
}

#[test]
fn three_equal_calls_make_one_prompt() {
    // A read outside the project is one the default policy asks a person about.
    let read = "cat ../outside.txt";
    let s = Gemini.setup(vec![
        vec![Gemini.shell(read), Gemini.shell(read), Gemini.shell(read)],
        vec![Block::Text("finished".into())],
    ]);
    std::fs::write(s.home.path().join("outside.txt"), "outside-marker-3301\n").unwrap();
    let gemini = Gemini.start(&s);
    let prompt = wait_waiting(&s.service, 3);
    eprintln!("three equal calls: {prompt:?}");
    assert_eq!(prompt.len(), 1, "equal calls share one prompt: {prompt:?}");
    approve(&s.service, &prompt[0].approval_id, ScopeKind::Once);
    let run = gemini.join().unwrap();
    assert_eq!(run.code, 0, "the agent finishes: {run:?}");
    let results = s.model.tool_results();
    assert_eq!(
        results
            .iter()
            .filter(|r| r.contains("outside-marker-3301"))
            .count(),
        3,
        "one approval let the three equal calls run: {results:?}"
    );
}

#[test]
fn with_the_assent_binary_gone_the_hook_fails_closed() {
    // A read the gate allows at once when it is there (see the safe-read test).
    let s = Gemini.setup(one_call(Gemini.shell("cat notes.txt")));
    std::fs::write(s.home.project.join("notes.txt"), "fail-open-marker-5521\n").unwrap();
    std::fs::remove_file(s.home.assent()).unwrap();
    let run = Gemini.start(&s).join().unwrap();
    let results = s.model.tool_results();
    assert!(
        !results.iter().any(|r| r.contains("fail-open-marker-5521")),
        "with the gate missing, the file never reaches the model: {results:?}"
    );
    assert!(
        results
            .iter()
            .any(|r| r.starts_with("Tool execution blocked:") && r.contains("Assent gate failed")),
        "the model learns the gate failed and blocked the call: {results:?}"
    );
    assert_eq!(run.code, 0, "the agent itself goes on: {run:?}");
}
