//! One simple command as the classifiers see it, and the small questions they all ask of it.

use crate::classify::ctx::Ctx;
use crate::classify::known_programs::{self as c, is};
use crate::classify::verdict::{Access, Facts, Verdict};
use crate::paths::normalize;
use crate::shell::wrappers::is_shell;
use crate::types::Role;

/// One command and what classifying it needs.
pub(crate) struct Cmd<'a> {
    pub program: &'a str,
    pub args: &'a [String],
    pub cwd: &'a str,
    pub network_program: bool,
    /// Runs with elevated privileges (see [`ParsedCommand::privileged`]).
    pub privileged: bool,
}

impl Cmd<'_> {
    pub fn positionals(&self) -> impl Iterator<Item = &String> {
        self.args
            .iter()
            .filter(|a| !a.starts_with('-') || a.as_str() == "-")
    }

    pub fn has_flag(&self, flags: &[&str]) -> bool {
        self.args.iter().any(|a| flags.contains(&a.as_str()))
    }

    /// A short flag cluster (`-rf`) or long flag containing `letter`/`long`.
    pub fn has_short(&self, letter: char, long: &str) -> bool {
        self.args.iter().any(|a| {
            a == long || (a.starts_with('-') && !a.starts_with("--") && a.contains(letter))
        })
    }

    pub fn path(&self, word: &str, ctx: &Ctx<'_>) -> String {
        normalize(word, self.cwd, ctx.home)
    }
}

/// Programs that print or search what they are given and run nothing of it.
pub(crate) fn only_reads(program: &str) -> bool {
    (is(c::READ_ONLY, program) && program != "xargs")
        || is(c::READS_FILES, program)
        || is(c::SEARCHES, program)
}

/// The parts of an argument that may name a file.
pub(crate) fn path_candidates(arg: &str) -> Vec<&str> {
    let mut out = Vec::new();
    if arg.contains("://") || arg.is_empty() {
        return out;
    }
    if !arg.starts_with('-') {
        out.push(arg.strip_prefix('@').unwrap_or(arg));
    }
    if let Some((_, value)) = arg.split_once('=') {
        out.push(value.strip_prefix('@').unwrap_or(value));
    }
    if let Some((_, value)) = arg.split_once('@') {
        if !value.is_empty() {
            out.push(value);
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

/// Checks every positional argument as a path.
pub(crate) fn check_args(
    cmd: &Cmd<'_>,
    skip: usize,
    access: Access,
    ctx: &Ctx<'_>,
    facts: &mut Facts,
) -> Vec<Verdict> {
    cmd.positionals()
        .skip(skip)
        .filter(|a| a.as_str() != "-")
        .filter_map(|a| ctx.check_path(&cmd.path(a, ctx), access, facts))
        .collect()
}

/// Shells and interpreters reading code from stdin or a string.
pub(crate) fn runs_code(program: &str, args: &[String]) -> bool {
    if is_shell(program) {
        return args.iter().all(|a| a.starts_with('-'));
    }
    is(c::INTERPRETERS, program)
        && (args.is_empty()
            || args.first().is_some_and(|a| a == "-")
            || args.iter().any(|a| is(c::INLINE_CODE_FLAGS, a)))
}

/// The role escalations of cloud mutations need.
pub(crate) const CLOUD_ROLE: Role = Role::PlatformAdmin;
