//! What the fuzz target checks for one input; also run over the seeds and the regression
//! inputs by `crates/assent-core/tests/core/fuzz_regressions.rs` (which includes this file).

use assent_core::{
    evaluate, Action, ActionContext, ActionKind, ActionRequest, Environment, Policy, RequestedBy,
};

/// A command line (the input as UTF-8, lossily) must canonicalise, evaluate to an explained
/// answer and hash deterministically; any panic or broken invariant is a finding.
pub fn check_command_line(data: &[u8]) {
    let line = String::from_utf8_lossy(data);
    let cwd = "/home/dev/shop";
    let home = "/home/dev";
    let script = assent_core::shell::parse_script(&line, cwd, home);
    assert!(
        script.commands.iter().all(|c| c.cwd.starts_with('/')),
        "every command runs in an absolute cwd"
    );
    let request = ActionRequest {
        run_id: "run-1".to_owned(),
        task_id: "task-1".to_owned(),
        requested_by: RequestedBy::Agent,
        idempotency_key: None,
        action: Action {
            kind: ActionKind::Shell,
            command: Some(line.into_owned()),
            argv: None,
            cwd: cwd.to_owned(),
            paths: Vec::new(),
            network: Vec::new(),
            credential_scope: None,
            tool: None,
        },
        context: ActionContext {
            repo: Some(cwd.to_owned()),
            ..ActionContext::default()
        },
        reason: String::new(),
    };
    // Compiling the default policy costs far more than one input: do it once.
    static POLICY: std::sync::OnceLock<Policy> = std::sync::OnceLock::new();
    let policy = POLICY.get_or_init(Policy::default);
    let env = Environment::new(home);
    let Ok(first) = evaluate(policy, &request, &env) else {
        // Only an empty line or an oversized one is refused.
        let command = request.action.command.as_deref().unwrap_or_default();
        assert!(
            command.trim().is_empty() || command.len() > assent_core::canon::MAX_COMMAND_BYTES,
            "a command line that is neither empty nor too large must evaluate"
        );
        return;
    };
    assert!(
        !first.decision.rule.is_empty(),
        "every answer names its rule"
    );
    assert!(
        !first.decision.reasons.is_empty(),
        "every answer gives a reason"
    );
    assert_eq!(first.action_hash.len(), 64, "the hash is SHA-256 hex");
    let again = evaluate(policy, &request, &env).map(|e| e.action_hash);
    assert_eq!(
        again.as_deref(),
        Ok(first.action_hash.as_str()),
        "the same line hashes the same"
    );
    let json = serde_json::to_string(&first.canonical).unwrap_or_default();
    let back: Result<assent_core::CanonicalAction, _> = serde_json::from_str(&json);
    assert_eq!(
        back.as_ref().map(assent_core::action_hash).ok().as_deref(),
        Some(first.action_hash.as_str()),
        "the canonical action survives a JSON round trip with the same hash"
    );
}
