//! Shared builders for the scenario tests.

pub mod links;
pub mod scenario;

use assent_core::hook::{action_from_claude_hook, HookDefaults};
use assent_core::{
    evaluate, Action, ActionContext, ActionKind, ActionRequest, ApprovalGrant, ApprovalType,
    CredentialPacket, DiffPacket, Environment, Evaluation, EvidenceDetail, ExceptionPacket,
    FleetPacket, GrantConstraints, Policy, PrPacket, PreRunPacket, RequestedBy, RiskLevel,
    ScopeKind,
};
use chrono::{DateTime, Duration, TimeZone, Utc};
use serde_json::{json, Value};

pub const HOME: &str = "/home/dev";
pub const REPO: &str = "/home/dev/shop";
/// The agent identity asking in the scenarios: grants are bound to it.
pub const AGENT: &str = "agent-1";

pub fn env() -> Environment {
    Environment::new(HOME)
}

pub fn action(kind: ActionKind) -> Action {
    Action {
        kind,
        command: None,
        argv: None,
        cwd: REPO.to_owned(),
        paths: Vec::new(),
        network: Vec::new(),
        credential_scope: None,
        tool: None,
    }
}

pub fn request(action: Action) -> ActionRequest {
    ActionRequest {
        run_id: "run-1".to_owned(),
        task_id: "task-1".to_owned(),
        requested_by: RequestedBy::Agent,
        idempotency_key: None,
        action,
        context: ActionContext {
            repo: Some(REPO.to_owned()),
            ..ActionContext::default()
        },
        reason: String::new(),
    }
}

pub fn shell(line: &str) -> ActionRequest {
    request(Action {
        command: Some(line.to_owned()),
        ..action(ActionKind::Shell)
    })
}

/// A PreToolUse payload for `tool`, run in the repository, as Claude Code and Codex send it.
pub fn hook_payload(tool: &str, input: Value) -> Value {
    json!({
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "session_id": "run-1",
        "cwd": REPO,
        "tool_input": input,
    })
}

/// What the gate knows beside a hook's payload: the repository.
pub fn hook_defaults() -> HookDefaults {
    HookDefaults {
        repo: Some(REPO.to_owned()),
        ..HookDefaults::default()
    }
}

/// A Claude Code tool call `tool` run in the repository.
pub fn claude_tool(tool: &str, input: Value) -> ActionRequest {
    action_from_claude_hook(&hook_payload(tool, input), &hook_defaults())
        .unwrap_or_else(|e| panic!("the {tool} payload must read: {e}"))
}

pub fn file(kind: ActionKind, path: &str) -> ActionRequest {
    request(Action {
        paths: vec![path.to_owned()],
        ..action(kind)
    })
}

pub fn eval(policy: &Policy, request: &ActionRequest) -> Evaluation {
    evaluate(policy, request, &env()).unwrap_or_else(|e| panic!("{request:?} must evaluate: {e}"))
}

pub fn eval_default(request: &ActionRequest) -> Evaluation {
    eval(&Policy::default(), request)
}

/// `e` made an approval of type `kind` the only way one is: its evidence carries a packet of
/// that type (an empty one; the type is all these tests look at).
pub fn as_type(e: &mut Evaluation, kind: ApprovalType) {
    e.evidence.detail = match kind {
        ApprovalType::Tool => EvidenceDetail::Tool,
        ApprovalType::Diff => EvidenceDetail::Diff(DiffPacket::default()),
        ApprovalType::Pr => EvidenceDetail::Pr(PrPacket::default()),
        ApprovalType::Credential => EvidenceDetail::Credential(CredentialPacket::default()),
        ApprovalType::Exception => EvidenceDetail::Exception(ExceptionPacket::default()),
        ApprovalType::PreRun => EvidenceDetail::PreRun(PreRunPacket {
            task: "upgrade the build".to_owned(),
            task_risk: RiskLevel::High,
            repos: Vec::new(),
            expected_actions: Vec::new(),
            expected_credentials: Vec::new(),
            remote_mutation: None,
            required_role: None,
            triggers: Vec::new(),
            campaign: None,
        }),
        ApprovalType::Fleet => EvidenceDetail::Fleet(FleetPacket {
            campaign: "c1".to_owned(),
            stage: None,
            target_repos: Vec::new(),
            batch: Vec::new(),
            selection_criteria: String::new(),
            excluded_repos: Vec::new(),
            prompt_contract: String::new(),
            risk: RiskLevel::High,
            verifier_profile: String::new(),
            stop_policy: String::new(),
            failure_threshold: 1,
            sample_diff: String::new(),
            expected_pr_body: String::new(),
            cost_estimate: String::new(),
            owner_notification: None,
            passed: 0,
            failed: 0,
        }),
    };
    assert_eq!(
        e.approval_type(),
        kind,
        "an evaluation's approval type is its evidence packet's"
    );
}

pub fn hash_of(line: &str) -> String {
    eval_default(&shell(line)).action_hash
}

pub fn eval_in(env: &Environment, request: &ActionRequest) -> Evaluation {
    evaluate(&Policy::default(), request, env)
        .unwrap_or_else(|e| panic!("{request:?} must evaluate: {e}"))
}

/// The scenarios' clock: every grant and decision is at or after it.
pub fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 1, 9, 0, 0).unwrap()
}

/// A grant of `scope` made at [`t0`] for an hour, for `req` as the default policy evaluates it.
pub fn grant_for(
    scope: ScopeKind,
    req: &ActionRequest,
    patterns: Option<&[String]>,
) -> ApprovalGrant {
    let e = eval_default(req);
    let constraints = GrantConstraints::for_scope(scope, req, &e, AGENT, patterns)
        .unwrap_or_else(|err| panic!("{scope:?} is granted for {req:?}: {err}"));
    ApprovalGrant {
        grant_id: format!("{scope:?}"),
        approval_id: "ap-1".into(),
        run_id: req.run_id.clone(),
        scope_kind: scope,
        action_kinds: vec![req.action.kind],
        constraints,
        created_at: t0(),
        expires_at: t0() + Duration::hours(1),
        max_uses: None,
        used_count: 0,
        created_by: "dev".into(),
        revocable: true,
        revoked_at: None,
        policy_version: e.policy_version,
        invalidated_at: None,
    }
}
