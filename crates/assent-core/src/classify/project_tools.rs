//! A project's own command-line tools: `npx TOOL` when TOOL is installed in the project's
//! `node_modules/.bin` (npx then runs it and downloads nothing), `npx --no-install TOOL`,
//! `pnpm exec TOOL` and `node_modules/.bin/TOOL` itself. The tool is then judged as if run by
//! name; a TypeScript type-check (`tsc --noEmit`) only reads and compiles.

use crate::classify::ctx::Ctx;
use crate::classify::simple_command::Cmd;
use crate::classify::verdict::Verdict;
use crate::paths::links::Real;
use crate::paths::{is_within, normalize};

/// How far up from the working directory npx looks for `node_modules/.bin`.
const MAX_LEVELS: usize = 8;

/// Where in `cmd.args` the project's own tool is named, when `cmd` runs one without
/// downloading anything.
pub(crate) fn local_tool(cmd: &Cmd<'_>, ctx: &Ctx<'_>) -> Option<usize> {
    let args = cmd.args;
    let (local_only, from) = match cmd.program {
        "npx" => (false, 0),
        "pnpm" if args.first().is_some_and(|a| a == "exec") => (true, 1),
        "npm" if args.first().is_some_and(|a| a == "exec") => (false, 1),
        _ => return None,
    };
    let mut no_install = local_only;
    let mut i = from;
    while let Some(arg) = args.get(i) {
        match arg.as_str() {
            "--no-install" | "--no" | "--offline" => no_install = true,
            "--" => {}
            // A package named apart from the command, or a shell line: not the project's tool.
            "-p" | "--package" | "-c" | "--call" => return None,
            a if a.starts_with("--package=") || a.starts_with("--call=") => return None,
            a if a.starts_with('-') => {}
            _ => break,
        }
        i += 1;
    }
    let tool = args.get(i)?;
    let plain = !tool.is_empty() && !tool.contains(['@', '/', '\\', ':']) && !tool.starts_with('.');
    (plain && (no_install || installed(tool, cmd.cwd, ctx))).then_some(i)
}

/// Whether `node_modules/.bin/TOOL` in the working directory or one above it (within the
/// repository) is a link into that `node_modules`, as npm, yarn and bun install a package's
/// commands: npx runs that one.
fn installed(tool: &str, cwd: &str, ctx: &Ctx<'_>) -> bool {
    let mut dir = cwd.to_owned();
    for _ in 0..MAX_LEVELS {
        if !is_within(&dir, &ctx.root) {
            return false;
        }
        let modules = format!("{dir}/node_modules");
        let bin = format!("{modules}/.bin/{tool}");
        if let Real::Differs(real) = ctx.links.real(&bin) {
            if is_within(&real, &modules) {
                return true;
            }
        }
        if dir == ctx.root {
            return false;
        }
        dir = normalize("..", &dir, "/");
    }
    false
}

/// `node_modules/.bin/TOOL` inside the repository, written as a path: the tool's name.
pub(crate) fn bin_path<'a>(program: &'a str, cmd: &Cmd<'_>, ctx: &Ctx<'_>) -> Option<&'a str> {
    let (dir, name) = program.rsplit_once('/')?;
    if !(dir == "node_modules/.bin" || dir.ends_with("/node_modules/.bin")) {
        return None;
    }
    let full = normalize(program, cmd.cwd, ctx.home);
    is_within(&full, &ctx.root).then_some(name)
}

/// TypeScript's compiler: a type-check writes nothing.
pub(crate) fn compiler(cmd: &Cmd<'_>) -> Option<Verdict> {
    if !matches!(cmd.program, "tsc" | "vue-tsc") {
        return None;
    }
    if cmd.has_flag(&[
        "--noEmit",
        "--version",
        "-v",
        "--help",
        "-h",
        "--showConfig",
    ]) {
        return Some(Verdict::auto(
            "auto.read",
            format!("`{}` type-checks the project without writing", cmd.program),
        ));
    }
    None
}
