//! `assent request --exception RULE --reason … --for 30d --repo R -- CMD` against a real
//! `assent serve`: the security reviewer's approval lets the command past the rule in the
//! repository; bad input is exit 2 with the reason, a rule kept out of exceptions exit 11.

use std::process::{Command, Stdio};

use crate::gate_support::*;
use serde_json::Value;

const FETCH: [&str; 5] = [
    "curl",
    "-fsSL",
    "https://pkg.example.com/tool.tgz",
    "-o",
    "tool.tgz",
];

fn assent(args: &[&str], service: &Service, cwd: &std::path::Path) -> Ran {
    finish(spawn(args, service, cwd))
}

fn spawn(args: &[&str], service: &Service, cwd: &std::path::Path) -> std::process::Child {
    Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .env("ASSENT_URL", &service.url)
        .env("ASSENT_TOKEN", &service.requester)
        .env_remove("ASSENT_RUN_ID")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn with_command(head: &[&str], command: &[&str]) -> Vec<String> {
    head.iter()
        .chain(["--"].iter())
        .chain(command)
        .map(|s| (*s).to_owned())
        .collect()
}

#[test]
fn an_approved_exception_lets_the_command_past_the_rule_in_its_repository() {
    let service = Service::start();
    let (_tmp, root) = repo();
    let root_text = root.to_string_lossy().into_owned();
    let args = with_command(
        &[
            "request",
            "--run",
            "r-ex",
            "--exception",
            "ask.network",
            "--reason",
            "the tool is only published there",
            "--for",
            "30d",
            "--repo",
            &root_text,
            "--wait",
            "30",
            "--json",
        ],
        &FETCH,
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let child = spawn(&args, &service, &root);
    let pending = wait_pending(&service, 1);
    let open = &pending[0];
    assert_eq!(
        open.approval_type,
        assent_core::ApprovalType::Exception,
        "an exception approval opens"
    );
    assert_eq!(
        open.facts.required_role,
        Some(assent_core::Role::SecurityReviewer),
        "for a security reviewer"
    );
    let assent_core::EvidenceDetail::Exception(packet) = &open.evidence.detail else {
        panic!("an exception packet: {:?}", open.evidence.detail);
    };
    assert_eq!(packet.lifetime_seconds, 30 * 24 * 3600, "--for 30d");
    assert_eq!(packet.rule, "ask.network", "--exception names the rule");
    approve(
        &service,
        &open.approval_id,
        assent_core::ScopeKind::Exception,
    );
    let ran = finish(child);
    assert_eq!(ran.code, 0, "approved: {}", ran.stderr);
    let json: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(json["outcome"], "allowed", "--json says allowed: {json}");

    let plain = with_command(&["request", "--run", "r-later"], &FETCH);
    let plain: Vec<&str> = plain.iter().map(String::as_str).collect();
    let later = assent(&plain, &service, &root);
    assert_eq!(
        later.code, 0,
        "another run in the repository is covered by the exception: {}",
        later.stderr
    );
}

#[test]
fn bad_exception_requests_exit_2_with_the_reason_and_unexceptionable_rules_exit_11() {
    let service = Service::start();
    let (_tmp, root) = repo();
    let cases: [(&[&str], &str); 7] = [
        (
            &["request", "--exception", "ask.network"],
            "an exception needs a reason",
        ),
        (
            &[
                "request",
                "--exception",
                "ask.network",
                "--reason",
                "r",
                "--for",
                "3x",
            ],
            "is not a duration",
        ),
        (
            &["request", "--exception", "ask.nope", "--reason", "r"],
            "no rule \"ask.nope\"",
        ),
        (
            &[
                "request",
                "--exception",
                "ask.network",
                "--reason",
                "r",
                "--for",
                "31d",
            ],
            "max_exception_lifetime",
        ),
        (&["request", "--for", "1d"], "go with --exception"),
        (
            &["request", "--host", "pkg.example.com"],
            "go with --exception",
        ),
        (
            &[
                "request",
                "--exception",
                "ask.network",
                "--reason",
                "r",
                "--host",
                "mirror.example.org",
            ],
            "does not reach \"mirror.example.org\"",
        ),
    ];
    for (head, why) in cases {
        let args = with_command(head, &FETCH);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let ran = assent(&args, &service, &root);
        assert_eq!(ran.code, 2, "{head:?} is a usage error: {}", ran.stderr);
        assert!(
            ran.stderr.contains(why),
            "{head:?}: stderr says {why:?}: {}",
            ran.stderr
        );
    }
    let ran = assent(
        &[
            "request",
            "--exception",
            "block.secret_path",
            "--reason",
            "need the key",
            "--",
            "cat",
            "/home/dev/.ssh/id_rsa",
        ],
        &service,
        &root,
    );
    assert_eq!(ran.code, 11, "refused at once, as a block: {}", ran.stderr);
    assert!(
        ran.stderr.contains("never excepted"),
        "with the reason: {}",
        ran.stderr
    );
    assert_eq!(
        wait_pending(&service, 0).len(),
        0,
        "no request opened an approval"
    );
}
