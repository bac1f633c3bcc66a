//! Assent's own places, routes and gate binary, and the secrets beyond the policy's globs:
//! what an agent may not read, change or reach around.

pub(crate) mod binary;
pub mod places;
pub(crate) mod routes;
pub(crate) mod secrets;
