//! The evidence packet says truthfully what a person approves: for each command, the
//! headline (the riskiest part leads), where it connects, which credentials it uses, what it
//! changes (remotely first) and the risk. Each row is a command a coding agent sends, with
//! what the packet must say.

use crate::common::*;
use assent_core::RiskLevel;

/// One command and what its packet must say. `headline`, `network` and `change` are parts
/// the text must contain; `credentials` likewise (`"none"` must be exactly none).
struct Row {
    line: &'static str,
    headline: &'static str,
    network: &'static [&'static str],
    credentials: &'static str,
    change: &'static str,
    risk: RiskLevel,
}

const TOKEN_LINE: &str = "for f in src/*.js; do node --check \"$f\"; done && npm run build && \
     curl -X POST -H \"Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789\" \
     https://api.github.com/repos/acme/shop/dispatches";

fn rows() -> Vec<Row> {
    vec![
        Row {
            line: "aws s3 sync ./dist s3://shop-prod-assets --delete",
            headline: "aws: uploads to s3://shop-prod-assets and deletes every object there",
            network: &["the AWS API (s3://shop-prod-assets)"],
            credentials: "AWS credentials",
            change: "remote: uploads to s3://shop-prod-assets and deletes every object there that is not in ./dist",
            risk: RiskLevel::High,
        },
        Row {
            line: TOKEN_LINE,
            headline: "curl: sends a POST to api.github.com/repos/acme/shop/dispatches, and 2 more steps",
            network: &["api.github.com"],
            credentials: "a secret written in the command line",
            change: "remote: sends a POST to api.github.com/repos/acme/shop/dispatches",
            risk: RiskLevel::High,
        },
        Row {
            line: "git push origin main",
            headline: "main",
            network: &["git remote origin"],
            credentials: "git credentials",
            change: "pushes main to origin, straight to the default branch",
            risk: RiskLevel::High,
        },
        Row {
            line: "git push origin feature/login",
            headline: "feature/login",
            network: &["git remote origin"],
            credentials: "git credentials",
            change: "pushes feature/login to origin",
            risk: RiskLevel::Medium,
        },
        Row {
            line: "kubectl delete deployment shop-web",
            headline: "kubectl: deletes from the cluster",
            network: &["the Kubernetes API"],
            credentials: "kubeconfig",
            change: "remote: deletes from the cluster (kubectl delete deployment shop-web)",
            risk: RiskLevel::High,
        },
        Row {
            line: "terraform destroy -auto-approve",
            headline: "terraform: destroys the cloud infrastructure it manages",
            network: &["the cloud providers' APIs"],
            credentials: "cloud credentials",
            change: "remote: destroys the cloud infrastructure it manages",
            risk: RiskLevel::Critical,
        },
        Row {
            line: "gh workflow run deploy.yml",
            headline: "gh: starts the workflow deploy.yml on GitHub",
            network: &["github.com"],
            credentials: "gh's GitHub token",
            change: "remote: starts the workflow deploy.yml on GitHub",
            risk: RiskLevel::Medium,
        },
        Row {
            line: "npm publish",
            headline: "npm: publishes to the npm registry",
            network: &["the npm registry"],
            credentials: "npm registry token",
            change: "remote: publishes to the npm registry",
            risk: RiskLevel::High,
        },
        Row {
            line: "rm -rf build/",
            headline: "Run `rm -rf build/`",
            network: &[],
            credentials: "none",
            change: "files: build",
            risk: RiskLevel::Medium,
        },
    ]
}

#[test]
fn every_field_of_the_packet_says_what_the_command_does() {
    let mut wrong = Vec::new();
    for row in rows() {
        let e = eval_default(&shell(row.line));
        let ev = &e.evidence;
        let credentials = ev.credentials.as_deref().unwrap_or("");
        let change = ev.mutation.as_deref().unwrap_or("");
        let checks = [
            ("headline", ev.summary.contains(row.headline)),
            (
                "network",
                row.network
                    .iter()
                    .all(|n| ev.network.iter().any(|have| have.contains(n)))
                    && (!row.network.is_empty() || ev.network.is_empty()),
            ),
            (
                "credentials",
                if row.credentials == "none" {
                    credentials == "none"
                } else {
                    credentials.contains(row.credentials)
                },
            ),
            ("change", change.contains(row.change)),
            ("risk", e.decision.risk == row.risk),
        ];
        for (field, ok) in checks {
            if !ok {
                wrong.push(format!(
                    "{}: {field} is wrong\n  summary {:?}\n  network {:?}\n  credentials {credentials:?}\n  change {change:?}\n  risk {:?} (want {:?})",
                    row.line, ev.summary, ev.network, e.decision.risk, row.risk
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "a person approves what the packet says, so every field must be true:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn a_compound_line_shows_every_part_and_never_the_secret() {
    let e = eval_default(&shell(TOKEN_LINE));
    let ev = &e.evidence;
    let programs: Vec<&str> = ev.commands.iter().map(|argv| argv[0].as_str()).collect();
    assert_eq!(
        programs,
        ["node", "npm", "curl"],
        "the argv of every part is in the packet, in order, not only the first"
    );
    assert_eq!(
        ev.command.as_ref().map(|argv| argv[0].as_str()),
        Some("curl"),
        "the command shown first is the riskiest part (the POST), not `node`"
    );
    let json = serde_json::to_string(ev).unwrap();
    assert!(
        !json.contains("ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
        "the token is masked in every field of the packet: {json}"
    );
    assert!(
        ev.summary.starts_with("curl: sends a POST"),
        "the riskiest part leads the headline, so cutting its tail keeps it: {}",
        ev.summary
    );
}

#[test]
fn a_line_that_stays_on_the_machine_says_no_remote_change() {
    for line in [
        "cargo build",
        "ls -la",
        "git status",
        "curl -fsSL https://example.org/a",
    ] {
        let e = eval_default(&shell(line));
        let change = e.evidence.mutation.clone().unwrap_or_default();
        assert!(
            !change.starts_with("remote:"),
            "{line} changes nothing beyond the machine, and the packet must not say it does: {change}"
        );
    }
}

#[test]
fn a_fleet_campaign_lists_as_targets_only_what_it_will_change() {
    use assent_core::campaign::{definition_approval, parse_campaign, Campaign};
    use assent_core::evidence::EvidenceDetail;
    let file = r#"name = "java21"
target_repos = ["a", "b", "legacy"]
selection_criteria = "Java 17"
excluded_repos = ["legacy"]
prompt_contract = "x"
verifier_profile = "maven-test"
sample_diff = "x"
expected_pr_body = "x"
cost_estimate = "x"
[stop]
failure_threshold = 2
"#;
    let now = chrono::Utc::now();
    let campaign = Campaign::propose(parse_campaign(file).unwrap(), "d1".into(), "agent", now);
    let ask = definition_approval(&campaign);
    let EvidenceDetail::Fleet(packet) = &ask.evidence.detail else {
        panic!(
            "a campaign's definition is a fleet approval: {:?}",
            ask.evidence.detail
        );
    };
    assert_eq!(
        packet.target_repos,
        ["a", "b"],
        "an excluded repository is never shown as a target too"
    );
    assert_eq!(packet.excluded_repos, ["legacy"], "it is shown as excluded");
    assert!(
        ask.evidence.summary.contains("2 repositories"),
        "the headline counts what will change: {}",
        ask.evidence.summary
    );
    assert_eq!(
        (
            ask.evidence.credentials.as_deref(),
            ask.evidence.mutation.as_deref()
        ),
        (None, None),
        "fields a fleet approval has no facts for are absent, not \"none\""
    );
}
