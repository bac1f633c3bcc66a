//! Command profiles: which profile a command belongs to, and its canonical argv.

use crate::policy::{CommandProfile, Policy};
use crate::shell::wrappers::program_name;

fn is_flag(word: &str) -> bool {
    (word.starts_with('-') && word.len() > 1) || word.starts_with('+')
}

/// The positional arguments of `args`, up to `--`.
fn positionals(args: &[String]) -> Vec<&str> {
    args.iter()
        .take_while(|a| a.as_str() != "--")
        .filter(|a| !is_flag(a))
        .map(String::as_str)
        .collect()
}

/// The profile `argv` (wrappers already seen through) belongs to.
pub(crate) fn match_profile<'a>(policy: &'a Policy, argv: &[String]) -> Option<&'a CommandProfile> {
    let (program, args) = argv.split_first()?;
    let name = program_name(program);
    policy.profiles.iter().find(|p| {
        p.programs
            .iter()
            .any(|prog| prog == program || prog == name)
            && matches_args(p, args)
    })
}

fn matches_args(profile: &CommandProfile, args: &[String]) -> bool {
    let pos = positionals(args);
    if profile.subcommands.is_empty() {
        return true;
    }
    if profile.goals {
        if pos.is_empty() {
            return profile.subcommands.iter().any(String::is_empty);
        }
        return pos
            .iter()
            .all(|g| !g.is_empty() && profile.subcommands.iter().any(|s| s == g));
    }
    profile
        .subcommands
        .iter()
        .filter(|s| !s.is_empty())
        .any(|sub| {
            let words: Vec<&str> = sub.split(' ').collect();
            pos.len() >= words.len() && pos.iter().zip(&words).all(|(a, b)| a == b)
        })
}

/// `argv` with its stand-alone flags (a flag not followed by a value) sorted in place, so
/// `--release --workspace` and `--workspace --release` read the same. Flags followed by a
/// word keep their place: the word may be their value.
pub(crate) fn normalize_flags(argv: &[String]) -> Vec<String> {
    let end = argv.iter().position(|a| a == "--").unwrap_or(argv.len());
    let standalone: Vec<usize> = (1..end)
        .filter(|&i| {
            argv.get(i)
                .is_some_and(|a| a.starts_with('-') && a.len() > 1)
                && argv
                    .get(i + 1)
                    .is_none_or(|next| i + 1 >= end || next.starts_with('-'))
        })
        .collect();
    let mut flags: Vec<String> = standalone
        .iter()
        .filter_map(|&i| argv.get(i).cloned())
        .collect();
    flags.sort();
    let mut out = argv.to_vec();
    for (slot, flag) in standalone.iter().zip(flags) {
        if let Some(word) = out.get_mut(*slot) {
            *word = flag;
        }
    }
    out
}
