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
mod bypass;
mod campaigns;
mod diff_risk;
mod discard_work;
mod drills;
mod everyday_work;
mod evidence_table;
mod evidence_truth;
mod fuzz_regressions;
mod grants;
mod hook_and_policy;
mod hostile;
mod invalidation;
mod judgment;
mod machine_damage;
mod other_platforms;
mod properties;
mod remote_destruction;
mod reviewer;
mod routing;
mod scenarios;
mod secret_stores;
mod secrets_written;
mod security_tooling;
mod self_protection;
mod symlinks;
mod true_reasons;
mod weakened_and_deploy;
mod workflow;
