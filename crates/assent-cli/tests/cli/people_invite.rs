//! `assent people invite NAME [--for 15m]`: the real binary prints a one-time enrolment link
//! for the web desk (only the link on stdout), on the data dir's database; bad input is a
//! clear error that makes no link.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::gate_support::*;

fn admin(args: &[&str], data_dir: &Path, env_url: Option<&str>) -> Ran {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .arg("--data-dir")
        .arg(data_dir)
        .env_remove("ASSENT_URL")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(url) = env_url {
        command.env("ASSENT_URL", url);
    }
    finish(command.spawn().unwrap())
}

#[test]
fn an_invite_is_one_link_on_stdout_and_bad_input_makes_none() {
    let dir = tempfile::tempdir().unwrap();
    let added = admin(
        &["people", "add", "alice", "--role", "task_author"],
        dir.path(),
        None,
    );
    assert_eq!(added.code, 0, "alice is added: {}", added.stderr);

    let ran = admin(
        &["people", "invite", "alice", "--for", "30m"],
        dir.path(),
        None,
    );
    assert_eq!(ran.code, 0, "an invite for a person: {}", ran.stderr);
    let link = ran.stdout.trim();
    assert_eq!(
        ran.stdout.lines().count(),
        1,
        "only the link on stdout (for scripts): {:?}",
        ran.stdout
    );
    let code = link
        .strip_prefix("http://localhost:7391/desk/enrol#")
        .unwrap_or_else(|| panic!("the local desk by name (passkeys refuse 127.0.0.1): {link}"));
    assert!(
        code.len() >= 32 && code.chars().all(|c| c.is_ascii_hexdigit()),
        "a long random code: {code}"
    );
    assert!(
        ran.stderr.contains("once") && ran.stderr.contains("alice"),
        "stderr says whose and that it works once: {}",
        ran.stderr
    );

    let again = admin(
        &["people", "invite", "alice"],
        dir.path(),
        Some("http://127.0.0.1:8123"),
    );
    assert!(
        again
            .stdout
            .trim()
            .starts_with("http://localhost:8123/desk/enrol#"),
        "ASSENT_URL's port, its loopback address as localhost: {}",
        again.stdout
    );
    assert_ne!(again.stdout, ran.stdout, "every invite has its own code");
    let public = admin(
        &[
            "people",
            "invite",
            "alice",
            "--url",
            "https://desk.example.com/",
        ],
        dir.path(),
        None,
    );
    assert!(
        public
            .stdout
            .trim()
            .starts_with("https://desk.example.com/desk/enrol#"),
        "--url names the desk: {}",
        public.stdout
    );

    for (args, why) in [
        (vec!["people", "invite", "nobody"], "no such person"),
        (
            vec!["people", "invite", "alice", "--for", "3d"],
            "longer than a day",
        ),
        (
            vec!["people", "invite", "alice", "--for", "soon"],
            "not a lifetime",
        ),
        (
            vec!["people", "invite", "alice", "--for", "0m"],
            "shorter than a minute",
        ),
    ] {
        let ran = admin(&args, dir.path(), None);
        assert_ne!(ran.code, 0, "{why}: refused");
        assert!(
            ran.stdout.trim().is_empty(),
            "{why}: no link is printed: {}",
            ran.stdout
        );
        assert!(
            ran.stderr.starts_with("assent people: "),
            "{why}: a clear error: {}",
            ran.stderr
        );
    }
}
