//! assent-cli's integration tests in one binary: the real `assent` binary
//! (`CARGO_BIN_EXE_assent`) driven as hooks, agents and people drive it, each former test file
//! a module, sharing `gate_support` (a service, payloads, the gate) and `agents_support` (the
//! pinned agent CLIs and a scripted model), linked once.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests"
)]

mod agents_support;
mod gate_support;
// The throwaway PostgreSQL cluster, for `assent serve` replicas.
use assent_test_support::pg;

mod agents_claude_code;
mod agents_codex;
mod agents_copilot;
mod agents_gemini;
mod agents_one_desk;
mod agents_opencode;
mod agents_reviewer;
mod agents_stories;
mod audit_cli;
mod audit_tamper;
mod capability_exec;
mod doctor;
mod gate_base_sha;
mod gate_claude_code;
mod gate_codex;
mod gate_codex_fail_closed;
mod gate_cursor;
mod gate_denial_memory;
mod gate_diff_bad_input;
mod gate_diff_invalidation;
mod gate_edit_diff;
mod gate_evidence_truth;
mod gate_fail_closed;
mod gate_fast_binary;
mod gate_pr_after_commit;
mod gate_self_protection;
mod gate_timeout_fallback;
mod install_agents;
mod install_claude_code;
mod install_codex;
mod mcp_permission_tool;
mod mcp_tasks;
mod people_cli;
mod people_invite;
mod policy_cli;
mod policy_suggest;
mod request_diff;
mod request_exception;
mod request_exec;
mod reviewer_cli;
mod runs_fleet_cli;
mod sandbox_agents;
mod sandbox_cli;
mod serve_disk_full;
mod serve_team;
mod team_replicas;
mod webhooks_cli;
