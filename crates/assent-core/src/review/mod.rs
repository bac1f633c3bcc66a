//! Which approval type an action is (seed section 9): publishing is a `pr` approval, an edit
//! that needs a review a `diff` approval, everything else a `tool` approval. The type adds
//! its verdict before the decision, shapes the decision (required role, scopes a grant may
//! have), keys the batch and fills the evidence's packet.

pub(crate) mod pr;

use crate::classify::ctx::Ctx;

use crate::classify::verdict::{Facts, Verdict};
use crate::diff::review::DiffReview;
use crate::evaluate::decision::RiskDecision;
use crate::evidence::{ApprovalEvidence, EvidenceDetail, PrPacket};
use crate::request::canon::CanonicalAction;
use crate::request::ActionRequest;
use crate::shell::ShellScript;
use crate::types::{ApprovalType, Role, ScopeKind};

/// The review an action needs.
#[derive(Debug, Clone)]
pub(crate) enum Review {
    Tool,
    Diff(Box<DiffReview>),
    Pr(PrPacket, crate::review::pr::Via),
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
            return Review::Pr(packet, via);
        }
        match crate::diff::review::review(request, canonical, facts, ctx) {
            Some(review) => Review::Diff(Box::new(review)),
            None => Review::Tool,
        }
    }

    pub fn approval_type(&self) -> ApprovalType {
        match self {
            Review::Tool => ApprovalType::Tool,
            Review::Diff(_) => ApprovalType::Diff,
            Review::Pr(..) => ApprovalType::Pr,
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
                evidence.detail = EvidenceDetail::Pr(packet);
            }
        }
    }
}
