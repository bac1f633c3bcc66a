//! `assent doctor` with the real binary: a real `assent serve` on a free port whose tokens sit
//! in a temporary home, the hooks written by the real `assent install claude-code|codex` into
//! that home, and the canary run through them. `PATH` names nothing, so no real agent or bus
//! tool is found: those checks only warn, and the outcome depends on what the test arranged.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::gate_support::*;
use serde_json::Value;

/// A home with the service's tokens and the gate installed for both agents, naming `bin`.
struct Home {
    home: tempfile::TempDir,
    service: Option<Service>,
    url: String,
}

impl Home {
    fn new(bin: Option<&Path>) -> Home {
        let home = tempfile::tempdir().unwrap();
        let service = Service::start_in_home(home.path(), None, None);
        let url = service.url.clone();
        let me = Home {
            home,
            service: Some(service),
            url,
        };
        let bin = bin.map_or_else(|| BIN.to_owned(), |b| b.to_string_lossy().into_owned());
        for agent in ["claude-code", "codex"] {
            let ran = me.run(&["install", agent, "--bin", &bin, "--wait", "60"]);
            assert_eq!(ran.code, 0, "install {agent} succeeds: {}", ran.stderr);
        }
        me
    }

    fn path(&self) -> &Path {
        self.home.path()
    }

    fn run(&self, args: &[&str]) -> Ran {
        let child = Command::new(BIN)
            .args(args)
            .current_dir(self.path())
            .env("HOME", self.path())
            .env("ASSENT_URL", &self.url)
            .env("PATH", "/nonexistent")
            .env_remove("ASSENT_TOKEN")
            .env_remove("CODEX_HOME")
            .env_remove("XDG_DATA_HOME")
            .env_remove("DBUS_SESSION_BUS_ADDRESS")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        finish(child)
    }

    /// `assent doctor --json`: the exit code and the document.
    fn doctor_json(&self) -> (i32, Value) {
        let ran = self.run(&["doctor", "--json"]);
        let doc = serde_json::from_str(&ran.stdout)
            .unwrap_or_else(|e| panic!("--json prints JSON ({e}): {}", ran.stdout));
        (ran.code, doc)
    }
}

/// The check named `name` in a `--json` document.
fn check<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == name)
        .unwrap_or_else(|| panic!("no check {name} in {doc:#}"))
}

fn failed(doc: &Value) -> Vec<String> {
    doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "fail")
        .map(|c| c["check"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_guarded_setup_passes_and_the_canaries_answer() {
    let home = Home::new(None);

    let (code, doc) = home.doctor_json();

    assert_eq!(failed(&doc), Vec::<String>::new(), "nothing fails: {doc:#}");
    assert_eq!(code, 0, "all guarded: exit 0 (warnings only)");
    assert_eq!(doc["ok"], true, "the document says so too");
    for name in [
        "service",
        "identity",
        "claude-code.fail-closed",
        "codex.trusted",
    ] {
        assert_eq!(
            check(&doc, name)["status"],
            "pass",
            "{name} passes: {doc:#}"
        );
    }
    for name in ["claude-code.canary", "codex.canary"] {
        assert_eq!(
            check(&doc, name)["status"],
            "pass",
            "the installed hook command answered the harmless canary in its agent's shape: {doc:#}"
        );
    }
    assert_eq!(
        check(&doc, "codex.fail-closed")["status"],
        "pass",
        "the installed Codex command ends in `|| exit 2`, so a missing gate is a deny: {doc:#}"
    );
    assert_eq!(
        check(&doc, "claude-code.binary")["status"],
        "warn",
        "the test binary is a build output under target/: it runs, but a rebuild changes it"
    );
    assert_eq!(
        check(&doc, "desktop.tray")["status"],
        "warn",
        "no session bus here: no tray host is a warning, and the exit code stays 0"
    );
}

#[test]
fn a_stopped_service_fails_with_the_fix() {
    let mut home = Home::new(None);
    drop(home.service.take());

    let ran = home.run(&["doctor"]);

    assert_eq!(
        ran.code, 1,
        "every gated call would be refused: exit 1\n{}",
        ran.stdout
    );
    let line = format!("✗ service: {} does not answer", home.url);
    assert!(
        ran.stdout.contains(&line),
        "the failure names the URL: {}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .contains("    fix: start the service (`assent serve`"),
        "the fix sits under the failure: {}",
        ran.stdout
    );
    let summary = ran.stdout.lines().last().unwrap_or_default();
    assert!(
        summary.contains("every gated tool call is refused") && !summary.contains("unguarded"),
        "the summary agrees with the lines: a stopped service refuses, it lets nothing through: \
         {summary:?}"
    );
}

#[test]
fn an_agent_that_is_not_installed_is_not_warned_about() {
    let home = tempfile::tempdir().unwrap();
    let service = Service::start_in_home(home.path(), None, None);
    let ran = finish(
        Command::new(BIN)
            .args(["doctor", "--json"])
            .current_dir(home.path())
            .env("HOME", home.path())
            .env("ASSENT_URL", &service.url)
            .env("PATH", "/nonexistent")
            .env_remove("ASSENT_TOKEN")
            .env_remove("CODEX_HOME")
            .env_remove("XDG_DATA_HOME")
            .env_remove("DBUS_SESSION_BUS_ADDRESS")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    let agent_warnings: Vec<&Value> = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] != "pass")
        .filter(|c| {
            let name = c["check"].as_str().unwrap_or_default();
            name.starts_with("claude-code.") || name.starts_with("codex.")
        })
        .collect();
    assert_eq!(
        agent_warnings,
        Vec::<&Value>::new(),
        "neither Claude Code nor Codex is on PATH or hooked: nothing to warn about: {doc:#}"
    );
    assert_eq!(
        check(&doc, "claude-code.version")["status"],
        "pass",
        "the version line says there is nothing to check: {doc:#}"
    );
    assert_eq!(
        ran.code, 0,
        "a guarded setup with no agent yet exits 0: {doc:#}"
    );
}

#[test]
fn hooks_naming_a_missing_binary_fail() {
    let bins = tempfile::tempdir().unwrap();
    let link = bins.path().join("assent");
    std::os::unix::fs::symlink(BIN, &link).unwrap();
    let home = Home::new(Some(&link));
    std::fs::remove_file(&link).unwrap();

    let (code, doc) = home.doctor_json();

    assert_eq!(
        code, 1,
        "a hook that cannot start lets Codex run the tool: exit 1"
    );
    for name in ["claude-code.binary", "codex.binary", "codex.canary"] {
        assert_eq!(check(&doc, name)["status"], "fail", "{name} fails: {doc:#}");
    }
    let fix = check(&doc, "codex.binary")["fix"].as_str().unwrap();
    assert!(
        fix.contains(link.to_str().unwrap()),
        "the fix names the binary to put back: {fix}"
    );
}

#[test]
fn a_claude_code_hook_without_on_failure_fails() {
    let home = Home::new(None);
    let settings = home.path().join(".claude/settings.json");
    let text = std::fs::read_to_string(&settings).unwrap();
    let mut json: Value = serde_json::from_str(&text).unwrap();
    json["hooks"]["PreToolUse"][0]["hooks"][0]
        .as_object_mut()
        .unwrap()
        .remove("onFailure");
    std::fs::write(&settings, json.to_string()).unwrap();

    let (code, doc) = home.doctor_json();

    assert_eq!(
        code, 1,
        "a hook that fails open when the gate cannot start: exit 1"
    );
    let closed = check(&doc, "claude-code.fail-closed");
    assert_eq!(
        closed["status"], "fail",
        "the open hook is reported: {doc:#}"
    );
    assert!(
        closed["message"].as_str().unwrap().contains("PreToolUse"),
        "it names the event whose hook fails open: {closed}"
    );
    assert_eq!(
        closed["fix"], "assent install claude-code (a re-install writes onFailure: \"block\")",
        "and how to close it"
    );
}

#[test]
fn a_token_readable_by_others_is_reported() {
    use std::os::unix::fs::PermissionsExt;
    let home = Home::new(None);
    let token = home.path().join(".local/share/assent/requester.token");
    std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o644)).unwrap();

    let (code, doc) = home.doctor_json();

    assert_eq!(code, 1, "another user could present the token: exit 1");
    let found = check(&doc, "tokens.requester.token");
    assert_eq!(
        found["status"], "fail",
        "the loose mode is reported: {doc:#}"
    );
    assert_eq!(
        found["fix"],
        format!("chmod 600 {}", token.display()),
        "the fix is the command that makes it private"
    );
}

#[test]
fn the_json_document_has_a_stable_shape() {
    let home = Home::new(None);

    let (code, doc) = home.doctor_json();

    assert_eq!(doc["exit_code"], code, "the document carries the exit code");
    assert!(doc["ok"].is_boolean(), "ok is a boolean: {doc:#}");
    for c in doc["checks"].as_array().unwrap() {
        assert!(
            c["check"].is_string() && c["message"].is_string(),
            "named, described: {c}"
        );
        let status = c["status"].as_str().unwrap();
        assert!(
            ["pass", "warn", "fail"].contains(&status),
            "one of three statuses: {c}"
        );
        assert_eq!(
            c.get("fix").is_some(),
            status != "pass",
            "a fix under every failure and warning, none under a pass: {c}"
        );
    }
}

#[test]
fn an_untrusted_codex_hook_fails() {
    let home = Home::new(None);
    let config = home.path().join(".codex/config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(
        text.contains("sha256:"),
        "install recorded the trust: {text}"
    );
    std::fs::write(&config, text.replacen("sha256:", "sha256:0", 1)).unwrap();

    let (code, doc) = home.doctor_json();

    assert_eq!(
        code, 1,
        "Codex skips an untrusted hook and runs the tool: exit 1"
    );
    assert_eq!(
        check(&doc, "codex.trusted")["status"],
        "fail",
        "a trust hash that no longer matches is reported: {doc:#}"
    );
}

#[test]
fn a_token_the_service_does_not_know_fails() {
    let home = Home::new(None);

    let ran = home.run(&["doctor", "--json", "--token", "not-a-token"]);
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();

    assert_eq!(ran.code, 1, "every gated call would be refused: exit 1");
    assert_eq!(
        check(&doc, "identity")["status"],
        "fail",
        "/v1/me refuses the token, which is reported: {doc:#}"
    );
    assert_eq!(
        check(&doc, "service")["status"],
        "pass",
        "the service itself answers; only the token is wrong"
    );
}

/// Gemini CLI, opencode, Cursor and Copilot CLI installed beside Claude Code and Codex:
/// `doctor` finds each one's hooks and runs the canary through the very command each agent
/// would run, in that agent's own payload; with the gate gone, each one's hooks fail.
#[test]
fn each_installed_agent_says_whether_it_is_sandboxed() {
    let home = Home::new(None);
    let (code, doc) = home.doctor_json();
    for name in ["claude-code.sandbox", "codex.sandbox"] {
        let got = check(&doc, name);
        assert_eq!(
            got["status"], "warn",
            "hooks without --sandbox: guarded, but a hole in the policy could reach the \
             tokens: {got:#}"
        );
        assert!(
            got["fix"].as_str().unwrap_or("").contains("--sandbox"),
            "the fix names the install flag: {got:#}"
        );
    }
    assert_eq!(code, 0, "not sandboxed is a warning, not a failure");

    for agent in ["claude-code", "codex"] {
        let ran = home.run(&["install", agent, "--sandbox", "--bin", BIN, "--wait", "60"]);
        assert_eq!(ran.code, 0, "install {agent} --sandbox: {}", ran.stderr);
    }
    let (_, doc) = home.doctor_json();
    for name in ["claude-code.sandbox", "codex.sandbox"] {
        assert_eq!(
            check(&doc, name)["status"],
            "pass",
            "after install --sandbox the agent is reported sandboxed: {doc:#}"
        );
    }

    // A secret store made after the install: Codex's profile could not name it then.
    std::fs::create_dir_all(home.path().join(".aws")).unwrap();
    let (_, doc) = home.doctor_json();
    let got = check(&doc, "codex.sandbox");
    assert_eq!(
        got["status"], "warn",
        "a place that appeared since the install is not denied by Codex yet: {got:#}"
    );
    assert_eq!(
        check(&doc, "claude-code.sandbox")["status"],
        "pass",
        "Claude Code's settings name missing places too, so nothing changed for it: {doc:#}"
    );
}

#[test]
fn every_installed_agent_is_checked_with_its_own_canary() {
    let home = Home::new(None);
    let agents = ["gemini", "opencode", "cursor", "copilot"];
    for agent in agents {
        let ran = home.run(&["install", agent, "--user", "--bin", BIN]);
        assert_eq!(ran.code, 0, "install {agent} succeeds: {}", ran.stderr);
    }

    let (code, doc) = home.doctor_json();
    assert_eq!(failed(&doc), Vec::<String>::new(), "nothing fails: {doc:#}");
    assert_eq!(code, 0, "all six agents guarded: exit 0");
    for agent in agents {
        assert_eq!(
            check(&doc, &format!("{agent}.canary"))["status"],
            "pass",
            "{agent}'s installed hook answered the harmless canary in {agent}'s shape: {doc:#}"
        );
    }

    // A gate that is gone: every hook naming it is reported. Installed through a link to the
    // binary (install refuses a path that does not exist), then the link removed.
    let bins = tempfile::tempdir().unwrap();
    let link = bins.path().join("assent");
    std::os::unix::fs::symlink(BIN, &link).unwrap();
    for agent in agents {
        let ran = home.run(&["install", agent, "--user", "--bin", &link.to_string_lossy()]);
        assert_eq!(
            ran.code, 0,
            "re-install {agent} naming the link: {}",
            ran.stderr
        );
    }
    std::fs::remove_file(&link).unwrap();
    let (code, doc) = home.doctor_json();
    assert_ne!(code, 0, "a hook that cannot run is a failure: {doc:#}");
    let failing = failed(&doc);
    for agent in agents {
        assert!(
            failing.iter().any(|c| c.starts_with(&format!("{agent}."))),
            "{agent}: a hook naming a missing gate fails a check: {failing:?}"
        );
    }
}
