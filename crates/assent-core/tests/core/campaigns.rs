//! A fleet campaign's rules, step by step (a scenario table: each step and the state after
//! it), and the policy's `[pre_run]` / `[fleet]` sections.

use assent_core::campaign::{
    parse_campaign, Campaign, CampaignRefusal, CampaignStatus, OutcomeResult, StageStatus,
};
use assent_core::{Policy, RiskLevel, Role};
use chrono::{TimeZone, Utc};

const FILE: &str = r#"name = "java21"
target_repos = ["a", "b", "c", "d", "legacy"]
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

enum Step {
    Definition(bool),
    Propose(u32, Result<Vec<&'static str>, &'static str>),
    Stage(u32, bool),
    Run(&'static str, Result<u32, &'static str>),
    Report(&'static str, OutcomeResult, Result<bool, &'static str>),
    Resume(Result<(), &'static str>),
}

fn refusal_text(r: CampaignRefusal) -> String {
    r.to_string()
}

#[test]
fn a_campaign_step_by_step() {
    let now = Utc.with_ymd_and_hms(2026, 3, 1, 9, 0, 0).unwrap();
    let mut c = Campaign::propose(parse_campaign(FILE).unwrap(), "d1".into(), "agent", now);
    use OutcomeResult::{Failed, Passed};
    use Step::*;
    let steps = [
        (
            "no stage before the definition is approved",
            Propose(2, Err("campaign java21 awaits the approval of its definition")),
            CampaignStatus::Proposed,
        ),
        ("two people approve the definition", Definition(true), CampaignStatus::Active),
        ("the first batch is the first targets", Propose(2, Ok(vec!["a", "b"])), CampaignStatus::Active),
        (
            "one stage awaits approval at a time",
            Propose(1, Err("stage 1 of campaign java21 awaits approval (approval s1)")),
            CampaignStatus::Active,
        ),
        (
            "a run waits for its batch's approval",
            Run("a", Err("a is not in an approved batch of campaign java21")),
            CampaignStatus::Active,
        ),
        ("stage 1 denied", Stage(1, false), CampaignStatus::Active),
        ("a denied batch's repositories return", Propose(3, Ok(vec!["a", "b", "c"])), CampaignStatus::Active),
        ("stage 2 approved", Stage(2, true), CampaignStatus::Active),
        ("a run in an approved batch starts", Run("b", Ok(2)), CampaignStatus::Active),
        ("an excluded repo never runs", Run("legacy", Err("legacy is excluded from campaign java21")), CampaignStatus::Active),
        ("a repo of no batch is refused", Run("d", Err("d is not in an approved batch of campaign java21")), CampaignStatus::Active),
        (
            "a report outside approved batches is refused",
            Report("d", Failed, Err("d is not in an approved batch of campaign java21: nothing ran there")),
            CampaignStatus::Active,
        ),
        ("one failure is under the threshold", Report("a", Failed, Ok(false)), CampaignStatus::Active),
        ("a later report replaces an earlier one", Report("a", Passed, Ok(false)), CampaignStatus::Active),
        ("a second failure", Report("b", Failed, Ok(false)), CampaignStatus::Active),
        ("the threshold stops it", Report("c", Failed, Ok(true)), CampaignStatus::Stopped),
        (
            "no run while stopped",
            Run("b", Err("campaign java21 is stopped: 2 repositories failed, the stop policy's threshold is 2 (a person must resume it)")),
            CampaignStatus::Stopped,
        ),
        ("a person resumes it", Resume(Ok(())), CampaignStatus::Active),
        ("an active campaign is not resumed", Resume(Err("campaign java21 is not stopped (active)")), CampaignStatus::Active),
        ("what is left is staged next", Propose(5, Ok(vec!["d"])), CampaignStatus::Active),
    ];
    let mut proposals = 0;
    for (name, step, after) in steps {
        match step {
            Definition(approved) => c.definition_settled(approved, "ok", now),
            Propose(n, want) => {
                let got = c.next_batch(n).map_err(refusal_text);
                let want = want
                    .map(|v| v.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                    .map_err(str::to_owned);
                assert_eq!(got, want, "{name}");
                if let Ok(batch) = got {
                    proposals += 1;
                    c.add_stage(batch, format!("s{proposals}"), now);
                }
            }
            Stage(n, approved) => c.stage_settled(n, approved, now),
            Run(repo, want) => {
                assert_eq!(
                    c.run_allowed(repo).map_err(refusal_text),
                    want.map_err(str::to_owned),
                    "{name}"
                )
            }
            Report(repo, result, want) => {
                let got = c
                    .report(repo, result, "ci", now)
                    .map(|r| r.stopped)
                    .map_err(refusal_text);
                assert_eq!(got, want.map_err(str::to_owned), "{name}");
            }
            Resume(want) => assert_eq!(
                c.resume(now).map_err(refusal_text),
                want.map_err(str::to_owned),
                "{name}"
            ),
        }
        assert_eq!(c.status, after, "status after: {name}");
    }
    assert_eq!(
        c.stages.iter().map(|s| s.status).collect::<Vec<_>>(),
        vec![
            StageStatus::Denied,
            StageStatus::Approved,
            StageStatus::Proposed
        ],
        "every proposal is kept, in order"
    );
}

#[test]
fn a_denied_definition_ends_the_campaign() {
    let now = Utc.with_ymd_and_hms(2026, 3, 1, 9, 0, 0).unwrap();
    let mut c = Campaign::propose(parse_campaign(FILE).unwrap(), "d1".into(), "agent", now);
    c.definition_settled(false, "too wide", now);
    assert_eq!(c.status, CampaignStatus::Denied, "denied for good");
    assert_eq!(
        c.next_batch(1).map_err(refusal_text),
        Err("campaign java21 was not approved: definition not approved: too wide".to_owned()),
        "nothing is staged, and the refusal says why"
    );
    assert!(c.resume(now).is_err(), "a denied campaign is not resumed");
}

#[test]
fn the_policy_reads_its_pre_run_and_fleet_sections() {
    let policy = Policy::from_toml(
        "[pre_run]\nfrom_risk = \"critical\"\nrequire_for_tasks = [\"*deploy*\"]\n\n[fleet]\nrequired_approvals = 3\n",
    )
    .unwrap();
    assert_eq!(
        policy.pre_run.from_risk,
        RiskLevel::Critical,
        "the threshold is the file's"
    );
    assert_eq!(
        policy.pre_run.required_role,
        Role::PlatformAdmin,
        "unset keys keep their default"
    );
    assert_eq!(
        policy.fleet.required_approvals, 3,
        "a fleet needs three people here"
    );
    let back = Policy::from_toml(&policy.to_toml()).unwrap();
    assert_eq!(
        back.pre_run, policy.pre_run,
        "the sections survive the policy's own TOML"
    );
    assert!(
        !Policy::default().to_toml().contains("pre_run"),
        "the defaults leave the policy's text (and version) unchanged"
    );
    let bad = Policy::from_toml("approval_timeout_seconds = 60\n[fleet]\nrequired_approvals = 0\n")
        .unwrap_err();
    assert_eq!(bad.line, 2, "the error points at the section: {bad}");
    assert!(
        bad.message.contains("fleet.required_approvals"),
        "and names the key: {bad}"
    );
    let glob = Policy::from_toml("[pre_run]\nrequire_for_tasks = [\"[\"]\n").unwrap_err();
    assert!(
        glob.message.contains("pre_run"),
        "a bad glob names its section: {glob}"
    );
}
