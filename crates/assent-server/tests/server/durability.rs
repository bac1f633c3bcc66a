//! How durable each submission's record is when its caller is answered: the policy's own
//! decisions (auto, block) are answered once committed and reach the disk a moment later;
//! anything more — a prompt, a grant's use — is fsynced first, and
//! `--sync-policy-decisions` fsyncs everything. Read off `/metrics`
//! (`assent_submission_commits_total`), on both stores.

use crate::common::{maven, shell, Service};

/// (fsynced, committed only) submission commits so far.
async fn commits(svc: &Service) -> (u64, u64) {
    let text = svc.prometheus().await;
    let sample = |durability: &str| -> u64 {
        let name = format!("assent_submission_commits_total{{durability=\"{durability}\"}} ");
        text.lines()
            .find_map(|line| line.strip_prefix(name.as_str()))
            .unwrap_or_else(|| panic!("/metrics carries {name}: {text}"))
            .parse()
            .unwrap()
    };
    (sample("fsynced"), sample("committed"))
}

#[tokio::test]
async fn only_the_policys_own_decisions_skip_the_fsync() {
    let svc = Service::start().await;
    assert_eq!(commits(&svc).await, (0, 0), "nothing submitted yet");

    let auto = svc.submit(&shell("r-1", "ls", "trusted", None)).await;
    assert_eq!(auto["status"], "allowed", "{auto}");
    assert_eq!(
        commits(&svc).await,
        (0, 1),
        "an auto decision is answered once committed, without waiting for the disk"
    );
    let block = svc
        .submit(&shell("r-1", "cat ~/.ssh/id_rsa", "trusted", None))
        .await;
    assert_eq!(block["status"], "blocked", "{block}");
    assert_eq!(
        commits(&svc).await,
        (0, 2),
        "so is a block no exception can set aside: the policy alone decided it"
    );

    let asked = svc.submit(&maven("r-1")).await;
    assert_eq!(asked["status"], "pending", "{asked}");
    assert_eq!(
        commits(&svc).await,
        (1, 2),
        "a prompt a person will answer is on disk before the agent hears it is pending"
    );
    svc.approve_for_run(asked["approval_id"].as_str().unwrap())
        .await;
    let covered = svc.submit(&maven("r-1")).await;
    assert_eq!(
        covered["status"], "allowed",
        "the run's grant covers the same command again: {covered}"
    );
    assert!(covered["grant_id"].is_string(), "{covered}");
    assert_eq!(
        commits(&svc).await,
        (2, 2),
        "a grant's use is fsynced before it is answered: a lost use could be spent twice"
    );

    let auto = svc.submit(&shell("r-1", "ls", "trusted", None)).await;
    assert_eq!(auto["status"], "allowed", "{auto}");
    assert_eq!(
        commits(&svc).await,
        (2, 3),
        "after a fsynced commit, the policy's decisions skip the fsync again"
    );
    let audit = svc.audit("r-1").await;
    assert!(
        audit.len() >= 4,
        "every decision is audited, whichever way it was committed: {audit:?}"
    );
}

#[tokio::test]
async fn sync_policy_decisions_fsyncs_every_decision() {
    let svc = Service::start_with(|config| config.sync_policy_decisions = true).await;
    for command in ["ls", "git status"] {
        let auto = svc.submit(&shell("r-1", command, "trusted", None)).await;
        assert_eq!(auto["status"], "allowed", "{auto}");
    }
    assert_eq!(
        commits(&svc).await,
        (2, 0),
        "with --sync-policy-decisions, auto decisions wait for the disk too"
    );
}

/// A service whose `[reviewer]` (in `mode`) is the scripted one, approving at once.
async fn reviewed_by(
    reviewer: &crate::common::scripted_reviewer::ScriptedReviewer,
    mode: &str,
) -> Service {
    let policy = assent_core::Policy::from_toml(&reviewer.section(mode, "5s")).unwrap();
    Service::start_with(|config| config.policy = policy).await
}

#[tokio::test]
async fn a_prompt_the_reviewer_takes_alone_is_automated_and_skips_the_fsync() {
    use crate::common::scripted_reviewer::{verdict, Behaviour, ScriptedReviewer};
    let reviewer = ScriptedReviewer::start(Behaviour::Verdict(verdict(
        "approve",
        "low",
        "Runs the project's tests.",
    )))
    .await;
    let svc = reviewed_by(&reviewer, "decide").await;
    let asked = svc.submit(&maven("r-1")).await;
    assert_eq!(asked["status"], "pending", "{asked}");
    assert_eq!(
        commits(&svc).await,
        (0, 1),
        "an eligible ask in decide mode is the reviewer's to approve: opened as durably as \
         the reviewer's approval will be (kept or lost with it), not fsynced"
    );
    let push = svc
        .submit(&shell("r-1", "git push origin main", "unknown", None))
        .await;
    assert_eq!(push["status"], "pending", "{push}");
    assert_eq!(
        commits(&svc).await,
        (1, 1),
        "a push is never the reviewer's: its prompt is a person's, on disk before the agent \
         hears it is pending"
    );
    let id = asked["approval_id"].as_str().unwrap();
    let (_, approval) = svc
        .get(&format!("/v1/approvals/{id}?wait=30"), &svc.requester)
        .await;
    assert_eq!(
        approval["decided_by"], "reviewer:scripted",
        "the relaxed prompt is approved by the reviewer as any other: {approval}"
    );
    let (_, chain) = svc.get("/v1/audit/verify", &svc.approver).await;
    assert_eq!(
        chain["report"]["ok"], true,
        "both kinds of commit extend one chain: {chain}"
    );

    let advised = reviewed_by(&reviewer, "advise").await;
    let asked = advised.submit(&maven("r-2")).await;
    assert_eq!(asked["status"], "pending", "{asked}");
    assert_eq!(
        commits(&advised).await,
        (1, 0),
        "in advise mode a person decides every prompt: fsynced first"
    );
}
