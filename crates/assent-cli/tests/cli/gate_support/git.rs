//! Real git repositories made with the `git` binary, for the gates to read HEAD and diff in.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A repository in a temp dir with one commit (`src/lib.rs`) on `main`.
pub struct GitRepo {
    pub tmp: tempfile::TempDir,
    pub root: PathBuf,
}

/// Runs `git <args>` in `dir` with no user or system config; its trimmed stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=Test",
            "-c",
            "user.email=test@example.invalid",
        ])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap_or_else(|e| panic!("git must be installed to run these tests: {e}"));
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

impl GitRepo {
    /// `git init` with no commit.
    pub fn empty() -> GitRepo {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("shop");
        std::fs::create_dir_all(root.join("src")).unwrap();
        git(&root, &["init", "-q"]);
        GitRepo { tmp, root }
    }

    /// A repository whose first commit holds `src/lib.rs`.
    pub fn new() -> GitRepo {
        let repo = GitRepo::empty();
        repo.write("src/lib.rs", LIB_RS);
        repo.commit("first");
        repo
    }

    pub fn write(&self, rel: &str, text: &str) {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Adds everything and commits; the new HEAD.
    pub fn commit(&self, message: &str) -> String {
        git(&self.root, &["add", "-A"]);
        git(&self.root, &["commit", "-q", "-m", message]);
        self.head()
    }

    /// `git rev-parse HEAD` in `self.root`.
    pub fn head(&self) -> String {
        git(&self.root, &["rev-parse", "HEAD"])
    }

    /// Whether `diff` applies to the work tree as it is (`git apply --check`).
    pub fn applies(&self, diff: &str) -> Result<(), String> {
        let file = self.tmp.path().join("change.diff");
        std::fs::write(&file, diff).unwrap();
        let out = Command::new("git")
            .current_dir(&self.root)
            .args(["apply", "--check", "-v"])
            .arg(&file)
            .output()
            .unwrap();
        if out.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    }
}

pub const LIB_RS: &str = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\npub fn sub(a: i32, b: i32) -> i32 {\n    a - b\n}\n";
