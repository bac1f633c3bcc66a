//! assent-client's integration tests in one binary: the typed clients against a real
//! in-process service, each former test file a module, linked once.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]

mod audit;
mod client_service;
mod tls;
