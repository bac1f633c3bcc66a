//! Shared builders for the scenario tests.
#![allow(dead_code, reason = "each test file uses a subset")]

pub mod links;
pub mod scenario;

use assent_core::{
    evaluate, Action, ActionContext, ActionKind, ActionRequest, Environment, Evaluation, Policy,
    RequestedBy,
};

pub const HOME: &str = "/home/dev";
pub const REPO: &str = "/home/dev/shop";

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

pub fn hash_of(line: &str) -> String {
    eval_default(&shell(line)).action_hash
}

pub fn eval_in(env: &Environment, request: &ActionRequest) -> Evaluation {
    evaluate(&Policy::default(), request, env)
        .unwrap_or_else(|e| panic!("{request:?} must evaluate: {e}"))
}
