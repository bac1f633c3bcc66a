use crate::evidence::EvidenceDetail;
use crate::request::{Action, ActionContext, ActionRequest};
use crate::types::{ActionKind, ApprovalType, Decision, RequestedBy, Role, ScopeKind};
use crate::{evaluate, Environment, EvaluateError, Policy};

const POLICY: &str = r#"
[capabilities."registry.maven.readonly"]
source = "file:~/.m2/settings.xml"
inject_as = "MAVEN_SETTINGS"
ttl = "15m"
hosts = ["maven.internal.example.com"]
methods = ["GET", "HEAD"]

[capabilities."npm.publish"]
source = "env:NPM_PUBLISH_TOKEN"
inject_as = "NPM_TOKEN"
ttl = "1h"
methods = ["PUT"]
role = "platform_admin"
"#;

fn policy() -> Policy {
    Policy::from_toml(POLICY).unwrap()
}

fn request(kind: ActionKind, command: Option<&str>, scope: Option<&str>) -> ActionRequest {
    ActionRequest {
        run_id: "run-1".into(),
        task_id: "task".into(),
        requested_by: RequestedBy::Agent,
        idempotency_key: None,
        action: Action {
            kind,
            command: None,
            argv: command.map(|c| c.split(' ').map(str::to_owned).collect()),
            cwd: "/home/dev/shop".into(),
            paths: Vec::new(),
            network: Vec::new(),
            credential_scope: scope.map(str::to_owned),
            tool: None,
        },
        context: ActionContext {
            repo: Some("/home/dev/shop".into()),
            ..ActionContext::default()
        },
        reason: "compile needs private dependencies".into(),
    }
}

fn shell(line: &str) -> ActionRequest {
    let mut r = request(ActionKind::Shell, None, None);
    r.action.command = Some(line.to_owned());
    r
}

fn env() -> Environment {
    Environment::new("/home/dev")
}

#[test]
fn capabilities_are_read_with_their_fields() {
    let p = policy();
    let cap = p.capability("registry.maven.readonly").unwrap();
    assert_eq!(cap.ttl.0, 900, "15m is 900 seconds");
    assert_eq!(cap.source.kind(), "file", "the source's kind is kept");
    assert_eq!(
        p.capability("npm.publish").unwrap().role,
        Some(Role::PlatformAdmin),
        "the required role is read"
    );
    let again = Policy::from_toml(&p.to_toml()).unwrap();
    assert_eq!(
        again.capability("npm.publish"),
        p.capability("npm.publish"),
        "the effective policy prints capabilities so they read back the same"
    );
    assert_ne!(
        p.version(),
        Policy::default().version(),
        "declaring a capability changes the policy version"
    );
}

#[test]
fn bad_capabilities_are_refused_with_their_line() {
    let cases = [
        (
            "source = \"vault:x\"\ninject_as = \"A\"\nttl = \"1h\"",
            2,
            "must be env:NAME",
        ),
        (
            "source = \"file:rel/path\"\ninject_as = \"A\"\nttl = \"1h\"",
            2,
            "absolute path",
        ),
        (
            "source = \"env:T\"\ninject_as = \"A\"\nttl = \"1y\"",
            4,
            "ttl \"1y\"",
        ),
        (
            "source = \"env:T\"\ninject_as = \"A\"\nttl = \"30d\"",
            4,
            "1s to 7d",
        ),
        (
            "source = \"env:T\"\ninject_as = \"PATH\"\nttl = \"1h\"",
            1,
            "would change what the child runs",
        ),
        (
            "source = \"env:T\"\ninject_as = \"A B\"\nttl = \"1h\"",
            1,
            "environment variable name",
        ),
        (
            "source = \"env:T\"\ninject_as = \"A\"\nttl = \"1h\"\nmethods = [\"get\"]",
            1,
            "not an HTTP method",
        ),
        (
            "source = \"env:T\"\ninject_as = \"A\"\nttl = \"1h\"\nhosts = [\"https://x\"]",
            1,
            "host name",
        ),
        (
            "source = \"env:T\"\ninject_as = \"A\"\nttl = \"1h\"\nrole = \"boss\"",
            5,
            "unknown variant",
        ),
        (
            "source = \"env:T\"\ninject_as = \"A\"\nttl = \"1h\"\ntoken = \"x\"",
            5,
            "unknown field",
        ),
        (
            "source = \"keyring:maven/ci\"\ninject_as = \"A\"\nttl = \"1h\"",
            1,
            "Secret Service",
        ),
        (
            "inject_as = \"A\"\nttl = \"1h\"",
            1,
            "missing field `source`",
        ),
    ];
    for (body, line, message) in cases {
        let text = format!("# a policy\n[capabilities.\"reg.x\"]\n{body}\n");
        let err = Policy::from_toml(&text).unwrap_err();
        assert!(
            err.message.contains(message),
            "{body:?} must be refused saying {message:?}, got {err}"
        );
        assert_eq!(
            err.line,
            line + 1,
            "{body:?}: the error names the offending line ({err})"
        );
    }
}

#[test]
fn a_capability_exec_is_a_credential_approval_without_the_secret() {
    let p = policy();
    let r = request(
        ActionKind::Credential,
        Some("mvn -B test"),
        Some("registry.maven.readonly"),
    );
    let eval = evaluate(&p, &r, &env()).unwrap();
    assert_eq!(
        eval.decision.decision,
        Decision::Ask,
        "a capability is asked for"
    );
    assert_eq!(
        eval.decision.rule, "ask.capability",
        "the capability's rule fired"
    );
    assert_eq!(
        eval.decision.offered_scopes,
        vec![ScopeKind::Once, ScopeKind::Run],
        "once or for this run, nothing wider"
    );
    assert_eq!(
        eval.evidence.approval_type(),
        ApprovalType::Credential,
        "it is a credential approval"
    );
    let EvidenceDetail::Credential(packet) = &eval.evidence.detail else {
        panic!("a credential packet, got {:?}", eval.evidence.detail);
    };
    assert_eq!(packet.ttl_seconds, 900, "the packet shows the TTL");
    assert_eq!(packet.methods, ["GET", "HEAD"], "and the methods");
    assert_eq!(packet.run_id, "run-1", "and the run");
    assert_eq!(
        packet.reason, "compile needs private dependencies",
        "and why"
    );
    let json = serde_json::to_string(&eval.evidence).unwrap();
    assert!(
        !json.contains("settings.xml"),
        "the evidence never says where the secret is kept: {json}"
    );

    let escalated = request(
        ActionKind::Credential,
        Some("npm publish"),
        Some("npm.publish"),
    );
    let eval_publish = evaluate(&p, &escalated, &env()).unwrap();
    assert_eq!(
        (
            eval_publish.decision.decision,
            eval_publish.decision.required_role
        ),
        (Decision::Escalate, Some(Role::PlatformAdmin)),
        "a capability with a role escalates to it"
    );
    let other = request(
        ActionKind::Credential,
        Some("mvn -B test"),
        Some("npm.publish"),
    );
    let eval_other = evaluate(&p, &other, &env()).unwrap();
    assert_ne!(
        eval.batch_key, eval_other.batch_key,
        "the same command with another capability is another prompt and another grant"
    );
    assert_ne!(
        eval.action_hash, eval_other.action_hash,
        "and another action"
    );
}

#[test]
fn an_unknown_capability_is_an_error_naming_the_declared_ones() {
    let r = request(
        ActionKind::Credential,
        Some("mvn -B test"),
        Some("registry.mavne"),
    );
    match evaluate(&policy(), &r, &env()) {
        Err(EvaluateError::UnknownCapability(err)) => assert_eq!(
            err.to_string(),
            "unknown capability \"registry.mavne\": the policy declares npm.publish, registry.maven.readonly",
            "the error names what exists"
        ),
        other => panic!("an unknown capability must be refused, got {other:?}"),
    }
}

#[test]
fn a_dangerous_command_stays_blocked_with_a_capability() {
    let r = request(
        ActionKind::Credential,
        Some("rm -rf /"),
        Some("registry.maven.readonly"),
    );
    let eval = evaluate(&policy(), &r, &env()).unwrap();
    assert_eq!(
        eval.decision.decision,
        Decision::Block,
        "a capability never lifts a block"
    );
}

#[test]
fn reading_a_secret_source_is_blocked_naming_the_capability() {
    let p = policy();
    let reads = [
        shell("cat ~/.m2/settings.xml"),
        shell("grep password /home/dev/.m2/settings.xml"),
        shell("echo $NPM_PUBLISH_TOKEN"),
        shell("printenv NPM_PUBLISH_TOKEN"),
        shell("python3 -c \"import os; print(os.environ['NPM_PUBLISH_TOKEN'])\""),
        shell("env"),
        shell("printenv > /tmp/all"),
        shell("cat /proc/self/environ"),
        {
            let mut r = request(ActionKind::FileRead, None, None);
            r.action.paths = vec!["/home/dev/.m2/settings.xml".into()];
            r
        },
    ];
    for r in reads {
        let eval = evaluate(&p, &r, &env()).unwrap();
        assert_eq!(
            eval.decision.decision,
            Decision::Block,
            "{:?} reads a secret source",
            r.action
        );
        assert!(
            eval.decision
                .reasons
                .iter()
                .any(|why| why.contains("assent exec --capability")),
            "{:?}: the block says which capability to ask for: {:?}",
            r.action,
            eval.decision.reasons
        );
    }
    for fine in [
        "env FOO=1 cargo test",
        "echo $NPM_PUBLISH_TOKEN_FILE",
        "cat pom.xml",
    ] {
        let eval = evaluate(&p, &shell(fine), &env()).unwrap();
        assert_ne!(
            eval.decision.decision,
            Decision::Block,
            "{fine} reads no secret source"
        );
    }
}

#[test]
fn the_approved_command_may_use_its_own_capability_variable_but_no_other_secret() {
    let p = policy();
    // The command `assent exec --capability` runs gets the secret as $NPM_TOKEN and its
    // output is masked: using (even printing) that one variable is what it was approved for.
    let own = request(
        ActionKind::Credential,
        Some("echo \"token=$NPM_TOKEN\""),
        Some("npm.publish"),
    );
    let eval = evaluate(&p, &own, &env()).unwrap();
    assert_ne!(
        eval.decision.decision,
        Decision::Block,
        "the capability's own variable is the approved command's: {:?}",
        eval.decision.reasons
    );
    let other = request(
        ActionKind::Credential,
        Some("echo $GITHUB_TOKEN"),
        Some("npm.publish"),
    );
    assert_eq!(
        evaluate(&p, &other, &env()).unwrap().decision.decision,
        Decision::Block,
        "another secret in the environment stays out of reach under a capability"
    );
    assert_eq!(
        evaluate(&p, &shell("echo $NPM_TOKEN"), &env())
            .unwrap()
            .decision
            .decision,
        Decision::Block,
        "without the capability, printing the variable is a read of the secret"
    );
}
