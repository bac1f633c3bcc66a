//! Assent protects itself: its own files (tokens, database, settings, logs, policy), the
//! agents' hook configuration, its approver routes and its admin commands are blocked — never
//! offered for approval — however the agent spells the attempt. One named row per vector.

use crate::common::*;
use assent_core::{Action, ActionKind, ActionRequest, Decision, Environment, Evaluation};

const FILES: &str = "block.assent_files";
const HOOKS: &str = "block.hook_config";
const ROUTE: &str = "block.assent_route";
const ADMIN: &str = "block.assent_admin";

/// `name`, the request, the rule that must block it, and what the reason must name.
type Row = (&'static str, ActionRequest, &'static str, &'static str);

fn shell_in(line: &str, cwd: &str) -> ActionRequest {
    let mut r = shell(line);
    r.action.cwd = cwd.to_owned();
    r
}

fn fetch(url: &str) -> ActionRequest {
    request(Action {
        network: vec![url.to_owned()],
        tool: Some("WebFetch".to_owned()),
        ..action(ActionKind::Network)
    })
}

fn check_blocked(rows: Vec<Row>, env: &Environment) {
    for (name, request, rule, names) in rows {
        let e: Evaluation = eval_in(env, &request);
        let d = &e.decision;
        assert_eq!(
            d.decision,
            Decision::Block,
            "[{name}] Assent's own files, hooks, routes and admin commands are blocked, never asked (got rule {}, reasons {:?})",
            d.rule,
            d.reasons
        );
        assert_eq!(
            d.rule, rule,
            "[{name}] the self-protection rule fires (reasons {:?})",
            d.reasons
        );
        assert!(
            d.offered_scopes.is_empty(),
            "[{name}] a block is never offered for approval"
        );
        assert!(
            d.reasons.iter().any(|r| r.contains(names)),
            "[{name}] the reason names what is protected ({names:?}): {:?}",
            d.reasons
        );
    }
}

const DATA: &str = "Assent's own credentials and database";

#[test]
fn assent_files_are_blocked_however_they_are_reached() {
    let rows: Vec<Row> = vec![
        ("Read of the approver token", file(ActionKind::FileRead, "/home/dev/.local/share/assent/approver.token"), FILES, DATA),
        ("Read with ~", file(ActionKind::FileRead, "~/.local/share/assent/approver.token"), FILES, "~/.local/share/assent/approver.token"),
        ("Grep over the data dir", file(ActionKind::FileRead, "/home/dev/.local/share/assent"), FILES, DATA),
        ("cat the requester token", shell("cat ~/.local/share/assent/requester.token"), FILES, DATA),
        ("glob on the token files", shell("cat ~/.local/share/assent/*.token"), FILES, DATA),
        ("glob on the whole dir", shell("cat ~/.local/share/assent/*"), FILES, DATA),
        ("glob in a directory part", shell("cat ~/.local/share/as*/approver.token"), FILES, DATA),
        ("relative climb from a subdir", shell_in("cat ../../.local/share/assent/*.token", "/home/dev/shop/sub"), FILES, DATA),
        ("input redirection", shell("cat < ~/.local/share/assent/requester.token"), FILES, DATA),
        ("cd into the data dir", shell("cd ~/.local/share/assent && cat approver.token"), FILES, DATA),
        ("copied out", shell("cp ~/.local/share/assent/approver.token /tmp/t"), FILES, DATA),
        ("moved away", shell("mv ~/.local/share/assent/assent.db /tmp/"), FILES, DATA),
        ("deleted", shell("rm -f ~/.local/share/assent/approver.token"), FILES, DATA),
        ("parent dir deleted", shell("rm -rf ~/.local/share"), FILES, "deletes ~/.local/share, which holds Assent's own credentials"),
        ("written over", shell("echo x > ~/.local/share/assent/approver.token"), FILES, DATA),
        ("sqlite3 on the database", shell("sqlite3 ~/.local/share/assent/assent.db 'select * from grants'"), FILES, DATA),
        ("tar of the data dir", shell("tar czf /tmp/x.tgz ~/.local/share/assent"), FILES, DATA),
        ("base64 through xargs", shell("echo ~/.local/share/assent/approver.token | xargs base64"), FILES, DATA),
        ("a variable holding the path", shell("T=~/.local/share/assent/approver.token; cat \"$T\""), FILES, DATA),
        ("behind sudo", shell("sudo cat /home/dev/.local/share/assent/approver.token"), FILES, DATA),
        ("inside bash -c", shell("bash -c 'head -c 64 ~/.local/share/assent/approver.token'"), FILES, DATA),
        ("python one-liner", shell(r#"python3 -c "print(open('/home/dev/.local/share/assent/approver.token').read())""#), FILES, "inline code names Assent's own credentials"),
        ("python with Path.home", shell(r#"python3 -c "import pathlib; print((pathlib.Path.home() / '.local/share/assent').iterdir())""#), FILES, "inline code"),
        ("node one-liner", shell(r#"node -e "console.log(require('fs').readFileSync(require('os').homedir() + '/.local/share/assent/requester.token', 'utf8'))""#), FILES, "inline code"),
        ("ruby path joined from parts", shell(r#"ruby -e 'puts File.read(File.join(Dir.home, ".local", "share", "assent", "x"))'"#), FILES, "inline code"),
        ("perl -ne over the token", shell("perl -ne print ~/.local/share/assent/approver.token"), FILES, DATA),
        ("python here-document", shell("python3 - <<'EOF'\nprint(open('/home/dev/.local/share/assent/approver.token').read())\nEOF"), FILES, "inline code"),
        ("a token after pushd", shell("pushd ~/.local/share >/dev/null; cat assent/approver.token"), FILES, DATA),
        ("a link to the parent dir", shell("ln -s ~/.local/share s && cat s/assent/approver.token"), FILES, "links to ~/.local/share, which holds Assent's own credentials"),
        ("a token in a data dir nobody named", file(ActionKind::FileRead, "/var/lib/other-assent/approver.token"), FILES, DATA),
        ("desktop settings edited", file(ActionKind::FileWrite, "/home/dev/.config/assent/desktop.json"), FILES, "Assent's own settings"),
        ("desktop log read", shell("tail -n 50 ~/.local/state/assent/desktop.log"), FILES, "Assent's own logs"),
    ];
    check_blocked(rows, &env());
}

#[test]
fn the_places_the_service_really_uses_are_protected_too() {
    let env = Environment::new(HOME)
        .with_data_dir("/srv/assent-data")
        .with_policy_file("/etc/assent/policy.toml")
        .with_audit_key("/etc/assent/keys/audit-key")
        .with_agent_config_dir("/opt/codex-home");
    let rows: Vec<Row> = vec![
        (
            "custom data dir",
            shell("cat /srv/assent-data/approver.token"),
            FILES,
            DATA,
        ),
        (
            "custom data dir in python",
            shell(r#"python3 -c "open('/srv/assent-data/assent.db').read()""#),
            FILES,
            "inline code",
        ),
        (
            "policy file read",
            file(ActionKind::FileRead, "/etc/assent/policy.toml"),
            FILES,
            "the policy Assent runs with",
        ),
        (
            "policy file edited",
            shell("sed -i 's/block/allow/' /etc/assent/policy.toml"),
            FILES,
            "the policy Assent runs with",
        ),
        (
            "the --audit-key file read",
            file(ActionKind::FileRead, "/etc/assent/keys/audit-key"),
            FILES,
            "the key that signs Assent's audit",
        ),
        (
            "the --audit-key file overwritten",
            shell("echo 00 > /etc/assent/keys/audit-key"),
            FILES,
            "the key that signs Assent's audit",
        ),
        (
            "the --audit-key file copied away",
            shell("cp /etc/assent/keys/audit-key /tmp/k"),
            FILES,
            "the key that signs Assent's audit",
        ),
        (
            "the --audit-key file replaced by an agent's own",
            file(ActionKind::FileWrite, "/etc/assent/keys/audit-key"),
            FILES,
            "the key that signs Assent's audit",
        ),
        (
            "default data dir still",
            file(
                ActionKind::FileRead,
                "/home/dev/.local/share/assent/approver.token",
            ),
            FILES,
            DATA,
        ),
        (
            "an agent config dir the caller named",
            file(ActionKind::FileWrite, "/opt/codex-home/config.toml"),
            HOOKS,
            "/opt/codex-home/config.toml",
        ),
    ];
    check_blocked(rows, &env);
}

const HOOK: &str = "hook configuration that keeps Assent in the loop";

#[test]
fn hook_configuration_is_never_changed() {
    let rows: Vec<Row> = vec![
        ("Edit of ~/.claude/settings.json", file(ActionKind::FileWrite, "/home/dev/.claude/settings.json"), HOOKS, "~/.claude/settings.json"),
        ("Write of the repo's settings.local.json", file(ActionKind::FileWrite, "/home/dev/shop/.claude/settings.local.json"), HOOKS, ".claude/settings.local.json"),
        ("Write of .codex/config.toml", file(ActionKind::FileWrite, "/home/dev/shop/.codex/config.toml"), HOOKS, HOOK),
        ("Write of ~/.codex/hooks.json", file(ActionKind::FileWrite, "/home/dev/.codex/hooks.json"), HOOKS, HOOK),
        ("delete of the settings", file(ActionKind::FileDelete, "/home/dev/.claude/settings.json"), HOOKS, HOOK),
        ("redirection over it", shell("echo '{}' > ~/.claude/settings.json"), HOOKS, HOOK),
        ("appending to it", shell("printf '{}' >> .claude/settings.local.json"), HOOKS, HOOK),
        ("tee", shell("echo '{}' | tee .claude/settings.json"), HOOKS, HOOK),
        ("copied over", shell("cp /tmp/evil.json .claude/settings.json"), HOOKS, HOOK),
        ("moved away", shell("mv ~/.codex/config.toml /tmp/"), HOOKS, HOOK),
        ("rewritten through jq and mv", shell("jq 'del(.hooks)' .claude/settings.json > /tmp/s && mv /tmp/s .claude/settings.json"), HOOKS, HOOK),
        ("sed -i", shell("sed -i 's/assent/true/' .claude/settings.json"), HOOKS, HOOK),
        ("symlinked over", shell("ln -sf /tmp/evil.json .claude/settings.json"), HOOKS, HOOK),
        ("glob delete", shell("rm .claude/*.json"), HOOKS, HOOK),
        ("the directory deleted", shell("rm -rf .claude"), HOOKS, HOOK),
        ("the directory moved", shell("mv ~/.claude ~/.claude.off"), HOOKS, HOOK),
        ("python one-liner", shell(r#"python3 -c "import json,os; p=os.path.expanduser('~/.claude/settings.json'); json.dump({}, open(p, 'w'))""#), HOOKS, "named in inline code"),
        ("unknown program", shell("sponge ~/.codex/hooks.json"), HOOKS, HOOK),
    ];
    check_blocked(rows, &env());
}

/// The other agents `assent install` wires in (Gemini CLI, Cursor, Copilot CLI, opencode): an
/// agent that rewrites its own hook file leaves Assent's gate, so each is blocked like Claude
/// Code's settings, by edit, shell redirection, deletion and move.
#[test]
fn other_agents_hook_configuration_is_never_changed() {
    let rows: Vec<Row> = vec![
        (
            "Edit of ~/.gemini/settings.json",
            file(ActionKind::FileWrite, "/home/dev/.gemini/settings.json"),
            HOOKS,
            HOOK,
        ),
        (
            "the repo's .gemini/settings.json overwritten",
            shell("echo '{}' > .gemini/settings.json"),
            HOOKS,
            HOOK,
        ),
        (
            "Write of .cursor/hooks.json",
            file(ActionKind::FileWrite, "/home/dev/shop/.cursor/hooks.json"),
            HOOKS,
            HOOK,
        ),
        (
            "~/.cursor/hooks.json deleted",
            shell("rm ~/.cursor/hooks.json"),
            HOOKS,
            HOOK,
        ),
        (
            "a Copilot hook file in .github/hooks",
            file(
                ActionKind::FileWrite,
                "/home/dev/shop/.github/hooks/assent.json",
            ),
            HOOKS,
            HOOK,
        ),
        (
            "Copilot's home hooks emptied",
            shell("rm -rf ~/.copilot/hooks"),
            HOOKS,
            HOOK,
        ),
        (
            "Copilot's repo settings rewritten",
            shell("sed -i 's/assent/true/' .github/copilot/settings.json"),
            HOOKS,
            HOOK,
        ),
        (
            "opencode's project plugin replaced",
            file(
                ActionKind::FileWrite,
                "/home/dev/shop/.opencode/plugin/assent.js",
            ),
            HOOKS,
            HOOK,
        ),
        (
            "opencode's user plugin moved away",
            shell("mv ~/.config/opencode/plugin/assent.js /tmp/"),
            HOOKS,
            HOOK,
        ),
    ];
    check_blocked(rows, &env());
}

const ROUTES: &str = "Assent's approver route";

#[test]
fn approver_routes_are_never_called() {
    let rows: Vec<Row> = vec![
        (
            "WebFetch of the decision route",
            fetch("http://127.0.0.1:7391/v1/approvals/ap-1/decision"),
            ROUTE,
            "/v1/approvals/{id}/decision",
        ),
        (
            "curl approves",
            shell(
                r#"curl -X POST http://127.0.0.1:7391/v1/approvals/ap-1/decision -d '{"decision":"approve"}'"#,
            ),
            ROUTE,
            ROUTES,
        ),
        (
            "curl on localhost, another port",
            shell("curl -X POST localhost:9999/v1/grants/g-1/revoke"),
            ROUTE,
            "/v1/grants/{id}/revoke",
        ),
        (
            "wget resumes a run",
            shell("wget --post-data '' http://localhost:7391/v1/runs/r-1/resume"),
            ROUTE,
            "resumes a paused run",
        ),
        (
            "httpie shorthand",
            shell("http POST :7391/v1/people name=x"),
            ROUTE,
            "/v1/people",
        ),
        (
            "xh lists agents",
            shell("xh http://[::1]:7391/v1/agents"),
            ROUTE,
            "/v1/agents",
        ),
        (
            "a remote desk's decision route",
            shell("curl -X POST https://assent.corp.example/v1/approvals/a/decision"),
            ROUTE,
            ROUTES,
        ),
        (
            "python urllib",
            shell(
                r#"python3 -c "import urllib.request as u; u.urlopen('http://127.0.0.1:7391/v1/approvals/ap-1/decision', data=b'{}')""#,
            ),
            ROUTE,
            ROUTES,
        ),
        (
            "printf into nc",
            shell(
                "printf 'POST /v1/approvals/a/decision HTTP/1.1\\r\\n\\r\\n' | nc 127.0.0.1 7391",
            ),
            ROUTE,
            ROUTES,
        ),
    ];
    check_blocked(rows, &env());
}

const ADMINS: &str = "Assent's admin commands are for a person";

#[test]
fn admin_commands_are_never_run() {
    let rows: Vec<Row> = vec![
        (
            "assent people add",
            shell("assent people add alice --role security_reviewer"),
            ADMIN,
            "`assent people` manages who may approve",
        ),
        (
            "assent agents list",
            shell("assent agents list"),
            ADMIN,
            "`assent agents`",
        ),
        (
            "assent uninstall",
            shell("assent uninstall claude-code"),
            ADMIN,
            "removes the hooks",
        ),
        (
            "full path to the binary",
            shell("/usr/local/bin/assent people list"),
            ADMIN,
            ADMINS,
        ),
        (
            "home-installed binary",
            shell("~/.cargo/bin/assent agents rotate default"),
            ADMIN,
            ADMINS,
        ),
        (
            "behind sudo",
            shell("sudo assent people remove bob"),
            ADMIN,
            ADMINS,
        ),
        (
            "behind env",
            shell("env ASSENT_URL=http://127.0.0.1:7391 assent agents list"),
            ADMIN,
            ADMINS,
        ),
        (
            "inside bash -c",
            shell("bash -c 'assent uninstall claude-code'"),
            ADMIN,
            ADMINS,
        ),
        (
            "cargo run in Assent's repo",
            shell("cargo run -p assent-cli -- people add x"),
            ADMIN,
            ADMINS,
        ),
        (
            "python subprocess",
            shell(
                r#"python3 -c "import subprocess; subprocess.run(['assent', 'people', 'add', 'x'])""#,
            ),
            ADMIN,
            "inline code runs `assent people`",
        ),
    ];
    check_blocked(rows, &env());
}

/// Things near the protected ones that must keep today's answer, so the rules cannot be
/// "block everything".
#[test]
fn neighbours_are_not_blocked() {
    let rows: Vec<(&str, ActionRequest, &str, &str)> = vec![
        (
            "Read of the user's Claude settings",
            file(ActionKind::FileRead, "/home/dev/.claude/settings.json"),
            "ask.outside_repo",
            "reading hook configuration stays a read outside the repo",
        ),
        (
            "Read of the repo's Claude settings",
            file(ActionKind::FileRead, "/home/dev/shop/.claude/settings.json"),
            "auto.read",
            "reading hook configuration in the repo stays a repo read",
        ),
        (
            "cat the repo's Claude settings",
            shell("cat .claude/settings.json"),
            "auto.read",
            "a reader of hook configuration changes nothing",
        ),
        (
            "jq over the repo's settings",
            shell("jq .hooks .claude/settings.json"),
            "auto.read",
            "jq reads",
        ),
        (
            "Edit of a Claude agent file",
            file(
                ActionKind::FileWrite,
                "/home/dev/shop/.claude/agents/reviewer.md",
            ),
            "auto.edit",
            "only settings files hold hooks",
        ),
        (
            "Edit of a source file",
            file(ActionKind::FileWrite, "/home/dev/shop/src/main.rs"),
            "auto.edit",
            "editing source stays auto",
        ),
        (
            "git status",
            shell("git status"),
            "auto.read",
            "reading git stays auto",
        ),
        (
            "search Assent's source for a token name",
            shell("rg -n approver.token crates"),
            "auto.read",
            "a search pattern is not a path",
        ),
        (
            "a file merely called settings.json",
            file(ActionKind::FileWrite, "/home/dev/shop/config/settings.json"),
            "auto.edit",
            "only .claude/.codex settings hold hooks",
        ),
        (
            "listing above the data dir",
            shell("ls ~/.local/share"),
            "ask.outside_repo",
            "an ancestor is only protected from deletion",
        ),
        (
            "a sibling dir",
            shell("cat ~/.local/share/assentive/notes"),
            "ask.outside_repo",
            "a name that merely starts like assent is not Assent's",
        ),
        (
            "healthz",
            shell("curl http://127.0.0.1:7391/healthz"),
            "ask.network",
            "other routes keep today's answer",
        ),
        (
            "submitting an action",
            shell("curl -X POST http://127.0.0.1:7391/v1/actions -d @req.json"),
            "ask.network",
            "the requester's own route is not an approver route",
        ),
        (
            "another API's people route",
            shell("curl https://api.example.com/v1/people"),
            "ask.network",
            "only Assent's hosts count for generic route names",
        ),
        (
            "assent request",
            shell("assent request --kind shell -- make deploy"),
            "ask.unknown",
            "the requester's commands are not admin commands",
        ),
        (
            "python without a mention",
            shell("python3 -c 'print(1)'"),
            "ask.interpreter",
            "inline code stays asked",
        ),
    ];
    for (name, request, rule, why) in rows {
        let d = eval_default(&request).decision;
        assert_eq!(d.rule, rule, "[{name}] {why} (reasons {:?})", d.reasons);
        assert_ne!(d.decision, Decision::Block, "[{name}] {why}");
    }
}
