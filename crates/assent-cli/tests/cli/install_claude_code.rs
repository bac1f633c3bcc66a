//! `assent install|uninstall claude-code`: idempotent merge, backup, exact removal; hooks that
//! fail closed (`onFailure: "block"`) naming a stable binary; the Claude Code version check.
//!
//! Every run gets a private `HOME` and a `PATH` holding only what the test puts there: an
//! `assent` (a link to the binary under test) and a stand-in `claude` printing a version, as
//! `claude --version` does (the suite has no real Claude Code CLI yet).

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::gate_support::*;
use serde_json::{json, Value};

const EVENTS: [&str; 4] = [
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "SessionEnd",
];

/// A private home and `PATH` dir for `assent install`.
struct Env {
    home: tempfile::TempDir,
    path_dir: tempfile::TempDir,
}

impl Env {
    /// Nothing on `PATH`: no `assent`, no `claude`.
    fn bare() -> Env {
        Env {
            home: tempfile::tempdir().unwrap(),
            path_dir: tempfile::tempdir().unwrap(),
        }
    }

    /// An `assent` on `PATH` and a current Claude Code.
    fn installed() -> Env {
        let env = Env::bare();
        std::os::unix::fs::symlink(BIN, env.assent_on_path()).unwrap();
        env.claude_prints("2.1.300 (Claude Code)");
        env
    }

    /// Where the `assent` on `PATH` is (a link to the binary under test, as
    /// scripts/setup.sh's ~/.local/bin/assent once was).
    fn assent_on_path(&self) -> PathBuf {
        self.path_dir.path().join("assent")
    }

    /// A `claude` on `PATH` whose `--version` prints `output`.
    fn claude_prints(&self, output: &str) {
        executable(
            &self.path_dir.path().join("claude"),
            &format!("#!/bin/sh\necho '{output}'\n"),
        );
    }

    fn settings(&self) -> PathBuf {
        self.home.path().join(".claude/settings.json")
    }

    fn run(&self, args: &[&str]) -> Ran {
        self.run_in(args, self.home.path())
    }

    fn run_in(&self, args: &[&str], cwd: &Path) -> Ran {
        let child = Command::new(BIN)
            .args(args)
            .current_dir(cwd)
            .env("HOME", self.home.path())
            .env("PATH", self.path_dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        finish(child)
    }
}

fn executable(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn write(path: &Path, value: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

/// The gate's hook handlers of `event`.
fn gate_handlers(settings: &Value, event: &str) -> Vec<Value> {
    settings["hooks"][event]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .flat_map(|g| g["hooks"].as_array().unwrap().clone())
        .filter(|h| h["command"].as_str().unwrap().contains(" gate claude-code"))
        .collect()
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
    let env = Env::installed();
    let settings = env.settings();
    write(&settings, &existing());

    let ran = env.run(&["install", "claude-code", "--user", "--wait", "120"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stdout.contains("+ PreToolUse:"),
        "the summary shows what was added: {}",
        ran.stdout
    );
    let backup = env.home.path().join(".claude/settings.json.assent-backup");
    assert_eq!(
        read(&backup),
        existing(),
        "the backup is the file as it was"
    );

    let installed = read(&settings);
    let on_path = env.assent_on_path().display().to_string();
    for event in EVENTS {
        let ours = gate_handlers(&installed, event);
        assert_eq!(ours.len(), 1, "{event}: exactly one gate entry");
        assert_eq!(
            ours[0]["timeout"], 130,
            "{event}: the hook timeout exceeds the gate's wait so the gate answers first"
        );
        assert_eq!(
            ours[0]["onFailure"], "block",
            "{event}: a gate that cannot run blocks the action"
        );
        let command = ours[0]["command"].as_str().unwrap();
        assert_eq!(
            command,
            format!("{on_path} gate claude-code --wait 120"),
            "{event}: the assent on PATH as named there (not the build output it links to)"
        );
    }
    assert_eq!(
        installed["hooks"]["PreToolUse"][0],
        existing()["hooks"]["PreToolUse"][0],
        "the user's own hook stays first and untouched"
    );
    assert_eq!(installed["model"], "opus", "other settings are kept");

    let again = env.run(&["install", "claude-code", "--user", "--wait", "120"]);
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

    let changed = env.run(&["install", "claude-code", "--wait", "200"]);
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

    let removed = env.run(&["uninstall", "claude-code", "--user"]);
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
    let twice = env.run(&["uninstall", "claude-code"]);
    assert!(
        twice.stdout.contains("unchanged"),
        "uninstalling twice is harmless: {}",
        twice.stdout
    );
}

#[test]
fn project_install_creates_the_file_and_uninstall_removes_the_hooks_key() {
    let env = Env::installed();
    let project = tempfile::tempdir().unwrap();
    let ran = env.run_in(
        &[
            "install",
            "claude-code",
            "--project",
            "--on-unavailable",
            "ask",
        ],
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
        !env.home.path().join(".claude").exists(),
        "--project leaves the user's settings alone"
    );
    assert_eq!(
        env.run_in(&["uninstall", "claude-code", "--project"], project.path())
            .code,
        0
    );
    assert_eq!(read(&settings), json!({}), "nothing of ours is left behind");
}

#[test]
fn a_broken_settings_file_is_left_untouched() {
    let env = Env::installed();
    let settings = env.settings();
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    for text in ["{ \"hooks\": ", "[1, 2]"] {
        std::fs::write(&settings, text).unwrap();
        let ran = env.run(&["install", "claude-code"]);
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
        env.run(&["install", "claude-code", "--user", "--project"])
            .code
            == 2,
        "--user and --project exclude each other"
    );
}

/// An older install (before onFailure, pointing at a build dir), with the user's hooks around
/// it, is upgraded where it stands by a re-install.
#[test]
fn a_reinstall_upgrades_an_older_install_in_place() {
    let env = Env::installed();
    let old = |event: &str| {
        let handler = json!({
            "type": "command",
            "command": "/home/dev/src/assent/target/debug/assent gate claude-code --wait 290",
            "timeout": 300,
        });
        if event == "SessionEnd" {
            json!({"hooks": [handler]})
        } else {
            json!({"matcher": "*", "hooks": [handler]})
        }
    };
    let lint = json!({"matcher": "Bash", "hooks": [
        {"type": "command", "command": "/usr/local/bin/lint-hook", "timeout": 5}
    ]});
    let format = json!({"matcher": "Edit", "hooks": [{"type": "command", "command": "cargo fmt"}]});
    let mut before = json!({"model": "opus", "hooks": {}});
    for event in EVENTS {
        before["hooks"][event] = json!([old(event)]);
    }
    before["hooks"]["PreToolUse"] = json!([lint, old("PreToolUse"), format]);
    write(&env.settings(), &before);

    let ran = env.run(&["install", "claude-code"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stdout
            .contains("- PreToolUse: /home/dev/src/assent/target/debug/assent gate claude-code")
            && ran.stdout.contains("onFailure block"),
        "the summary shows the old entry going and the new one coming: {}",
        ran.stdout
    );
    let after = read(&env.settings());
    let on_path = env.assent_on_path().display().to_string();
    for event in EVENTS {
        let ours = gate_handlers(&after, event);
        assert_eq!(ours.len(), 1, "{event}: upgraded, not duplicated");
        assert_eq!(ours[0]["onFailure"], "block", "{event}: now fails closed");
        assert!(
            ours[0]["command"].as_str().unwrap().starts_with(&on_path),
            "{event}: the build dir is replaced by the installed binary: {}",
            ours[0]["command"]
        );
    }
    let pre = after["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 3, "the same three groups");
    assert_eq!(
        (&pre[0], &pre[2]),
        (&lint, &format),
        "the gate keeps its place between the user's hooks"
    );
    assert!(
        env.run(&["install", "claude-code"])
            .stdout
            .contains("unchanged"),
        "a second install after the upgrade changes nothing"
    );
    assert_eq!(read(&env.settings()), after, "idempotent after the upgrade");
    env.run(&["uninstall", "claude-code"]);
    assert_eq!(
        read(&env.settings()),
        json!({"model": "opus", "hooks": {"PreToolUse": [lint, format]}}),
        "uninstall takes out exactly the gate's entries, old or new"
    );
}

#[test]
fn the_hooks_name_a_stable_binary_never_a_build_dir() {
    let bare = Env::bare();
    bare.claude_prints("2.1.300 (Claude Code)");
    let ran = bare.run(&["install", "claude-code"]);
    assert_eq!(
        ran.code, 1,
        "no assent on PATH and the binary under test lives in target/: refused"
    );
    for wanted in [
        "no `assent` on PATH",
        "build output",
        "cargo install",
        "--bin",
    ] {
        assert!(
            ran.stderr.contains(wanted),
            "the error says why and what to do ({wanted}): {}",
            ran.stderr
        );
    }
    assert!(
        !bare.settings().exists(),
        "nothing is written when no stable binary is known"
    );

    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("assent-stable");
    executable(&copy, "#!/bin/sh\n");
    let plain = dir.path().join("plain");
    std::fs::write(&plain, "data").unwrap();
    let rows: [(&str, String, Option<&str>); 5] = [
        ("a relative path", "bin/assent".to_owned(), Some("absolute")),
        (
            "a missing file",
            dir.path().join("gone").display().to_string(),
            Some("No such file"),
        ),
        (
            "a directory",
            dir.path().display().to_string(),
            Some("not a file"),
        ),
        (
            "a file that is not executable",
            plain.display().to_string(),
            Some("not executable"),
        ),
        ("an installed copy", copy.display().to_string(), None),
    ];
    for (scenario, bin, error) in rows {
        let env = Env::installed();
        let ran = env.run(&["install", "claude-code", "--bin", &bin]);
        match error {
            Some(error) => {
                assert_eq!(ran.code, 1, "{scenario}: refused");
                assert!(
                    ran.stderr.contains("--bin") && ran.stderr.contains(error),
                    "{scenario}: says why ({error}): {}",
                    ran.stderr
                );
                assert!(!env.settings().exists(), "{scenario}: nothing written");
            }
            None => {
                assert_eq!(ran.code, 0, "{scenario}: {}", ran.stderr);
                for event in EVENTS {
                    let command = gate_handlers(&read(&env.settings()), event)[0]["command"]
                        .as_str()
                        .unwrap()
                        .to_owned();
                    assert!(
                        command.starts_with(&format!("{bin} gate claude-code")),
                        "{scenario}, {event}: --bin wins over the assent on PATH: {command}"
                    );
                }
            }
        }
    }
}

/// What install says about the `claude` on `PATH` (a stand-in printing what `claude --version`
/// prints). The hooks are written in every case.
#[test]
fn install_warns_when_claude_code_does_not_honour_on_failure() {
    struct Row {
        scenario: &'static str,
        claude: Option<&'static str>,
        stderr_has: &'static [&'static str],
        stdout_has: &'static [&'static str],
    }
    let rows = [
        Row {
            scenario: "a current Claude Code",
            claude: Some("2.1.300 (Claude Code)"),
            stderr_has: &[],
            stdout_has: &["Claude Code 2.1.300 honours onFailure"],
        },
        Row {
            scenario: "the first version with onFailure",
            claude: Some("2.1.295 (Claude Code)"),
            stderr_has: &[],
            stdout_has: &["Claude Code 2.1.295 honours onFailure"],
        },
        Row {
            scenario: "an older Claude Code",
            claude: Some("2.1.294 (Claude Code)"),
            stderr_has: &[
                "warning: Claude Code 2.1.294 is older than 2.1.295",
                "does not honour onFailure",
                "missing or fails to start",
                "runs the tool unguarded",
                "Upgrade Claude Code",
            ],
            stdout_has: &[],
        },
        Row {
            scenario: "no Claude Code",
            claude: None,
            stderr_has: &[
                "note: `claude` was not found on PATH",
                "version is unknown",
                "the hooks apply when Claude Code is installed",
            ],
            stdout_has: &[],
        },
        Row {
            scenario: "a claude printing no version",
            claude: Some("Claude Code"),
            stderr_has: &["warning: cannot tell Claude Code's version", "unguarded"],
            stdout_has: &[],
        },
    ];
    for row in rows {
        let env = Env::bare();
        std::os::unix::fs::symlink(BIN, env.assent_on_path()).unwrap();
        if let Some(output) = row.claude {
            env.claude_prints(output);
        }
        let ran = env.run(&["install", "claude-code"]);
        let scenario = row.scenario;
        assert_eq!(ran.code, 0, "{scenario}: installed anyway: {}", ran.stderr);
        assert_eq!(
            gate_handlers(&read(&env.settings()), "PreToolUse").len(),
            1,
            "{scenario}: the hooks are written"
        );
        if row.stderr_has.is_empty() {
            assert!(
                ran.stderr.is_empty(),
                "{scenario}: nothing to warn about: {}",
                ran.stderr
            );
        }
        for wanted in row.stderr_has {
            assert!(
                ran.stderr.contains(wanted),
                "{scenario}: stderr says {wanted:?}: {}",
                ran.stderr
            );
        }
        for wanted in row.stdout_has {
            assert!(
                ran.stdout.contains(wanted),
                "{scenario}: stdout says {wanted:?}: {}",
                ran.stdout
            );
        }
    }
}

/// A missing `assent` blocks the tool call — shown against Claude Code's documented hook
/// contract, not against Claude Code itself: a `command` handler with `"onFailure": "block"`
/// whose command cannot start (or times out, or exits with an unexpected code) blocks the
/// action instead of letting it through (Claude Code 2.1.295 and later). So this test proves
/// that every handler Assent writes is such a handler and that its command, once the binary
/// is gone, cannot start; it does not run Claude Code. The test with a real Claude Code CLI
/// comes with the agents issue, which brings the CLI into the suite.
#[test]
fn a_missing_binary_blocks_by_the_hook_contract() {
    let env = Env::installed();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("assent");
    std::fs::copy(BIN, &copy).unwrap();
    let ran = env.run(&["install", "claude-code", "--bin", copy.to_str().unwrap()]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    std::fs::remove_file(&copy).unwrap();

    let settings = read(&env.settings());
    let (_repo_dir, repo) = repo();
    for event in EVENTS {
        let handlers = gate_handlers(&settings, event);
        assert_eq!(handlers.len(), 1, "{event}: one gate handler");
        let handler = &handlers[0];
        assert_eq!(handler["type"], "command", "{event}: a command hook");
        assert_eq!(
            handler["onFailure"], "block",
            "{event}: per the contract, a handler that cannot start blocks the action"
        );
        let command = handler["command"].as_str().unwrap();
        assert!(
            command.starts_with(&format!("{} gate claude-code", copy.display())),
            "{event}: the command names the deleted binary by its absolute path: {command}"
        );
        // Claude Code runs a command hook through the shell with the payload on stdin.
        let tool = if event == "SessionEnd" { "" } else { "Bash" };
        let hook = payload(event, "s1", "t1", tool, json!({"command": "ls"}), &repo);
        let mut shell = Command::new("/bin/sh")
            .args(["-c", command])
            .env("PATH", env.path_dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The shell may exit before reading: a broken pipe is part of "cannot start".
        let _ = shell
            .stdin
            .take()
            .unwrap()
            .write_all(hook.to_string().as_bytes());
        let ran = finish(shell);
        assert_eq!(
            ran.code, 127,
            "{event}: cannot start (neither 0 = allow nor 2 = deny), so onFailure applies: {}",
            ran.stderr
        );
    }
}
