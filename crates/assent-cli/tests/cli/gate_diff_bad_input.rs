//! What the Claude Code gate cannot show as a diff it says in `context.diff_notes` — a binary
//! file, text that is not UTF-8, a diff over the cap, a file that vanished, a symlink out of
//! the repository, an edit that does not apply — and still asks the service: never a crash,
//! never an allow of its own. Real gate, real git repository, a real service behind a tap.

use crate::gate_support::git::GitRepo;
use crate::gate_support::tap::Tap;
use crate::gate_support::*;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

struct Desk {
    service: Service,
    tap: Tap,
    repo: GitRepo,
}

impl Desk {
    fn new() -> Desk {
        let service = Service::start();
        let tap = Tap::start(&service.url);
        Desk {
            service,
            tap,
            repo: GitRepo::new(),
        }
    }

    /// The gate's answer and the context it sent, for `tool` with `input`.
    fn send(&self, id: &str, tool: &str, input: Value) -> (Ran, Value) {
        let before = self.tap.actions().len();
        let ran = gate(
            &self.tap.url,
            &self.service.requester,
            &["--wait", "1"],
            &payload("PreToolUse", "sess-bad", id, tool, input, &self.repo.root),
        );
        assert_eq!(ran.code, 0, "{tool}: exit 0 with JSON: {}", ran.stderr);
        let sent = self.tap.actions();
        assert_eq!(
            sent.len(),
            before + 1,
            "{tool}: the request reached the service"
        );
        (ran, sent.last().unwrap()["context"].clone())
    }

    fn path(&self, rel: &str) -> String {
        self.repo.root.join(rel).to_string_lossy().into_owned()
    }
}

fn notes(context: &Value) -> Vec<String> {
    context["diff_notes"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|n| n.as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn has_note(context: &Value, part: &str) -> bool {
    notes(context).iter().any(|n| n.contains(part))
}

#[test]
fn binary_and_non_utf8_files_are_counted_not_shown() {
    let desk = Desk::new();
    std::fs::create_dir_all(desk.repo.root.join("assets")).unwrap();
    std::fs::write(
        desk.path("assets/logo.png"),
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
    )
    .unwrap();
    std::fs::write(desk.path("src/latin1.txt"), b"caf\xe9 au lait\n").unwrap();

    let (_, write) = desk.send(
        "b1",
        "Write",
        json!({"file_path": desk.path("assets/logo.png"), "content": "not an image\n"}),
    );
    assert_eq!(
        notes(&write),
        ["binary file: assets/logo.png"],
        "a binary file is named in a note"
    );
    let diff = write["diff"].as_str().unwrap();
    assert!(
        diff.starts_with("diff --git a/assets/logo.png b/assets/logo.png\nindex ")
            && diff.ends_with("Binary files a/assets/logo.png and b/assets/logo.png differ\n"),
        "and counted in the diff, not shown: {diff}"
    );
    assert!(!diff.contains("IHDR"), "its bytes are not shown");

    let (_, edit) = desk.send(
        "b2",
        "Edit",
        json!({"file_path": desk.path("src/latin1.txt"), "old_string": "au", "new_string": "with"}),
    );
    assert!(
        has_note(&edit, "binary file: src/latin1.txt"),
        "text that is not UTF-8 is not shown as text: {edit}"
    );
    assert_eq!(edit["diff"], Value::Null, "no diff to show");
    assert!(
        edit["diff_fingerprint"].is_string(),
        "the grant still binds to the tool input"
    );
}

#[test]
fn a_huge_diff_is_cut_at_the_cap_and_fingerprinted_whole() {
    let desk = Desk::new();
    let line = "let filler = \"0123456789abcdef0123456789abcdef\";\n";
    let lines = 400 * 1024 / line.len();
    let content = line.repeat(lines);
    let (ran, context) = desk.send(
        "h1",
        "Write",
        json!({"file_path": desk.path("src/big.rs"), "content": content}),
    );
    // 400 KiB in one file is wider than the policy's `[diff] max_lines`: a diff approval.
    assert!(
        ran.reason().contains("nobody decided approval"),
        "the service takes a request carrying a capped diff (no 413) and asks for its review \
         (a wide diff), rather than refusing it: {}",
        ran.reason()
    );
    let diff = context["diff"].as_str().unwrap();
    assert!(
        diff.len() <= assent_core::MAX_DIFF_BYTES,
        "what is sent is capped ({} bytes)",
        diff.len()
    );
    assert!(
        has_note(&context, "diff cut at 256 KiB"),
        "the cut is said: {:?}",
        notes(&context)
    );
    let full = format!(
        "--- /dev/null\n+++ b/src/big.rs\n@@ -0,0 +1,{lines} @@\n{}",
        content
            .lines()
            .map(|l| format!("+{l}\n"))
            .collect::<String>()
    );
    assert_eq!(
        context["diff_fingerprint"],
        json!(hex::encode(Sha256::digest(full.as_bytes()))),
        "the fingerprint covers the whole diff, not the part shown"
    );
}

#[test]
fn a_vanished_file_is_diffed_against_empty_with_a_note() {
    let desk = Desk::new();
    let (ran, context) = desk.send(
        "v1",
        "Edit",
        json!({"file_path": desk.path("src/gone.rs"), "old_string": "x", "new_string": "fn y() {}"}),
    );
    assert!(
        has_note(&context, "src/gone.rs vanished before the hook read it"),
        "the note says the file was gone: {context}"
    );
    assert_eq!(
        context["diff"],
        json!("--- /dev/null\n+++ b/src/gone.rs\n@@ -0,0 +1 @@\n+fn y() {}\n\\ No newline at end of file\n"),
        "its new text against an empty file"
    );
    assert!(!ran.stdout.is_empty(), "the gate still answers");
}

#[test]
fn a_symlink_out_of_the_repository_is_not_read() {
    let desk = Desk::new();
    let outside = desk.repo.tmp.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        outside.join("secret.rs"),
        "const SECRET: &str = \"top secret words\";\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.join("secret.rs"), desk.path("src/link.rs")).unwrap();
    std::os::unix::fs::symlink(&outside, desk.path("src/ext")).unwrap();

    let (ran, context) = desk.send(
        "s1",
        "Edit",
        json!({"file_path": desk.path("src/link.rs"), "old_string": "top", "new_string": "bottom"}),
    );
    assert!(
        has_note(&context, "src/link.rs is a symlink out of the repository"),
        "the link is named: {context}"
    );
    assert!(
        !context.to_string().contains("secret words"),
        "nothing is read through it: {context}"
    );
    assert_ne!(
        ran.decision(),
        "allow",
        "an edit through a link out of the repo is not auto"
    );

    let (_, context) = desk.send(
        "s2",
        "Write",
        json!({"file_path": desk.path("src/ext/new.rs"), "content": "x\n"}),
    );
    assert!(
        has_note(
            &context,
            "src/ext/new.rs is a symlink out of the repository"
        ),
        "a directory link out is caught too: {context}"
    );

    let (_, context) = desk.send(
        "s3",
        "Edit",
        json!({"file_path": "/etc/hostname", "old_string": "a", "new_string": "b"}),
    );
    assert!(
        has_note(
            &context,
            "/etc/hostname is outside the repository: not read"
        ),
        "a file outside the repository is not read: {context}"
    );
}

#[test]
fn an_edit_that_does_not_apply_is_said_and_still_asked() {
    let desk = Desk::new();
    let (ran, context) = desk.send(
        "e1",
        "Edit",
        json!({"file_path": desk.path("src/lib.rs"), "old_string": "no such text", "new_string": "x"}),
    );
    assert!(
        has_note(
            &context,
            "src/lib.rs: edit 0: old_string does not occur in the file"
        ),
        "the note says why there is no diff: {context}"
    );
    assert!(
        context["diff_fingerprint"].is_string(),
        "the request still binds to its input"
    );
    assert!(!ran.decision().is_empty(), "and the service still answered");
}

#[test]
fn tool_input_that_is_not_utf8_is_blocked_before_any_request() {
    let desk = Desk::new();
    let p = payload(
        "PreToolUse",
        "sess-bad",
        "u1",
        "Write",
        json!({"file_path": desk.path("src/x.rs"), "content": "PLACEHOLDER"}),
        &desk.repo.root,
    );
    let text = p.to_string();
    let (head, tail) = text.split_once("PLACEHOLDER").unwrap();
    let raw_byte = [head.as_bytes(), b"caf\xff", tail.as_bytes()].concat();
    let lone_surrogate = format!("{head}\\ud800{tail}").into_bytes();
    for bad in [raw_byte, lone_surrogate] {
        let ran = finish(spawn_with_stdin(
            &["gate", "claude-code"],
            &[
                ("ASSENT_URL", &desk.tap.url),
                ("ASSENT_TOKEN", &desk.service.requester),
            ],
            &bad,
        ));
        assert_eq!(
            ran.code, 2,
            "Claude Code blocks the call on exit 2: {}",
            ran.stderr
        );
        assert!(
            ran.stderr.contains("not JSON") && ran.stderr.contains("blocking the tool call"),
            "the reason is said: {}",
            ran.stderr
        );
    }
    assert!(
        desk.tap.actions().is_empty(),
        "nothing unreadable is sent as if it were the tool's input"
    );
}

#[test]
fn a_secret_file_is_neither_read_nor_shown() {
    let desk = Desk::new();
    desk.repo.write(".env", "DB_PASS=hunter2-old\n");
    let (ran, context) = desk.send(
        "x1",
        "Edit",
        json!({"file_path": desk.path(".env"), "old_string": "hunter2-old", "new_string": "hunter3"}),
    );
    assert!(
        has_note(&context, ".env is a secret file"),
        "the note says why there is no diff: {context}"
    );
    assert!(
        !context.to_string().contains("DB_PASS") && context["diff"].is_null(),
        "the file's content is not sent: {context}"
    );
    assert_eq!(
        ran.decision(),
        "deny",
        "and the policy still blocks writing secrets"
    );
}
