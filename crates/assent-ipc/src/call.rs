//! What the page may ask of the desk: one [`WindowCall`] per command, with its arguments.

use assent_protocol::{DecisionRequest, PolicyChange};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A command the page invokes, forwarded by the window to the desk as it came. Anything else
/// (an unknown command, a missing or mistyped argument) does not parse and reaches nobody.
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
#[serde(tag = "command", content = "args", rename_all = "snake_case")]
pub enum WindowCall {
    DeskSnapshot,
    ApprovalDecide {
        approval_id: String,
        #[ts(type = "DecisionRequest")]
        decision: DecisionRequest,
    },
    GrantRevoke {
        grant_id: String,
        reason: String,
    },
    RunResume {
        run_id: String,
    },
    /// Fleet campaigns: their stages, batches and outcomes.
    CampaignList,
    /// Let a stopped campaign go on (the desk's person token).
    CampaignResume {
        campaign_id: String,
    },
    AuditList {
        run_id: Option<String>,
    },
    /// The run's remembered denials (a person's denial answering equivalent requests).
    DenialList {
        run_id: String,
    },
    /// Undo a remembered denial: equivalent requests of its run ask again.
    DenialForget {
        approval_id: String,
    },
    /// The Insights view's figures: the service's metrics and the audit since `since`.
    InsightsGet {
        since: chrono::DateTime<chrono::Utc>,
    },
    /// Policy changes proposed from the decisions of the last `since_days` days.
    SuggestionsGet {
        since_days: i64,
    },
    /// Apply one suggested change: the service writes its policy file and puts it in force.
    SuggestionApply {
        #[ts(type = "PolicyChange")]
        change: PolicyChange,
        since_days: i64,
    },
    PauseSet {
        choice: PauseChoice,
    },
    SettingsGet,
    /// The public key that checks the service's audit checkpoints (Settings).
    AuditKeyGet,
    /// The service walks its audit chain: where it breaks, or how much of it holds.
    AuditVerify,
    SettingsSave {
        input: SettingsInput,
    },
    /// "Retry now" on the lost-service banner: reconnect at once instead of after the backoff.
    ServiceRetry,
    /// "Confirm in the browser" on a prompt the policy's step-up holds: the tray opens the web
    /// desk's page the service named for it (never an address the page supplies).
    StepUpOpen {
        approval_id: String,
    },
}

/// What the window may change. `token: None` keeps the stored token; `Some("")` clears it.
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
pub struct SettingsInput {
    pub service_url: String,
    pub token: Option<String>,
    pub notifications: bool,
    pub autostart: bool,
    /// The deny reasons offered in one tap, one per entry; absent keeps them.
    #[serde(default)]
    #[ts(optional)]
    pub deny_reasons: Option<Vec<String>>,
}

/// "Pause notifications", as the person picked it (tray menu or window): 30 min, 1 h, until
/// resumed, or resume now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum PauseChoice {
    HalfHour,
    Hour,
    UntilResumed,
    Resume,
}
