//! Secrets reached through another reader: a file shown from a git revision (the object store
//! is a reader too) and a container that mounts a secret, a home or the host's root.

use crate::classify::ctx::Ctx;
use crate::classify::known_programs::SYSTEM_DIRS;
use crate::classify::simple_command::Cmd;
use crate::classify::verdict::{Access, Facts, Verdict};
use crate::paths::{is_within, normalize};
use crate::types::PathRisk;

/// The blocks for the files a git read names by revision: `HEAD:.env`, `v1.2:config/x.key`,
/// `:.env` (the index), `:0:.env` (a stage). The path is the repository's (`./` and `../`
/// are the working directory's, as git reads them).
pub(crate) fn revision_paths(cmd: &Cmd<'_>, ctx: &Ctx<'_>, facts: &mut Facts) -> Vec<Verdict> {
    cmd.args
        .iter()
        .filter(|a| !a.starts_with('-') && !a.contains("://"))
        .filter_map(|a| revision_path(a))
        .filter(|p| !p.is_empty())
        .filter_map(|p| {
            let base = if p.starts_with("./") || p.starts_with("../") {
                cmd.cwd
            } else {
                ctx.root.as_str()
            };
            let path = normalize(p, base, ctx.home);
            ctx.check_path(&path, Access::Read, facts)
        })
        .filter(|v| v.decision == crate::types::Decision::Block)
        .collect()
}

/// The path of `REV:PATH`, `:PATH` or `:N:PATH`.
fn revision_path(arg: &str) -> Option<&str> {
    let (rev, path) = arg.split_once(':')?;
    if rev.is_empty() {
        if let Some((stage, rest)) = path.split_once(':') {
            if stage.len() == 1 && stage.bytes().all(|b| b.is_ascii_digit()) {
                return Some(rest);
            }
        }
    }
    Some(path)
}

/// The block when a `docker|podman|nerdctl run|create` mounts the host's root, a home (or a
/// directory above one), or a secret.
pub(crate) fn container_mounts(cmd: &Cmd<'_>, ctx: &Ctx<'_>, facts: &mut Facts) -> Option<Verdict> {
    if !matches!(cmd.program, "docker" | "podman" | "nerdctl") {
        return None;
    }
    let mut words = cmd.args.iter().filter(|a| !a.starts_with('-'));
    let sub = match words.next().map(String::as_str) {
        Some("container") => words.next().map(String::as_str),
        other => other,
    };
    if !matches!(sub, Some("run" | "create")) {
        return None;
    }
    mount_sources(cmd.args)
        .into_iter()
        .filter(|s| s.starts_with('/') || s.starts_with('~'))
        .find_map(|source| {
            let path = normalize(source, cmd.cwd, ctx.home);
            judge_source(&path, ctx, facts)
        })
}

fn judge_source(path: &str, ctx: &Ctx<'_>, facts: &mut Facts) -> Option<Verdict> {
    let shown = crate::paths::display(path, &ctx.root, ctx.home);
    let holds_home = is_within(ctx.home, path) || crate::classify::destroy::is_home(path);
    let system = path == "/" || SYSTEM_DIRS.contains(&path);
    if holds_home || system {
        facts.path(PathRisk::Sensitive);
        facts.secret = Some(shown.clone());
        let what = if path == "/" {
            "the host's root".to_owned()
        } else {
            shown
        };
        return Some(Verdict::block(
            "block.secret_path",
            format!("mounts {what} into a container, which then reads every secret file in it"),
        ));
    }
    ctx.check_path(path, Access::Read, facts)
        .filter(|v| v.decision == crate::types::Decision::Block)
}

/// The host side of every `-v SRC:DST`, `--volume[=]SRC:DST` and
/// `--mount type=bind,source=SRC,…`.
fn mount_sources(args: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut args = args.iter().map(String::as_str);
    while let Some(arg) = args.next() {
        let (flag, value) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v)),
            _ if arg.starts_with("-v") && arg.len() > 2 && !arg.starts_with("--") => {
                ("-v", arg.get(2..))
            }
            _ => (arg, None),
        };
        if !matches!(flag, "-v" | "--volume" | "--mount") {
            continue;
        }
        let Some(value) = value.or_else(|| args.next()) else {
            break;
        };
        if flag == "--mount" {
            out.extend(value.split(',').filter_map(|kv| {
                let (k, v) = kv.split_once('=')?;
                matches!(k, "source" | "src").then_some(v)
            }));
        } else {
            out.push(value.split(':').next().unwrap_or(value));
        }
    }
    out
}
