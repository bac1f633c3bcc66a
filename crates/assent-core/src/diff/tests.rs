#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use super::*;
use proptest::strategy::Strategy;
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

/// What the policy's own glob sets (`globset`, as `policy.toml` patterns are built, on `/` +
/// the path) say of `path`: the reference [`is_secret_file`] must agree with.
fn secret_by_policy_globs(path: &str) -> bool {
    let set = |patterns: &'static [&'static str]| {
        let globs: Vec<String> = in_repository(patterns).map(str::to_owned).collect();
        crate::policy::glob::glob_set(&globs, true).unwrap()
    };
    let candidate = format!("/{path}");
    set(SENSITIVE).is_match(&candidate) && !set(NOT_SENSITIVE).is_match(&candidate)
}

#[test]
fn secret_files_match_the_policy_globs_on_known_names() {
    for path in [
        ".env",
        "a/.env",
        ".env.local",
        "a/b/.env.production",
        "x.env",
        ".envrc",
        "k.pem",
        "a/k.key",
        "id_rsa",
        "id_rsa.pub",
        "a/id_ed25519",
        "authorized_keys",
        "a/.ssh/config",
        ".ssh/known_hosts",
        "ssh/config",
        "service-account-prod.json",
        "a/service-account.json",
        "credentials.json",
        "a/credentials.json.bak",
        ".env.example",
        "a/.env.sample",
        "x.pub",
        "k.keychain-db",
        "store.jks",
        "a.p12",
        ".htpasswd",
        "src/lib.rs",
        "env",
        ".env/x",
        "a/.envrc/b",
        "[x].env",
        "a/{b}/.env",
        "a\\b/.env",
        "é/.env",
        "",
    ] {
        assert_eq!(
            is_secret_file(path),
            secret_by_policy_globs(path),
            "{path:?}: the gate's matcher and the policy's glob sets must agree, or a secret \
             file's content would reach the service"
        );
    }
}

proptest::proptest! {
    /// Paths built from secret names, their near misses, separators and glob metacharacters:
    /// the matcher without a compile step answers as the policy's glob sets do.
    #[test]
    fn secret_files_match_the_policy_globs(
        parts in proptest::collection::vec(proptest::prop_oneof![
            proptest::sample::select(vec![
                ".env", ".env.", ".envrc", "env", ".ssh", "ssh", "id_rsa", "id_dsa", "id_ecdsa",
                "id_ed25519", ".pub", ".pem", ".key", ".p12", ".pfx", ".jks", ".keystore",
                ".keychain", "-db", "authorized_keys", ".htpasswd", "credentials", ".json",
                "service-account", ".example", ".sample", ".template", ".dist", "/", "/", "/",
                ".", "*", "?", "[", "]", "{", "}", ",", "\\", "é", "src", "lib.rs",
            ]).prop_map(str::to_owned),
            "[a-z0-9._-]{0,4}",
        ], 0..8)
    ) {
        let path = parts.concat();
        proptest::prop_assert_eq!(is_secret_file(&path), secret_by_policy_globs(&path), "{:?}", path);
    }
}

/// The diff of the whole files, as `push_text` made it before it cut their common ends.
fn whole_files_diff(old: &str, new: &str) -> String {
    let mut config = TextDiff::configure();
    config.algorithm(Algorithm::Myers);
    let text = config
        .diff_lines(old, new)
        .unified_diff()
        .context_radius(CONTEXT_LINES)
        .header("a/f", "b/f")
        .to_string();
    let mut set = ChangeSet::new();
    set.push_raw(&text);
    set.diff().to_owned()
}

fn pushed_diff(old: &str, new: &str) -> String {
    one(
        "f",
        Side::Bytes(old.as_bytes()),
        Side::Bytes(new.as_bytes()),
    )
    .diff()
    .to_owned()
}

#[test]
fn an_edit_deep_in_a_file_is_numbered_as_in_the_whole_file() {
    let old: String = (1..=300).map(|i| format!("line {i}\n")).collect();
    let new = old.replace("line 150\n", "line 150, edited\nand one more\n");
    let diff = pushed_diff(&old, &new);
    assert!(
        diff.contains("@@ -147,7 +147,8 @@\n line 147\n"),
        "the hunk starts three lines above line 150, numbered in the whole file: {diff}"
    );
    assert_eq!(
        diff,
        whole_files_diff(&old, &new),
        "and it is the whole files' diff"
    );
    let at_the_end = old.replace("line 299\nline 300\n", "line 299\nline 300");
    assert_eq!(
        pushed_diff(&old, &at_the_end),
        whole_files_diff(&old, &at_the_end),
        "a newline lost at the end is shown as the whole files' diff shows it"
    );
    assert!(pushed_diff(&old, &old).is_empty(), "no change, no hunk");
}

/// A line longer than the blocks `common_prefix` and `common_suffix` compare at once.
const LONG_LINE: &str = "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz\
    0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz\
    0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz\
    0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz\n";

proptest::proptest! {
    /// Files of repeated lines (so a change could be placed in more than one way), every line
    /// ending (`\n`, `\r\n`, a lone `\r`, none at the end), some longer than a block of the
    /// byte comparison, edited in a few places — whole lines, or bytes inside a line (an `x`
    /// or a `\r` without its `\n` joins the line after it): the diff of
    /// the lines around the change is the whole files' diff, byte for byte — a grant bound to
    /// a diff's fingerprint still binds to the same change.
    #[test]
    fn a_diff_of_the_lines_around_the_change_is_the_whole_files_diff(
        old in proptest::collection::vec(
            proptest::sample::select(vec!["a\n", "b\n", "a\n", "\n", "c\r\n", "d\r", "}\n", LONG_LINE]), 0..60),
        last in proptest::sample::select(vec!["", "tail", "a\n"]),
        edits in proptest::collection::vec((
            proptest::sample::select((0..64).collect::<Vec<usize>>()),
            0..4usize,
            proptest::collection::vec(proptest::sample::select(vec!["a\n", "x\n", "\n", "c\r\n", "e\r", "x", "\r", LONG_LINE]), 0..4),
        ), 0..4),
    ) {
        let mut old: Vec<&str> = old;
        old.push(last);
        let mut new = old.clone();
        for (at, deleted, inserted) in edits {
            let at = at.min(new.len());
            let end = (at + deleted).min(new.len());
            new.splice(at..end, inserted);
        }
        let (old, new) = (old.concat(), new.concat());
        proptest::prop_assert_eq!(pushed_diff(&old, &new), whole_files_diff(&old, &new));
    }
}

proptest::proptest! {
    /// `around_the_change` counts the lines it cuts as the diff splits them, so the hunks it
    /// renumbers land on the whole files' line numbers.
    #[test]
    fn lines_are_counted_as_the_diff_splits_them(
        text in proptest::collection::vec(
            proptest::sample::select(vec!["a", "\n", "\r", "\r\n", "é"]), 0..40),
    ) {
        let text = text.concat();
        proptest::prop_assert_eq!(lines_in(text.as_bytes()), text.tokenize_lines().len(), "{:?}", text);
    }
}
