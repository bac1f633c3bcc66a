//! `assent people …` and `assent agents …`: the real binary against the data dir of a real
//! `assent serve` that keeps running, and on a data dir no service has opened yet.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::gate_support::*;
use serde_json::Value;

fn admin(args: &[&str], data_dir: &Path) -> Ran {
    let child = Command::new(BIN)
        .args(args)
        .arg("--data-dir")
        .arg(data_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish(child)
}

fn listed(args: &[&str], data_dir: &Path) -> Vec<Value> {
    let ran = admin(args, data_dir);
    assert_eq!(ran.code, 0, "listing works: {}", ran.stderr);
    ran.json()["identities"].as_array().unwrap().clone()
}

#[test]
fn people_added_by_the_cli_decide_on_the_running_service() {
    let service = Service::start();
    let dir = service.dir.path();
    let added = admin(
        &[
            "people",
            "add",
            "alice",
            "--role",
            "repo_maintainer",
            "--role",
            "platform_admin",
        ],
        dir,
    );
    assert_eq!(
        added.code, 0,
        "adding a person works beside the service: {}",
        added.stderr
    );
    let token = added.stdout.trim();
    assert_eq!(
        added.stdout.lines().count(),
        1,
        "the token is the only line on stdout, so scripts can capture it: {:?}",
        added.stdout
    );
    assert!(token.starts_with("assent_p_"), "a person's token: {token}");

    let rt = runtime();
    let alice = assent_client::Client::new(&service.url, token).unwrap();
    assert!(
        rt.block_on(alice.pending()).is_ok(),
        "the running service accepts the new token at once"
    );

    let people = listed(&["people", "list", "--json"], dir);
    let alice_row = people.iter().find(|p| p["name"] == "alice").unwrap();
    assert_eq!(
        alice_row["roles"],
        serde_json::json!(["repo_maintainer", "platform_admin"]),
        "roles are stored as given"
    );
    assert!(
        !serde_json::to_string(&people).unwrap().contains(token),
        "a list never shows a token"
    );
    let table = admin(&["people", "list"], dir);
    assert!(
        table.stdout.contains("alice") && table.stdout.contains("owner"),
        "the table lists everyone: {}",
        table.stdout
    );

    let changed = admin(
        &["people", "roles", "alice", "--remove", "platform_admin"],
        dir,
    );
    assert_eq!(changed.code, 0, "{}", changed.stderr);
    assert!(
        changed.stdout.contains("repo_maintainer") && !changed.stdout.contains("platform_admin"),
        "the new roles are printed: {}",
        changed.stdout
    );

    let removed = admin(&["people", "remove", "alice"], dir);
    assert_eq!(removed.code, 0, "{}", removed.stderr);
    assert!(
        rt.block_on(alice.pending()).is_err(),
        "a removed person's token stops working at once"
    );
}

#[test]
fn agents_get_their_own_requester_tokens() {
    let service = Service::start();
    let dir = service.dir.path();
    let added = admin(&["agents", "add", "ci-shop"], dir);
    assert_eq!(added.code, 0, "{}", added.stderr);
    let token = added.stdout.trim().to_owned();
    assert!(token.starts_with("assent_a_"), "an agent's token: {token}");
    let ran = Command::new(BIN)
        .args(["request", "--run", "r-1", "--", "ls"])
        .env("ASSENT_URL", &service.url)
        .env("ASSENT_TOKEN", &token)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        ran.status.code(),
        Some(0),
        "the new agent can ask: {}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let names: Vec<String> = listed(&["agents", "list", "--json"], dir)
        .iter()
        .map(|a| a["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["ci-shop", "default"], "agents are listed by name");
    assert_eq!(admin(&["agents", "remove", "ci-shop"], dir).code, 0);
    let ran = Command::new(BIN)
        .args(["request", "--run", "r-1", "--", "ls"])
        .env("ASSENT_URL", &service.url)
        .env("ASSENT_TOKEN", &token)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_ne!(
        ran.status.code(),
        Some(0),
        "a removed agent's token is refused, never allowed"
    );
}

#[test]
fn bad_input_is_a_clear_error_and_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    assert_eq!(
        admin(&["people", "add", "bob", "--role", "task_author"], dir).code,
        0,
        "a data dir no service has opened yet is set up by the command"
    );
    let long = "x".repeat(65);
    let rows: [(&[&str], &str, &str); 7] = [
        (
            &["people", "add", "carol", "--role", "admin"],
            "unknown role",
            "an unknown role",
        ),
        (
            &["people", "add", "bob"],
            "already exists",
            "a duplicate name",
        ),
        (
            &["agents", "add", "bob"],
            "already exists",
            "a name shared with a person",
        ),
        (&["people", "add", ""], "empty", "an empty name"),
        (
            &["people", "add", &long],
            "longer than",
            "an over-long name",
        ),
        (
            &["people", "remove", "nobody"],
            "no person named nobody",
            "removing nobody",
        ),
        (
            &["people", "roles", "bob"],
            "--add",
            "a roles change naming no role",
        ),
    ];
    for (args, says, why) in rows {
        let ran = admin(args, dir);
        assert_ne!(ran.code, 0, "{why} fails");
        assert!(
            ran.stderr.contains(says),
            "{why} says so ({says:?}): {}",
            ran.stderr
        );
        assert!(
            ran.stdout.is_empty(),
            "{why} prints no token: {}",
            ran.stdout
        );
    }
    let people = listed(&["people", "list", "--json"], dir);
    let names: Vec<&str> = people.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["bob", "owner"],
        "nothing was added or removed by the errors"
    );
    assert_eq!(
        people[0]["roles"],
        serde_json::json!(["task_author"]),
        "bob's roles are untouched"
    );

    let parallel: Vec<_> = (0..2)
        .map(|_| {
            Command::new(BIN)
                .args([
                    "people",
                    "add",
                    "dana",
                    "--role",
                    "task_author",
                    "--data-dir",
                ])
                .arg(dir)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let codes: Vec<i32> = parallel.into_iter().map(|c| finish(c).code).collect();
    assert_eq!(
        codes.iter().filter(|c| **c == 0).count(),
        1,
        "of two concurrent adds of one name exactly one wins: {codes:?}"
    );
}
