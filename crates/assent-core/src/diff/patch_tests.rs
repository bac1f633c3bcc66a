#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use super::*;

const PATCH: &str = "*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** Update File: src/a.rs\n\
*** Move to: src/b.rs\n@@ fn a()\n fn a() {\n-    old();\n+    new();\n }\n*** Delete File: gone.txt\n*** End Patch\n";

#[test]
fn a_patch_reads_as_file_operations() {
    let ops = parse_patch(PATCH);
    let paths: Vec<&str> = ops.iter().map(|op| op.path.as_str()).collect();
    assert_eq!(
        paths,
        ["notes.txt", "src/a.rs", "gone.txt"],
        "one operation per file header"
    );
    assert_eq!(
        ops[0].change,
        PatchChange::Add("hello\n".into()),
        "an added file's content is its + lines"
    );
    let PatchChange::Update { move_to, chunks } = &ops[1].change else {
        panic!("an update: {:?}", ops[1]);
    };
    assert_eq!(move_to.as_deref(), Some("src/b.rs"), "the move is kept");
    assert_eq!(
        chunks,
        &[Chunk {
            old: vec!["fn a() {".into(), "    old();".into(), "}".into()],
            new: vec!["fn a() {".into(), "    new();".into(), "}".into()],
        }],
        "context is on both sides"
    );
    assert_eq!(ops[2].change, PatchChange::Delete, "a delete");
}

#[test]
fn chunks_apply_in_order_and_a_mismatch_is_said() {
    let chunks = [Chunk {
        old: vec!["b".into()],
        new: vec!["B".into(), "b2".into()],
    }];
    assert_eq!(
        apply_chunks("a\nb\nc\n", &chunks),
        Ok("a\nB\nb2\nc\n".into()),
        "the chunk's old lines are replaced where they stand"
    );
    assert_eq!(
        apply_chunks("a\nb  \nc", &chunks),
        Ok("a\nB\nb2\nc\n".into()),
        "trailing whitespace does not stop a match, as in Codex"
    );
    assert_eq!(
        apply_chunks("x\ny\n", &chunks),
        Err(PatchMismatch { index: 0 }),
        "a chunk that is not in the file is a mismatch, never a guess"
    );
}
