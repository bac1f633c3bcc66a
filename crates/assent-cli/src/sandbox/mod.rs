//! `assent sandbox [--] COMMAND…`: runs any command — another agent, or the same ones — under
//! bubblewrap with Assent's own places and the secret stores hidden and the agents' hook
//! settings read-only ([`places`]), the rest of the filesystem and the network as usual, and
//! the requester token in `ASSENT_TOKEN` (with `ASSENT_URL`), so the command can still ask
//! Assent over loopback while the owner's token, the database and the audit key are out of
//! its reach whatever the policy answers.

pub(crate) mod bwrap;
pub(crate) mod places;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use assent_client::ClientConfig;
use clap::Args;

use crate::gate::ServiceArgs;
use places::{places, Machine};

/// bubblewrap is not installed.
pub const EXIT_NO_BWRAP: u8 = 69;
/// No sandbox can be made: bubblewrap cannot (user namespaces unavailable or refused), or
/// Assent's own dirs, which it covers, cannot be made.
pub const EXIT_NO_NAMESPACES: u8 = 71;
/// The command is not on `PATH`.
pub const EXIT_NOT_FOUND: u8 = 127;

const EXIT_HELP: &str = "Exit codes:
  the command's own code when it ran (128+N when a signal N ended it)
  69   bubblewrap (bwrap) is not installed
  71   no sandbox can be made here (user namespaces unavailable or refused, or Assent's
       own dirs cannot be made)
  127  the command is not found
  2    usage error, or the token given is the owner's";

/// Runs a command with Assent's places and the secret stores out of its reach.
#[derive(Debug, Args)]
#[command(after_help = EXIT_HELP)]
pub struct SandboxArgs {
    #[command(flatten)]
    pub service: ServiceArgs,
    /// Also hide this file or directory (repeatable): a service's --data-dir, its --policy
    /// file, its --audit-key when not in the default places.
    #[arg(long, value_name = "PATH")]
    pub hide: Vec<PathBuf>,
    /// Print the bwrap command line instead of running it.
    #[arg(long)]
    pub print: bool,
    /// The command and its arguments.
    #[arg(
        required = true,
        num_args = 1..,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "COMMAND"
    )]
    pub command: Vec<OsString>,
}

pub fn run(args: &SandboxArgs) -> ExitCode {
    let Some(machine) = Machine::from_env(args.hide.clone()) else {
        eprintln!("assent sandbox: no home directory to find Assent's places");
        return ExitCode::from(2);
    };
    let Some(program) = args.command.first() else {
        return ExitCode::from(2);
    };
    if !on_path(Path::new(program)) {
        eprintln!(
            "assent sandbox: cannot find {} on PATH",
            Path::new(program).display()
        );
        return ExitCode::from(EXIT_NOT_FOUND);
    }
    if !args.print {
        if let Err((dir, err)) = make_assent_dirs(&machine) {
            eprintln!("assent sandbox: cannot make {}: {err}", dir.display());
            return ExitCode::from(EXIT_NO_NAMESPACES);
        }
    }
    let kind = |p: &Path| std::fs::metadata(p).ok().map(|m| m.is_dir());
    let covers = bwrap::covers(&places(&machine), &places::real(&machine.home), &kind);
    let bwrap_args = bwrap::arguments(&covers, &args.command);
    if args.print {
        let words: Vec<String> = std::iter::once(OsString::from(bwrap::BWRAP))
            .chain(bwrap_args)
            .map(|w| crate::install::hooks::shell_quote(&w.to_string_lossy()))
            .collect();
        println!("{}", words.join(" "));
        return ExitCode::SUCCESS;
    }
    if let Err(why) = bwrap::probe() {
        eprintln!("assent sandbox: {why}");
        let code = match why {
            bwrap::Unavailable::Missing => EXIT_NO_BWRAP,
            bwrap::Unavailable::NoNamespaces(_) => EXIT_NO_NAMESPACES,
        };
        return ExitCode::from(code);
    }
    let mut cmd = std::process::Command::new(bwrap::BWRAP);
    cmd.args(&bwrap_args);
    // The token is read here, before the data dir is hidden: inside, the client finds it in
    // the environment (the requester's only, never the owner's).
    match ClientConfig::resolve(args.service.url.as_deref(), args.service.token.as_deref()) {
        Ok(config) if is_owners(&config.token) => {
            eprintln!(
                "assent sandbox: the token given is the owner's (approver.token): a sandboxed \
                 command gets a requester token only (`assent agents add NAME` makes one)"
            );
            return ExitCode::from(2);
        }
        Ok(config) => {
            cmd.env(assent_client::URL_ENV, config.url)
                .env(assent_client::TOKEN_ENV, config.token);
        }
        Err(err) => eprintln!(
            "assent sandbox: note: no requester token ({err}): the command cannot ask Assent"
        ),
    }
    match cmd.status() {
        Ok(status) => ExitCode::from(code_of(status)),
        Err(err) => {
            eprintln!("assent sandbox: cannot start bwrap: {err}");
            ExitCode::from(EXIT_NO_BWRAP)
        }
    }
}

/// Makes Assent's data, config and state dirs that are not there yet (mode 0700, as the
/// service makes them), so a sandbox can cover them before the service first runs: a place
/// made later would be on the real filesystem, in reach. The ones made; on failure, the path.
pub(crate) fn make_assent_dirs(
    machine: &Machine,
) -> Result<Vec<PathBuf>, (PathBuf, std::io::Error)> {
    use std::os::unix::fs::DirBuilderExt;
    let mut made = Vec::new();
    for dir in places::assent_dirs(machine) {
        if dir.exists() {
            continue;
        }
        let failed = |err| (dir.clone(), err);
        if let Some(parent) = dir.parent() {
            std::fs::create_dir_all(parent).map_err(failed)?;
        }
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .map_err(failed)?;
        made.push(dir);
    }
    Ok(made)
}

/// Whether `token` is the owner's, as the default data dir holds it: handing it to the
/// sandboxed command would give it the very credential the sandbox hides.
fn is_owners(token: &str) -> bool {
    assent_client::default_data_dir()
        .map(|dir| dir.join(assent_protocol::APPROVER_TOKEN_FILE))
        .and_then(|path| std::fs::read_to_string(path).ok())
        .is_some_and(|owner| !owner.trim().is_empty() && owner.trim() == token.trim())
}

/// The exit code a shell would report for `status`.
fn code_of(status: std::process::ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => u8::try_from(code).unwrap_or(1),
        (None, Some(signal)) => u8::try_from(128 + signal).unwrap_or(1),
        (None, None) => 1,
    }
}

/// Whether `program` (a path, or a name looked up on `PATH`) is there.
fn on_path(program: &Path) -> bool {
    if program.components().count() > 1 {
        return program.exists();
    }
    let dirs = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&dirs).any(|dir| dir.join(program).is_file())
}
