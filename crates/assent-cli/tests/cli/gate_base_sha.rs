//! Every request a gate sends carries the repository's HEAD as `context.base_sha`, read from
//! `.git` without spawning git: checked against `git rev-parse HEAD` in real repositories
//! (a branch, a detached HEAD, packed refs, a worktree, no commits yet), through the real
//! Claude Code and Codex gates and `assent request`, seen where they reach a real service.

use std::path::Path;

use crate::gate_support::codex::{bash, codex, spawn_codex};
use crate::gate_support::git::{git, GitRepo};
use crate::gate_support::tap::Tap;
use crate::gate_support::*;
use serde_json::{json, Value};

/// What the Claude Code gate sends for a read in `cwd` (auto: answered at once).
fn sent_from(service: &Service, tap: &Tap, cwd: &Path, id: &str) -> Value {
    let input = json!({"file_path": cwd.join("src/lib.rs")});
    let ran = gate(
        &tap.url,
        &service.requester,
        &[],
        &payload("PreToolUse", "sess-base", id, "Read", input, cwd),
    );
    assert_eq!(
        ran.decision(),
        "allow",
        "a read in the repo is auto: {}",
        ran.stderr
    );
    tap.last()["context"].clone()
}

#[test]
fn base_sha_is_head_on_a_branch_detached_packed_and_in_a_worktree() {
    let service = Service::start();
    let tap = Tap::start(&service.url);
    let repo = GitRepo::new();
    let first = repo.head();
    let context = sent_from(&service, &tap, &repo.root, "t-branch");
    assert_eq!(context["base_sha"], json!(first), "on a branch: its commit");
    assert_eq!(
        context["diff_notes"],
        Value::Null,
        "a plain branch needs no note"
    );

    repo.write("README.md", "hello\n");
    let second = repo.commit("second");
    git(&repo.root, &["pack-refs", "--all"]);
    assert!(
        !repo.root.join(".git/refs/heads/main").exists(),
        "the branch now lives in packed-refs only"
    );
    let context = sent_from(&service, &tap, &repo.root.join("src"), "t-packed");
    assert_eq!(context["base_sha"], json!(second), "packed refs are read");

    git(&repo.root, &["checkout", "-q", "--detach", &first]);
    let context = sent_from(&service, &tap, &repo.root, "t-detached");
    assert_eq!(
        context["base_sha"],
        json!(first),
        "a detached HEAD is its commit"
    );
    assert!(
        context["diff_notes"][0]
            .as_str()
            .unwrap()
            .starts_with("detached HEAD"),
        "and says it is detached: {context}"
    );

    git(&repo.root, &["checkout", "-q", "main"]);
    let worktree = repo.tmp.path().join("wt");
    git(
        &repo.root,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "feature",
            worktree.to_str().unwrap(),
            &first,
        ],
    );
    let context = sent_from(&service, &tap, &worktree, "t-worktree");
    assert_eq!(
        context["base_sha"],
        json!(git(&worktree, &["rev-parse", "HEAD"])),
        "a worktree's HEAD, through its .git file and commondir"
    );
    assert_eq!(
        context["base_sha"],
        json!(first),
        "its own branch, not main's"
    );
}

#[test]
fn a_repository_without_commits_sends_no_base_sha_and_says_so() {
    let service = Service::start();
    let tap = Tap::start(&service.url);
    let repo = GitRepo::empty();
    let context = sent_from(&service, &tap, &repo.root, "t-unborn");
    assert_eq!(
        context["base_sha"],
        Value::Null,
        "no commit, no base commit"
    );
    assert!(
        context["diff_notes"][0]
            .as_str()
            .unwrap()
            .contains("no commits yet"),
        "the note says why: {context}"
    );
}

#[test]
fn codex_and_assent_request_send_it_too() {
    let service = Service::start();
    let tap = Tap::start(&service.url);
    let repo = GitRepo::new();
    let head = repo.head();
    let p = codex(
        "PreToolUse",
        "sess-codex",
        "c1",
        "Bash",
        bash("ls"),
        &repo.root,
    );
    let ran = finish(spawn_codex(
        &tap.url,
        &service.requester,
        &[],
        p.to_string().as_bytes(),
    ));
    assert_eq!(ran.code, 0, "the codex gate answers: {}", ran.stderr);
    assert_eq!(
        tap.last()["context"]["base_sha"],
        json!(head),
        "the Codex gate sends HEAD"
    );

    let request = |extra: &[&str]| {
        let mut args = vec!["request", "--run", "r1", "--kind", "file_read"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--", "src/lib.rs"]);
        let mut cmd = std::process::Command::new(BIN);
        cmd.args(&args)
            .current_dir(repo.root.join("src"))
            .env("ASSENT_URL", &tap.url)
            .env("ASSENT_TOKEN", &service.requester);
        let out = cmd.output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "a read is allowed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        tap.last()["context"].clone()
    };
    assert_eq!(
        request(&[])["base_sha"],
        json!(head),
        "assent request in a repository sends its HEAD"
    );
    assert_eq!(
        request(&["--base-sha", "ABCDEF0123"])["base_sha"],
        json!("abcdef0123"),
        "--base-sha wins over HEAD"
    );
}
