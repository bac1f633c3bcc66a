//! A run's start and fleet campaigns: the CLI's blocking calls and the desktop's async ones.

use std::time::Instant;

use assent_protocol::{
    CampaignAnswer, CampaignCreate, CampaignList, OutcomeReport, RunStartRequest, RunStartResponse,
    StageProposal,
};
use serde::Serialize;

use crate::error::ClientError;
use crate::wire::encode_segment;
use crate::{blocking, Client, CALL_TIMEOUT};

fn body<T: Serialize>(value: &T) -> Result<Vec<u8>, ClientError> {
    serde_json::to_vec(value)
        .map_err(|err| ClientError::Config(format!("cannot encode the request: {err}")))
}

impl blocking::Client {
    /// `POST /v1/runs/{id}/start`.
    pub fn run_start(
        &self,
        run_id: &str,
        request: &RunStartRequest,
        deadline: Instant,
    ) -> Result<RunStartResponse, ClientError> {
        let target = format!("/v1/runs/{}/start", encode_segment(run_id));
        self.call("POST", &target, Some(&body(request)?), deadline)
    }

    /// `POST /v1/campaigns` with the campaign file's text.
    pub fn campaign_create(
        &self,
        file: &str,
        deadline: Instant,
    ) -> Result<CampaignAnswer, ClientError> {
        let request = CampaignCreate {
            file: file.to_owned(),
        };
        self.call("POST", "/v1/campaigns", Some(&body(&request)?), deadline)
    }

    /// `POST /v1/campaigns/{id}/stages`.
    pub fn campaign_stage(
        &self,
        campaign: &str,
        next: u32,
        deadline: Instant,
    ) -> Result<CampaignAnswer, ClientError> {
        let target = format!("/v1/campaigns/{}/stages", encode_segment(campaign));
        self.call(
            "POST",
            &target,
            Some(&body(&StageProposal { next })?),
            deadline,
        )
    }

    /// `POST /v1/campaigns/{id}/outcomes`.
    pub fn campaign_report(
        &self,
        campaign: &str,
        report: &OutcomeReport,
        deadline: Instant,
    ) -> Result<CampaignAnswer, ClientError> {
        let target = format!("/v1/campaigns/{}/outcomes", encode_segment(campaign));
        self.call("POST", &target, Some(&body(report)?), deadline)
    }

    /// `POST /v1/campaigns/{id}/resume` (person).
    pub fn campaign_resume(
        &self,
        campaign: &str,
        deadline: Instant,
    ) -> Result<CampaignAnswer, ClientError> {
        let target = format!("/v1/campaigns/{}/resume", encode_segment(campaign));
        self.call("POST", &target, Some(b"{}"), deadline)
    }
}

impl Client {
    /// `GET /v1/campaigns`.
    pub async fn campaigns(&self) -> Result<CampaignList, ClientError> {
        self.send(self.get("/v1/campaigns"), CALL_TIMEOUT).await
    }

    /// `POST /v1/campaigns/{id}/resume` (person).
    pub async fn campaign_resume(&self, campaign: &str) -> Result<CampaignAnswer, ClientError> {
        let path = format!("/v1/campaigns/{}/resume", encode_segment(campaign));
        self.send(self.post(&path).json(&serde_json::json!({})), CALL_TIMEOUT)
            .await
    }
}
