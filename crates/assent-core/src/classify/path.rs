//! One path access judged: Assent's own places, persistence, secrets, security tooling and
//! the repository's bounds, for the written path and where it really leads.

use crate::classify::ctx::Ctx;
use crate::classify::verdict::{is_harmless_device, Access, Facts, Verdict};
use crate::paths::links::Real;
use crate::paths::relative_to;
use crate::types::{CommandRisk, PathRisk, RiskLevel};

impl Ctx<'_> {
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
        if path == "/proc/sysrq-trigger" && access != Access::Read {
            facts.command(CommandRisk::Destructive);
            return Some(Verdict::block(
                "block.destructive",
                "writes to /proc/sysrq-trigger, which reboots, halts or crashes the machine at once",
            ));
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
        if let Some(v) = crate::classify::tooling_changes::path(rel, access, self, facts) {
            return Some(v);
        }
        let c = &self.policy.compiled;
        let ci = c.ci.is_match(rel);
        let what = crate::classify::deploy::production_config(rel, ci).or_else(|| {
            let edit = self.edit.filter(|_| ci)?;
            let deploys = crate::classify::deploy::deploys_to_production;
            (deploys(&edit.new) || edit.old.as_deref().is_some_and(deploys))
                .then_some("a deploy workflow")
        });
        if let Some(what) = what {
            facts.path(PathRisk::Ci);
            let verb = if access == Access::Delete {
                "deletes"
            } else {
                "changes"
            };
            return Some(
                Verdict::ask(
                    "ask.deploy_config",
                    RiskLevel::High,
                    format!("{verb} production deployment configuration ({what}): {rel} (what runs in production follows it once it is applied)"),
                )
                .role(crate::types::Role::RepoMaintainer),
            );
        }
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
}
