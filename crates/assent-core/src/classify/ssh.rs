//! ssh's key: `ssh -i key.pem host` logs in with the key, which authenticates and is not
//! sent. That is remote access with a credential (asked), not a secret file sent over the
//! network (blocked) — the key as a file copied (`scp key.pem host:`) still is.

use crate::classify::ctx::Ctx;
use crate::classify::simple_command::Cmd;
use crate::classify::verdict::Verdict;
use crate::types::RiskLevel;

/// ssh's options that take a value (`-i key`, `-p 22`, `-o Opt=v`).
const SSH_VALUES: &str = "BbcDEeFIiJLlmOoPpQRSWw";

/// The arguments of `cmd` that name the key `ssh`, `scp` or `sftp` logs in with (`-i
/// key.pem`, `-ikey.pem`, `-o IdentityFile=key.pem`), by position, with the key: the key
/// authenticates, it is not sent, so these are no upload of a secret.
pub(crate) fn identity_args<'a>(cmd: &Cmd<'a>) -> Vec<(usize, &'a str)> {
    if !matches!(cmd.program, "ssh" | "scp" | "sftp") {
        return Vec::new();
    }
    let args: &'a [String] = cmd.args;
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        if word == "--" || !word.starts_with('-') || word.starts_with("--") {
            continue;
        }
        let cluster = word.get(1..).unwrap_or_default();
        for (at, letter) in cluster.char_indices() {
            if !SSH_VALUES.contains(letter) {
                continue;
            }
            let inline = cluster.get(at + 1..).unwrap_or_default();
            let (index, value) = if inline.is_empty() {
                i += 1;
                (i - 1, args.get(i - 1).map_or("", String::as_str))
            } else {
                (i - 1, inline)
            };
            if letter == 'i' {
                out.push((index, value));
            } else if letter == 'o' {
                let (name, key) = value
                    .trim_start()
                    .split_once(['=', ' '])
                    .unwrap_or((value, ""));
                if name.eq_ignore_ascii_case("identityfile") {
                    out.push((index, key.trim()));
                }
            }
            break;
        }
    }
    out
}

/// The ask for logging in with a key named on the line.
pub(crate) fn identity(cmd: &Cmd<'_>, keys: &[(usize, &str)], ctx: &Ctx<'_>) -> Option<Verdict> {
    let (_, key) = keys.first()?;
    let shown = crate::paths::display(&cmd.path(key, ctx), &ctx.root, ctx.home);
    let to = ssh_host(cmd).map_or(String::new(), |t| format!(" to {t}"));
    Some(Verdict::ask(
        "ask.credential",
        RiskLevel::High,
        format!(
            "remote access with a credential: `{}` logs in{to} with the key {shown} (ssh authenticates with it; the key is not sent)",
            cmd.program
        ),
    ))
}

/// The host `ssh`, `scp` or `sftp` connects to: the first positional (for `scp`, the first
/// `host:path`), option values skipped, the user dropped.
fn ssh_host<'a>(cmd: &Cmd<'a>) -> Option<&'a str> {
    let args: &'a [String] = cmd.args;
    let mut words = args.iter().map(String::as_str);
    while let Some(word) = words.next() {
        if let Some(cluster) = word.strip_prefix('-').filter(|c| !c.starts_with('-')) {
            let takes = cluster
                .char_indices()
                .find(|(_, l)| SSH_VALUES.contains(*l))
                .is_some_and(|(at, l)| cluster.get(at + l.len_utf8()..) == Some(""));
            if takes {
                words.next();
            }
            continue;
        }
        let host = if cmd.program == "scp" {
            match word.split_once(':') {
                Some((host, _)) if !host.contains('/') => host,
                _ => continue,
            }
        } else {
            word
        };
        return Some(host.rsplit('@').next().unwrap_or(host));
    }
    None
}
