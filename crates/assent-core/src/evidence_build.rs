//! The evidence packet: what and where, the exact command, paths, network, credentials,
//! what may change and why the policy spoke — never a raw secret.

use crate::canon::CanonicalAction;
use crate::decide::Decided;
use crate::evidence::ApprovalEvidence;
use crate::paths::display;
use crate::request::ActionRequest;
use crate::types::{ActionKind, CommandRisk, CredentialRisk, Decision};
use crate::verdict::{Ctx, Facts};

const SUMMARY_COMMAND_CHARS: usize = 80;

pub(crate) fn build(
    request: &ActionRequest,
    canonical: &CanonicalAction,
    decided: &Decided,
    facts: &Facts,
    ctx: &Ctx<'_>,
    suspicious_text: bool,
) -> ApprovalEvidence {
    let d = &decided.decision;
    let profile = d.profile.as_deref().and_then(|p| ctx.policy.profile(p));
    let mut paths: Vec<String> = facts
        .paths
        .iter()
        .chain(&canonical.paths)
        .map(|p| display(p, &ctx.root, ctx.home))
        .collect();
    paths.dedup();
    let mutation = match (profile, facts.command_risk) {
        (Some(p), _) => p.mutation.clone(),
        (None, CommandRisk::Readonly) => "none".to_owned(),
        (None, CommandRisk::Build) => "build outputs".to_owned(),
        (None, CommandRisk::Mutation) if !paths.is_empty() => {
            format!("files: {}", paths.join(", "))
        }
        (None, CommandRisk::Mutation) => "local files or state".to_owned(),
        (None, CommandRisk::Destructive) => "destructive: data may be lost".to_owned(),
    };
    ApprovalEvidence {
        summary: format!(
            "{} in {}",
            what(request, canonical, d.profile.as_deref(), &paths),
            place(request, &canonical.cwd)
        ),
        command: first_command(canonical),
        command_line: request.action.command.clone(),
        cwd: canonical.cwd.clone(),
        paths,
        network: facts.network.clone(),
        symlinks: canonical
            .real_paths
            .iter()
            .map(|link| {
                format!(
                    "{} → {}",
                    display(&link.path, &ctx.root, ctx.home),
                    link.real.as_deref().unwrap_or("(unknown)")
                )
            })
            .collect(),
        credentials: Some(credentials(facts.credential_risk, canonical)),
        mutation: Some(mutation),
        diff_summary: None,
        policy_findings: if d.decision == Decision::Auto {
            Vec::new()
        } else {
            d.reasons.clone()
        },
        verification_status: request
            .context
            .verification_status
            .as_deref()
            .map(crate::mask::mask_secrets),
        secret_risk: facts
            .secret
            .as_ref()
            .map(|p| format!("touches the secret file {p} (its content is never shown)")),
        suspicious_text,
        detail: crate::evidence::EvidenceDetail::Tool,
    }
}

fn what(
    request: &ActionRequest,
    canonical: &CanonicalAction,
    profile: Option<&str>,
    paths: &[String],
) -> String {
    let first_path = paths.first().cloned().unwrap_or_default();
    let files = |verb: &str| match paths.len() {
        0 => format!("{verb} a file"),
        1 => format!("{verb} {first_path}"),
        n => format!("{verb} {first_path} and {} more", n - 1),
    };
    let tool = canonical.tool.as_deref().unwrap_or("a tool");
    match (request.action.kind, profile) {
        (_, Some(p)) => format!("Run {p}"),
        (ActionKind::Shell, None) => {
            let line = request
                .action
                .command
                .clone()
                .unwrap_or_else(|| request.action.argv.clone().unwrap_or_default().join(" "));
            let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
            let short: String = line.chars().take(SUMMARY_COMMAND_CHARS).collect();
            let ellipsis = if short.len() < line.len() { "…" } else { "" };
            format!("Run `{short}{ellipsis}`")
        }
        (ActionKind::FileRead, None) => files("Read"),
        (ActionKind::FileWrite, None) => files("Edit"),
        (ActionKind::FileDelete, None) => files("Delete"),
        (ActionKind::Network, None) => format!("Fetch {}", canonical.network.join(", ")),
        (ActionKind::Credential, None) => format!(
            "Use the credential {}",
            canonical.credential_scope.as_deref().unwrap_or("(unnamed)")
        ),
        (ActionKind::Pr, None) => "Publish a pull request".to_owned(),
        (ActionKind::Mcp, None) => format!("Call {tool}"),
        (ActionKind::Other, None) => format!("Use {tool}"),
    }
}

/// The repository's name, else the cwd's last part.
pub(crate) fn place(request: &ActionRequest, cwd: &str) -> String {
    let source = request.context.repo.as_deref().unwrap_or(cwd);
    let name = source
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default();
    if name.is_empty() {
        "/".to_owned()
    } else {
        name.to_owned()
    }
}

fn first_command(canonical: &CanonicalAction) -> Option<Vec<String>> {
    canonical.commands.first().cloned()
}

fn credentials(risk: CredentialRisk, canonical: &CanonicalAction) -> String {
    match (risk, canonical.credential_scope.as_deref()) {
        (_, Some(scope)) => scope.to_owned(),
        (CredentialRisk::None, None) => "none".to_owned(),
        (CredentialRisk::Readonly, None) => "read-only use of the user's credentials".to_owned(),
        (CredentialRisk::Write, None) => "write use of the user's credentials".to_owned(),
        (CredentialRisk::Cloud, None) => "cloud credentials".to_owned(),
    }
}
