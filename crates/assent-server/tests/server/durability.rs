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
