//! The words of a prompt, made once: what the notification asks and the window shows.
#![allow(clippy::expect_used, reason = "tests")]

use assent_core::{DiffFile, DiffFlag, DiffPacket, EvidenceDetail, FileChange};

use super::*;
use crate::fixtures::approval;

/// A shell prompt with no profile: the core's headline, the riskiest part's argv and the
/// number of parts, as the service sends them.
fn shell(summary: &str, leader: &[&str], parts: usize) -> Approval {
    let mut prompt = approval("a1");
    prompt.facts.profile = None;
    prompt.evidence.summary = summary.to_owned();
    let argv: Vec<String> = leader.iter().map(|w| (*w).to_owned()).collect();
    prompt.evidence.command = Some(argv.clone());
    prompt.evidence.commands = vec![argv; parts];
    prompt
}

/// Each row: what the service sends → what the notification asks. The question must say
/// the action (what will happen, to what), never only the program's name.
#[test]
fn the_question_names_the_action() {
    let rows: [(&str, Approval, &str); 9] = [
        (
            "an install names the packages and the manager",
            shell(
                "Run `npm install left-pad` in shop",
                &["npm", "install", "left-pad"],
                1,
            ),
            "Install left-pad with npm",
        ),
        (
            "several packages are listed",
            shell(
                "Run `pip install -U requests rich` in shop",
                &["pip", "install", "-U", "requests", "rich"],
                1,
            ),
            "Install requests and rich with pip",
        ),
        (
            "a remote delete is said as the order it is",
            shell(
                "aws: uploads to s3://shop-prod-assets and deletes every object there in shop",
                &["aws", "s3", "sync", "./dist", "s3://shop-prod-assets", "--delete"],
                1,
            ),
            "Upload to s3://shop-prod-assets and delete every object there",
        ),
        (
            "the riskiest part of a compound line leads, the other steps are counted",
            shell(
                "curl: sends a POST to api.github.com/repos/acme/shop/dispatches, and 2 more steps in shop",
                &["curl", "-X", "POST", "https://api.github.com/repos/acme/shop/dispatches"],
                3,
            ),
            "Send a POST to api.github.com/repos/acme/shop/… (+2 steps)",
        ),
        (
            "a push says what goes where",
            shell(
                "git: pushes main to origin in shop",
                &["git", "push", "origin", "main"],
                1,
            ),
            "Push main to origin",
        ),
        (
            "rm says what it deletes",
            shell("Run `rm -rf build/` in shop", &["rm", "-rf", "build/"], 1),
            "Delete build/",
        ),
        (
            "any other command is shown as run, without code marks",
            shell("Run `make lint` in shop", &["make", "lint"], 1),
            "Run make lint",
        ),
        (
            "a batched profile names the profile",
            approval("a1"),
            "Run maven-test",
        ),
        (
            "a file edit keeps the core's words",
            {
                let mut edit = approval("a1");
                edit.facts.profile = None;
                edit.evidence.command = None;
                edit.evidence.summary = "Edit .github/workflows/build.yml in shop".to_owned();
                edit
            },
            "Edit .github/workflows/build.yml",
        ),
    ];
    for (why, prompt, want) in rows {
        assert_eq!(headline(&prompt), want, "{why}");
    }
}

#[test]
fn a_diff_names_its_files() {
    let mut prompt = approval("d1");
    prompt.facts.profile = None;
    let file = |path: &str| DiffFile {
        path: path.to_owned(),
        change: FileChange::Modified,
        added: 1,
        removed: 0,
        binary: false,
    };
    prompt.evidence.detail = EvidenceDetail::Diff(DiffPacket {
        files: vec![file(".github/workflows/build.yml"), file("src/a.rs")],
        ..DiffPacket::default()
    });
    assert_eq!(
        headline(&prompt),
        "Accept the change to .github/workflows/build.yml and 1 more",
        "a diff review asks about the change, naming its first file and how many more"
    );
}

#[test]
fn a_headline_without_place_or_program_is_kept_whole() {
    let prompt = shell("weird: text", &["other"], 1);
    assert_eq!(
        headline(&prompt),
        "weird: text",
        "a headline that is neither `program: change` nor `… in place` is not rewritten"
    );
}

#[test]
fn every_diff_flag_has_words_and_they_reach_the_wire() {
    let mut prompt = approval("d2");
    prompt.facts.profile = None;
    let all = [
        DiffFlag::WorkflowChanged,
        DiffFlag::CiPrivilegedTrigger,
        DiffFlag::CiChecksOutPrHead,
        DiffFlag::CiWritePermissions,
        DiffFlag::CiSecretSentOut,
        DiffFlag::SecurityChanged,
        DiffFlag::DependencyChanged,
        DiffFlag::LockfileChanged,
        DiffFlag::TestsDeleted,
        DiffFlag::TestsWeakened,
        DiffFlag::PublicApiChanged,
        DiffFlag::Wide,
        DiffFlag::PolicyPath,
    ];
    prompt.evidence.detail = EvidenceDetail::Diff(DiffPacket {
        flags: all.to_vec(),
        ..DiffPacket::default()
    });
    let words = prompt_words(&prompt);
    assert_eq!(
        words.flags.len(),
        all.len(),
        "one word per flag, in the packet's order: {words:?}"
    );
    for (flag, said) in all.iter().zip(&words.flags) {
        assert_eq!(said, flag_label(*flag), "{flag:?} in the packet's order");
        let wire = serde_json::to_value(flag).expect("json");
        assert!(
            wire.as_str() != Some(said.as_str())
                && said.chars().next().is_some_and(char::is_uppercase),
            "{flag:?} is said in words, not as its wire name: {said}"
        );
    }
    assert!(
        words
            .summary
            .iter()
            .any(|line| line.starts_with("flags: CI workflow changed, ")),
        "the summary names the flags in the same words: {:?}",
        words.summary
    );
    let wire = serde_json::to_value(&words).expect("json");
    assert_eq!(
        wire["flags"][0], "CI workflow changed",
        "the words travel as plain strings"
    );
}

#[test]
fn a_tool_prompt_has_a_headline_and_no_packet_lines() {
    let words = prompt_words(&approval("a1"));
    assert_eq!(
        words.headline, "Run maven-test",
        "the profile names the action"
    );
    assert!(
        words.summary.is_empty() && words.flags.is_empty(),
        "a tool prompt's command says it: {words:?}"
    );
}

#[test]
fn hostile_text_stays_raw_for_each_surface_to_clean() {
    let mut prompt = approval("h1");
    prompt.facts.profile = None;
    let huge = "x".repeat(100_000);
    prompt.evidence.summary = format!("<b>pwn</b> \u{202e}evil {huge}");
    prompt.evidence.command = None;
    prompt.evidence.detail = EvidenceDetail::Diff(DiffPacket {
        files: vec![DiffFile {
            path: "<img src=x>\u{200b}.rs".to_owned(),
            change: FileChange::Modified,
            added: 1,
            removed: 0,
            binary: false,
        }],
        ..DiffPacket::default()
    });
    let words = prompt_words(&prompt);
    assert_eq!(
        words.summary.first().map(String::as_str),
        Some(prompt.evidence.summary.as_str()),
        "the summary is the evidence's, unchanged: escaping and cutting are the surface's"
    );
    assert!(
        words.headline.contains("<img src=x>\u{200b}.rs"),
        "the headline keeps the path as written: {}",
        words.headline
    );
}

/// The words' cut is the core's, closing round brackets only (the core's summaries close
/// `[]` and `{}` too: `assent_core::text` pins both).
#[test]
fn a_prompts_words_close_round_brackets_only() {
    assert_eq!(
        fit_words(
            "Change GitHub (repo edit acme/shop --visibility public)",
            30
        ),
        "Change GitHub…",
        "a cut inside round brackets drops the open bracket"
    );
    assert_eq!(
        fit_words(
            "Run awk over access.log printing {print $1, $7} per line",
            40
        ),
        "Run awk over access.log printing {print…",
        "a brace is cut as a prompt's words always cut it"
    );
}
