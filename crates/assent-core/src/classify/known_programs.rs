//! The programs the default policy knows, in lists by what they do (only read, edit,
//! delete, reach the network, run code, manage a cloud, …), and [`is`] to ask a list.

/// Reads and searches that change nothing (their path arguments are still checked).
pub(crate) const READ_ONLY: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "less",
    "more",
    "wc",
    "file",
    "stat",
    "tree",
    "du",
    "df",
    "pwd",
    "echo",
    "printf",
    "true",
    "false",
    "which",
    "type",
    "whoami",
    "id",
    "date",
    "uname",
    "diff",
    "cmp",
    "sort",
    "uniq",
    "cut",
    "tr",
    "jq",
    "yq",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "xxd",
    "hexdump",
    "od",
    "strings",
    "nl",
    "tac",
    "rev",
    "column",
    "comm",
    "join",
    "paste",
    "fold",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "shasum",
    "b2sum",
    "cksum",
    "test",
    "[",
    "[[",
    "sleep",
    "seq",
    "yes",
    "cd",
    "pushd",
    "popd",
    "exit",
    "break",
    "continue",
    "wait",
    "read",
    "expr",
    "tput",
    "clear",
    "man",
    "ps",
    "nproc",
    "locate",
    "tokei",
    "cloc",
    "bat",
    "exa",
    "eza",
    "lsd",
    "fzf",
    "xargs",
    "base64",
    "base32",
];

/// Read-only programs whose positional arguments are all files.
pub(crate) const READS_FILES: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "less",
    "more",
    "wc",
    "file",
    "stat",
    "tree",
    "du",
    "diff",
    "cmp",
    "sort",
    "uniq",
    "xxd",
    "hexdump",
    "od",
    "strings",
    "nl",
    "tac",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "shasum",
    "b2sum",
    "cksum",
    "bat",
    "exa",
    "eza",
    "lsd",
    "realpath",
    "readlink",
    "column",
    "comm",
    "join",
    "paste",
    "fold",
    "rev",
    "tokei",
    "cloc",
    "base64",
    "base32",
];

/// Searches: first positional is the pattern, the rest are files.
pub(crate) const SEARCHES: &[&str] = &[
    "rg", "grep", "egrep", "fgrep", "ag", "ack", "fd", "jq", "yq",
];

/// Programs that create or change files inside the repo (their arguments are checked).
pub(crate) const EDITS: &[&str] = &[
    "touch", "mkdir", "cp", "mv", "ln", "install", "patch", "truncate", "tee", "chmod", "chown",
    "chgrp",
];

/// Programs that delete files.
pub(crate) const DELETES: &[&str] = &["rm", "rmdir", "unlink", "shred"];

/// Programs that reach the network.
/// The flags by which an HTTP client (curl, wget, httpie…) sends a body: the classifiers count
/// them as uploads, the evidence as "sends".
pub(crate) const HTTP_BODY_FLAGS: &[&str] = &[
    "-d",
    "--data",
    "--data-raw",
    "--data-binary",
    "--data-urlencode",
    "--json",
    "-F",
    "--form",
    "-T",
    "--upload-file",
    "--post-data",
    "--post-file",
];

pub(crate) const NETWORK: &[&str] = &[
    "curl", "wget", "http", "https", "xh", "httpie", "nc", "ncat", "netcat", "telnet", "ssh",
    "scp", "sftp", "ftp", "rsync", "socat", "aria2c", "fetch",
];

/// Interpreters that run code given inline or on stdin.
pub(crate) const INTERPRETERS: &[&str] = &[
    "python",
    "python3",
    "python2",
    "node",
    "nodejs",
    "ruby",
    "perl",
    "php",
    "deno",
    "bun",
    "lua",
    "Rscript",
    "osascript",
    "pwsh",
    "powershell",
    "irb",
    "tclsh",
];

/// Flags of interpreters that run inline code.
pub(crate) const INLINE_CODE_FLAGS: &[&str] = &[
    "-c", "-e", "-E", "--eval", "-p", "--print", "-r", "eval", "-command", "-Command",
];

/// Formatters and fixers: auto, their file arguments still checked.
pub(crate) const FORMATTERS: &[&str] = &[
    "rustfmt",
    "prettier",
    "black",
    "isort",
    "gofmt",
    "goimports",
    "clang-format",
    "shfmt",
    "stylua",
    "autopep8",
    "yapf",
    "ruff",
    "eslint",
    "biome",
    "taplo",
    "dprint",
];

/// Cloud command lines: credentials and mutation of cloud resources.
pub(crate) const CLOUD: &[&str] = &[
    "aws",
    "gcloud",
    "gsutil",
    "bq",
    "az",
    "eksctl",
    "doctl",
    "pulumi",
    "flyctl",
    "heroku",
    "aliyun",
    "oci",
    "ibmcloud",
    "linode-cli",
    "hcloud",
    "scw",
];

/// Kubernetes verbs that change a cluster.
pub(crate) const KUBE_MUTATING: &[&str] = &[
    "apply",
    "create",
    "delete",
    "edit",
    "patch",
    "replace",
    "scale",
    "rollout",
    "set",
    "drain",
    "cordon",
    "uncordon",
    "taint",
    "label",
    "annotate",
    "exec",
    "cp",
    "port-forward",
    "run",
    "expose",
    "autoscale",
    "attach",
];

/// Password stores and keychains.
pub(crate) const SECRET_STORES: &[&str] = &[
    "security",
    "pass",
    "op",
    "vault",
    "secret-tool",
    "gopass",
    "bw",
    "lpass",
];

/// Disk and machine destroyers.
pub(crate) const DESTROYERS: &[&str] = &[
    "mkfs",
    "mke2fs",
    "mkswap",
    "mkdosfs",
    "mkntfs",
    "wipefs",
    "blkdiscard",
    "fdisk",
    "sfdisk",
    "parted",
    "gdisk",
    "shutdown",
    "reboot",
    "halt",
    "poweroff",
    "diskutil",
];

/// System package managers.
pub(crate) const SYSTEM_PACKAGES: &[&str] = &[
    "apt", "apt-get", "brew", "dnf", "yum", "apk", "pacman", "snap", "port", "zypper", "choco",
    "winget",
];

/// Agent-internal tools (Claude Code) that act on nothing outside the agent.
pub(crate) const AGENT_INTERNAL_TOOLS: &[&str] = &[
    "TodoWrite",
    "Task",
    "ExitPlanMode",
    "BashOutput",
    "KillShell",
    "KillBash",
    "TodoRead",
];

/// Environment variables that change which code runs.
pub(crate) const CODE_CHANGING_ENV: &[&str] = &[
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "DYLD_INSERT_LIBRARIES",
    "DYLD_LIBRARY_PATH",
    "PATH",
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "NODE_OPTIONS",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "RUSTC_WRAPPER",
    "RUSTC",
    "CARGO_BUILD_RUSTC_WRAPPER",
    "GIT_SSH_COMMAND",
    "GIT_EXEC_PATH",
    "GIT_CONFIG_GLOBAL",
    "PERL5OPT",
    "RUBYOPT",
    "JAVA_TOOL_OPTIONS",
    "MAVEN_OPTS",
    "IFS",
];

/// System directories: recursive deletes or permission changes on them are destructive.
pub(crate) const SYSTEM_DIRS: &[&str] = &[
    "/",
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/lib64",
    "/opt",
    "/proc",
    "/root",
    "/sbin",
    "/srv",
    "/sys",
    "/usr",
    "/var",
    "/System",
    "/Applications",
    "/Library",
    "/Users",
    "/private",
];

/// Whether a variable name looks like it holds a secret.
pub(crate) fn is_secret_var(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    [
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "API_KEY",
        "APIKEY",
        "PRIVATE_KEY",
        "CREDENTIAL",
        "ACCESS_KEY",
        "AUTH",
    ]
    .iter()
    .any(|needle| upper.contains(needle))
}

/// Whether `program` is in `list`.
pub(crate) fn is(list: &[&str], program: &str) -> bool {
    list.contains(&program)
}
