//! Secret managers judged by what each command does, not by the program's name: a status,
//! version, identity or listing prints no secret (auto); putting a secret in is a write with
//! the user's token (ask); deleting secrets or changing who may read them is escalated, as a
//! cloud change is; reading one stays blocked ([`crate::classify::credentials`]), here with
//! a reason that names the command.

use crate::classify::simple_command::{Cmd, CLOUD_ROLE};
use crate::classify::verdict::{Facts, Verdict};
use crate::types::{CommandRisk, CredentialRisk, RiskLevel};

/// The verdict on a secret manager's command, or `None` to leave it to the credential rules.
pub(crate) fn judged(cmd: &Cmd<'_>, facts: &mut Facts) -> Option<Verdict> {
    let words: Vec<&str> = cmd.positionals().map(String::as_str).collect();
    let said = |n: usize| {
        std::iter::once(cmd.program)
            .chain(words.iter().copied().take(n))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let judged = match cmd.program {
        "vault" => vault(cmd, &words),
        "op" => op(&words),
        "bw" => matches!(words.as_slice(), ["status"]).then_some(Does::Shows),
        // No options: `pass -c NAME` copies a password, `pass show -c` too.
        "pass" | "gopass" => (cmd.args.iter().all(|a| !a.starts_with('-'))
            && matches!(words.as_slice(), [] | ["ls" | "list" | "find", ..]))
        .then_some(Does::Lists),
        "lpass" => matches!(words.first(), Some(&("status" | "ls"))).then_some(Does::Lists),
        _ => None,
    }?;
    let what = match (words.is_empty(), cmd.args.first()) {
        // `vault -version`: the flag is what was asked.
        (true, Some(flag)) => format!("{} {flag}", cmd.program),
        _ => said(2.min(words.len())),
    };
    Some(match judged {
        Does::Shows => Verdict::auto(
            "auto.read",
            format!("`{what}` shows the secret manager's state or who is signed in, no secret"),
        ),
        Does::Lists => Verdict::auto(
            "auto.read",
            format!("`{what}` lists names (vaults, policies, methods, entries), no secret"),
        ),
        Does::Sends => {
            facts.credential(CredentialRisk::Readonly);
            facts.add_network("vault", false);
            Verdict::ask(
                "ask.credential",
                RiskLevel::High,
                format!(
                    "`{what}` with an address sends the user's Vault token to the server named"
                ),
            )
        }
        Does::Writes => {
            facts.command(CommandRisk::Mutation);
            facts.credential(CredentialRisk::Write);
            Verdict::ask(
                "ask.credential",
                RiskLevel::High,
                format!("`{what}` writes a secret into the secret manager with the user's token (it prints none)"),
            )
        }
        Does::Deletes => {
            facts.command(CommandRisk::Destructive);
            facts.credential(CredentialRisk::Write);
            Verdict::escalate(
                "escalate.cloud",
                CLOUD_ROLE,
                format!("`{what}` deletes secrets from the secret manager: whatever reads them stops working"),
            )
        }
        Does::Governs => {
            facts.command(CommandRisk::Mutation);
            facts.credential(CredentialRisk::Write);
            Verdict::escalate(
                "escalate.cloud",
                CLOUD_ROLE,
                format!("`{what}` changes the secret manager's configuration: who may read which secret"),
            )
        }
        Does::Prints => crate::classify::credentials::block(
            &format!("`{what}` prints a secret the secret manager holds"),
            facts,
        ),
        Does::Mints => crate::classify::credentials::block(
            &format!("`{what}` writes to Vault, and a write to a secrets engine can hand back what it mints (dynamic credentials, issued keys)"),
            facts,
        ),
    })
}

enum Does {
    /// Status, version, identity.
    Shows,
    /// Names only.
    Lists,
    /// A harmless query sent, with the token, to a server the line names.
    Sends,
    Writes,
    Deletes,
    /// Policies, auth methods, secret engines, audit devices.
    Governs,
    Prints,
    /// A write that may answer with a new secret.
    Mints,
}

/// HashiCorp Vault: `vault <command> [<sub>] [-flag[=value]…] [args]`.
fn vault(cmd: &Cmd<'_>, words: &[&str]) -> Option<Does> {
    // Vault sends its token with every request, a status query's too.
    let elsewhere = cmd.args.iter().any(|a| {
        let name = a.trim_start_matches('-');
        name.starts_with("address") || name.starts_with("agent-address")
    });
    let first = words.first().copied().unwrap_or_default();
    let second = words.get(1).copied().unwrap_or_default();
    // Vault's flags take one dash: `vault -version`, `vault -help`.
    if matches!(cmd.args, [only] if matches!(only.as_str(), "-version" | "-v" | "-help" | "-h")) {
        return Some(Does::Shows);
    }
    let read_only = match (first, second) {
        ("status" | "version", _) => Some(Does::Shows),
        ("list", _)
        | ("policy" | "auth" | "secrets" | "audit" | "namespace" | "plugin" | "kv", "list") => {
            Some(Does::Lists)
        }
        _ => None,
    };
    if let Some(does) = read_only {
        return Some(if elsewhere { Does::Sends } else { does });
    }
    Some(match (first, second) {
        ("kv", "put" | "patch" | "rollback" | "undelete") => Does::Writes,
        ("kv", "metadata") if matches!(words.get(2), Some(&("put" | "patch"))) => Does::Writes,
        ("kv", "delete" | "destroy") | ("delete", _) => Does::Deletes,
        ("kv", "metadata") if words.get(2) == Some(&"delete") => Does::Deletes,
        (
            "policy" | "auth" | "secrets" | "audit" | "namespace",
            "write" | "delete" | "enable" | "disable" | "tune" | "move" | "create",
        ) => Does::Governs,
        ("write", _) => Does::Mints,
        ("kv", "get")
        | ("read" | "login" | "unwrap", _)
        | ("token", "lookup" | "create")
        | ("print", "token") => Does::Prints,
        _ => return None,
    })
}

/// 1Password: `op <command> [<sub>] …`.
fn op(words: &[&str]) -> Option<Does> {
    let first = words.first().copied().unwrap_or_default();
    let second = words.get(1).copied().unwrap_or_default();
    Some(match (first, second) {
        ("whoami", _) => Does::Shows,
        ("vault" | "account" | "item" | "document" | "user" | "group", "list") => Does::Lists,
        ("item" | "document" | "vault", "create" | "edit") => Does::Writes,
        ("item" | "document" | "vault", "delete") => Does::Deletes,
        ("item" | "document", "get") | ("read" | "inject" | "signin", _) => Does::Prints,
        _ => return None,
    })
}
