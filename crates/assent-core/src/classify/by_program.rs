//! The verdicts a command gets from its program: each known program's own rules (a
//! project's own tool is judged as if run by name, [`crate::classify::project_tools`]).

use crate::classify::ctx::Ctx;
use crate::classify::known_programs::{self as c, is};
use crate::classify::simple_command::{check_args, runs_code, Cmd};
use crate::classify::verdict::{Access, Facts, Verdict};
use crate::policy::profile::match_profile;
use crate::shell::wrappers::is_shell;
use crate::types::{CommandRisk, CredentialRisk, RiskLevel};

/// Every verdict the program's own rules give.
pub(crate) fn classify_program(
    cmd: &Cmd<'_>,
    argv: &[String],
    ctx: &Ctx<'_>,
    facts: &mut Facts,
) -> Vec<Verdict> {
    let p = cmd.program;
    if let Some(at) = crate::classify::project_tools::local_tool(cmd, ctx) {
        // The project's own tool, run without a download: judged as if run by name.
        let words = cmd.args.get(at..).unwrap_or_default();
        if let Some((tool, args)) = words.split_first() {
            let inner = Cmd {
                program: tool,
                args,
                network_program: false,
                ..*cmd
            };
            return classify_program(&inner, words, ctx, facts);
        }
    }
    if let Some(tool) = crate::classify::project_tools::bin_path(p, cmd, ctx) {
        let inner = Cmd {
            program: tool,
            ..*cmd
        };
        return classify_program(&inner, argv, ctx, facts);
    }
    if let Some(v) = crate::classify::project_tools::compiler(cmd) {
        return vec![v];
    }
    if let Some(v) = crate::own::binary::command(cmd, ctx, facts) {
        return vec![v];
    }
    if let Some(v) = crate::classify::usage::query(cmd) {
        return vec![v];
    }
    if let Some(v) = crate::classify::machine::lists_disks(cmd) {
        return vec![v];
    }
    if let Some(v) = crate::classify::destroy::destructive(cmd, ctx, facts) {
        return vec![v];
    }
    if let Some(v) = crate::classify::remote::destruction(cmd, facts) {
        return vec![v];
    }
    if let Some(v) = crate::classify::stores::judged(cmd, facts) {
        return vec![v];
    }
    if let Some(v) = crate::classify::secret_stores::command(cmd, ctx, facts) {
        return vec![v];
    }
    if let Some(v) = crate::classify::credentials::printed(cmd, facts)
        .or_else(|| crate::classify::credentials::printed_variable(cmd, ctx.injected, facts))
    {
        return vec![v];
    }
    if let Some(v) = crate::classify::readers::container_mounts(cmd, ctx, facts) {
        return vec![v];
    }
    if let Some(v) = crate::classify::persist::command(cmd, facts) {
        return vec![v];
    }
    if let Some(v) = crate::classify::cloud::cloud(cmd, facts) {
        return vec![v];
    }
    match p {
        "git" => return crate::classify::git::git(cmd, ctx, facts),
        "gh" => return vec![crate::classify::git::gh(cmd, facts)],
        _ => {}
    }
    if let Some(v) = crate::classify::packages::packages(cmd, facts) {
        return vec![v];
    }
    if let Some(profile) = match_profile(ctx.policy, argv) {
        facts.command(CommandRisk::Build);
        let mut v = if profile.always_auto || ctx.trusted {
            Verdict::auto(
                &format!("profile.{}", profile.name),
                format!(
                    "{} is a known verifier profile{}",
                    profile.name,
                    if profile.always_auto {
                        ""
                    } else {
                        " in a trusted repository"
                    }
                ),
            )
        } else {
            Verdict::ask(
                &format!("profile.{}", profile.name),
                RiskLevel::Low,
                format!(
                    "runs the {} verifier in a repository the policy does not trust",
                    profile.name
                ),
            )
        };
        v.profile = Some(profile.name.clone());
        return vec![v];
    }
    generic(cmd, ctx, facts)
}

fn generic(cmd: &Cmd<'_>, ctx: &Ctx<'_>, facts: &mut Facts) -> Vec<Verdict> {
    let p = cmd.program;
    if cmd.network_program {
        return crate::classify::cloud::network(cmd, ctx, facts);
    }
    if runs_code(p, cmd.args) {
        facts.command(CommandRisk::Mutation);
        return vec![Verdict::ask(
            "ask.interpreter",
            RiskLevel::High,
            format!("runs arbitrary code with `{p}`"),
        )];
    }
    if is(c::INTERPRETERS, p) || is_shell(p) || p == "source" || p == "." {
        // Alone: `bash deploy.sh --help` runs the script.
        if matches!(cmd.args, [only] if matches!(only.as_str(), "--version" | "-V" | "--help")) {
            return vec![Verdict::auto(
                "auto.read",
                format!("`{p}` prints its version"),
            )];
        }
        facts.command(CommandRisk::Mutation);
        return vec![Verdict::ask(
            "ask.script",
            RiskLevel::Medium,
            format!("runs a script with `{p}`"),
        )];
    }
    if matches!(p, "env" | "printenv" | "set" | "export" | "declare")
        && cmd.args.iter().all(|a| a.starts_with('-'))
    {
        facts.credential(CredentialRisk::Readonly);
        return vec![Verdict::ask(
            "ask.credential",
            RiskLevel::High,
            "prints environment variables, which may hold secrets",
        )];
    }
    if is(c::FORMATTERS, p) {
        facts.command(CommandRisk::Mutation);
        let mut out = check_args(cmd, 0, Access::Write, ctx, facts);
        out.push(Verdict::auto(
            "auto.formatter",
            format!("`{p}` formats files"),
        ));
        return out;
    }
    if is(c::DELETES, p) {
        facts.command(CommandRisk::Mutation);
        let mut out = check_args(cmd, 0, Access::Delete, ctx, facts);
        out.push(Verdict::ask(
            "ask.delete",
            RiskLevel::Medium,
            format!("deletes files with `{p}`"),
        ));
        return out;
    }
    if is(c::EDITS, p) {
        facts.command(CommandRisk::Mutation);
        let skip = usize::from(matches!(p, "chmod" | "chown" | "chgrp"));
        let mut out = copied_from(cmd, ctx, facts);
        out.extend(check_args(
            cmd,
            skip + out_skip(cmd),
            Access::Write,
            ctx,
            facts,
        ));
        out.push(Verdict::auto(
            "auto.edit",
            format!("`{p}` changes files inside the repository"),
        ));
        return out;
    }
    read_or_unknown(cmd, ctx, facts)
}

/// `cp`, `install` and `ln` only read their sources (a link's target): all positionals but
/// the last (unless a `-t DIR` names the target, which leaves every positional written as
/// before).
fn copies(cmd: &Cmd<'_>) -> bool {
    matches!(cmd.program, "cp" | "install" | "ln")
        && !cmd
            .args
            .iter()
            .any(|a| a == "-t" || a.starts_with("--target-directory") || a == "-d")
        && cmd.positionals().count() >= 2
}

fn copied_from(cmd: &Cmd<'_>, ctx: &Ctx<'_>, facts: &mut Facts) -> Vec<Verdict> {
    if !copies(cmd) {
        return Vec::new();
    }
    let sources = cmd.positionals().count().saturating_sub(1);
    cmd.positionals()
        .take(sources)
        .filter_map(|a| ctx.check_path(&cmd.path(a, ctx), Access::Read, facts))
        .collect()
}

/// How many positionals [`copied_from`] judged as read.
fn out_skip(cmd: &Cmd<'_>) -> usize {
    if copies(cmd) {
        cmd.positionals().count().saturating_sub(1)
    } else {
        0
    }
}

fn read_or_unknown(cmd: &Cmd<'_>, ctx: &Ctx<'_>, facts: &mut Facts) -> Vec<Verdict> {
    let p = cmd.program;
    if p == "sed" {
        if let Some(reason) = crate::classify::sed::more_than_an_edit(cmd.args) {
            return vec![Verdict::ask("ask.interpreter", RiskLevel::High, reason)];
        }
    }
    match p {
        "sed"
            if cmd.has_short('i', "--in-place")
                || cmd.args.iter().any(|a| a.starts_with("--in-place")) =>
        {
            facts.command(CommandRisk::Mutation);
            let mut out = check_args(cmd, script_skip(cmd), Access::Write, ctx, facts);
            out.push(Verdict::auto(
                "auto.edit",
                "`sed -i` edits files inside the repository",
            ));
            out
        }
        "sed" => read(cmd, script_skip(cmd), ctx, facts),
        "awk" | "gawk" | "mawk" => {
            let program = cmd
                .positionals()
                .next()
                .map(String::as_str)
                .unwrap_or_default();
            if program.contains("system")
                || program.contains('|')
                || program.contains('>')
                || program.contains("getline")
            {
                return vec![Verdict::ask(
                    "ask.interpreter",
                    RiskLevel::High,
                    "the awk program runs commands or writes files",
                )];
            }
            read(cmd, 1, ctx, facts)
        }
        "find" => find(cmd, ctx, facts),
        _ if is(c::SEARCHES, p) => read(cmd, 1, ctx, facts),
        _ if is(c::READS_FILES, p) => read(cmd, 0, ctx, facts),
        _ if is(c::READ_ONLY, p) => vec![Verdict::auto("auto.read", format!("`{p}` only reads"))],
        _ => vec![Verdict::ask(
            "ask.unknown",
            RiskLevel::Medium,
            format!(
                "the policy does not know the command `{}`",
                crate::text::first_chars(p, 80)
            ),
        )],
    }
}

fn script_skip(cmd: &Cmd<'_>) -> usize {
    usize::from(!cmd.has_flag(&["-e", "-f", "--expression", "--file"]))
}

fn read(cmd: &Cmd<'_>, skip: usize, ctx: &Ctx<'_>, facts: &mut Facts) -> Vec<Verdict> {
    let mut out = check_args(cmd, skip, Access::Read, ctx, facts);
    out.push(Verdict::auto(
        "auto.read",
        format!("`{}` reads inside the repository", cmd.program),
    ));
    out
}

fn find(cmd: &Cmd<'_>, ctx: &Ctx<'_>, facts: &mut Facts) -> Vec<Verdict> {
    let roots: Vec<&String> = cmd
        .args
        .iter()
        .take_while(|a| !a.starts_with('-') && !a.starts_with('(') && *a != "!")
        .collect();
    let mut out: Vec<Verdict> = roots
        .iter()
        .filter_map(|a| ctx.check_path(&cmd.path(a, ctx), Access::Read, facts))
        .collect();
    if cmd.has_flag(&["-delete"]) {
        facts.command(CommandRisk::Mutation);
        out.push(Verdict::ask(
            "ask.delete",
            RiskLevel::Medium,
            "`find -delete` deletes files",
        ));
    } else if cmd.has_flag(&[
        "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprintf", "-fls",
    ]) {
        facts.command(CommandRisk::Mutation);
        out.push(Verdict::ask(
            "ask.interpreter",
            RiskLevel::Medium,
            "`find -exec` runs a command on every match",
        ));
    } else {
        out.push(Verdict::auto(
            "auto.read",
            "`find` searches inside the repository",
        ));
    }
    out
}
