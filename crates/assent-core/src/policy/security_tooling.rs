//! Security tooling: secret and code scanning, dependency alerts, branch protection, code
//! owners, the security policy and the pre-commit hooks.
//!
//! Changing its configuration is never auto (a security reviewer is asked). Turning it off
//! is a block, however it is spelled: deleting or emptying the file, an edit that removes
//! or comments out a scanner or sets it disabled (judged from the edit's text,
//! [`crate::request::EditText`]), skipping the hooks (`git commit --no-verify`,
//! `SKIP=gitleaks`, `core.hooksPath=/dev/null`, `pre-commit uninstall`), or deleting branch
//! protection through the GitHub API. The file classes live in one table, [`TOOLING`]; the
//! policy's default `security_paths` are generated from it.

use crate::request::EditText;

pub(crate) const ASK_RULE: &str = "ask.security_tooling";
pub(crate) const OFF_RULE: &str = "block.security_tooling_off";
pub(crate) const CHANGE_RULE: &str = "escalate.security_tooling";

/// What a piece of security tooling guards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tooling {
    SecretScanning,
    CodeScanning,
    /// A CI workflow that runs a code scanner (`.github/workflows/codeql.yml`).
    ScanningWorkflow,
    DependencyAlerts,
    BranchProtection,
    CodeOwners,
    SecurityPolicy,
    CommitHooks,
    /// The `.github` directory as a whole: code owners, scanning, rulesets.
    GitHubConfig,
}

impl Tooling {
    /// What its configuration is called.
    pub fn config(self) -> &'static str {
        match self {
            Tooling::SecretScanning => "secret-scanning configuration",
            Tooling::CodeScanning => "code-scanning configuration",
            Tooling::ScanningWorkflow => "a code-scanning workflow",
            Tooling::DependencyAlerts => "dependency-alert configuration",
            Tooling::BranchProtection => "branch protection",
            Tooling::CodeOwners => "code owners",
            Tooling::SecurityPolicy => "the security policy",
            Tooling::CommitHooks => "the pre-commit hooks",
            Tooling::GitHubConfig => "GitHub's repository configuration",
        }
    }

    /// What turning it off stops.
    pub fn guard(self) -> &'static str {
        match self {
            Tooling::SecretScanning => "secret scanning",
            Tooling::CodeScanning | Tooling::ScanningWorkflow => "code scanning",
            Tooling::DependencyAlerts => "dependency security alerts and updates",
            Tooling::BranchProtection => "branch protection",
            Tooling::CodeOwners => "code-owner review",
            Tooling::SecurityPolicy => "the security policy",
            Tooling::CommitHooks => "the pre-commit hooks (secret scanning among them)",
            Tooling::GitHubConfig => "code owners, scanning and rulesets",
        }
    }

    /// Whether its files list tools and protections by name (hooks, workflow steps,
    /// settings), so that an edit leaving fewer entries naming one removes it. A tool's own
    /// configuration names itself throughout (`sonar.exclusions=…`): editing it is tuning.
    fn lists_tools(self) -> bool {
        matches!(
            self,
            Tooling::CommitHooks | Tooling::ScanningWorkflow | Tooling::BranchProtection
        )
    }
}

/// Security tooling configuration by class: globs relative to the repository root.
pub(crate) const TOOLING: &[(&str, Tooling)] = &[
    ("**/.gitleaks*", Tooling::SecretScanning),
    ("**/.secrets.baseline", Tooling::SecretScanning),
    ("**/.trufflehog*", Tooling::SecretScanning),
    ("**/.talismanrc", Tooling::SecretScanning),
    (".github/secret_scanning.yml", Tooling::SecretScanning),
    (".github/secret-scanning*", Tooling::SecretScanning),
    (".github/codeql", Tooling::CodeScanning),
    (".github/codeql/**", Tooling::CodeScanning),
    (".github/workflows/codeql*", Tooling::ScanningWorkflow),
    ("**/.semgrep*", Tooling::CodeScanning),
    ("**/.semgrep/**", Tooling::CodeScanning),
    ("**/.snyk", Tooling::CodeScanning),
    ("**/sonar-project.properties", Tooling::CodeScanning),
    (".github/dependabot.yml", Tooling::DependencyAlerts),
    (".github/dependabot.yaml", Tooling::DependencyAlerts),
    (".github/settings.yml", Tooling::BranchProtection),
    (".github/rulesets", Tooling::BranchProtection),
    (".github/rulesets/**", Tooling::BranchProtection),
    ("**/CODEOWNERS", Tooling::CodeOwners),
    ("SECURITY.md", Tooling::SecurityPolicy),
    (".github/SECURITY.md", Tooling::SecurityPolicy),
    ("docs/SECURITY.md", Tooling::SecurityPolicy),
    (".pre-commit-config.yaml", Tooling::CommitHooks),
    (".pre-commit-config.yml", Tooling::CommitHooks),
    (".git/hooks/pre-commit", Tooling::CommitHooks),
    (".git/hooks/pre-push", Tooling::CommitHooks),
    (".github", Tooling::GitHubConfig),
];

/// [`TOOLING`]'s globs, in its order.
pub(crate) fn globs() -> Vec<String> {
    TOOLING.iter().map(|(glob, _)| (*glob).to_owned()).collect()
}

/// Names of scanners, and branch protection's settings, as configuration spells them (a
/// pre-commit hook id, a workflow's action, a settings key): an edit that leaves fewer
/// active lines naming one turns it off.
const NAMES: &[(&str, Tooling)] = &[
    ("gitleaks", Tooling::SecretScanning),
    ("detect-secrets", Tooling::SecretScanning),
    ("trufflehog", Tooling::SecretScanning),
    ("ggshield", Tooling::SecretScanning),
    ("git-secrets", Tooling::SecretScanning),
    ("talisman", Tooling::SecretScanning),
    ("secret_scanning", Tooling::SecretScanning),
    ("secret-scanning", Tooling::SecretScanning),
    ("codeql", Tooling::CodeScanning),
    ("semgrep", Tooling::CodeScanning),
    ("snyk", Tooling::CodeScanning),
    ("sonar", Tooling::CodeScanning),
    ("advanced_security", Tooling::CodeScanning),
    ("vulnerability", Tooling::DependencyAlerts),
    ("dependabot", Tooling::DependencyAlerts),
    ("required_pull_request_reviews", Tooling::BranchProtection),
    ("required_status_checks", Tooling::BranchProtection),
    ("enforce_admins", Tooling::BranchProtection),
    ("protection", Tooling::BranchProtection),
];

/// Whether an edit of `rel` (a `class` file) turns its tooling off: what it turns off, and how.
pub(crate) fn turned_off(class: Tooling, rel: &str, edit: &EditText) -> Option<(Tooling, String)> {
    let style = Style::of(rel);
    if let Some(how) = emptied(edit, style) {
        return Some((class, format!("{how} {rel}")));
    }
    // Ownership rules and the policy's prose change often; only removing them all is off.
    if matches!(class, Tooling::CodeOwners | Tooling::SecurityPolicy) {
        return None;
    }
    let named = |name: &str| {
        if class == Tooling::CommitHooks {
            format!("the {name} hook")
        } else {
            format!("`{name}`")
        }
    };
    if class.lists_tools() {
        if let Some((tool, how)) = scanner_dropped(rel, edit, NAMES, named) {
            return Some((tool, how));
        }
    }
    switched_off(edit, style)
        .map(|(setting, tool)| (tool.unwrap_or(class), format!("sets `{setting}` in {rel}")))
}

/// A whole-file write that leaves nothing active: how to say so.
fn emptied(edit: &EditText, style: Style) -> Option<&'static str> {
    if edit.old.is_some() || edit.truncated || edit.new.lines().any(|l| style.active(l)) {
        return None;
    }
    Some(if edit.new.trim().is_empty() {
        "empties"
    } else {
        "leaves nothing active in"
    })
}

/// An edit of `rel` that drops an entry naming one of `names` (removes it, or comments it
/// out): what that turns off, and how, the entry shown by `named`.
fn scanner_dropped(
    rel: &str,
    edit: &EditText,
    names: &[(&'static str, Tooling)],
    named: impl Fn(&str) -> String,
) -> Option<(Tooling, String)> {
    let style = Style::of(rel);
    if let Some((name, tool)) = removed_name(edit, style, names) {
        let how = if commented_out(&edit.new, name, style) {
            format!("comments out {} in {rel}", named(name))
        } else {
            format!("removes {} from {rel}", named(name))
        };
        return Some((tool, how));
    }
    commented_name(edit, style, names)
        .map(|(name, tool)| (tool, format!("comments out {} in {rel}", named(name))))
}

/// Whether an edit of a CI file (`rel`) drops a secret or code scanner from it.
pub(crate) fn scanner_dropped_from_ci(rel: &str, edit: &EditText) -> Option<(Tooling, String)> {
    let scanners: Vec<(&'static str, Tooling)> = NAMES
        .iter()
        .filter(|(_, tool)| matches!(tool, Tooling::SecretScanning | Tooling::CodeScanning))
        .copied()
        .collect();
    scanner_dropped(rel, edit, &scanners, |name| format!("`{name}`"))
}

/// A name fewer active lines carry after the edit than before (a removed or commented-out
/// hook), unless another name of the same kind gained lines (one scanner swapped for
/// another); only an edit whose old text is known and whole can tell.
fn removed_name(
    edit: &EditText,
    style: Style,
    names: &[(&'static str, Tooling)],
) -> Option<(&'static str, Tooling)> {
    let old = edit.old.as_deref().filter(|_| !edit.truncated)?;
    let naming = |text: &str, name: &str| {
        text.lines()
            .filter(|l| style.active(l) && l.to_ascii_lowercase().contains(name))
            .count()
    };
    let gained = |tool: Tooling| {
        names
            .iter()
            .any(|(name, t)| *t == tool && naming(&edit.new, name) > naming(old, name))
    };
    names
        .iter()
        .find(|(name, tool)| naming(old, name) > naming(&edit.new, name) && !gained(*tool))
        .copied()
}

/// A whole-file write with an entry naming a scanner commented out (`# - id: gitleaks`).
fn commented_name(
    edit: &EditText,
    style: Style,
    names: &[(&'static str, Tooling)],
) -> Option<(&'static str, Tooling)> {
    if edit.old.is_some() {
        return None;
    }
    names
        .iter()
        .find(|(name, _)| {
            edit.new
                .lines()
                .any(|l| commented_out_entry(l, name, style))
        })
        .copied()
}

/// An added setting that switches something off, and what its keys name: the line's own or
/// those it is nested under (`secret_scanning:` above `status: disabled`).
fn switched_off(edit: &EditText, style: Style) -> Option<(String, Option<Tooling>)> {
    let old: Vec<&str> = edit
        .old
        .as_deref()
        .map(|o| o.lines().map(str::trim).collect())
        .unwrap_or_default();
    let lines: Vec<&str> = edit.new.lines().collect();
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| style.active(l) && !old.contains(&l.trim()))
        .find_map(|(i, l)| off_setting(l).map(|setting| (setting, named_around(&lines, i))))
}

/// The first name in line `i` or, nearest first, the lines it is nested under by indentation.
fn named_around(lines: &[&str], i: usize) -> Option<Tooling> {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let line = lines.get(i)?;
    let mut context = vec![*line];
    let mut depth = indent(line);
    for l in lines.iter().take(i).rev() {
        if !l.trim().is_empty() && indent(l) < depth {
            context.push(l);
            depth = indent(l);
        }
    }
    context.iter().find_map(|l| {
        let lower = l.to_ascii_lowercase();
        NAMES
            .iter()
            .find(|(name, _)| lower.contains(name))
            .map(|(_, tool)| *tool)
    })
}

/// How a file writes comments, and which lines do nothing.
#[derive(Debug, Clone, Copy)]
enum Style {
    /// YAML, TOML, properties, CODEOWNERS, ignore files: `#`.
    Hash,
    /// Markdown: every non-blank line counts.
    Prose,
    /// An installed hook script: `#` too, and `exit 0`, `true` and `:` do nothing.
    HookScript,
}

impl Style {
    fn of(rel: &str) -> Style {
        if rel.ends_with(".md") {
            Style::Prose
        } else if rel.starts_with(".git/hooks/") {
            Style::HookScript
        } else {
            Style::Hash
        }
    }

    /// A line that configures something.
    fn active(self, line: &str) -> bool {
        let t = line.trim();
        match self {
            Style::Prose => !t.is_empty(),
            Style::Hash => !t.is_empty() && !is_comment(t),
            Style::HookScript => {
                !t.is_empty() && !is_comment(t) && !matches!(t, "exit 0" | "exit" | "true" | ":")
            }
        }
    }
}

fn is_comment(trimmed: &str) -> bool {
    trimmed.starts_with('#') || trimmed.starts_with("//")
}

fn commented_out(text: &str, name: &str, style: Style) -> bool {
    text.lines().any(|l| commented_out_entry(l, name, style))
}

/// A comment that is a configuration entry naming `name` (`# - id: gitleaks`), not prose.
fn commented_out_entry(line: &str, name: &str, style: Style) -> bool {
    if matches!(style, Style::Prose) {
        return false;
    }
    let t = line.trim();
    let Some(body) = t.strip_prefix('#').or_else(|| t.strip_prefix("//")) else {
        return false;
    };
    let body = body.trim_start_matches(['#', ' ', '\t']);
    let entry = body.starts_with("- ")
        || ["id:", "repo:", "uses:", "entry:", "run:"]
            .iter()
            .any(|k| body.starts_with(k));
    entry && body.to_ascii_lowercase().contains(name)
}

/// `enabled: false`, `disable-default-queries: true`, `status: disabled`,
/// `"enforcement": "disabled"`, `protection: null`: a setting that switches something off.
fn off_setting(line: &str) -> Option<String> {
    let t = line.trim().trim_start_matches("- ").trim_end_matches(',');
    let (key, value) = t.split_once([':', '='])?;
    let unquote = |s: &str| {
        s.trim()
            .trim_matches(|c| c == '"' || c == '\'')
            .to_ascii_lowercase()
    };
    let (k, v) = (unquote(key), unquote(value));
    let off = (k.contains("enable") && matches!(v.as_str(), "false" | "no" | "off" | "0"))
        || (k.contains("disable") && matches!(v.as_str(), "true" | "yes" | "on" | "1"))
        || matches!(v.as_str(), "disabled" | "not-configured" | "not_configured")
        || (k.contains("protection") && matches!(v.as_str(), "null" | "~" | "{}"));
    off.then(|| crate::text::first_chars(t, 80))
}

/// The scanner a hook-skipping value names (`SKIP=gitleaks,flake8` → gitleaks), and what it
/// guards.
pub(crate) fn scanner_named(value: &str) -> Option<(&'static str, Tooling)> {
    let lower = value.to_ascii_lowercase();
    NAMES
        .iter()
        .filter(|(_, tool)| matches!(tool, Tooling::SecretScanning | Tooling::CodeScanning))
        .find(|(name, _)| lower.contains(name))
        .copied()
}
