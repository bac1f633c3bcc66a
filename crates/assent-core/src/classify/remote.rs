//! Destruction beyond the machine through forge APIs and package registries: a DELETE on a
//! forge's API (`gh api -X DELETE`, `curl -X DELETE https://api.github.com/…`), a forge
//! resource deleted by its CLI, a package version unpublished or yanked, an image deleted
//! from its registry. Each is escalated, as deleting a cloud resource is.

use crate::classify::simple_command::{Cmd, CLOUD_ROLE};
use crate::classify::verdict::{host_of, Facts, Verdict};
use crate::types::{CommandRisk, CredentialRisk, RiskLevel};

/// Forge and registry API hosts: a DELETE there destroys a repository, a release, a branch,
/// a package. Self-hosted forges are known by their first label (`gitlab.example.com`) or
/// their API path (`/api/v4/`, `/api/v3/`).
const FORGE_HOSTS: &[&str] = &[
    "api.github.com",
    "github.com",
    "uploads.github.com",
    "gitlab.com",
    "api.bitbucket.org",
    "bitbucket.org",
    "codeberg.org",
    "gitea.com",
    "dev.azure.com",
    "registry.npmjs.org",
    "crates.io",
    "rubygems.org",
    "pypi.org",
    "upload.pypi.org",
    "hub.docker.com",
    "registry.hub.docker.com",
    "ghcr.io",
    "quay.io",
    "api.nuget.org",
];
const FORGE_LABELS: &[&str] = &["github", "gitlab", "gitea", "forgejo", "bitbucket"];
const FORGE_API_PATHS: &[&str] = &["/api/v4/", "/api/v3/", "/api/v1/repos/", "/rest/api/"];

/// The escalation for destroying `what` remotely.
fn destroys(what: String, target: &str, facts: &mut Facts) -> Verdict {
    facts.command(CommandRisk::Destructive);
    facts.credential(CredentialRisk::Write);
    facts.add_network(target, false);
    Verdict::escalate("escalate.cloud", CLOUD_ROLE, what)
}

/// Remote destruction by `cmd`, or `None`.
pub(crate) fn destruction(cmd: &Cmd<'_>, facts: &mut Facts) -> Option<Verdict> {
    let p = cmd.program;
    // The verb is the first word no option's value (`npm --registry URL unpublish`, `cargo
    // --color never yank`, `cargo yank --version 1.2.3 shop`).
    let words = crate::classify::upload::positionals(cmd.args, value_options(p));
    let first = words.first().copied().unwrap_or_default();
    match p {
        "gh" | "glab" => forge_cli(cmd, &words, facts),
        "curl" | "wget" | "http" | "https" | "xh" | "xhs" | "httpie" => http_delete(cmd, facts),
        "npm" | "pnpm" | "yarn" | "bun" if first == "unpublish" => Some(destroys(
            format!("`{p} unpublish` removes a published package version from the registry: whoever depends on it can no longer install it"),
            "package registry",
            facts,
        )),
        "cargo" if first == "yank" && !cmd.has_flag(&["--undo"]) => Some(destroys(
            "`cargo yank` withdraws a published crate version from crates.io: new lockfiles can no longer pick it".to_owned(),
            "crates.io",
            facts,
        )),
        "cargo" if first == "yank" => Some(registry_change("cargo yank --undo", facts)),
        "cargo"
            if first == "owner"
                && cmd
                    .args
                    .iter()
                    .any(|a| a == "-r" || a.starts_with("--remove")) =>
        {
            Some(registry_change("cargo owner --remove", facts))
        }
        // `npm dist-tag ls` and `npm owner ls` only read.
        "npm" | "pnpm" | "yarn" | "bun"
            if first == "deprecate"
                || (matches!(first, "dist-tag" | "owner")
                    && words
                        .get(1)
                        .is_some_and(|v| matches!(*v, "add" | "rm" | "remove" | "set"))) =>
        {
            let said: Vec<&str> = std::iter::once(p).chain(words.iter().copied().take(2)).collect();
            Some(registry_change(&said.join(" "), facts))
        }
        "gem" if first == "yank" => Some(destroys(
            "`gem yank` removes a published gem version from rubygems.org for good".to_owned(),
            "rubygems.org",
            facts,
        )),
        "dotnet" | "nuget" if words.contains(&"delete") => Some(destroys(
            format!("`{p} nuget delete` deletes or unlists a published package"),
            "nuget",
            facts,
        )),
        "hub" if first == "delete" => Some(destroys(
            "`hub delete` deletes a GitHub repository".to_owned(),
            "github.com",
            facts,
        )),
        "huggingface-cli" | "hf" if first == "repo" && words.get(1) == Some(&"delete") => {
            Some(destroys(
                format!("`{p} repo delete` deletes a Hugging Face repository"),
                "huggingface.co",
                facts,
            ))
        }
        "vercel" if matches!(first, "rm" | "remove")
            || (first == "project" && matches!(words.get(1), Some(&("rm" | "remove")))) =>
        {
            Some(destroys(
                format!(
                    "`{p} {}` deletes deployments or a project on Vercel",
                    if first == "project" { "project rm" } else { first }
                ),
                "vercel.com",
                facts,
            ))
        }
        // `fly` is also Concourse's CLI, which has no `destroy`.
        "fly" | "flyctl"
            if first == "destroy" || (first == "apps" && words.get(1) == Some(&"destroy")) =>
        {
            Some(destroys(
                format!(
                    "`{p} {}` destroys a Fly.io app",
                    if first == "apps" { "apps destroy" } else { "destroy" }
                ),
                "fly.io",
                facts,
            ))
        }
        "netlify" if first == "sites:delete" => Some(destroys(
            "`netlify sites:delete` deletes a site on Netlify".to_owned(),
            "netlify.com",
            facts,
        )),
        "crane" | "skopeo" | "regctl" | "oras" if words.contains(&"delete") => Some(destroys(
            format!("`{p} … delete` deletes an image from its registry"),
            "container registry",
            facts,
        )),
        _ => None,
    }
}

/// Options of the package tools that take a value, so that it is not read as the verb.
fn value_options(program: &str) -> &'static [&'static str] {
    match program {
        "npm" | "pnpm" | "yarn" | "bun" => &[
            "--registry",
            "--otp",
            "--userconfig",
            "--prefix",
            "-w",
            "--workspace",
            "--loglevel",
            "--scope",
            "-C",
            "--dir",
        ],
        "cargo" => &[
            "--color",
            "--config",
            "-Z",
            "--manifest-path",
            "-C",
            "--registry",
            "--index",
            "--token",
            "--vers",
            "--version",
        ],
        "gem" => &[
            "-v",
            "--version",
            "--host",
            "--otp",
            "-k",
            "--key",
            "--platform",
        ],
        "dotnet" | "nuget" => &["-s", "--source", "-k", "--api-key", "--configfile"],
        "gh" | "glab" => &["-R", "--repo", "--hostname"],
        _ => &[],
    }
}

/// A published package's metadata changed for everyone who installs it (`npm deprecate`,
/// `cargo yank --undo`, an owner removed): reversible, so asked as publishing is.
fn registry_change(said: &str, facts: &mut Facts) -> Verdict {
    facts.command(CommandRisk::Mutation);
    facts.credential(CredentialRisk::Write);
    facts.add_network("package registry", false);
    Verdict::ask(
        "ask.publish",
        RiskLevel::High,
        format!(
            "`{}` changes a published package for everyone who installs it",
            crate::text::first_chars_marked(said, 60)
        ),
    )
}

/// `gh`/`glab`: `api` with the DELETE method, a GraphQL mutation that deletes, and every
/// `… delete` subcommand that deletes on the forge.
fn forge_cli(cmd: &Cmd<'_>, words: &[&str], facts: &mut Facts) -> Option<Verdict> {
    let p = cmd.program;
    let forge = if p == "gh" { "GitHub" } else { "GitLab" };
    let group = words.first().copied().unwrap_or_default();
    if group == "api" {
        let endpoint = api_endpoint(cmd.args).unwrap_or("an endpoint");
        if method(cmd.args).is_some_and(|m| m.eq_ignore_ascii_case("DELETE")) {
            return Some(destroys(
                format!(
                    "`{p} api` with the DELETE method deletes a {forge} resource ({})",
                    crate::text::first_chars_marked(endpoint, 80)
                ),
                host(p),
                facts,
            ));
        }
        let deletes = cmd.args.iter().any(|a| {
            let lower = a.to_ascii_lowercase();
            lower.contains("mutation") && lower.contains("delete")
        });
        return deletes.then(|| {
            destroys(
                format!("`{p} api graphql` runs a mutation that deletes on {forge}"),
                host(p),
                facts,
            )
        });
    }
    // `gh alias delete` and `gh extension remove` change only the local set-up.
    if matches!(group, "alias" | "extension" | "config" | "auth") {
        return None;
    }
    // The verb follows the group (`gh release delete`, `gh release delete-asset`, `gh project
    // item-delete`); one group nests a level deeper (`gh repo deploy-key delete`). A later
    // word may be an option's value (`gh issue list --search delete`): not a verb.
    let deletes = |w: &&str| w.starts_with("delete") || w.ends_with("-delete");
    let at = if words.get(1).is_some_and(deletes) {
        1
    } else if words.get(1) == Some(&"deploy-key") && words.get(2).is_some_and(deletes) {
        2
    } else {
        return None;
    };
    let said = words.get(..=at).unwrap_or_default().join(" ");
    Some(destroys(
        format!(
            "`{p} {}` deletes on {forge}",
            crate::text::first_chars_marked(&said, 60)
        ),
        host(p),
        facts,
    ))
}

fn host(program: &str) -> &'static str {
    if program == "gh" {
        "github.com"
    } else {
        "gitlab.com"
    }
}

/// The method `-X DELETE`, `-XDELETE`, `--method=DELETE`, `--request DELETE` (also in a
/// short cluster: `-sX DELETE`) names.
fn method(args: &[String]) -> Option<&str> {
    let mut words = args.iter().map(String::as_str);
    while let Some(word) = words.next() {
        for long in ["--method", "--request"] {
            if word == long {
                return words.next();
            }
            if let Some(v) = word.strip_prefix(long).and_then(|r| r.strip_prefix('=')) {
                return Some(v);
            }
        }
        if let Some(cluster) = word.strip_prefix('-').filter(|c| !c.starts_with('-')) {
            if let Some((_, rest)) = cluster.split_once('X') {
                let rest = rest.trim_start_matches('=');
                return if rest.is_empty() {
                    words.next()
                } else {
                    Some(rest)
                };
            }
        }
    }
    None
}

/// Options of `gh api` that take a value.
const API_VALUE_OPTIONS: &[&str] = &[
    "-X",
    "--method",
    "-H",
    "--header",
    "-f",
    "--raw-field",
    "-F",
    "--field",
    "--input",
    "-q",
    "--jq",
    "-t",
    "--template",
    "--hostname",
    "-p",
    "--preview",
    "--cache",
];

/// The endpoint `gh api` calls: the first word after `api` that is no option's value.
fn api_endpoint(args: &[String]) -> Option<&str> {
    let mut words = args.iter().map(String::as_str).skip_while(|w| *w != "api");
    words.next();
    while let Some(word) = words.next() {
        if API_VALUE_OPTIONS.contains(&word) {
            words.next();
        } else if !word.starts_with('-') {
            return Some(word);
        }
    }
    None
}

/// An HTTP client's DELETE on a forge or registry API.
fn http_delete(cmd: &Cmd<'_>, facts: &mut Facts) -> Option<Verdict> {
    let positionals: Vec<&str> = cmd.positionals().map(String::as_str).collect();
    let delete = match cmd.program {
        "curl" | "wget" => method(cmd.args).is_some_and(|m| m.eq_ignore_ascii_case("DELETE")),
        // httpie and xh: `http [options] DELETE url` (an option's value may come first).
        _ => positionals
            .iter()
            .take_while(|w| !is_forge_url(w))
            .any(|w| w.eq_ignore_ascii_case("DELETE")),
    };
    if !delete {
        return None;
    }
    let url = positionals.iter().find(|w| is_forge_url(w))?;
    Some(destroys(
        format!(
            "`{} DELETE` deletes a resource on a forge or registry ({})",
            cmd.program,
            crate::text::first_chars_marked(url, 80)
        ),
        &host_of(url),
        facts,
    ))
}

fn is_forge_url(word: &str) -> bool {
    let host = host_of(word);
    is_forge_host(&host) || (host.contains('.') && FORGE_API_PATHS.iter().any(|p| word.contains(p)))
}

/// A forge or registry host: one of the public ones, or a self-hosted forge by its first
/// label (`gitlab.acme.example`).
pub(crate) fn is_forge_host(host: &str) -> bool {
    if host.is_empty() || !host.contains('.') {
        return false;
    }
    let first_label = host.split('.').next().unwrap_or_default();
    FORGE_HOSTS.contains(&host) || FORGE_LABELS.contains(&first_label)
}
