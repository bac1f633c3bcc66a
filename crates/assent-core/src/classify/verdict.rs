//! What one rule concludes about one part of an action, and the facts gathered on the way.

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

    pub(crate) fn add_changed(&mut self, path: &str, access: Access) {
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

/// How a path is touched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Access {
    Read,
    Write,
    Delete,
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
