#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use super::*;
use sha2::{Digest, Sha256};

fn one(path: &str, old: Side<'_>, new: Side<'_>) -> ChangeSet {
    let mut set = ChangeSet::new();
    set.push_file(path, old, new, None);
    set
}

#[test]
fn a_change_is_a_unified_diff_with_repo_relative_names() {
    let set = one(
        "src/lib.rs",
        Side::Bytes(b"a\nb\nc\n"),
        Side::Bytes(b"a\nB\nc\n"),
    );
    assert_eq!(
        set.diff(),
        "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
        "git's unified format, paths under a/ and b/"
    );
    assert!(set.notes().is_empty(), "a text change needs no note");
}

#[test]
fn created_and_deleted_files_name_dev_null() {
    let created = one("new.txt", Side::Absent, Side::Bytes(b"hi\n"));
    assert_eq!(
        created.diff(),
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n",
        "a new file comes from /dev/null"
    );
    let deleted = one("old.txt", Side::Bytes(b"bye"), Side::Absent);
    assert_eq!(
        deleted.diff(),
        "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n\\ No newline at end of file\n",
        "a deleted file goes to /dev/null, the missing final newline said as git says it"
    );
}

#[test]
fn binary_sides_are_counted_not_shown() {
    let set = one(
        "logo.png",
        Side::Bytes(b"\x89PNG\0\x01"),
        Side::Bytes(b"\x89PNG\0\x02"),
    );
    let old_hash = hex::encode(Sha256::digest(b"\x89PNG\0\x01"));
    let new_hash = hex::encode(Sha256::digest(b"\x89PNG\0\x02"));
    assert_eq!(
        set.diff(),
        format!(
            "diff --git a/logo.png b/logo.png\nindex {old_hash}..{new_hash}\n\
             Binary files a/logo.png and b/logo.png differ\n"
        ),
        "a binary change in git's form, its index line binding the exact bytes"
    );
    let added = one("new.bin", Side::Absent, Side::Bytes(b"\0"));
    assert!(
        added.diff().contains("new file mode 100644\nindex 0000")
            && added
                .diff()
                .contains("Binary files /dev/null and b/new.bin differ"),
        "an added binary file comes from /dev/null: {}",
        added.diff()
    );
    assert_eq!(set.notes(), ["binary file: logo.png"], "and a note");
    let invalid = one("x.txt", Side::Bytes(b"ok\xff\n"), Side::Bytes(b"ok\n"));
    assert_eq!(
        invalid.notes(),
        ["binary file: x.txt"],
        "bytes that are not UTF-8 are not shown as text"
    );
}

#[test]
fn attach_masks_caps_and_fingerprints_the_whole_diff() {
    let secret = "token = \"ghp_abcdefghijklmnopqrstuvwxyz012345\"\n";
    let mut big = String::new();
    while big.len() < MAX_DIFF_BYTES + 10_000 {
        big.push_str("line of filler text that repeats\n");
    }
    let new = format!("{secret}{big}");
    let set = one("conf.py", Side::Absent, Side::Bytes(new.as_bytes()));
    let full = set.diff().to_owned();
    let mut context = ActionContext::default();
    set.attach(&mut context);
    let shown = context.diff.expect("a diff is sent");
    assert!(
        !shown.contains("ghp_abcdefghijklmnop"),
        "secrets are masked in what is shown"
    );
    assert!(shown.len() <= MAX_DIFF_BYTES, "the diff is capped");
    assert!(shown.ends_with('\n'), "cut on a line boundary");
    assert_eq!(
        context.diff_fingerprint.as_deref(),
        Some(fingerprint(&full).as_str()),
        "the fingerprint is over the whole, unmasked diff"
    );
    assert!(
        context
            .diff_notes
            .iter()
            .any(|n| n.starts_with("diff cut at 256 KiB")),
        "the cut is said: {:?}",
        context.diff_notes
    );
}

#[test]
fn no_change_keeps_the_callers_fingerprint() {
    let set = one("a.txt", Side::Bytes(b"same\n"), Side::Bytes(b"same\n"));
    let mut context = ActionContext {
        diff_fingerprint: Some("tool-input".into()),
        ..ActionContext::default()
    };
    set.attach(&mut context);
    assert_eq!(context.diff, None, "nothing changes, nothing to show");
    assert_eq!(
        context.diff_fingerprint.as_deref(),
        Some("tool-input"),
        "a grant still binds to the tool input"
    );
}

#[test]
fn secret_files_are_known_by_name() {
    for path in [
        ".env",
        "config/.env.production",
        "certs/server.pem",
        "keys/id_rsa",
        "deploy/credentials.json",
    ] {
        assert!(
            is_secret_file(path),
            "{path} is a secret file: never read for a diff"
        );
    }
    for path in ["src/lib.rs", ".env.example", "keys/id_rsa.pub", "README.md"] {
        assert!(!is_secret_file(path), "{path} is an ordinary file");
    }
}
