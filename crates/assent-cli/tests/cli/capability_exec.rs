//! `assent exec --capability` against a real `assent serve`: the person approves the
//! capability, the child really gets the secret, the agent only ever sees it masked; revoke
//! makes the next exec ask again; an unknown capability is a clear error that creates nothing;
//! the Claude Code gate blocks reading the secret's source, naming the capability.

use std::path::Path;
use std::process::{Child, Command, Stdio};

use crate::gate_support::*;
use serde_json::json;

/// The service reads this variable (the `env:` source); each `assent serve` these tests start
/// gets it in its own environment (not this process's: every test of the binary shares that).
const SOURCE_VAR: &str = "ASSENT_TEST_CAPABILITY_MAVEN_TOKEN";
const SECRET: &str = "mvn-s3cret-9f8e7d6c5b4a";
const CAP: &str = "registry.maven.readonly";

fn service() -> (Service, tempfile::TempDir) {
    let secrets = tempfile::tempdir().unwrap();
    let settings = secrets.path().join("settings.xml");
    std::fs::write(
        &settings,
        "<settings><password>file-s3cret-xyz</password></settings>\n",
    )
    .unwrap();
    let policy = format!(
        r#"
[capabilities."{CAP}"]
source = "env:{SOURCE_VAR}"
inject_as = "MAVEN_TOKEN"
ttl = "15m"
hosts = ["maven.internal.example.com"]
methods = ["GET", "HEAD"]

[capabilities."registry.maven.brief"]
source = "env:{SOURCE_VAR}"
inject_as = "MAVEN_TOKEN"
ttl = "2s"

[capabilities."registry.maven.settings"]
source = "file:{}"
inject_as = "MAVEN_SETTINGS_XML"
ttl = "1h"
"#,
        settings.display()
    );
    (
        Service::start_with_policy_env(Some(&policy), &[(SOURCE_VAR, SECRET)]),
        secrets,
    )
}

/// `assent exec --capability CAP --run r-cap --wait WAIT -- sh -c SCRIPT` in `cwd`.
fn exec(service: &Service, cwd: &Path, capability: &str, wait: &str, script: &str) -> Child {
    Command::new(BIN)
        .args([
            "exec",
            "--capability",
            capability,
            "--run",
            "r-cap",
            "--wait",
            wait,
        ])
        .args([
            "--reason",
            "compile needs private dependencies",
            "--",
            "sh",
            "-c",
            script,
        ])
        .current_dir(cwd)
        .env("ASSENT_URL", &service.url)
        .env("ASSENT_TOKEN", &service.requester)
        .env_remove("ASSENT_RUN_ID")
        .env_remove(SOURCE_VAR)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

const SCRIPT: &str =
    r#"echo "token=$MAVEN_TOKEN"; echo "warn $MAVEN_TOKEN" >&2; printf %s "$MAVEN_TOKEN" > got"#;

#[test]
fn the_child_gets_the_secret_and_the_agent_sees_it_masked() {
    let (service, _secrets) = service();
    let (_tmp, root) = repo();
    let first = exec(&service, &root, CAP, "30", SCRIPT);
    let pending = wait_pending(&service, 1);
    let prompt = &pending[0];
    assert_eq!(
        prompt.approval_type,
        assent_core::ApprovalType::Credential,
        "a capability exec is a credential approval"
    );
    let shown = serde_json::to_string(prompt).unwrap();
    assert!(!shown.contains(SECRET), "the prompt never shows the secret");
    assert!(
        shown.contains("maven.internal.example.com") && shown.contains(CAP),
        "it shows the capability and its hosts: {shown}"
    );
    approve(&service, &prompt.approval_id, assent_core::ScopeKind::Run);
    let ran = finish(first);
    assert_eq!(ran.code, 0, "the approved command ran: {}", ran.stderr);
    assert_eq!(ran.stdout, "token=****", "stdout shows the secret masked");
    assert!(
        ran.stderr.contains("warn ****") && !ran.stderr.contains(SECRET),
        "stderr is masked too: {}",
        ran.stderr
    );
    assert_eq!(
        std::fs::read_to_string(root.join("got")).unwrap(),
        SECRET,
        "the child really had the secret in its environment"
    );

    std::fs::remove_file(root.join("got")).unwrap();
    let second = finish(exec(&service, &root, CAP, "5", SCRIPT));
    assert_eq!(
        second.code, 0,
        "the run grant covers the next exec: {}",
        second.stderr
    );
    assert_eq!(
        std::fs::read_to_string(root.join("got")).unwrap(),
        SECRET,
        "and its child gets the secret too"
    );

    let rt = runtime();
    let client = service.approver_client();
    let grants = rt.block_on(client.grants(true)).unwrap();
    assert_eq!(
        grants.len(),
        1,
        "one capability grant is active: {grants:?}"
    );
    rt.block_on(client.revoke(&grants[0].grant.grant_id, "done with the registry"))
        .unwrap();
    std::fs::remove_file(root.join("got")).unwrap();
    let third = finish(exec(&service, &root, CAP, "1", SCRIPT));
    assert_eq!(
        third.code, 12,
        "after revoke the exec is asked again: {}",
        third.stderr
    );
    assert!(
        !root.join("got").exists(),
        "and nothing ran without a new approval"
    );
    assert_eq!(
        wait_pending(&service, 1).len(),
        1,
        "a new prompt waits for a person"
    );

    let audit = rt.block_on(client.audit(None, Some("r-cap"))).unwrap();
    let released = audit
        .iter()
        .filter(|e| e.decision == assent_core::AuditDecision::CredentialReleased)
        .count();
    assert_eq!(released, 2, "each release is audited");
    assert!(
        !serde_json::to_string(&audit).unwrap().contains(SECRET),
        "never with the value"
    );
}

#[test]
fn an_unknown_capability_is_a_clear_error_and_creates_nothing() {
    let (service, _secrets) = service();
    let (_tmp, root) = repo();
    let ran = finish(exec(&service, &root, "registry.mavne", "5", "touch ran"));
    assert_eq!(
        ran.code, 2,
        "an unknown capability is a usage error: {}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("unknown capability \"registry.mavne\"") && ran.stderr.contains(CAP),
        "the error names it and the declared ones: {}",
        ran.stderr
    );
    assert!(!root.join("ran").exists(), "nothing ran");
    let pending = runtime()
        .block_on(service.approver_client().pending())
        .unwrap();
    assert!(pending.is_empty(), "no prompt was opened: {pending:?}");
}

#[test]
fn the_claude_code_gate_blocks_reading_a_source_naming_the_capability() {
    let (service, secrets) = service();
    let (_tmp, root) = repo();
    let settings = secrets.path().join("settings.xml");
    let reads = [
        (
            format!("cat {}", settings.display()),
            "registry.maven.settings",
        ),
        (format!("echo ${SOURCE_VAR}"), CAP),
        (format!("printenv {SOURCE_VAR}"), CAP),
    ];
    for (i, (command, capability)) in reads.iter().enumerate() {
        let p = payload(
            "PreToolUse",
            "s-cap",
            &format!("t-{i}"),
            "Bash",
            json!({"command": command}),
            &root,
        );
        let ran = gate(&service.url, &service.requester, &[], &p);
        assert_eq!(
            ran.decision(),
            "deny",
            "{command} is blocked: {}",
            ran.stdout
        );
        assert!(
            ran.reason()
                .contains(&format!("assent exec --capability {capability}")),
            "{command}: the block names the capability to ask for: {}",
            ran.reason()
        );
    }
    let read = payload(
        "PreToolUse",
        "s-cap",
        "t-read",
        "Read",
        json!({"file_path": settings}),
        &root,
    );
    let ran = gate(&service.url, &service.requester, &[], &read);
    assert_eq!(
        ran.decision(),
        "deny",
        "the Read tool on the source is blocked too"
    );
}

#[test]
fn past_its_ttl_the_grant_stops_and_the_exec_is_asked_again() {
    let (service, _secrets) = service();
    let (_tmp, root) = repo();
    let brief = "registry.maven.brief";
    let first = exec(&service, &root, brief, "30", SCRIPT);
    let prompt = wait_pending(&service, 1).remove(0);
    let rt = runtime();
    let client = service.approver_client();
    let too_long = assent_protocol::DecisionRequest::Approve {
        scope: assent_core::ScopeKind::Run,
        expires_in_seconds: 600,
        max_uses: None,
        reason: None,
        path_patterns: None,
    };
    assert!(
        rt.block_on(client.decide(&prompt.approval_id, &too_long))
            .is_err(),
        "a grant longer than the capability's TTL is refused"
    );
    let within = assent_protocol::DecisionRequest::Approve {
        scope: assent_core::ScopeKind::Run,
        expires_in_seconds: 2,
        max_uses: None,
        reason: None,
        path_patterns: None,
    };
    rt.block_on(client.decide(&prompt.approval_id, &within))
        .unwrap();
    let ran = finish(first);
    assert_eq!(
        ran.code, 0,
        "approved within the TTL it runs: {}",
        ran.stderr
    );
    // The service's own clock ends the grant: wait for it to say so, not for a fixed time.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !rt.block_on(client.grants(true)).unwrap().is_empty() {
        assert!(
            std::time::Instant::now() < until,
            "the grant expires at its TTL"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::fs::remove_file(root.join("got")).unwrap();
    let later = finish(exec(&service, &root, brief, "1", SCRIPT));
    assert_eq!(
        later.code, 12,
        "past the TTL the exec is asked again: {}",
        later.stderr
    );
    assert!(
        !root.join("got").exists(),
        "and nothing ran without a new approval"
    );
}
