//! The desk as the one queue: the real Claude Code, Codex and Gemini CLI, each in its own
//! project with Assent installed by `assent install <agent>`, each driven by its own scripted
//! model, ask one service at the same time. Three prompts are open at once; a person decides
//! each differently, and each agent gets its own answer, never another's.

use std::path::Path;
use std::time::Duration;

use crate::agents_support::model::{Block, ModelServer};
use crate::agents_support::*;
use crate::gate_support::*;
use assent_core::ScopeKind;
use serde_json::json;

const PUSH: &str = "git push origin main";

/// One agent's project, remote and scripted model.
struct Agent {
    home: Home,
    remote: std::path::PathBuf,
    model: ModelServer,
}

fn agent(call: Block) -> Agent {
    let home = Home::new();
    let remote = home.with_remote();
    let model = ModelServer::start(vec![vec![call], vec![Block::Text("finished".into())]]);
    Agent {
        home,
        remote,
        model,
    }
}

fn run(cmd: std::process::Command) -> std::thread::JoinHandle<AgentRun> {
    std::thread::spawn(move || run_agent(cmd, Duration::from_secs(180)))
}

/// The open prompt for the project `root`.
fn prompt_for<'a>(
    pending: &'a [assent_protocol::Approval],
    root: &Path,
) -> &'a assent_protocol::Approval {
    let root = root.to_string_lossy();
    pending
        .iter()
        .find(|p| p.repo.as_deref() == Some(root.as_ref()))
        .unwrap_or_else(|| panic!("a prompt for {root}: {pending:?}"))
}

#[test]
fn three_agents_ask_at_once_and_each_gets_its_own_answer() {
    let service = Service::start();

    let claude = agent(Block::Tool(
        "Bash",
        json!({"command": PUSH, "description": "publish"}),
    ));
    let claude_bin = agent_bin("claude", crate::agents_claude_code::VERSION);
    claude.home.put_on_path(&claude_bin, "claude");
    claude.home.install("claude-code", "90");

    let codex = agent(Block::Tool(
        "exec_command",
        json!({"cmd": PUSH, "sandbox_permissions": "require_escalated",
               "justification": "publish the fix"}),
    ));
    crate::agents_codex::seed_config(&codex.home, &codex.model);
    codex.home.install("codex", "90");

    let gemini = agent(Block::Tool(
        "run_shell_command",
        json!({"command": PUSH, "description": "publish"}),
    ));
    crate::agents_gemini::seed_settings(&gemini.home);
    gemini.home.install("gemini", "90");

    let mut cmd = claude.home.command(&claude_bin, &service);
    cmd.args(["-p", "go", "--output-format", "json"])
        .env("ANTHROPIC_BASE_URL", &claude.model.url)
        .env("ANTHROPIC_API_KEY", "sk-ant-test-dummy")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1");
    let claude_run = run(cmd);

    let codex_bin = agent_bin("codex", crate::agents_codex::VERSION);
    let mut cmd = codex.home.command(&codex_bin, &service);
    cmd.args(["exec", "--skip-git-repo-check", "--approve-for-me", "go"])
        .env("CODEX_HOME", codex.home.path().join(".codex"))
        .env("SCRIPTED_API_KEY", "dummy")
        .env("TMPDIR", codex.home.path().join("tmp"));
    let codex_run = run(cmd);

    let gemini_bin = agent_bin("gemini", crate::agents_gemini::VERSION);
    let mut cmd = gemini.home.command(&gemini_bin, &service);
    cmd.args(["-p", "go", "--approval-mode=yolo"])
        .env("GOOGLE_GEMINI_BASE_URL", &gemini.model.url)
        .env("GEMINI_API_KEY", "scripted-key");
    let gemini_run = run(cmd);

    let pending = wait_pending(&service, 3);
    assert_eq!(
        pending.len(),
        3,
        "three agents' pushes are three prompts on one desk, open at once: {pending:?}"
    );
    approve(
        &service,
        &prompt_for(&pending, &claude.home.project).approval_id,
        ScopeKind::Once,
    );
    deny(
        &service,
        &prompt_for(&pending, &codex.home.project).approval_id,
        "codex-reason: push after the review",
    );
    deny(
        &service,
        &prompt_for(&pending, &gemini.home.project).approval_id,
        "gemini-reason: push to a branch",
    );

    for (name, handle) in [
        ("claude", claude_run),
        ("codex", codex_run),
        ("gemini", gemini_run),
    ] {
        let ran = handle.join().unwrap();
        assert_eq!(ran.code, 0, "{name} finishes after its answer: {ran:?}");
    }
    assert!(
        remote_has_main(&claude.remote),
        "Claude Code's approved push ran"
    );
    assert!(
        !remote_has_main(&codex.remote) && !remote_has_main(&gemini.remote),
        "the denied pushes never ran"
    );
    let said = |a: &Agent| a.model.tool_results().join("\n");
    let (codex_saw, gemini_saw) = (said(&codex), said(&gemini));
    assert!(
        codex_saw.contains("codex-reason") && !codex_saw.contains("gemini-reason"),
        "Codex's model gets Codex's denial, not Gemini's: {codex_saw:?}"
    );
    assert!(
        gemini_saw.contains("gemini-reason") && !gemini_saw.contains("codex-reason"),
        "Gemini's model gets Gemini's denial, not Codex's: {gemini_saw:?}"
    );
    let claude_saw = said(&claude);
    assert!(
        !claude_saw.contains("-reason"),
        "Claude Code's model sees no one's denial: {claude_saw:?}"
    );
    assert!(none_pending(&service), "every prompt was decided");
}
