//! The gate's hooks as installed: present for every event, naming an executable binary,
//! failing closed (Claude Code `onFailure: "block"`), trusted (Codex). Pure functions of the
//! parsed settings; whether a binary runs is asked through `runs`.

use std::path::Path;

use serde_json::Value;
use toml_edit::{DocumentMut, Item, Table};

use super::report::Check;
use crate::install::codex_toml::{self, trusted_hash, SESSION_END_TIMEOUT};
use crate::install::hooks::{self as claude, is_gate_hook, ON_FAILURE, SHELL_FAIL_CLOSED};

/// Whether a program can be run: `Err(why)` when it is missing or not executable;
/// `Ok(Some(dir))` when it runs but is a build output under `dir`.
pub type Runs<'a> = &'a dyn Fn(&str) -> Result<Option<String>, String>;

/// What one agent's config showed: the checks and the distinct gate commands (for the canary).
#[derive(Debug, Default)]
pub struct Found {
    pub checks: Vec<Check>,
    pub commands: Vec<String>,
}

/// Claude Code's settings file `path` (its JSON, `None` when absent).
pub fn claude_code(path: &Path, settings: Option<&Value>, runs: Runs) -> Found {
    let shown = path.display();
    let mut missing = Vec::new();
    let mut open = Vec::new();
    let mut commands: Vec<String> = Vec::new();
    for event in claude::EVENTS {
        let hooks: Vec<&Value> = settings
            .and_then(|s| s.pointer(&format!("/hooks/{event}")))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|group| group.get("hooks").and_then(Value::as_array))
            .flatten()
            .filter(|hook| is_gate_hook(hook))
            .collect();
        if hooks.is_empty() {
            missing.push(event);
        }
        for hook in hooks {
            if hook.get("onFailure").and_then(Value::as_str) != Some(ON_FAILURE) {
                open.push(event);
            }
            if let Some(command) = hook.get("command").and_then(Value::as_str) {
                if !commands.iter().any(|c| c == command) {
                    commands.push(command.to_owned());
                }
            }
        }
    }
    let fix = "assent install claude-code";
    let mut checks = vec![installed(
        "claude-code.hooks",
        &shown.to_string(),
        &missing,
        fix,
    )];
    if commands.is_empty() {
        return Found { checks, commands };
    }
    checks.push(if open.is_empty() {
        Check::pass(
            "claude-code.fail-closed",
            "every gate hook has onFailure: \"block\"",
        )
    } else {
        Check::fail(
            "claude-code.fail-closed",
            format!(
                "{} lack onFailure: \"block\": if the gate cannot start, the tool runs unguarded",
                open.join(", ")
            ),
            "assent install claude-code (a re-install writes onFailure: \"block\")",
        )
    });
    checks.extend(binaries("claude-code.binary", &commands, runs, fix));
    Found { checks, commands }
}

/// Codex's config `path` (`None` when absent) and the user config holding the trust.
pub fn codex(
    path: &Path,
    doc: Option<&DocumentMut>,
    user: Option<&DocumentMut>,
    runs: Runs,
) -> Found {
    let source = path.to_string_lossy();
    let mut missing = Vec::new();
    let mut untrusted = Vec::new();
    let mut commands: Vec<String> = Vec::new();
    for (event, label, matched) in codex_toml::EVENTS {
        let groups = doc
            .and_then(|d| d.get("hooks"))
            .and_then(|h| h.get(event))
            .and_then(Item::as_array_of_tables);
        let mut any = false;
        for (at, group) in groups.into_iter().flat_map(|g| g.iter()).enumerate() {
            let Some(command) = gate_command(group) else {
                continue;
            };
            any = true;
            let place = Place {
                source: &source,
                label,
                at,
                matched,
            };
            if !trusted(user, &place, group, &command) {
                untrusted.push(event);
            }
            if !commands.contains(&command) {
                commands.push(command);
            }
        }
        if !any {
            missing.push(event);
        }
    }
    let fix = "assent install codex";
    let mut checks = vec![installed("codex.hooks", &source, &missing, fix)];
    if commands.is_empty() {
        return Found { checks, commands };
    }
    checks.push(trust_check(&untrusted));
    checks.extend(binaries("codex.binary", &commands, runs, fix));
    checks.push(codex_fail_closed(&commands));
    Found { checks, commands }
}

/// Codex runs the tool after a failed hook (a missing binary, a crash): the installed command
/// ends in `|| exit 2` so the shell denies instead. Older installs lack it.
fn codex_fail_closed(commands: &[String]) -> Check {
    let open: Vec<&str> = commands
        .iter()
        .filter(|c| !c.trim_end().ends_with(SHELL_FAIL_CLOSED.trim()))
        .map(String::as_str)
        .collect();
    if open.is_empty() {
        return Check::pass(
            "codex.fail-closed",
            "the hook command denies when the gate cannot start (`|| exit 2`)",
        );
    }
    Check::warn(
        "codex.fail-closed",
        format!(
            "{} has no `|| exit 2`: if that binary goes missing, Codex runs the tool (it fails open)",
            open.join(", ")
        ),
        "re-run `assent install codex` (it writes the command with `|| exit 2` and re-trusts it)",
    )
}

fn trust_check(untrusted: &[&str]) -> Check {
    if untrusted.is_empty() {
        return Check::pass("codex.trusted", "the gate hooks are trusted");
    }
    Check::fail(
        "codex.trusted",
        format!(
            "{} not trusted: Codex skips them and runs tools unguarded",
            untrusted.join(", ")
        ),
        "assent install codex (it records the trust), or trust them in Codex's /hooks",
    )
}

/// Where a Codex group stands: its config file, event label, index, and whether it matches.
struct Place<'a> {
    source: &'a str,
    label: &'a str,
    at: usize,
    matched: bool,
}

/// Whether the user config trusts `group` (running `command`) as Codex computes it.
fn trusted(user: Option<&DocumentMut>, place: &Place, group: &Table, command: &str) -> bool {
    let timeout = group_timeout(group).unwrap_or(SESSION_END_TIMEOUT);
    let matcher = place
        .matched
        .then(|| group.get("matcher").and_then(Item::as_str))
        .flatten();
    let want = trusted_hash(place.label, matcher, command, timeout);
    let key = codex_toml::state_key(place.source, place.label, place.at);
    let have = user
        .and_then(|u| u.get("hooks"))
        .and_then(|h| h.get("state"))
        .and_then(|s| s.get(&key))
        .and_then(|e| e.get("trusted_hash"))
        .and_then(Item::as_str);
    have == Some(want.as_str())
}

/// The gate's handler command of a Codex group (one command handler running `gate codex`).
fn gate_command(group: &Table) -> Option<String> {
    let handlers = group.get("hooks").and_then(Item::as_array_of_tables)?;
    handlers.iter().find_map(|handler| {
        let kind = handler.get("type").and_then(Item::as_str);
        let command = handler.get("command").and_then(Item::as_str)?;
        (kind.is_none_or(|k| k == "command") && claude::is_agent_gate_command(command, "codex"))
            .then(|| command.to_owned())
    })
}

fn group_timeout(group: &Table) -> Option<u64> {
    let handlers = group.get("hooks").and_then(Item::as_array_of_tables)?;
    let timeout = handlers
        .iter()
        .find_map(|h| h.get("timeout").and_then(Item::as_integer))?;
    u64::try_from(timeout).ok()
}

pub(super) fn installed(check: &str, file: &str, missing: &[&str], fix: &str) -> Check {
    if missing.is_empty() {
        Check::pass(check, format!("the gate hooks are in {file}"))
    } else if missing.len() == claude::EVENTS.len() {
        Check::warn(
            check,
            format!("no gate hooks in {file}: this agent runs unguarded"),
            fix,
        )
    } else {
        Check::fail(
            check,
            format!(
                "{file} has no gate hook for {}: those events go unguarded",
                missing.join(", ")
            ),
            fix,
        )
    }
}

/// Each command's program exists and is executable; an installed `assent` with the fast gate
/// beside it is worth a re-install (every tool call then loads the small binary).
pub(super) fn binaries(check: &str, commands: &[String], runs: Runs, fix: &str) -> Vec<Check> {
    let mut programs: Vec<String> = commands.iter().filter_map(|c| program(c)).collect();
    programs.dedup();
    let mut checks = Vec::new();
    for prog in &programs {
        let ran = runs(prog);
        let installed = matches!(ran, Ok(None));
        checks.push(match ran {
            Ok(None) => Check::pass(check, format!("the hooks run {prog}")),
            Ok(Some(dir)) => Check::warn(
                check,
                format!("the hooks run {prog}, a build output under {dir}: a rebuild or cargo clean changes it under them"),
                format!("install assent (./scripts/setup.sh, or `cargo install --path crates/assent-cli`), then `{fix}`"),
            ),
            Err(why) => Check::fail(
                check,
                format!("the hooks run {prog}, which {why}"),
                format!("reinstall assent at {prog}, or `{fix} --bin /path/to/assent`"),
            ),
        });
        let fast = Path::new(prog)
            .file_name()
            .is_some_and(|name| name == "assent")
            .then(|| assent_gate::beside(Path::new(prog)))
            .flatten();
        if let (true, Some(fast)) = (installed, fast) {
            checks.push(Check::warn(
                check,
                format!(
                    "the hooks run `{prog} gate`, which loads the whole assent on every tool call; {} beside it answers the same, faster",
                    fast.display()
                ),
                format!("`{fix}` (it names {} and keeps the hooks where they stand)", fast.display()),
            ));
        }
    }
    checks
}

/// The first shell word of `command`, unquoted (`'a b'`, `"a\"b"`, `a\ b`).
pub fn program(command: &str) -> Option<String> {
    let mut word = String::new();
    let mut chars = command.trim_start().chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => loop {
                match chars.next()? {
                    '\'' => break,
                    c => word.push(c),
                }
            },
            '"' => loop {
                match chars.next()? {
                    '"' => break,
                    '\\' => word.push(chars.next()?),
                    c => word.push(c),
                }
            },
            '\\' => word.push(chars.next()?),
            c if c.is_whitespace() => break,
            c => word.push(c),
        }
    }
    (!word.is_empty()).then_some(word)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::report::Status;
    use serde_json::json;

    fn ok(_: &str) -> Result<Option<String>, String> {
        Ok(None)
    }

    fn settings(hook: Value) -> Value {
        let group = json!({ "matcher": "*", "hooks": [hook] });
        json!({ "hooks": {
            "PreToolUse": [group], "PermissionRequest": [group],
            "PostToolUse": [group], "SessionEnd": [{ "hooks": [hook] }],
        }})
    }

    #[test]
    fn programs_are_read_as_a_shell_reads_them() {
        let rows = [
            ("/usr/bin/assent gate codex", Some("/usr/bin/assent")),
            ("'/my tools/assent' gate codex", Some("/my tools/assent")),
            ("'/it'\\''s/assent' gate", Some("/it's/assent")),
            ("'/unclosed gate", None),
        ];
        for (command, want) in rows {
            assert_eq!(program(command).as_deref(), want, "{command}");
        }
    }

    #[test]
    fn a_hook_without_on_failure_fails() {
        let cmd = "/usr/bin/assent gate claude-code --wait 290";
        let open = settings(json!({ "type": "command", "command": cmd }));
        let found = claude_code(Path::new("/s.json"), Some(&open), &ok);
        let closed = found
            .checks
            .iter()
            .find(|c| c.check == "claude-code.fail-closed");
        assert_eq!(
            closed.map(|c| c.status),
            Some(Status::Fail),
            "without onFailure an older gate failure lets the tool run"
        );
        let good = settings(claude::gate_hook(cmd, 300));
        let found = claude_code(Path::new("/s.json"), Some(&good), &ok);
        assert!(
            found.checks.iter().all(|c| c.status == Status::Pass),
            "what install writes passes: {:?}",
            found.checks
        );
        assert_eq!(
            found.commands,
            vec![cmd.to_owned()],
            "one command for the canary"
        );
    }

    #[test]
    fn a_partial_install_fails_and_none_warns() {
        let cmd = "/usr/bin/assent gate claude-code";
        let partial = json!({ "hooks": { "PreToolUse": [{ "matcher": "*", "hooks": [claude::gate_hook(cmd, 9)] }] } });
        let found = claude_code(Path::new("/s.json"), Some(&partial), &ok);
        assert_eq!(
            found.checks.first().map(|c| c.status),
            Some(Status::Fail),
            "events left open"
        );
        let none = claude_code(Path::new("/s.json"), None, &ok);
        assert_eq!(
            none.checks.first().map(|c| c.status),
            Some(Status::Warn),
            "not installed is a warning"
        );
    }
}
