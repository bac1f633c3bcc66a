//! What one rule concludes about one part of an action, and the facts gathered on the way.

use crate::paths::links::{Links, Real};
use crate::paths::{is_within, relative_to};
use crate::policy::Policy;
use crate::types::{CommandRisk, CredentialRisk, Decision, NetworkRisk, PathRisk, RiskLevel, Role};

/// One rule's conclusion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Verdict {
    pub decision: Decision,
    pub risk: RiskLevel,
    pub rule: String,
    pub reason: String,
    pub role: Option<Role>,
    pub profile: Option<String>,
}

impl Verdict {
    pub fn auto(rule: &str, reason: impl Into<String>) -> Self {
        Self::new(Decision::Auto, RiskLevel::Low, rule, reason)
    }

    pub fn ask(rule: &str, risk: RiskLevel, reason: impl Into<String>) -> Self {
        Self::new(Decision::Ask, risk, rule, reason)
    }

    pub fn block(rule: &str, reason: impl Into<String>) -> Self {
        Self::new(Decision::Block, RiskLevel::Critical, rule, reason)
    }

    pub fn escalate(rule: &str, role: Role, reason: impl Into<String>) -> Self {
        Self::new(Decision::Escalate, RiskLevel::High, rule, reason).role(role)
    }

    fn new(decision: Decision, risk: RiskLevel, rule: &str, reason: impl Into<String>) -> Self {
        Verdict {
            decision,
            risk,
            rule: rule.to_owned(),
            reason: reason.into(),
            role: None,
            profile: None,
        }
    }

    pub fn role(mut self, role: Role) -> Self {
        self.role = Some(role);
        self
    }

    /// The verdict on a symlink's target, said of the link.
    pub fn via_link(mut self, link: &str) -> Self {
        self.reason = format!("{} (through the symlink {link})", self.reason);
        self
    }

    /// Orders verdicts: the stricter decision, then the higher risk, wins.
    pub fn weight(&self) -> (u8, RiskLevel) {
        (self.decision.severity(), self.risk)
    }
}

/// The seed's risk dimensions and the evidence gathered while classifying.
#[derive(Debug, Clone)]
pub(crate) struct Facts {
    pub path_risk: PathRisk,
    pub command_risk: CommandRisk,
    pub network_risk: NetworkRisk,
    pub credential_risk: CredentialRisk,
    /// Absolute paths touched.
    pub paths: Vec<String>,
    /// The paths among them a command writes or deletes (a shell command's change to a CI or
    /// dependency file is a diff review, whose packet names them).
    pub changed: Vec<(String, Access)>,
    pub network: Vec<String>,
    pub secret: Option<String>,
}

impl Default for Facts {
    fn default() -> Self {
        Facts {
            path_risk: PathRisk::Safe,
            command_risk: CommandRisk::Readonly,
            network_risk: NetworkRisk::None,
            credential_risk: CredentialRisk::None,
            paths: Vec::new(),
            changed: Vec::new(),
            network: Vec::new(),
            secret: None,
        }
    }
}

impl Facts {
    pub fn command(&mut self, risk: CommandRisk) {
        self.command_risk = self.command_risk.max(risk);
    }

    pub fn path(&mut self, risk: PathRisk) {
        self.path_risk = self.path_risk.max(risk);
    }

    pub fn credential(&mut self, risk: CredentialRisk) {
        self.credential_risk = self.credential_risk.max(risk);
    }

    pub fn add_path(&mut self, path: &str) {
        if !self.paths.iter().any(|p| p == path) && self.paths.len() < 64 {
            self.paths.push(path.to_owned());
        }
    }

    fn add_changed(&mut self, path: &str, access: Access) {
        if access == Access::Read || self.changed.len() >= 64 {
            return;
        }
        match self.changed.iter_mut().find(|(p, _)| p == path) {
            Some(seen) => seen.1 = seen.1.max(access),
            None => self.changed.push((path.to_owned(), access)),
        }
    }

    pub fn add_network(&mut self, target: &str, allowlisted: bool) {
        let risk = if allowlisted {
            NetworkRisk::Allowlisted
        } else {
            NetworkRisk::Arbitrary
        };
        self.network_risk = self.network_risk.max(risk);
        if !self.network.iter().any(|n| n == target) && self.network.len() < 64 {
            self.network.push(target.to_owned());
        }
    }
}

/// What classification needs to know about where the action happens.
pub(crate) struct Ctx<'a> {
    pub policy: &'a Policy,
    pub home: &'a str,
    /// Where paths really lead (nothing resolves without a resolver).
    pub links: Links<'a>,
    /// The repository root: the request's absolute repo path, else the cwd.
    pub root: String,
    pub trusted: bool,
    /// Assent's own places and the agents' hook configuration: blocked.
    pub own: &'a crate::own::places::OwnPlaces,
    /// What a file edit writes, for the paths of a `file_write` action.
    pub edit: Option<&'a crate::request::EditText>,
    /// The variable a credential capability request puts its secret in: the approved command
    /// may use (and print) it, since `assent exec` masks its output.
    pub injected: Option<&'a str>,
}

/// How a path is touched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Access {
    Read,
    Write,
    Delete,
}

impl Ctx<'_> {
    /// Whether `path` (absolute, normalised) is a secret file.
    pub fn is_sensitive(&self, path: &str) -> bool {
        let c = &self.policy.compiled;
        let home_form = relative_to(path, self.home)
            .filter(|_| !self.home.is_empty() && self.home != "/")
            .map(|rel| {
                if rel.is_empty() {
                    "~".to_owned()
                } else {
                    format!("~/{rel}")
                }
            });
        // One candidate per form, shared by both sets (building it splits the path).
        let plain = globset::Candidate::new(path);
        let home = home_form.as_deref().map(globset::Candidate::new);
        let hit = |set: &globset::GlobSet| {
            set.is_match_candidate(&plain)
                || home.as_ref().is_some_and(|h| set.is_match_candidate(h))
        };
        hit(&c.sensitive) && !hit(&c.not_sensitive)
    }

    /// Whether `path`, or where it really leads, is a secret file.
    pub fn is_sensitive_or_links_to(&self, path: &str) -> bool {
        self.is_sensitive(path)
            || matches!(self.links.real(path), Real::Differs(real) if self.is_sensitive(&real))
    }

    /// Checks one path access, judging both the written path and where it really leads;
    /// `None` when both are unremarkable inside the repo.
    pub fn check_path(&self, path: &str, access: Access, facts: &mut Facts) -> Option<Verdict> {
        facts.add_path(path);
        facts.add_changed(path, access);
        let written = self.check_one(path, access, facts);
        let through = match self.links.real(path) {
            Real::Same => return written,
            Real::Differs(real) => self
                .check_one(&real, access, facts)
                .map(|v| v.via_link(&crate::paths::display(path, &self.root, self.home))),
            Real::Unknown => Some(Verdict::ask(
                "ask.unresolved_path",
                RiskLevel::Medium,
                format!(
                    "cannot tell where {} really leads (a symlink loop, no permission, or too many paths)",
                    crate::paths::display(path, &self.root, self.home)
                ),
            )),
        };
        match (written, through) {
            (Some(w), Some(t)) => Some(if t.weight() > w.weight() { t } else { w }),
            (w, t) => w.or(t),
        }
    }

    /// Checks one path as it stands.
    fn check_one(&self, path: &str, access: Access, facts: &mut Facts) -> Option<Verdict> {
        // Judged here rather than among Assent's places: a command's every word is checked
        // against those as written to, but only what it writes replaces the gate.
        if access != Access::Read
            && crate::own::binary::is_gate_binary(path, self.own.gate_binaries())
        {
            let shown = crate::paths::display(path, &self.root, self.home);
            return Some(crate::own::binary::block(&shown, facts));
        }
        let own = self.own.check(path, access, &self.root, facts);
        if let Some(v) = own.or_else(|| self.own.check_file_name(path, &self.root, facts)) {
            return Some(v);
        }
        if access == Access::Write {
            if let Some(v) = crate::classify::persist::path(path, self, facts) {
                return Some(v);
            }
        }
        let secret = self.is_sensitive(path)
            || (access == Access::Read && crate::own::secrets::holds_secrets(self, path))
            || crate::own::secrets::glob_names_secret(self, path);
        if secret {
            let shown = crate::paths::display(path, &self.root, self.home);
            facts.path(PathRisk::Sensitive);
            facts.secret = Some(shown.clone());
            let verb = match access {
                Access::Read => "reads",
                Access::Write => "writes",
                Access::Delete => "deletes",
            };
            return Some(Verdict::block(
                "block.secret_path",
                format!("{verb} a secret file: {shown}"),
            ));
        }
        if is_harmless_device(path) {
            return None;
        }
        if path.starts_with("/dev/") && access != Access::Read {
            facts.command(CommandRisk::Destructive);
            return Some(Verdict::block(
                "block.destructive",
                format!("writes to the device {path}"),
            ));
        }
        let Some(rel) = relative_to(path, &self.root) else {
            facts.path(PathRisk::Safe);
            let risk = if access == Access::Read {
                RiskLevel::Medium
            } else {
                RiskLevel::High
            };
            let verb = if access == Access::Read {
                "reads"
            } else {
                "changes"
            };
            let shown = crate::paths::display(path, &self.root, self.home);
            return Some(Verdict::ask(
                "ask.outside_repo",
                risk,
                format!("{verb} a file outside the repository: {shown}"),
            ));
        };
        if access == Access::Read {
            return None;
        }
        if let Some(v) = crate::classify::tooling::path(rel, access, self, facts) {
            return Some(v);
        }
        let c = &self.policy.compiled;
        if c.ci.is_match(rel) {
            facts.path(PathRisk::Ci);
            return Some(
                Verdict::ask("ask.ci_config", RiskLevel::High, format!("changes CI configuration: {rel} (workflows can reach repository secrets and affect every contributor)"))
                    .role(crate::types::Role::RepoMaintainer),
            );
        }
        if c.security.is_match(rel) {
            facts.path(PathRisk::Security);
            return Some(
                Verdict::ask(
                    "ask.security_config",
                    RiskLevel::High,
                    format!("changes security configuration: {rel}"),
                )
                .role(crate::types::Role::SecurityReviewer),
            );
        }
        if c.dependency.is_match(rel) {
            facts.path(PathRisk::Generated);
            return Some(Verdict::ask(
                "ask.dependency_config",
                RiskLevel::Medium,
                format!("changes a manifest, lockfile or build configuration: {rel}"),
            ));
        }
        if access == Access::Delete {
            return Some(Verdict::ask(
                "ask.delete",
                RiskLevel::Medium,
                format!("deletes {rel}"),
            ));
        }
        None
    }

    /// Whether `host` is on the network allowlist.
    pub fn allowlisted(&self, target: &str) -> bool {
        let host = host_of(target);
        self.policy
            .network_allowlist
            .iter()
            .any(|entry| match entry.strip_prefix("*.") {
                Some(suffix) => host.ends_with(&format!(".{suffix}")) || host == suffix,
                None => host == entry.as_str(),
            })
    }

    pub fn within_root(&self, path: &str) -> bool {
        is_within(path, &self.root)
    }
}

pub(crate) fn is_harmless_device(path: &str) -> bool {
    matches!(
        path,
        "/dev/null"
            | "/dev/stdout"
            | "/dev/stderr"
            | "/dev/stdin"
            | "/dev/tty"
            | "/dev/zero"
            | "/dev/random"
            | "/dev/urandom"
    ) || path.starts_with("/dev/fd/")
}

/// The host of a URL or `host[:port][/path]`, lowercased.
pub(crate) fn host_of(target: &str) -> String {
    let rest = target.split_once("://").map_or(target, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if host_port.starts_with('[') {
        host_port
            .split(']')
            .next()
            .unwrap_or_default()
            .trim_start_matches('[')
    } else {
        host_port.split(':').next().unwrap_or_default()
    };
    host.to_ascii_lowercase()
}
