//! Policy suggestions from what people decided: where they always say yes to a verifier in a
//! repository, trusting the repository saves the prompts; where they always say no to one
//! command, blocking it saves the question. Never proposes auto for what must be asked —
//! network beyond the baseline, credentials, publishing, CI/security paths, deletes — because
//! only verifier profiles (no network, no credentials, bounded mutation) can become auto, and
//! only through `trusted_repos`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::types::RiskLevel;

/// The fewest unanimous decisions that make a suggestion.
pub const MIN_DECISIONS: u32 = 3;

/// One settled prompt, as far as suggesting goes.
#[derive(Debug, Clone)]
pub struct SettledPrompt {
    pub rule: String,
    /// The command profile, when a verifier profile opened it.
    pub profile: Option<String>,
    pub repo: Option<String>,
    /// The command line, when it was a command.
    pub command: Option<String>,
    pub approved: bool,
    pub denied: bool,
    pub risk: RiskLevel,
}

/// A change to the policy file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "change", rename_all = "snake_case", deny_unknown_fields)]
pub enum PolicyChange {
    /// Add the repository to `trusted_repos`: its verifier profiles run without asking.
    TrustRepo { repo: String },
    /// Add the command to `block_patterns`.
    BlockCommand { pattern: String },
}

/// A proposed change with the evidence for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Suggestion {
    /// Stable for the same change: [`PolicyChange::id`].
    pub id: String,
    pub change: PolicyChange,
    /// One line a person reads, e.g. "`maven-test` in /src/shop approved 14 of 14 times".
    pub evidence: String,
    pub decisions: u32,
}

impl PolicyChange {
    /// A short stable name for this change (the same change always gets the same id).
    pub fn id(&self) -> String {
        let (key, value) = self.entry();
        let digest = Sha256::digest(format!("{key}\n{value}").as_bytes());
        hex::encode(digest.get(..8).unwrap_or_default())
    }
}

/// Suggestions from `prompts`, skipping what the policy already does (`trusted`, `blocked`).
pub fn suggest(
    prompts: &[SettledPrompt],
    trusted: &[String],
    blocked: &[String],
) -> Vec<Suggestion> {
    let mut verifiers: BTreeMap<(String, String), (u32, u32)> = BTreeMap::new();
    let mut commands: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    for p in prompts {
        if let (Some(profile), Some(repo)) = (&p.profile, &p.repo) {
            // Only a verifier's own rule, at low or medium risk, may lead to auto.
            if p.rule.starts_with("profile.") && p.risk <= RiskLevel::Medium {
                let entry = verifiers
                    .entry((repo.clone(), profile.clone()))
                    .or_default();
                entry.0 += u32::from(p.approved);
                entry.1 += u32::from(p.denied);
            }
        }
        if let Some(command) = p.command.as_ref().filter(|c| !c.trim().is_empty()) {
            let entry = commands.entry(command.trim().to_owned()).or_default();
            entry.0 += u32::from(p.approved);
            entry.1 += u32::from(p.denied);
        }
    }
    let mut out = Vec::new();
    let mut per_repo: BTreeMap<String, Vec<(String, u32)>> = BTreeMap::new();
    for ((repo, profile), (approved, denied)) in verifiers {
        if denied == 0 && approved >= MIN_DECISIONS && !trusted.contains(&repo) {
            per_repo.entry(repo).or_default().push((profile, approved));
        }
    }
    for (repo, profiles) in per_repo {
        let decisions = profiles.iter().map(|(_, n)| n).sum();
        let what: Vec<String> = profiles
            .iter()
            .map(|(profile, n)| format!("`{profile}` approved {n} of {n} times"))
            .collect();
        let evidence = format!(
            "{} in {repo} → auto in this trusted repo (verifier profiles only)",
            what.join(", ")
        );
        out.push(Suggestion::new(
            PolicyChange::TrustRepo { repo },
            evidence,
            decisions,
        ));
    }
    for (command, (approved, denied)) in commands {
        if approved == 0 && denied >= MIN_DECISIONS && !blocked.contains(&command) {
            let evidence = format!("`{command}` denied {denied} of {denied} times → block it");
            out.push(Suggestion::new(
                PolicyChange::BlockCommand { pattern: command },
                evidence,
                denied,
            ));
        }
    }
    out.sort_by_key(|s| std::cmp::Reverse(s.decisions));
    out
}

impl Suggestion {
    pub fn new(change: PolicyChange, evidence: String, decisions: u32) -> Suggestion {
        Suggestion {
            id: change.id(),
            change,
            evidence,
            decisions,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(rule: &str, profile: Option<&str>, command: &str, approved: bool) -> SettledPrompt {
        SettledPrompt {
            rule: rule.to_owned(),
            profile: profile.map(str::to_owned),
            repo: Some("/src/shop".to_owned()),
            command: Some(command.to_owned()),
            approved,
            denied: !approved,
            risk: RiskLevel::Medium,
        }
    }

    #[test]
    fn unanimous_verifier_approvals_suggest_trusting_the_repo() {
        let prompts: Vec<_> = (0..4)
            .map(|_| prompt("profile.npm-test", Some("npm-test"), "npm test", true))
            .collect();
        let got = suggest(&prompts, &[], &[]);
        assert_eq!(
            got.first().map(|s| &s.change),
            Some(&PolicyChange::TrustRepo {
                repo: "/src/shop".into()
            }),
            "4 of 4 approvals of a verifier in one repo: trust the repo"
        );
        assert!(
            got[0].evidence.contains("approved 4 of 4 times"),
            "the evidence says why: {}",
            got[0].evidence
        );
        assert!(
            suggest(&prompts, &["/src/shop".into()], &[]).is_empty(),
            "an already trusted repo is not suggested again"
        );
    }

    #[test]
    fn never_auto_for_what_must_be_asked() {
        let network: Vec<_> = (0..10)
            .map(|_| prompt("ask.network", None, "curl https://api.example", true))
            .collect();
        assert!(
            suggest(&network, &[], &[]).is_empty(),
            "network beyond the baseline is never proposed for auto, however often approved"
        );
        let mut mixed: Vec<_> = (0..5)
            .map(|_| prompt("profile.npm-test", Some("npm-test"), "npm test", true))
            .collect();
        mixed.push(prompt(
            "profile.npm-test",
            Some("npm-test"),
            "npm test",
            false,
        ));
        assert!(
            suggest(&mixed, &[], &[]).is_empty(),
            "one denial means people still judge it: no suggestion"
        );
        let mut risky = prompt("profile.npm-test", Some("npm-test"), "npm test", true);
        risky.risk = RiskLevel::High;
        assert!(
            suggest(&[risky.clone(), risky.clone(), risky], &[], &[]).is_empty(),
            "high-risk prompts never lead to auto"
        );
    }

    #[test]
    fn unanimous_denials_suggest_a_block() {
        let prompts: Vec<_> = (0..3)
            .map(|_| prompt("ask.git_push", None, "git push origin main", false))
            .collect();
        let got = suggest(&prompts, &[], &[]);
        assert_eq!(
            got.first().map(|s| &s.change),
            Some(&PolicyChange::BlockCommand {
                pattern: "git push origin main".into()
            }),
            "3 of 3 denials: block the command instead of asking"
        );
        assert!(
            suggest(&prompts[..2], &[], &[]).is_empty(),
            "two decisions are too few to suggest anything"
        );
    }

    #[test]
    fn a_change_keeps_its_id() {
        let trust = |repo: &str| PolicyChange::TrustRepo {
            repo: repo.to_owned(),
        };
        assert_eq!(
            trust("/src/shop").id(),
            trust("/src/shop").id(),
            "the same change has the same id on every computation"
        );
        assert_ne!(
            trust("/src/shop").id(),
            trust("/src/shop2").id(),
            "another repo is another change"
        );
        assert_eq!(trust("/a").id().len(), 16, "a short hex id");
    }
}
