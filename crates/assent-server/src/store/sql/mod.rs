//! The statements of both backends, written once. This folder is compiled twice, as
//! `store::pg::sql` and `store::sqlite::sql`: each backend's folder declares it after its
//! `backend` module (`pg/backend.rs`, `sqlite/backend.rs`: the connection and row types, and
//! the dialect macros `skip_locked!`, `for_update!`, `json_text!`), which the files here reach
//! as `super::backend`.

use super::backend;

pub mod actions;
pub mod approvals;
pub mod campaigns;
pub mod chain;
pub mod chain_start;
pub mod codec;
pub mod events;
pub mod executed;
pub mod expiry;
pub mod grants;
pub mod identities;
pub mod metrics;
pub mod push;
pub mod routing;
pub mod runs;
pub mod signin;
pub mod stmt;
mod store;
mod tx;
pub mod webhooks;
