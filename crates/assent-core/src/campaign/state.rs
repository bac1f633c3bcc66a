//! A campaign's life: its definition awaits approval, then stages of repositories are
//! proposed and approved one at a time; runs go only to repositories of approved stages;
//! reported failures reaching the threshold stop it until a person resumes it.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::file::CampaignDefinition;

/// Where a campaign is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CampaignStatus {
    /// Its definition awaits its `fleet` approval.
    Proposed,
    /// Approved: stages may be proposed, runs go to approved stages.
    Active,
    /// The failure threshold was reached: no stage, no run until a person resumes it.
    Stopped,
    /// Its definition was denied (or timed out): nothing more happens.
    Denied,
}

/// Where a stage is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StageStatus {
    Proposed,
    Approved,
    /// Denied or timed out: its repositories return to the pool.
    Denied,
}

/// One batch of repositories, approved together.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Stage {
    /// 1, 2, … in the order proposed.
    pub number: u32,
    pub repos: Vec<String>,
    pub status: StageStatus,
    /// Its `fleet` approval.
    pub approval_id: String,
    pub proposed_at: DateTime<Utc>,
}

/// A repository's reported result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeResult {
    Passed,
    Failed,
}

/// The latest outcome reported for a repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Outcome {
    pub repo: String,
    pub result: OutcomeResult,
    pub reported_by: String,
    pub at: DateTime<Utc>,
}

/// A fleet campaign, stored as one document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Campaign {
    /// The definition's `name`.
    pub campaign_id: String,
    pub definition: CampaignDefinition,
    pub status: CampaignStatus,
    /// The `fleet` approval of the definition.
    pub approval_id: String,
    pub stages: Vec<Stage>,
    pub outcomes: Vec<Outcome>,
    /// Why it stopped (or was denied), while it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// Why a campaign refuses a proposal, a run, a report or a resume.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CampaignRefusal {
    /// The campaign's state refuses it (409); for a run start, the run is blocked with it.
    #[error("{0}")]
    Conflict(String),
    /// The input is wrong (400).
    #[error("{0}")]
    BadRequest(String),
}

/// What a report came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reported {
    /// Failed repositories so far.
    pub failed: u32,
    pub passed: u32,
    /// This report reached the failure threshold and stopped the campaign.
    pub stopped: bool,
}

impl Campaign {
    /// A new campaign awaiting the approval `approval_id` of its definition.
    pub fn propose(
        definition: CampaignDefinition,
        approval_id: String,
        created_by: &str,
        now: DateTime<Utc>,
    ) -> Campaign {
        Campaign {
            campaign_id: definition.name.clone(),
            definition,
            status: CampaignStatus::Proposed,
            approval_id,
            stages: Vec::new(),
            outcomes: Vec::new(),
            stop_reason: None,
            created_by: created_by.to_owned(),
            created_at: now,
            updated_at: now,
        }
    }

    /// The definition's approval settled (`reason`: the person's, or the timeout's).
    pub fn definition_settled(&mut self, approved: bool, reason: &str, now: DateTime<Utc>) {
        if self.status != CampaignStatus::Proposed {
            return;
        }
        if approved {
            self.status = CampaignStatus::Active;
        } else {
            self.status = CampaignStatus::Denied;
            self.stop_reason = Some(format!("definition not approved: {reason}"));
        }
        self.updated_at = now;
    }

    /// The next `n` repositories to stage: the targets, minus the excluded, minus those of
    /// proposed or approved stages, in the file's order.
    pub fn next_batch(&self, n: u32) -> Result<Vec<String>, CampaignRefusal> {
        if n == 0 {
            return Err(CampaignRefusal::BadRequest(
                "--next must be at least 1".to_owned(),
            ));
        }
        self.may_proceed()?;
        if let Some(pending) = self
            .stages
            .iter()
            .find(|s| s.status == StageStatus::Proposed)
        {
            return Err(CampaignRefusal::Conflict(format!(
                "stage {} of campaign {} awaits approval (approval {})",
                pending.number, self.campaign_id, pending.approval_id
            )));
        }
        let batch: Vec<String> = self
            .unstaged()
            .take(usize::try_from(n).unwrap_or(usize::MAX))
            .cloned()
            .collect();
        if batch.is_empty() {
            return Err(CampaignRefusal::Conflict(format!(
                "every target repository of campaign {} is staged",
                self.campaign_id
            )));
        }
        Ok(batch)
    }

    fn unstaged(&self) -> impl Iterator<Item = &String> {
        let d = &self.definition;
        d.target_repos.iter().filter(move |repo| {
            !d.excluded_repos.contains(repo)
                && !self
                    .stages
                    .iter()
                    .any(|s| s.status != StageStatus::Denied && s.repos.contains(repo))
        })
    }

    /// Records a proposed stage of `repos` (from [`Campaign::next_batch`]); its number.
    pub fn add_stage(
        &mut self,
        repos: Vec<String>,
        approval_id: String,
        now: DateTime<Utc>,
    ) -> u32 {
        let number = u32::try_from(self.stages.len())
            .unwrap_or(u32::MAX)
            .saturating_add(1);
        self.stages.push(Stage {
            number,
            repos,
            status: StageStatus::Proposed,
            approval_id,
            proposed_at: now,
        });
        self.updated_at = now;
        number
    }

    /// A stage's approval settled.
    pub fn stage_settled(&mut self, number: u32, approved: bool, now: DateTime<Utc>) {
        if let Some(stage) = self
            .stages
            .iter_mut()
            .find(|s| s.number == number && s.status == StageStatus::Proposed)
        {
            stage.status = if approved {
                StageStatus::Approved
            } else {
                StageStatus::Denied
            };
            self.updated_at = now;
        }
    }

    /// Whether a run may start in `repo`: the stage that lets it, or why not.
    pub fn run_allowed(&self, repo: &str) -> Result<u32, CampaignRefusal> {
        self.may_proceed()?;
        let d = &self.definition;
        let refuse = |why: String| Err(CampaignRefusal::Conflict(why));
        if !d.target_repos.iter().any(|r| r == repo) {
            return refuse(format!(
                "{repo} is not a target of campaign {}",
                self.campaign_id
            ));
        }
        if d.excluded_repos.iter().any(|r| r == repo) {
            return refuse(format!(
                "{repo} is excluded from campaign {}",
                self.campaign_id
            ));
        }
        match self.stage_of(repo) {
            Some(stage) => Ok(stage),
            None => refuse(format!(
                "{repo} is not in an approved batch of campaign {}",
                self.campaign_id
            )),
        }
    }

    /// The approved stage holding `repo`.
    fn stage_of(&self, repo: &str) -> Option<u32> {
        self.stages
            .iter()
            .find(|s| s.status == StageStatus::Approved && s.repos.iter().any(|r| r == repo))
            .map(|s| s.number)
    }

    /// Records `repo`'s outcome (a later report replaces an earlier one); reaching the failure
    /// threshold stops an active campaign.
    pub fn report(
        &mut self,
        repo: &str,
        result: OutcomeResult,
        by: &str,
        now: DateTime<Utc>,
    ) -> Result<Reported, CampaignRefusal> {
        if self.stage_of(repo).is_none() {
            return Err(CampaignRefusal::Conflict(format!(
                "{repo} is not in an approved batch of campaign {}: nothing ran there",
                self.campaign_id
            )));
        }
        self.outcomes.retain(|o| o.repo != repo);
        self.outcomes.push(Outcome {
            repo: repo.to_owned(),
            result,
            reported_by: by.to_owned(),
            at: now,
        });
        self.updated_at = now;
        let (passed, failed) = self.tally();
        let threshold = self.definition.failure_threshold;
        let stopped = self.status == CampaignStatus::Active && failed >= threshold;
        if stopped {
            self.status = CampaignStatus::Stopped;
            self.stop_reason = Some(format!(
                "{failed} repositories failed, the stop policy's threshold is {threshold}"
            ));
        }
        Ok(Reported {
            failed,
            passed,
            stopped,
        })
    }

    /// Passed and failed repositories so far.
    pub fn tally(&self) -> (u32, u32) {
        let count = |want| {
            let n = self.outcomes.iter().filter(|o| o.result == want).count();
            u32::try_from(n).unwrap_or(u32::MAX)
        };
        (count(OutcomeResult::Passed), count(OutcomeResult::Failed))
    }

    /// A person lets a stopped campaign go on: stages and runs are allowed again (one more
    /// failure stops it again while the failures stay at or past the threshold).
    pub fn resume(&mut self, now: DateTime<Utc>) -> Result<(), CampaignRefusal> {
        if self.status != CampaignStatus::Stopped {
            return Err(CampaignRefusal::Conflict(format!(
                "campaign {} is not stopped ({})",
                self.campaign_id,
                status_name(self.status)
            )));
        }
        self.status = CampaignStatus::Active;
        self.stop_reason = None;
        self.updated_at = now;
        Ok(())
    }

    /// Refuses anything but an active campaign, saying why.
    fn may_proceed(&self) -> Result<(), CampaignRefusal> {
        let id = &self.campaign_id;
        let why = match self.status {
            CampaignStatus::Active => return Ok(()),
            CampaignStatus::Proposed => {
                format!("campaign {id} awaits the approval of its definition")
            }
            CampaignStatus::Stopped => format!(
                "campaign {id} is stopped: {} (a person must resume it)",
                self.stop_reason
                    .as_deref()
                    .unwrap_or("failure threshold reached")
            ),
            CampaignStatus::Denied => format!(
                "campaign {id} was not approved: {}",
                self.stop_reason.as_deref().unwrap_or("denied")
            ),
        };
        Err(CampaignRefusal::Conflict(why))
    }
}

/// The serde name of a campaign status.
pub fn status_name(status: CampaignStatus) -> &'static str {
    match status {
        CampaignStatus::Proposed => "proposed",
        CampaignStatus::Active => "active",
        CampaignStatus::Stopped => "stopped",
        CampaignStatus::Denied => "denied",
    }
}
