//! `assent request --base-sha SHA --diff FILE` (`-` is stdin): the diff is the evidence
//! (masked, cut at the cap with a note) and the fingerprint covers all of it; a diff that
//! cannot be read is a usage error before anything is asked. Real binary, real service.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use crate::gate_support::git::GitRepo;
use crate::gate_support::tap::Tap;
use crate::gate_support::*;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

const DIFF: &str = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n pub fn add(a: i32, b: i32) -> i32 {\n-    a + b\n+    b + a\n }\n";

fn request(tap: &Tap, service: &Service, repo: &GitRepo, extra: &[&str], stdin: &[u8]) -> Output {
    let mut args = vec!["request", "--run", "r-diff", "--kind", "file_read"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "src/lib.rs"]);
    let mut child = Command::new(BIN)
        .args(&args)
        .current_dir(&repo.root)
        .env("ASSENT_URL", &tap.url)
        .env("ASSENT_TOKEN", &service.requester)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn sha256(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

fn context(tap: &Tap) -> Value {
    tap.last()["context"].clone()
}

#[test]
fn the_diff_comes_from_a_file_or_stdin() {
    let service = Service::start();
    let tap = Tap::start(&service.url);
    let repo = GitRepo::new();
    let file = repo.tmp.path().join("change.diff");
    std::fs::write(&file, DIFF).unwrap();
    let sha = "0123456789abcdef0123456789abcdef01234567";

    let out = request(
        &tap,
        &service,
        &repo,
        &["--base-sha", sha, "--diff", file.to_str().unwrap()],
        b"",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sent = context(&tap);
    assert_eq!(sent["diff"], json!(DIFF), "the file's content is the diff");
    assert_eq!(
        sent["diff_fingerprint"],
        json!(sha256(DIFF)),
        "bound by its SHA-256"
    );
    assert_eq!(sent["base_sha"], json!(sha), "the base commit as given");

    let out = request(&tap, &service, &repo, &["--diff", "-"], DIFF.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sent = context(&tap);
    assert_eq!(sent["diff"], json!(DIFF), "`-` reads the diff from stdin");
    assert_eq!(
        sent["base_sha"],
        json!(repo.head()),
        "without --base-sha: HEAD of the repo"
    );
}

#[test]
fn a_long_diff_is_cut_and_fingerprinted_whole() {
    let service = Service::start();
    let tap = Tap::start(&service.url);
    let repo = GitRepo::new();
    let long = format!(
        "{DIFF}{}",
        "+filler line of an enormous generated file\n".repeat(8000)
    );
    let out = request(&tap, &service, &repo, &["--diff", "-"], long.as_bytes());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sent = context(&tap);
    assert!(
        sent["diff"].as_str().unwrap().len() <= assent_core::MAX_DIFF_BYTES,
        "what is sent is capped"
    );
    assert!(
        sent["diff_notes"][0]
            .as_str()
            .unwrap()
            .starts_with("diff cut at 256 KiB"),
        "the cut is said: {sent}"
    );
    assert_eq!(
        sent["diff_fingerprint"],
        json!(sha256(&long)),
        "the fingerprint covers the whole diff"
    );
}

#[test]
fn a_diff_that_cannot_be_read_is_a_usage_error() {
    let service = Service::start();
    let tap = Tap::start(&service.url);
    let repo = GitRepo::new();
    let missing = repo.tmp.path().join("nope.diff");
    let out = request(
        &tap,
        &service,
        &repo,
        &["--diff", missing.to_str().unwrap()],
        b"",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "usage error: {stderr}");
    assert!(
        stderr.contains("nope.diff: cannot open it"),
        "the message names the file and why: {stderr}"
    );
    let dir = repo.root.join("src");
    let out = request(
        &tap,
        &service,
        &repo,
        &["--diff", dir.to_str().unwrap()],
        b"",
    );
    assert_eq!(out.status.code(), Some(2), "a directory is not a diff");
    let out = request(&tap, &service, &repo, &["--diff", "-"], b"");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an empty diff is refused: {stderr}"
    );
    assert!(stderr.contains("it is empty"), "{stderr}");
    let out = request(&tap, &service, &repo, &["--base-sha", "main"], b"");
    assert_eq!(
        out.status.code(),
        Some(2),
        "a base that is not a commit id is refused"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is not a commit id"),
        "and says so"
    );
    assert!(
        tap.actions().is_empty(),
        "nothing was asked with a broken diff"
    );
}
