//! Damage to the machine itself that no single command's words show: a fork bomb (a function
//! that starts copies of itself in a pipe or the background, whatever it is called), an
//! endless loop that starts a background process on every turn, inline code that forks
//! forever. Read from the line's text, since the shell reader sees only the commands.
//! An endless writer aimed at a file fills the disk. Disk, volume and pool tools' destroying
//! verbs, and a signal to every process. And the read-only spellings of the disk tools the
//! destructive rule blocks.

use std::sync::OnceLock;

use regex::Regex;

use crate::classify::roads::Program;
use crate::classify::simple_command::Cmd;
use crate::classify::verdict::{is_harmless_device, Verdict};
use crate::shell::ShellScript;

const RULE: &str = "block.destructive";

/// The block when `line` exhausts the machine's processes. `runs_strings`: some command of the
/// line runs a string as shell code (`bash -c '…'`, `eval "…"`), so quoted text counts too;
/// otherwise a definition or loop inside quotes is only text (`git commit -m ":(){ …"`).
pub(crate) fn exhaustion(line: &str, runs_strings: bool) -> Option<Verdict> {
    let text = Unquoted::of(line);
    let reason = fork_bomb(&text, runs_strings)
        .map(|name| {
            format!("a fork bomb: the function `{name}` starts copies of itself until the machine runs out of processes")
        })
        .or_else(|| {
            spawning_loop(&text, runs_strings).then(|| {
                "an endless loop that starts a background process on every turn exhausts the machine's processes".to_owned()
            })
        })
        // Inline code is quoted by nature (`perl -e '…'`).
        .or_else(|| {
            forking_code(&text.text).then(|| {
                "inline code that forks forever exhausts the machine's processes".to_owned()
            })
        })?;
    Some(Verdict::block(RULE, reason))
}

/// A line with its quotes and backslashes taken out (they change no name the shell runs:
/// `'bomb'|\bomb` calls `bomb`), remembering which bytes stood inside quotes.
struct Unquoted {
    text: String,
    quoted: Vec<bool>,
}

impl Unquoted {
    fn of(line: &str) -> Self {
        let mut text = String::with_capacity(line.len());
        let mut quoted = Vec::with_capacity(line.len());
        let mut open: Option<char> = None;
        let mut escaped = false;
        for ch in line.chars() {
            let keep = if escaped {
                escaped = false;
                true
            } else {
                match (open, ch) {
                    (Some('\''), '\'') | (Some('"'), '"') => {
                        open = None;
                        false
                    }
                    (None, '\'' | '"') => {
                        open = Some(ch);
                        false
                    }
                    (Some('\''), _) => true,
                    (_, '\\') => {
                        escaped = true;
                        false
                    }
                    _ => true,
                }
            };
            if keep {
                text.push(ch);
                quoted.extend(std::iter::repeat_n(open.is_some(), ch.len_utf8()));
            }
        }
        Unquoted { text, quoted }
    }

    /// Whether the byte at `at` of the text stood inside quotes.
    fn is_quoted(&self, at: usize) -> bool {
        self.quoted.get(at).copied().unwrap_or(false)
    }
}

/// The name of a function defined on the line whose body calls itself in a pipe or in the
/// background: `:(){ :|:& };:`, `bomb() { bomb | bomb & }`, `function f { f & f; }`.
fn fork_bomb(line: &Unquoted, runs_strings: bool) -> Option<String> {
    static DEFINITION: OnceLock<Option<Regex>> = OnceLock::new();
    let definition = DEFINITION
        .get_or_init(|| {
            Regex::new(
                r"(?:function\s+([^\s(){};|&<>]+)\s*(?:\(\s*\))?|([^\s(){};|&<>]+)\s*\(\s*\))\s*([{(])",
            )
            .ok()
        })
        .as_ref()?;
    let text = line.text.as_str();
    for found in definition.captures_iter(text) {
        let head = found.get(0)?;
        if line.is_quoted(head.start()) && !runs_strings {
            continue;
        }
        let name = found.get(1).or_else(|| found.get(2))?.as_str();
        let open = found.get(3)?;
        let body = enclosed(text.get(open.start()..)?)?;
        let spawns = lone(body, b'|') || lone(body, b'&');
        if spawns && calls(body, name) {
            return Some(name.to_owned());
        }
    }
    None
}

/// The text inside the bracket `text` starts with, up to its match.
fn enclosed(text: &str) -> Option<&str> {
    let open = text.chars().next()?;
    let close = if open == '{' { '}' } else { ')' };
    let mut depth = 0usize;
    for (at, ch) in text.char_indices() {
        if ch == open {
            depth += 1;
        } else if ch == close {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return text.get(1..at);
            }
        }
    }
    // An unclosed body runs to the end of the line.
    text.get(1..)
}

/// Whether `body` runs `name` as a command word.
fn calls(body: &str, name: &str) -> bool {
    body.split(|ch: char| ch.is_whitespace() || matches!(ch, '|' | '&' | ';' | '(' | ')'))
        .any(|word| word == name)
}

/// A `|` that pipes or a `&` that sends a command to the background (not `||`, `&&`, `>&`,
/// `&>`, `|&` counted twice).
fn lone(text: &str, op: u8) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(i, b)| {
        let before = i.checked_sub(1).and_then(|j| bytes.get(j));
        let after = bytes.get(i + 1);
        *b == op
            && before != Some(&op)
            && after != Some(&op)
            && !matches!(before, Some(b'>' | b'<'))
            && !(op == b'&' && after == Some(&b'>'))
    })
}

/// `while true; do … & done`, `until false; do …& done`, `for ((;;)); do … & done`.
fn spawning_loop(line: &Unquoted, runs_strings: bool) -> bool {
    static LOOP: OnceLock<Option<Regex>> = OnceLock::new();
    let Some(endless) = LOOP
        .get_or_init(|| {
            Regex::new(
                r"(?s)(?:\bwhile\s+(?:true|:|\[\s*1\s*\]|\[\[\s*1\s*\]\]|\(\(\s*1\s*\)\))|\buntil\s+false|\bfor\s*\(\(\s*;\s*;\s*\)\))\s*;?\s*do\b(.*?)\bdone\b",
            )
            .ok()
        })
        .as_ref()
    else {
        return false;
    };
    endless.captures_iter(&line.text).any(|c| {
        let outside = c.get(0).is_some_and(|m| !line.is_quoted(m.start()));
        (outside || runs_strings) && c.get(1).is_some_and(|body| lone(body.as_str(), b'&'))
    })
}

/// `perl -e 'fork while fork'`, `python3 -c 'while True: os.fork()'`.
fn forking_code(line: &str) -> bool {
    static FORKS: OnceLock<Option<Regex>> = OnceLock::new();
    FORKS
        .get_or_init(|| {
            Regex::new(
                r"(?i)fork\s*(?:\(\s*\))?\s*while\s*fork|while\s*(?:\(\s*(?:1|true)\s*\)|true|1)\s*[:{]?\s*(?:os\.|process\.|pcntl_)?fork\s*\(",
            )
            .ok()
        })
        .as_ref()
        .is_some_and(|re| re.is_match(line))
}

/// Disk tools' listing spellings, which write nothing: `fdisk -l`, `sfdisk --dump`, `parted
/// -l`, `parted /dev/sda print`, `wipefs /dev/sda` (without `-a`), `diskutil list`.
pub(crate) fn lists_disks(cmd: &Cmd<'_>) -> Option<Verdict> {
    let p = cmd.program;
    let words: Vec<&str> = cmd.positionals().map(String::as_str).collect();
    let lists = match p {
        "fdisk" | "gdisk" => {
            cmd.has_short('l', "--list") && words.iter().all(|w| w.starts_with("/dev/"))
        }
        "sfdisk" => cmd.has_flag(&[
            "-l",
            "--list",
            "-d",
            "--dump",
            "-s",
            "--show-size",
            "-J",
            "--json",
        ]),
        "parted" => {
            // `-l` beside a command (`parted -l /dev/sda mklabel gpt`) is not trusted to list.
            (cmd.has_flag(&["-l", "--list"]) && words.is_empty())
                || (words.len() == 2 && words.get(1) == Some(&"print"))
        }
        "wipefs" => {
            !cmd.has_short('a', "--all")
                && !cmd
                    .args
                    .iter()
                    .any(|a| a.starts_with("--offset") || a.starts_with("-o") || a == "--backup")
                || cmd.has_flag(&["-n", "--no-act"])
        }
        "diskutil" => matches!(words.first(), Some(&("list" | "info"))),
        _ => false,
    };
    lists.then(|| {
        Verdict::auto(
            "auto.read",
            format!("`{p}` only lists disks and partitions"),
        )
    })
}

/// What a disk, volume or pool tool destroys with the verb it is given (`zpool destroy`,
/// `cryptsetup luksFormat`, `lvremove`), or a signal sent to every process (`kill -9 -1`).
pub(crate) fn damage(cmd: &Cmd<'_>) -> Option<String> {
    let p = cmd.program;
    let words: Vec<&str> = cmd.positionals().map(String::as_str).collect();
    let first = words.first().copied().unwrap_or_default();
    let flag = |names: &[&str]| cmd.has_flag(names);
    let destroys = match p {
        "zpool" => matches!(first, "destroy" | "labelclear"),
        "zfs" => matches!(first, "destroy" | "rollback"),
        "lvremove" | "vgremove" | "pvremove" | "sgdisk" | "cfdisk" => {
            !(p == "sgdisk" && flag(&["-p", "--print", "-i", "--info", "-v", "--verify"]))
        }
        "cryptsetup" => matches!(first, "luksFormat" | "erase" | "luksErase" | "reencrypt"),
        "mdadm" => flag(&["--zero-superblock", "--create", "-C"]),
        "badblocks" => cmd.has_short('w', "--write"),
        "nvme" => matches!(first, "format" | "sanitize"),
        "hdparm" => cmd.args.iter().any(|a| {
            a.starts_with("--security-erase")
                || a.starts_with("--trim-sector-ranges")
                || a.starts_with("--write-sector")
        }),
        "flashrom" => cmd.has_short('w', "--write") || cmd.has_short('E', "--erase"),
        // The power commands' other spellings (`shutdown`, `reboot`, … are destroyers).
        "systemctl" | "loginctl"
            if matches!(
                first,
                "poweroff" | "reboot" | "halt" | "kexec" | "soft-reboot" | "suspend" | "hibernate"
            ) =>
        {
            return Some(format!("`{p} {first}` stops the machine"));
        }
        "init" | "telinit" if matches!(first, "0" | "6" | "1" | "s" | "S") => {
            return Some(format!("`{p} {first}` stops the machine or leaves its services"));
        }
        "kill" | "pkill" | "killall5" => {
            return every_process(cmd).then(|| {
                format!("`{p}` signals every process the user may signal, this session and the machine's services with it")
            })
        }
        _ => false,
    };
    destroys.then(|| {
        let said = if first.is_empty() || !first.chars().all(|c| c.is_ascii_alphabetic()) {
            p.to_owned()
        } else {
            format!("{p} {first}")
        };
        format!("`{said}` destroys a disk, a volume or a pool and the data on it")
    })
}

/// `kill -9 -1`, `kill -s KILL -1`, `kill -- -1`, `killall5`: pid -1 is every process.
fn every_process(cmd: &Cmd<'_>) -> bool {
    if cmd.program == "killall5" {
        return true;
    }
    if cmd.program != "kill" {
        return false;
    }
    // The first word is the signal when it is an option (`kill -1 1234` sends HUP to 1234);
    // after it, or after `--`, `-1` is the pid.
    let pids = match cmd.args {
        [dashdash, rest @ ..] if dashdash == "--" => rest,
        [s, _, rest @ ..] if matches!(s.as_str(), "-s" | "-n" | "--signal") => rest,
        [signal, rest @ ..] if signal.starts_with('-') => rest,
        all => all,
    };
    let pids = match pids {
        [dashdash, rest @ ..] if dashdash == "--" => rest,
        rest => rest,
    };
    pids.iter().any(|pid| pid == "-1")
}

/// The block when a command writes without end into a file: `yes > f`, `cat /dev/zero > f`,
/// `dd if=/dev/urandom of=f` with no `count=`, or such a source piped straight into a writer
/// (`yes | tee f`, `cat /dev/zero | cat > f`). It fills the disk.
pub(crate) fn fills_disk(script: &ShellScript, programs: &[Program]) -> Option<Verdict> {
    let commands: Vec<_> = script.commands.iter().zip(programs).collect();
    commands.iter().find_map(|(parsed, (program, args))| {
        if !endless_source(program, args) {
            return None;
        }
        let written = writes_file(parsed, program, args)
            || commands.iter().any(|(next, (p, a))| {
                next.pipeline == parsed.pipeline
                    && next.stage == parsed.stage + 1
                    && !(*p == "dd" && a.iter().any(|w| w.starts_with("count=")))
                    && (writes_file(next, p, a) || (*p == "tee" && tees_to_file(a)))
            });
        written.then(|| {
            Verdict::block(
                RULE,
                format!("`{program}` writes without end into a file until the disk is full"),
            )
        })
    })
}

const ENDLESS: &[&str] = &["/dev/zero", "/dev/urandom", "/dev/random"];

/// `yes`, `cat /dev/zero`, `dd if=/dev/zero` without `count=`: output with no end.
fn endless_source(program: &str, args: &[String]) -> bool {
    match program {
        "yes" => true,
        "cat" => args.iter().any(|a| ENDLESS.contains(&a.as_str())),
        "dd" => {
            let input = args.iter().find_map(|a| a.strip_prefix("if="));
            input.is_some_and(|i| ENDLESS.contains(&i))
                && !args.iter().any(|a| a.starts_with("count="))
        }
        _ => false,
    }
}

/// A file (no device) that is no sink for endless bytes.
fn is_file(path: &str) -> bool {
    !is_harmless_device(path) && !path.starts_with("/dev/")
}

/// Whether the command's output goes into a file: a redirect, or `dd`'s `of=`.
fn writes_file(parsed: &crate::shell::ParsedCommand, program: &str, args: &[String]) -> bool {
    if program == "dd" {
        if let Some(out) = args.iter().find_map(|a| a.strip_prefix("of=")) {
            return is_file(out);
        }
    }
    parsed.redirects.iter().any(|r| r.write && is_file(&r.path))
}

/// `tee FILE…`: any file argument that is no device.
fn tees_to_file(args: &[String]) -> bool {
    args.iter().any(|a| !a.starts_with('-') && is_file(a))
}
