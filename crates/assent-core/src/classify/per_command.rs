//! The verdicts on one simple command of a line: its redirects, assignments and wrappers,
//! then its program's own rules ([`crate::classify::by_program`]).

use crate::classify::ctx::Ctx;
use crate::classify::known_programs::{self as c, is};
use crate::classify::simple_command::{only_reads, path_candidates, Cmd};
use crate::classify::verdict::{Access, Facts, Verdict};
use crate::shell::wrappers::{effective, is_assignment, program_name, raises_privileges};
use crate::shell::ParsedCommand;
use crate::types::{CommandRisk, RiskLevel};

/// Classifies one simple command of a shell line.
pub(crate) fn classify_command(
    cmd: &ParsedCommand,
    ctx: &Ctx<'_>,
    facts: &mut Facts,
) -> Vec<Verdict> {
    let mut out = Vec::new();
    for r in &cmd.redirects {
        let access = if r.write { Access::Write } else { Access::Read };
        if r.write && ctx.within_root(&r.path) {
            facts.command(CommandRisk::Mutation);
        }
        out.extend(ctx.check_path(&r.path, access, facts));
    }
    out.extend(crate::classify::self_protection::command(cmd, ctx, facts));
    let eff = effective(&cmd.argv);
    let wrapper_assignments = cmd
        .argv
        .iter()
        .take(cmd.argv.len().saturating_sub(eff.argv.len()));
    for assignment in cmd
        .assignments
        .iter()
        .chain(wrapper_assignments.filter(|w| is_assignment(w)))
    {
        out.extend(check_assignment(assignment));
        out.extend(crate::classify::tooling_changes::assignment(assignment));
    }
    if eff.wrappers.iter().any(|w| raises_privileges(w)) {
        facts.command(CommandRisk::Mutation);
        out.push(Verdict::ask(
            "ask.privileged",
            RiskLevel::High,
            "runs with elevated privileges (sudo)",
        ));
    }
    let Some((first, args)) = eff.argv.split_first() else {
        if eff
            .wrappers
            .last()
            .is_some_and(|w| program_name(w) == "xargs")
        {
            // Without a command xargs runs `echo` (and `xargs --version` prints its own).
            out.push(Verdict::auto(
                "auto.read",
                "`xargs` without a command prints what it reads",
            ));
        } else if cmd.runs_inline_script || (eff.wrappers.is_empty() && cmd.argv.is_empty()) {
            out.push(Verdict::auto(
                "auto.shell_builtin",
                "sets variables or runs a script whose commands are judged on their own",
            ));
        } else {
            out.push(Verdict::ask(
                "ask.unknown",
                RiskLevel::Medium,
                format!("`{}` with nothing to run", eff.wrappers.join(" ")),
            ));
        }
        return out;
    };
    let program = program_name(first);
    let command = Cmd {
        program,
        args,
        cwd: &cmd.cwd,
        network_program: is(c::NETWORK, program),
        privileged: cmd.privileged,
    };
    if first.contains('$') || first.contains('`') || first.contains("<(") {
        out.push(Verdict::ask(
            "ask.dynamic_command",
            RiskLevel::High,
            format!("the program is only known at run time: {first}"),
        ));
        return out;
    }
    out.extend(secret_arguments(&command, ctx, facts));
    if !command.network_program && !only_reads(program) {
        // Inline code and other programs' arguments that name the metadata endpoint.
        out.extend(
            args.iter()
                .find_map(|a| crate::classify::credentials::metadata_in_text(a, facts)),
        );
    }
    out.extend(crate::classify::tooling_changes::command(&command));
    out.extend(block_patterns(eff.argv, ctx));
    if eff.args_from_stdin {
        facts.command(CommandRisk::Mutation);
        // `cat list | xargs chmod -R 777`, `xargs cat < list`: the files are only known at
        // run time (a file written by an earlier call can name ~/.ssh/id_rsa). Fed the paths
        // `find .` or `git ls-files` lists, it reaches what those were judged to reach, and
        // its own rules judge what it does there (`xargs rm` still deletes).
        if !cmd.stdin_known && !cmd.stdin_paths {
            out.push(Verdict::ask(
                "ask.unresolved_path",
                RiskLevel::Medium,
                format!(
                    "`xargs` gives `{program}` arguments it reads at run time: the files it \
                     reaches are not known"
                ),
            ));
        }
    }
    out.extend(crate::classify::by_program::classify_program(
        &command, eff.argv, ctx, facts,
    ));
    out
}

fn check_assignment(assignment: &str) -> Option<Verdict> {
    let name = assignment.split('=').next().unwrap_or_default();
    is(c::CODE_CHANGING_ENV, name).then(|| {
        Verdict::ask(
            "ask.env_override",
            RiskLevel::High,
            format!("sets {name}, which changes what code runs"),
        )
    })
}

/// Secret files named anywhere in the arguments (`@.env`, `--key=~/.ssh/id_rsa`), and secret
/// variables handed to a network program.
fn secret_arguments(cmd: &Cmd<'_>, ctx: &Ctx<'_>, facts: &mut Facts) -> Vec<Verdict> {
    let mut out = Vec::new();
    let keys = crate::classify::ssh::identity_args(cmd);
    out.extend(crate::classify::ssh::identity(cmd, &keys, ctx));
    for (i, arg) in cmd.args.iter().enumerate() {
        if keys.iter().any(|(at, _)| *at == i) {
            continue;
        }
        if cmd.network_program && mentions_secret_var(arg) {
            facts.credential(crate::types::CredentialRisk::Write);
            out.push(Verdict::block(
                "block.exfiltration",
                format!(
                    "sends a secret environment variable over the network ({})",
                    clip(arg)
                ),
            ));
        }
        for candidate in path_candidates(arg) {
            let path = cmd.path(candidate, ctx);
            // A network program's arguments are followed through symlinks too; other
            // programs' file arguments are judged (link and target) by their own rules.
            let secret = if cmd.network_program {
                ctx.is_sensitive_or_links_to(&path)
            } else {
                ctx.is_sensitive(&path)
            };
            if secret {
                let mut v = ctx.check_path(&path, Access::Read, facts);
                if cmd.network_program {
                    v = Some(Verdict::block(
                        "block.exfiltration",
                        format!(
                            "sends a secret file over the network: {}",
                            crate::paths::display(&path, &ctx.root, ctx.home)
                        ),
                    ));
                }
                out.extend(v);
            }
        }
    }
    out
}

fn mentions_secret_var(arg: &str) -> bool {
    let mut rest = arg;
    while let Some(at) = rest.find('$') {
        let after = rest.get(at + 1..).unwrap_or_default();
        let name: String = after
            .trim_start_matches('{')
            .chars()
            .take_while(|ch| ch.is_ascii_alphanumeric() || *ch == '_')
            .collect();
        if c::is_secret_var(&name) || after.starts_with("(env") || after.starts_with("(printenv") {
            return true;
        }
        rest = after;
    }
    false
}

fn block_patterns(argv: &[String], ctx: &Ctx<'_>) -> Option<Verdict> {
    let set = &ctx.policy.compiled.block;
    if set.is_empty() {
        return None;
    }
    let line = argv.join(" ");
    set.matches(&line).first().map(|&i| {
        let pattern = ctx
            .policy
            .block_patterns
            .get(i)
            .cloned()
            .unwrap_or_default();
        Verdict::block(
            "block.pattern",
            format!("matches the policy's block pattern {pattern:?}"),
        )
    })
}

fn clip(text: &str) -> String {
    crate::text::first_chars_marked(text, 60)
}
