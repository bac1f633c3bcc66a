//! Fleet campaigns with staged approval (the seed's section 20): a campaign file parsed and
//! checked ([`file`]), the campaign's states and rules ([`state`]), and the `fleet` approvals
//! of its definition and stages ([`approval`]). Pure: the service stores a [`Campaign`] as a
//! document and asks these functions what a proposal, a run or a report comes to.

pub mod approval;
pub mod file;
pub mod state;

pub use approval::{campaign_audit, definition_approval, stage_approval, FleetAsk, CAMPAIGN_TOOL};
pub use file::{parse_campaign, CampaignDefinition, CampaignFileError};
pub use state::{
    Campaign, CampaignRefusal, CampaignStatus, Outcome, OutcomeResult, Reported, Stage, StageStatus,
};
