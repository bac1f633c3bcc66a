//! The repository pushed by git to a host that is neither a forge nor on the allowlist
//! (`git push https://host/r.git --all`, `--repo=URL`, a remote the line itself adds): a push
//! sends every commit its refs reach, so this is the whole repository sent away, blocked as
//! exfiltration as an archive of it is ([`crate::classify::upload`]).

use crate::classify::ctx::Ctx;
use crate::classify::roads::Program;
use crate::classify::upload::{block, option_value, positionals};
use crate::classify::verdict::{host_of, Verdict};
use crate::shell::ParsedCommand;

/// `git push URL …`, `git push --repo=URL`, or a push to a remote the line itself adds or
/// points elsewhere (`git remote add x URL && git push x --mirror`), when the URL's host is
/// neither a forge nor on the allowlist. A push sends every commit the pushed refs reach.
pub(crate) fn pushed_elsewhere(
    commands: &[ParsedCommand],
    programs: &[Program],
    ctx: &Ctx<'_>,
) -> Option<Verdict> {
    let mut remotes: Vec<(&str, &str)> = Vec::new();
    for (program, args) in programs.iter().take(commands.len()) {
        if *program != "git" {
            continue;
        }
        let line = crate::classify::git::split_git(args);
        match line.sub {
            "remote" => {
                let words = positionals(line.rest, &["-t", "-m", "--mirror"]);
                if let [verb, name, url, ..] = words.as_slice() {
                    if matches!(*verb, "add" | "set-url") {
                        remotes.push((name, url));
                    }
                }
            }
            "push" => {
                let named = option_value(line.rest, &["--repo"]).or_else(|| {
                    positionals(
                        line.rest,
                        &["-o", "--push-option", "--receive-pack", "--exec", "--repo"],
                    )
                    .first()
                    .copied()
                });
                let Some(named) = named else { continue };
                let url = remotes
                    .iter()
                    .rev()
                    .find(|(name, _)| *name == named)
                    .map_or(named, |(_, url)| *url);
                if !is_remote_url(url) {
                    continue;
                }
                let host = host_of(url);
                if host.is_empty()
                    || crate::classify::remote::is_forge_host(&host)
                    || ctx.allowlisted(url)
                {
                    continue;
                }
                return Some(block(&format!(
                    "`git push` sends its history to {host} (add the host to the network allowlist if it is yours)"
                )));
            }
            _ => {}
        }
    }
    None
}

/// A repository URL on another machine: `scheme://host/…` (not `file://`) or scp's
/// `[user@]host:path`.
fn is_remote_url(word: &str) -> bool {
    if let Some((scheme, _)) = word.split_once("://") {
        return scheme != "file";
    }
    match word.split_once(':') {
        Some((host, _)) => !host.is_empty() && !host.contains('/') && !host.starts_with('.'),
        None => false,
    }
}
