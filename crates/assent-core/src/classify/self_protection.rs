//! Commands that reach for Assent itself: its admin commands, its own files or the agents'
//! hook configuration named in any argument, inline interpreter code that mentions them, and
//! requests to its approver routes ([`crate::own::routes`]). All are blocks (see
//! [`crate::own::places`]).

use crate::classify::ctx::Ctx;
use crate::classify::known_programs::{self as c, is};
use crate::classify::simple_command::path_candidates;
use crate::classify::verdict::{Access, Facts, Verdict};
use crate::own::places::{hook_reason, OwnPlace, FILES_RULE, HOOKS_RULE, OWN_FILE_NAMES};
use crate::own::routes::route;
use crate::paths::{normalize, relative_to};
use crate::shell::wrappers::effective;
use crate::shell::ParsedCommand;
use crate::types::PathRisk;

const ADMIN_RULE: &str = "block.assent_admin";

/// What one command does to Assent itself.
pub(crate) fn command(cmd: &ParsedCommand, ctx: &Ctx<'_>, facts: &mut Facts) -> Vec<Verdict> {
    let eff = effective(&cmd.argv);
    let (program, args) = match eff.argv.split_first() {
        Some((first, args)) => (crate::shell::wrappers::program_name(first), args),
        None => ("", &[][..]),
    };
    // Also `find -exec assent …`, `flock F assent …`, `strace assent …`: any launcher not
    // seen through is still running the `assent` it names (a reader only prints the words).
    let launched = || {
        cmd.argv
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(_, w)| w.rsplit('/').next() == Some("assent"))
            .find_map(|(k, _)| admin(cmd.argv.get(k..).unwrap_or_default(), false))
    };
    let mut out: Vec<Verdict> = admin(eff.argv, eff.args_from_stdin)
        .or_else(|| (!only_reads(program, args)).then(launched).flatten())
        .into_iter()
        .collect();
    // A reader's arguments may name hook configuration; anything else may change it.
    let access = if only_reads(program, args) {
        Access::Read
    } else {
        Access::Write
    };
    for word in cmd.assignments.iter().chain(&cmd.argv) {
        for candidate in path_candidates(word) {
            let path = normalize(candidate, &cmd.cwd, ctx.home);
            out.extend(ctx.own.check(&path, access, &ctx.root, facts));
            if program == "ln" {
                out.extend(ctx.own.check_link_target(&path, &ctx.root));
            }
        }
    }
    if let Some(code) = code_text(program, args, &cmd.redirect_words) {
        out.extend(inline_code(&code, ctx, facts));
    }
    if is(c::NETWORK, program) {
        out.extend(args.iter().filter_map(|a| route(a, ctx)));
    }
    out
}

/// The code a command runs from its words rather than from a file: an interpreter's arguments
/// (its `-c`/`-e` code cannot be told from its file arguments: `perl -ne CODE FILE`) and
/// here-documents, an awk or sed program, a here-document fed to a shell.
fn code_text(program: &str, args: &[String], redirects: &[String]) -> Option<String> {
    let script = |flags: &[&str]| -> Vec<&String> {
        let by_flag: Vec<&String> = args
            .iter()
            .zip(args.iter().skip(1))
            .filter(|(flag, _)| flags.contains(&flag.as_str()))
            .map(|(_, value)| value)
            .collect();
        if by_flag.is_empty() {
            args.iter()
                .filter(|a| !a.starts_with('-'))
                .take(1)
                .collect()
        } else {
            by_flag
        }
    };
    let words: Vec<&String> = if is(c::INTERPRETERS, program) {
        args.iter().chain(redirects).collect()
    } else if matches!(program, "awk" | "gawk" | "mawk") {
        script(&["-e", "--source"])
    } else if program == "sed" {
        script(&["-e", "--expression"])
    } else if crate::shell::wrappers::is_shell(program) {
        redirects.iter().collect()
    } else {
        return None;
    };
    let words: Vec<&str> = words.into_iter().map(String::as_str).collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// `assent people …`, `assent agents …`, `assent uninstall …`, `assent install …` and
/// `assent policy suggest --apply` (any path to the binary, or `cargo run … -- people …` in
/// Assent's own repository). With `from_stdin` (`xargs assent …`), also a line whose
/// subcommand, or the words that decide what it does, xargs adds at run time.
fn admin(argv: &[String], from_stdin: bool) -> Option<Verdict> {
    let (first, args) = argv.split_first()?;
    let name = first.rsplit('/').next().unwrap_or(first);
    let rest: &[String] = match name {
        "assent" => args,
        "cargo" if args.iter().any(|a| a == "run") && args.iter().any(|a| a.contains("assent")) => {
            let dash = args.iter().position(|a| a == "--")?;
            args.get(dash + 1..).unwrap_or_default()
        }
        _ => return None,
    };
    let words: Vec<&str> = rest
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if let Some((sub, what)) = words
        .first()
        .and_then(|sub| Some((*sub, admin_purpose(sub, rest)?)))
    {
        return Some(Verdict::block(
            ADMIN_RULE,
            format!(
                "`assent {sub}` {what}: Assent's admin commands are for a person, never an agent"
            ),
        ));
    }
    (from_stdin && !decided_without_stdin(&words)).then(|| {
        Verdict::block(
            ADMIN_RULE,
            "`xargs assent …` takes the words that decide what it does from stdin, so it can run an admin command: Assent's admin commands are for a person, never an agent",
        )
    })
}

/// What an admin subcommand does; `args` are its words (`policy suggest --apply`).
fn admin_purpose(sub: &str, args: &[String]) -> Option<&'static str> {
    Some(match sub {
        "people" => "manages who may approve",
        "agents" => "manages agent identities and their tokens",
        "uninstall" => "removes the hooks that keep Assent in the loop",
        "install" => "rewrites the hooks that keep Assent in the loop, and which binary they run",
        "policy" if args.iter().any(|a| a == "suggest") && args.iter().any(|a| a == "--apply") => {
            "rewrites the policy Assent runs with"
        }
        _ => return None,
    })
}

/// Whether the words before what xargs appends already settle that no admin command runs.
fn decided_without_stdin(words: &[&str]) -> bool {
    match words {
        ["policy", "eval" | "show" | "check", ..] => true,
        [sub, ..] => matches!(
            *sub,
            "gate" | "request" | "exec" | "doctor" | "run" | "campaign" | "serve"
        ),
        [] => false,
    }
}

/// Programs that leave the files they name as they are (no in-place or output flag): readers,
/// searches, and the git commands that read or record (`git add`, `git commit`).
fn only_reads(program: &str, args: &[String]) -> bool {
    let writes_output = args.iter().any(|a| {
        a == "-i"
            || a == "-o"
            || a.starts_with("--in-place")
            || a.starts_with("--output")
            || (a.starts_with('-') && !a.starts_with("--") && a.contains('i') && program == "sed")
    });
    if writes_output {
        return false;
    }
    match program {
        "git" => args
            .iter()
            .find(|a| !a.starts_with('-'))
            .is_some_and(|sub| {
                matches!(
                    sub.as_str(),
                    "status"
                        | "diff"
                        | "log"
                        | "show"
                        | "blame"
                        | "grep"
                        | "ls-files"
                        | "cat-file"
                        | "add"
                        | "commit"
                )
            }),
        "sed" => true,
        _ => is(c::READ_ONLY, program) || is(c::READS_FILES, program) || is(c::SEARCHES, program),
    }
}

/// Inline code (`python3 -c`, `node -e`, `perl -ne`, an awk or sed program, a here-document
/// fed to an interpreter) that mentions Assent's own files, hook configuration, admin
/// commands or approver routes.
///
/// A mention is enough to block. Code can build a path in ways no scan follows, so this is
/// best effort, and the hard boundary against a same-user agent is a sandbox or another OS
/// user. But code that spells out the approver token's path or a hook file's name has no
/// business an agent needs, a reader cannot be told from a writer by scanning, and a person
/// asked "once" for it would be asked to hand over the desk: fail toward block.
fn inline_code(code: &str, ctx: &Ctx<'_>, facts: &mut Facts) -> Vec<Verdict> {
    let lower = code.to_ascii_lowercase();
    let mut out = Vec::new();
    let admin = names_admin_command(&lower).and_then(|sub| Some((sub, admin_purpose(sub, &[])?)));
    if let Some((sub, what)) = admin {
        out.push(Verdict::block(
            ADMIN_RULE,
            format!("inline code runs `assent {sub}`, which {what}: Assent's admin commands are for a person, never an agent"),
        ));
    }
    if let Some((holding, needle)) = names_own_files(&lower, admin.is_none(), ctx) {
        facts.path(PathRisk::Sensitive);
        out.push(Verdict::block(
            FILES_RULE,
            format!("inline code names {holding} ({needle}), which are never read or changed by an agent"),
        ));
    }
    if let Some(needle) = names_hook_config(&lower, ctx) {
        facts.path(PathRisk::Security);
        out.push(Verdict::block(
            HOOKS_RULE,
            hook_reason(&format!("{needle} (named in inline code)")),
        ));
    }
    out.extend(route(code, ctx));
    out
}

/// What of Assent's the (lowercased) code names, and the words that name it; `"assent"` as a
/// word of its own counts when `bare_name` (it also names the binary: `["assent", "people"]`).
fn names_own_files(code: &str, bare_name: bool, ctx: &Ctx<'_>) -> Option<(&'static str, String)> {
    for (place, path) in ctx.own.places() {
        // `~/.local/share/assent`, `$HOME/…`, `Path.home() / ".local/share/assent"` all
        // contain the part below home.
        let under_home = relative_to(path, ctx.home)
            .filter(|rel| !rel.is_empty() && ctx.home != "/")
            .map(str::to_ascii_lowercase);
        for needle in std::iter::once(path.to_ascii_lowercase()).chain(under_home) {
            if code.contains(&needle) {
                return Some((place.holding(), needle));
            }
        }
    }
    if let Some(name) = OWN_FILE_NAMES.iter().find(|n| code.contains(*n)) {
        return Some((OwnPlace::Data.holding(), (*name).to_owned()));
    }
    // `os.path.join(home, ".local", "share", "assent")`.
    ["\"assent\"", "'assent'"]
        .iter()
        .filter(|_| bare_name)
        .find(|n| code.contains(*n))
        .map(|n| ("Assent's own files", (*n).to_owned()))
}

/// The hook configuration the (lowercased) code names.
fn names_hook_config(code: &str, ctx: &Ctx<'_>) -> Option<String> {
    if code.contains(".claude") && code.contains("settings") {
        return Some(".claude/settings*.json".to_owned());
    }
    if code.contains(".codex") && (code.contains("config.toml") || code.contains("hooks.json")) {
        return Some(".codex/config.toml or hooks.json".to_owned());
    }
    if code.contains("managed-settings.json") {
        return Some("managed-settings.json".to_owned());
    }
    let named = [
        (".gemini", "settings", ".gemini/settings.json"),
        (".cursor", "hooks.json", ".cursor/hooks.json"),
        (".github/hooks", "", ".github/hooks/*.json"),
        (".copilot", "hooks", ".copilot/hooks/*.json"),
        (".copilot", "settings", ".copilot/settings.json"),
        (".opencode/plugin", "", ".opencode/plugin/*"),
        ("opencode/plugin", "", "opencode's plugin directory"),
    ];
    if let Some((_, _, shown)) = named
        .iter()
        .find(|(dir, file, _)| code.contains(dir) && code.contains(file))
    {
        return Some((*shown).to_owned());
    }
    ctx.own
        .hook_dirs()
        .map(str::to_ascii_lowercase)
        .find(|dir| code.contains(dir.as_str()))
}

/// `assent people`, `["assent", "agents"]`: the admin subcommand the code runs, if any.
fn names_admin_command(code: &str) -> Option<&'static str> {
    let mut rest = code;
    while let Some(at) = rest.find("assent") {
        let after = rest.get(at + "assent".len()..).unwrap_or_default();
        let next = after.trim_start_matches(|ch: char| {
            ch.is_whitespace() || matches!(ch, '"' | '\'' | ',' | '[' | ']' | '(' | ')')
        });
        if let Some(sub) = ["people", "agents", "uninstall", "install"]
            .into_iter()
            .find(|s| next.starts_with(s))
        {
            return Some(sub);
        }
        rest = after;
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;

    #[test]
    fn admin_commands_are_named_in_code() {
        assert_eq!(
            names_admin_command("subprocess.run(['assent', 'people', 'add'])"),
            Some("people")
        );
        assert_eq!(
            names_admin_command("os.system('/usr/bin/assent agents list')"),
            Some("agents")
        );
        assert_eq!(names_admin_command("print('assent is fine')"), None);
    }
}
