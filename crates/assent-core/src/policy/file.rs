//! The user's policy file: every field optional, merged over the defaults.

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::policy::error::{line_of, PolicyError};
use crate::policy::glob::{glob_set, in_every_home};
use crate::policy::{CommandProfile, Compiled, Lifetimes, PipeToShell, Policy};
use crate::pre_run::{FleetPolicy, PreRunPolicy};
use crate::types::FallbackOnTimeout;

const MAX_TIMEOUT_SECONDS: i64 = 7 * 24 * 3600;
const MAX_LIFETIME_SECONDS: i64 = 365 * 24 * 3600;

/// The TOML a user writes.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyFile {
    pub approval_timeout_seconds: Option<i64>,
    pub fallback_on_timeout: Option<FallbackOnTimeout>,
    /// `"run"`, `"off"` or seconds.
    pub deny_memory: Option<crate::policy::DenyMemory>,
    pub pipe_to_shell: Option<PipeToShell>,
    #[serde(default)]
    pub trusted_repos: Vec<String>,
    #[serde(default)]
    pub sensitive_paths: Vec<String>,
    #[serde(default)]
    pub not_sensitive: Vec<String>,
    #[serde(default)]
    pub ci_paths: Vec<String>,
    #[serde(default)]
    pub security_paths: Vec<String>,
    #[serde(default)]
    pub dependency_paths: Vec<String>,
    #[serde(default)]
    pub block_patterns: Vec<String>,
    #[serde(default)]
    pub network_allowlist: Vec<String>,
    #[serde(default)]
    pub max_grant_lifetime: LifetimesFile,
    #[serde(default)]
    pub profiles: Vec<CommandProfile>,
    /// Default profiles to drop.
    #[serde(default)]
    pub disabled_profiles: Vec<String>,
    /// `[approvals]`: `required = { platform_admin = 2, "cloud-mutation" = 2 }`.
    #[serde(default)]
    pub approvals: crate::policy::Approvals,
    /// `[diff]`: `max_files`, `max_lines` override; the path lists extend the defaults.
    #[serde(default)]
    pub diff: DiffFile,
    /// `[capabilities."registry.maven.readonly"]`: source, inject_as, ttl, hosts, methods, role.
    #[serde(default)]
    pub capabilities: std::collections::BTreeMap<String, crate::capability::Capability>,
    /// `[pre_run]` and `[fleet]` (see `crate::pre_run`).
    pub pre_run: Option<crate::pre_run::PreRunPolicy>,
    pub fleet: Option<crate::pre_run::FleetPolicy>,
    /// The longest an exception lasts, in seconds.
    pub max_exception_lifetime: Option<i64>,
    /// `[exceptions]`: `not_exceptionable` and `exceptionable_blocks` extend the defaults.
    #[serde(default)]
    pub exceptions: crate::exception::ExceptionPolicy,
    /// `[desk]`: `quick_up_to = "medium"` (the riskiest prompt approved in one act).
    pub desk: Option<crate::policy::DeskPolicy>,
    /// `[routing]`: `escalate_after = "5m"` (off when absent).
    pub routing: Option<crate::policy::routing::Routing>,
    /// `[reviewer]`: a model that reviews asks (see `crate::reviewer`).
    pub reviewer: Option<crate::reviewer::ReviewerConfig>,
}

/// `[diff]` as a user writes it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiffFile {
    pub max_files: Option<u32>,
    pub max_lines: Option<u32>,
    #[serde(default)]
    pub review_paths: Vec<String>,
    #[serde(default)]
    pub test_paths: Vec<String>,
    #[serde(default)]
    pub lock_paths: Vec<String>,
}

/// The widest threshold a policy may set (files or lines).
const MAX_DIFF_THRESHOLD: u32 = 1_000_000;

/// The most people one approval may need.
const MAX_APPROVERS: u32 = 10;

/// Lifetime overrides in seconds.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LifetimesFile {
    pub once: Option<i64>,
    pub run: Option<i64>,
    pub command_profile: Option<i64>,
    pub path_pattern: Option<i64>,
    pub task_type: Option<i64>,
    pub repo: Option<i64>,
    pub org: Option<i64>,
}

/// A policy reads as its file: the defaults with the file applied, checked.
impl<'de> Deserialize<'de> for Policy {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let file = PolicyFile::deserialize(deserializer)?;
        Policy::try_from(file).map_err(serde::de::Error::custom)
    }
}

impl Default for Policy {
    fn default() -> Self {
        let mut policy = crate::policy::defaults::default_policy();
        // The defaults are known to compile; an empty set would only loosen nothing.
        policy.compiled = policy.compile().unwrap_or_default();
        policy.version = policy.compute_version();
        policy
    }
}

impl Policy {
    /// Defaults extended or overridden by the user's TOML text.
    pub fn from_toml(text: &str) -> Result<Policy, PolicyError> {
        let file: PolicyFile = toml::from_str(text).map_err(|e| PolicyError {
            line: e.span().map_or(1, |s| line_of(text, s.start)),
            message: e.message().to_owned(),
        })?;
        file.apply(text)
    }

    /// The effective policy as TOML (it reads back as the same policy).
    pub fn to_toml(&self) -> String {
        let Ok(toml::Value::Table(mut table)) = toml::Value::try_from(self) else {
            return String::new();
        };
        let disabled: Vec<toml::Value> = crate::policy::defaults::default_profiles()
            .into_iter()
            .filter(|d| self.profile(&d.name).is_none())
            .map(|d| toml::Value::String(d.name))
            .collect();
        if !disabled.is_empty() {
            table.insert("disabled_profiles".to_owned(), toml::Value::Array(disabled));
        }
        toml::to_string_pretty(&table).unwrap_or_default()
    }

    /// Compiles the globs and stamps the version; `text` locates errors.
    pub(crate) fn finish(mut self, text: &str) -> Result<Policy, PolicyError> {
        self.compiled = self.compile().map_err(|(pattern, message)| PolicyError {
            line: text.find(&pattern).map_or(1, |at| line_of(text, at)),
            message,
        })?;
        self.version = self.compute_version();
        Ok(self)
    }

    fn compile(&self) -> Result<Compiled, (String, String)> {
        Ok(Compiled {
            sensitive: glob_set(&in_every_home(&self.sensitive_paths), true)?,
            not_sensitive: glob_set(&in_every_home(&self.not_sensitive), true)?,
            ci: glob_set(&self.ci_paths, true)?,
            security: glob_set(&self.security_paths, true)?,
            dependency: glob_set(&self.dependency_paths, true)?,
            trusted: glob_set(&self.trusted_repos, true)?,
            block: glob_set(&self.block_patterns, false)?,
            tooling: glob_set(&crate::policy::security_tooling::globs(), true)?,
            review: glob_set(&self.diff.review_paths, true)?,
            tests: glob_set(&self.diff.test_paths, true)?,
            locks: glob_set(&self.diff.lock_paths, true)?,
        })
    }

    fn compute_version(&self) -> String {
        let digest = Sha256::digest(self.to_toml().as_bytes());
        crate::text::first_chars(&hex::encode(digest), 16)
    }
}

impl TryFrom<PolicyFile> for Policy {
    type Error = PolicyError;

    fn try_from(file: PolicyFile) -> Result<Self, Self::Error> {
        file.apply("")
    }
}

fn extend(list: &mut Vec<String>, more: Vec<String>) {
    for item in more {
        if !list.contains(&item) {
            list.push(item);
        }
    }
}

impl PolicyFile {
    /// The defaults with this file applied; `text` (the file) locates errors.
    pub fn apply(self, text: &str) -> Result<Policy, PolicyError> {
        let at = |needle: &str, message: String| PolicyError {
            line: text.find(needle).map_or(1, |i| line_of(text, i)),
            message,
        };
        let mut p = crate::policy::defaults::default_policy();
        if let Some(t) = self.approval_timeout_seconds {
            if !(1..=MAX_TIMEOUT_SECONDS).contains(&t) {
                return Err(at(
                    "approval_timeout_seconds",
                    format!("approval_timeout_seconds must be 1..={MAX_TIMEOUT_SECONDS}, got {t}"),
                ));
            }
            p.approval_timeout_seconds = t;
        }
        p.fallback_on_timeout = self.fallback_on_timeout.unwrap_or(p.fallback_on_timeout);
        if let Some(memory) = self.deny_memory {
            if let crate::policy::DenyMemory::Seconds(s) = memory {
                if !(1..=MAX_LIFETIME_SECONDS).contains(&s) {
                    return Err(at(
                        "deny_memory",
                        format!("deny_memory must be \"run\", \"off\" or 1..={MAX_LIFETIME_SECONDS} seconds, got {s}"),
                    ));
                }
            }
            p.deny_memory = memory;
        }
        p.pipe_to_shell = self.pipe_to_shell.unwrap_or(p.pipe_to_shell);
        extend(&mut p.trusted_repos, self.trusted_repos);
        extend(&mut p.sensitive_paths, self.sensitive_paths);
        extend(&mut p.not_sensitive, self.not_sensitive);
        extend(&mut p.ci_paths, self.ci_paths);
        extend(&mut p.security_paths, self.security_paths);
        extend(&mut p.dependency_paths, self.dependency_paths);
        extend(&mut p.block_patterns, self.block_patterns);
        extend(&mut p.network_allowlist, self.network_allowlist);
        p.max_grant_lifetime = self
            .max_grant_lifetime
            .apply(p.max_grant_lifetime)
            .map_err(|(key, message)| at(key, message))?;
        for (key, count) in self.approvals.required {
            if key.is_empty() || !(1..=MAX_APPROVERS).contains(&count) {
                return Err(at(
                    "required",
                    format!(
                        "approvals.required.{key} must name a role or rule and be 1..={MAX_APPROVERS}, got {count}"
                    ),
                ));
            }
            p.approvals.required.insert(key, count);
        }
        p.approvals.step_up = self.approvals.step_up;
        self.diff
            .apply(&mut p.diff)
            .map_err(|(key, message)| at(key, message))?;
        apply_sections(&mut p, self.pre_run, self.fleet)
            .map_err(|(key, message)| at(key, message))?;
        for name in &self.disabled_profiles {
            if p.profile(name).is_none() {
                return Err(at(
                    name,
                    format!("disabled_profiles names no profile {name:?}"),
                ));
            }
            p.profiles.retain(|profile| &profile.name != name);
        }
        for profile in self.profiles {
            check_profile(&profile).map_err(|message| at(&profile.name, message))?;
            match p.profiles.iter_mut().find(|d| d.name == profile.name) {
                Some(existing) => *existing = profile,
                None => p.profiles.push(profile),
            }
        }
        p.capabilities = crate::capability::checked(self.capabilities, text)?;
        p.max_exception_lifetime = self
            .max_exception_lifetime
            .unwrap_or(p.max_exception_lifetime);
        extend(
            &mut p.exceptions.not_exceptionable,
            self.exceptions.not_exceptionable,
        );
        for block in self.exceptions.exceptionable_blocks {
            if !p.exceptions.exceptionable_blocks.contains(&block) {
                p.exceptions.exceptionable_blocks.push(block);
            }
        }
        if let Some(desk) = self.desk {
            p.desk = desk;
        }
        if let Some(routing) = self.routing {
            p.routing = routing
                .checked(p.approval_timeout_seconds)
                .map_err(|message| at("escalate_after", message))?;
        }
        if let Some(reviewer) = self.reviewer {
            let reviewer = reviewer.checked().map_err(|(key, message)| {
                // The key's line inside the section, else the section's header.
                let section = text.find("[reviewer]").unwrap_or(0);
                let line = text[section..]
                    .find(&format!("{key} "))
                    .or_else(|| text[section..].find(&format!("{key}=")))
                    .map_or(section, |i| section + i);
                PolicyError {
                    line: line_of(text, line),
                    message,
                }
            })?;
            p.reviewer = Some(reviewer);
        }
        crate::exception::check_section(
            &p.exceptions,
            p.max_exception_lifetime,
            MAX_LIFETIME_SECONDS,
        )
        .map_err(|(key, message)| at(key, message))?;
        p.finish(text)
    }
}

impl DiffFile {
    fn apply(self, diff: &mut crate::policy::DiffPolicy) -> Result<(), (&'static str, String)> {
        let check = |key: &'static str, v: Option<u32>, d: u32| match v {
            None => Ok(d),
            Some(n) if (1..=MAX_DIFF_THRESHOLD).contains(&n) => Ok(n),
            Some(n) => Err((
                key,
                format!("diff.{key} must be 1..={MAX_DIFF_THRESHOLD}, got {n}"),
            )),
        };
        diff.max_files = check("max_files", self.max_files, diff.max_files)?;
        diff.max_lines = check("max_lines", self.max_lines, diff.max_lines)?;
        extend(&mut diff.review_paths, self.review_paths);
        extend(&mut diff.test_paths, self.test_paths);
        extend(&mut diff.lock_paths, self.lock_paths);
        Ok(())
    }
}

impl LifetimesFile {
    fn apply(self, base: Lifetimes) -> Result<Lifetimes, (&'static str, String)> {
        let pick = |key: &'static str, v: Option<i64>, d: i64| match v {
            None => Ok(d),
            Some(s) if (1..=MAX_LIFETIME_SECONDS).contains(&s) => Ok(s),
            Some(s) => Err((
                key,
                format!(
                    "max_grant_lifetime.{key} must be 1..={MAX_LIFETIME_SECONDS} seconds, got {s}"
                ),
            )),
        };
        Ok(Lifetimes {
            once: pick("once", self.once, base.once)?,
            run: pick("run", self.run, base.run)?,
            command_profile: pick(
                "command_profile",
                self.command_profile,
                base.command_profile,
            )?,
            path_pattern: pick("path_pattern", self.path_pattern, base.path_pattern)?,
            task_type: pick("task_type", self.task_type, base.task_type)?,
            repo: pick("repo", self.repo, base.repo)?,
            org: pick("org", self.org, base.org)?,
        })
    }
}

fn check_profile(profile: &CommandProfile) -> Result<(), String> {
    let valid_name = !profile.name.is_empty()
        && profile
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid_name {
        return Err(format!(
            "profile name {:?} must be letters, digits, '-' or '_'",
            profile.name
        ));
    }
    if profile.programs.is_empty() || profile.programs.iter().any(String::is_empty) {
        return Err(format!(
            "profile {:?} needs at least one program",
            profile.name
        ));
    }
    Ok(())
}

/// Applies a policy file's `[pre_run]` and `[fleet]`; the error names the section.
fn apply_sections(
    policy: &mut Policy,
    pre_run: Option<PreRunPolicy>,
    fleet: Option<FleetPolicy>,
) -> Result<(), (&'static str, String)> {
    if let Some(section) = pre_run {
        policy.pre_run = section.checked().map_err(|m| ("[pre_run]", m))?;
    }
    if let Some(section) = fleet {
        policy.fleet = section.checked().map_err(|m| ("[fleet]", m))?;
    }
    Ok(())
}
