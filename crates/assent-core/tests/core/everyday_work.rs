//! Everyday work that was asked (issue 41, section 2): version and help queries of any tool,
//! dry runs, unstaging and `xargs` with a harmless command are auto. The spellings beside
//! them that run something (a repository's wrapper, a container, a script handed `--help`)
//! stay asked.

use crate::common::scenario::*;
use crate::common::*;
use assent_core::{Decision, Policy};

use Decision::Auto;

#[test]
fn version_and_help_queries_are_auto() {
    let read = |name, line: &str, why| row(name, shell(line), Auto, "auto.read", why);
    check(
        vec![
            read("cargo --version", "cargo --version", "prints a version"),
            read("node -v", "node -v", "node's short version flag, alone"),
            read("npm -v", "npm -v", "npm's"),
            read("cargo -V", "cargo -V", "cargo's is a capital V"),
            read("rustc -vV", "rustc -vV", "rustc's verbose version"),
            read(
                "java -version",
                "java -version",
                "java's one-dash long flag",
            ),
            read(
                "yarn -v",
                "yarn -v",
                "yarn alone installs; -v prints its version",
            ),
            read(
                "kubectl version --client",
                "kubectl version --client",
                "the client's version, no cluster asked",
            ),
            read(
                "helm version",
                "helm version",
                "helm's version command stays local",
            ),
            read(
                "xargs --version",
                "xargs --version",
                "xargs without a command runs nothing but echo",
            ),
            read(
                "rustc --version",
                "rustc --version",
                "any program found by name",
            ),
            read(
                "docker --version",
                "docker --version",
                "docker is otherwise asked",
            ),
            read(
                "kubectl --help",
                "kubectl --help",
                "a cluster CLI's help touches no cluster",
            ),
            read("terraform --help", "terraform --help", "help plans nothing"),
            read(
                "vault --version",
                "vault --version",
                "a secret manager's version reads no secret",
            ),
            read("jq --help", "jq --help", "help of a reader"),
            read(
                "by a system path",
                "/usr/bin/python3 --version",
                "a system path is the program itself",
            ),
            read(
                "under a wrapper",
                "timeout 5 node --version",
                "a wrapper runs the same query",
            ),
            read(
                "cargo build --help",
                "cargo build --help",
                "a built-in subcommand's help",
            ),
            read("cargo help test", "cargo help test", "the help command"),
            read("go help build", "go help build", "go's help command"),
            read(
                "kubectl get pods --help",
                "kubectl get pods --help",
                "cobra answers --help before running",
            ),
            read(
                "gh pr create --help",
                "gh pr create --help",
                "the same for gh",
            ),
            read(
                "npm install --help",
                "npm install --help",
                "npm's help for a command",
            ),
            read(
                "docker run --help",
                "docker run --help",
                "one subcommand word",
            ),
            read(
                "git commit --help",
                "git commit --help",
                "git turns it into git help commit",
            ),
            read("git rebase -h", "git rebase -h", "-h alone prints usage"),
        ],
        &Policy::default(),
    );
}

#[test]
fn dry_runs_unstaging_and_xargs_with_a_harmless_command_are_auto() {
    check(
        vec![
            row(
                "git clean -n",
                shell("git clean -n"),
                Auto,
                "auto.read",
                "a dry run deletes nothing",
            ),
            row(
                "git reset HEAD path",
                shell("git reset HEAD src/lib.rs"),
                Auto,
                "auto.git_local",
                "unstaging keeps the working tree",
            ),
            row(
                "git restore --staged",
                shell("git restore --staged src/lib.rs"),
                Auto,
                "auto.git_local",
                "the same with restore",
            ),
            row(
                "xargs wc",
                shell("find . -name '*.rs' | xargs wc -l"),
                Auto,
                "auto.read",
                "xargs hands file names to a reader",
            ),
            row(
                "xargs -0 grep",
                shell("git ls-files -z | xargs -0 grep -n TODO"),
                Auto,
                "auto.read",
                "with options of its own",
            ),
            row(
                "xargs -n1 echo",
                shell("echo a b | xargs -n1 echo"),
                Auto,
                "auto.read",
                "echo prints",
            ),
            row(
                "xargs cat",
                shell("ls *.txt | xargs cat"),
                Auto,
                "auto.read",
                "cat of files in the repository",
            ),
        ],
        &Policy::default(),
    );
}

#[test]
fn what_runs_something_beside_them_stays_asked() {
    let not_auto = [
        (
            "kubectl version",
            "without --client it asks the cluster, with the user's credentials",
        ),
        ("node -v app.js", "-v beside a script: the script runs"),
        (
            "npm version patch",
            "bumps, commits and tags: no version query",
        ),
        (
            "./gradlew --version",
            "a repository's wrapper downloads and runs a distribution first",
        ),
        (
            "docker run alpine --help",
            "--help goes to the container, which runs",
        ),
        (
            "cargo deploy --help",
            "a repository's alias may make any name `run`",
        ),
        (
            "yarn build --help",
            "yarn runs the build script with --help",
        ),
        ("npx cowsay --help", "npx downloads and runs the package"),
        (
            "bash deploy.sh --help",
            "the script runs with --help as its argument",
        ),
        (
            "find . -name '*.tmp' | xargs rm",
            "xargs hands names to rm: a delete",
        ),
        ("git clean -f", "not a dry run"),
        ("uv run pytest --help", "uv runs the program with --help"),
    ];
    for (line, why) in not_auto {
        let e = eval_default(&shell(line));
        assert_ne!(
            e.decision.decision, Auto,
            "[{line}] {why} (rule {}, {:?})",
            e.decision.rule, e.decision.reasons
        );
    }
}
