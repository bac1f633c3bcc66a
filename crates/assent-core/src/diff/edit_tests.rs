#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use super::*;
use serde_json::json;

/// tool, input, the file's content (`None`: absent), what the tool leaves there.
type Row = (
    &'static str,
    Value,
    Option<&'static str>,
    Result<&'static str, EditError>,
);

#[test]
fn edits_apply_as_claude_code_applies_them() {
    let rows: [Row; 8] = [
        (
            "Write",
            json!({"content": "new\n"}),
            Some("old\n"),
            Ok("new\n"),
        ),
        ("Write", json!({"content": "new\n"}), None, Ok("new\n")),
        (
            "Edit",
            json!({"old_string": "b", "new_string": "B"}),
            Some("a b c"),
            Ok("a B c"),
        ),
        (
            "Edit",
            json!({"old_string": "x", "new_string": "y"}),
            Some("a b"),
            Err(EditError::NotFound { index: 0 }),
        ),
        (
            "Edit",
            json!({"old_string": "a", "new_string": "y"}),
            Some("a a"),
            Err(EditError::NotUnique { index: 0, count: 2 }),
        ),
        (
            "Edit",
            json!({"old_string": "a", "new_string": "y", "replace_all": true}),
            Some("a a"),
            Ok("y y"),
        ),
        (
            "Edit",
            json!({"old_string": "", "new_string": "fresh"}),
            None,
            Ok("fresh"),
        ),
        (
            "MultiEdit",
            json!({"edits": [
                {"old_string": "one", "new_string": "two"},
                {"old_string": "two two", "new_string": "three"},
            ]}),
            Some("one two"),
            Ok("three"),
        ),
    ];
    for (tool, input, old, want) in rows {
        assert_eq!(
            edited_content(tool, &input, old),
            want.map(str::to_owned),
            "{tool} {input} on {old:?}: each edit sees the previous one's result"
        );
    }
}

#[test]
fn notebook_cells_are_replaced_inserted_and_deleted() {
    let notebook = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 1,\n   \"id\": \"abc\",\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"print(1)\"\n   ]\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";
    let replaced = edited_content(
        "NotebookEdit",
        &json!({"notebook_path": "/r/n.ipynb", "cell_id": "abc", "new_source": "print(2)\nprint(3)"}),
        Some(notebook),
    )
    .unwrap();
    assert!(
        replaced.contains("\"print(2)\\n\",\n    \"print(3)\""),
        "the cell's source is the new lines: {replaced}"
    );
    assert!(
        replaced.starts_with("{\n \"cells\""),
        "written back as Jupyter writes it, so the diff is the cell only"
    );
    let inserted = edited_content(
        "NotebookEdit",
        &json!({"cell_id": "cell-0", "edit_mode": "insert", "cell_type": "markdown", "new_source": "# Title"}),
        Some(notebook),
    )
    .unwrap();
    assert!(
        inserted.contains("\"markdown\""),
        "a cell is inserted: {inserted}"
    );
    let deleted = edited_content(
        "NotebookEdit",
        &json!({"cell_id": "abc", "edit_mode": "delete", "new_source": ""}),
        Some(notebook),
    )
    .unwrap();
    assert!(
        deleted.contains("\"cells\": []"),
        "the cell is gone: {deleted}"
    );
    assert_eq!(
        edited_content("NotebookEdit", &json!({"cell_id": "zzz"}), Some(notebook)),
        Err(EditError::NoCell("zzz".into())),
        "an unknown cell is said, not guessed"
    );
}

#[test]
fn the_written_path_is_the_tools_own_field() {
    assert_eq!(
        edit_path("NotebookEdit", &json!({"notebook_path": "/r/a.ipynb"})),
        Some("/r/a.ipynb"),
        "notebooks name their path differently"
    );
    assert_eq!(
        edit_path("Edit", &json!({"file_path": "/r/a.rs"})),
        Some("/r/a.rs"),
        "Edit names file_path"
    );
    assert_eq!(
        edit_path("Bash", &json!({"file_path": "/r/a.rs"})),
        None,
        "only file tools write a file"
    );
}

proptest::proptest! {
    /// An edit is applied where `memmem` found `old_string`, not by searching again: the file
    /// written is `str::replace`'s (every occurrence, or the one there is), whatever the text
    /// (overlapping candidates such as `aa` in `aaa`, characters of several bytes).
    #[test]
    fn an_edit_replaces_what_str_replace_replaces(
        content in proptest::collection::vec(proptest::sample::select(vec!["a", "b", "é", "ab", "\n"]), 0..30),
        old in proptest::sample::select(vec!["a", "aa", "ab", "é", "bé", "\na"]),
        new in proptest::sample::select(vec!["", "x", "aa", "ü\n"]),
    ) {
        let content = content.concat();
        let edit = serde_json::json!({"old_string": old, "new_string": new, "replace_all": true});
        let count = content.matches(old).count();
        let all = apply_edit(&content, true, 0, &edit);
        let once = apply_edit(&content, true, 0, &serde_json::json!({"old_string": old, "new_string": new}));
        if count == 0 {
            proptest::prop_assert!(all.is_err() && once.is_err(), "nothing to replace is an error");
        } else {
            proptest::prop_assert_eq!(all.ok(), Some(content.replace(old, new)));
            if count == 1 {
                proptest::prop_assert_eq!(once.ok(), Some(content.replacen(old, new, 1)));
            } else {
                proptest::prop_assert!(
                    matches!(once, Err(EditError::NotUnique { count: c, .. }) if c == count),
                    "{count} occurrences without replace_all is refused, naming the count"
                );
            }
        }
    }
}
