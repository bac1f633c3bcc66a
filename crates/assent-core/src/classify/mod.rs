//! Classification of a whole action: every part judged, plus the patterns that span parts
//! (a download piped into a shell, a secret piped to the network).

pub(crate) mod by_program;
pub(crate) mod cloud;
pub(crate) mod credentials;
pub(crate) mod ctx;
pub(crate) mod deploy;
pub(crate) mod destroy;
pub(crate) mod discard;
pub(crate) mod git;
pub(crate) mod known_programs;
pub(crate) mod machine;
pub(crate) mod packages;
pub(crate) mod path;
pub(crate) mod per_command;
pub(crate) mod persist;
pub(crate) mod project_tools;
pub(crate) mod push;
pub(crate) mod readers;
pub(crate) mod remote;
pub(crate) mod roads;
pub(crate) mod secret_stores;
pub(crate) mod sed;
pub(crate) mod self_protection;
pub(crate) mod simple_command;
pub(crate) mod ssh;
pub(crate) mod stores;
pub(crate) mod tooling_changes;
pub(crate) mod upload;
pub(crate) mod usage;
pub(crate) mod verdict;
pub(crate) mod windows;
pub(crate) mod written;

use crate::classify::simple_command::runs_code;

use crate::classify::ctx::Ctx;
use crate::classify::known_programs::{self as c, is};
use crate::classify::per_command::classify_command;
use crate::classify::roads::Program;
use crate::classify::verdict::{Access, Facts, Verdict};
use crate::policy::PipeToShell;
use crate::request::canon::CanonicalAction;
use crate::shell::wrappers::{effective, program_name};
use crate::shell::{ParsedCommand, ShellScript};
use crate::types::{ActionKind, CommandRisk, CredentialRisk, Decision, RiskLevel, Role};

/// Verdicts for every command of `script`, and for patterns across them.
pub(crate) fn classify_script(
    script: &ShellScript,
    line: Option<&str>,
    ctx: &Ctx<'_>,
    facts: &mut Facts,
) -> Vec<Verdict> {
    let per_command: Vec<Vec<Verdict>> = script
        .commands
        .iter()
        .map(|cmd| classify_command(cmd, ctx, facts))
        .collect();
    // Each command's program is worked out once; the cross-command checks pair them up.
    let programs: Vec<Program> = script.commands.iter().map(program_of).collect();
    let mut out: Vec<Verdict> = Vec::new();
    out.extend(pipe_to_shell(script, &programs, ctx));
    out.extend(secret_to_network(script, &programs, &per_command));
    // Quoted text runs as code when a command runs a string (`bash -c`, `eval`) or a shell
    // reads its script from stdin (`echo '…' | bash`).
    let runs_strings = script.commands.iter().any(|c| c.runs_inline_script)
        || programs
            .iter()
            .any(|(p, args)| crate::shell::wrappers::is_shell(p) && runs_code(p, args));
    out.extend(line.and_then(|l| crate::classify::machine::exhaustion(l, runs_strings)));
    out.extend(crate::classify::machine::fills_disk(script, &programs));
    // The repository sent away: pushed to a host elsewhere, else an archive of it uploaded.
    out.extend(
        crate::classify::push::pushed_elsewhere(&script.commands, &programs, ctx)
            .or_else(|| crate::classify::upload::repository_upload(script, &programs, ctx)),
    );
    // Where both block, the shell reader's reason is the one shown (its verdicts come first);
    // where both ask, the Windows and macOS reading's is (`osascript … with administrator
    // privileges` is privileged before it is inline code).
    let (windows_asks, windows): (Vec<Verdict>, Vec<Verdict>) =
        crate::classify::windows::script(script, line, &programs, ctx, facts)
            .into_iter()
            .partition(|v| v.decision == Decision::Ask);
    out.extend(windows_asks);
    out.extend(crate::own::binary::located_and_written(
        script, &programs, facts,
    ));
    let reaches_network = programs
        .iter()
        .any(|(program, args)| is(c::NETWORK, program) || runs_code(program, args));
    out.extend(crate::own::routes::routes_in_line(
        script,
        reaches_network,
        ctx,
    ));
    // What the line says, as written (an argv request's words, joined).
    let text = line.map_or_else(
        || {
            let words: Vec<String> = script.commands.iter().map(|c| c.argv.join(" ")).collect();
            std::borrow::Cow::Owned(words.join("\n"))
        },
        std::borrow::Cow::Borrowed,
    );
    out.extend(crate::classify::written::by_command(
        &text,
        reaches_network,
        facts,
        ctx,
    ));
    out.extend(per_command.into_iter().flatten());
    out.extend(windows);
    if let Some(error) = &script.error {
        let blockable = out.iter().any(|v| v.decision == Decision::Block);
        if !blockable {
            out.extend(crude_scan(line.unwrap_or(&script.shape), ctx, facts));
        }
        out.push(Verdict::ask(
            "ask.unparsed",
            RiskLevel::High,
            format!("{error}; the line cannot be fully checked"),
        ));
    }
    if script.commands.is_empty() && script.error.is_none() {
        out.push(Verdict::ask(
            "ask.unknown",
            RiskLevel::Medium,
            "the command line runs nothing the policy can see",
        ));
    }
    out
}

fn program_of(cmd: &ParsedCommand) -> Program<'_> {
    match effective(&cmd.argv).argv.split_first() {
        Some((first, args)) => (program_name(first), args),
        None => ("", &[]),
    }
}

fn is_fetcher(programs: &[Program], index: usize) -> bool {
    programs
        .get(index)
        .is_some_and(|(program, _)| is(c::NETWORK, program))
}

/// `curl … | sh`, `bash -c "$(curl …)"`, `bash <(wget …)`, `eval "$(curl …)"`, and the other
/// roads to a shell ([`crate::classify::roads`]): decoded text run, a saved download run,
/// PowerShell's `iex` of a download.
fn pipe_to_shell(script: &ShellScript, programs: &[Program], ctx: &Ctx<'_>) -> Option<Verdict> {
    let commands = &script.commands;
    let executes = |i: usize| {
        let (Some(cmd), Some((program, args))) = (commands.get(i), programs.get(i)) else {
            return false;
        };
        runs_code(program, args)
            || matches!(*program, "source" | ".")
            || cmd.runs_inline_script
            || is(c::INTERPRETERS, program)
            || crate::shell::wrappers::is_shell(program)
    };
    let downloaded = commands.iter().enumerate().any(|(i, cmd)| {
        if !executes(i) {
            return false;
        }
        let fed_by_pipe = cmd.stage > 0
            && commands.iter().take(i).enumerate().any(|(j, other)| {
                other.pipeline == cmd.pipeline && other.stage < cmd.stage && is_fetcher(programs, j)
            });
        // A `sh -c 'SCRIPT'` lists its script's own commands among its substitutions: a
        // download there runs beside the script, not as it. Only a runner whose words are
        // built at run time (`bash -c "$(curl …)"`, `eval "$(curl …)"`) runs what it fetched.
        let builds_its_words = !cmd.runs_inline_script || cmd.dynamic;
        let fed_by_substitution =
            builds_its_words && cmd.substitutions.iter().any(|&s| is_fetcher(programs, s));
        fed_by_pipe || fed_by_substitution
    });
    let reason = if downloaded {
        "runs code downloaded from the network (pipe-to-shell)"
    } else {
        crate::classify::roads::hidden_code(script, programs, executes, ctx.home)?
    };
    Some(match ctx.policy.pipe_to_shell {
        PipeToShell::Block => Verdict::block("block.pipe_to_shell", reason),
        PipeToShell::Escalate => {
            Verdict::escalate("escalate.pipe_to_shell", Role::SecurityReviewer, reason)
        }
    })
}

/// `cat .env | curl …`, `env | nc …`, `curl -d "$(cat ~/.aws/credentials)" …`.
fn secret_to_network(
    script: &ShellScript,
    programs: &[Program],
    per_command: &[Vec<Verdict>],
) -> Option<Verdict> {
    let commands = &script.commands;
    let leaks = |i: usize| {
        let secret = per_command
            .get(i)
            .is_some_and(|vs| vs.iter().any(|v| v.rule == "block.secret_path"));
        let env = programs.get(i).is_some_and(|(program, args)| {
            matches!(*program, "env" | "printenv" | "set")
                && args.iter().all(|a| a.starts_with('-'))
        });
        secret || env
    };
    let hit = commands.iter().enumerate().any(|(i, cmd)| {
        if !is_fetcher(programs, i) {
            return false;
        }
        let piped = cmd.stage > 0
            && (0..i).any(|j| {
                commands
                    .get(j)
                    .is_some_and(|o| o.pipeline == cmd.pipeline && o.stage < cmd.stage)
                    && leaks(j)
            });
        piped || cmd.substitutions.iter().any(|&s| leaks(s))
    });
    hit.then(|| {
        Verdict::block(
            "block.exfiltration",
            "sends secrets or the environment over the network",
        )
    })
}

/// When the line does not parse, its words are still checked for what must be blocked.
fn crude_scan(line: &str, ctx: &Ctx<'_>, facts: &mut Facts) -> Vec<Verdict> {
    line.split(['\n', ';', '|', '&', '(', ')', '`', '{', '}'])
        .map(|segment| {
            let argv: Vec<String> = segment
                .split(|ch: char| {
                    ch.is_whitespace()
                        || ch == '"'
                        || ch == '\''
                        || ch == '<'
                        || ch == '>'
                        || ch == '$'
                })
                .filter(|w| !w.is_empty())
                .map(str::to_owned)
                .collect();
            ParsedCommand {
                argv,
                cwd: ctx.root.clone(),
                stages: 1,
                ..ParsedCommand::default()
            }
        })
        .filter(|cmd| !cmd.argv.is_empty())
        .flat_map(|cmd| classify_command(&cmd, ctx, facts))
        .filter(|v| v.decision == Decision::Block)
        .collect()
}

/// Verdicts for an action that is not a shell command.
pub(crate) fn classify_other(
    action: &CanonicalAction,
    ctx: &Ctx<'_>,
    facts: &mut Facts,
) -> Vec<Verdict> {
    let tool = action.tool.as_deref().unwrap_or_default();
    let mut out = Vec::new();
    match action.kind {
        ActionKind::FileRead | ActionKind::FileWrite | ActionKind::FileDelete => {
            let access = match action.kind {
                ActionKind::FileRead => Access::Read,
                ActionKind::FileWrite => Access::Write,
                _ => Access::Delete,
            };
            if access != Access::Read {
                facts.command(CommandRisk::Mutation);
            }
            if access == Access::Write {
                out.extend(crate::classify::written::credentials(&action.paths, ctx));
            }
            out.extend(
                action
                    .paths
                    .iter()
                    .filter_map(|p| ctx.check_path(p, access, facts)),
            );
            out.push(match (access, action.paths.is_empty()) {
                (_, true) => Verdict::ask(
                    "ask.unknown",
                    RiskLevel::Medium,
                    "a file action that names no file",
                ),
                (Access::Read, _) => Verdict::auto("auto.read", "reads inside the repository"),
                (Access::Write, _) => {
                    Verdict::auto("auto.edit", "edits files inside the repository")
                }
                (Access::Delete, _) => {
                    Verdict::ask("ask.delete", RiskLevel::Medium, "deletes files")
                }
            });
        }
        ActionKind::Network => out.extend(network_targets(action, ctx, facts)),
        ActionKind::Credential => out.push(credential(action, facts)),
        ActionKind::Pr => {
            facts.credential(CredentialRisk::Write);
            out.push(Verdict::ask(
                "ask.publish",
                RiskLevel::Medium,
                "publishes a pull request",
            ));
        }
        ActionKind::Mcp => {
            for target in &action.network {
                out.extend(crate::own::routes::route(target, ctx));
                out.extend(crate::classify::credentials::metadata(target, facts));
            }
            out.push(Verdict::ask(
                "ask.mcp",
                RiskLevel::Medium,
                format!("calls the MCP tool {tool}"),
            ));
        }
        ActionKind::Other if is(c::AGENT_INTERNAL_TOOLS, tool) => {
            out.push(Verdict::auto(
                "auto.agent_internal",
                format!("{tool} acts only inside the agent"),
            ));
        }
        ActionKind::Other | ActionKind::Shell => {
            let what = if tool.is_empty() {
                "this action".to_owned()
            } else {
                format!("the tool {tool}")
            };
            out.push(Verdict::ask(
                "ask.unknown",
                RiskLevel::Medium,
                format!("the policy does not know {what}"),
            ));
        }
    }
    // Another tool's paths (an MCP tool's arguments): what must be blocked is, as written to
    // when the tool's name says it changes files.
    let access = if action.kind == ActionKind::Mcp && changes_files(tool) {
        Access::Write
    } else {
        Access::Read
    };
    for p in &action.paths {
        if !matches!(
            action.kind,
            ActionKind::FileRead | ActionKind::FileWrite | ActionKind::FileDelete
        ) {
            out.extend(
                ctx.check_path(p, access, facts)
                    .filter(|v| v.decision == Decision::Block),
            );
        }
    }
    out
}

/// Whether an MCP tool's name (`mcp__filesystem__write_file`) says it changes files.
fn changes_files(tool: &str) -> bool {
    let name = tool
        .rsplit("__")
        .next()
        .unwrap_or(tool)
        .to_ascii_lowercase();
    [
        "write", "edit", "create", "move", "rename", "delete", "remove", "append", "save", "put",
        "patch", "update", "copy",
    ]
    .iter()
    .any(|verb| name.contains(verb))
}

fn network_targets(action: &CanonicalAction, ctx: &Ctx<'_>, facts: &mut Facts) -> Vec<Verdict> {
    if action.network.is_empty() {
        return vec![Verdict::ask(
            "ask.network",
            RiskLevel::Medium,
            "network access to an unnamed target",
        )];
    }
    let mut out = Vec::new();
    for target in &action.network {
        out.extend(crate::own::routes::route(target, ctx));
        out.extend(crate::classify::credentials::metadata(target, facts));
        let allowed = ctx.allowlisted(target);
        facts.add_network(target, allowed);
        out.push(if allowed {
            Verdict::auto(
                "auto.network_allowlisted",
                format!("{target} is on the allowlist"),
            )
        } else {
            Verdict::ask(
                "ask.network",
                RiskLevel::Medium,
                format!("network access beyond the baseline: {target}"),
            )
        });
    }
    out
}

fn credential(action: &CanonicalAction, facts: &mut Facts) -> Verdict {
    let scope = action.credential_scope.as_deref().unwrap_or("unnamed");
    let lower = scope.to_ascii_lowercase();
    let cloud = [
        "aws",
        "gcp",
        "gcloud",
        "azure",
        "cloud",
        "kube",
        "k8s",
        "terraform",
    ]
    .iter()
    .any(|k| lower.contains(k));
    if cloud {
        facts.credential(CredentialRisk::Cloud);
        return Verdict::escalate(
            "escalate.cloud",
            Role::PlatformAdmin,
            format!("cloud credential use ({scope}) needs a platform admin"),
        );
    }
    let write = ["write", "admin", "publish", "push", "deploy"]
        .iter()
        .any(|k| lower.contains(k));
    facts.credential(if write {
        CredentialRisk::Write
    } else {
        CredentialRisk::Readonly
    });
    Verdict::ask(
        "ask.credential",
        if write {
            RiskLevel::High
        } else {
            RiskLevel::Medium
        },
        format!("uses the credential {scope}"),
    )
}
