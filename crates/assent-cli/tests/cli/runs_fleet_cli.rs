//! `assent run start` and `assent campaign …` against a real `assent serve` (SQLite): the
//! documented exit codes, a run blocked until its pre-run approval, a campaign approved by
//! two platform admins and stopped by its failure threshold.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::gate_support::*;

fn assent(args: &[&str], url: &str, token: &str) -> Ran {
    let child = spawn(args, url, token);
    finish(child)
}

fn spawn(args: &[&str], url: &str, token: &str) -> std::process::Child {
    Command::new(BIN)
        .args(args)
        .env("ASSENT_URL", url)
        .env("ASSENT_TOKEN", token)
        .env_remove("ASSENT_RUN_ID")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn add_person(data_dir: &Path, name: &str, role: &str) -> String {
    let ran = Command::new(BIN)
        .args(["people", "add", name, "--role", role, "--data-dir"])
        .arg(data_dir)
        .output()
        .unwrap();
    assert!(ran.status.success(), "{name} is added");
    String::from_utf8(ran.stdout).unwrap().trim().to_owned()
}

#[test]
fn a_run_waits_for_its_pre_run_approval() {
    let service = Service::start();
    let (url, agent) = (service.url.as_str(), service.requester.as_str());
    let waiting = spawn(
        &[
            "run",
            "start",
            "--run",
            "r1",
            "--task",
            "Upgrade Spring Boot",
            "--risk",
            "high",
            "--repos",
            "shop,billing",
            "--expected",
            "create draft PRs",
            "--remote-mutation",
            "PR creation only, no merge",
            "--wait",
            "60",
        ],
        url,
        agent,
    );
    let pending = wait_pending(&service, 1);
    assert_eq!(
        pending[0].approval_type,
        assent_core::ApprovalType::PreRun,
        "the start opened a pre_run approval"
    );
    let blocked = assent(
        &["request", "--run", "r1", "--wait", "1", "--", "ls"],
        url,
        agent,
    );
    assert_eq!(
        blocked.code, 11,
        "the run's actions are blocked: {}",
        blocked.stderr
    );
    assert!(
        blocked.stderr.contains("run awaiting pre-run approval"),
        "with the reason: {}",
        blocked.stderr
    );
    approve(
        &service,
        &pending[0].approval_id,
        assent_core::ScopeKind::Once,
    );
    let started = finish(waiting);
    assert_eq!(
        started.code, 0,
        "approval starts the run: {}",
        started.stderr
    );
    assert!(started.stdout.contains("started"), "{}", started.stdout);
    let allowed = assent(
        &["request", "--run", "r1", "--wait", "1", "--", "ls"],
        url,
        agent,
    );
    assert_eq!(
        allowed.code, 0,
        "then its actions are evaluated normally: {}",
        allowed.stderr
    );

    let denied = spawn(
        &[
            "run",
            "start",
            "--run",
            "r2",
            "--task",
            "rotate keys",
            "--risk",
            "critical",
            "--wait",
            "60",
        ],
        url,
        agent,
    );
    let pending = wait_pending(&service, 1);
    deny(&service, &pending[0].approval_id, "not today");
    let denied = finish(denied);
    assert_eq!(
        denied.code, 10,
        "a denied pre-run exits 10: {}",
        denied.stderr
    );
    assert!(
        denied.stderr.contains("not today"),
        "with the reason: {}",
        denied.stderr
    );

    let low = assent(
        &["run", "start", "--run", "r3", "--task", "fix a typo"],
        url,
        agent,
    );
    assert_eq!(low.code, 0, "a low-risk run starts at once: {}", low.stderr);
    assert!(
        low.stdout.contains("no pre-run approval needed"),
        "{}",
        low.stdout
    );
    let pending = assent(
        &[
            "run", "start", "--run", "r4", "--task", "migrate", "--risk", "high",
        ],
        url,
        agent,
    );
    assert_eq!(
        pending.code, 12,
        "without --wait a pending start exits 12: {}",
        pending.stdout
    );
    let bad = assent(
        &[
            "run", "start", "--run", "r5", "--task", "x", "--risk", "extreme",
        ],
        url,
        agent,
    );
    assert_eq!(bad.code, 2, "an unknown risk is a usage error");
}

const CAMPAIGN: &str = r#"name = "java21"
target_repos = ["svc-a", "svc-b", "svc-c", "legacy"]
selection_criteria = "services on Java 17"
excluded_repos = ["legacy"]
prompt_contract = "Move the build to Java 21."
verifier_profile = "maven-test"
sample_diff = "-17\n+21"
expected_pr_body = "Java 21"
cost_estimate = "40 agent-minutes per repository"

[stop]
failure_threshold = 2
"#;

#[test]
fn a_campaign_through_the_cli() {
    let service = Service::start();
    let (url, agent) = (service.url.as_str(), service.requester.as_str());
    let files = tempfile::tempdir().unwrap();
    let bad = files.path().join("bad.toml");
    std::fs::write(
        &bad,
        CAMPAIGN.replace("failure_threshold = 2", "failure_threshold = 0"),
    )
    .unwrap();
    let refused = assent(
        &["campaign", "create", "--file", bad.to_str().unwrap()],
        url,
        agent,
    );
    assert_eq!(refused.code, 2, "a bad file is a usage error");
    assert!(
        refused
            .stderr
            .contains("line 12, field `failure_threshold`")
            && refused.stderr.contains("nothing was created"),
        "the line and field are named: {}",
        refused.stderr
    );
    let rt = runtime();
    let desk = service.approver_client();
    assert!(
        rt.block_on(desk.campaigns()).unwrap().campaigns.is_empty(),
        "nothing was created"
    );

    let alice = add_person(&service.data_dir, "alice", "platform_admin");
    let bob = add_person(&service.data_dir, "bob", "platform_admin");
    let good = files.path().join("campaign.toml");
    std::fs::write(&good, CAMPAIGN).unwrap();
    let created = assent(
        &["campaign", "create", "--file", good.to_str().unwrap()],
        url,
        agent,
    );
    assert_eq!(created.code, 0, "{}", created.stderr);
    assert!(
        created.stdout.contains("its definition awaits approval"),
        "{}",
        created.stdout
    );
    let decide_by_two = |id: &str| {
        for token in [&alice, &bob] {
            let person = assent_client::Client::new(url, token).unwrap();
            let approve = assent_protocol::DecisionRequest::Approve {
                scope: assent_core::ScopeKind::Once,
                expires_in_seconds: 600,
                max_uses: None,
                reason: None,
                path_patterns: None,
            };
            rt.block_on(person.decide(id, &approve)).unwrap();
        }
    };
    decide_by_two(&wait_pending(&service, 1)[0].approval_id);

    let staged = assent(
        &["campaign", "stage", "--campaign", "java21", "--next", "2"],
        url,
        agent,
    );
    assert_eq!(staged.code, 0, "{}", staged.stderr);
    assert!(
        staged.stdout.contains("stage 1 [svc-a, svc-b]"),
        "{}",
        staged.stdout
    );
    decide_by_two(&wait_pending(&service, 1)[0].approval_id);

    let outside = assent(
        &[
            "run",
            "start",
            "--run",
            "c1",
            "--task",
            "java21",
            "--campaign",
            "java21",
            "--repo",
            "svc-c",
        ],
        url,
        agent,
    );
    assert_eq!(
        outside.code, 11,
        "a repo outside approved batches is blocked: {}",
        outside.stdout
    );
    let inside = assent(
        &[
            "run",
            "start",
            "--run",
            "a1",
            "--task",
            "java21",
            "--campaign",
            "java21",
            "--repo",
            "svc-a",
        ],
        url,
        agent,
    );
    assert_eq!(
        inside.code, 0,
        "an approved batch's repo starts: {}",
        inside.stdout
    );

    for repo in ["svc-a", "svc-b"] {
        let ran = assent(
            &[
                "campaign",
                "report",
                "--campaign",
                "java21",
                "--repo",
                repo,
                "--failed",
            ],
            url,
            agent,
        );
        assert_eq!(ran.code, 0, "{}", ran.stderr);
    }
    let more = assent(
        &["campaign", "stage", "--campaign", "java21", "--next", "1"],
        url,
        agent,
    );
    assert_eq!(
        more.code, 1,
        "a stopped campaign refuses stages: {}",
        more.stderr
    );
    assert!(more.stderr.contains("stopped"), "{}", more.stderr);
    let by_agent = assent(&["campaign", "resume", "java21"], url, agent);
    assert_eq!(
        by_agent.code, 1,
        "an agent cannot resume it: {}",
        by_agent.stderr
    );
    let resumed = assent(&["campaign", "resume", "java21"], url, &alice);
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    assert!(
        resumed.stdout.contains("java21: active"),
        "{}",
        resumed.stdout
    );
}
