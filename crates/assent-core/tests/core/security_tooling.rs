//! Security tooling (issue "Fatigue and judgment"): secret and code scanning, dependency
//! alerts, branch protection, code owners, the security policy and pre-commit hooks. Changing
//! it is never auto (a security reviewer is asked); turning it off is a block, judged by
//! class from what the action does (the edit's text, the command), not from example strings.

use crate::common::scenario::*;
use crate::common::*;
use assent_core::{ActionKind, ActionRequest, Decision, EditText, Policy, Role};

use Decision::{Ask, Auto, Block, Escalate};

/// A Claude Code Edit of `rel` in the repo: `old` replaced by `new`.
fn edit(rel: &str, old: &str, new: &str) -> ActionRequest {
    with_edit(rel, Some(old), new)
}

/// A Claude Code Write of `rel` in the repo with `content`.
fn write(rel: &str, content: &str) -> ActionRequest {
    with_edit(rel, None, content)
}

fn with_edit(rel: &str, old: Option<&str>, new: &str) -> ActionRequest {
    let mut r = file(ActionKind::FileWrite, &format!("{REPO}/{rel}"));
    r.context.edit = Some(EditText {
        old: old.map(str::to_owned),
        new: new.to_owned(),
        truncated: false,
    });
    r
}

fn reviewer(r: Row) -> Row {
    with_role(r, Role::SecurityReviewer)
}

const PRE_COMMIT: &str = "repos:
  - repo: https://github.com/gitleaks/gitleaks
    rev: v8.18.0
    hooks:
      - id: gitleaks
  - repo: https://github.com/psf/black
    rev: 24.1.0
    hooks:
      - id: black
";

#[test]
fn changing_security_tooling_is_never_auto() {
    let ask = |name, request, why| reviewer(row(name, request, Ask, "ask.security_tooling", why));
    check(
        vec![
            ask(
                "gitleaks rules written",
                write(".gitleaks.toml", "[extend]\nuseDefault = true\n"),
                "secret-scanning configuration changes go to a security reviewer",
            ),
            ask(
                "detect-secrets baseline",
                edit(".secrets.baseline", "\"results\": {}", "\"results\": {\"a.py\": []}"),
                "the detect-secrets baseline decides what is reported",
            ),
            ask(
                "trufflehog ignore",
                write("services/api/.trufflehogignore", "fixtures/\n"),
                "scanner files count anywhere in the repo",
            ),
            ask(
                "github secret scanning config",
                write(".github/secret_scanning.yml", "paths-ignore:\n  - docs/**\n"),
                "GitHub's secret-scanning exclusions",
            ),
            ask(
                "codeql config",
                edit(".github/codeql/codeql-config.yml", "queries:\n", "queries:\n  - uses: security-extended\n"),
                "code-scanning configuration",
            ),
            ask(
                "codeql workflow",
                edit(".github/workflows/codeql.yml", "github/codeql-action/init@v2", "github/codeql-action/init@v3"),
                "a CodeQL workflow is code scanning first: a security reviewer, not only a maintainer",
            ),
            ask(
                "semgrep rules",
                write(".semgrep.yml", "rules:\n  - id: no-eval\n"),
                "code-scanning rules",
            ),
            ask(
                "snyk policy",
                edit(".snyk", "ignore: {}", "ignore:\n  SNYK-JS-1: []"),
                "code-scanning ignores",
            ),
            ask(
                "sonar properties",
                edit("sonar-project.properties", "sonar.sources=src", "sonar.sources=src,lib"),
                "code-scanning configuration",
            ),
            ask(
                "an exclusion removed from sonar's own configuration",
                edit(
                    "sonar-project.properties",
                    "sonar.sources=src\nsonar.exclusions=legacy/**",
                    "sonar.sources=src",
                ),
                "a tool's own file names it on every line: removing one is tuning, asked",
            ),
            ask(
                "dependabot",
                edit(".github/dependabot.yml", "interval: daily", "interval: weekly"),
                "dependency alerts and updates",
            ),
            ask(
                "repository settings",
                edit(".github/settings.yml", "description: old", "description: new"),
                "settings.yml holds branch protection",
            ),
            ask(
                "a ruleset",
                write(".github/rulesets/main.json", "{\"enforcement\": \"active\"}"),
                "rulesets protect branches",
            ),
            ask(
                "root CODEOWNERS",
                edit("CODEOWNERS", "* @a", "* @a @b"),
                "code owners decide who must review",
            ),
            ask(
                ".github/CODEOWNERS",
                edit(".github/CODEOWNERS", "* @a", "* @b"),
                "GitHub reads .github/CODEOWNERS",
            ),
            ask(
                "docs/CODEOWNERS",
                edit("docs/CODEOWNERS", "* @a", "* @b"),
                "GitHub reads docs/CODEOWNERS",
            ),
            ask(
                "a nested CODEOWNERS",
                edit("services/api/CODEOWNERS", "* @a", "* @b"),
                "CODEOWNERS anywhere (GitLab and tools read nested ones)",
            ),
            ask(
                "removing one owner rule",
                edit("CODEOWNERS", "/src/ @a\n/docs/ @b", "/src/ @a"),
                "ownership rules change often; only removing them all is off",
            ),
            ask(
                "SECURITY.md",
                edit("SECURITY.md", "Report to a@x", "Report to b@x"),
                "the security policy",
            ),
            ask(
                "pre-commit rev bump",
                edit(".pre-commit-config.yaml", "rev: v8.18.0", "rev: v8.19.0"),
                "bumping the gitleaks version keeps the hook: asked, not blocked",
            ),
            ask(
                "pre-commit hook added",
                edit(".pre-commit-config.yaml", "      - id: black\n", "      - id: black\n      - id: ruff\n"),
                "adding a hook still changes the hooks",
            ),
            ask(
                "one secret scanner swapped for another",
                edit(
                    ".pre-commit-config.yaml",
                    "  - repo: https://github.com/Yelp/detect-secrets\n    hooks:\n      - id: detect-secrets",
                    "  - repo: https://github.com/gitleaks/gitleaks\n    hooks:\n      - id: gitleaks",
                ),
                "secret scanning stays on: the swap is asked, not blocked",
            ),
            ask(
                "a comment mentioning the scanner",
                edit(".pre-commit-config.yaml", "      - id: gitleaks", "      # gitleaks runs on every commit\n      - id: gitleaks"),
                "a prose comment next to the hook turns nothing off",
            ),
            ask(
                "installed pre-commit hook",
                write(".git/hooks/pre-commit", "#!/bin/sh\nexec pre-commit run\n"),
                "the installed hook runs the scanners",
            ),
            ask(
                "an edit sent without its text",
                file(ActionKind::FileWrite, &format!("{REPO}/.gitleaks.toml")),
                "without the edit's text the policy cannot tell it turns nothing off: asked",
            ),
            ask(
                "appending through the shell",
                shell("echo '[allowlist]' >> .gitleaks.toml"),
                "a shell write to tooling is a change like any other",
            ),
            ask(
                "git mv of the scanner's config",
                shell("git mv .gitleaks.toml .gitleaks.toml.bak"),
                "moving it away is a change of tooling, never auto",
            ),
            ask(
                "sed -i on the pre-commit config",
                shell("sed -i 's/v8.18.0/v8.19.0/' .pre-commit-config.yaml"),
                "the shell's edits are not read: never auto, and asked",
            ),
        ],
        &Policy::default(),
    );
    check(
        vec![reviewer(row(
            "branch protection replaced through the API",
            shell("gh api -X PUT repos/o/r/branches/main/protection --input p.json"),
            Escalate,
            "escalate.security_tooling",
            "changing branch protection is escalated to a security reviewer",
        ))],
        &Policy::default(),
    );
}

#[test]
fn turning_security_tooling_off_is_a_block() {
    let off = |name, request, why| row(name, request, Block, "block.security_tooling_off", why);
    check(
        vec![
            off("rm .gitleaks.toml", shell("rm .gitleaks.toml"), "deleting the scanner's configuration"),
            off("git rm baseline", shell("git rm -q .secrets.baseline"), "git rm deletes too"),
            off(
                "delete CODEOWNERS",
                file(ActionKind::FileDelete, &format!("{REPO}/.github/CODEOWNERS")),
                "a file_delete of code owners",
            ),
            off("rm -rf .github", shell("rm -rf .github"), "deleting .github removes code owners, scanning and rulesets"),
            off("delete the rulesets", shell("rm -r .github/rulesets"), "deleting the rulesets directory"),
            off("empty gitleaks", write(".gitleaks.toml", ""), "emptying the file"),
            off(
                "CODEOWNERS commented out",
                write("CODEOWNERS", "# * @security-team\n# /src/ @a\n"),
                "no rule left is no code-owner review",
            ),
            off(
                "installed hook that exits",
                write(".git/hooks/pre-commit", "#!/bin/sh\nexit 0\n"),
                "a hook that does nothing",
            ),
            off(
                "the bug report: gitleaks hook removed",
                edit(
                    ".pre-commit-config.yaml",
                    PRE_COMMIT,
                    "repos:\n  - repo: https://github.com/psf/black\n    rev: 24.1.0\n    hooks:\n      - id: black\n",
                ),
                "an edit that leaves fewer lines naming gitleaks removes the hook",
            ),
            off(
                "detect-secrets commented out",
                edit(
                    ".pre-commit-config.yaml",
                    "      - id: detect-secrets",
                    "      # - id: detect-secrets",
                ),
                "commenting out the hook",
            ),
            off(
                "a Write with the hook commented out",
                write(
                    ".pre-commit-config.yaml",
                    &PRE_COMMIT.replace("      - id: gitleaks", "      # - id: gitleaks"),
                ),
                "the whole file written with the hook entry commented out",
            ),
            off(
                "settings: secret scanning disabled",
                edit(
                    ".github/settings.yml",
                    "    secret_scanning:\n      status: enabled",
                    "    secret_scanning:\n      status: disabled",
                ),
                "`status: disabled`",
            ),
            off(
                "settings: branch protection dropped",
                edit(".github/settings.yml", "    protection:\n      enforce_admins: true", "    protection: null"),
                "removing branch protection's settings",
            ),
            off(
                "codeql: default queries disabled",
                edit(".github/codeql/codeql-config.yml", "name: cfg", "name: cfg\ndisable-default-queries: true"),
                "a disable switch set",
            ),
            off(
                "ruleset disabled",
                edit(".github/rulesets/main.json", "\"enforcement\": \"active\",", "\"enforcement\": \"disabled\","),
                "`\"enforcement\": \"disabled\"`",
            ),
            off(
                "codeql analyze step removed",
                edit(
                    ".github/workflows/codeql.yml",
                    "      - uses: github/codeql-action/init@v3\n      - uses: github/codeql-action/analyze@v3\n",
                    "      - uses: github/codeql-action/init@v3\n",
                ),
                "a workflow that no longer runs the analysis",
            ),
            off(
                "dependabot alerts off",
                edit(".github/settings.yml", "enable_vulnerability_alerts: true", "enable_vulnerability_alerts: false"),
                "an enable switch set false",
            ),
            off(
                "a scanner step removed from CI",
                edit(
                    ".github/workflows/ci.yml",
                    "      - run: make test\n      - uses: gitleaks/gitleaks-action@v2\n",
                    "      - run: make test\n",
                ),
                "any CI workflow that stops running a secret scanner turns it off",
            ),
            off("git commit --no-verify", shell("git commit --no-verify -m wip"), "skips the pre-commit hooks"),
            off("git commit -nm", shell("git commit -nm wip"), "-n is --no-verify for commit"),
            off("git push --no-verify", shell("git push --no-verify origin feature"), "skips the pre-push hooks"),
            off("SKIP=gitleaks", shell("SKIP=gitleaks git commit -m wip"), "pre-commit's SKIP names the scanner"),
            off("export SKIP", shell("export SKIP=flake8,detect-secrets && git commit -m x"), "SKIP exported first"),
            off(
                "env SKIP",
                shell("env SKIP=ggshield git commit -m x"),
                "SKIP through env",
            ),
            off(
                "PRE_COMMIT_ALLOW_NO_CONFIG",
                shell("PRE_COMMIT_ALLOW_NO_CONFIG=1 git commit -m x"),
                "commits pass without the configuration",
            ),
            off("hooksPath /dev/null", shell("git config core.hooksPath /dev/null"), "hooks pointed at nothing"),
            off(
                "git -c hooksPath",
                shell("git -c core.hooksPath=/dev/null commit -m x"),
                "the same for one command",
            ),
            off("pre-commit uninstall", shell("pre-commit uninstall"), "removes the installed hook"),
            off(
                "branch protection deleted through the API",
                shell("gh api -X DELETE repos/o/r/branches/main/protection"),
                "DELETE on branch protection",
            ),
            off(
                "a ruleset deleted through the API",
                shell("gh api --method=DELETE repos/o/r/rulesets/42"),
                "DELETE on a ruleset",
            ),
            off(
                "secret scanning off through the API",
                shell("gh api -X PATCH repos/o/r -f 'security_and_analysis[secret_scanning][status]=disabled'"),
                "a field that disables secret scanning",
            ),
            off(
                "gh repo edit",
                shell("gh repo edit --enable-secret-scanning=false"),
                "the CLI's switch for the same",
            ),
        ],
        &Policy::default(),
    );
}

#[test]
fn the_rest_is_judged_as_before() {
    check(
        vec![
            row(
                "read CODEOWNERS",
                file(ActionKind::FileRead, &format!("{REPO}/CODEOWNERS")),
                Auto,
                "auto.read",
                "reading security tooling is a read",
            ),
            row(
                "cat gitleaks",
                shell("cat .gitleaks.toml .pre-commit-config.yaml"),
                Auto,
                "auto.read",
                "reading is auto",
            ),
            row(
                "edit src",
                edit("src/lib.rs", "enabled: true", "enabled: false"),
                Auto,
                "auto.edit",
                "the same text in source is just source",
            ),
            row(
                "commit",
                shell("git commit -m 'bump gitleaks'"),
                Auto,
                "auto.git_local",
                "a commit that runs its hooks",
            ),
            row(
                "SKIP another hook",
                shell("SKIP=flake8 git commit -m x"),
                Auto,
                "auto.git_local",
                "skipping a linter is not turning off a scanner",
            ),
            row(
                "read protection",
                shell("gh api repos/o/r/branches/main/protection"),
                Ask,
                "ask.credential",
                "reading branch protection uses the token, as any gh api",
            ),
            row(
                "another hooks path",
                shell("git config core.hooksPath .githooks"),
                Ask,
                "ask.git_config",
                "a repo's own hooks dir is a config change, asked",
            ),
            row(
                "rm -rf target",
                shell("rm -rf target"),
                Ask,
                "ask.delete",
                "a build dir is no tooling",
            ),
            row(
                "git rm a doc",
                shell("git rm docs/old.md"),
                Ask,
                "ask.delete",
                "deleting a doc is asked",
            ),
            with_role(
                row(
                    "a workflow",
                    edit(".github/workflows/build.yml", "node: 18", "node: 20"),
                    Ask,
                    "ask.ci_config",
                    "CI that is not code scanning stays CI",
                ),
                Role::RepoMaintainer,
            ),
            with_role(
                row(
                    "git attributes",
                    edit(".gitattributes", "* text=auto", "* text=lf"),
                    Ask,
                    "ask.security_config",
                    "other security configuration keeps its rule",
                ),
                Role::SecurityReviewer,
            ),
        ],
        &Policy::default(),
    );
}

#[test]
fn a_block_says_what_it_turns_off_and_how() {
    let cases = [
        (
            edit(
                ".pre-commit-config.yaml",
                PRE_COMMIT,
                &PRE_COMMIT.replace(
                    "  - repo: https://github.com/gitleaks/gitleaks\n    rev: v8.18.0\n    hooks:\n      - id: gitleaks\n",
                    "",
                ),
            ),
            "disables secret scanning: removes the gitleaks hook from .pre-commit-config.yaml",
        ),
        (
            edit(
                ".pre-commit-config.yaml",
                "      - id: detect-secrets",
                "      # - id: detect-secrets",
            ),
            "disables secret scanning: comments out the detect-secrets hook in .pre-commit-config.yaml",
        ),
        (
            edit(
                ".github/settings.yml",
                "  secret_scanning:\n    status: enabled",
                "  secret_scanning:\n    status: disabled",
            ),
            "disables secret scanning: sets `status: disabled` in .github/settings.yml",
        ),
        (
            edit(
                ".github/settings.yml",
                "enable_vulnerability_alerts: true",
                "enable_vulnerability_alerts: false",
            ),
            "disables dependency security alerts and updates: sets `enable_vulnerability_alerts: false` in .github/settings.yml",
        ),
        (
            edit(
                ".github/workflows/codeql.yml",
                "      - uses: github/codeql-action/analyze@v3\n",
                "",
            ),
            "disables code scanning: removes `codeql` from .github/workflows/codeql.yml",
        ),
        (
            shell("rm .gitleaks.toml"),
            "disables secret scanning: deletes .gitleaks.toml",
        ),
        (
            shell("git commit --no-verify -m x"),
            "disables the pre-commit hooks (secret scanning among them): `git commit --no-verify` skips them",
        ),
    ];
    for (request, reason) in cases {
        let d = eval_default(&request).decision;
        assert_eq!(
            d.reasons.first().map(String::as_str),
            Some(reason),
            "the block names what is turned off and how the action does it"
        );
    }
}
