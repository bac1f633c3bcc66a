//! An approval's life: its checked states, who may decide it, and the audit trail.

pub mod audit;
pub mod authority;
pub mod status;
