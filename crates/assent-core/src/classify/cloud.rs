//! Cloud command lines and network programs.

use crate::classify::ctx::Ctx;
use crate::classify::known_programs::{self as c, is};
use crate::classify::simple_command::{path_candidates, Cmd, CLOUD_ROLE};
use crate::classify::verdict::{Facts, Verdict};
use crate::types::{CommandRisk, CredentialRisk, RiskLevel, Role};

/// Cloud CLIs, Kubernetes, Helm and Terraform.
pub(crate) fn cloud(cmd: &Cmd<'_>, facts: &mut Facts) -> Option<Verdict> {
    let p = cmd.program;
    let pos: Vec<&str> = cmd.positionals().map(String::as_str).collect();
    let first = pos.first().copied().unwrap_or_default();
    if is(c::CLOUD, p) {
        facts.credential(CredentialRisk::Cloud);
        facts.command(CommandRisk::Mutation);
        return Some(Verdict::escalate(
            "escalate.cloud",
            CLOUD_ROLE,
            format!("`{p}` uses cloud credentials and can change cloud resources"),
        ));
    }
    match p {
        "kubectl" | "oc" => Some(kube(cmd, &kube_positionals(cmd.args), facts)),
        "helm" => {
            facts.credential(CredentialRisk::Cloud);
            if matches!(
                first,
                "install" | "upgrade" | "uninstall" | "delete" | "rollback"
            ) {
                facts.command(CommandRisk::Mutation);
                return Some(Verdict::escalate(
                    "escalate.cloud",
                    CLOUD_ROLE,
                    format!("`helm {first}` changes a cluster"),
                ));
            }
            Some(Verdict::ask(
                "ask.credential",
                RiskLevel::Medium,
                "`helm` uses cluster credentials",
            ))
        }
        "terraform" | "tofu" | "terragrunt" => Some(terraform(cmd, first, facts)),
        _ => None,
    }
}

/// kubectl's words without its options' values: `kubectl -n prod delete namespace prod` is
/// the verb `delete` on `namespace`, not the verb `prod`.
fn kube_positionals(args: &[String]) -> Vec<&str> {
    const WITH_VALUE: &[&str] = &[
        "-n",
        "--namespace",
        "--context",
        "--cluster",
        "--kubeconfig",
        "--user",
        "--as",
        "--as-group",
        "--as-uid",
        "-s",
        "--server",
        "--token",
        "--request-timeout",
        "--cache-dir",
        "--certificate-authority",
        "--client-certificate",
        "--client-key",
        "--tls-server-name",
        "-v",
        "-l",
        "--selector",
        "--field-selector",
        "-o",
        "--output",
        "-f",
        "--filename",
        "-k",
        "--kustomize",
        "-c",
        "--container",
        "-L",
        "--label-columns",
        "--grace-period",
        "--timeout",
        "-p",
        "--patch",
        "--type",
        "--template",
    ];
    let mut out = Vec::new();
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        if arg == "--" {
            break;
        }
        if arg.starts_with('-') && arg != "-" {
            if !arg.contains('=') && WITH_VALUE.contains(&arg.as_str()) {
                words.next();
            }
            continue;
        }
        out.push(arg.as_str());
    }
    out
}

fn kube(cmd: &Cmd<'_>, pos: &[&str], facts: &mut Facts) -> Verdict {
    facts.credential(CredentialRisk::Cloud);
    let verb = pos.first().copied().unwrap_or_default();
    let object = pos.get(1).copied().unwrap_or_default();
    if verb == "delete" {
        if let Some(what) = kube_mass_delete(cmd, object) {
            facts.command(CommandRisk::Destructive);
            return Verdict::block("block.destructive", what);
        }
    }
    let context = cmd.args.iter().any(|a| {
        a.starts_with("--context") || a.starts_with("--kubeconfig") || a.starts_with("--cluster")
    });
    if is(c::KUBE_MUTATING, verb) || context {
        facts.command(CommandRisk::Mutation);
        let why = if context {
            "against a named cluster context"
        } else {
            "changes cluster resources"
        };
        return Verdict::escalate(
            "escalate.cloud",
            CLOUD_ROLE,
            format!("`kubectl {verb}` {why}"),
        );
    }
    Verdict::ask(
        "ask.credential",
        RiskLevel::Medium,
        format!("`kubectl {verb}` uses cluster credentials"),
    )
}

/// What a `kubectl delete` that destroys wholesale destroys: a namespace with everything in
/// it, or every object of a kind (`all` is the common workload kinds) in the namespace or in
/// every namespace. `None` for a delete of named objects.
fn kube_mass_delete(cmd: &Cmd<'_>, object: &str) -> Option<String> {
    let kinds = object.split(',').map(|k| k.split('/').next().unwrap_or(k));
    let namespace = kinds
        .clone()
        .any(|k| matches!(k, "namespace" | "namespaces" | "ns"));
    if namespace {
        return Some(format!(
            "`{} delete {}` deletes a namespace and everything in it",
            cmd.program,
            crate::text::first_chars_marked(object, 60)
        ));
    }
    let every_namespace = cmd.args.iter().any(|a| {
        a == "--all-namespaces"
            || a.starts_with("--all-namespaces=")
            || (a.starts_with('-') && !a.starts_with("--") && a.contains('A'))
    });
    let all = cmd
        .args
        .iter()
        .any(|a| a == "--all" || (a.starts_with("--all=") && a != "--all=false"));
    if !all && !every_namespace {
        return None;
    }
    let kind = if object.is_empty() { "object" } else { object };
    let what = if object == "all" {
        "every pod, service, deployment, replica set, stateful set, daemon set and job".to_owned()
    } else {
        format!(
            "all `{}` objects",
            crate::text::first_chars_marked(kind, 60)
        )
    };
    let scope = if every_namespace {
        "in every namespace"
    } else {
        "in the namespace"
    };
    Some(format!(
        "`{} delete {kind} {}` deletes {what} {scope}",
        cmd.program,
        if every_namespace { "-A" } else { "--all" }
    ))
}

fn terraform(cmd: &Cmd<'_>, first: &str, facts: &mut Facts) -> Verdict {
    match first {
        "destroy" => {
            facts.command(CommandRisk::Destructive);
            Verdict::block(
                "block.destructive",
                "`terraform destroy` deletes infrastructure",
            )
        }
        "apply" if cmd.has_flag(&["-destroy", "--destroy"]) => {
            facts.command(CommandRisk::Destructive);
            Verdict::block(
                "block.destructive",
                "`terraform apply -destroy` deletes infrastructure",
            )
        }
        "apply" | "import" | "taint" | "untaint" | "state" | "force-unlock" => {
            facts.credential(CredentialRisk::Cloud);
            facts.command(CommandRisk::Mutation);
            Verdict::escalate(
                "escalate.cloud",
                Role::PlatformAdmin,
                format!("`terraform {first}` changes infrastructure"),
            )
        }
        "fmt" | "validate" | "version" | "-version" | "--version" => {
            Verdict::auto("auto.read", format!("`terraform {first}` stays local"))
        }
        _ => {
            facts.credential(CredentialRisk::Cloud);
            Verdict::ask(
                "ask.credential",
                RiskLevel::Medium,
                format!("`terraform {first}` uses cloud credentials"),
            )
        }
    }
}

/// Upload flags beyond the HTTP body flags: a body from a file, or any method named (a
/// method alone may change something remotely).
const UPLOAD_EXTRA: &[&str] = &["--body-file", "-X", "--request"];

/// Every flag that makes a network program send data.
fn upload_flags() -> impl Iterator<Item = &'static &'static str> {
    c::HTTP_BODY_FLAGS.iter().chain(UPLOAD_EXTRA)
}

/// Network programs: the targets, uploads, and whether the allowlist covers them.
pub(crate) fn network(cmd: &Cmd<'_>, ctx: &Ctx<'_>, facts: &mut Facts) -> Vec<Verdict> {
    let p = cmd.program;
    let targets = targets(cmd);
    if let Some(v) = targets
        .iter()
        .find_map(|t| crate::classify::credentials::metadata(t, facts))
    {
        return vec![v];
    }
    let uploads = cmd
        .args
        .iter()
        .any(|a| upload_flags().any(|f| a == f || a.starts_with(&format!("{f}="))))
        || (p == "curl" && cmd.args.iter().any(|a| a.starts_with("-d") && a.len() > 2));
    let all_allowed = !targets.is_empty() && targets.iter().all(|t| ctx.allowlisted(t));
    for t in &targets {
        facts.add_network(t, ctx.allowlisted(t));
    }
    if targets.is_empty() {
        facts.add_network(p, false);
    }
    let remote_shell = matches!(
        p,
        "ssh" | "scp" | "sftp" | "rsync" | "nc" | "ncat" | "netcat" | "socat" | "telnet"
    );
    if remote_shell {
        facts.credential(CredentialRisk::Readonly);
    }
    if uploads {
        facts.command(CommandRisk::Mutation);
        let to = if targets.is_empty() {
            "an unknown host".to_owned()
        } else {
            targets.join(", ")
        };
        return vec![Verdict::ask(
            "ask.network",
            RiskLevel::High,
            format!("sends data over the network to {to}"),
        )];
    }
    if all_allowed && !remote_shell {
        return vec![Verdict::auto(
            "auto.network_allowlisted",
            format!("fetches from an allowlisted host ({})", targets.join(", ")),
        )];
    }
    let to = if targets.is_empty() {
        format!("`{p}`")
    } else {
        targets.join(", ")
    };
    vec![Verdict::ask(
        "ask.network",
        RiskLevel::Medium,
        format!("network access beyond the baseline: {to}"),
    )]
}

/// URLs and hosts a network command names.
pub(crate) fn targets(cmd: &Cmd<'_>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut skip_next = false;
    for arg in cmd.args {
        if skip_next {
            skip_next = false;
            continue;
        }
        if arg.starts_with('-') {
            skip_next = matches!(
                arg.as_str(),
                "-o" | "-O"
                    | "-H"
                    | "--header"
                    | "-u"
                    | "--user"
                    | "-A"
                    | "-e"
                    | "-p"
                    | "-i"
                    | "-l"
                    | "-P"
                    | "--output"
            ) || upload_flags().any(|f| f == arg);
            continue;
        }
        if arg.contains("://") {
            out.push(arg.clone());
        } else if let Some((host, _)) = arg
            .split_once(':')
            .filter(|_| matches!(cmd.program, "scp" | "rsync"))
        {
            out.push(host.rsplit('@').next().unwrap_or(host).to_owned());
        } else if matches!(cmd.program, "ssh" | "nc" | "ncat" | "netcat" | "telnet")
            && out.is_empty()
        {
            out.push(arg.rsplit('@').next().unwrap_or(arg).to_owned());
        } else if arg.contains('.')
            && !path_candidates(arg)
                .iter()
                .any(|c| c.starts_with('.') || c.starts_with('/'))
        {
            out.push(arg.clone());
        }
    }
    out
}
