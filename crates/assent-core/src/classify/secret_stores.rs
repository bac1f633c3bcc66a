//! Secret stores beyond the dotfiles a path glob names: GPG's private keys exported, the KDE
//! wallet read, and a secret directory (or a whole home) archived, copied or encoded in one
//! go. All are blocks, as reading `~/.ssh` is; a key's public part stays readable.

use crate::classify::ctx::Ctx;
use crate::classify::simple_command::Cmd;
use crate::classify::verdict::{Facts, Verdict};
use crate::paths::{is_within, normalize};
use crate::types::PathRisk;

/// The block when `cmd` exports a private key, reads a wallet or archives secrets; an auto
/// answer for GPG's listings and public exports; `None` for everything else.
pub(crate) fn command(cmd: &Cmd<'_>, ctx: &Ctx<'_>, facts: &mut Facts) -> Option<Verdict> {
    match cmd.program {
        "gpg" | "gpg2" | "gpgsm" => gpg(cmd, facts),
        "kwallet-query" | "kwalletcli" | "kwallet" => Some(crate::classify::credentials::block(
            &format!("reads the KDE wallet ({})", cmd.program),
            facts,
        )),
        p if ARCHIVERS.contains(&p) => archived(cmd, ctx, facts),
        _ => None,
    }
}

/// What GPG prints that holds no secret: listings, fingerprints, public exports, checks.
const GPG_PUBLIC: &[&str] = &[
    "--list-keys",
    "-k",
    "--list-public-keys",
    "--list-secret-keys",
    "-K",
    "--list-sigs",
    "--check-sigs",
    "--fingerprint",
    "--export",
    "--armor",
    "-a",
    "--verify",
    "--version",
    "--help",
    "-h",
    "--with-colons",
    "--with-fingerprint",
    "--keyid-format",
    "--batch",
    "--quiet",
    "-q",
];

/// `gpg --export-secret-keys` (any abbreviation GPG accepts: `--export-secret-k…`,
/// `--export-secret-sub…`, gpgsm's `--export-secret-key-p12`): the private keys, printed.
fn gpg(cmd: &Cmd<'_>, facts: &mut Facts) -> Option<Verdict> {
    let exports_secret = cmd.args.iter().any(|a| {
        let flag = a.split('=').next().unwrap_or(a);
        flag.starts_with("--export-sec")
    });
    if exports_secret {
        return Some(crate::classify::credentials::block(
            &format!("`{}` exports private keys", cmd.program),
            facts,
        ));
    }
    let public = !cmd.args.is_empty()
        && cmd
            .args
            .iter()
            .all(|a| !a.starts_with('-') || GPG_PUBLIC.contains(&a.split('=').next().unwrap_or(a)));
    public.then(|| {
        Verdict::auto(
            "auto.read",
            format!("`{}` lists keys or prints public ones", cmd.program),
        )
    })
}

/// Programs that pack, copy or encode the files and directories they are given.
const ARCHIVERS: &[&str] = &[
    "tar",
    "bsdtar",
    "gtar",
    "zip",
    "7z",
    "7za",
    "7zr",
    "rar",
    "cpio",
    "pax",
    "ditto",
    "gzip",
    "bzip2",
    "xz",
    "zstd",
    "lz4",
    "base64",
    "base32",
    "basenc",
    "xxd",
    "openssl",
    "age",
    "mksquashfs",
    "hdiutil",
    "rclone",
    "restic",
    "borg",
];

/// The block when an archiver is handed a directory that holds secrets (`~/.gnupg`,
/// `~/.config/google-chrome`), or a home or a directory above homes, which holds them all.
/// `tar -C DIR` names its members relative to DIR.
fn archived(cmd: &Cmd<'_>, ctx: &Ctx<'_>, facts: &mut Facts) -> Option<Verdict> {
    let mut base = cmd.cwd.to_owned();
    let mut words = cmd.args.iter().map(String::as_str);
    while let Some(arg) = words.next() {
        let tar = matches!(cmd.program, "tar" | "bsdtar" | "gtar");
        let dir = match arg {
            "-C" | "--directory" if tar => words.next(),
            _ if tar && arg.starts_with("--directory=") => arg.get("--directory=".len()..),
            _ => None,
        };
        if let Some(dir) = dir {
            base = normalize(dir, &base, ctx.home);
            continue;
        }
        if arg.starts_with('-') || arg.contains("://") {
            continue;
        }
        let path = normalize(arg, &base, ctx.home);
        if let Some(what) = holds_secrets(&path, ctx) {
            let shown = crate::paths::display(&path, &ctx.root, ctx.home);
            facts.path(PathRisk::Sensitive);
            facts.secret = Some(shown.clone());
            return Some(Verdict::block(
                "block.secret_path",
                format!("`{}` packs {shown}, {what}", cmd.program),
            ));
        }
    }
    None
}

/// What `path` holds that makes packing it a secret read.
fn holds_secrets(path: &str, ctx: &Ctx<'_>) -> Option<&'static str> {
    let home_or_above = path == ctx.home
        || crate::classify::destroy::is_home(path)
        || is_within(ctx.home, path)
        || matches!(path, "/home" | "/Users");
    if home_or_above {
        return Some("which holds every secret file of a home (~/.ssh, ~/.aws, …)");
    }
    (ctx.is_sensitive(path) || crate::own::secrets::holds_secrets(ctx, path))
        .then_some("a directory of secret files")
}
