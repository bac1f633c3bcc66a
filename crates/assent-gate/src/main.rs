//! `assent-gate`: the hook gates as a binary of their own ([`assent_gate`]); this file only
//! picks the agent. `assent-gate claude-code …` is `assent gate claude-code …` (a leading
//! `gate` word is also taken), and so for every agent of [`assent_gate::AGENTS`]; a gate it does
//! not answer itself (`mcp`, which needs the async runtime, or a word it does not know) is
//! handed to `assent gate …` beside it, by `exec`, so it answers exactly as `assent` does.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::process::ExitCode;

use assent_gate::hook::BLOCKING_EXIT;
use assent_gate::{agent, Gate};
use clap::{Command, FromArgMatches, Subcommand};

fn main() -> ExitCode {
    assent_core::quiet_parser_panics();
    let mut argv: Vec<OsString> = std::env::args_os().collect();
    if argv.get(1).is_some_and(|word| word == "gate") {
        argv.remove(1);
    }
    let word = argv.get(1).and_then(|word| word.to_str());
    let ours = word.is_none_or(|word| word.starts_with('-') || agent(word).is_some());
    if !ours {
        return hand_over(argv.get(1..).unwrap_or_default());
    }
    parse(argv).run()
}

/// The gate `argv` asks for. The agent's own flags are parsed by its subcommand's parser
/// alone: building every agent's parser to use one was half of an auto decision's
/// instructions (≈90 k of ≈330 k, clap's `augment_subcommands`). Whatever that does not parse
/// (`--help`, `--version`, a typo) goes to the whole parser, which answers as it always has.
fn parse(argv: Vec<OsString>) -> Gate {
    by_agent(&argv).unwrap_or_else(|| whole(argv))
}

/// `argv[1..]` (the agent's word and its flags) parsed by its agent's subcommand alone; `None`
/// when that parser has something else to say (help, an error) or `argv` names no agent.
fn by_agent(argv: &[OsString]) -> Option<Gate> {
    let agent = agent(argv.get(1)?.to_str()?)?;
    let matches = agent.command().try_get_matches_from(argv.get(1..)?).ok()?;
    Gate::of(agent, &matches).ok()
}

/// The whole parser: `assent-gate AGENT [flags]`, its help, version and usage errors (exit 2).
fn whole(argv: Vec<OsString>) -> Gate {
    let command = Command::new(assent_gate::PROGRAM)
        .version(env!("CARGO_PKG_VERSION"))
        .about("The agents' hook gate (`assent gate AGENT`), as a small binary of its own")
        .subcommand_required(true)
        .arg_required_else_help(true);
    let matches = Gate::augment_subcommands(command).get_matches_from(argv);
    Gate::from_arg_matches(&matches).unwrap_or_else(|err| err.exit())
}

/// `assent gate ARGS` beside this binary, in this process (exec). It returns only when that
/// cannot start; the tool call is then blocked, with the reason.
fn hand_over(args: &[OsString]) -> ExitCode {
    let assent = std::env::current_exe().map(|exe| exe.with_file_name("assent"));
    let err = match &assent {
        Ok(assent) => std::process::Command::new(assent)
            .arg("gate")
            .args(args)
            .exec(),
        Err(err) => std::io::Error::new(err.kind(), err.to_string()),
    };
    let shown = assent.map_or_else(|_| "assent".into(), |p| p.display().to_string());
    eprintln!("Assent gate: cannot run {shown} gate: {err}; blocking the tool call");
    ExitCode::from(BLOCKING_EXIT)
}
