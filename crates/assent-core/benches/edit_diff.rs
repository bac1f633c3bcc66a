//! An agent's `Edit` as the gate shows it: the edit applied to the file (`edited_content`) and
//! the unified diff of the two versions (`ChangeSet::push_file`), for a 300-line and a
//! 15,000-line file changed in one line. Beside it, the same diff of the whole files (similar's
//! line diff, what `push_file` ran before it cut the files' common ends): the work one call
//! used to do, in the same run.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "bench")]

use assent_core::diff::{ChangeSet, Side};
use assent_core::diff_edit::edited_content;
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use similar::{Algorithm, TextDiff};

fn file(functions: usize) -> String {
    (0..functions)
        .map(|i| format!("pub fn g{i}(x: i32) -> i32 {{\n    x * {i}\n}}\n"))
        .collect()
}

fn bench(c: &mut Criterion) {
    for lines in [300, 15_000] {
        let old = file(lines / 3);
        let middle = lines / 6;
        let edit = serde_json::json!({
            "file_path": "/repo/src/big.rs",
            "old_string": format!("    x * {middle}\n"),
            "new_string": format!("    x.wrapping_mul({middle})\n"),
        });
        let new = edited_content("Edit", &edit, Some(&old)).unwrap();
        c.bench_function(&format!("edit {lines} lines: apply"), |b| {
            b.iter(|| edited_content("Edit", black_box(&edit), Some(black_box(&old))).unwrap());
        });
        c.bench_function(&format!("edit {lines} lines: diff"), |b| {
            b.iter(|| {
                let mut set = ChangeSet::new();
                let (old, new) = (Side::Bytes(old.as_bytes()), Side::Bytes(new.as_bytes()));
                set.push_file("src/big.rs", black_box(old), black_box(new), None);
                set
            });
        });
        c.bench_function(
            &format!("edit {lines} lines: diff of the whole files"),
            |b| {
                b.iter(|| {
                    let mut config = TextDiff::configure();
                    config.algorithm(Algorithm::Myers);
                    config
                        .diff_lines(black_box(old.as_str()), black_box(new.as_str()))
                        .unified_diff()
                        .context_radius(3)
                        .header("a/src/big.rs", "b/src/big.rs")
                        .to_string()
                });
            },
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
