//! assent-core's integration tests in one binary: each file a module, sharing `common`'s
//! builders, linked once.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]

mod common;

mod blind_spots;
mod campaigns;
mod diff_risk;
mod evidence_table;
mod evidence_truth;
mod fuzz_regressions;
mod grants;
mod hook_and_policy;
mod hostile;
mod invalidation;
mod judgment;
mod properties;
mod routing;
mod scenarios;
mod security_tooling;
mod self_protection;
mod symlinks;
mod workflow;
