//! Who may decide: identities (people and agents), their roles, and the rules the service
//! enforces before a decision counts — never the desk.
//!
//! - an agent never decides;
//! - the identity that requested an action never decides it, whatever token it holds;
//! - a person decides only within their roles: an approval that names a `required_role` needs
//!   that role; one that names none needs any role (a person with no role decides nothing);
//! - where the policy asks for N people, N distinct people must approve; one qualified deny
//!   settles it.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::types::Role;

/// The longest identity name.
pub const MAX_NAME_LEN: usize = 64;

/// Every role, in the order they are shown.
pub const ALL_ROLES: [Role; 4] = [
    Role::TaskAuthor,
    Role::RepoMaintainer,
    Role::SecurityReviewer,
    Role::PlatformAdmin,
];

/// Whether an identity is a person (decides) or an agent (requests).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum IdentityKind {
    Person,
    Agent,
}

impl IdentityKind {
    pub fn as_str(self) -> &'static str {
        match self {
            IdentityKind::Person => "person",
            IdentityKind::Agent => "agent",
        }
    }
}

/// Someone the service knows by token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    pub name: String,
    pub kind: IdentityKind,
    /// Always empty for agents.
    pub roles: BTreeSet<Role>,
}

impl Identity {
    pub fn person(name: impl Into<String>, roles: impl IntoIterator<Item = Role>) -> Identity {
        Identity {
            name: name.into(),
            kind: IdentityKind::Person,
            roles: roles.into_iter().collect(),
        }
    }

    pub fn agent(name: impl Into<String>) -> Identity {
        Identity {
            name: name.into(),
            kind: IdentityKind::Agent,
            roles: BTreeSet::new(),
        }
    }

    pub fn is_person(&self) -> bool {
        self.kind == IdentityKind::Person
    }

    /// The role this person acts in for an approval needing `required` (or any role when
    /// `None`: `task_author` first, as the person directing the agent).
    pub fn role_for(&self, required: Option<Role>) -> Option<Role> {
        if !self.is_person() {
            return None;
        }
        match required {
            Some(role) => self.roles.contains(&role).then_some(role),
            None => self
                .roles
                .contains(&Role::TaskAuthor)
                .then_some(Role::TaskAuthor)
                .or_else(|| self.roles.iter().next().copied()),
        }
    }
}

/// One person's approval of a prompt that needs more than one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vote {
    pub by: String,
    pub role: Role,
    pub at: DateTime<Utc>,
}

/// Why someone may not decide an approval. The messages are shown to people as they are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("agents cannot decide approvals; only a person can")]
    Agent,
    #[error("{0} requested this action and cannot decide it; someone else must")]
    OwnRequest(String),
    #[error("this approval needs the {role} role, which {name} does not hold", role = role_name(*.0), name = .1)]
    MissingRole(Role, String),
    #[error("{0} holds no role, so decides nothing; ask an admin to add one")]
    NoRole(String),
}

/// The facts of an approval that decide who may decide it.
#[derive(Debug, Clone, Copy)]
pub struct Decidable<'a> {
    pub required_role: Option<Role>,
    /// Every identity whose request waits on the approval.
    pub requesters: &'a [String],
}

/// The role `who` decides `approval` in, or why they may not.
pub fn may_decide(who: &Identity, approval: Decidable<'_>) -> Result<Role, Refusal> {
    if !who.is_person() {
        return Err(Refusal::Agent);
    }
    if approval.requesters.iter().any(|r| r == &who.name) {
        return Err(Refusal::OwnRequest(who.name.clone()));
    }
    who.role_for(approval.required_role)
        .ok_or_else(|| match approval.required_role {
            Some(role) => Refusal::MissingRole(role, who.name.clone()),
            None => Refusal::NoRole(who.name.clone()),
        })
}

/// Where an approval needing `required` distinct people stands once `vote` is cast.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tally {
    /// Enough people approved: settle it.
    Met(Vec<Vote>),
    /// More are needed; `votes` is what to record.
    Short { votes: Vec<Vote>, missing: u32 },
}

/// Adds `vote` to `votes` (the same person twice counts once) and says whether `required`
/// distinct people have now approved.
pub fn tally(votes: &[Vote], vote: Vote, required: u32) -> Tally {
    let mut all = votes.to_vec();
    if !all.iter().any(|v| v.by == vote.by) {
        all.push(vote);
    }
    let have = u32::try_from(all.len()).unwrap_or(u32::MAX);
    if have >= required.max(1) {
        Tally::Met(all)
    } else {
        Tally::Short {
            votes: all,
            missing: required - have,
        }
    }
}

/// A bad identity name or role.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("the name is empty")]
    Empty,
    #[error("the name is longer than {MAX_NAME_LEN} characters")]
    TooLong,
    #[error(
        "the name {0:?} may hold only letters, digits, '.', '-', '_' and '@', and must start with a letter or digit"
    )]
    Invalid(String),
    #[error("unknown role {0:?}; the roles are task_author, repo_maintainer, security_reviewer, platform_admin")]
    UnknownRole(String),
}

/// Checks an identity name: 1–64 characters of `[A-Za-z0-9._@-]`, starting alphanumeric, so it
/// prints safely in a terminal, a notification and the audit.
pub fn check_name(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if name.chars().count() > MAX_NAME_LEN {
        return Err(NameError::TooLong);
    }
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '@');
    let starts_well = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    if !starts_well || !name.chars().all(allowed) {
        return Err(NameError::Invalid(name.to_owned()));
    }
    Ok(())
}

/// The wire name of a role (`platform_admin`).
pub fn role_name(role: Role) -> &'static str {
    match role {
        Role::TaskAuthor => "task_author",
        Role::RepoMaintainer => "repo_maintainer",
        Role::SecurityReviewer => "security_reviewer",
        Role::PlatformAdmin => "platform_admin",
    }
}

impl FromStr for Role {
    type Err = NameError;

    fn from_str(text: &str) -> Result<Role, NameError> {
        ALL_ROLES
            .into_iter()
            .find(|role| role_name(*role) == text)
            .ok_or_else(|| NameError::UnknownRole(text.to_owned()))
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(role_name(*self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> DateTime<Utc> {
        DateTime::<Utc>::from_timestamp(1_800_000_000, 0).unwrap_or_default()
    }

    fn vote(by: &str) -> Vote {
        Vote {
            by: by.to_owned(),
            role: Role::PlatformAdmin,
            at: at(),
        }
    }

    #[test]
    fn who_may_decide() {
        let alice = Identity::person("alice", [Role::RepoMaintainer]);
        let owner = Identity::person("owner", super::ALL_ROLES);
        let nobody = Identity::person("nobody", []);
        let bot = Identity::agent("bot");
        let requesters = ["bot".to_owned()];
        let needs = |role| Decidable {
            required_role: role,
            requesters: &requesters,
        };
        type Row<'a> = (&'a str, &'a Identity, Option<Role>, Result<Role, Refusal>);
        let rows: Vec<Row<'_>> = vec![
            (
                "a maintainer decides a maintainer's approval",
                &alice,
                Some(Role::RepoMaintainer),
                Ok(Role::RepoMaintainer),
            ),
            (
                "a maintainer cannot decide a platform_admin escalation",
                &alice,
                Some(Role::PlatformAdmin),
                Err(Refusal::MissingRole(Role::PlatformAdmin, "alice".into())),
            ),
            (
                "a plain ask is decided in the person's role",
                &alice,
                None,
                Ok(Role::RepoMaintainer),
            ),
            (
                "the owner acts as task author on a plain ask",
                &owner,
                None,
                Ok(Role::TaskAuthor),
            ),
            (
                "a person with no role decides nothing",
                &nobody,
                None,
                Err(Refusal::NoRole("nobody".into())),
            ),
            (
                "an agent never decides, whatever the approval",
                &bot,
                None,
                Err(Refusal::Agent),
            ),
        ];
        for (why, who, role, want) in rows {
            assert_eq!(may_decide(who, needs(role)), want, "{why}");
        }
        let own = ["owner".to_owned()];
        assert_eq!(
            may_decide(
                &owner,
                Decidable {
                    required_role: None,
                    requesters: &own
                }
            ),
            Err(Refusal::OwnRequest("owner".into())),
            "the identity that requested an action never decides it, even holding every role"
        );
    }

    #[test]
    fn thresholds_count_distinct_people() {
        assert!(
            matches!(tally(&[], vote("a"), 1), Tally::Met(v) if v.len() == 1),
            "one approval meets the default threshold"
        );
        assert!(
            matches!(tally(&[], vote("a"), 2), Tally::Short { missing: 1, .. }),
            "the first of two approvals leaves one missing"
        );
        assert!(
            matches!(tally(&[vote("a")], vote("a"), 2), Tally::Short { missing: 1, ref votes } if votes.len() == 1),
            "the same person twice counts once"
        );
        assert!(
            matches!(tally(&[vote("a")], vote("b"), 2), Tally::Met(v) if v.len() == 2),
            "a second, distinct person meets a threshold of two"
        );
        assert!(
            matches!(tally(&[], vote("a"), 0), Tally::Met(_)),
            "a threshold of zero is read as one: someone must approve"
        );
    }

    #[test]
    fn names_and_roles_are_checked() {
        assert_eq!(check_name("alice"), Ok(()), "a plain name is fine");
        assert_eq!(
            check_name("ci-bot.shop@eu"),
            Ok(()),
            "dots, dashes and @ are fine"
        );
        assert_eq!(
            check_name(""),
            Err(NameError::Empty),
            "empty names are refused"
        );
        assert_eq!(
            check_name(&"a".repeat(65)),
            Err(NameError::TooLong),
            "over-long names are refused"
        );
        for bad in ["-x", "a b", "a\u{202e}b", "a\nb", "<b>", "ä"] {
            assert!(
                matches!(check_name(bad), Err(NameError::Invalid(_))),
                "{bad:?} would print unsafely or ambiguously"
            );
        }
        assert_eq!("platform_admin".parse::<Role>(), Ok(Role::PlatformAdmin));
        assert!(
            "admin".parse::<Role>().is_err(),
            "an unknown role is an error, not a silent no-op"
        );
    }
}
