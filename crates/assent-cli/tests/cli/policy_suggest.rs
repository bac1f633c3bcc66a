//! `assent policy suggest`: from decisions made on a real `assent serve` to a suggested, then
//! applied and audited, policy change that the running service reloads.

use std::process::{Command, Stdio};

use crate::gate_support::*;
use assent_core::{ActionRequest, ScopeKind};
use serde_json::json;

const POLICY: &str = "# our team's policy\napproval_timeout_seconds = 900 # fifteen minutes\n";

fn ask_cargo_test(service: &Service, run: &str) -> String {
    let request: ActionRequest = serde_json::from_value(json!({
        "run_id": run, "task_id": "t", "requested_by": "agent",
        "action": {"kind": "shell", "command": "cargo test", "cwd": "/src/shop"},
        "context": {"repo": "/src/shop", "repo_trust": "unknown"},
        "reason": "run the tests"
    }))
    .unwrap();
    let rt = runtime();
    let agent = assent_client::Client::new(&service.url, &service.requester).unwrap();
    let answer = rt.block_on(agent.submit(&request)).unwrap();
    answer
        .approval_id
        .expect("cargo test in an untrusted repo is asked")
}

/// `assent policy suggest --data-dir DIR --policy DIR/policy.toml` with `extra`.
fn suggest(service: &Service, extra: &[&str]) -> Ran {
    let policy = service.dir.path().join("policy.toml");
    let mut args = vec!["--policy", policy.to_str().unwrap()];
    args.extend_from_slice(extra);
    suggest_in(service, &args)
}

#[test]
fn always_approved_verifiers_suggest_trusting_the_repo_and_apply_is_audited() {
    let service = Service::start_with_policy(Some(POLICY));
    let none = suggest(&service, &["--json"]);
    assert_eq!(none.code, 0, "{}", none.stderr);
    assert_eq!(
        none.json()["suggestions"],
        json!([]),
        "no decisions, no suggestions"
    );

    for run in ["r-1", "r-2", "r-3"] {
        let id = ask_cargo_test(&service, run);
        approve(&service, &id, ScopeKind::Run);
    }
    let ran = suggest(&service, &["--json"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let suggestions = ran.json()["suggestions"].clone();
    assert_eq!(
        suggestions[0]["change"],
        json!({"change": "trust_repo", "repo": "/src/shop"}),
        "3 of 3 approvals of a verifier in one repo: trust it ({suggestions})"
    );
    assert!(
        suggestions[0]["evidence"]
            .as_str()
            .unwrap()
            .contains("approved 3 of 3 times"),
        "with the evidence: {suggestions}"
    );

    let applied = suggest(&service, &["--apply"]);
    assert_eq!(applied.code, 0, "{}", applied.stderr);
    let text = std::fs::read_to_string(service.dir.path().join("policy.toml")).unwrap();
    assert!(
        text.contains("# our team's policy") && text.contains("# fifteen minutes"),
        "the file keeps its comments: {text}"
    );
    assert!(
        text.contains("/src/shop"),
        "the repo is now trusted: {text}"
    );
    assert!(
        assent_core::Policy::from_toml(&text).is_ok(),
        "the written policy loads"
    );
    let rt = runtime();
    let audit = rt
        .block_on(service.approver_client().audit(None, None))
        .unwrap();
    assert!(
        audit
            .iter()
            .any(|e| e.decision == assent_core::AuditDecision::PolicyChanged
                && e.subject.as_deref() == Some("trusted_repos += /src/shop")),
        "the change is audited"
    );
    // The running service follows its file: the CLI's edit is in force without a restart.
    let written = assent_core::Policy::from_toml(&text).unwrap();
    let client = service.approver_client();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let status = rt.block_on(client.policy_status()).unwrap();
        if status.version == written.version() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the service reloads the edited file within its check interval: {status:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let agent = assent_client::Client::new(&service.url, &service.requester).unwrap();
    let request: ActionRequest = serde_json::from_value(json!({
        "run_id": "r-4", "task_id": "t", "requested_by": "agent",
        "action": {"kind": "shell", "command": "cargo test", "cwd": "/src/shop"},
        "context": {"repo": "/src/shop", "repo_trust": "unknown"},
        "reason": "run the tests"
    }))
    .unwrap();
    assert_eq!(
        rt.block_on(agent.submit(&request)).unwrap().status,
        assent_protocol::SubmitStatus::Allowed,
        "cargo test in the now trusted repo runs without asking"
    );
    let again = suggest(&service, &["--json"]);
    assert_eq!(
        again.json()["suggestions"],
        json!([]),
        "once applied, it is not suggested again"
    );
}

#[test]
fn bad_input_is_a_clear_error() {
    let service = Service::start();
    let ran = suggest(&service, &["--since", "7w"]);
    assert_eq!(ran.code, 2, "a bad --since is a usage error");
    assert!(ran.stderr.contains("unknown unit"), "{}", ran.stderr);
    let tmp = tempfile::tempdir().unwrap();
    let ran = Command::new(BIN)
        .args(["policy", "suggest", "--data-dir"])
        .arg(tmp.path())
        .output()
        .unwrap();
    assert_eq!(ran.status.code(), Some(1), "an empty data dir fails");
    assert!(
        String::from_utf8_lossy(&ran.stderr).contains("no database"),
        "and says why"
    );
    let ran = Command::new(BIN)
        .args(["policy", "suggest", "--apply", "--data-dir"])
        .arg(tmp.path())
        .output()
        .unwrap();
    assert_eq!(
        ran.status.code(),
        Some(1),
        "--apply with nothing decided fails, and writes nothing"
    );
    assert!(
        !tmp.path().join("policy.toml").exists(),
        "no policy file is created from nothing"
    );
    let bad = tmp.path().join("bad.toml");
    std::fs::write(&bad, "approval_timeout_seconds = \"soon\"\n").unwrap();
    let ran = suggest_in(&service, &["--policy", bad.to_str().unwrap(), "--apply"]);
    assert_eq!(ran.code, 1, "a policy file that does not load is refused");
    assert!(
        ran.stderr.contains("bad.toml"),
        "naming the file: {}",
        ran.stderr
    );
}

/// `assent policy suggest --data-dir DIR` with `extra` and no `--policy` of its own.
fn suggest_in(service: &Service, extra: &[&str]) -> Ran {
    let child = Command::new(BIN)
        .args(["policy", "suggest", "--data-dir"])
        .arg(service.dir.path())
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish(child)
}

#[test]
fn without_policy_apply_writes_the_file_the_service_follows() {
    let service = Service::start();
    let file = service.dir.path().join("policy.toml");
    assert!(!file.exists(), "the service runs on the built-in policy");
    for run in ["r-1", "r-2", "r-3"] {
        let id = ask_cargo_test(&service, run);
        approve(&service, &id, ScopeKind::Run);
    }
    let applied = suggest_in(&service, &["--apply"]);
    assert_eq!(applied.code, 0, "{}", applied.stderr);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("/src/shop"),
        "the data dir's policy.toml, the one a service without --policy follows, is created \
         with the change: {text}"
    );
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600,
        "created private, as the service creates it"
    );
}
