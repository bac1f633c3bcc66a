//! `diff_risk` in the risk input, derived from what the request says.

use crate::common::*;
use assent_core::{ActionKind, DiffRisk};

#[test]
fn diff_risk_follows_what_the_action_may_change() {
    let many: Vec<String> = (0..30).map(|i| format!("src/f{i}.rs")).collect();
    for (request, expected, why) in [
        (
            shell("git status"),
            DiffRisk::Small,
            "reading changes nothing",
        ),
        (
            shell("cargo test"),
            DiffRisk::Small,
            "a build only writes its outputs",
        ),
        (
            file(ActionKind::FileWrite, "src/lib.rs"),
            DiffRisk::Small,
            "one source file",
        ),
        (
            file(ActionKind::FileWrite, "Cargo.lock"),
            DiffRisk::Medium,
            "a lockfile",
        ),
        (shell("touch a b c d e"), DiffRisk::Medium, "five files"),
        (
            shell(&format!("touch {}", many.join(" "))),
            DiffRisk::Large,
            "thirty files",
        ),
        (
            file(ActionKind::FileWrite, ".github/workflows/ci.yml"),
            DiffRisk::Wide,
            "CI configuration",
        ),
        (shell("rm -rf /"), DiffRisk::Wide, "a destructive command"),
    ] {
        assert_eq!(
            eval_default(&request).risk_input.diff_risk,
            expected,
            "{why}: {:?}",
            request.action
        );
    }
}
