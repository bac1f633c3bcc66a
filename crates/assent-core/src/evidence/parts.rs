//! What each part of a shell command line reaches and changes beyond this machine, for the
//! evidence packet: the cloud, forge, registry and HTTP calls a line makes (network), what
//! they change remotely (delete, sync, apply, push, dispatch, publish), the credentials they
//! use, and which part is the riskiest, so it leads the headline.
//!
//! This reads each part's argv as the shell parser split it; it never changes a decision (the
//! classifiers do that), it only says truthfully what the person is approving.

use crate::classify::known_programs::HTTP_BODY_FLAGS;

/// What one part of a command line does beyond the local files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Part {
    /// Where it connects (a service in words, a host or URL).
    pub network: Vec<String>,
    /// What it changes remotely, in words (`None`: nothing remote).
    pub remote: Option<String>,
    /// Credentials it uses, in words.
    pub credentials: Option<String>,
    /// What it changes on this machine that cannot be undone, in words (`deletes x`).
    pub local: Option<String>,
    /// How much this part could do: 0 nothing remote … 5 deletes remotely (a local delete
    /// weighs [`DELETES_LOCAL`]: above a read elsewhere, below a change elsewhere).
    pub weight: u8,
}

/// Weights: the riskiest part of a line leads its headline.
const READS_REMOTE: u8 = 1;
const SENDS: u8 = 2;
const DELETES_LOCAL: u8 = 2;
const CHANGES_REMOTE: u8 = 3;
const PUBLISHES: u8 = 4;
const DELETES_REMOTE: u8 = 5;

/// The program's name without its directory (`/usr/bin/aws` → `aws`).
fn program(argv: &[String]) -> &str {
    let first = argv.first().map_or("", String::as_str);
    first.rsplit('/').next().unwrap_or(first)
}

/// The arguments that are not flags, after the program.
fn words(argv: &[String]) -> Vec<&str> {
    argv.iter()
        .skip(1)
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect()
}

/// `word` is `head` followed by `sep` and more (`--delete=x`, `delete-bucket`), without
/// building the prefix.
fn with_suffix(word: &str, head: &str, sep: char) -> bool {
    word.strip_prefix(head)
        .is_some_and(|rest| rest.starts_with(sep))
}

fn has(argv: &[String], flags: &[&str]) -> bool {
    argv.iter()
        .skip(1)
        .any(|a| flags.iter().any(|f| a == f || with_suffix(a, f, '=')))
}

/// A verb that changes what it names (`delete-bucket`, `terminate-instances`, `apply`…).
fn deletes(verb: &str) -> bool {
    [
        "delete",
        "destroy",
        "terminate",
        "remove",
        "rm",
        "purge",
        "drop",
        "uninstall",
    ]
    .iter()
    .any(|v| verb == *v || with_suffix(verb, v, '-'))
}

fn changes(verb: &str) -> bool {
    [
        "create",
        "put",
        "update",
        "modify",
        "set",
        "apply",
        "deploy",
        "patch",
        "replace",
        "scale",
        "run",
        "start",
        "stop",
        "reboot",
        "attach",
        "detach",
        "import",
        "install",
        "upgrade",
        "rollout",
        "edit",
        "label",
        "annotate",
        "up",
        "push",
        "invoke",
        "publish",
        "restore",
        "copy",
        "cp",
        "mv",
        "sync",
        "tag",
        "untag",
        "add",
        "associate",
        "enable",
        "disable",
        "register",
        "deregister",
        "release",
        "merge",
        "close",
        "reopen",
        "rerun",
        "cancel",
        "archive",
        "transfer",
        "rename",
        "fork",
        "lock",
        "unlock",
    ]
    .iter()
    .any(|v| verb == *v || with_suffix(verb, v, '-'))
}

/// What `argv` (one simple command) does beyond the local files.
pub(crate) fn part(argv: &[String]) -> Part {
    let w = words(argv);
    match program(argv) {
        "aws" => aws(argv, &w),
        "gcloud" | "gsutil" | "bq" => cloud(argv, &w, "the Google Cloud API", "Google Cloud"),
        "az" => cloud(argv, &w, "the Azure API", "Azure"),
        "doctl" => cloud(argv, &w, "the DigitalOcean API", "DigitalOcean"),
        "flyctl" | "fly" => cloud(argv, &w, "the Fly.io API", "Fly.io"),
        "heroku" => cloud(argv, &w, "the Heroku API", "Heroku"),
        "vercel" | "netlify" | "wrangler" => {
            cloud(argv, &w, "the hosting provider's API", "hosting")
        }
        "kubectl" | "oc" | "helm" => cluster(argv, &w),
        "terraform" | "tofu" | "pulumi" => infrastructure(&w),
        "gh" => forge(argv, &w, "github.com", "GitHub", "gh's GitHub token"),
        "glab" => forge(argv, &w, "gitlab.com", "GitLab", "glab's GitLab token"),
        "git" => git(argv, &w),
        "curl" | "wget" | "http" | "https" | "xh" => http(argv),
        "npm" | "pnpm" | "yarn" | "bun" if w.first() == Some(&"publish") => {
            publish("the npm registry")
        }
        "cargo" if w.first() == Some(&"publish") => publish("crates.io"),
        "twine" if w.first() == Some(&"upload") => publish("PyPI"),
        "gem" if w.first() == Some(&"push") => publish("RubyGems"),
        "docker" | "podman" if w.first() == Some(&"push") => publish("the container registry"),
        "ssh" => ssh(&w),
        "scp" | "rsync" => copy_remote(argv, &w),
        program => local_loss(program, argv, &w),
    }
}

/// A step that destroys something on this machine (`rm -r`, `shred`, `git reset --hard`,
/// `find … -delete`, `dd of=…`): weighed so it leads a line of harmless steps.
fn local_loss(program: &str, argv: &[String], w: &[&str]) -> Part {
    let targets = |skip: usize| {
        let named: Vec<&str> = w.iter().skip(skip).copied().collect();
        crate::text::clip(&named.join(" "), 80)
    };
    let text = match program {
        "rm" | "rmdir" | "unlink" | "shred" if !w.is_empty() => {
            let recursive = has(argv, &["-r", "-R", "--recursive"])
                || argv
                    .iter()
                    .skip(1)
                    .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains(['r', 'R']));
            let how = if recursive {
                " and everything under it"
            } else {
                ""
            };
            Some(format!("deletes {}{how}", targets(0)))
        }
        "find" if has(argv, &["-delete"]) => Some(format!(
            "deletes what it finds under {}",
            w.first().copied().unwrap_or(".")
        )),
        "dd" => argv
            .iter()
            .find_map(|a| a.strip_prefix("of="))
            .map(|out| format!("overwrites {out}")),
        "truncate" if !w.is_empty() => Some(format!("empties {}", targets(0))),
        "git" => match w.first().copied() {
            Some("reset") if has(argv, &["--hard"]) => {
                Some("discards uncommitted changes (git reset --hard)".to_owned())
            }
            Some("clean")
                if has(argv, &["-f", "--force"]) || has(argv, &["-fd", "-fdx", "-xdf", "-df"]) =>
            {
                Some("deletes untracked files (git clean)".to_owned())
            }
            Some("checkout" | "restore") if argv.iter().any(|a| a == "--" || a == ".") => {
                Some(format!("discards uncommitted changes to {}", targets(1)))
            }
            _ => None,
        },
        _ => None,
    };
    Part {
        weight: if text.is_some() { DELETES_LOCAL } else { 0 },
        local: text,
        ..Part::default()
    }
}

fn aws(argv: &[String], w: &[&str]) -> Part {
    let mut part = Part {
        network: vec!["the AWS API".to_owned()],
        credentials: Some("AWS credentials (the active profile)".to_owned()),
        weight: READS_REMOTE,
        ..Part::default()
    };
    let buckets: Vec<&str> = w
        .iter()
        .copied()
        .filter(|a| a.starts_with("s3://"))
        .collect();
    if let Some(bucket) = buckets.first() {
        part.network = vec![format!("the AWS API ({bucket})")];
    }
    let (service, verb) = (
        w.first().copied().unwrap_or(""),
        w.get(1).copied().unwrap_or(""),
    );
    let dest = buckets.last().copied().unwrap_or("S3");
    let remote = match (service, verb) {
        ("s3", "ls" | "presign") => None,
        ("s3", "sync")
            if has(argv, &["--delete"]) && w.last().is_some_and(|d| d.starts_with("s3://")) =>
        {
            part.weight = DELETES_REMOTE;
            Some(format!(
                "uploads to {dest} and deletes every object there that is not in {} (sync --delete)",
                w.get(2).copied().unwrap_or("the source")
            ))
        }
        ("s3", "rm" | "rb") => {
            part.weight = DELETES_REMOTE;
            let all = if has(argv, &["--recursive", "--force"]) {
                " (recursively)"
            } else {
                ""
            };
            Some(format!("deletes {dest}{all}"))
        }
        ("s3", "sync" | "cp" | "mv" | "mb") if w.last().is_some_and(|d| d.starts_with("s3://")) => {
            part.weight = CHANGES_REMOTE;
            Some(format!("writes to {dest}"))
        }
        ("s3", _) => None,
        (_, verb) if deletes(verb) => {
            part.weight = DELETES_REMOTE;
            Some(format!("deletes AWS resources (aws {service} {verb})"))
        }
        (_, verb) if changes(verb) => {
            part.weight = CHANGES_REMOTE;
            Some(format!("changes AWS resources (aws {service} {verb})"))
        }
        _ => None,
    };
    part.remote = remote;
    part
}

fn cloud(argv: &[String], w: &[&str], api: &str, name: &str) -> Part {
    let mut part = Part {
        network: vec![api.to_owned()],
        credentials: Some(format!("{name} credentials (the active account)")),
        weight: READS_REMOTE,
        ..Part::default()
    };
    let program = program(argv);
    let line = w.iter().take(4).copied().collect::<Vec<_>>().join(" ");
    if let Some(verb) = w.iter().copied().find(|v| deletes(v)) {
        part.weight = DELETES_REMOTE;
        part.remote = Some(format!(
            "deletes {name} resources ({program} {line}; {verb})"
        ));
    } else if w.iter().any(|v| changes(v))
        || (program == "gsutil" && w.first() == Some(&"rsync") && has(argv, &["-d"]))
    {
        part.weight = CHANGES_REMOTE;
        part.remote = Some(format!("changes {name} resources ({program} {line})"));
    }
    part
}

fn cluster(argv: &[String], w: &[&str]) -> Part {
    let program = program(argv);
    let mut part = Part {
        network: vec!["the Kubernetes API (the current kubeconfig context)".to_owned()],
        credentials: Some("the cluster's credentials (kubeconfig)".to_owned()),
        weight: READS_REMOTE,
        ..Part::default()
    };
    let verb = w.first().copied().unwrap_or("");
    let what = w
        .iter()
        .skip(1)
        .take(2)
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    let named = if what.is_empty() {
        String::new()
    } else {
        format!(" {what}")
    };
    if deletes(verb) {
        part.weight = DELETES_REMOTE;
        part.remote = Some(format!(
            "deletes from the cluster ({program} {verb}{named})"
        ));
    } else if changes(verb) {
        part.weight = CHANGES_REMOTE;
        part.remote = Some(format!("changes the cluster ({program} {verb}{named})"));
    }
    part
}

fn infrastructure(w: &[&str]) -> Part {
    let mut part = Part {
        network: vec!["the cloud providers' APIs (its configured providers)".to_owned()],
        credentials: Some("cloud credentials (its providers' configuration)".to_owned()),
        weight: READS_REMOTE,
        ..Part::default()
    };
    match w.first().copied().unwrap_or("") {
        "destroy" => {
            part.weight = DELETES_REMOTE;
            part.remote = Some("destroys the cloud infrastructure it manages".to_owned());
        }
        verb @ ("apply" | "up" | "import" | "refresh" | "taint" | "state") => {
            part.weight = CHANGES_REMOTE;
            part.remote = Some(format!("changes cloud infrastructure ({verb})"));
        }
        "init" | "plan" | "preview" | "validate" | "fmt" | "show" | "output" | "version" => {}
        _ => part.weight = READS_REMOTE,
    }
    part
}

fn forge(argv: &[String], w: &[&str], host: &str, name: &str, token: &str) -> Part {
    let mut part = Part {
        network: vec![host.to_owned()],
        credentials: Some(token.to_owned()),
        weight: READS_REMOTE,
        ..Part::default()
    };
    let (noun, verb) = (
        w.first().copied().unwrap_or(""),
        w.get(1).copied().unwrap_or(""),
    );
    let target = w.get(2).map(|t| format!(" {t}")).unwrap_or_default();
    let remote = match (noun, verb) {
        ("api", _) => {
            let method = flag_value(argv, &["-X", "--method"]).map(str::to_uppercase);
            let sends = has(argv, &["-f", "-F", "--field", "--raw-field", "--input"]);
            match method.as_deref() {
                Some("DELETE") => {
                    part.weight = DELETES_REMOTE;
                    Some(format!("calls the {name} API: DELETE {verb}"))
                }
                Some(m) if m != "GET" && m != "HEAD" => {
                    part.weight = CHANGES_REMOTE;
                    Some(format!("calls the {name} API: {m} {verb}"))
                }
                None if sends => {
                    part.weight = CHANGES_REMOTE;
                    Some(format!("calls the {name} API: POST {verb}"))
                }
                _ => None,
            }
        }
        ("workflow", "run") => {
            part.weight = CHANGES_REMOTE;
            Some(format!("starts the workflow{target} on {name}"))
        }
        (_, verb) if deletes(verb) => {
            part.weight = DELETES_REMOTE;
            Some(format!("deletes on {name} ({noun} {verb}{target})"))
        }
        ("pr", "merge") => {
            part.weight = PUBLISHES;
            Some(format!("merges a pull request on {name}{target}"))
        }
        ("release", "create" | "upload") => {
            part.weight = PUBLISHES;
            Some(format!("publishes a release on {name}{target}"))
        }
        (_, verb) if changes(verb) || matches!(verb, "comment" | "review" | "edit") => {
            part.weight = CHANGES_REMOTE;
            Some(format!("changes {name} ({noun} {verb}{target})"))
        }
        _ => None,
    };
    part.remote = remote;
    part
}

/// The value of the first of `flags` in `argv` (`-X POST`, `-XPOST`, `--request=POST`).
fn flag_value<'a>(argv: &'a [String], flags: &[&str]) -> Option<&'a str> {
    let mut args = argv.iter().skip(1);
    while let Some(arg) = args.next() {
        for flag in flags {
            if arg == flag {
                return args.next().map(String::as_str);
            }
            if let Some(value) = arg.strip_prefix(flag).and_then(|r| r.strip_prefix('=')) {
                return Some(value);
            }
            if flag.len() == 2 && !flag.starts_with("--") {
                if let Some(value) = arg.strip_prefix(flag).filter(|v| !v.is_empty()) {
                    return Some(value);
                }
            }
        }
    }
    None
}

fn git(argv: &[String], w: &[&str]) -> Part {
    if w.first() != Some(&"push") {
        return local_loss("git", argv, w);
    }
    let remote = w.get(1).copied().unwrap_or("the upstream remote");
    let refs: Vec<&str> = w.iter().skip(2).copied().collect();
    let to_default = refs.iter().any(|r| is_default_branch_ref(r));
    let forced = has(argv, &["-f", "--force", "--force-with-lease", "--mirror"])
        || refs.iter().any(|r| r.starts_with('+'));
    let deleting = has(argv, &["-d", "--delete"]) || refs.iter().any(|r| r.starts_with(':'));
    let what = if refs.is_empty() {
        "the current branch".to_owned()
    } else {
        refs.join(" ")
    };
    let mut text = format!("pushes {what} to {remote}");
    if to_default {
        text.push_str(", straight to the default branch");
    }
    if forced {
        text.push_str(", overwriting its history (force)");
    }
    let weight = if deleting {
        text = format!("deletes {what} on {remote}");
        DELETES_REMOTE
    } else if forced || to_default {
        PUBLISHES
    } else {
        CHANGES_REMOTE
    };
    Part {
        local: None,
        network: vec![format!("git remote {remote}")],
        remote: Some(text),
        credentials: Some("your git credentials for the remote".to_owned()),
        weight,
    }
}

/// `main`, `master`, or a refspec whose destination is one of them (`HEAD:main`,
/// `refs/heads/master`).
pub(crate) fn is_default_branch_ref(spec: &str) -> bool {
    let dest = spec
        .trim_start_matches('+')
        .rsplit(':')
        .next()
        .unwrap_or(spec);
    let dest = dest.strip_prefix("refs/heads/").unwrap_or(dest);
    matches!(dest, "main" | "master")
}

fn http(argv: &[String]) -> Part {
    let url = argv
        .iter()
        .skip(1)
        .map(String::as_str)
        .find(|a| a.starts_with("http://") || a.starts_with("https://"));
    let host = url.map(|u| {
        let rest = u.split_once("://").map_or(u, |(_, r)| r);
        rest.split(['/', '?', '#'])
            .next()
            .unwrap_or(rest)
            .to_owned()
    });
    let method = flag_value(argv, &["-X", "--request", "--method"]).map(str::to_uppercase);
    let sends = has(argv, HTTP_BODY_FLAGS) || has(argv, &["--body-data"]);
    let method = match method {
        Some(m) => Some(m),
        None if sends => Some(
            if has(argv, &["-T", "--upload-file"]) {
                "PUT"
            } else {
                "POST"
            }
            .to_owned(),
        ),
        None => None,
    };
    let mut part = Part {
        network: Vec::new(),
        weight: if url.is_some() { READS_REMOTE } else { 0 },
        ..Part::default()
    };
    let target = url.map(short_url).unwrap_or_else(|| "a server".to_owned());
    let files = uploaded_files(argv);
    // The files whose content leaves the machine, named: that is what a person weighs.
    let with = match files.as_slice() {
        [] => String::new(),
        [one] => format!(" with the content of {one}"),
        [first @ .., last] => format!(" with the content of {} and {last}", first.join(", ")),
    };
    match method.as_deref() {
        Some("DELETE") => {
            part.weight = DELETES_REMOTE;
            part.remote = Some(format!("sends a DELETE to {target}{with}"));
        }
        Some(m) if m != "GET" && m != "HEAD" && m != "OPTIONS" => {
            part.weight = CHANGES_REMOTE;
            part.remote = Some(format!("sends a {m} to {target}{with}"));
        }
        _ if !files.is_empty() => {
            part.weight = CHANGES_REMOTE;
            part.remote = Some(format!("sends to {target}{with}"));
        }
        _ => {}
    }
    if let (Some(_), Some(host)) = (url, host.filter(|h| !h.is_empty())) {
        part.network.push(host);
    }
    part
}

/// The local files an HTTP client sends: `-d @f`, `--data-binary @f`, `--data-urlencode n@f`,
/// `-T f`, `-F n=@f` / `n=<f`, wget's `--post-file f` / `--body-file f` (`-` is stdin).
pub(crate) fn uploaded_files(argv: &[String]) -> Vec<String> {
    const AT_FLAGS: &[&str] = &[
        "-d",
        "--data",
        "--data-binary",
        "--data-urlencode",
        "--json",
    ];
    const FILE_FLAGS: &[&str] = &["-T", "--upload-file", "--post-file", "--body-file"];
    const FORM_FLAGS: &[&str] = &["-F", "--form"];
    let mut files: Vec<String> = Vec::new();
    let mut args = argv.iter().skip(1).map(String::as_str);
    while let Some(arg) = args.next() {
        let (flag, value) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value)),
            _ => (arg, None),
        };
        // `-d@f`, `-Tf`: a short flag with its value attached.
        let (flag, value) = match (flag.get(..2), flag.get(2..)) {
            (Some(short), Some(rest))
                if value.is_none() && !flag.starts_with("--") && !rest.is_empty() =>
            {
                (short, Some(rest))
            }
            _ => (flag, value),
        };
        let is = |list: &[&str]| list.contains(&flag);
        if !is(AT_FLAGS) && !is(FILE_FLAGS) && !is(FORM_FLAGS) {
            continue;
        }
        let Some(value) = value.or_else(|| args.next()) else {
            break;
        };
        let file = if is(FILE_FLAGS) {
            Some(value)
        } else if is(FORM_FLAGS) {
            value
                .split_once('=')
                .and_then(|(_, v)| v.strip_prefix('@').or_else(|| v.strip_prefix('<')))
                .map(|v| v.split(';').next().unwrap_or(v))
        } else if flag == "--data-urlencode" {
            value.split_once('@').map(|(_, f)| f)
        } else {
            value.strip_prefix('@')
        };
        if let Some(file) = file.filter(|f| !f.is_empty()) {
            let shown = if file == "-" { "stdin" } else { file };
            if !files.iter().any(|f| f == shown) {
                files.push(shown.to_owned());
            }
        }
    }
    files
}

/// A URL shown in a sentence: host and path, query left off, cut to 60 characters.
fn short_url(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    crate::text::clip(rest, 60)
}

fn publish(registry: &str) -> Part {
    Part {
        local: None,
        network: vec![registry.to_owned()],
        remote: Some(format!(
            "publishes to {registry} (public, and hard to take back)"
        )),
        credentials: Some(format!("your {registry} token")),
        weight: PUBLISHES,
    }
}

fn ssh(w: &[&str]) -> Part {
    let Some(host) = w.first() else {
        return Part::default();
    };
    let command = w.get(1..).unwrap_or_default().join(" ");
    let remote = (!command.is_empty()).then(|| format!("runs `{command}` on {host}"));
    Part {
        local: None,
        network: vec![(*host).to_owned()],
        weight: if remote.is_some() {
            CHANGES_REMOTE
        } else {
            SENDS
        },
        remote,
        credentials: Some("your SSH keys".to_owned()),
    }
}

fn copy_remote(argv: &[String], w: &[&str]) -> Part {
    let Some(dest) = w.last().filter(|d| d.contains(':') && !d.starts_with('/')) else {
        return Part::default();
    };
    let host = dest.split(':').next().unwrap_or(dest);
    let deleting = has(
        argv,
        &["--delete", "--delete-after", "--delete-before", "--del"],
    );
    Part {
        local: None,
        network: vec![host.to_owned()],
        remote: Some(if deleting {
            format!("copies to {dest} and deletes files there that are not in the source")
        } else {
            format!("copies files to {dest}")
        }),
        credentials: Some("your SSH keys".to_owned()),
        weight: if deleting {
            DELETES_REMOTE
        } else {
            CHANGES_REMOTE
        },
    }
}

/// Whether `argv` runs the project's own code (its tests, build scripts, package scripts,
/// Makefile, a script of its own): whatever a profile expects of it, that code can reach the
/// network and change any file the user can. `cargo fmt`, `go vet` and the like do not.
pub(crate) fn runs_project_code(argv: &[String]) -> bool {
    let eff = crate::shell::wrappers::effective(argv);
    let Some((first, args)) = eff.argv.split_first() else {
        return false;
    };
    let program = first.rsplit('/').next().unwrap_or(first);
    let verb = args
        .iter()
        .map(String::as_str)
        .find(|a| !a.starts_with('-'))
        .unwrap_or("");
    match program {
        "cargo" => matches!(
            verb,
            "test"
                | "t"
                | "build"
                | "b"
                | "run"
                | "r"
                | "bench"
                | "check"
                | "c"
                | "clippy"
                | "nextest"
                | "doc"
                | "install"
                | "publish"
                | "package"
                | "miri"
                | "llvm-cov"
                | "tarpaulin"
        ),
        // Installing runs the packages' lifecycle scripts; anything else unknown is a script.
        "npm" | "pnpm" | "yarn" | "bun" => !matches!(
            verb,
            "view"
                | "info"
                | "show"
                | "ls"
                | "list"
                | "ll"
                | "la"
                | "outdated"
                | "whoami"
                | "config"
                | "help"
                | "version"
                | "why"
                | "explain"
                | "search"
                | "login"
                | "logout"
                | "ping"
                | "prefix"
                | "root"
                | "bin"
                | "doctor"
                | "fund"
                | "owner"
                | "access"
                | "token"
                | "cache"
                | "audit"
                | "licenses"
        ),
        "npx" | "pnpx" | "bunx" | "make" | "gmake" | "ninja" | "just" | "task" | "mvn" | "mvnw"
        | "gradle" | "gradlew" | "pytest" | "py.test" | "tox" | "nox" | "rake" | "ctest"
        | "meson" | "bazel" | "bazelisk" | "buck2" | "sbt" | "mix" | "rebar3" | "composer"
        | "phpunit" | "rspec" | "jest" | "vitest" | "mocha" | "playwright" | "cypress" | "tsx"
        | "ts-node" | "deno" => true,
        "go" => matches!(verb, "test" | "run" | "generate"),
        "dotnet" => matches!(verb, "test" | "run" | "build" | "publish" | "pack"),
        "bundle" => verb == "exec",
        "swift" => matches!(verb, "test" | "run" | "build"),
        "python" | "python3" | "node" | "ruby" | "perl" | "php" | "bash" | "sh" | "zsh" => {
            // A file of the project's (`python scripts/x.py`, `node build.js`).
            !verb.is_empty()
        }
        // `./build.sh`, `scripts/release`: a program of the project's own.
        _ => first.starts_with("./") || (first.contains('/') && !first.starts_with('/')),
    }
}

/// The index of the riskiest of `parts` (the last of equals, as a line's later steps act on
/// what the earlier prepared), or `None` when none reaches beyond the machine.
pub(crate) fn riskiest(parts: &[Part]) -> Option<usize> {
    let (index, part) = parts
        .iter()
        .enumerate()
        .max_by_key(|(i, p)| (p.weight, *i))?;
    (part.weight > 0).then_some(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn a_refspec_to_the_default_branch_is_named() {
        for spec in ["main", "master", "HEAD:main", "+feature:refs/heads/master"] {
            assert!(
                is_default_branch_ref(spec),
                "{spec} lands on the default branch"
            );
        }
        for spec in ["feature/main-menu", "mainline", "main:feature"] {
            assert!(!is_default_branch_ref(spec), "{spec} does not land on main");
        }
    }

    #[test]
    fn curl_sends_when_it_has_a_body_or_a_method() {
        let post = part(&argv("curl -d x=1 https://api.example.org/v1/things"));
        assert_eq!(
            post.remote.as_deref(),
            Some("sends a POST to api.example.org/v1/things"),
            "a body without -X is a POST"
        );
        let get = part(&argv("curl -fsSL https://example.org/a"));
        assert_eq!(get.remote, None, "a plain GET changes nothing remotely");
        assert_eq!(get.network, ["example.org"], "but it does reach the host");
        let delete = part(&argv("curl -XDELETE https://api.example.org/v1/things/1"));
        assert_eq!(delete.weight, DELETES_REMOTE, "-XDELETE is a remote delete");
    }

    #[test]
    fn the_riskiest_part_is_the_one_that_reaches_furthest() {
        let parts = vec![
            part(&argv("node --check a.js")),
            part(&argv("npm run build")),
            part(&argv(
                "curl -X POST https://api.github.com/repos/a/b/dispatches",
            )),
            part(&argv("echo done")),
        ];
        assert_eq!(
            riskiest(&parts),
            Some(2),
            "the POST leads, not the first step"
        );
        assert_eq!(
            riskiest(&[part(&argv("ls")), part(&argv("make"))]),
            None,
            "a line that stays on the machine has no remote leader"
        );
    }
}
