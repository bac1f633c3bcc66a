//! The notification of a fleet campaign that stopped at its failure threshold: one line
//! saying which campaign and why, no buttons (resuming is a person's deliberate call, in the
//! window's Campaigns view or with `assent campaign resume`).

use assent_core::campaign::Campaign;

use crate::prompt::{PromptNotice, Urgency};
use crate::text::{untrusted, untrusted_plain};

/// The longest summary: one line of a notification.
const SUMMARY_CHARS: usize = 80;

/// The notice for `campaign`, which just stopped.
pub fn stopped_notice(campaign: &Campaign) -> PromptNotice {
    let (passed, failed) = campaign.tally();
    let summary = untrusted_plain(
        &format!(
            "Campaign {} stopped: {failed} failed, {passed} passed",
            campaign.campaign_id
        ),
        SUMMARY_CHARS,
    );
    let reason = campaign
        .stop_reason
        .as_deref()
        .unwrap_or("failure threshold reached");
    let body = untrusted(
        &format!("{reason}. No stage or run until a person resumes it."),
        400,
    );
    PromptNotice {
        summary,
        body,
        actions: Vec::new(),
        urgency: Urgency::Critical,
        reasons: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use assent_core::campaign::{parse_campaign, OutcomeResult};

    use super::*;

    #[test]
    fn a_stopped_campaign_is_one_line() {
        let text = r#"name = "a-very-long-campaign-name-that-goes-on-and-on-and-on-for-ever-x"
target_repos = ["svc-a"]
selection_criteria = "x"
prompt_contract = "x"
verifier_profile = "x"
sample_diff = "x"
expected_pr_body = "x"
cost_estimate = "x"
[stop]
failure_threshold = 1
"#;
        let definition = parse_campaign(text).unwrap_or_else(|e| panic!("{e}"));
        let now = chrono::Utc::now();
        let mut campaign = Campaign::propose(definition, "a1".to_owned(), "agent", now);
        campaign.definition_settled(true, "", now);
        let batch = campaign.next_batch(1).unwrap_or_default();
        campaign.add_stage(batch, "a2".to_owned(), now);
        campaign.stage_settled(1, true, now);
        let reported = campaign.report("svc-a", OutcomeResult::Failed, "ci", now);
        assert!(
            reported.is_ok_and(|r| r.stopped),
            "one failure of a threshold of one stops it"
        );
        let notice = stopped_notice(&campaign);
        assert!(
            !notice.summary.contains('\n') && notice.summary.chars().count() <= SUMMARY_CHARS,
            "the summary fits one line: {}",
            notice.summary
        );
        assert!(
            notice.summary.starts_with("Campaign a-very-long"),
            "it names the campaign: {}",
            notice.summary
        );
        assert!(
            notice.actions.is_empty(),
            "resuming is not a notification button"
        );
    }
}
