//! Symlinks on a real filesystem, through the real service over HTTP: a path-pattern grant
//! never covers a link out of the repository, and a link to a secret is a secret.

use std::os::unix::fs::symlink;
use std::path::Path;

use crate::common::Service;
use reqwest::StatusCode;
use serde_json::{json, Value};

/// A temp HOME with a fake key, a repo inside it, and a directory outside both.
struct Machine {
    _dirs: Vec<tempfile::TempDir>,
    home: String,
    repo: String,
    outside: String,
}

fn canonical(dir: &Path) -> String {
    std::fs::canonicalize(dir)
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned()
}

fn machine() -> Machine {
    let home_dir = tempfile::tempdir().unwrap();
    let outside_dir = tempfile::tempdir().unwrap();
    let home = canonical(home_dir.path());
    let outside = canonical(outside_dir.path());
    let repo = format!("{home}/shop");
    std::fs::create_dir_all(format!("{home}/.ssh")).unwrap();
    std::fs::write(format!("{home}/.ssh/id_ed25519"), "not a real key").unwrap();
    std::fs::create_dir_all(format!("{repo}/src")).unwrap();
    std::fs::write(format!("{repo}/src/a.rs"), "fn a() {}").unwrap();
    symlink(&outside, format!("{repo}/src/out")).unwrap();
    symlink(
        format!("{home}/.ssh/id_ed25519"),
        format!("{repo}/src/notes.txt"),
    )
    .unwrap();
    Machine {
        _dirs: vec![home_dir, outside_dir],
        home,
        repo,
        outside,
    }
}

fn write(m: &Machine, path: &str) -> Value {
    json!({
        "run_id": "run-1",
        "task_id": "task-1",
        "requested_by": "agent",
        "action": {"kind": "file_write", "cwd": m.repo, "paths": [path], "tool": "Write"},
        "context": {"repo": m.repo, "task_risk": "high"},
        "reason": "edit"
    })
}

fn shell(m: &Machine, line: &str) -> Value {
    json!({
        "run_id": "run-1",
        "task_id": "task-1",
        "requested_by": "agent",
        "action": {"kind": "shell", "command": line, "cwd": m.repo},
        "context": {"repo": m.repo},
        "reason": "look"
    })
}

async fn start(m: &Machine) -> Service {
    let home = m.home.clone();
    Service::start_with(move |config| config.home = home).await
}

#[tokio::test]
async fn a_path_pattern_grant_does_not_cover_a_link_out_of_the_repo() {
    let m = machine();
    let svc = start(&m).await;
    let first = svc.submit(&write(&m, "src/a.rs")).await;
    assert_eq!(
        first["status"], "pending",
        "a write in a high-risk task is asked: {first}"
    );
    let (status, decided) = svc
        .decide(
            first["approval_id"].as_str().unwrap(),
            &json!({"decision":"approve","scope":"path_pattern","path_patterns":["src/*"],"expires_in_seconds":3600}),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::OK,
        "a path-pattern grant is given: {decided}"
    );
    let inside = svc.submit(&write(&m, "src/b.rs")).await;
    assert_eq!(
        inside["status"], "allowed",
        "the grant covers a plain file under src/: {inside}"
    );
    let out = svc.submit(&write(&m, "src/out")).await;
    assert_eq!(
        out["status"], "pending",
        "src/out leads to {}, so src/* does not cover it: {out}",
        m.outside
    );
    assert_eq!(
        out["rule"], "ask.outside_repo",
        "the link out is outside the repo: {out}"
    );
    let approval = svc.approval(out["approval_id"].as_str().unwrap()).await;
    assert_eq!(
        approval["evidence"]["symlinks"],
        json!([format!("src/out → {}", m.outside)]),
        "the person sees where the link leads: {approval}"
    );
    let through = svc.submit(&write(&m, "src/out/new.txt")).await;
    assert_eq!(
        through["rule"], "ask.outside_repo",
        "a new file written through the linked directory lands outside: {through}"
    );
    svc.stop().await;
}

#[tokio::test]
async fn reading_a_link_to_a_secret_is_blocked() {
    let m = machine();
    let svc = start(&m).await;
    for line in ["cat src/notes.txt", "head -c 100 ./src/../src/notes.txt"] {
        let answer = svc.submit(&shell(&m, line)).await;
        assert_eq!(
            answer["status"], "blocked",
            "{line} reads a key through a link: {answer}"
        );
        assert_eq!(
            answer["rule"], "block.secret_path",
            "{line}: the secret rule fires"
        );
    }
    let read = json!({
        "run_id": "run-1",
        "task_id": "task-1",
        "requested_by": "agent",
        "action": {"kind": "file_read", "cwd": m.repo, "paths": ["src/notes.txt"], "tool": "Read"},
        "context": {"repo": m.repo},
        "reason": "read"
    });
    let answer = svc.submit(&read).await;
    assert_eq!(
        answer["status"], "blocked",
        "the Read tool on the link is blocked: {answer}"
    );
    let plain = svc.submit(&shell(&m, "cat src/a.rs")).await;
    assert_eq!(
        plain["status"], "allowed",
        "a plain file in the repo stays auto with the resolver on: {plain}"
    );
    svc.stop().await;
}
