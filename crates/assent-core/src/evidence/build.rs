//! The evidence packet: what and where, the exact command, paths, network, credentials,
//! what may change and why the policy spoke — never a raw secret.

use crate::classify::ctx::Ctx;

use crate::classify::verdict::Facts;
use crate::decision::RiskDecision;
use crate::evidence::parts::{part, riskiest, runs_project_code, Part};
use crate::evidence::{ApprovalEvidence, CommandStep};
use crate::paths::display;
use crate::request::canon::CanonicalAction;
use crate::request::{Action, ActionRequest};
use crate::shell::word::quote;
use crate::text::{fit_words, Brackets};
use crate::types::{ActionKind, CommandRisk, CredentialRisk, Decision};

const SUMMARY_COMMAND_CHARS: usize = 100;

pub(crate) fn build(
    request: &ActionRequest,
    canonical: &CanonicalAction,
    d: &RiskDecision,
    facts: &Facts,
    ctx: &Ctx<'_>,
    suspicious_text: bool,
) -> ApprovalEvidence {
    let profile = d.profile.as_deref().and_then(|p| ctx.policy.profile(p));
    let mut paths: Vec<String> = facts
        .paths
        .iter()
        .chain(&canonical.paths)
        .map(|p| display(p, &ctx.root, ctx.home))
        .collect();
    paths.dedup();
    let parts: Vec<Part> = canonical.commands.iter().map(|argv| part(argv)).collect();
    let leader = riskiest(&parts);
    let local = match (profile, facts.command_risk) {
        (Some(p), _) => p.mutation.clone(),
        (None, CommandRisk::Readonly) => "none".to_owned(),
        (None, CommandRisk::Build) => "build outputs".to_owned(),
        (None, CommandRisk::Mutation) if !paths.is_empty() => {
            format!("files: {}", paths.join(", "))
        }
        (None, CommandRisk::Mutation) => "local files or state".to_owned(),
        (None, CommandRisk::Destructive) => "destructive: data may be lost".to_owned(),
    };
    // A line that is one remote CLI call changes only what it names remotely.
    let local = match parts.as_slice() {
        [only] if only.remote.is_some() && profile.is_none() => "none".to_owned(),
        _ => local,
    };
    // A build, a test run or a script runs the project's own code: what the profile expects
    // it to change is a hope, not a limit, and nothing here keeps it off the network.
    let runs_code = canonical
        .commands
        .iter()
        .any(|argv| runs_project_code(argv));
    let local = if runs_code {
        let expected = match local.as_str() {
            "none" => String::new(),
            hope => format!(" (expected to change: {hope})"),
        };
        format!("{RUNS_CODE}{expected}")
    } else {
        local
    };
    let mutation = changes(&parts, local);
    let mut network = network(&facts.network, &parts);
    if runs_code {
        network.push(ANY_HOST.to_owned());
    }
    ApprovalEvidence {
        summary: format!(
            "{} in {}",
            what(
                request,
                canonical,
                d.profile.as_deref(),
                &paths,
                (leader, &parts)
            ),
            place(request, &canonical.cwd)
        ),
        command: leader
            .and_then(|i| canonical.commands.get(i))
            .or_else(|| canonical.commands.first())
            .cloned(),
        commands: canonical.commands.clone(),
        steps: steps(
            &canonical.commands,
            &parts,
            request.action.command.as_deref(),
        ),
        command_line: shown_line(&request.action),
        cwd: canonical.cwd.clone(),
        paths,
        network,
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
        credentials: Some(credentials(
            facts.credential_risk,
            canonical,
            &parts,
            request,
        )),
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
    (leader, parts): (Option<usize>, &[Part]),
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
            // A `sh -c` runner is not a step of its own: its script's commands are.
            let steps = canonical
                .commands
                .iter()
                .filter(|argv| {
                    crate::shell::wrappers::effective(argv)
                        .inline_script
                        .is_none()
                })
                .count();
            let more = match steps.saturating_sub(1) {
                0 => String::new(),
                1 => ", and 1 more step".to_owned(),
                n => format!(", and {n} more steps"),
            };
            // The riskiest step leads, in words when it changes something remotely, so it is
            // what stays visible when the text is cut.
            if let Some((argv, part)) =
                leader.and_then(|i| canonical.commands.get(i).zip(parts.get(i)))
            {
                let program = argv
                    .first()
                    .map_or("", |p| p.rsplit('/').next().unwrap_or(p));
                if let Some(remote) = &part.remote {
                    return format!("{program}: {}{more}", cut(remote));
                }
                if steps > 1 {
                    return format!(
                        "Run `{}`{more}",
                        cut(&quoted_as_written(argv, request.action.command.as_deref()))
                    );
                }
            }
            format!(
                "Run `{}`",
                cut(&shown_line(&request.action).unwrap_or_default())
            )
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

/// What [`ApprovalEvidence::mutation`] says of a command that runs the project's code.
pub(crate) const RUNS_CODE: &str =
    "runs the project's code: it can reach the network and change any file you can";

/// What [`ApprovalEvidence::network`] adds for a command that runs the project's code.
pub(crate) const ANY_HOST: &str = "any host the project's code reaches (nothing limits it)";

/// The command line as the shell reads it: as the agent wrote it, else its argv quoted word
/// by word — never joined bare, where `sh -c 'ls; rm -r x'` would read as two commands.
pub fn shown_line(action: &Action) -> Option<String> {
    match (&action.command, &action.argv) {
        (Some(line), _) => Some(line.clone()),
        (None, Some(argv)) if !argv.is_empty() => Some(quoted(argv)),
        _ => None,
    }
}

/// `argv` as one shell line, each word quoted where the shell would split or expand it.
pub fn quoted(argv: &[String]) -> String {
    argv.iter()
        .map(|word| quote(word))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `argv` as one shell line that means what the agent's `written` line means. The parsed argv
/// keeps a variable's or a substitution's spelling (`$f`, `$(date)`) but not its quotes, and
/// single quotes around it would change its meaning (`node --check '$f'` checks a file named
/// `$f`): such a word is shown in double quotes, where the shell still expands it — unless
/// the agent wrote it in single quotes (`awk '{print $1}'`), where it is literal and stays so.
pub(crate) fn quoted_as_written(argv: &[String], written: Option<&str>) -> String {
    argv.iter()
        .map(|word| {
            let expands = word.contains('$');
            let literal_as_written =
                written.is_some_and(|line| line.contains(&format!("'{word}'")));
            if expands && !literal_as_written {
                double_quoted(word)
            } else {
                quote(word)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `word` in double quotes: `$` keeps expanding, `"`, `\` and `` ` `` are escaped.
fn double_quoted(word: &str) -> String {
    let mut out = String::with_capacity(word.len() + 2);
    out.push('"');
    for c in word.chars() {
        if matches!(c, '"' | '\\' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// Each step of a line of more than one, quoted as the shell reads it, the riskiest first
/// (equals in the line's order); a `sh -c` runner is left out, its script's steps are listed.
fn steps(commands: &[Vec<String>], parts: &[Part], written: Option<&str>) -> Vec<CommandStep> {
    let mut steps: Vec<(u8, usize, CommandStep)> = commands
        .iter()
        .zip(parts)
        .enumerate()
        .filter(|(_, (argv, _))| {
            crate::shell::wrappers::effective(argv)
                .inline_script
                .is_none()
        })
        .map(|(i, (argv, part))| {
            let step = CommandStep {
                line: quoted_as_written(argv, written),
                effect: part.remote.clone().or_else(|| part.local.clone()),
            };
            (part.weight, i, step)
        })
        .collect();
    if steps.len() < 2 {
        return Vec::new();
    }
    steps.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    steps.into_iter().map(|(_, _, step)| step).collect()
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

/// A command line on one line, in at most [`SUMMARY_COMMAND_CHARS`] characters.
fn cut(line: &str) -> String {
    fit_words(
        &crate::text::one_line(line),
        SUMMARY_COMMAND_CHARS,
        Brackets::Every,
    )
}

/// Where the action connects: what the classifiers found, then what each part reaches (the
/// cloud, forge and registry CLIs, hosts), each once; a named git remote replaces the bare one.
fn network(found: &[String], parts: &[Part]) -> Vec<String> {
    let named_remote = parts
        .iter()
        .flat_map(|p| &p.network)
        .any(|n| n.starts_with("git remote "));
    let mut all: Vec<String> = found
        .iter()
        .filter(|n| !(named_remote && n.as_str() == "git remote"))
        .cloned()
        .collect();
    for target in parts.iter().flat_map(|p| &p.network) {
        let known = all
            .iter()
            .any(|n| n == target || n.contains(target.as_str()));
        if !known && all.len() < 64 {
            all.push(target.clone());
        }
    }
    all
}

/// What may change: remotely (each part that changes something beyond the machine), then
/// locally (`local`, unless nothing).
fn changes(parts: &[Part], local: String) -> String {
    let remote: Vec<&str> = parts.iter().filter_map(|p| p.remote.as_deref()).collect();
    match (remote.is_empty(), local.as_str()) {
        (true, _) => local,
        (false, "none") => format!("remote: {}", remote.join("; ")),
        (false, _) => format!("remote: {}; local: {local}", remote.join("; ")),
    }
}

/// The credentials the action uses: the capability it names, a secret written in the command
/// line (masked in every text), the ones the parts' CLIs use, or the classifiers' estimate.
fn credentials(
    risk: CredentialRisk,
    canonical: &CanonicalAction,
    parts: &[Part],
    request: &ActionRequest,
) -> String {
    if let Some(scope) = canonical.credential_scope.as_deref() {
        return scope.to_owned();
    }
    let mut used: Vec<String> = Vec::new();
    let in_line = request
        .action
        .command
        .as_deref()
        .is_some_and(|line| matches!(crate::mask::masked(line), std::borrow::Cow::Owned(_)));
    if in_line {
        used.push(
            "a secret written in the command line (masked here; the agent holds it)".to_owned(),
        );
    }
    for named in parts.iter().filter_map(|p| p.credentials.as_deref()) {
        if !used.iter().any(|u| u == named) {
            used.push(named.to_owned());
        }
    }
    if !used.is_empty() {
        return used.join("; ");
    }
    match risk {
        CredentialRisk::None => "none".to_owned(),
        CredentialRisk::Readonly => "read-only use of the user's credentials".to_owned(),
        CredentialRisk::Write => "write use of the user's credentials".to_owned(),
        CredentialRisk::Cloud => "cloud credentials".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::{fit_words, quoted_as_written, Brackets};

    fn words(line: &[&str]) -> Vec<String> {
        line.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn a_step_with_a_variable_is_shown_as_the_shell_reads_it() {
        let written = "for f in src/*.js; do node --check \"$f\"; done";
        assert_eq!(
            quoted_as_written(&words(&["node", "--check", "$f"]), Some(written)),
            "node --check \"$f\"",
            "single quotes would check a file named $f: the variable stays a variable"
        );
        assert_eq!(
            quoted_as_written(&words(&["node", "--check", "$f"]), None),
            "node --check \"$f\"",
            "an argv without its line: a `$` word is a variable's spelling, double-quoted"
        );
        assert_eq!(
            quoted_as_written(
                &words(&["awk", "{print $1}", "x.txt"]),
                Some("awk '{print $1}' x.txt")
            ),
            "awk '{print $1}' x.txt",
            "what the agent wrote in single quotes is literal and stays in single quotes"
        );
        assert_eq!(
            quoted_as_written(
                &words(&["echo", "a \"b\" $x"]),
                Some("echo \"a \\\"b\\\" $x\"")
            ),
            "echo \"a \\\"b\\\" $x\"",
            "inside double quotes a quote is escaped, so the line reads back as one word"
        );
        assert_eq!(
            quoted_as_written(&words(&["rm", "-rf", "my dir"]), Some("rm -rf 'my dir'")),
            "rm -rf 'my dir'",
            "a word without a variable is quoted as before"
        );
    }

    #[test]
    fn a_summary_is_cut_between_words_and_never_inside_brackets() {
        let long = "aws: uploads to s3://shop-prod-assets and deletes every object there that is not in ./dist (sync --delete)";
        let got = fit_words(long, 100, Brackets::Every);
        assert!(
            got.chars().count() <= 100 && got.ends_with('…'),
            "it fits, and says it was cut: {got}"
        );
        assert_eq!(
            got.matches('(').count(),
            got.matches(')').count(),
            "no bracket is left open: {got}"
        );
        assert_eq!(
            got, "aws: uploads to s3://shop-prod-assets and deletes every object there that is not in ./dist…",
            "the cut falls before the bracket, after a whole word"
        );
        assert_eq!(
            fit_words("Install left-pad and chalk with npm", 22, Brackets::Every),
            "Install left-pad and…",
            "a cut falls between words, not inside one"
        );
        assert_eq!(
            fit_words("Run `mvn -q test`", 100, Brackets::Every),
            "Run `mvn -q test`",
            "what fits is whole"
        );
    }
}
