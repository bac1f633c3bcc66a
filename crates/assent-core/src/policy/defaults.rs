//! The compiled-in default policy: profiles, path lists and limits.

use crate::policy::{CommandProfile, Lifetimes, PipeToShell, Policy};
use crate::types::FallbackOnTimeout;

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

fn profile(name: &str, programs: &[&str], subcommands: &[&str], mutation: &str) -> CommandProfile {
    CommandProfile {
        name: name.to_owned(),
        programs: strings(programs),
        subcommands: strings(subcommands),
        goals: false,
        network: "none".to_owned(),
        mutation: mutation.to_owned(),
        credentials: "none".to_owned(),
        unordered_flags: true,
        always_auto: false,
    }
}

fn goals(mut p: CommandProfile) -> CommandProfile {
    p.goals = true;
    p
}

const NODE: &[&str] = &["npm", "pnpm", "yarn"];
const MAVEN: &[&str] = &["mvn", "./mvnw", "mvnw"];
const GRADLE: &[&str] = &["gradle", "./gradlew", "gradlew"];

pub(crate) fn default_profiles() -> Vec<CommandProfile> {
    let mut fmt = profile(
        "cargo-fmt",
        &["cargo"],
        &["fmt"],
        "source files (formatting only)",
    );
    fmt.always_auto = true;
    // A check only reads the sources and compiles them into target/ (no binary is run but the
    // build scripts and proc macros any build runs): not asked in any repository.
    let mut check = profile("cargo-check", &["cargo"], &["check"], "target/** only");
    check.always_auto = true;
    vec![
        profile(
            "cargo-test",
            &["cargo"],
            &["test", "nextest run", "bench"],
            "target/** only",
        ),
        profile(
            "cargo-build",
            &["cargo"],
            &["build", "doc"],
            "target/** only",
        ),
        check,
        profile("cargo-clippy", &["cargo"], &["clippy"], "target/** only"),
        fmt,
        profile(
            "npm-test",
            NODE,
            &["test", "t", "run test"],
            "node_modules/.cache/**, coverage/**",
        ),
        profile("npm-lint", NODE, &["lint", "run lint"], "none"),
        profile(
            "npm-build",
            NODE,
            &["build", "run build"],
            "dist/**, build/**",
        ),
        profile("pytest", &["pytest", "py.test"], &[], ".pytest_cache/**"),
        profile("go-test", &["go"], &["test"], "the Go build cache"),
        profile(
            "go-build",
            &["go"],
            &["build"],
            "the Go build cache and the output binary",
        ),
        profile("go-vet", &["go"], &["vet"], "the Go build cache"),
        goals(profile(
            "maven-test",
            MAVEN,
            &["test", "verify", "clean", "compile", "test-compile"],
            "target/** only",
        )),
        goals(profile(
            "maven-package",
            MAVEN,
            &["package", "clean", "compile"],
            "target/** only",
        )),
        goals(profile(
            "gradle-test",
            GRADLE,
            &["test", "check", "clean"],
            "build/** only",
        )),
        goals(profile(
            "gradle-build",
            GRADLE,
            &["build", "assemble", "clean"],
            "build/** only",
        )),
        goals(profile(
            "make-test",
            &["make"],
            &["test", "check"],
            "what the Makefile writes",
        )),
        goals(profile(
            "make-lint",
            &["make"],
            &["lint"],
            "what the Makefile writes",
        )),
        goals(profile(
            "make-build",
            &["make"],
            &["", "build", "all"],
            "what the Makefile writes",
        )),
    ]
}

pub(crate) fn default_policy() -> Policy {
    Policy {
        approval_timeout_seconds: 900,
        fallback_on_timeout: FallbackOnTimeout::Deny,
        pipe_to_shell: PipeToShell::Block,
        trusted_repos: Vec::new(),
        sensitive_paths: strings(SENSITIVE),
        not_sensitive: strings(NOT_SENSITIVE),
        ci_paths: strings(CI),
        security_paths: security_paths(),
        dependency_paths: strings(DEPENDENCY),
        block_patterns: Vec::new(),
        network_allowlist: strings(NETWORK),
        profiles: default_profiles(),
        approvals: crate::policy::Approvals::default(),
        deny_memory: crate::policy::DenyMemory::default(),
        pre_run: crate::pre_run::PreRunPolicy::default(),
        fleet: crate::pre_run::FleetPolicy::default(),
        max_grant_lifetime: Lifetimes::default(),
        diff: default_diff(),
        capabilities: std::collections::BTreeMap::new(),
        max_exception_lifetime: crate::exception::DEFAULT_MAX_EXCEPTION_LIFETIME,
        exceptions: crate::exception::ExceptionPolicy {
            not_exceptionable: crate::exception::default_not_exceptionable(),
            exceptionable_blocks: Vec::new(),
        },
        desk: crate::policy::DeskPolicy::default(),
        routing: crate::policy::routing::Routing::default(),
        reviewer: None,
        compiled: Default::default(),
        version: String::new(),
    }
}

pub(crate) const SENSITIVE: &[&str] = &[
    "~/.ssh",
    "~/.ssh/**",
    "**/.ssh/**",
    "~/.aws/**",
    "~/.config/gcloud/**",
    "~/.azure/**",
    "~/.kube/config",
    "~/.gnupg/**",
    "~/.netrc",
    "~/.git-credentials",
    "~/.docker/config.json",
    "~/.npmrc",
    "~/.pypirc",
    "~/.cargo/credentials",
    "~/.cargo/credentials.toml",
    "~/.config/gh/hosts.yml",
    "~/.password-store/**",
    "~/Library/Keychains/**",
    "~/.local/share/keyrings/**",
    // Browser profiles: cookies, saved logins and the keys that decrypt them (Chrome,
    // Chromium, Edge, Brave, Vivaldi, Opera, Firefox, Thunderbird; Linux, snap and flatpak,
    // macOS, Windows).
    "~/.config/google-chrome*/**",
    "~/.config/chromium/**",
    "~/.config/microsoft-edge*/**",
    "~/.config/BraveSoftware/**",
    "~/.config/vivaldi*/**",
    "~/.config/opera*/**",
    "~/.mozilla/**",
    "~/.thunderbird/**",
    "~/snap/*/common/.mozilla/**",
    "~/snap/chromium/common/chromium/**",
    "~/.var/app/*/.mozilla/**",
    "~/.var/app/*/config/google-chrome*/**",
    "~/.var/app/*/config/chromium/**",
    "~/.var/app/*/config/BraveSoftware/**",
    "~/.var/app/*/config/microsoft-edge*/**",
    "~/Library/Application Support/Google/Chrome*/**",
    "~/Library/Application Support/Chromium/**",
    "~/Library/Application Support/Microsoft Edge*/**",
    "~/Library/Application Support/BraveSoftware/**",
    "~/Library/Application Support/Vivaldi/**",
    "~/Library/Application Support/Firefox/**",
    "~/Library/Cookies/**",
    "~/Library/Safari/**",
    "~/Library/Containers/com.apple.Safari/**",
    "~/AppData/Local/Google/Chrome*/User Data/**",
    "~/AppData/Local/Chromium/User Data/**",
    "~/AppData/Local/Microsoft/Edge*/User Data/**",
    "~/AppData/Local/BraveSoftware/**",
    "~/AppData/Roaming/Mozilla/**",
    "~/AppData/Roaming/Opera Software/**",
    // Windows' own credential stores (Credential Manager, DPAPI master keys) and Gpg4win.
    "~/AppData/Roaming/Microsoft/Credentials/**",
    "~/AppData/Local/Microsoft/Credentials/**",
    "~/AppData/Roaming/Microsoft/Protect/**",
    "~/AppData/Roaming/gnupg/**",
    // GPG private keys wherever the key directory is; desktop keyrings and wallets; the
    // system keychain; password stores and their databases.
    "**/private-keys-v1.d/**",
    "**/secring.gpg",
    "~/.local/share/kwalletd/**",
    "~/.kde/share/apps/kwallet/**",
    "~/.kde4/share/apps/kwallet/**",
    "/Library/Keychains/**",
    "~/.local/share/gopass/**",
    "~/.config/Bitwarden CLI/**",
    "**/*.kdbx",
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/sudoers",
    "**/.env",
    "**/.env.*",
    "**/*.env",
    "**/.envrc",
    "**/*.pem",
    "**/*.key",
    "**/id_rsa*",
    "**/id_dsa*",
    "**/id_ecdsa*",
    "**/id_ed25519*",
    "**/authorized_keys",
    "**/*.p12",
    "**/*.pfx",
    "**/*.jks",
    "**/*.keystore",
    "**/*.keychain",
    "**/*.keychain-db",
    "**/.htpasswd",
    "**/credentials.json",
    "**/service-account*.json",
];

pub(crate) const NOT_SENSITIVE: &[&str] = &[
    "**/.env.example",
    "**/.env.sample",
    "**/.env.template",
    "**/.env.dist",
    "**/*.pub",
];

const CI: &[&str] = &[
    ".github/workflows/**",
    ".github/actions/**",
    ".gitlab-ci.yml",
    ".gitlab-ci/**",
    ".circleci/**",
    "Jenkinsfile",
    "azure-pipelines.yml",
    ".buildkite/**",
    ".travis.yml",
    "bitbucket-pipelines.yml",
    ".drone.yml",
];

/// Security configuration besides the security tooling, whose files are all security
/// configuration too.
const SECURITY: &[&str] = &[".git/hooks/**", ".git/config", ".gitattributes"];

fn security_paths() -> Vec<String> {
    let mut out = crate::policy::security_tooling::globs();
    out.extend(strings(SECURITY));
    out
}

const DEPENDENCY: &[&str] = &[
    "**/Cargo.toml",
    "**/Cargo.lock",
    "**/rust-toolchain",
    "**/rust-toolchain.toml",
    "**/build.rs",
    "**/package.json",
    "**/package-lock.json",
    "**/npm-shrinkwrap.json",
    "**/pnpm-lock.yaml",
    "**/pnpm-workspace.yaml",
    "**/yarn.lock",
    "**/.npmrc",
    "**/go.mod",
    "**/go.sum",
    "**/pom.xml",
    "**/build.gradle",
    "**/build.gradle.kts",
    "**/settings.gradle",
    "**/settings.gradle.kts",
    "**/gradle-wrapper.properties",
    "**/requirements*.txt",
    "**/pyproject.toml",
    "**/setup.py",
    "**/setup.cfg",
    "**/poetry.lock",
    "**/uv.lock",
    "**/Pipfile",
    "**/Pipfile.lock",
    "**/Gemfile",
    "**/Gemfile.lock",
    "**/composer.json",
    "**/composer.lock",
    "**/Makefile",
    "**/justfile",
];

const NETWORK: &[&str] = &[
    "web-search",
    "docs.rs",
    "doc.rust-lang.org",
    "developer.mozilla.org",
    "docs.python.org",
    "pkg.go.dev",
];

/// `[diff]`'s defaults: wider than 20 files or 500 changed lines is reviewed.
pub(crate) fn default_diff() -> crate::policy::DiffPolicy {
    crate::policy::DiffPolicy {
        max_files: 20,
        max_lines: 500,
        review_paths: Vec::new(),
        test_paths: strings(TESTS),
        lock_paths: strings(LOCKS),
    }
}

const TESTS: &[&str] = &[
    "**/tests/**",
    "**/test/**",
    "**/__tests__/**",
    "**/spec/**",
    "**/src/test/**",
    "**/*_test.*",
    "**/*_tests.*",
    "**/test_*.py",
    "**/*.test.*",
    "**/*.spec.*",
    "**/*_spec.rb",
    "**/*Test.java",
    "**/*Tests.java",
    "**/*Test.kt",
    "**/conftest.py",
];

const LOCKS: &[&str] = &[
    "**/*.lock",
    "**/*.lockfile",
    "**/package-lock.json",
    "**/npm-shrinkwrap.json",
    "**/pnpm-lock.yaml",
    "**/bun.lockb",
    "**/go.sum",
    "**/packages.lock.json",
];

impl Default for crate::policy::DiffPolicy {
    fn default() -> Self {
        default_diff()
    }
}
