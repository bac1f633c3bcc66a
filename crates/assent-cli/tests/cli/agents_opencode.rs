//! The real opencode (npm `opencode-ai`, pinned in tests/agents) with Assent installed by
//! `assent install opencode` (its plugin in the private home's `~/.config/opencode/plugin`),
//! driven offline by a scripted OpenAI-compatible chat API as a custom provider: what the agent
//! ran, and what it sent back to the model, under each of Assent's answers. `opencode run`
//! allows every tool by default, so the plugin is the only gate. A missing CLI fails the test
//! with how to install it.

use std::thread::JoinHandle;
use std::time::Duration;

use crate::agents_support::model::{Block, ModelServer};
use crate::agents_support::*;
use crate::gate_support::*;
use assent_core::ScopeKind;
use serde_json::json;

const VERSION: &str = "1.18.33";

/// `opencode run go`, as the stories drive it.
pub struct Opencode;

impl AgentCli for Opencode {
    fn setup(&self, script: Vec<Vec<Block>>) -> Setup {
        let service = Service::start();
        let home = Home::new();
        let model = ModelServer::start(script);
        let config = json!({
            "$schema": "https://opencode.ai/config.json",
            "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "Mock",
                "options": {"baseURL": format!("{}/v1", model.url), "apiKey": "x"},
                "models": {"mock-model": {"name": "Mock Model", "tool_call": true}}}},
            "model": "mock/mock-model", "small_model": "mock/mock-model",
            "autoupdate": false, "share": "disabled",
            // opencode's own asks, which `opencode run` answers with a reject, after Assent's
            // answer: its guard against a model repeating itself (three equal calls in a row) and
            // its check on paths outside the project. The batching test reads one, three times.
            "permission": {"doom_loop": "allow", "external_directory": "allow"},
        });
        std::fs::write(home.project.join("opencode.json"), config.to_string()).unwrap();
        let printed = home.install("opencode", "60");
        assert!(
            home.path()
                .join(".config/opencode/plugin/assent.js")
                .exists(),
            "the install writes the plugin where opencode loads the user's plugins: {printed}"
        );
        Setup {
            service,
            home,
            model,
        }
    }

    fn start(&self, s: &Setup) -> JoinHandle<AgentRun> {
        let bin = agent_bin("opencode", VERSION);
        let mut cmd = s.home.command(&bin, &s.service);
        cmd.args(["run", "go"])
            .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
            .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
            // opencode installs its plugin SDK at start once a plugin is there; offline, fail fast.
            .env("npm_config_registry", "http://127.0.0.1:9")
            .env("npm_config_fetch_retries", "0");
        std::thread::spawn(move || run_agent(cmd, Duration::from_secs(120)))
    }

    fn shell(&self, command: &str) -> Block {
        Block::Tool("bash", json!({ "command": command }))
    }

    fn says_blocked(&self, _result: &str) -> bool {
        // The plugin throws Assent's reason, which opencode hands to the model as it is.
        true
    }
}

#[test]
fn three_equal_calls_make_one_prompt() {
    let read = "cat ../outside.txt";
    let s = Opencode.setup(vec![
        vec![
            Opencode.shell(read),
            Opencode.shell(read),
            Opencode.shell(read),
        ],
        vec![Block::Text("finished".into())],
    ]);
    std::fs::write(s.home.path().join("outside.txt"), "outside-marker-3301\n").unwrap();
    let opencode = Opencode.start(&s);
    let prompt = wait_waiting(&s.service, 3);
    assert_eq!(prompt.len(), 1, "equal calls share one prompt: {prompt:?}");
    assert_eq!(
        prompt[0].agents_waiting, 3,
        "the three calls wait on it at once: {prompt:?}"
    );
    approve(&s.service, &prompt[0].approval_id, ScopeKind::Once);
    let run = opencode.join().unwrap();
    assert_eq!(run.code, 0, "the agent finishes: {run:?}");
    let results = s.model.tool_results();
    assert_eq!(
        results
            .iter()
            .filter(|r| r.contains("outside-marker-3301"))
            .count(),
        3,
        "one approval let the three equal calls run: {results:?}\nrun: {run:?}\nmodel saw:\n{}",
        s.model.log()
    );
}

#[test]
fn with_the_assent_binary_gone_the_plugin_blocks() {
    let s = Opencode.setup(one_call(Opencode.shell("cat notes.txt")));
    std::fs::write(s.home.project.join("notes.txt"), "fail-open-marker-5521\n").unwrap();
    std::fs::remove_file(s.home.assent()).unwrap();
    let run = Opencode.start(&s).join().unwrap();
    let results = s.model.tool_results();
    assert!(
        !results.iter().any(|r| r.contains("fail-open-marker-5521")),
        "with the gate missing, the file never reaches the model: {results:?}"
    );
    assert!(
        results
            .iter()
            .any(|r| r.contains("Assent could not check this call (ENOENT)")),
        "the model learns the gate could not run: {results:?}"
    );
    assert_eq!(run.code, 0, "the agent itself goes on: {run:?}");
}
