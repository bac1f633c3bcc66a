use assent_core::{ApprovalStatus, Decision, IdentityKind, RiskLevel, Role, ScopeKind};
use assent_protocol::ApprovalVote;

use super::*;
use crate::fixtures::{approval, at, owner, person};

fn keys(notice: &PromptNotice) -> Vec<&'static str> {
    notice.actions.iter().map(|action| action.key()).collect()
}

#[test]
fn summary_says_what_where_and_how_many_wait() {
    let mut prompt = approval("a1");
    prompt.count = 3;
    let notice = notice(&prompt, Some(&owner())).expect("a pending ask prompts");
    assert_eq!(
        notice.summary, "Allow maven-test for this run? · shop (3 waiting)",
        "the summary names the profile, the scope, the repo and the batch size"
    );
    prompt.count = 1;
    let single = super::notice(&prompt, Some(&owner())).expect("a pending ask prompts");
    assert_eq!(
        single.summary, "Allow maven-test for this run? · shop",
        "a single request shows no count"
    );
}

#[test]
fn body_is_concise_risk_top_reasons_and_command() {
    let notice = notice(&approval("a1"), Some(&owner())).expect("prompts");
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
            vec!["default", "allow-once", "allow-run", "deny"],
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
        prompt.facts.offered_scopes = offered;
        let notice = notice(&prompt, Some(&owner())).expect("prompts");
        assert_eq!(
            keys(&notice),
            want,
            "{name}: narrowest first; 'Allow for this run' only where run is offered"
        );
    }
}

#[test]
fn open_only_cases_never_get_an_approve_button() {
    let mut escalation = approval("esc");
    escalation.facts.decision = Decision::Escalate;
    escalation.facts.required_role = Some(Role::SecurityReviewer);

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
    // A maintainer: the escalation needs a role they lack; the rest they could decide.
    let alice = person("alice", &[Role::RepoMaintainer]);
    for (prompt, why) in cases {
        assert_eq!(
            open_only(&prompt, Some(&alice)),
            why,
            "{}: reason",
            prompt.approval_id
        );
        let notice = notice(&prompt, Some(&alice)).expect("still notified, to be opened");
        let want = if why == Some(OpenOnly::MissingRole(Role::SecurityReviewer)) {
            vec!["default"]
        } else {
            vec!["default", "deny"]
        };
        assert_eq!(
            keys(&notice),
            want,
            "{}: no Allow; Deny only where alice may decide (the service takes her denial)",
            prompt.approval_id
        );
        assert!(
            notice.summary.starts_with("Review: "),
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

/// Who may decide, from the service's `/v1/me` answer: one row per scenario, with the
/// reason the notification gives (or `None`: it offers the decision buttons).
#[test]
fn who_may_decide_comes_from_the_service_answer() {
    let escalation = |role: Role| {
        let mut prompt = approval("esc");
        prompt.facts.decision = Decision::Escalate;
        prompt.facts.required_role = Some(role);
        prompt
    };
    let vote = |by: &str| ApprovalVote {
        by: by.to_owned(),
        role: Role::PlatformAdmin,
        at: at(1),
    };
    let two_needed = |votes: Vec<ApprovalVote>| {
        let mut prompt = escalation(Role::PlatformAdmin);
        prompt.required_approvals = 2;
        prompt.approvals = votes;
        prompt
    };
    let mut own = approval("own");
    own.requester = "alice".to_owned();
    let agent = Me {
        name: "ci".to_owned(),
        kind: IdentityKind::Agent,
        roles: Vec::new(),
    };
    let alice = person("alice", &[Role::RepoMaintainer]);
    let admin = person("alice", &[Role::PlatformAdmin]);
    let cases: [(&str, Approval, Option<&Me>, Option<OpenOnly>); 10] = [
        (
            "the owner (every role) decides a plain ask",
            approval("a"),
            Some(&owner()),
            None,
        ),
        (
            "a maintainer decides an escalation needing repo_maintainer",
            escalation(Role::RepoMaintainer),
            Some(&alice),
            None,
        ),
        (
            "a maintainer cannot decide an escalation needing platform_admin",
            escalation(Role::PlatformAdmin),
            Some(&alice),
            Some(OpenOnly::MissingRole(Role::PlatformAdmin)),
        ),
        (
            "a person with no role decides nothing, not even a plain ask",
            approval("a"),
            Some(&person("bob", &[])),
            Some(OpenOnly::NoRole),
        ),
        (
            "the person who requested the action never decides it, whatever their roles",
            own,
            Some(&admin),
            Some(OpenOnly::OwnRequest),
        ),
        (
            "an agent's token never decides",
            approval("a"),
            Some(&agent),
            Some(OpenOnly::NotAPerson),
        ),
        (
            "before the service said who is signed in, nothing is offered",
            approval("a"),
            None,
            Some(OpenOnly::WhoUnknown),
        ),
        (
            "who approved already waits for the others",
            two_needed(vec![vote("alice")]),
            Some(&admin),
            Some(OpenOnly::AlreadyApproved { missing: 1 }),
        ),
        (
            "a second admin may add their approval",
            two_needed(vec![vote("carol")]),
            Some(&admin),
            None,
        ),
        (
            "settings no longer matter: roles are the service's, so the owner decides escalations",
            escalation(Role::SecurityReviewer),
            Some(&owner()),
            None,
        ),
    ];
    for (scenario, prompt, me, want) in cases {
        assert_eq!(open_only(&prompt, me), want, "{scenario}");
        let notice = notice(&prompt, me).expect("a pending prompt is always notified");
        let decidable = notice.actions.contains(&PromptAction::Deny);
        assert_eq!(
            decidable,
            want.is_none(),
            "{scenario}: decision buttons only for who the service would let decide"
        );
        if let Some(why) = want {
            assert!(
                notice.body.ends_with(&open_only_line(why)),
                "{scenario}: the body says why: {}",
                notice.body
            );
        }
    }
}

#[test]
fn the_open_only_reason_reads_for_people() {
    assert_eq!(
        open_only_line(OpenOnly::MissingRole(Role::PlatformAdmin)),
        "Needs the platform admin role — open Assent to review.",
        "the missing role is named"
    );
    assert_eq!(
        open_only_line(OpenOnly::AlreadyApproved { missing: 1 }),
        "You approved; waiting for 1 more.",
        "a threshold says how many more"
    );
}

#[test]
fn a_refused_click_says_what_and_why_in_the_service_words() {
    let prompt = approval("a");
    let refused = refused_notice(
        Some(&prompt),
        PromptAction::AllowOnce,
        "this approval needs the <b>platform_admin</b> role, which alice does not hold",
    );
    assert_eq!(
        refused.summary, "Allow once failed: maven-test · shop",
        "the summary names the button and the prompt"
    );
    assert_eq!(
        refused.body,
        "this approval needs the &lt;b&gt;platform_admin&lt;/b&gt; role, which alice does not hold",
        "the body is the service's message, escaped like any text"
    );
    assert!(refused.actions.is_empty(), "nothing to click on a refusal");
    assert_eq!(
        refused_notice(None, PromptAction::Deny, "gone").summary,
        "Deny failed: a prompt",
        "a prompt already gone is still named"
    );
}

#[test]
fn blocked_and_settled_never_prompt() {
    let mut blocked = approval("b");
    blocked.facts.decision = Decision::Block;
    assert_eq!(
        notice(&blocked, Some(&owner())),
        None,
        "blocked actions never get a prompt"
    );
    let mut settled = approval("s");
    settled.status = ApprovalStatus::ApprovedForRun;
    assert_eq!(
        notice(&settled, Some(&owner())),
        None,
        "a settled prompt is not notified"
    );
}

/// Urgency follows the risk, but a prompt an agent is blocked on is never low: normal, and
/// critical for high risk. Only a low prompt nobody waits on any more is low.
#[test]
fn urgency_follows_risk_and_never_hides_a_prompt_an_agent_waits_on() {
    // risk, agents waiting, stopped waiting, urgency
    let cases = [
        (RiskLevel::Low, 1, false, Urgency::Normal),
        (RiskLevel::Low, 0, false, Urgency::Normal),
        (RiskLevel::Low, 0, true, Urgency::Low),
        (RiskLevel::Medium, 1, false, Urgency::Normal),
        (RiskLevel::Medium, 0, true, Urgency::Normal),
        (RiskLevel::High, 1, false, Urgency::Critical),
        (RiskLevel::Critical, 0, true, Urgency::Critical),
    ];
    for (risk, waiting, stopped, want) in cases {
        let mut prompt = approval("u");
        prompt.facts.risk = risk;
        prompt.quick_up_to = RiskLevel::Critical;
        prompt.agents_waiting = waiting;
        prompt.agents_stopped_waiting_at = stopped.then(|| at(5));
        assert_eq!(
            notice(&prompt, Some(&owner())).expect("prompts").urgency,
            want,
            "{risk:?}, {waiting} waiting, stopped: {stopped} (a fresh prompt counts as waited on)"
        );
        assert_eq!(
            why_notice(&prompt, &[]).urgency,
            want,
            "{risk:?}: the why-deny notification is as urgent as its prompt"
        );
    }
}

#[test]
fn hostile_agent_text_is_cleaned_in_summary_and_body() {
    let mut prompt = approval("h");
    prompt.facts.profile = None;
    // The place is the repository path's last part: markup without a `/` in it.
    prompt.repo = Some("<img src='x'>shop".to_owned());
    prompt.facts.reasons = vec!["\x1b[31mred\x1b[0m & <img src=x>".to_owned()];
    prompt.evidence.command = Some(vec!["/usr/bin/curl".to_owned()]);
    prompt.evidence.summary =
        "Run `curl https://bob:pw@example.com` in <img src='x'>shop".to_owned();
    prompt.evidence.command_line =
        Some("curl https://bob:pw@example.com -H 'Authorization: Bearer abcdefgh12345'".to_owned());
    let notice = notice(&prompt, Some(&owner())).expect("prompts");
    assert_eq!(
        notice.summary, "Run curl https://bob:****@example.com? · &lt;img src=&#39;x&#39;&gt;shop",
        "the action is the subject, its secret masked, and the repo is escaped"
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
    let notice = notice(&prompt, Some(&owner())).expect("prompts");
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
    let notice = notice(&prompt, Some(&owner())).expect("prompts");
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

#[test]
fn a_credential_prompt_names_the_capability_and_its_ttl_on_one_line() {
    let mut prompt = approval("a1");
    prompt.facts.profile = None;
    prompt.approval_type = assent_core::ApprovalType::Credential;
    prompt.evidence.detail =
        assent_core::EvidenceDetail::Credential(assent_core::CredentialPacket {
            capability: "registry.maven.readonly".into(),
            ttl_seconds: 900,
            ..assent_core::CredentialPacket::default()
        });
    let notice = notice(&prompt, Some(&owner())).expect("a credential ask prompts");
    assert_eq!(
        notice.summary, "Grant registry.maven.readonly (15 min)? · shop",
        "the summary names the capability, its TTL and the repo"
    );
    assert!(!notice.summary.contains('\n'), "and fits one line");
}

/// High and critical prompts are decided in the window, never by one click on a
/// notification; the policy's `[desk] quick_up_to` moves that line either way.
#[test]
fn friction_grows_with_the_risk() {
    let at_risk = |risk: RiskLevel, quick_up_to: RiskLevel| {
        let mut prompt = approval("risky");
        prompt.facts.risk = risk;
        prompt.quick_up_to = quick_up_to;
        notice(&prompt, Some(&owner())).expect("still notified, to be opened")
    };
    for risk in [RiskLevel::Low, RiskLevel::Medium] {
        assert_eq!(
            keys(&at_risk(risk, RiskLevel::Medium)),
            vec!["default", "allow-once", "allow-run", "deny"],
            "{risk:?} keeps its quick buttons under the default line"
        );
    }
    for risk in [RiskLevel::High, RiskLevel::Critical] {
        let shown = at_risk(risk, RiskLevel::Medium);
        assert_eq!(
            keys(&shown),
            vec!["default", "deny"],
            "{risk:?}: no one-click Allow, but Deny (it asks why) stays"
        );
        assert!(
            shown.summary.starts_with("Review: Run maven-test · "),
            "{risk:?}: the summary names the action and does not ask to allow: {}",
            shown.summary
        );
        assert!(
            shown
                .body
                .ends_with("no one-click approval — open Assent to review and confirm."),
            "{risk:?}: the body says why there is no button: {}",
            shown.body
        );
    }
    assert_eq!(
        keys(&at_risk(RiskLevel::Medium, RiskLevel::Low)),
        vec!["default", "deny"],
        "quick_up_to = low makes a medium prompt deliberate too"
    );
    assert_eq!(
        keys(&at_risk(RiskLevel::High, RiskLevel::High)),
        vec!["default", "allow-once", "allow-run", "deny"],
        "quick_up_to = high lets a high prompt be approved in one act"
    );
}

#[test]
fn deny_asks_why_with_the_persons_first_reasons_and_a_plain_deny() {
    let mut prompt = approval("w");
    prompt.facts.profile = None;
    prompt.evidence.summary = "Run `npm install left-pad` in shop".to_owned();
    prompt.evidence.command = Some(vec!["npm".into(), "install".into(), "left-pad".into()]);
    let reasons = [
        "use the staging environment".to_owned(),
        "<b>out</b> of scope".to_owned(),
        "ask me first".to_owned(),
    ];
    let why = why_notice(&prompt, &reasons);
    assert_eq!(
        why.summary, "Why deny? Install left-pad with npm · shop",
        "the question names the action being denied and where"
    );
    assert_eq!(
        keys(&why),
        vec!["default", "deny-reason-1", "deny-reason-2", "deny-plain"],
        "two reasons and a plain deny: three buttons, what GNOME and KDE show; the body opens"
    );
    let labels: Vec<&str> = why.actions.iter().map(|a| why.label(*a)).collect();
    assert_eq!(
        labels,
        vec![
            "Open",
            "Use the staging environment",
            "&lt;b&gt;out&lt;/b&gt; of scope",
            "Just deny"
        ],
        "each reason button shows its reason, escaped like any text a notification renders"
    );
    assert!(
        why.body.contains("the agent is told") || why.body.contains("The agent is told"),
        "the body says what the pick is for: {}",
        why.body
    );
    for action in &why.actions {
        assert_eq!(
            PromptAction::from_key(action.key()),
            Some(*action),
            "the key sent comes back as the same button"
        );
    }
}

#[test]
fn a_prompts_deny_button_says_it_asks_why() {
    let notice = notice(&approval("a1"), Some(&owner())).expect("prompts");
    assert_eq!(
        notice.label(PromptAction::Deny),
        "Deny…",
        "the ellipsis says a choice follows (the reason), as menus do"
    );
    assert_eq!(
        refused_notice(None, PromptAction::DenyWith(0), "gone").summary,
        "Deny failed: a prompt",
        "a refused reason button is named by what it does"
    );
}

/// Under the policy's `[approvals] step_up`, the service refuses the desk's credential for
/// the prompt: the notification offers no approve button and says a passkey confirms it in
/// the browser (its press opens the page the service named).
#[test]
fn a_prompt_held_for_a_passkey_sends_the_person_to_the_browser() {
    let mut prompt = approval("stepped");
    prompt.facts.risk = RiskLevel::High;
    prompt.quick_up_to = RiskLevel::High;
    prompt.step_up_url = Some("http://localhost:7391/desk/#/pending/stepped".to_owned());
    let shown = notice(&prompt, Some(&owner())).expect("still notified, to be confirmed");
    assert_eq!(
        keys(&shown),
        vec!["default", "deny"],
        "no Allow button: the service would refuse it without a passkey; a denial needs none"
    );
    assert!(
        shown
            .body
            .ends_with("Needs your passkey: click to confirm it in the browser's desk."),
        "the body says where the approval is made, before anyone presses: {}",
        shown.body
    );
    prompt.step_up_url = None;
    assert_eq!(
        keys(&notice(&prompt, Some(&owner())).expect("notified")),
        vec!["default", "allow-once", "allow-run", "deny"],
        "without step-up the same prompt keeps its buttons (quick_up_to = high)"
    );
}

#[test]
fn the_evidence_is_the_action_whole_and_true() {
    // A `sh -c` line sent as argv (old rows carry no command line): quoted, never joined bare.
    let mut compound = approval("sh");
    compound.facts.profile = None;
    compound.repo = Some("/tmp/tour/src/shop".to_owned());
    compound.evidence.command_line = None;
    compound.evidence.command = Some(vec![
        "sh".to_owned(),
        "-c".to_owned(),
        "ls -la; rm -rf ../../.config".to_owned(),
    ]);
    compound.evidence.steps = vec![
        assent_core::CommandStep {
            line: "rm -rf ../../.config".to_owned(),
            effect: Some("deletes ../../.config and everything under it".to_owned()),
        },
        assent_core::CommandStep {
            line: "ls -la".to_owned(),
            effect: None,
        },
    ];
    let notice = notice(&compound, Some(&owner())).expect("prompts");
    assert!(
        notice
            .body
            .contains("$ sh -c &#39;ls -la; rm -rf ../../.config&#39;"),
        "the body shows the whole line quoted as the shell reads it: {}",
        notice.body
    );
    assert!(
        notice.body.contains(
            "riskiest of 2 steps: rm -rf ../../.config — deletes ../../.config and everything under it"
        ),
        "and names the riskiest step, whatever its place in the line: {}",
        notice.body
    );
    assert!(
        notice.summary.ends_with(" · shop"),
        "the title names the repository, not its path: {}",
        notice.summary
    );

    // A place-less prompt (a fleet campaign's cwd is `/`): no dangling `·`.
    let mut fleet = approval("fleet");
    fleet.repo = None;
    fleet.evidence.cwd = "/".to_owned();
    let notice = super::notice(&fleet, Some(&owner())).expect("prompts");
    assert!(
        !notice.summary.contains('·'),
        "nothing to name, no separator left hanging: {}",
        notice.summary
    );
}

#[test]
fn a_push_is_named_as_a_push_with_force_and_its_commits() {
    let mut push = approval("push");
    push.facts.profile = None;
    push.approval_type = assent_core::ApprovalType::Pr;
    push.facts.risk = RiskLevel::High;
    push.evidence.summary =
        "Force-push main (the default branch) to origin: 2 commits · shop".to_owned();
    push.evidence.detail = assent_core::EvidenceDetail::Pr(assent_core::PrPacket {
        remote: Some("origin".to_owned()),
        branch: Some("main".to_owned()),
        push: Some(assent_core::PushPacket {
            force: true,
            to_default_branch: true,
            commits: Some(assent_core::PushedCommits {
                branch: Some("main".to_owned()),
                against: "origin/main".to_owned(),
                count: 2,
                commits: vec![
                    assent_core::PushedCommit {
                        sha: "0123456789ab".to_owned(),
                        subject: "fix the cart total".to_owned(),
                    },
                    assent_core::PushedCommit {
                        sha: "89abcdef0123".to_owned(),
                        subject: "add the checkout page".to_owned(),
                    },
                ],
                diffstat: Some("2 files changed, 4 insertions(+)".to_owned()),
                overwritten: Some(3),
            }),
            unknown: None,
        }),
        ..assent_core::PrPacket::default()
    });
    let notice = notice(&push, Some(&owner())).expect("prompts");
    assert!(
        notice
            .summary
            .contains("Force-push main (the default branch) to origin")
            && !notice.summary.contains("pull request"),
        "a push is named as a push, with force and the branch: {}",
        notice.summary
    );
    for line in [
        "force push: drops 3 commits origin/main has",
        "2 commits: fix the cart total; add the checkout page",
        "2 files changed, 4 insertions(+)",
    ] {
        assert!(
            notice.body.contains(line),
            "the body lists what the push sends ({line}): {}",
            notice.body
        );
    }
}

#[test]
fn the_reviewers_rationale_is_one_escaped_masked_line() {
    let review = assent_protocol::ApprovalReview {
        model: "qwen3:8b".to_owned(),
        outcome: Some("approve".to_owned()),
        risk: Some(RiskLevel::Low),
        rationale: "<b>safe</b>\nrun it with Authorization: Bearer abcdefgh12345".to_owned(),
        state: assent_protocol::ReviewState::Advised,
        reviewer_unavailable: false,
    };
    let line = review_line(&review);
    assert!(
        line.starts_with("Reviewer (qwen3:8b): would approve — "),
        "named as the model's opinion: {line}"
    );
    assert!(
        !line.contains('\n'),
        "one line: the model's text cannot add lines to the body: {line}"
    );
    assert!(
        !line.contains("<b>"),
        "markup in the model's text is escaped, never rendered: {line}"
    );
    assert!(
        !line.contains("abcdefgh12345"),
        "a secret in the model's text is masked like the agent's: {line}"
    );
    let long = assent_protocol::ApprovalReview {
        rationale: "x".repeat(500),
        ..review
    };
    assert!(
        review_line(&long).chars().count() <= MAX_REVIEW_CHARS,
        "cut short: one concise line"
    );
}

#[test]
fn a_reviewing_prompt_raises_no_notice_and_an_advised_one_does() {
    let mut prompt = approval("a1");
    prompt.review = Some(assent_protocol::ApprovalReview {
        model: "m".to_owned(),
        outcome: None,
        risk: None,
        rationale: "reviewing".to_owned(),
        state: assent_protocol::ReviewState::Reviewing,
        reviewer_unavailable: false,
    });
    assert!(
        notice(&prompt, Some(&owner())).is_none(),
        "the model may approve it alone: nobody is asked yet"
    );
    if let Some(r) = prompt.review.as_mut() {
        r.state = assent_protocol::ReviewState::Advised;
        r.outcome = Some("approve".to_owned());
    }
    assert!(
        notice(&prompt, Some(&owner())).is_some(),
        "its opinion given, the person decides: notified"
    );
}
