//! Commands that destroy the machine or its data: disk formatters and writers, and recursive
//! deletes or permission changes of system, data or home directories. All are blocks.
//!
//! What counts is the class of the target, not its spelling: `/` and the top-level system
//! directories (`/etc`, `/usr`, `/lib*`, …), any user's home, and the data directories under
//! `/var/lib` (`/var/lib/postgresql`); with elevated privileges (`sudo`, `doas`, also around
//! `bash -c`), a recursive delete of anything under a system directory. A path strictly
//! inside an ordinary repository is left to the other rules (a delete there is asked).

use crate::classify::ctx::Ctx;
use crate::classify::known_programs::{self as c, is};
use crate::classify::simple_command::Cmd;
use crate::classify::verdict::{is_harmless_device, Facts, Verdict};
use crate::paths::is_within;
use crate::paths::links::Real;
use crate::types::CommandRisk;

const RULE: &str = "block.destructive";

/// The block for a command that destroys disks, the machine or its directories.
pub(crate) fn destructive(cmd: &Cmd<'_>, ctx: &Ctx<'_>, facts: &mut Facts) -> Option<Verdict> {
    let reason = destruction(cmd, ctx)?;
    facts.command(CommandRisk::Destructive);
    Some(Verdict::block(RULE, reason))
}

fn destruction(cmd: &Cmd<'_>, ctx: &Ctx<'_>) -> Option<String> {
    let p = cmd.program;
    if is(c::DESTROYERS, p) || p.starts_with("mkfs") {
        return Some(
            if matches!(p, "shutdown" | "reboot" | "halt" | "poweroff") {
                format!("`{p}` stops the machine")
            } else {
                format!("`{p}` formats, wipes or repartitions a disk, destroying its data")
            },
        );
    }
    if let Some(what) = crate::classify::machine::damage(cmd) {
        return Some(what);
    }
    let recursive = cmd.has_short('r', "--recursive") || cmd.has_short('R', "--recursive");
    let deletes = (is(c::DELETES, p) && recursive) || (p == "find" && cmd.has_flag(&["-delete"]));
    let changes_modes = matches!(p, "chmod" | "chown" | "chgrp" | "setfacl" | "chattr")
        && cmd.has_short('R', "--recursive");
    if deletes || changes_modes {
        // Elevated privileges widen only what a delete destroys: anything under a system
        // directory. A recursive `chown` is judged by its target alone.
        let privileged = deletes && cmd.privileged;
        if let Some((target, class)) = destroyed_target(cmd, ctx, privileged) {
            let what = if p == "find" {
                "`find -delete` over".to_owned()
            } else {
                format!("`{p}` recursively on")
            };
            return Some(format!("{what} {target}, {class}"));
        }
    }
    if cmd.has_flag(&["--no-preserve-root"]) {
        return Some("`--no-preserve-root` removes the safety net of rm".to_owned());
    }
    let onto_device = cmd.args.iter().any(|a| {
        a.strip_prefix("of=")
            .is_some_and(|target| target.starts_with("/dev/") && !is_harmless_device(target))
    });
    if p == "dd" && onto_device {
        return Some("`dd` writes onto a device".to_owned());
    }
    None
}

/// The first positional argument a recursive command would destroy, shown, with its class.
fn destroyed_target(
    cmd: &Cmd<'_>,
    ctx: &Ctx<'_>,
    privileged: bool,
) -> Option<(String, &'static str)> {
    let shown = |p: &str| crate::paths::display(p, "/nonexistent-root", ctx.home);
    cmd.positionals().find_map(|a| {
        let path = cmd.path(a, ctx);
        if let Some(class) = class_of(&path, ctx, privileged) {
            return Some((shown(&path), class));
        }
        match ctx.links.real(&path) {
            Real::Differs(real) => class_of(&real, ctx, privileged).map(|c| (shown(&real), c)),
            _ => None,
        }
    })
}

/// What destroying `path` (absolute, normalised; a trailing `/*` means its contents) would
/// destroy, when it is the machine's or someone's.
fn class_of(path: &str, ctx: &Ctx<'_>, privileged: bool) -> Option<&'static str> {
    let base = path.strip_suffix("/*").unwrap_or(path);
    let base = if base.is_empty() { "/" } else { base };
    if is_system_dir(base) {
        return Some("a system directory");
    }
    if base == ctx.home || is_home(base) {
        return Some("a user's home directory");
    }
    if inside_ordinary_repo(base, ctx) {
        return None;
    }
    if is_within(base, "/var/lib") {
        return Some("where system services keep their data");
    }
    if privileged && under_system_dir(base) {
        return Some("under a system directory, with elevated privileges");
    }
    None
}

/// `/` and the top-level system directories, `/lib*` included (`/lib32`, `/libx32`).
fn is_system_dir(path: &str) -> bool {
    is(c::SYSTEM_DIRS, path) || top_level(path).is_some_and(|name| name.starts_with("lib"))
}

/// Below a system directory other than `/`.
fn under_system_dir(path: &str) -> bool {
    c::SYSTEM_DIRS
        .iter()
        .filter(|dir| **dir != "/")
        .any(|dir| is_within(path, dir))
        || path
            .split('/')
            .nth(1)
            .is_some_and(|first| first.starts_with("lib"))
}

/// `/root`, `/home/<user>`, `/Users/<user>`.
pub(crate) fn is_home(path: &str) -> bool {
    if path == "/root" {
        return true;
    }
    ["/home/", "/Users/"].iter().any(|parent| {
        path.strip_prefix(parent)
            .is_some_and(|user| !user.is_empty() && !user.contains('/'))
    })
}

/// The name of a top-level directory (`/lib32` → `lib32`).
fn top_level(path: &str) -> Option<&str> {
    path.strip_prefix('/')
        .filter(|name| !name.is_empty() && !name.contains('/'))
}

/// Strictly inside the repository, when the repository is not itself a system directory,
/// a home or above them (a repo at `/` or `/home/u` makes nothing ordinary).
fn inside_ordinary_repo(path: &str, ctx: &Ctx<'_>) -> bool {
    let root = ctx.root.as_str();
    let ordinary = root != "/" && !is_system_dir(root) && !is_home(root) && root != ctx.home;
    ordinary && path != root && is_within(path, root)
}
