use assent_core::{IdentityKind, Role};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// `GET /v1/me`: who the presented token belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Me {
    pub name: String,
    /// `person` (decides within `roles`) or `agent` (requests, never decides).
    pub kind: IdentityKind,
    /// `task_author`, `repo_maintainer`, `security_reviewer`, `platform_admin`; empty for agents.
    pub roles: Vec<Role>,
}

/// One identity as `GET /v1/people` and `GET /v1/agents` list it (never its token).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct IdentityInfo {
    pub name: String,
    pub kind: IdentityKind,
    pub roles: Vec<Role>,
    pub created_at: DateTime<Utc>,
    /// How many tokens it holds (a person on several machines, the desk's session…).
    pub tokens: u32,
}

/// `GET /v1/people`, `GET /v1/agents`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct IdentityList {
    pub identities: Vec<IdentityInfo>,
}

/// One person's approval of a prompt (`approvals` on an approval).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ApprovalVote {
    pub by: String,
    pub role: Role,
    pub at: DateTime<Utc>,
}

impl From<assent_core::Vote> for ApprovalVote {
    fn from(v: assent_core::Vote) -> Self {
        ApprovalVote {
            by: v.by,
            role: v.role,
            at: v.at,
        }
    }
}

impl From<ApprovalVote> for assent_core::Vote {
    fn from(v: ApprovalVote) -> Self {
        assent_core::Vote {
            by: v.by,
            role: v.role,
            at: v.at,
        }
    }
}
