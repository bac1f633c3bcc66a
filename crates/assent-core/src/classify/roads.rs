//! Code that reaches a shell by another road than `curl … | sh`: text decoded on the spot and
//! run (`… | base64 -d | sh`), a download saved and then run in the same line (`curl -o x.sh
//! URL && bash x.sh`, also decoded text saved and run), and PowerShell running a download
//! (`iex (iwr URL)`; an encoded command is decoded and judged in [`crate::classify::windows`]).
//! No person has seen what runs; [`crate::classify`] answers as for pipe-to-shell.

use crate::classify::known_programs::{self as c, is};
use crate::paths::normalize;
use crate::shell::{ParsedCommand, ShellScript};

/// The program a command runs and its arguments (wrappers seen through).
pub(crate) type Program<'a> = (&'a str, &'a [String]);

/// Why `script` runs code no person has seen, if it does.
pub(crate) fn hidden_code(
    script: &ShellScript,
    programs: &[Program],
    executes: impl Fn(usize) -> bool,
    home: &str,
) -> Option<&'static str> {
    let commands = &script.commands;
    let decoded = commands.iter().enumerate().any(|(i, cmd)| {
        executes(i) && fed_by(commands, i, cmd, |j| programs.get(j).is_some_and(decodes))
    });
    if decoded {
        return Some("runs text decoded on the spot as code: what runs cannot be seen");
    }
    if programs.iter().any(powershell_download) {
        return Some("PowerShell runs code downloaded from the network (`iex` of a download)");
    }
    saved_then_run(commands, programs, home)
        .then_some("runs a file downloaded or decoded earlier in the same command line")
}

/// Whether command `i` reads its code from an earlier stage of its pipeline, or from a
/// substitution, that `feeds` says yes to.
fn fed_by(
    commands: &[ParsedCommand],
    i: usize,
    cmd: &ParsedCommand,
    feeds: impl Fn(usize) -> bool,
) -> bool {
    let piped = cmd.stage > 0
        && commands.iter().take(i).enumerate().any(|(j, other)| {
            other.pipeline == cmd.pipeline && other.stage < cmd.stage && feeds(j)
        });
    piped || cmd.substitutions.iter().any(|&s| feeds(s))
}

/// Decoders and decompressors that turn unreadable text into code.
fn decodes((program, args): &Program) -> bool {
    let has = |flags: &[&str]| args.iter().any(|a| flags.contains(&a.as_str()));
    let short = |letter: char| {
        args.iter()
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains(letter))
    };
    match *program {
        "base64" | "base32" | "basenc" => short('d') || short('D') || has(&["--decode"]),
        "xxd" => short('r') || has(&["-revert"]),
        "openssl" => {
            args.first()
                .is_some_and(|s| matches!(s.as_str(), "base64" | "enc"))
                && has(&["-d"])
        }
        "uudecode" | "zcat" | "gzcat" | "bzcat" | "xzcat" | "zstdcat" | "unzstd" => true,
        "gzip" | "gunzip" | "bzip2" | "xz" | "zstd" => {
            *program == "gunzip" || short('d') || has(&["--decompress"])
        }
        _ => false,
    }
}

fn is_powershell(program: &str) -> bool {
    matches!(
        program,
        "pwsh" | "powershell" | "pwsh.exe" | "powershell.exe"
    )
}

/// `pwsh -c "iex (iwr URL)"`, `Invoke-Expression (New-Object Net.WebClient).DownloadString(…)`,
/// `irm URL | iex`.
pub(crate) fn powershell_download((program, args): &Program) -> bool {
    if !is_powershell(program) {
        return false;
    }
    let code = args.join(" ").to_ascii_lowercase();
    let words: Vec<&str> = code
        .split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '-'))
        .filter(|w| !w.is_empty())
        .collect();
    let any = |list: &[&str]| words.iter().any(|w| list.contains(w));
    any(&["iex", "invoke-expression"])
        && any(&[
            "iwr",
            "irm",
            "invoke-webrequest",
            "invoke-restmethod",
            "downloadstring",
            "downloaddata",
            "webclient",
            "start-bitstransfer",
            "curl",
            "wget",
        ])
}

/// Whether a file a fetcher (or a decoder) saves is run by a later command of the line.
fn saved_then_run(commands: &[ParsedCommand], programs: &[Program], home: &str) -> bool {
    commands.iter().enumerate().any(|(i, cmd)| {
        let saved = saved_files(cmd, programs.get(i), home);
        !saved.is_empty()
            && commands
                .iter()
                .zip(programs)
                .skip(i + 1)
                .any(|(later, program)| {
                    runs_file(later, program, home).is_some_and(|f| saved.contains(&f))
                })
    })
}

/// Where a fetcher writes what it downloads: `-o F`, `-O` (the URL's name), `wget URL`, a
/// redirection of its output; where a decoder's output is redirected.
fn saved_files(cmd: &ParsedCommand, program: Option<&Program>, home: &str) -> Vec<String> {
    let Some((program, args)) = program else {
        return Vec::new();
    };
    let mut out: Vec<String> = cmd
        .redirects
        .iter()
        .filter(|r| r.write)
        .map(|r| r.path.clone())
        .collect();
    if decodes(&(program, args)) {
        return out;
    }
    if !is(c::NETWORK, program) {
        return Vec::new();
    }
    let url = args.iter().find(|a| a.contains("://"));
    let mut named = false;
    let mut words = args.iter().map(String::as_str);
    while let Some(arg) = words.next() {
        let (flag, value) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v)),
            _ => (arg, None),
        };
        let output = match (*program, flag) {
            ("curl" | "aria2c", "-o" | "--output") | ("wget", "-O" | "--output-document") => {
                value.or_else(|| words.next())
            }
            ("curl", f) if is_cluster(f) && f.ends_with('o') => words.next(),
            ("curl", f) if is_cluster(f) && f.ends_with('O') => {
                named = true;
                url.map(|u| remote_name(u))
            }
            ("curl", "-O" | "--remote-name") => {
                named = true;
                url.map(|u| remote_name(u))
            }
            ("curl", f) if f.starts_with("-o") && f.len() > 2 => f.get(2..),
            ("wget", f) if f.starts_with("-O") && f.len() > 2 => f.get(2..),
            _ => None,
        };
        if let Some(file) = output.filter(|f| *f != "-") {
            named = true;
            out.push(normalize(file, &cmd.cwd, home));
        } else if matches!(flag, "-O" | "-o" | "--output" | "--output-document") {
            named = true;
        }
    }
    if *program == "wget" && !named {
        if let Some(u) = url {
            out.push(normalize(remote_name(u), &cmd.cwd, home));
        }
    }
    out
}

/// A cluster of short flags (`-sSLo`), whose last may take the next word.
fn is_cluster(flag: &str) -> bool {
    flag.len() > 2
        && flag.starts_with('-')
        && !flag.starts_with("--")
        && !flag.contains('=')
        && flag.bytes().skip(1).all(|b| b.is_ascii_alphabetic())
}

/// The file name a download of `url` is saved under by default.
fn remote_name(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let path = rest.split(['?', '#']).next().unwrap_or_default();
    match path.split_once('/') {
        Some((_, p)) => match p.rsplit('/').next() {
            Some(name) if !name.is_empty() => name,
            _ => "index.html",
        },
        None => "index.html",
    }
}

/// The file a command runs: its program given as a path (`./a`, `/tmp/x`), or the script a
/// shell, interpreter or `source` is handed.
fn runs_file(cmd: &ParsedCommand, (program, args): &Program, home: &str) -> Option<String> {
    if program.contains('/') {
        return Some(normalize(program, &cmd.cwd, home));
    }
    let runner = crate::shell::wrappers::is_shell(program)
        || is(c::INTERPRETERS, program)
        || matches!(*program, "source" | ".");
    if !runner {
        return None;
    }
    args.iter()
        .find(|a| !a.starts_with('-'))
        .map(|script| normalize(script, &cmd.cwd, home))
}
