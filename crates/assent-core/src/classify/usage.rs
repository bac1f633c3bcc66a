//! Version and help queries, which print text and run nothing: `X --version` and `X --help`
//! of any program found by name, and a subcommand's help (`cargo build --help`, `go help
//! build`, `kubectl get pods --help`) of the CLIs whose own parser answers it before anything
//! runs. `git X --help` is [`crate::classify::git`]'s.
//!
//! A program given by path (`./gradlew --version`) is not judged here: a repository's script
//! or wrapper runs whatever it holds (a Gradle wrapper downloads a distribution first). And a
//! subcommand's help is read only where no word could be a script or image handed the flag
//! (`docker run alpine --help` runs alpine with `--help`; `yarn build --help` runs the build
//! script): one word for those CLIs, and cargo's own commands only, since a repository's
//! `.cargo/config.toml` may alias any other name to `run`.

use crate::classify::simple_command::Cmd;
use crate::classify::verdict::Verdict;

/// CLIs whose parser answers `SUB --help`, with how many subcommand words may precede it.
const SUBCOMMAND_HELP: &[(&str, usize)] = &[
    ("cargo", 1),
    ("npm", 1),
    ("go", 1),
    ("docker", 1),
    ("podman", 1),
    ("pip", 1),
    ("pip3", 1),
    ("uv", 1),
    ("terraform", 1),
    ("tofu", 1),
    ("rustup", 1),
    ("kubectl", 2),
    ("helm", 2),
    ("gh", 2),
    ("glab", 2),
    ("az", 3),
    ("gcloud", 3),
];

/// CLIs whose first word may be `help` (`go help build`, `cargo help test`).
const HELP_COMMAND: &[&str] = &[
    "cargo", "go", "npm", "pip", "pip3", "uv", "rustup", "kubectl", "helm", "gh", "glab",
];

/// cargo's built-in commands: a repository cannot alias these (cargo ignores such an alias).
const CARGO_COMMANDS: &[&str] = &[
    "add",
    "bench",
    "build",
    "check",
    "clean",
    "clippy",
    "config",
    "doc",
    "fetch",
    "fix",
    "fmt",
    "generate-lockfile",
    "help",
    "info",
    "init",
    "install",
    "locate-project",
    "login",
    "logout",
    "metadata",
    "miri",
    "new",
    "owner",
    "package",
    "pkgid",
    "publish",
    "remove",
    "report",
    "run",
    "rustc",
    "rustdoc",
    "search",
    "test",
    "tree",
    "uninstall",
    "update",
    "vendor",
    "verify-project",
    "version",
    "yank",
];

/// Short spellings of the version query, each alone on the line, by program (`node -v`,
/// `cargo -V`, `java -version`); elsewhere `-v` is verbose and `-V` anything.
const SHORT_VERSION: &[(&str, &[&str])] = &[
    ("node", &["-v"]),
    ("npm", &["-v"]),
    ("npx", &["-v"]),
    ("pnpm", &["-v"]),
    ("yarn", &["-v"]),
    ("bun", &["-v"]),
    ("ruby", &["-v"]),
    ("perl", &["-v"]),
    ("php", &["-v"]),
    ("gcc", &["-v"]),
    ("g++", &["-v"]),
    ("clang", &["-v"]),
    ("make", &["-v"]),
    ("tsc", &["-v"]),
    ("cargo", &["-V", "-vV"]),
    ("rustc", &["-V", "-vV"]),
    ("rustup", &["-V"]),
    ("pip", &["-V"]),
    ("pip3", &["-V"]),
    ("uv", &["-V"]),
    ("poetry", &["-V"]),
    ("deno", &["-V"]),
    ("rg", &["-V"]),
    ("fd", &["-V"]),
    ("ruff", &["-V"]),
    ("java", &["-version"]),
    ("javac", &["-version"]),
    ("terraform", &["-version", "-v"]),
    ("tofu", &["-version", "-v"]),
    ("go", &["version"]),
];

/// Version subcommands that stay on the machine (`npm version` bumps the package's; `kubectl
/// version` asks the cluster unless told `--client`).
const VERSION_COMMAND: &[(&str, &[&str])] = &[
    ("cargo", &["version"]),
    ("helm", &["version"]),
    ("gh", &["version"]),
    ("glab", &["version"]),
    ("kubectl", &["version", "--client"]),
    ("oc", &["version", "--client"]),
];

/// The auto verdict when `cmd` only asks for a version or help.
pub(crate) fn query(cmd: &Cmd<'_>) -> Option<Verdict> {
    let p = cmd.program;
    if p.is_empty() || p.contains(['/', '\\', '$', '`']) {
        return None;
    }
    match cmd.args {
        [only] if only == "--version" => {
            return Some(Verdict::auto(
                "auto.read",
                format!("`{p} --version` prints its version"),
            ))
        }
        [only] if only == "help" && HELP_COMMAND.contains(&p) => {
            return Some(Verdict::auto(
                "auto.read",
                format!("`{p} help` prints its help"),
            ))
        }
        [only] if only == "--help" => {
            return Some(Verdict::auto(
                "auto.read",
                format!("`{p} --help` prints its help"),
            ))
        }
        _ => {}
    }
    let said: Vec<&str> = cmd.args.iter().map(String::as_str).collect();
    let asks_version = SHORT_VERSION
        .iter()
        .any(|(cli, flags)| *cli == p && matches!(said.as_slice(), [only] if flags.contains(only)))
        || VERSION_COMMAND
            .iter()
            .any(|(cli, words)| *cli == p && said.as_slice() == *words);
    if asks_version {
        return Some(Verdict::auto(
            "auto.read",
            format!("`{p} {}` prints its version", said.join(" ")),
        ));
    }
    let (last, words) = cmd.args.split_last()?;
    if !words.iter().all(|w| is_word(w)) || words.is_empty() {
        return None;
    }
    let first = words.first().map(String::as_str).unwrap_or_default();
    let builtin = p != "cargo" || CARGO_COMMANDS.contains(&first);
    let asks_help = if first == "help" && HELP_COMMAND.contains(&p) {
        // `go help build`: the last word is a subcommand too.
        is_word(last) || last == "help"
    } else {
        last == "--help"
            && SUBCOMMAND_HELP
                .iter()
                .any(|(cli, depth)| *cli == p && words.len() <= *depth)
    };
    (asks_help && builtin)
        .then(|| Verdict::auto("auto.read", format!("`{p} {}` prints help", said.join(" "))))
}

/// A subcommand's name: lowercase letters, digits and dashes, starting with a letter.
fn is_word(word: &str) -> bool {
    word.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && word.len() <= 40
        && word
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}
