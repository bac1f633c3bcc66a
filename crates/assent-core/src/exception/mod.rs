//! Exceptions: a person (a security reviewer) lets an action go past a policy finding further
//! than a normal grant may — longer (up to the policy's `max_exception_lifetime`) and wider
//! (every run in one repository). What may be excepted is the policy's `[exceptions]` section:
//! every ask/escalate rule unless `not_exceptionable` names it, a block rule only when
//! `exceptionable_blocks` marks it, and secret reads and Assent's self-protection never.

pub(crate) mod eval;

use serde::{Deserialize, Serialize};

/// `context.exception` of a request: it asks for an exception to `rule`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExceptionAsk {
    /// The rule to go past, as the policy names it (`ask.network`, `block.pipe_to_shell`).
    pub rule: String,
    /// How long the exception lasts, in seconds; the policy's `max_exception_lifetime` when
    /// absent. Longer than that is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifetime_seconds: Option<i64>,
    /// The hosts it holds for, instead of this one command: the grant then covers any action
    /// of this kind in the repository whose every network target is on them (and which
    /// triggers only the rules it sets aside). They must be exactly the hosts the command
    /// reaches.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
}

/// What an exception approval shows: the rule, the finding, for how long and where, why the
/// agent asks, and the command.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ExceptionPacket {
    /// The rule the exception goes past (`ask.network`).
    pub rule: String,
    /// What the rule found about the command ("reaches pkg.example.com, outside the allowlist").
    pub finding: String,
    /// Every rule the command triggers that the exception sets aside (the named one first).
    #[serde(default)]
    #[schema(required)]
    pub rules: Vec<String>,
    /// How long the exception lasts (seconds).
    pub lifetime_seconds: i64,
    /// The repository it holds in: every run there.
    pub repo: String,
    /// Why the agent (or the person asking) wants it.
    #[serde(default)]
    pub reason: String,
    /// The command the exception covers (`command` is the evidence's argv); with `hosts`,
    /// the command it was asked with.
    pub covered_command: String,
    /// When set, it covers any action reaching only these hosts, not just the command.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
}

impl ExceptionPacket {
    /// One line for a notification: "Exception · shop: reaches pkg.example.com for 30 d
    /// (ask.network)", the finding cut so the line stays short.
    pub fn line(&self) -> String {
        let repo = self
            .repo
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or_default();
        let finding = if self.hosts.is_empty() {
            cut(&self.finding, 48)
        } else {
            cut(&format!("anything reaching {}", self.hosts.join(", ")), 48)
        };
        format!(
            "Exception · {repo}: {finding} for {} ({})",
            crate::text::span_days(self.lifetime_seconds),
            self.rule
        )
    }
}

/// `[exceptions]` of the policy.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExceptionPolicy {
    /// Ask/escalate rules no exception may go past (extends the defaults).
    #[serde(default)]
    pub not_exceptionable: Vec<String>,
    /// Block rules an exception may go past, each for the commands its `match` glob names.
    #[serde(default)]
    pub exceptionable_blocks: Vec<ExceptionableBlock>,
}

/// A block rule marked exceptionable: `{ rule = "block.pipe_to_shell", match = "curl * https://get.vendor.example/* | sh" }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExceptionableBlock {
    pub rule: String,
    /// A glob on the command line (whitespace collapsed, `*` crosses `/`); every command the
    /// rule blocks when absent.
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub matches: Option<String>,
}

/// The default longest exception: 30 days.
pub const DEFAULT_MAX_EXCEPTION_LIFETIME: i64 = 30 * 24 * 3600;

/// Rules no policy can make exceptionable: secret reads (a capability is the way to use a
/// secret) and Assent's protection of itself.
pub const NEVER_EXCEPTIONABLE: &[&str] = &[
    "block.secret_path",
    "block.secret_store",
    "block.capability_source",
    "block.exfiltration",
    "block.assent_admin",
    "block.assent_files",
    "block.assent_route",
    "block.hook_config",
];

/// The ask/escalate rules not exceptionable by default: reading credentials, deleting and
/// rewriting history (destructive), hidden text, and the approval types with their own
/// bounds (capabilities, diff reviews).
pub(crate) fn default_not_exceptionable() -> Vec<String> {
    [
        "ask.credential",
        "ask.delete",
        "ask.discard_work",
        "ask.history_rewrite",
        "ask.suspicious_text",
        "ask.capability",
        "escalate.capability",
        "ask.diff_review",
    ]
    .map(str::to_owned)
    .to_vec()
}

/// Every rule id the policy's verdicts use (auto rules cannot be excepted: nothing to go past).
pub const RULES: &[&str] = &[
    "ask.analysis_mode",
    "ask.capability",
    "ask.ci_config",
    "ask.credential",
    "ask.delete",
    "ask.dependency_config",
    "ask.deploy_config",
    "ask.diff_review",
    "ask.discard_work",
    "ask.dynamic_command",
    "ask.env_override",
    "ask.git_config",
    "ask.git_push",
    "ask.high_risk_task",
    "ask.history_rewrite",
    "ask.install",
    "ask.interpreter",
    "ask.mcp",
    "ask.network",
    "ask.outside_repo",
    "ask.privileged",
    "ask.publish",
    "ask.script",
    "ask.secret_written",
    "ask.security_config",
    "ask.security_tooling",
    "ask.suspicious_text",
    "ask.unknown",
    "ask.unparsed",
    "ask.unresolved_path",
    "block.assent_admin",
    "block.assent_files",
    "block.assent_route",
    "block.capability_source",
    "block.destructive",
    "block.exfiltration",
    "block.hook_config",
    "block.pattern",
    "block.persistence",
    "block.pipe_to_shell",
    "block.secret_path",
    "block.secret_store",
    "block.security_tooling_off",
    "escalate.capability",
    "escalate.cloud",
    "escalate.pipe_to_shell",
    "escalate.security_tooling",
];

/// Whether `rule` is a rule the policy knows.
pub fn known_rule(rule: &str) -> bool {
    RULES.contains(&rule)
}

/// Checks the policy's `[exceptions]` and `max_exception_lifetime`; the key and message of
/// the first problem.
pub(crate) fn check_section(
    section: &ExceptionPolicy,
    max_lifetime: i64,
    max_allowed: i64,
) -> Result<(), (&'static str, String)> {
    if !(1..=max_allowed).contains(&max_lifetime) {
        return Err((
            "max_exception_lifetime",
            format!("max_exception_lifetime must be 1..={max_allowed} seconds, got {max_lifetime}"),
        ));
    }
    for rule in &section.not_exceptionable {
        if !known_rule(rule) {
            return Err((
                "not_exceptionable",
                format!("exceptions.not_exceptionable names no rule {rule:?}"),
            ));
        }
    }
    for block in &section.exceptionable_blocks {
        let rule = &block.rule;
        if !rule.starts_with("block.") || !known_rule(rule) {
            return Err((
                "exceptionable_blocks",
                format!("exceptions.exceptionable_blocks names no block rule {rule:?}"),
            ));
        }
        if NEVER_EXCEPTIONABLE.contains(&rule.as_str()) {
            return Err((
                "exceptionable_blocks",
                format!("exceptions.exceptionable_blocks: {rule} can never be excepted (secret reads and Assent's own protection)"),
            ));
        }
        if let Some(glob) = &block.matches {
            crate::policy::glob::glob_set(std::slice::from_ref(glob), false).map_err(
                |(_, e)| {
                    (
                        "exceptionable_blocks",
                        format!("exceptions.exceptionable_blocks: {e}"),
                    )
                },
            )?;
        }
    }
    Ok(())
}

/// `text` on one line, at most `max` characters (an ellipsis when cut).
fn cut(text: &str, max: usize) -> String {
    crate::text::clip(&crate::text::one_line(text), max)
}

#[cfg(test)]
mod tests;
