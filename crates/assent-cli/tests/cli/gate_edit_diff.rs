//! The Claude Code and Codex gates send the change a file tool makes as a unified diff of
//! the tool input against the file on disk (`context.diff`), bound by its SHA-256
//! (`context.diff_fingerprint`): proven to be a real diff with `git apply --check` in a real
//! repository, seen where the request reaches a real service.

use crate::gate_support::codex::{codex, spawn_codex};
use crate::gate_support::git::{GitRepo, LIB_RS};
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

    /// The context the Claude Code gate sends for `tool` with `input` (an edit inside the
    /// repository is auto, so the gate answers at once).
    fn send(&self, id: &str, tool: &str, input: Value) -> Value {
        let ran = gate(
            &self.tap.url,
            &self.service.requester,
            &["--wait", "1"],
            &payload("PreToolUse", "sess-diff", id, tool, input, &self.repo.root),
        );
        assert_eq!(ran.code, 0, "{tool}: the gate answers: {}", ran.stderr);
        self.tap.last()["context"].clone()
    }

    fn path(&self, rel: &str) -> String {
        self.repo.root.join(rel).to_string_lossy().into_owned()
    }
}

fn diff_of(context: &Value) -> String {
    context["diff"]
        .as_str()
        .unwrap_or_else(|| panic!("a diff is sent: {context}"))
        .to_owned()
}

fn sha256(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

#[test]
fn each_file_tool_sends_a_diff_that_git_applies() {
    let desk = Desk::new();
    desk.repo.write(
        "nb.ipynb",
        "{\n \"cells\": [\n  {\n   \"cell_type\": \"markdown\",\n   \"id\": \"intro\",\n   \"metadata\": {},\n   \"source\": [\n    \"# Hello\"\n   ]\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n",
    );
    desk.repo.commit("notebook");
    let lib = desk.path("src/lib.rs");
    let cases = [
        (
            "Edit",
            json!({"file_path": lib, "old_string": "a + b", "new_string": "a.wrapping_add(b)"}),
            "-    a + b\n+    a.wrapping_add(b)\n",
        ),
        (
            "MultiEdit",
            json!({"file_path": lib, "edits": [
                {"old_string": "a + b", "new_string": "b + a"},
                {"old_string": "a - b", "new_string": "b - a", "replace_all": true},
            ]}),
            "+    b - a\n",
        ),
        (
            "Write",
            json!({"file_path": desk.path("src/new.rs"), "content": "pub const X: u8 = 1;\n"}),
            "--- /dev/null\n+++ b/src/new.rs\n@@ -0,0 +1 @@\n+pub const X: u8 = 1;\n",
        ),
        (
            "Write",
            json!({"file_path": lib, "content": LIB_RS.replace("sub", "minus")}),
            "+pub fn minus(a: i32, b: i32) -> i32 {\n",
        ),
        (
            "NotebookEdit",
            json!({"notebook_path": desk.path("nb.ipynb"), "cell_id": "intro", "new_source": "# Goodbye"}),
            "-    \"# Hello\"\n+    \"# Goodbye\"\n",
        ),
    ];
    for (i, (tool, input, expected)) in cases.into_iter().enumerate() {
        let context = desk.send(&format!("t{i}"), tool, input);
        let diff = diff_of(&context);
        assert!(
            diff.contains(expected),
            "{tool}: the diff shows the change:\n{diff}"
        );
        assert!(
            diff.starts_with("--- a/") || diff.starts_with("--- /dev/null"),
            "{tool}: repo-relative names:\n{diff}"
        );
        desk.repo
            .applies(&diff)
            .unwrap_or_else(|why| panic!("{tool}: git applies the diff it sent:\n{diff}\n{why}"));
        assert_eq!(
            context["diff_fingerprint"],
            json!(sha256(&diff)),
            "{tool}: the fingerprint is the SHA-256 of the diff"
        );
    }
}

#[test]
fn the_fingerprint_is_stable_for_the_same_change_and_differs_for_another() {
    let desk = Desk::new();
    let edit = |new: &str| json!({"file_path": desk.path("src/lib.rs"), "old_string": "a - b", "new_string": new});
    let first = desk.send("f1", "Edit", edit("b - a"));
    let again = desk.send("f2", "Edit", edit("b - a"));
    let other = desk.send("f3", "Edit", edit("a.saturating_sub(b)"));
    assert_eq!(
        first["diff_fingerprint"], again["diff_fingerprint"],
        "the same change, the same fingerprint (a grant for it covers it)"
    );
    assert_ne!(
        first["diff_fingerprint"], other["diff_fingerprint"],
        "another change, another fingerprint (a grant for one never covers the other)"
    );
    desk.repo.write(
        "src/lib.rs",
        &LIB_RS.replace("pub fn sub", "pub(crate) fn sub"),
    );
    let moved = desk.send("f4", "Edit", edit("b - a"));
    assert_ne!(
        first["diff_fingerprint"], moved["diff_fingerprint"],
        "the same tool input on a changed file is another diff (its context moved)"
    );
}

#[test]
fn secrets_are_masked_in_the_diff_but_bound_in_the_fingerprint() {
    let desk = Desk::new();
    let content = "API_TOKEN = \"ghp_abcdefghijklmnopqrstuvwxyz0123456789\"\n";
    let context = desk.send(
        "s1",
        "Write",
        json!({"file_path": desk.path("src/config.py"), "content": content}),
    );
    let diff = diff_of(&context);
    assert!(
        !diff.contains("ghp_abcdefghijklmnop"),
        "the token never reaches the service's evidence:\n{diff}"
    );
    let unmasked = format!("--- /dev/null\n+++ b/src/config.py\n@@ -0,0 +1 @@\n+{content}");
    assert_eq!(
        context["diff_fingerprint"],
        json!(sha256(&unmasked)),
        "the fingerprint is over the unmasked diff, so two secrets are two changes"
    );
}

#[test]
fn a_codex_patch_is_sent_as_a_unified_diff() {
    let desk = Desk::new();
    desk.repo.write("gone.txt", "bye\n");
    desk.repo.commit("gone");
    let patch = "*** Begin Patch\n*** Update File: src/lib.rs\n@@ pub fn sub\n pub fn sub(a: i32, b: i32) -> i32 {\n-    a - b\n+    a.wrapping_sub(b)\n }\n\
                 *** Add File: src/more.rs\n+pub fn more() {}\n*** Delete File: gone.txt\n*** End Patch\n";
    let p = codex(
        "PreToolUse",
        "sess-codex",
        "c1",
        "apply_patch",
        json!({"command": patch}),
        &desk.repo.root,
    );
    let ran = finish(spawn_codex(
        &desk.tap.url,
        &desk.service.requester,
        // PreToolUse holds an ask for a person now: nobody answers here, only the request's
        // evidence is read.
        &["--wait", "1"],
        p.to_string().as_bytes(),
    ));
    assert_eq!(ran.code, 0, "the codex gate answers: {}", ran.stderr);
    let context = desk.tap.last()["context"].clone();
    let diff = diff_of(&context);
    assert!(
        diff.contains("--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -3,5 +3,5 @@"),
        "an update becomes a hunk with line numbers:\n{diff}"
    );
    assert!(
        diff.contains("--- a/gone.txt\n+++ /dev/null"),
        "a delete goes to /dev/null:\n{diff}"
    );
    desk.repo
        .applies(&diff)
        .unwrap_or_else(|why| panic!("git applies the converted patch:\n{diff}\n{why}"));
    assert_eq!(
        context["diff_fingerprint"],
        json!(sha256(&diff)),
        "the fingerprint is the diff's"
    );

    let stale = patch.replace("-    a - b", "-    a * b");
    let p = codex(
        "PreToolUse",
        "sess-codex",
        "c2",
        "apply_patch",
        json!({"command": stale}),
        &desk.repo.root,
    );
    finish(spawn_codex(
        &desk.tap.url,
        &desk.service.requester,
        // PreToolUse holds an ask for a person now: nobody answers here, only the request's
        // evidence is read.
        &["--wait", "1"],
        p.to_string().as_bytes(),
    ));
    let context = desk.tap.last()["context"].clone();
    assert!(
        context["diff_notes"][0]
            .as_str()
            .unwrap()
            .contains("does not match the file: the patch is shown as written"),
        "a patch that does not match is shown as written, with a note: {context}"
    );
    assert!(
        diff_of(&context).contains("-    a * b"),
        "the patch's own lines are the evidence then"
    );
}
