//! `assent install|uninstall codex`: the hook entries in Codex's config.toml, trusted in the
//! way Codex 0.169 records trust (../shared/CODEX.md), with comments and every other setting
//! kept, a backup, idempotent; malformed configs refused with nothing lost.
//!
//! Every run gets a private `HOME` and `CODEX_HOME` and names the binary with `--bin`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::gate_support::*;
use sha2::{Digest, Sha256};
use toml_edit::DocumentMut;

/// A user's config: comments, settings, a hook of their own, trusted.
const USER_CONFIG: &str = r#"# my Codex settings
model = "gpt-5.1-codex"   # the model I use
model_provider = "mock"

[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:18111/v1"

[[hooks.PreToolUse]]
matcher = "Bash"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "/usr/local/bin/lint-hook"

[hooks.state."/elsewhere/config.toml:pre_tool_use:0:0"]
trusted_hash = "sha256:0000"
"#;

struct Env {
    home: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        Env {
            home: tempfile::tempdir().unwrap(),
        }
    }

    fn codex_home(&self) -> PathBuf {
        self.home.path().join("codex-home")
    }

    fn config(&self) -> PathBuf {
        self.codex_home().join("config.toml")
    }

    fn run_in(&self, args: &[&str], cwd: &Path) -> Ran {
        let child = Command::new(BIN)
            .args(args)
            .current_dir(cwd)
            .env("HOME", self.home.path())
            .env("CODEX_HOME", self.codex_home())
            .env("PATH", "/nonexistent")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        finish(child)
    }

    fn run(&self, args: &[&str]) -> Ran {
        self.run_in(args, self.home.path())
    }
}

fn install_args() -> Vec<&'static str> {
    vec!["install", "codex", "--bin", BIN, "--wait", "120"]
}

fn command() -> String {
    format!("{BIN} gate codex --wait 120 || exit 2")
}

/// Codex's trust hash of a one-handler group, computed here as CODEX.md describes it.
fn hash(label: &str, matcher: Option<&str>, timeout: u64) -> String {
    let matcher = matcher
        .map(|m| format!(r#","matcher":"{m}""#))
        .unwrap_or_default();
    let text = format!(
        r#"{{"event_name":"{label}","hooks":[{{"async":false,"command":"{}","timeout":{timeout},"type":"command"}}]{matcher}}}"#,
        command()
    );
    format!("sha256:{}", hex::encode(Sha256::digest(text.as_bytes())))
}

fn doc(path: &Path) -> DocumentMut {
    std::fs::read_to_string(path).unwrap().parse().unwrap()
}

fn trusted(doc: &DocumentMut, key: &str) -> Option<String> {
    doc["hooks"]["state"]
        .get(key)
        .and_then(|entry| entry.get("trusted_hash"))
        .and_then(|h| h.as_str())
        .map(str::to_owned)
}

#[test]
fn install_adds_trusted_hooks_and_keeps_everything_else() {
    let env = Env::new();
    std::fs::create_dir_all(env.codex_home()).unwrap();
    std::fs::write(env.config(), USER_CONFIG).unwrap();

    let ran = env.run(&install_args());
    assert_eq!(ran.code, 0, "install succeeds: {}", ran.stderr);
    let text = std::fs::read_to_string(env.config()).unwrap();
    let mut lines = text.lines();
    let kept = USER_CONFIG
        .lines()
        .all(|line| lines.any(|candidate| candidate == line));
    assert!(
        kept,
        "every line of the user's config, comments included, is still there in its order:\n{text}"
    );
    let config = doc(&env.config());
    let pre = config["hooks"]["PreToolUse"].as_array_of_tables().unwrap();
    assert_eq!(
        pre.len(),
        2,
        "the user's group stays, the gate's is added after it"
    );
    let ours = pre.get(1).unwrap();
    assert_eq!(
        ours["matcher"].as_str(),
        Some("*"),
        "the gate sees every tool"
    );
    let handler = ours["hooks"].as_array_of_tables().unwrap().get(0).unwrap();
    assert_eq!(
        handler["command"].as_str(),
        Some(command().as_str()),
        "the named binary"
    );
    assert_eq!(
        handler["timeout"].as_integer(),
        Some(130),
        "the hook timeout exceeds the gate's wait, so the gate answers first"
    );
    let source = env.config().to_string_lossy().into_owned();
    let want = [
        ("pre_tool_use", 1, Some("*"), 130),
        ("permission_request", 0, Some("*"), 130),
        ("post_tool_use", 0, Some("*"), 130),
        ("session_end", 0, None, 1),
    ];
    for (label, group, matcher, timeout) in want {
        assert_eq!(
            trusted(&config, &format!("{source}:{label}:{group}:0")),
            Some(hash(label, matcher, timeout)),
            "{label}: trusted under Codex's key with Codex's hash, or Codex skips it silently"
        );
    }
    assert_eq!(
        trusted(&config, "/elsewhere/config.toml:pre_tool_use:0:0").as_deref(),
        Some("sha256:0000"),
        "the user's own trust is kept"
    );
    let backup = env.codex_home().join("config.toml.assent-backup");
    assert_eq!(
        std::fs::read_to_string(backup).unwrap(),
        USER_CONFIG,
        "the backup is the file as it was"
    );
}

#[test]
fn install_is_idempotent_and_uninstall_restores_the_file() {
    let env = Env::new();
    std::fs::create_dir_all(env.codex_home()).unwrap();
    std::fs::write(env.config(), USER_CONFIG).unwrap();
    assert_eq!(env.run(&install_args()).code, 0, "first install");
    let once = std::fs::read_to_string(env.config()).unwrap();
    let again = env.run(&install_args());
    assert!(
        again.stdout.contains("unchanged"),
        "a second install says so: {}",
        again.stdout
    );
    assert_eq!(
        std::fs::read_to_string(env.config()).unwrap(),
        once,
        "a second install changes nothing"
    );
    let removed = env.run(&["uninstall", "codex"]);
    assert_eq!(removed.code, 0, "uninstall succeeds: {}", removed.stderr);
    assert_eq!(
        std::fs::read_to_string(env.config()).unwrap(),
        USER_CONFIG,
        "uninstall takes out exactly what install added, trust included"
    );
    let twice = env.run(&["uninstall", "codex"]);
    assert!(
        twice.stdout.contains("unchanged"),
        "nothing left to remove: {}",
        twice.stdout
    );
}

#[test]
fn uninstall_rekeys_the_trust_of_the_groups_after_the_gate() {
    let env = Env::new();
    assert_eq!(env.run(&install_args()).code, 0, "install into no config");
    let source = env.config().to_string_lossy().into_owned();
    let mut text = std::fs::read_to_string(env.config()).unwrap();
    text.push_str(&format!(
        "\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"lint\"\n\n[hooks.state.\"{source}:pre_tool_use:1:0\"]\ntrusted_hash = \"sha256:users\"\n"
    ));
    std::fs::write(env.config(), text).unwrap();

    assert_eq!(env.run(&["uninstall", "codex"]).code, 0, "uninstall");
    let config = doc(&env.config());
    assert_eq!(
        trusted(&config, &format!("{source}:pre_tool_use:0:0")).as_deref(),
        Some("sha256:users"),
        "the user's group moved from index 1 to 0 and keeps its trust under the new key"
    );
    assert_eq!(
        trusted(&config, &format!("{source}:pre_tool_use:1:0")),
        None,
        "no trust is left at the old index"
    );
}

#[test]
fn project_install_trusts_from_the_user_config() {
    let env = Env::new();
    let project = env.home.path().join("proj");
    std::fs::create_dir_all(&project).unwrap();
    let ran = env.run_in(
        &[
            "install",
            "codex",
            "--project",
            "--bin",
            BIN,
            "--wait",
            "120",
        ],
        &project,
    );
    assert_eq!(ran.code, 0, "project install: {}", ran.stderr);
    let project_config = project.join(".codex/config.toml");
    let hooks = doc(&project_config);
    assert!(
        hooks["hooks"]["PreToolUse"].is_array_of_tables(),
        "the hooks go in the project's config"
    );
    assert!(
        hooks["hooks"].get("state").is_none(),
        "Codex ignores trust in a project config, so none is written there"
    );
    let key = format!("{}:pre_tool_use:0:0", project_config.display());
    assert_eq!(
        trusted(&doc(&env.config()), &key),
        Some(hash("pre_tool_use", Some("*"), 130)),
        "the user config trusts the project's hooks"
    );
    let ran = env.run_in(&["uninstall", "codex", "--project"], &project);
    assert_eq!(ran.code, 0, "project uninstall: {}", ran.stderr);
    assert!(
        doc(&env.config())
            .get("hooks")
            .is_none_or(|h| h.get("state").is_none()),
        "uninstall takes the trust out of the user config too"
    );
}

#[test]
fn a_malformed_config_is_refused_and_left_untouched() {
    let env = Env::new();
    std::fs::create_dir_all(env.codex_home()).unwrap();
    let cases = [
        (
            "model = \"gpt\"\n[broken\n",
            "not valid TOML",
            "a syntax error",
        ),
        (
            "hooks = \"none\"\n",
            "`hooks`",
            "hooks that are not a table",
        ),
        (
            "[hooks]\nPreToolUse = [{ matcher = \"Bash\", hooks = [] }]\n",
            "`hooks.PreToolUse`",
            "an inline array the gate will not rewrite",
        ),
    ];
    for (text, want, what) in cases {
        std::fs::write(env.config(), text).unwrap();
        let ran = env.run(&install_args());
        assert_ne!(ran.code, 0, "{what}: install fails");
        assert!(
            ran.stderr.contains(want) && ran.stderr.contains("config.toml"),
            "{what}: the error names the file and the problem: {}",
            ran.stderr
        );
        assert_eq!(
            std::fs::read_to_string(env.config()).unwrap(),
            text,
            "{what}: nothing is lost"
        );
    }
}
