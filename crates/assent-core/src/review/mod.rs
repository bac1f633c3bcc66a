//! Which approval type an action is (seed section 9): publishing is a `pr` approval, an edit
//! that needs a review a `diff` approval, everything else a `tool` approval. The type adds
//! its verdict before the decision, shapes the decision (required role, scopes a grant may
//! have), keys the batch and fills the evidence's packet.

pub(crate) mod pr;

use crate::classify::ctx::Ctx;

use crate::classify::verdict::{Facts, Verdict};
use crate::decision::RiskDecision;
use crate::diff::review::DiffReview;
use crate::evidence::{ApprovalEvidence, EvidenceDetail, PrPacket};
use crate::request::canon::CanonicalAction;
use crate::request::ActionRequest;
use crate::shell::ShellScript;
use crate::types::{Role, ScopeKind};

/// What a person is advised when the packet itself shows a risk a review alone does not
/// answer: deny, and what would make the change safe instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Advice {
    /// Recommend denying.
    pub deny: bool,
    pub text: String,
}

/// The advice the evidence's packet calls for, if any: a force push to the default branch,
/// or a CI change that hands the repository's secrets or write access to code anyone can
/// propose, is never recommended for approval.
pub fn advice(evidence: &ApprovalEvidence) -> Option<Advice> {
    match &evidence.detail {
        EvidenceDetail::Pr(packet) => {
            let push = packet.push.as_ref()?;
            let branch = packet.branch.as_deref().unwrap_or("the current branch");
            let remote = packet.remote.as_deref().unwrap_or("its remote");
            let text = match (push.force, push.to_default_branch) {
                (true, true) => format!(
                    "Deny: a force push rewrites {branch}, the default branch, on {remote} for \
                     everyone. Safe instead: push to a new branch and open a pull request"
                ),
                (true, false) => format!(
                    "Approve only if {branch} on {remote} is yours alone: a force push drops \
                     what others pushed there"
                ),
                (false, true) => format!(
                    "Approve only if these commits may skip review: they land on {branch}, the \
                     default branch, directly"
                ),
                (false, false) => return None,
            };
            Some(Advice {
                deny: push.force && push.to_default_branch,
                text,
            })
        }
        EvidenceDetail::Diff(packet) => {
            let instead = crate::diff::ci::safe_instead(&packet.flags);
            let risks: Vec<String> = packet
                .flags
                .iter()
                .filter(|f| crate::diff::ci::is_ci_risk(**f))
                .map(|f| crate::diff::review::phrase(*f, packet))
                .collect();
            (!instead.is_empty()).then(|| Advice {
                deny: true,
                text: format!(
                    "Deny: this workflow change {}. Safe instead: {}",
                    risks.join(", "),
                    instead.join("; ")
                ),
            })
        }
        _ => None,
    }
}

/// The review an action needs.
#[derive(Debug, Clone)]
pub(crate) enum Review {
    Tool,
    Diff(Box<DiffReview>),
    Pr(Box<PrPacket>, crate::review::pr::Via),
}

impl Review {
    /// The review `request` needs: publishing first, then a diff that needs one.
    pub fn of(
        request: &ActionRequest,
        canonical: &CanonicalAction,
        script: Option<&ShellScript>,
        facts: &Facts,
        ctx: &Ctx<'_>,
    ) -> Review {
        if let Some((packet, via)) = crate::review::pr::detect(request, script) {
            return Review::Pr(Box::new(packet), via);
        }
        match crate::diff::review::review(request, canonical, facts, ctx) {
            Some(review) => Review::Diff(Box::new(review)),
            None => Review::Tool,
        }
    }

    /// The verdict the review adds to the classification's.
    pub fn verdict(&self) -> Option<Verdict> {
        match self {
            Review::Diff(review) => Some(review.verdict.clone()),
            Review::Tool | Review::Pr(..) => None,
        }
    }

    /// A person deciding a diff needs a repo maintainer (a security reviewer for security
    /// files), a PR a repo maintainer; a diff's grant is `once` or `run`, both bound to the
    /// base commit and the diff (the action hash and batch key hold its fingerprint).
    pub fn shape(&self, decision: &mut RiskDecision) {
        if !decision.decision.needs_person() {
            return;
        }
        let role = match self {
            Review::Tool => return,
            Review::Diff(review) => {
                decision.offered_scopes = vec![ScopeKind::Once, ScopeKind::Run];
                review.role()
            }
            Review::Pr(..) => Role::RepoMaintainer,
        };
        decision.required_role = decision.required_role.max(Some(role));
    }

    /// The fingerprint equal diffs share in their batch key (different diffs never join).
    pub fn batch_fingerprint(&self) -> Option<&str> {
        match self {
            Review::Diff(review) => review.packet.diff_fingerprint.as_deref(),
            Review::Tool | Review::Pr(..) => None,
        }
    }

    /// Puts the packet on the evidence, with the one-line summary of its type.
    pub fn fill(self, evidence: &mut ApprovalEvidence, place: &str) {
        match self {
            Review::Tool => {}
            Review::Diff(review) => {
                evidence.summary = review.summary(place);
                evidence.diff_summary = Some(review.counts());
                evidence.detail = EvidenceDetail::Diff(review.packet);
            }
            Review::Pr(packet, via) => {
                evidence.summary = crate::review::pr::summary(&packet, via, place);
                evidence.detail = EvidenceDetail::Pr(*packet);
            }
        }
    }
}
