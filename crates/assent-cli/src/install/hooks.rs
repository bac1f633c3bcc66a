//! The gate's hook entries in a settings file shaped as Claude Code's (`hooks.<event>` → groups
//! of `{matcher, hooks: [handler]}`; Gemini CLI's `settings.json` is the same shape): which
//! entries are Assent's, putting the current ones in (where an earlier install's stood, so a
//! re-install upgrades in place) and taking exactly them out. Pure functions of the settings
//! JSON; a [`Layout`] names the agent's gate and events.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::gate::OnUnavailable;

/// The hook events the gate answers.
pub const EVENTS: [&str; 4] = [
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "SessionEnd",
];

/// One agent's hook settings: the gate (`assent gate <agent>`), the events it answers, which of
/// them take a tool matcher, and the unit of the handler's `timeout`.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub agent: &'static str,
    pub events: &'static [&'static str],
    pub matched: &'static [&'static str],
    pub timeout_unit: &'static str,
}

/// Claude Code's settings.
pub const CLAUDE_CODE: Layout = Layout {
    agent: "claude-code",
    events: &EVENTS,
    matched: &["PreToolUse", "PermissionRequest", "PostToolUse"],
    timeout_unit: "s",
};
/// What Claude Code (2.1.295 and later) does when the hook cannot start, times out or exits
/// with an unexpected code: block the action instead of letting it through. The key sits on
/// each hook handler, beside `type`, `command` and `timeout`.
pub const ON_FAILURE: &str = "block";

/// The gate command the hooks run: `BIN gate claude-code --wait S [--on-unavailable ask]`
/// (`BIN claude-code …` when `BIN` is the fast gate, `assent-gate`).
pub fn gate_command(bin: &Path, wait: Duration, on_unavailable: OnUnavailable) -> String {
    agent_gate_command("claude-code", bin, wait, on_unavailable)
}

/// Appended to Codex's hook command, which Codex runs through a shell: when the gate cannot
/// start (its binary moved or deleted) or crashes, the shell's status becomes 2, Codex's deny,
/// instead of a failed hook (Codex runs the tool after a failed hook: it fails open).
pub const SHELL_FAIL_CLOSED: &str = " || exit 2";

/// `BIN gate AGENT --wait S [--on-unavailable ask]`, the binary quoted for a shell; when `BIN`
/// is the fast gate (`assent-gate`, [`assent_gate::PROGRAM`]), `BIN AGENT …`.
pub fn agent_gate_command(
    agent: &str,
    bin: &Path,
    wait: Duration,
    on_unavailable: OnUnavailable,
) -> String {
    let quoted = shell_quote(&bin.to_string_lossy());
    let program = if bin
        .file_name()
        .is_some_and(|name| name == assent_gate::PROGRAM)
    {
        quoted
    } else {
        format!("{quoted} gate")
    };
    let mut command = format!("{program} {agent} --wait {}", wait.as_secs());
    if on_unavailable == OnUnavailable::Ask {
        command.push_str(" --on-unavailable ask");
    }
    command
}

/// The gate's hook handler: the command, its timeout in seconds, and fail closed.
pub fn gate_hook(command: &str, timeout: u64) -> Value {
    json!({
        "type": "command",
        "command": command,
        "timeout": timeout,
        "onFailure": ON_FAILURE,
    })
}

pub fn shell_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Whether a hook handler is one of Claude Code's gate's (see [`is_layout_hook`]).
pub fn is_gate_hook(hook: &Value) -> bool {
    is_layout_hook(&CLAUDE_CODE, hook)
}

/// Whether a hook handler is one of the gate's: a command whose program (any path, as
/// `--bin` may name any file; quoted or not) is followed by `gate <agent>`.
pub fn is_layout_hook(layout: &Layout, hook: &Value) -> bool {
    if hook
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|kind| kind != "command")
    {
        return false;
    }
    let Some(command) = hook.get("command").and_then(Value::as_str) else {
        return false;
    };
    is_agent_gate_command(command, layout.agent)
}

/// Whether `command`'s program (any path, quoted or not) is followed by `gate AGENT`, or is
/// the fast gate (`…/assent-gate`) followed by `AGENT`.
pub fn is_agent_gate_command(command: &str, agent: &str) -> bool {
    let Some(rest) = after_first_word(command) else {
        return false;
    };
    let mut words = rest.split_whitespace().peekable();
    let fast = command.trim_start().strip_suffix(rest).is_some_and(|word| {
        let word = word.trim_end_matches(['\'', '"']);
        word.rsplit('/').next() == Some(assent_gate::PROGRAM)
    });
    if fast && words.peek() == Some(&agent) {
        return true;
    }
    words.next() == Some("gate") && words.next() == Some(agent)
}

/// What follows the command's first shell word (quotes and backslashes as a shell reads
/// them), or `None` when the word never ends (an unclosed quote).
fn after_first_word(command: &str) -> Option<&str> {
    let command = command.trim_start();
    let mut chars = command.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '\'' => loop {
                if chars.next()?.1 == '\'' {
                    break;
                }
            },
            '"' => loop {
                match chars.next()?.1 {
                    '\\' => {
                        chars.next()?;
                    }
                    '"' => break,
                    _ => {}
                }
            },
            '\\' => {
                chars.next()?;
            }
            c if c.is_whitespace() => return command.get(at..),
            _ => {}
        }
    }
    Some("")
}

/// A group whose handlers are all the gate's: an earlier install's group.
fn is_gate_group(layout: &Layout, group: &Value) -> bool {
    group
        .get("hooks")
        .and_then(Value::as_array)
        .is_some_and(|list| !list.is_empty() && list.iter().all(|h| is_layout_hook(layout, h)))
}

/// `group` without the gate's handlers; `None` when that leaves it with none.
fn without_gate_hooks(layout: &Layout, mut group: Value) -> Option<Value> {
    if let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) {
        list.retain(|hook| !is_layout_hook(layout, hook));
        if list.is_empty() {
            return None;
        }
    }
    Some(group)
}

/// `settings` with every gate hook removed, and groups or events left empty by that removed.
pub fn without_gate(settings: &Value) -> Value {
    without_layout_gate(&CLAUDE_CODE, settings)
}

/// [`without_gate`] for `layout`'s agent.
pub fn without_layout_gate(layout: &Layout, settings: &Value) -> Value {
    let mut out = settings.clone();
    let Some(hooks) = out.get_mut("hooks").and_then(Value::as_object_mut) else {
        return out;
    };
    for event in layout.events {
        let Some(groups) = hooks.get_mut(*event).and_then(Value::as_array_mut) else {
            continue;
        };
        *groups = std::mem::take(groups)
            .into_iter()
            .filter_map(|group| without_gate_hooks(layout, group))
            .collect();
        if groups.is_empty() {
            hooks.remove(*event);
        }
    }
    if hooks.is_empty() {
        if let Some(map) = out.as_object_mut() {
            map.remove("hooks");
        }
    }
    out
}

/// `settings` with exactly one gate group per event, holding `hook`: in the place of an
/// earlier install's group (an older version's entries are replaced where they stand, so a
/// second install changes nothing), else last; gate handlers elsewhere are removed.
pub fn with_gate(settings: &Value, hook: &Value) -> Value {
    with_layout_gate(&CLAUDE_CODE, settings, hook)
}

/// [`with_gate`] for `layout`'s agent.
pub fn with_layout_gate(layout: &Layout, settings: &Value, hook: &Value) -> Value {
    let mut out = settings.clone();
    let Some(root) = out.as_object_mut() else {
        return out;
    };
    let hooks = root
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    if !hooks.is_object() {
        *hooks = Value::Object(Map::new());
    }
    let Some(hooks) = hooks.as_object_mut() else {
        return out;
    };
    for event in layout.events {
        let ours = if layout.matched.contains(event) {
            json!({ "matcher": "*", "hooks": [hook] })
        } else {
            json!({ "hooks": [hook] })
        };
        let groups = match hooks.remove(*event) {
            Some(Value::Array(groups)) => groups,
            _ => Vec::new(),
        };
        hooks.insert(
            (*event).to_owned(),
            Value::Array(placed(layout, groups, ours)),
        );
    }
    out
}

/// `groups` with `ours` in the place of the first gate group, or last.
fn placed(layout: &Layout, groups: Vec<Value>, ours: Value) -> Vec<Value> {
    let mut ours = Some(ours);
    let mut out = Vec::with_capacity(groups.len() + 1);
    for group in groups {
        if is_gate_group(layout, &group) {
            out.extend(ours.take());
        } else {
            out.extend(without_gate_hooks(layout, group));
        }
    }
    out.extend(ours);
    out
}

/// `+`/`-` lines for the gate hooks that appear or disappear between the two settings.
pub fn summary(layout: &Layout, before: &Value, after: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    for event in layout.events {
        let old = gate_hooks(layout, before, event);
        let new = gate_hooks(layout, after, event);
        lines.extend(
            old.iter()
                .filter(|h| !new.contains(h))
                .map(|h| format!("- {event}: {h}")),
        );
        lines.extend(
            new.iter()
                .filter(|h| !old.contains(h))
                .map(|h| format!("+ {event}: {h}")),
        );
    }
    lines
}

/// Each gate handler of `event` as `command (timeout Ns, onFailure X)`.
fn gate_hooks(layout: &Layout, settings: &Value, event: &str) -> Vec<String> {
    settings
        .pointer(&format!("/hooks/{event}"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|group| group.get("hooks").and_then(Value::as_array))
        .flatten()
        .filter(|hook| is_layout_hook(layout, hook))
        .map(|hook| {
            let command = hook
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let mut details = Vec::new();
            if let Some(timeout) = hook.get("timeout").and_then(Value::as_u64) {
                details.push(format!("timeout {timeout}{}", layout.timeout_unit));
            }
            if let Some(on_failure) = hook.get("onFailure").and_then(Value::as_str) {
                details.push(format!("onFailure {on_failure}"));
            }
            if details.is_empty() {
                command.to_owned()
            } else {
                format!("{command} ({})", details.join(", "))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gate_hooks_are_recognised_by_their_command() {
        let rows = [
            (
                "/usr/local/bin/assent gate claude-code --wait 290",
                true,
                "an installed binary",
            ),
            (
                "'/home/me/my tools/assent' gate claude-code --wait 290",
                true,
                "a quoted path with a space",
            ),
            (
                "'/home/me/it'\\''s/assent' gate claude-code",
                true,
                "a quoted quote",
            ),
            (
                "/opt/gates/agent-gate gate claude-code",
                true,
                "--bin may name any file",
            ),
            ("assent gate mcp", false, "another gate"),
            ("/usr/local/bin/lint-hook", false, "someone else's hook"),
            (
                "notify-send 'gate claude-code'",
                false,
                "the words inside an argument",
            ),
            ("'/unclosed gate claude-code", false, "an unclosed quote"),
            (
                "/home/me/.local/bin/assent-gate claude-code --wait 55",
                true,
                "the fast gate beside assent",
            ),
            (
                "'/home/me/my tools/assent-gate' claude-code",
                true,
                "the fast gate at a quoted path",
            ),
            (
                "/home/me/.local/bin/assent-gate gate claude-code",
                true,
                "the fast gate with the `gate` word",
            ),
            (
                "/usr/bin/assent-gate codex",
                false,
                "the fast gate for another agent",
            ),
            (
                "/usr/bin/assent-gateway claude-code",
                false,
                "another program whose name starts alike",
            ),
        ];
        for (command, want, scenario) in rows {
            let hook = json!({ "type": "command", "command": command });
            assert_eq!(is_gate_hook(&hook), want, "{scenario}: {command}");
        }
        let prompt = json!({ "type": "prompt", "command": "assent gate claude-code" });
        assert!(!is_gate_hook(&prompt), "only command handlers are ours");
    }

    #[test]
    fn the_command_quotes_what_a_shell_would_split() {
        let wait = Duration::from_secs(120);
        assert_eq!(
            gate_command(Path::new("/usr/bin/assent"), wait, OnUnavailable::Deny),
            "/usr/bin/assent gate claude-code --wait 120"
        );
        let spaced = gate_command(
            Path::new("/home/me/my tools/assent"),
            wait,
            OnUnavailable::Ask,
        );
        assert_eq!(
            spaced,
            "'/home/me/my tools/assent' gate claude-code --wait 120 --on-unavailable ask"
        );
        assert!(
            is_gate_hook(&gate_hook(&spaced, 130)),
            "what install writes, uninstall recognises"
        );
    }

    #[test]
    fn the_fast_gate_runs_the_agent_without_the_gate_word() {
        let wait = Duration::from_secs(55);
        let slow = gate_command(Path::new("/usr/bin/assent"), wait, OnUnavailable::Deny);
        let fast = gate_command(Path::new("/usr/bin/assent-gate"), wait, OnUnavailable::Ask);
        assert_eq!(
            fast, "/usr/bin/assent-gate claude-code --wait 55 --on-unavailable ask",
            "the fast gate takes the agent as its first word, with the same flags"
        );
        assert!(
            is_gate_hook(&gate_hook(&fast, 65)),
            "what install writes with the fast gate, uninstall and doctor recognise"
        );
        let upgraded = with_gate(
            &json!({ "hooks": { "PreToolUse": [{ "matcher": "*", "hooks": [gate_hook(&slow, 65)] }] } }),
            &gate_hook(&fast, 65),
        );
        assert_eq!(
            upgraded["hooks"]["PreToolUse"],
            json!([{ "matcher": "*", "hooks": [gate_hook(&fast, 65)] }]),
            "a re-install upgrades an `assent gate` hook to the fast gate in its place"
        );
    }

    #[test]
    fn a_reinstall_replaces_the_gate_group_where_it_stands() {
        let old = json!({
            "type": "command",
            "command": "/src/assent/target/debug/assent gate claude-code --wait 290",
            "timeout": 300,
        });
        let user =
            json!({ "matcher": "Bash", "hooks": [{ "type": "command", "command": "lint" }] });
        let later =
            json!({ "matcher": "Edit", "hooks": [{ "type": "command", "command": "fmt" }] });
        let settings =
            json!({ "hooks": { "PreToolUse": [user, { "matcher": "*", "hooks": [old] }, later] } });
        let hook = gate_hook("/usr/bin/assent gate claude-code --wait 290", 300);

        let installed = with_gate(&settings, &hook);

        assert_eq!(
            installed["hooks"]["PreToolUse"],
            json!([user, { "matcher": "*", "hooks": [hook] }, later]),
            "the old entry is upgraded in its place, the user's hooks around it untouched"
        );
        assert_eq!(
            with_gate(&installed, &hook),
            installed,
            "a second install changes nothing"
        );
        assert_eq!(
            without_gate(&installed)["hooks"]["PreToolUse"],
            json!([user, later]),
            "uninstall takes out exactly the gate's group"
        );
    }
}
