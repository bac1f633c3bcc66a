//! `[reviewer]`: which model reviews, where, and how far it may go alone.

use serde::{Deserialize, Serialize};

use crate::types::RiskLevel;

/// The longest a reviewer call may take before the person decides instead.
const MAX_TIMEOUT_SECONDS: i64 = 300;

/// The policy file's `[reviewer]` section, checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewerConfig {
    /// The wire format: `openai` (Chat Completions) or `anthropic` (Messages).
    pub api: ReviewerApi,
    /// The base URL: `POST {url}/chat/completions` or `{url}/messages`.
    pub url: String,
    pub model: String,
    /// The name of the environment variable holding the API key (never the key itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_env: Option<String>,
    #[serde(default)]
    pub mode: ReviewerMode,
    /// The highest risk the reviewer may approve alone: `low` or `medium`, nothing above.
    #[serde(default = "default_up_to")]
    pub up_to: RiskLevel,
    /// `"20s"`: a call taking longer is a failure, and the person decides.
    #[serde(default = "default_timeout")]
    pub timeout: String,
    /// Whether the reviewer sees the task the person gave the agent (their own last turns,
    /// capped and masked), when the gate can read it.
    #[serde(default)]
    pub share_task: bool,
}

/// The wire format a reviewer speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewerApi {
    /// Chat Completions: OpenAI, Ollama, llama.cpp's server, vLLM, LM Studio.
    Openai,
    /// Anthropic's Messages.
    Anthropic,
}

/// What the reviewer's verdict does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewerMode {
    /// Its opinion is shown to the person, who decides.
    #[default]
    Advise,
    /// It approves eligible asks alone; the rest reach the person with its opinion.
    Decide,
}

fn default_up_to() -> RiskLevel {
    RiskLevel::Low
}

fn default_timeout() -> String {
    "20s".to_owned()
}

impl ReviewerApi {
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewerApi::Openai => "openai",
            ReviewerApi::Anthropic => "anthropic",
        }
    }

    /// The endpoint a review is posted to, below the configured base URL.
    pub fn endpoint(self, url: &str) -> String {
        let base = url.trim_end_matches('/');
        match self {
            ReviewerApi::Openai => format!("{base}/chat/completions"),
            ReviewerApi::Anthropic => format!("{base}/messages"),
        }
    }
}

impl ReviewerConfig {
    /// The call's time limit.
    pub fn timeout(&self) -> std::time::Duration {
        let seconds = timeout_seconds(&self.timeout).unwrap_or(20);
        std::time::Duration::from_secs(u64::try_from(seconds).unwrap_or(20))
    }

    /// Who a grant the reviewer makes is created by: `reviewer:<model>`.
    pub fn actor(&self) -> String {
        format!("reviewer:{}", self.model)
    }

    /// The section checked: the key and message of the first problem.
    pub(crate) fn checked(self) -> Result<ReviewerConfig, (&'static str, String)> {
        check_url(&self.url).map_err(|m| ("url", m))?;
        let model = self.model.trim();
        if model.is_empty() || model.len() > 200 || model.chars().any(char::is_control) {
            return Err((
                "model",
                "reviewer.model must name a model (1 to 200 printable characters)".to_owned(),
            ));
        }
        if let Some(name) = &self.key_env {
            check_key_env(name).map_err(|m| ("key_env", m))?;
        }
        if self.up_to > RiskLevel::Medium {
            return Err((
                "up_to",
                format!(
                    "reviewer.up_to must be \"low\" or \"medium\", got {:?}: high and critical \
                     risks always stay with a person",
                    self.up_to.as_str()
                ),
            ));
        }
        if timeout_seconds(&self.timeout).is_none() {
            return Err((
                "timeout",
                format!(
                    "reviewer.timeout {:?} must be 1s to {MAX_TIMEOUT_SECONDS}s, written \
                     like \"20s\" or \"2m\"",
                    self.timeout
                ),
            ));
        }
        Ok(self)
    }
}

/// Seconds of a `"20s"`/`"2m"` span within the allowed range.
fn timeout_seconds(text: &str) -> Option<i64> {
    let digits = text.get(..text.len().saturating_sub(1))?;
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    crate::text::span_seconds(text).filter(|s| (1..=MAX_TIMEOUT_SECONDS).contains(s))
}

/// `http(s)://host[:port][/path]`; plain `http` only to this machine, since the evidence
/// would otherwise cross the network unencrypted.
fn check_url(url: &str) -> Result<(), String> {
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| format!("reviewer.url {url:?} must start with http:// or https://"))?;
    let host_port = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = match host_port.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host_port.rsplit_once(':').map_or(host_port, |(h, _)| h),
    };
    if host.is_empty() || host_port.contains('@') || url.chars().any(char::is_whitespace) {
        return Err(format!(
            "reviewer.url {url:?} must be a base URL with a host and no credentials"
        ));
    }
    match scheme {
        "https" => Ok(()),
        "http" if is_loopback(host) => Ok(()),
        "http" => Err(format!(
            "reviewer.url {url:?}: plain http is allowed only to this machine (127.0.0.1, \
             ::1, localhost); use https:// for {host}"
        )),
        _ => Err(format!(
            "reviewer.url {url:?} must start with http:// or https://"
        )),
    }
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// An environment variable's name, and not a key pasted in its place.
fn check_key_env(name: &str) -> Result<(), String> {
    let valid = !name.is_empty()
        && name.len() <= 128
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if !valid || crate::mask::masked(name) != name {
        return Err(
            "reviewer.key_env must be the NAME of the environment variable holding the key \
             (e.g. \"OPENAI_API_KEY\"), never the key itself"
                .to_owned(),
        );
    }
    Ok(())
}
