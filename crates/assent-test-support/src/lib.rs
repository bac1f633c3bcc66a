//! What the crates' tests share, written once: the audit chain's story and the tools an
//! attacker with write access tampers with it ([`audit`]), and a throwaway PostgreSQL cluster
//! ([`pg`]). A dev-dependency only: a fixture that cannot do its part fails the test loudly.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test fixtures: one that cannot do its part fails the test loudly"
)]

pub mod audit;
pub mod pg;
