use assent_core::{ApprovalStatus, Decision, RiskLevel, Role, ScopeKind};

use super::*;
use crate::fixtures::approval;

fn keys(notice: &PromptNotice) -> Vec<&'static str> {
    notice.actions.iter().map(|action| action.key()).collect()
}

#[test]
fn summary_says_what_where_and_how_many_wait() {
    let mut prompt = approval("a1");
    prompt.count = 3;
    let notice = notice(&prompt, &[]).expect("a pending ask prompts");
    assert_eq!(
        notice.summary, "Allow maven-test for this run? · shop (3 waiting)",
        "the summary names the profile, the scope, the repo and the batch size"
    );
    prompt.count = 1;
    let single = super::notice(&prompt, &[]).expect("a pending ask prompts");
    assert_eq!(
        single.summary, "Allow maven-test for this run? · shop",
        "a single request shows no count"
    );
}

#[test]
fn body_is_concise_risk_top_reasons_and_command() {
    let notice = notice(&approval("a1"), &[]).expect("prompts");
    assert_eq!(
        notice.body, "Medium risk · runs the build tool · writes target/**\n$ mvn -q test",
        "the body holds the risk, the top two reasons and the command"
    );
}

#[test]
fn buttons_follow_the_offered_scopes() {
    let cases: [(&str, Vec<ScopeKind>, Vec<&str>); 3] = [
        (
            "run and once offered",
            vec![ScopeKind::Once, ScopeKind::Run],
            vec!["default", "allow-run", "allow-once", "deny"],
        ),
        (
            "only once offered",
            vec![ScopeKind::Once],
            vec!["default", "allow-once", "deny"],
        ),
        ("nothing offered", vec![], vec!["default", "deny"]),
    ];
    for (name, offered, want) in cases {
        let mut prompt = approval("a1");
        prompt.offered_scopes = offered;
        let notice = notice(&prompt, &[]).expect("prompts");
        assert_eq!(
            keys(&notice),
            want,
            "{name}: 'Allow for run' only where run is offered"
        );
    }
}

#[test]
fn open_only_cases_never_get_an_approve_button() {
    let mut escalation = approval("esc");
    escalation.decision = Decision::Escalate;
    escalation.required_role = Some(Role::SecurityReviewer);

    let mut long = approval("long");
    long.evidence.command_line = Some(format!("mvn test {}", "-Dx=y ".repeat(40)));

    let mut bidi = approval("bidi");
    bidi.evidence.command_line = Some("mvn test \u{202e}tset".to_owned());

    let mut zero_width = approval("zw");
    zero_width.evidence.command = Some(vec!["rm\u{200b}".to_owned(), "-rf".to_owned()]);
    zero_width.evidence.command_line = None;

    let mut control = approval("ctl");
    control.evidence.command_line = Some("echo hi\rrm -rf ~".to_owned());

    let mut flagged = approval("flag");
    flagged.evidence.suspicious_text = true;

    let cases = [
        (
            escalation,
            Some(OpenOnly::MissingRole(Role::SecurityReviewer)),
        ),
        (long, Some(OpenOnly::CommandTooLong)),
        (bidi, Some(OpenOnly::HiddenCharacters)),
        (zero_width, Some(OpenOnly::HiddenCharacters)),
        (control, Some(OpenOnly::HiddenCharacters)),
        (flagged, Some(OpenOnly::HiddenCharacters)),
    ];
    for (prompt, why) in cases {
        assert_eq!(
            open_only(&prompt, &[]),
            why,
            "{}: reason",
            prompt.approval_id
        );
        let notice = notice(&prompt, &[]).expect("still notified, to be opened");
        assert_eq!(
            keys(&notice),
            vec!["default"],
            "{}: only 'Open' may be offered",
            prompt.approval_id
        );
        assert!(
            notice.summary.starts_with("Review "),
            "{}: an open-only prompt does not ask to allow: {}",
            prompt.approval_id,
            notice.summary
        );
        assert!(
            !notice.body.contains("rm -rf") && !notice.body.contains('\u{202e}'),
            "{}: a hidden or over-long command is not shown in the body",
            prompt.approval_id
        );
    }
}

#[test]
fn an_escalation_for_a_role_the_user_holds_gets_buttons() {
    let mut escalation = approval("esc");
    escalation.decision = Decision::Escalate;
    escalation.required_role = Some(Role::RepoMaintainer);
    let notice = notice(&escalation, &[Role::RepoMaintainer]).expect("prompts");
    assert!(
        notice.actions.contains(&PromptAction::AllowOnce),
        "the holder of the required role may decide from the notification"
    );
}

#[test]
fn blocked_and_settled_never_prompt() {
    let mut blocked = approval("b");
    blocked.decision = Decision::Block;
    assert_eq!(
        notice(&blocked, &[]),
        None,
        "blocked actions never get a prompt"
    );
    let mut settled = approval("s");
    settled.status = ApprovalStatus::ApprovedForRun;
    assert_eq!(
        notice(&settled, &[]),
        None,
        "a settled prompt is not notified"
    );
}

#[test]
fn urgency_follows_risk() {
    let cases = [
        (RiskLevel::Low, Urgency::Low),
        (RiskLevel::Medium, Urgency::Normal),
        (RiskLevel::High, Urgency::Critical),
        (RiskLevel::Critical, Urgency::Critical),
    ];
    for (risk, want) in cases {
        let mut prompt = approval("u");
        prompt.risk = risk;
        assert_eq!(
            notice(&prompt, &[]).expect("prompts").urgency,
            want,
            "{risk:?}"
        );
    }
}

#[test]
fn hostile_agent_text_is_cleaned_in_summary_and_body() {
    let mut prompt = approval("h");
    prompt.profile = None;
    prompt.repo = Some("<a href='x'>shop</a>".to_owned());
    prompt.reasons = vec!["\x1b[31mred\x1b[0m & <img src=x>".to_owned()];
    prompt.evidence.command = Some(vec!["/usr/bin/curl".to_owned()]);
    prompt.evidence.command_line =
        Some("curl https://bob:pw@example.com -H 'Authorization: Bearer abcdefgh12345'".to_owned());
    let notice = notice(&prompt, &[]).expect("prompts");
    assert_eq!(
        notice.summary, "Allow curl for this run? · &lt;a href=&#39;x&#39;&gt;shop&lt;/a&gt;",
        "the program's base name is the subject and the repo is escaped"
    );
    assert_eq!(
        notice.body,
        "Medium risk · red &amp; &lt;img src=x&gt;\n$ curl https://bob:****@example.com -H &#39;Authorization: Bearer ****&#39;",
        "reasons lose ANSI and markup; the command's secrets are masked"
    );
}

#[test]
fn paths_are_listed_when_there_is_no_command() {
    let mut prompt = approval("p");
    prompt.evidence.command = None;
    prompt.evidence.command_line = None;
    prompt.evidence.paths = (1..=5).map(|n| format!("src/f{n}.rs")).collect();
    let notice = notice(&prompt, &[]).expect("prompts");
    assert!(
        notice
            .body
            .ends_with("paths: src/f1.rs, src/f2.rs, src/f3.rs (+2 more)"),
        "at most three paths and a count: {}",
        notice.body
    );
}

#[test]
fn a_path_leading_elsewhere_shows_where_it_really_leads() {
    let mut prompt = approval("p");
    prompt.evidence.command = None;
    prompt.evidence.command_line = None;
    prompt.evidence.paths = vec!["src/out/x".to_owned()];
    prompt.evidence.symlinks = vec!["src/out → /etc/<b>x</b>".to_owned()];
    let notice = notice(&prompt, &[]).expect("prompts");
    assert!(
        notice
            .body
            .ends_with("paths: src/out/x\nlinks: src/out → /etc/&lt;b&gt;x&lt;/b&gt;"),
        "the real target of a symlink is shown, escaped like any agent text: {}",
        notice.body
    );
}

#[test]
fn action_keys_round_trip() {
    for action in [
        PromptAction::Open,
        PromptAction::AllowForRun,
        PromptAction::AllowOnce,
        PromptAction::Deny,
    ] {
        assert_eq!(
            PromptAction::from_key(action.key()),
            Some(action),
            "{action:?}"
        );
    }
    assert_eq!(
        PromptAction::from_key("allow-all"),
        None,
        "unknown keys are ignored"
    );
}
