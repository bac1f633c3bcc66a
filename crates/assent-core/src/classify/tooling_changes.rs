//! Where an action touches security tooling (see [`crate::policy::security_tooling`]): its
//! files written or deleted, and the commands that skip, remove or reconfigure it.

use crate::classify::ctx::Ctx;
use crate::classify::git::split_git;
use crate::classify::simple_command::Cmd;
use crate::classify::verdict::{Access, Facts, Verdict};
use crate::policy::security_tooling::{
    scanner_named, turned_off, Tooling, ASK_RULE, CHANGE_RULE, OFF_RULE,
};
use crate::types::{PathRisk, RiskLevel, Role};

/// The verdict on writing or deleting `rel` (relative to the repository root) when it
/// configures security tooling: a block when the change turns it off, else a security
/// reviewer is asked.
pub(crate) fn path(rel: &str, access: Access, ctx: &Ctx<'_>, facts: &mut Facts) -> Option<Verdict> {
    if access == Access::Read {
        return None;
    }
    let Some(class) = ctx.policy.tooling(rel) else {
        return scanner_dropped_from_ci(rel, ctx, facts);
    };
    // Creating the `.github` directory changes nothing; deleting it removes what it holds.
    if class == Tooling::GitHubConfig && access != Access::Delete {
        return None;
    }
    facts.path(PathRisk::Security);
    let off = match access {
        Access::Delete => Some((class, format!("deletes {rel}"))),
        _ => ctx.edit.and_then(|edit| turned_off(class, rel, edit)),
    };
    Some(match off {
        Some((tool, how)) => disables(tool, &how),
        None => Verdict::ask(
            ASK_RULE,
            RiskLevel::High,
            format!(
                "changes {}: {rel} (security tooling is never auto)",
                class.config()
            ),
        )
        .role(Role::SecurityReviewer),
    })
}

/// A CI file whose edit drops a scanner step (`uses: gitleaks/gitleaks-action`); other CI
/// edits are left to the CI rule.
fn scanner_dropped_from_ci(rel: &str, ctx: &Ctx<'_>, facts: &mut Facts) -> Option<Verdict> {
    let edit = ctx.edit?;
    if !ctx.policy.compiled.ci.is_match(rel) {
        return None;
    }
    let (tool, how) = crate::policy::security_tooling::scanner_dropped_from_ci(rel, edit)?;
    facts.path(PathRisk::Ci);
    Some(disables(tool, &how))
}

fn disables(tool: Tooling, how: &str) -> Verdict {
    Verdict::block(OFF_RULE, format!("disables {}: {how}", tool.guard()))
}

/// Verdicts on a command that skips, removes or reconfigures security tooling.
pub(crate) fn command(cmd: &Cmd<'_>) -> Vec<Verdict> {
    match cmd.program {
        "git" => git(cmd),
        "pre-commit" | "pre_commit"
            if cmd.positionals().next().is_some_and(|a| a == "uninstall") =>
        {
            vec![disables(
                Tooling::CommitHooks,
                "`pre-commit uninstall` removes the hook",
            )]
        }
        "gh" => gh(cmd.args),
        "export" | "declare" | "typeset" => cmd.args.iter().filter_map(|a| assignment(a)).collect(),
        _ => Vec::new(),
    }
}

/// `SKIP=gitleaks` and `PRE_COMMIT_ALLOW_NO_CONFIG=1` before a command.
pub(crate) fn assignment(assignment: &str) -> Option<Verdict> {
    let (name, value) = assignment.split_once('=')?;
    match name {
        "SKIP" => scanner_named(value).map(|(scanner, tool)| {
            disables(tool, &format!("`SKIP={value}` skips the {scanner} hook"))
        }),
        "PRE_COMMIT_ALLOW_NO_CONFIG" if !value.is_empty() => Some(disables(
            Tooling::CommitHooks,
            "`PRE_COMMIT_ALLOW_NO_CONFIG` lets commits through without the pre-commit configuration",
        )),
        _ => None,
    }
}

/// `git commit --no-verify`, `git config core.hooksPath /dev/null`, `git -c core.hooksPath=`.
fn git(cmd: &Cmd<'_>) -> Vec<Verdict> {
    let line = split_git(cmd.args);
    let mut out: Vec<Verdict> = line
        .settings
        .iter()
        .filter_map(|s| s.split_once('='))
        .filter_map(|(key, value)| hooks_path_off(key, value))
        .collect();
    let sub = Cmd {
        program: line.sub,
        args: line.rest,
        ..*cmd
    };
    let skips = match line.sub {
        "commit" => sub.has_short('n', "--no-verify"),
        "merge" | "am" | "rebase" | "cherry-pick" | "revert" | "push" => {
            sub.has_flag(&["--no-verify"])
        }
        _ => false,
    };
    if skips {
        out.push(disables(
            Tooling::CommitHooks,
            &format!("`git {} --no-verify` skips them", line.sub),
        ));
    }
    if line.sub == "config" {
        let words: Vec<&str> = sub.positionals().map(String::as_str).collect();
        let key = words
            .iter()
            .position(|w| w.eq_ignore_ascii_case("core.hooksPath"));
        let value = key.and_then(|i| words.get(i + 1));
        out.extend(value.and_then(|v| hooks_path_off("core.hooksPath", v)));
    }
    out
}

/// Hooks pointed at nothing: `core.hooksPath` set to `/dev/null`, another device or empty.
fn hooks_path_off(key: &str, value: &str) -> Option<Verdict> {
    let nowhere = value.is_empty() || value.starts_with("/dev/");
    (key.eq_ignore_ascii_case("core.hooksPath") && nowhere).then(|| {
        let shown = if value.is_empty() { "nothing" } else { value };
        disables(
            Tooling::CommitHooks,
            &format!("points core.hooksPath at {shown}"),
        )
    })
}

/// `gh api` on branch protection, rulesets and scanning settings; `gh repo edit
/// --enable-secret-scanning=false`.
fn gh(args: &[String]) -> Vec<Verdict> {
    let Some((group, rest)) = args.split_first() else {
        return Vec::new();
    };
    match group.as_str() {
        "api" => gh_api(&ApiCall::parse(rest)).into_iter().collect(),
        "repo" if rest.first().is_some_and(|a| a == "edit") => rest
            .iter()
            .filter_map(|flag| {
                let name = flag.strip_prefix("--enable-")?.strip_suffix("=false")?;
                let tool = guarded_by(name)?;
                Some(disables(tool, &format!("`gh repo edit {flag}`")))
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// One `gh api` call: its method, endpoint and fields.
struct ApiCall<'a> {
    method: String,
    endpoint: &'a str,
    fields: Vec<&'a str>,
}

impl<'a> ApiCall<'a> {
    fn parse(args: &'a [String]) -> Self {
        let mut method: Option<String> = None;
        let mut endpoint = "";
        let mut fields = Vec::new();
        let mut has_body = false;
        let mut words = args.iter().map(String::as_str);
        while let Some(word) = words.next() {
            match word {
                "-X" | "--method" => method = words.next().map(str::to_ascii_uppercase),
                "-f" | "-F" | "--field" | "--raw-field" => fields.extend(words.next()),
                "--input" => {
                    has_body = true;
                    words.next();
                }
                "-H" | "--header" | "-q" | "--jq" | "-t" | "--template" | "--hostname"
                | "--cache" | "-p" | "--preview" => {
                    words.next();
                }
                w if w.starts_with('-') => {
                    if let Some(m) = w.strip_prefix("--method=").or_else(|| w.strip_prefix("-X")) {
                        method = Some(m.to_ascii_uppercase());
                    }
                    let field = ["--field=", "--raw-field=", "-f", "-F"]
                        .iter()
                        .find_map(|p| w.strip_prefix(p));
                    fields.extend(field.filter(|f| !f.is_empty()));
                }
                w if endpoint.is_empty() => endpoint = w,
                _ => {}
            }
        }
        has_body |= !fields.is_empty();
        let method = method.unwrap_or_else(|| if has_body { "POST" } else { "GET" }.to_owned());
        ApiCall {
            method,
            endpoint,
            fields,
        }
    }
}

fn gh_api(call: &ApiCall<'_>) -> Option<Verdict> {
    let tool = endpoint_tooling(call.endpoint);
    if let Some((field, tool)) = call
        .fields
        .iter()
        .find_map(|f| field_off(f, tool).map(|t| (f, t)))
    {
        return Some(disables(tool, &format!("`gh api` sets {field}")));
    }
    let tool = tool?;
    match call.method.as_str() {
        "GET" | "HEAD" => None,
        "DELETE" => Some(disables(
            tool,
            &format!("`gh api -X DELETE {}`", call.endpoint),
        )),
        method => Some(Verdict::escalate(
            CHANGE_RULE,
            Role::SecurityReviewer,
            format!(
                "changes {} through the GitHub API: {method} {}",
                tool.config(),
                call.endpoint
            ),
        )),
    }
}

/// The tooling a GitHub API endpoint configures.
fn endpoint_tooling(endpoint: &str) -> Option<Tooling> {
    let e = endpoint.to_ascii_lowercase();
    if e.contains("/protection") || e.contains("/rulesets") {
        Some(Tooling::BranchProtection)
    } else {
        guarded_by(&e)
    }
}

/// The tooling a setting's or endpoint's name points at (`secret_scanning`, `code-scanning`).
fn guarded_by(name: &str) -> Option<Tooling> {
    let n = name.to_ascii_lowercase().replace('-', "_");
    if n.contains("secret_scanning") {
        Some(Tooling::SecretScanning)
    } else if n.contains("code_scanning") || n.contains("advanced_security") {
        Some(Tooling::CodeScanning)
    } else if n.contains("vulnerability")
        || n.contains("dependabot")
        || n.contains("security_fixes")
    {
        Some(Tooling::DependencyAlerts)
    } else {
        None
    }
}

/// A field that switches tooling off: `security_and_analysis[secret_scanning][status]=disabled`,
/// `state=not-configured` on a code-scanning endpoint.
fn field_off(field: &str, endpoint: Option<Tooling>) -> Option<Tooling> {
    let (key, value) = field.split_once('=')?;
    let value = value
        .trim_matches(|c| c == '"' || c == '\'')
        .to_ascii_lowercase();
    match value.as_str() {
        "disabled" | "not-configured" | "not_configured" => guarded_by(key).or(endpoint),
        "false" => guarded_by(key),
        _ => None,
    }
}
