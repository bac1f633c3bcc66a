#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]
//! `assent install|uninstall claude-code`: idempotent merge, backup, exact removal.

mod gate_support;

use std::path::Path;
use std::process::{Command, Stdio};

use gate_support::*;
use serde_json::{json, Value};

fn assent(args: &[&str], home: &Path, cwd: &Path) -> Ran {
    let child = Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish(child)
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn existing() -> Value {
    json!({
        "model": "opus",
        "permissions": {"allow": ["Bash(npm test:*)"]},
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/lint-hook", "timeout": 5}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
        }
    })
}

#[test]
fn install_merges_idempotently_and_uninstall_restores_exactly() {
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(
        &settings,
        serde_json::to_string_pretty(&existing()).unwrap(),
    )
    .unwrap();

    let ran = assent(
        &["install", "claude-code", "--user", "--wait", "120"],
        home.path(),
        home.path(),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stdout.contains("+ PreToolUse:"),
        "the summary shows what was added: {}",
        ran.stdout
    );
    let backup = home.path().join(".claude/settings.json.assent-backup");
    assert_eq!(
        read(&backup),
        existing(),
        "the backup is the file as it was"
    );

    let installed = read(&settings);
    for event in [
        "PreToolUse",
        "PermissionRequest",
        "PostToolUse",
        "SessionEnd",
    ] {
        let groups = installed["hooks"][event].as_array().unwrap();
        let ours: Vec<&Value> = groups
            .iter()
            .flat_map(|g| g["hooks"].as_array().unwrap())
            .filter(|h| h["command"].as_str().unwrap().contains(" gate claude-code"))
            .collect();
        assert_eq!(ours.len(), 1, "{event}: exactly one gate entry");
        assert_eq!(
            ours[0]["timeout"], 130,
            "{event}: the hook timeout exceeds the gate's wait so the gate answers first"
        );
        assert!(
            ours[0]["command"].as_str().unwrap().contains("--wait 120"),
            "{event}: the wait is passed on"
        );
    }
    assert_eq!(
        installed["hooks"]["PreToolUse"][0],
        existing()["hooks"]["PreToolUse"][0],
        "the user's own hook stays first and untouched"
    );
    assert_eq!(installed["model"], "opus", "other settings are kept");

    let again = assent(
        &["install", "claude-code", "--user", "--wait", "120"],
        home.path(),
        home.path(),
    );
    assert_eq!(again.code, 0);
    assert!(
        again.stdout.contains("unchanged"),
        "a second install changes nothing: {}",
        again.stdout
    );
    assert_eq!(
        read(&settings),
        installed,
        "idempotent: the file is the same"
    );

    let changed = assent(
        &["install", "claude-code", "--wait", "200"],
        home.path(),
        home.path(),
    );
    assert!(
        changed.stdout.contains("- PreToolUse:") && changed.stdout.contains("+ PreToolUse:"),
        "a new wait replaces the old entry: {}",
        changed.stdout
    );
    let count = read(&settings)["hooks"]["PreToolUse"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(
        count, 2,
        "replaced, not added: the user's group and one gate group"
    );

    let removed = assent(
        &["uninstall", "claude-code", "--user"],
        home.path(),
        home.path(),
    );
    assert_eq!(removed.code, 0, "{}", removed.stderr);
    assert!(
        removed.stdout.contains("- SessionEnd:"),
        "the summary shows what was removed: {}",
        removed.stdout
    );
    assert_eq!(
        read(&settings),
        existing(),
        "uninstall leaves exactly what was there before"
    );
    let twice = assent(&["uninstall", "claude-code"], home.path(), home.path());
    assert!(
        twice.stdout.contains("unchanged"),
        "uninstalling twice is harmless: {}",
        twice.stdout
    );
}

#[test]
fn project_install_creates_the_file_and_uninstall_removes_the_hooks_key() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let ran = assent(
        &[
            "install",
            "claude-code",
            "--project",
            "--on-unavailable",
            "ask",
        ],
        home.path(),
        project.path(),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let settings = project.path().join(".claude/settings.json");
    let installed = read(&settings);
    let command = installed["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(
        command.ends_with("gate claude-code --wait 290 --on-unavailable ask"),
        "defaults and the chosen fallback: {command}"
    );
    assert_eq!(
        installed["hooks"]["PreToolUse"][0]["matcher"], "*",
        "every tool goes through the gate"
    );
    assert!(
        installed["hooks"]["SessionEnd"][0].get("matcher").is_none(),
        "SessionEnd takes no matcher"
    );
    assert!(
        !home.path().join(".claude").exists(),
        "--project leaves the user's settings alone"
    );
    assert_eq!(
        assent(
            &["uninstall", "claude-code", "--project"],
            home.path(),
            project.path()
        )
        .code,
        0
    );
    assert_eq!(read(&settings), json!({}), "nothing of ours is left behind");
}

#[test]
fn a_broken_settings_file_is_left_untouched() {
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    for text in ["{ \"hooks\": ", "[1, 2]"] {
        std::fs::write(&settings, text).unwrap();
        let ran = assent(&["install", "claude-code"], home.path(), home.path());
        assert_eq!(ran.code, 1, "{text:?}: refused");
        assert!(
            ran.stderr.contains("not a JSON object"),
            "{text:?}: says why: {}",
            ran.stderr
        );
        assert_eq!(
            std::fs::read_to_string(&settings).unwrap(),
            text,
            "{text:?}: the file is not rewritten"
        );
    }
    assert!(
        assent(
            &["install", "claude-code", "--user", "--project"],
            home.path(),
            home.path()
        )
        .code
            == 2,
        "--user and --project exclude each other"
    );
}
