//! `assent install|uninstall gemini|copilot|opencode --project` with the real binary, in a
//! repository that already holds the agent's own configuration: the person's settings and
//! hooks stay as they were, a file Assent replaces is kept as a backup, a second install
//! changes nothing, and uninstall takes away exactly what install added.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use crate::gate_support::BIN;

/// Runs `assent ARGS` in `repo` (its home is `repo` too); its stdout, after asserting success.
fn assent(repo: &Path, args: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(args)
        .env("HOME", repo)
        .env_remove("GEMINI_CLI_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .current_dir(repo)
        .output()
        .unwrap();
    assert!(out.status.success(), "assent {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn json_at(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn gemini_project_install_keeps_the_persons_settings_and_uninstalls_cleanly() {
    let repo = tempfile::tempdir().unwrap();
    let file = repo.path().join(".gemini/settings.json");
    let theirs = json!({ "theme": "GitHub", "hooks": { "BeforeTool": [
        { "matcher": "write_file", "hooks": [{ "type": "command", "command": "./lint.sh" }] } ] } });
    write(&file, &theirs.to_string());
    let install = ["install", "gemini", "--project", "--bin", BIN];

    assent(repo.path(), &install);
    let installed = json_at(&file);
    assert_eq!(
        installed["theme"], "GitHub",
        "other settings are untouched: {installed}"
    );
    let before_tool = installed["hooks"]["BeforeTool"].as_array().unwrap();
    assert_eq!(
        before_tool.first(),
        theirs["hooks"]["BeforeTool"].get(0),
        "the person's own hook stays, first: {installed}"
    );
    assert!(
        before_tool
            .iter()
            .any(|h| h.to_string().contains("gate gemini")),
        "the gate is added to BeforeTool: {installed}"
    );
    assert!(
        repo.path()
            .join(".gemini/settings.json.assent-backup")
            .exists(),
        "the file as it was is kept as a backup"
    );
    assert!(
        assent(repo.path(), &install).contains("unchanged"),
        "a second install changes nothing"
    );
    assent(repo.path(), &["uninstall", "gemini", "--project"]);
    assert_eq!(
        json_at(&file),
        theirs,
        "uninstall gives back the person's file as it was"
    );
}

#[test]
fn copilot_project_install_is_a_file_of_its_own_and_leaves_other_hook_files_alone() {
    let repo = tempfile::tempdir().unwrap();
    let hooks = repo.path().join(".github/hooks");
    let other = hooks.join("format.json");
    let theirs = json!({ "version": 1, "hooks": { "postToolUse": [
        { "type": "command", "bash": "./format.sh" } ] } });
    write(&other, &theirs.to_string());
    // A file of someone else's under the name Assent uses.
    let foreign = json!({ "version": 1, "hooks": { "preToolUse": [
        { "type": "command", "bash": "./audit.sh" } ] } });
    write(&hooks.join("assent.json"), &foreign.to_string());
    let install = ["install", "copilot", "--project", "--bin", BIN];

    let said = assent(repo.path(), &install);
    assert!(
        said.contains("was not Assent's"),
        "the move is said: {said}"
    );
    assert_eq!(
        json_at(&hooks.join("assent.json.assent-backup")),
        foreign,
        "the foreign file under Assent's name is kept, whole, as a backup"
    );
    let ours = json_at(&hooks.join("assent.json"));
    assert!(
        ours.to_string().contains("gate copilot") && ours["hooks"]["preToolUse"].is_array(),
        "Assent's file runs the gate on preToolUse: {ours}"
    );
    assert_eq!(
        json_at(&other),
        theirs,
        "another hook file is never touched"
    );
    assert!(
        assent(repo.path(), &install).contains("unchanged"),
        "a second install changes nothing"
    );
    assent(repo.path(), &["uninstall", "copilot", "--project"]);
    assert!(
        !hooks.join("assent.json").exists(),
        "uninstall removes Assent's file"
    );
    assert_eq!(json_at(&other), theirs, "and nothing else");
    assert!(
        hooks.join("assent.json.assent-backup").exists(),
        "the backup stays for the person to restore"
    );
}

#[test]
fn opencode_project_install_writes_one_plugin_and_keeps_a_foreign_one() {
    let repo = tempfile::tempdir().unwrap();
    let dir = repo.path().join(".opencode/plugin");
    let plugin = dir.join("assent.js");
    let other = dir.join("notify.js");
    write(&other, "export const Notify = async () => ({})\n");
    write(
        &plugin,
        "// someone else's plugin\nexport const X = async () => ({})\n",
    );
    let install = ["install", "opencode", "--project", "--bin", BIN];

    let said = assent(repo.path(), &install);
    assert!(
        said.contains("backup"),
        "a foreign plugin under Assent's name is backed up: {said}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("assent.js.assent-backup")).unwrap(),
        "// someone else's plugin\nexport const X = async () => ({})\n",
        "kept whole"
    );
    let text = std::fs::read_to_string(&plugin).unwrap();
    assert!(
        text.contains("tool.execute.before") && text.contains("\"opencode\""),
        "the plugin hands every tool call to `assent gate opencode`: {text}"
    );
    assert!(
        assent(repo.path(), &install).contains("unchanged"),
        "a second install changes nothing"
    );
    assent(repo.path(), &["uninstall", "opencode", "--project"]);
    assert!(!plugin.exists(), "uninstall removes Assent's plugin");
    assert_eq!(
        std::fs::read_to_string(&other).unwrap(),
        "export const Notify = async () => ({})\n",
        "another plugin is never touched"
    );
}

/// `assent install claude-code` makes the agent `claude-code` a token of its own beside the
/// service's data (0600), and its gate asks with it: the prompt says `claude-code` asked, not
/// `default` (issue 42). Installing again keeps the token, so a running agent keeps working.
#[test]
fn an_installed_agent_asks_in_its_own_name() {
    use crate::gate_support::{deny, finish, payload, spawn_with_stdin, wait_pending, Service};
    use std::os::unix::fs::PermissionsExt;

    let home = tempfile::tempdir().unwrap();
    let service = Service::start_in_home(home.path(), None, None);
    let repo = home.path().join("shop");
    crate::gate_support::mark_repository(&repo);
    let install = |repo: &Path| {
        let out = Command::new(BIN)
            .args(["install", "claude-code", "--project", "--bin", BIN])
            .env("HOME", home.path())
            .env_remove("XDG_DATA_HOME")
            .env_remove("ASSENT_URL")
            .env_remove("ASSENT_TOKEN")
            .current_dir(repo)
            .output()
            .unwrap();
        assert!(out.status.success(), "assent install claude-code: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let said = install(&repo);
    assert!(
        said.contains("the gate asks as the agent claude-code"),
        "install says in whose name the agent asks: {said}"
    );
    let file = service.data_dir.join("agents/claude-code.token");
    let token = std::fs::read_to_string(&file).unwrap();
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        mode, 0o600,
        "the agent's token is readable by its owner alone"
    );
    install(&repo);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        token,
        "installing again keeps the token a running agent holds"
    );

    let data_home = home.path().join(".local/share");
    let child = spawn_with_stdin(
        &["gate", "claude-code", "--wait", "30"],
        &[
            ("ASSENT_URL", service.url.as_str()),
            ("XDG_DATA_HOME", data_home.to_str().unwrap()),
        ],
        payload(
            "PreToolUse",
            "sess-named",
            "toolu_n1",
            "WebFetch",
            serde_json::json!({"url": "https://docs.unknown-example.org/page", "prompt": "summarise"}),
            &repo,
        )
        .to_string()
        .as_bytes(),
    );
    let pending = wait_pending(&service, 1);
    assert_eq!(
        pending[0].requester, "claude-code",
        "the prompt says which agent asked"
    );
    deny(&service, &pending[0].approval_id, "not now");
    let ran = finish(child);
    assert_eq!(ran.decision(), "deny", "{}", ran.stderr);
}
