//! Package managers and publishers: installs, publishes, and running downloaded packages.

use crate::classify::known_programs::{self as c, is};
use crate::classify::simple_command::Cmd;
use crate::classify::verdict::{Facts, Verdict};
use crate::types::{CommandRisk, CredentialRisk, RiskLevel};

const INSTALL: &[&str] = &[
    "install",
    "i",
    "ci",
    "add",
    "update",
    "upgrade",
    "up",
    "remove",
    "uninstall",
    "rm",
    "sync",
    "get",
    "reinstall",
    "dlx",
    "exec",
    "x",
];
const PUBLISH: &[&str] = &["publish", "deploy", "upload", "push", "release"];
const READ: &[&str] = &[
    "ls",
    "list",
    "show",
    "freeze",
    "--version",
    "-v",
    "version",
    "tree",
    "metadata",
    "why",
    "info",
    "view",
    "outdated",
    "search",
    "env",
    "config",
];

/// Package managers (`npm`, `cargo`, `pip`, `apt`, `docker`, …); `None` when `cmd` is not one
/// or is a verifier a profile may claim.
pub(crate) fn packages(cmd: &Cmd<'_>, facts: &mut Facts) -> Option<Verdict> {
    let p = cmd.program;
    let first = cmd
        .positionals()
        .next()
        .map(String::as_str)
        .unwrap_or_default();
    let install = |facts: &mut Facts, what: String| {
        facts.command(CommandRisk::Mutation);
        facts.add_network("package registry", false);
        Some(Verdict::ask("ask.install", RiskLevel::Medium, what))
    };
    let publish = |facts: &mut Facts, what: String| {
        facts.command(CommandRisk::Mutation);
        facts.credential(CredentialRisk::Write);
        facts.add_network("package registry", false);
        Some(Verdict::ask("ask.publish", RiskLevel::High, what))
    };
    if is(c::SYSTEM_PACKAGES, p) {
        if is(READ, first) || first == "search" {
            return Some(Verdict::auto(
                "auto.read",
                format!("`{p} {first}` only reads"),
            ));
        }
        return install(facts, format!("`{p} {first}` changes system packages"));
    }
    match p {
        "npx" | "bunx" | "pnpx" => install(facts, format!("`{p}` downloads and runs a package")),
        "npm" | "pnpm" | "yarn" | "bun" | "cargo" | "pip" | "pip3" | "uv" | "poetry" | "pipx"
        | "gem" | "go" | "composer" | "bundle" | "dotnet" | "mix" | "nuget" | "conda" | "mamba" => {
            if is(PUBLISH, first) {
                return publish(facts, format!("`{p} {first}` publishes a package"));
            }
            if matches!(p, "npm" | "pnpm" | "yarn") && matches!(first, "token" | "whoami") {
                facts.credential(CredentialRisk::Readonly);
                return Some(Verdict::ask(
                    "ask.credential",
                    RiskLevel::Medium,
                    format!("`{p} {first}` uses the registry credential"),
                ));
            }
            // `npm version patch` rewrites package.json's version, commits and tags it; `npm
            // version` alone prints versions, `yarn version` alone prompts for a new one.
            let bumps = first == "version" && (p == "yarn" || cmd.positionals().nth(1).is_some());
            if matches!(p, "npm" | "pnpm" | "yarn") && bumps {
                facts.command(CommandRisk::Mutation);
                return Some(Verdict::ask(
                    "ask.dependency_config",
                    RiskLevel::Medium,
                    format!("`{p} version` changes the version in package.json, then commits and tags it"),
                ));
            }
            if p == "go" && matches!(first, "mod") {
                return install(facts, "`go mod` changes dependencies".to_owned());
            }
            if is(INSTALL, first) || (p == "yarn" && first.is_empty()) {
                return install(
                    facts,
                    format!("`{p} {first}` installs packages (their install scripts run)"),
                );
            }
            if is(READ, first) {
                return Some(Verdict::auto(
                    "auto.read",
                    format!("`{p} {first}` only reads"),
                ));
            }
            None
        }
        "docker" | "podman" | "nerdctl" => docker(first, facts),
        "twine" | "flit" | "hatch" if matches!(first, "upload" | "publish") => {
            publish(facts, format!("`{p} {first}` publishes a package"))
        }
        "mvn" | "./mvnw" | "mvnw" | "gradle" | "./gradlew" | "gradlew"
            if cmd
                .positionals()
                .any(|g| matches!(g.as_str(), "deploy" | "publish" | "release:perform")) =>
        {
            publish(facts, format!("`{p}` publishes artifacts"))
        }
        _ => None,
    }
}

fn docker(first: &str, facts: &mut Facts) -> Option<Verdict> {
    match first {
        "push" => {
            facts.credential(CredentialRisk::Write);
            facts.add_network("container registry", false);
            Some(Verdict::ask(
                "ask.publish",
                RiskLevel::High,
                "`docker push` publishes an image",
            ))
        }
        "login" => {
            facts.credential(CredentialRisk::Write);
            Some(Verdict::ask(
                "ask.credential",
                RiskLevel::High,
                "`docker login` stores a registry credential",
            ))
        }
        "ps" | "images" | "inspect" | "logs" | "version" | "info" | "--version" => Some(
            Verdict::auto("auto.read", format!("`docker {first}` only reads")),
        ),
        _ => {
            facts.command(CommandRisk::Mutation);
            Some(Verdict::ask(
                "ask.unknown",
                RiskLevel::Medium,
                format!("`docker {first}` runs containers or changes images"),
            ))
        }
    }
}
