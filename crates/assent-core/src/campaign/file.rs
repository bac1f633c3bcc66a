//! `campaign.toml`: what a fleet campaign changes and where, parsed and checked before
//! anything is created. An error names the line and the field.

use serde::{Deserialize, Serialize};

use crate::types::RiskLevel;

/// The most target repositories one campaign may name.
pub const MAX_TARGETS: usize = 5000;
/// The longest campaign name.
const MAX_NAME: usize = 64;

/// A checked campaign definition (the file's content).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CampaignDefinition {
    /// The campaign's id: letters, digits, `-` and `_`.
    pub name: String,
    pub target_repos: Vec<String>,
    pub selection_criteria: String,
    #[serde(default)]
    pub excluded_repos: Vec<String>,
    pub prompt_contract: String,
    #[schema(value_type = String)]
    pub risk: RiskLevel,
    pub verifier_profile: String,
    pub sample_diff: String,
    pub expected_pr_body: String,
    pub cost_estimate: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_notification: Option<String>,
    /// Failed repositories that stop the campaign.
    pub failure_threshold: u32,
}

/// A campaign file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, field `{field}`: {message}")]
pub struct CampaignFileError {
    /// 1-based line of the offending text.
    pub line: usize,
    pub field: String,
    pub message: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CampaignFile {
    name: String,
    target_repos: Vec<String>,
    selection_criteria: String,
    #[serde(default)]
    excluded_repos: Vec<String>,
    prompt_contract: String,
    #[serde(default)]
    risk: Option<RiskLevel>,
    verifier_profile: String,
    sample_diff: String,
    expected_pr_body: String,
    cost_estimate: String,
    #[serde(default)]
    owner_notification: Option<String>,
    stop: StopFile,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StopFile {
    failure_threshold: u32,
}

/// Parses and checks a campaign file.
pub fn parse_campaign(text: &str) -> Result<CampaignDefinition, CampaignFileError> {
    let file: CampaignFile = toml::from_str(text).map_err(|e| syntax_error(text, &e))?;
    let at = |field: &str, message: String| CampaignFileError {
        line: line_of_key(text, field),
        field: field.to_owned(),
        message,
    };
    let valid_name = !file.name.is_empty()
        && file.name.len() <= MAX_NAME
        && file
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid_name {
        return Err(at(
            "name",
            format!("must be 1 to {MAX_NAME} letters, digits, '-' or '_'"),
        ));
    }
    check_repos(&file.target_repos, "target_repos").map_err(|m| at("target_repos", m))?;
    check_repos(&file.excluded_repos, "excluded_repos").map_err(|m| at("excluded_repos", m))?;
    if file.target_repos.is_empty() {
        return Err(at("target_repos", "names no repository".to_owned()));
    }
    if file.target_repos.len() > MAX_TARGETS {
        return Err(at(
            "target_repos",
            format!(
                "names {} repositories, at most {MAX_TARGETS}",
                file.target_repos.len()
            ),
        ));
    }
    if file
        .target_repos
        .iter()
        .all(|r| file.excluded_repos.contains(r))
    {
        return Err(at(
            "excluded_repos",
            "excludes every target repository".to_owned(),
        ));
    }
    let texts = [
        ("selection_criteria", &file.selection_criteria),
        ("prompt_contract", &file.prompt_contract),
        ("verifier_profile", &file.verifier_profile),
        ("sample_diff", &file.sample_diff),
        ("expected_pr_body", &file.expected_pr_body),
        ("cost_estimate", &file.cost_estimate),
    ];
    for (field, value) in texts {
        if value.trim().is_empty() {
            return Err(at(field, "must not be empty".to_owned()));
        }
    }
    if file.sample_diff.len() > crate::request::MAX_DIFF_BYTES {
        return Err(at(
            "sample_diff",
            format!("is longer than {} bytes", crate::request::MAX_DIFF_BYTES),
        ));
    }
    if file.stop.failure_threshold == 0 {
        return Err(at(
            "failure_threshold",
            "must be at least 1 (the failed repositories that stop the campaign)".to_owned(),
        ));
    }
    Ok(CampaignDefinition {
        name: file.name,
        target_repos: file.target_repos,
        selection_criteria: file.selection_criteria,
        excluded_repos: file.excluded_repos,
        prompt_contract: file.prompt_contract,
        risk: file.risk.unwrap_or(RiskLevel::High),
        verifier_profile: file.verifier_profile,
        sample_diff: file.sample_diff,
        expected_pr_body: file.expected_pr_body,
        cost_estimate: file.cost_estimate,
        owner_notification: file.owner_notification,
        failure_threshold: file.stop.failure_threshold,
    })
}

/// Repository names: non-empty, printable, each once.
fn check_repos(repos: &[String], what: &str) -> Result<(), String> {
    for (i, repo) in repos.iter().enumerate() {
        if repo.trim().is_empty() || repo.len() > 200 || repo.chars().any(char::is_control) {
            return Err(format!("{what}[{i}] must be 1 to 200 printable characters"));
        }
        if repos.get(..i).is_some_and(|before| before.contains(repo)) {
            return Err(format!("{repo:?} is listed twice"));
        }
    }
    Ok(())
}

/// A TOML error as a line and a field: the field the message names in backticks, else the
/// key written on the error's line.
fn syntax_error(text: &str, e: &toml::de::Error) -> CampaignFileError {
    let line = e
        .span()
        .map_or(1, |span| crate::policy::error::line_of(text, span.start));
    let message = e.message().trim().to_owned();
    let named = message
        .split('`')
        .nth(1)
        .filter(|_| message.contains("field `"))
        .map(str::to_owned);
    let field = named.clone().unwrap_or_else(|| key_on_line(text, line));
    let line = match named {
        Some(field) if text.contains(field.as_str()) => line_of_key(text, &field),
        _ => line,
    };
    CampaignFileError {
        line,
        field,
        message,
    }
}

/// The key assigned on 1-based `line` (`failure_threshold = "x"` → `failure_threshold`).
fn key_on_line(text: &str, line: usize) -> String {
    let written = text.lines().nth(line.saturating_sub(1)).unwrap_or_default();
    match written.split_once('=') {
        Some((key, _)) => key.trim().trim_matches('"').to_owned(),
        None => written.trim().to_owned(),
    }
}

/// The 1-based line where `key` is assigned (1 when it is not written).
fn line_of_key(text: &str, key: &str) -> usize {
    text.lines()
        .position(|l| {
            l.trim_start()
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
        .map_or(1, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) const GOOD: &str = r#"name = "java21"
target_repos = ["svc-a", "svc-b", "svc-c", "legacy"]
selection_criteria = "services on Java 17 with a pom.xml"
excluded_repos = ["legacy"]
prompt_contract = "Move the build to Java 21; change nothing else."
verifier_profile = "maven-test"
sample_diff = "--- a/pom.xml\n+++ b/pom.xml\n-<java.version>17</java.version>\n+<java.version>21</java.version>"
expected_pr_body = "Java 17 → 21 (campaign java21)"
cost_estimate = "about 40 agent-minutes per repository"

[stop]
failure_threshold = 2
"#;

    #[test]
    fn a_good_file_reads_with_its_defaults() {
        let def = parse_campaign(GOOD);
        assert_eq!(
            def.as_ref()
                .map(|d| (d.name.as_str(), d.failure_threshold, d.risk)),
            Ok(("java21", 2, RiskLevel::High)),
            "a campaign is high risk unless its file says otherwise"
        );
    }

    #[test]
    fn errors_name_the_line_and_the_field() {
        let cases = [
            (
                GOOD.replace("failure_threshold = 2", "failure_threshold = \"two\""),
                12,
                "failure_threshold",
            ),
            (
                GOOD.replace("failure_threshold = 2", "failure_threshold = 0"),
                12,
                "failure_threshold",
            ),
            (
                GOOD.replace(
                    "cost_estimate = \"about 40 agent-minutes per repository\"",
                    "",
                ),
                1,
                "cost_estimate",
            ),
            (GOOD.replace("verifier_profile", "verifier"), 6, "verifier"),
            (GOOD.replace("\"svc-c\"", "\"svc-a\""), 2, "target_repos"),
            (GOOD.replace("java21\"", "java 21\""), 1, "name"),
            (
                GOOD.replace(
                    "selection_criteria = \"services on Java 17 with a pom.xml\"",
                    "selection_criteria = \" \"",
                ),
                3,
                "selection_criteria",
            ),
        ];
        for (text, line, field) in cases {
            let err = parse_campaign(&text).err();
            assert_eq!(
                err.as_ref().map(|e| (e.line, e.field.as_str())),
                Some((line, field)),
                "the error must point at the line and field at fault: {err:?}"
            );
        }
    }
}
