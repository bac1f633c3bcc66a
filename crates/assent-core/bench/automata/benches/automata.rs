//! Building and matching the automata the gate builds on every start: the secret-file glob set
//! (the default policy's sensitive paths) and the secret-masking needles, both kinds; and what
//! the gate does instead since 2026-12-04, with nothing to build: the `**/` secret-file patterns
//! matched as written (fast-glob) against repository paths, each needle searched alone (memmem).

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// The masking rules' needles (crates/assent-core/src/mask/mod.rs).
const NEEDLES: &[&str] = &[
    "://", "bearer", "basic", "token", "password", "passwd", "token", "secret", "key", "ghp_",
    "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "sk-", "xoxa-", "xoxb-", "xoxp-",
    "xoxr-", "xoxs-", "AKIA", "AIza", "npm_", "PRIVATE KEY-----",
];
/// The default policy's sensitive paths (crates/assent-core/src/policy/defaults.rs).
const GLOBS: &[&str] = &[
    "~/.ssh", "~/.ssh/**", "**/.ssh/**", "~/.aws/**", "~/.config/gcloud/**", "~/.azure/**",
    "~/.kube/config", "~/.gnupg/**", "~/.netrc", "~/.git-credentials", "~/.docker/config.json",
    "~/.npmrc", "~/.pypirc", "~/.cargo/credentials", "~/.cargo/credentials.toml",
    "~/.config/gh/hosts.yml", "~/.password-store/**", "~/Library/Keychains/**",
    "~/.local/share/keyrings/**", "/etc/shadow", "/etc/gshadow", "/etc/sudoers", "**/.env",
    "**/.env.*", "**/*.env", "**/.envrc", "**/*.pem", "**/*.key", "**/id_rsa*", "**/id_dsa*",
    "**/id_ecdsa*", "**/id_ed25519*", "**/authorized_keys", "**/*.p12", "**/*.pfx", "**/*.jks",
    "**/*.keystore", "**/*.keychain", "**/*.keychain-db", "**/.htpasswd", "**/credentials.json",
    "**/service-account*.json",
];
/// Texts a decision's evidence masks, and paths a policy matches.
const TEXTS: &[&str] = &[
    "git status",
    "/home/dev/project",
    "cargo test --workspace --locked",
    "`git status` only reads the repository",
    "mvn -B test -Dskip=false",
    "npm run build && npm test",
];
const PATHS: &[&str] = &[
    "/home/dev/project/src/lib.rs",
    "/home/dev/project/Cargo.toml",
    "/home/dev/.ssh/id_rsa",
    "/tmp/file.txt",
    "/home/dev/project/.env.local",
];

fn needles(kind: Option<AhoCorasickKind>) -> AhoCorasick {
    AhoCorasick::builder()
        .kind(kind)
        .ascii_case_insensitive(true)
        .build(NEEDLES)
        .expect("the needles build")
}

fn globs() -> GlobSet {
    let mut builder = GlobSetBuilder::new();
    for glob in GLOBS {
        builder.add(
            GlobBuilder::new(glob)
                .literal_separator(true)
                .backslash_escape(true)
                .build()
                .expect("the globs parse"),
        );
    }
    builder.build().expect("the glob set builds")
}

/// The `**/` patterns (`diff::is_secret_file`) and the exceptions among the policy's paths.
fn in_repository() -> Vec<&'static str> {
    GLOBS.iter().copied().filter(|g| g.starts_with("**/")).collect()
}
const EXCEPT: &[&str] = &["**/.env.example", "**/.env.sample", "**/.env.template", "**/.env.dist", "**/*.pub"];
/// Paths relative to a repository, as the gate asks about an edited file.
const REPO_PATHS: &[&str] = &["src/lib.rs", "Cargo.toml", "deploy/.env.production", "keys/id_rsa.pub", "README.md"];

fn glob_set(globs: &[&str]) -> GlobSet {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        builder.add(GlobBuilder::new(glob).literal_separator(true).backslash_escape(true).build().expect("the globs parse"));
    }
    builder.build().expect("the glob set builds")
}

fn bench(c: &mut Criterion) {
    let secret = in_repository();
    c.bench_function("secret files, glob sets: build + 5 repo paths", |b| {
        b.iter(|| {
            let (yes, no) = (glob_set(&secret), glob_set(EXCEPT));
            REPO_PATHS.iter().filter(|p| { let p = format!("/{p}"); yes.is_match(&p) && !no.is_match(&p) }).count()
        })
    });
    c.bench_function("secret files, fast-glob: 5 repo paths", |b| {
        b.iter(|| {
            REPO_PATHS.iter().filter(|p| {
                secret.iter().any(|g| fast_glob::glob_match(g, black_box(**p)))
                    && !EXCEPT.iter().any(|g| fast_glob::glob_match(g, **p))
            }).count()
        })
    });
    // The real search keeps a case-sensitive needle as it is and looks for it in the text
    // itself; one lowercased copy of each text, searched for every needle, costs the same.
    let lowered: Vec<String> = NEEDLES.iter().map(|n| n.to_ascii_lowercase()).collect();
    c.bench_function("needles one by one: 6 texts", |b| {
        b.iter(|| {
            TEXTS.iter().filter(|t| {
                let lower = black_box(**t).to_ascii_lowercase();
                lowered.iter().any(|n| memchr::memmem::find(lower.as_bytes(), n.as_bytes()).is_some())
            }).count()
        })
    });
    c.bench_function("glob set: build", |b| b.iter(globs));
    let set = globs();
    c.bench_function("glob set: match 5 paths", |b| {
        b.iter(|| PATHS.iter().filter(|p| set.is_match(black_box(**p))).count())
    });
    for (name, kind) in [
        ("needles, DFA", Some(AhoCorasickKind::DFA)),
        ("needles, contiguous NFA", Some(AhoCorasickKind::ContiguousNFA)),
    ] {
        c.bench_function(&format!("{name}: build"), |b| b.iter(|| needles(kind)));
        let automaton = needles(kind);
        c.bench_function(&format!("{name}: scan 6 texts"), |b| {
            b.iter(|| TEXTS.iter().filter(|t| automaton.is_match(black_box(**t))).count())
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
