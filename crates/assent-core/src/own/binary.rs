//! The `assent` binary the agents' hooks run: the hook command names it by path (the `assent`
//! on `PATH` when it was installed, `~/.local/bin/assent` after `scripts/setup.sh`), or the
//! `assent-gate` beside it, and it answers every tool call. An agent that replaces it, links
//! over it or removes it chooses its own gate, so any `assent` or `assent-gate` in a `bin`
//! directory — and every binary the caller names
//! ([`crate::Environment::with_gate_binary`]) — is never written by an agent, however a
//! command names it: an argument, a redirection, a file tool, a copy into its directory, a
//! `cargo install` of Assent. Reading it stays a plain read.

use crate::classify::ctx::Ctx;
use crate::classify::simple_command::Cmd;
use crate::classify::verdict::{Facts, Verdict};
use crate::own::places::{has_glob, part_names, FILES_RULE};
use crate::paths::{display, normalize};
use crate::types::{CommandRisk, PathRisk};

/// The program the hooks run.
const NAME: &str = "assent";
/// The programs the hooks run: `assent gate AGENT`, or the fast gate beside it.
const NAMES: [&str; 2] = [NAME, "assent-gate"];

/// Whether `path` (absolute, normalised, globs allowed) can name a gate binary: `assent` in a
/// directory called `bin` (or `assent-gate`), or one of `named`.
pub(crate) fn is_gate_binary(path: &str, named: &[String]) -> bool {
    if named.iter().any(|b| b == path) {
        return true;
    }
    let Some((parent, name)) = path.rsplit_once('/') else {
        return false;
    };
    let dir = parent.rsplit('/').next().unwrap_or(parent);
    let in_bin = dir == "bin" || (has_glob(dir) && part_names(dir, "bin"));
    in_bin && NAMES.iter().any(|program| part_names(name, program))
}

pub(crate) fn reason(shown: &str) -> String {
    format!(
        "the `assent` binary the agents' hooks run is never replaced, linked over or removed by an agent: {shown}"
    )
}

pub(crate) fn block(shown: &str, facts: &mut Facts) -> Verdict {
    facts.path(PathRisk::Security);
    facts.command(CommandRisk::Mutation);
    Verdict::block(FILES_RULE, reason(shown))
}

/// A copy, move, link or install of a file called `assent` (or `assent-gate`) into a `bin`
/// directory (`cp ./assent ~/.local/bin/`), and `cargo install` of Assent.
pub(crate) fn command(cmd: &Cmd<'_>, ctx: &Ctx<'_>, facts: &mut Facts) -> Option<Verdict> {
    let pos: Vec<&str> = cmd.positionals().map(String::as_str).collect();
    match cmd.program {
        "cp" | "mv" | "install" | "ln" | "rsync" => {
            let (dest, sources) = pos.split_last()?;
            let dir = normalize(dest, cmd.cwd, ctx.home);
            let named = sources.iter().find_map(|s| {
                let file = s.rsplit('/').next().unwrap_or(s);
                NAMES.iter().find(|program| **program == file)
            });
            let into_bin = dir.rsplit('/').next() == Some("bin");
            named.filter(|_| into_bin).map(|program| {
                let shown = display(&format!("{dir}/{program}"), &ctx.root, ctx.home);
                block(&shown, facts)
            })
        }
        "cargo" if pos.first() == Some(&"install") => {
            let mut args = cmd.args.iter().map(String::as_str);
            let mut assent = false;
            while let Some(arg) = args.next() {
                let value = match arg {
                    "--path" | "--git" | "--bin" => args.next(),
                    a if a.starts_with("--path=") || a.starts_with("--bin=") => {
                        a.split_once('=').map(|(_, v)| v)
                    }
                    a if !a.starts_with('-') => Some(a),
                    _ => None,
                };
                assent |= value.is_some_and(|v| {
                    let last = v.trim_end_matches('/').rsplit('/').next().unwrap_or(v);
                    last.starts_with(NAME)
                });
            }
            assent.then(|| {
                facts.path(PathRisk::Security);
                facts.command(CommandRisk::Mutation);
                Verdict::block(
                    FILES_RULE,
                    "`cargo install` of Assent replaces the `assent` binary on PATH that the agents' hooks run: installing the gate is a person's",
                )
            })
        }
        _ => None,
    }
}

/// `cp ./evil "$(which assent)"`: a command that is no reader handed the path of the `assent`
/// (or `assent-gate`) on PATH by a substitution (`which`, `command -v`, `type -p`, `whereis`).
pub(crate) fn located_and_written(
    script: &crate::shell::ShellScript,
    programs: &[crate::classify::roads::Program],
    facts: &mut Facts,
) -> Option<Verdict> {
    let locates = |s: usize| {
        programs.get(s).is_some_and(|(program, args)| {
            matches!(*program, "which" | "command" | "type" | "whereis")
                && args
                    .iter()
                    .any(|a| NAMES.iter().any(|program| a == program))
        })
    };
    let hit = script
        .commands
        .iter()
        .zip(programs)
        .any(|(cmd, (program, _))| {
            !crate::classify::simple_command::only_reads(program)
                && cmd.substitutions.iter().any(|&s| locates(s))
        });
    hit.then(|| block("the `assent` found on PATH", facts))
}
