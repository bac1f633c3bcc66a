//! The agent cannot reach the approver's credentials: every way a Claude Code tool call can
//! reach Assent itself — its files, the hook configuration that keeps it in the loop, its
//! approver routes, its admin commands — comes back from the real gate as a deny carrying
//! the block's reason, and never opens a prompt. The service runs as a user whose home is a
//! temporary directory, so the default data dir under that home is what is protected.

use std::path::{Path, PathBuf};

use crate::gate_support::*;
use assent_core::AuditDecision;
use serde_json::{json, Value};

/// One way in: its name, the Claude Code tool and input, and what the reason must name.
struct Vector {
    name: &'static str,
    tool: &'static str,
    input: Value,
    names: &'static str,
}

fn bash(name: &'static str, command: &str, names: &'static str) -> Vector {
    Vector {
        name,
        tool: "Bash",
        input: json!({ "command": command, "description": name }),
        names,
    }
}

fn on_file(name: &'static str, tool: &'static str, path: &Path, names: &'static str) -> Vector {
    let input = match tool {
        "Read" => json!({ "file_path": path }),
        "Write" => json!({ "file_path": path, "content": "{}" }),
        _ => json!({ "file_path": path, "old_string": "\"hooks\"", "new_string": "\"off\"" }),
    };
    Vector {
        name,
        tool,
        input,
        names,
    }
}

/// A home directory with a git repository in it: (keep-alive, home, repo).
fn home_with_repo() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let repo = home.join("src").join("shop");
    mark_repository(&repo);
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(repo.join("src/main.rs"), "fn main() {}\n").unwrap();
    (tmp, home, repo)
}

/// Runs every vector through the gate, each in its own session; every one must be denied by
/// the policy with its reason, and audited as blocked without an approval.
fn assert_all_blocked(service: &Service, repo: &Path, vectors: &[Vector]) {
    for (i, v) in vectors.iter().enumerate() {
        let session = format!("sess-self-{i}");
        let payload = payload(
            "PreToolUse",
            &session,
            &format!("toolu_self{i}"),
            v.tool,
            v.input.clone(),
            repo,
        );
        let ran = gate(&service.url, &service.requester, &["--wait", "5"], &payload);
        assert_eq!(ran.code, 0, "[{}] exit 0 with JSON: {}", v.name, ran.stderr);
        assert_eq!(
            ran.decision(),
            "deny",
            "[{}] an agent never reaches Assent itself: {}",
            v.name,
            ran.reason()
        );
        assert!(
            ran.reason().contains("blocked by policy"),
            "[{}] the agent learns it was the policy's block, not a person's denial: {}",
            v.name,
            ran.reason()
        );
        assert!(
            ran.reason().contains(v.names),
            "[{}] the reason names what is protected ({:?}): {}",
            v.name,
            v.names,
            ran.reason()
        );
        let audit = runtime()
            .block_on(service.approver_client().audit(None, Some(&session)))
            .unwrap();
        assert!(
            !audit.is_empty() && audit.iter().all(|e| e.decision == AuditDecision::Blocked),
            "[{}] the attempt is audited as blocked: {audit:?}",
            v.name
        );
        assert!(
            audit.iter().all(|e| e.approval_id.is_none()),
            "[{}] a block opens no approval: {audit:?}",
            v.name
        );
    }
    let pending = runtime()
        .block_on(service.approver_client().pending())
        .unwrap();
    assert!(
        pending.is_empty(),
        "blocks are never prompts, so nothing waits for a person: {pending:?}"
    );
}

const DATA: &str = "Assent's own credentials and database";
const HOOKS: &str = "hook configuration that keeps Assent in the loop";
const ROUTE: &str = "Assent's approver route";
const ADMIN: &str = "Assent's admin commands are for a person";

#[test]
fn every_way_into_assent_is_denied_without_a_prompt() {
    let (_tmp, home, repo) = home_with_repo();
    let service = Service::start_in_home(&home, None, None);
    let data = home.join(".local/share/assent");
    assert_eq!(
        service.data_dir, data,
        "without --data-dir the service keeps its tokens under the home"
    );
    assert!(
        data.join("approver.token").exists(),
        "the default data dir holds the approver token"
    );
    let token = data.join("approver.token");
    let token = token.display();
    let url = &service.url;
    let vectors = [
        bash(
            "cat the approver token",
            "cat ~/.local/share/assent/approver.token",
            DATA,
        ),
        bash(
            "copy a token out",
            "cp ~/.local/share/assent/requester.token /tmp/t",
            DATA,
        ),
        bash(
            "delete a token",
            "rm -f ~/.local/share/assent/approver.token",
            DATA,
        ),
        bash(
            "input redirection",
            "cat < ~/.local/share/assent/requester.token",
            DATA,
        ),
        bash(
            "glob from a relative path",
            "cat ../../.local/share/assent/*.token",
            DATA,
        ),
        bash("the whole dir", "cat ~/.local/share/assent/*", DATA),
        bash(
            "python one-liner",
            &format!(r#"python3 -c "print(open('{token}').read())""#),
            "inline code names Assent's own credentials",
        ),
        bash(
            "node one-liner",
            r#"node -e "console.log(require('fs').readFileSync(require('os').homedir() + '/.local/share/assent/approver.token', 'utf8'))""#,
            "inline code names Assent's own credentials",
        ),
        bash(
            "sqlite3 on the database",
            "sqlite3 ~/.local/share/assent/assent.db .dump",
            DATA,
        ),
        bash(
            "tar of the data dir",
            "tar czf /tmp/a.tgz ~/.local/share/assent",
            DATA,
        ),
        on_file(
            "Read of the approver token",
            "Read",
            &data.join("approver.token"),
            DATA,
        ),
        on_file(
            "Edit of ~/.claude/settings.json",
            "Edit",
            &home.join(".claude/settings.json"),
            HOOKS,
        ),
        on_file(
            "Write of the repo's .claude/settings.local.json",
            "Write",
            &repo.join(".claude/settings.local.json"),
            HOOKS,
        ),
        on_file(
            "Write of .codex/config.toml",
            "Write",
            &repo.join(".codex/config.toml"),
            HOOKS,
        ),
        on_file(
            "Write of ~/.codex/hooks.json",
            "Write",
            &home.join(".codex/hooks.json"),
            HOOKS,
        ),
        bash(
            "redirection over the settings",
            "echo '{}' > ~/.claude/settings.json",
            HOOKS,
        ),
        Vector {
            name: "WebFetch of the decision route",
            tool: "WebFetch",
            input: json!({ "url": format!("{url}/v1/approvals/ap-1/decision"), "prompt": "approve" }),
            names: "/v1/approvals/{id}/decision",
        },
        bash(
            "curl to the decision route",
            &format!(
                r#"curl -X POST {url}/v1/approvals/ap-1/decision -H 'Content-Type: application/json' -d '{{"decision":"deny","reason":"x"}}'"#
            ),
            ROUTE,
        ),
        bash(
            "curl revoking a grant",
            &format!("curl -X POST {url}/v1/grants/g-1/revoke"),
            ROUTE,
        ),
        bash("assent people add", "assent people add x", ADMIN),
        bash("assent agents list", "assent agents list", ADMIN),
        bash("assent uninstall", "assent uninstall claude-code", ADMIN),
    ];
    assert_all_blocked(&service, &repo, &vectors);
}

#[test]
fn a_custom_data_dir_and_the_policy_file_are_protected_and_the_default_still_is() {
    let (tmp, home, repo) = home_with_repo();
    let custom = tmp.path().join("elsewhere").join("assent-data");
    let service = Service::start_in_home(
        &home,
        Some(&custom),
        Some("approval_timeout_seconds = 900\n"),
    );
    assert!(
        custom.join("approver.token").exists(),
        "--data-dir holds the tokens"
    );
    let policy = service.policy_file();
    let vectors = [
        on_file(
            "Read of a token in --data-dir",
            "Read",
            &custom.join("approver.token"),
            DATA,
        ),
        bash(
            "cat of the --data-dir database",
            &format!("cat {}", custom.join("assent.db").display()),
            DATA,
        ),
        on_file(
            "Read of the --policy file",
            "Read",
            &policy,
            "the policy Assent runs with",
        ),
        on_file(
            "Edit of the --policy file",
            "Edit",
            &policy,
            "the policy Assent runs with",
        ),
        on_file(
            "Read in the default data dir",
            "Read",
            &home.join(".local/share/assent/approver.token"),
            DATA,
        ),
    ];
    assert_all_blocked(&service, &repo, &vectors);
}

/// Near misses keep today's answers, so the rules are not "block everything".
#[test]
fn neighbours_are_not_blocked() {
    let (_tmp, home, repo) = home_with_repo();
    let service = Service::start_in_home(&home, None, None);
    let allowed = [
        (
            "Read of a repository file",
            "Read",
            json!({ "file_path": repo.join("src/main.rs") }),
        ),
        (
            "git status",
            "Bash",
            json!({ "command": "git status", "description": "status" }),
        ),
        (
            "cat of the repo's Claude settings",
            "Bash",
            json!({ "command": "cat .claude/settings.json", "description": "read" }),
        ),
    ];
    for (i, (name, tool, input)) in allowed.into_iter().enumerate() {
        let p = payload(
            "PreToolUse",
            "sess-near",
            &format!("toolu_near{i}"),
            tool,
            input,
            &repo,
        );
        let ran = gate(&service.url, &service.requester, &[], &p);
        assert_eq!(
            ran.decision(),
            "allow",
            "[{name}] a plain read is not Assent's business: {}",
            ran.reason()
        );
    }
    let input =
        json!({ "command": format!("curl {}/healthz", service.url), "description": "health" });
    let p = payload(
        "PreToolUse",
        "sess-near",
        "toolu_near_h",
        "Bash",
        input,
        &repo,
    );
    let ran = gate(&service.url, &service.requester, &["--wait", "1"], &p);
    assert!(
        !ran.reason().contains("blocked by policy"),
        "curl to /healthz is not an approver route (asked as network, as before): {}",
        ran.reason()
    );
    assert_eq!(
        wait_pending(&service, 1).len(),
        1,
        "it was offered to a person, which a block never is"
    );
}
