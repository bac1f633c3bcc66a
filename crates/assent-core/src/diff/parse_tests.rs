use proptest::prelude::*;

use super::*;

const WORKFLOW: &str = "diff --git a/.github/workflows/build.yml b/.github/workflows/build.yml
index 1111111..2222222 100644
--- a/.github/workflows/build.yml
+++ b/.github/workflows/build.yml
@@ -1,4 +1,5 @@
 name: build
-on: [push]
+on: [push, pull_request]
+permissions: write-all
 jobs:
   build:
";

#[test]
fn a_git_diff_names_its_file_and_counts_its_lines() {
    let d = parse(WORKFLOW);
    assert_eq!(d.files.len(), 1, "one file changes: {d:?}");
    let f = &d.files[0];
    assert_eq!(
        f.path, ".github/workflows/build.yml",
        "the b/ name without its prefix"
    );
    assert_eq!(f.change, FileChange::Modified, "both sides exist");
    assert_eq!(
        f.added,
        vec!["on: [push, pull_request]", "permissions: write-all"],
        "added lines without their +"
    );
    assert_eq!(
        f.removed,
        vec!["on: [push]"],
        "removed lines without their -"
    );
    assert!(
        d.notes.is_empty(),
        "a well-formed diff needs no note: {:?}",
        d.notes
    );
}

#[test]
fn added_deleted_renamed_and_binary_files_are_told_apart() {
    let text = "diff --git a/tests/old_test.rs b/tests/old_test.rs
deleted file mode 100644
--- a/tests/old_test.rs
+++ /dev/null
@@ -1,3 +0,0 @@
-#[test]
-fn works() { assert!(true); }
-
diff --git a/new.txt b/new.txt
new file mode 100644
--- /dev/null
+++ b/new.txt
@@ -0,0 +1 @@
+hello
diff --git a/old name.rs b/new name.rs
similarity index 100%
rename from old name.rs
rename to new name.rs
diff --git a/logo.png b/logo.png
Binary files a/logo.png and b/logo.png differ
--- plain.c\t2026-01-01 00:00:00
+++ plain.c\t2026-01-02 00:00:00
@@ -5 +5 @@
-int x = 1;
+int x = 2;
";
    let d = parse(text);
    let by = |p: &str| d.files.iter().find(|f| f.path == p);
    let deleted = by("tests/old_test.rs").map(|f| (f.change, f.removed.len()));
    assert_eq!(
        deleted,
        Some((FileChange::Deleted, 3)),
        "a deleted file keeps its old name and its lines"
    );
    assert_eq!(
        by("new.txt").map(|f| f.change),
        Some(FileChange::Added),
        "/dev/null before means added"
    );
    assert!(
        by("new name.rs").is_some(),
        "a rename is named by its new name: {d:?}"
    );
    assert_eq!(
        by("logo.png").map(|f| f.binary),
        Some(true),
        "a binary file is marked, not read"
    );
    let plain = by("plain.c").map(|f| (f.added.len(), f.removed.len()));
    assert_eq!(
        plain,
        Some((1, 1)),
        "a `diff -u` file with timestamps and `@@ -5 +5 @@` (count 1) is read"
    );
    assert_eq!(d.files.len(), 5, "five files: {d:?}");
}

#[test]
fn a_removed_line_that_looks_like_a_header_stays_in_its_hunk() {
    let text = "--- a/notes.md
+++ b/notes.md
@@ -1,2 +1,1 @@
--- a/not-a-file
-+++ b/not-a-file
+one line
";
    let d = parse(text);
    assert_eq!(
        d.files.len(),
        1,
        "the counts of the hunk say those lines are removed lines: {d:?}"
    );
    assert_eq!(
        d.files[0].removed.len(),
        2,
        "both header-like lines are removed lines"
    );
}

#[test]
fn hostile_input_is_read_with_notes_never_a_panic() {
    let cases = [
        "",
        "@@ -1,2 +1,2 @@\n+x\n",
        "@@ garbage @@\n+x\n",
        "diff --git\n",
        "--- \n+++ \n@@ -99999999999999999999999,1 +1,1 @@\n",
        "Binary files  and  differ\n",
        "\u{0}\u{202e}--- a/x\n+++ b/x\n@@ -1 +1 @@\n-\u{0}\n+\u{202e}\n",
        "--- a/x\n+++ b/x\n@@ -1,4294967296 +1,1 @@\n-a\n",
    ];
    for text in cases {
        let d = parse(text);
        assert!(
            d.files.len() <= 2,
            "nothing invents files from {text:?}: {d:?}"
        );
    }
    let unnamed = parse("@@ -1,2 +1,2 @@\n+x\n");
    assert_eq!(
        unnamed.files.first().map(|f| f.path.as_str()),
        Some("(unnamed)"),
        "a hunk with no header is still counted"
    );
    assert!(!unnamed.notes.is_empty(), "and said so");
    let bad = parse("--- a/x\n+++ b/x\n@@ garbage @@\n+x\n");
    assert!(
        bad.notes
            .iter()
            .any(|n| n.contains("unreadable hunk header")),
        "an unreadable @@ line is noted: {bad:?}"
    );
}

#[test]
fn the_same_file_twice_is_one_entry() {
    let text =
        "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/x\n+++ b/x\n@@ -9 +9,2 @@\n-c\n+d\n+e\n";
    let d = parse(text);
    assert_eq!(d.files.len(), 1, "two diffs of one file merge");
    assert_eq!(
        (d.files[0].added.len(), d.files[0].removed.len()),
        (3, 2),
        "their lines add up"
    );
}

/// A diff of `files`, each with `removed` and `added` lines.
fn diff_of(files: &[(String, usize, usize)]) -> String {
    let mut out = String::new();
    for (name, removed, added) in files {
        out.push_str(&format!(
            "diff --git a/{name} b/{name}\n--- a/{name}\n+++ b/{name}\n"
        ));
        out.push_str(&format!(
            "@@ -1,{} +1,{} @@\n ctx\n",
            removed + 1,
            added + 1
        ));
        for i in 0..*removed {
            out.push_str(&format!("--- old {i}\n"));
        }
        for i in 0..*added {
            out.push_str(&format!("++ new {i}\n"));
        }
    }
    out
}

proptest! {
    #[test]
    fn any_text_parses_within_bounds(text in "\\PC{0,400}") {
        let d = parse(&text);
        let lines = text.split('\n').count();
        let counted: usize = d.files.iter().map(|f| f.added.len() + f.removed.len()).sum();
        prop_assert!(counted <= lines, "no more changed lines than lines");
        prop_assert!(d.files.len() <= MAX_FILES);
    }

    #[test]
    fn diff_shaped_noise_never_panics(parts in proptest::collection::vec(
        prop_oneof![
            Just("diff --git a/x b/y".to_owned()), Just("--- a/x".to_owned()), Just("+++ b/x".to_owned()),
            Just("--- /dev/null".to_owned()), Just("+++ /dev/null".to_owned()), Just("@@ -1,3 +1,2 @@".to_owned()),
            Just("@@ -0,0 +1 @@".to_owned()), Just("new file mode 100644".to_owned()), Just("deleted file mode 100644".to_owned()),
            Just("Binary files a/x and b/x differ".to_owned()), Just("rename to z".to_owned()), Just("\\ No newline".to_owned()),
            "[-+ ][a-z]{0,5}",
        ], 0..60)) {
        let text = parts.join("\n");
        let d = parse(&text);
        prop_assert!(d.files.len() <= parts.len(), "every file comes from at least one line");
    }

    #[test]
    fn counts_of_a_well_formed_diff_are_exact(files in proptest::collection::vec(
        ("[a-z]{1,8}(/[a-z]{1,8}){0,2}\\.(rs|yml|lock)", 0usize..20, 0usize..20), 1..6)) {
        let mut unique = files.clone();
        unique.sort();
        unique.dedup_by(|a, b| a.0 == b.0);
        let text = diff_of(&unique);
        let d = parse(&text);
        prop_assert_eq!(d.files.len(), unique.len(), "every file is read once");
        for (f, (name, removed, added)) in d.files.iter().zip(&unique) {
            prop_assert_eq!(&f.path, name);
            prop_assert_eq!(f.removed.len(), *removed, "lines reading `--- …` are removed lines");
            prop_assert_eq!(f.added.len(), *added, "lines reading `++ …` are added lines");
        }
    }
}
