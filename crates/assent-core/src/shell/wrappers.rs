//! Commands that run other commands: `sudo`, `env X=1`, `nohup`, `timeout N`, `xargs`,
//! `command`, `exec`, `nice`, `python -m`, and shells, `su`, `runuser` and `script` with `-c`
//! (whose script is parsed).

/// The command that really runs, once wrappers are seen through.
///
/// It borrows the argv it was worked out from (the wrapped command is always a suffix of it),
/// so seeing through wrappers allocates nothing in the common case.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Effective<'a> {
    /// The wrappers, outermost first (`sudo`, `env`, …).
    pub wrappers: Vec<&'a str>,
    /// The wrapped command's argv; empty when the wrapper runs nothing we can see.
    pub argv: &'a [String],
    /// A script a shell runs (`bash -c SCRIPT`, `eval …`, `env -S …`).
    pub inline_script: Option<String>,
    /// Arguments come from stdin at run time (`xargs`).
    pub args_from_stdin: bool,
}

const MAX_WRAPPERS: usize = 16;
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"];
const SYSTEM_DIRS: &[&str] = &[
    "/bin/",
    "/usr/bin/",
    "/usr/local/bin/",
    "/sbin/",
    "/usr/sbin/",
    "/usr/local/sbin/",
    "/opt/homebrew/bin/",
];

/// The program name: system paths (`/usr/bin/rm`) reduce to their basename; anything else
/// (`./rm`, a script in the repo) stays as written, so it is never mistaken for the real one.
pub fn program_name(word: &str) -> &str {
    for dir in SYSTEM_DIRS {
        if let Some(rest) = word.strip_prefix(dir) {
            if !rest.contains('/') {
                return rest;
            }
        }
    }
    word
}

/// Whether the wrapper `name` runs its command with elevated privileges.
pub fn raises_privileges(name: &str) -> bool {
    matches!(name, "sudo" | "doas" | "pkexec" | "run0")
}

/// Whether `name` is a shell interpreter.
pub fn is_shell(name: &str) -> bool {
    SHELLS.contains(&name)
}

/// Sees through wrappers in `argv`.
pub fn effective(argv: &[String]) -> Effective<'_> {
    let mut out = Effective::default();
    let mut rest: &[String] = argv;
    for _ in 0..MAX_WRAPPERS {
        let Some(first) = rest.first() else { break };
        let name = program_name(first);
        let args = rest.get(1..).unwrap_or_default();
        let next = match name {
            name if raises_privileges(name) => skip_options(
                args,
                &[
                    "-u", "-g", "-p", "-C", "-h", "-U", "-r", "-t", "-T", "-D", "--user",
                ],
            ),
            // `su -c SCRIPT [user]`, `runuser -u U -c SCRIPT`, `script -c SCRIPT`: the script
            // is parsed as `sh -c`'s is.
            "su" | "runuser" | "script" => match command_option(args) {
                Some(script) => {
                    out.wrappers.push(name);
                    out.inline_script = Some(script);
                    return out;
                }
                None if name == "runuser" => {
                    skip_options(args, &["-u", "--user", "-g", "--group", "-G"])
                }
                None => break,
            },
            // `busybox rm -rf ~` and `toybox rm …` run the applet named first.
            "nohup" | "builtin" | "setsid" | "unbuffer" | "chronic" | "caffeinate" | "busybox"
            | "toybox" => args,
            "nice" | "ionice" | "stdbuf" | "time" => {
                skip_options(args, &["-n", "-c", "-p", "-i", "-o", "-e"])
            }
            "timeout" => skip_positionals(
                skip_options(args, &["-s", "-k", "--signal", "--kill-after"]),
                1,
            ),
            "watch" => skip_options(args, &["-n", "-d", "--interval"]),
            "command" if args.first().is_some_and(|a| a == "-v" || a == "-V") => break,
            "command" | "exec" => skip_options(args, &["-a"]),
            "env" => match env_split(args) {
                EnvArgs::Command([]) => break,
                EnvArgs::Command(cmd) => cmd,
                EnvArgs::Script(script) => {
                    out.wrappers.push(name);
                    out.inline_script = Some(script);
                    return out;
                }
            },
            "xargs" => {
                out.args_from_stdin = true;
                skip_options(
                    args,
                    // `-i[R]`, `-l[N]`, `-e[EOF]`, `--replace[=R]` take their value attached
                    // or not at all: the next word is the command.
                    &[
                        "-I",
                        "-n",
                        "-P",
                        "-L",
                        "-d",
                        "-E",
                        "-s",
                        "-a",
                        "--max-args",
                        "--max-procs",
                        "--max-chars",
                        "--delimiter",
                        "--arg-file",
                    ],
                )
            }
            "eval" => {
                out.wrappers.push(name);
                out.inline_script = Some(args.join(" "));
                return out;
            }
            "python" | "python3" if args.first().is_some_and(|a| a == "-m") && args.len() > 1 => {
                args.get(1..).unwrap_or_default()
            }
            shell if is_shell(shell) => {
                if let Some(script) = shell_dash_c(args) {
                    out.wrappers.push(name);
                    out.inline_script = Some(script);
                    return out;
                }
                break;
            }
            _ => break,
        };
        out.wrappers.push(name);
        rest = next;
    }
    out.argv = rest;
    out
}

/// Skips leading options; those in `with_value` also consume the next word.
/// What `xargs` runs when the text on its stdin is known (`echo / | xargs chmod -R 777`):
/// `command` with the input's words appended, or, with a replace string (`-I R`, `-iR`,
/// `--replace`), one command per input line with the line in its place. `argv` is the whole
/// command, `xargs` and its options included; `command` the suffix xargs runs.
pub fn xargs_commands(argv: &[String], command: &[String], input: &str) -> Vec<Vec<String>> {
    let start = argv.len().saturating_sub(command.len());
    let at = argv
        .iter()
        .take(start)
        .position(|w| program_name(w) == "xargs");
    let options = at
        .and_then(|at| argv.get(at + 1..start))
        .unwrap_or_default();
    let mut replace = None;
    let mut words = options.iter();
    while let Some(option) = words.next() {
        match option.as_str() {
            "-I" => replace = words.next().cloned(),
            "-i" | "--replace" => replace = Some("{}".to_owned()),
            o => {
                if let Some(r) = o
                    .strip_prefix("--replace=")
                    .or_else(|| o.strip_prefix("-I"))
                {
                    replace = Some(r.to_owned());
                } else if let Some(r) = o.strip_prefix("-i") {
                    replace = Some(r.to_owned());
                }
            }
        }
    }
    match replace {
        Some(r) if !r.is_empty() => input
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty())
            .map(|line| command.iter().map(|w| w.replace(&r, line)).collect())
            .collect(),
        _ => {
            let mut run = command.to_vec();
            if run.is_empty() {
                run.push("echo".to_owned());
            }
            run.extend(input.split_whitespace().map(str::to_owned));
            vec![run]
        }
    }
}

fn skip_options<'a>(args: &'a [String], with_value: &[&str]) -> &'a [String] {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            return args.get(i + 1..).unwrap_or_default();
        }
        if !arg.starts_with('-') || arg == "-" {
            break;
        }
        i += if with_value.contains(&arg.as_str()) {
            2
        } else {
            1
        };
    }
    args.get(i..).unwrap_or_default()
}

fn skip_positionals(args: &[String], n: usize) -> &[String] {
    args.get(n..).unwrap_or_default()
}

enum EnvArgs<'a> {
    Command(&'a [String]),
    Script(String),
}

fn env_split(args: &[String]) -> EnvArgs<'_> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "-S" || arg == "--split-string" {
            let mut script: Vec<String> = args.get(i + 1..).unwrap_or_default().to_vec();
            script.retain(|s| !s.is_empty());
            return EnvArgs::Script(script.join(" "));
        }
        if arg == "-u" || arg == "-C" || arg == "--unset" || arg == "--chdir" {
            i += 2;
        } else if arg.starts_with('-') || is_assignment(arg) {
            i += 1;
        } else {
            break;
        }
    }
    EnvArgs::Command(args.get(i..).unwrap_or_default())
}

/// `NAME=value` as a word.
pub fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

/// The value of `-c SCRIPT` / `--command SCRIPT` / `--command=SCRIPT` anywhere in `args`.
fn command_option(args: &[String]) -> Option<String> {
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if arg == "-c" || arg == "--command" {
            return it.next().cloned();
        }
        if let Some(v) = arg.strip_prefix("--command=") {
            return Some(v.to_owned());
        }
    }
    None
}

/// The script of `sh [-opts] -c SCRIPT …`, if any. Options that take a value (`-o
/// pipefail`, `+O extglob`, `--rcfile F`) are stepped over with it.
fn shell_dash_c(args: &[String]) -> Option<String> {
    let mut takes_script = false;
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        if takes_script {
            return Some(arg.clone());
        }
        if arg == "--" {
            return None;
        }
        if matches!(
            arg.as_str(),
            "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file"
        ) {
            words.next();
            continue;
        }
        if arg.starts_with('+') {
            continue;
        }
        if let Some(flags) = arg.strip_prefix('-') {
            if !flags.starts_with('-') && flags.contains('c') {
                takes_script = true;
            }
            continue;
        }
        return None;
    }
    None
}
