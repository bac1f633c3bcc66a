//! `assent campaign create|stage|report|resume`: a fleet campaign approved by definition,
//! then batch by batch; outcomes past the failure threshold stop it until a person resumes
//! it. Exit codes: 0 done, 1 refused by the campaign's state, 2 usage or a bad campaign
//! file (its line and field named), 13 unavailable.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use assent_client::ClientError;
use assent_core::campaign::{parse_campaign, Campaign, OutcomeResult};
use assent_protocol::{CampaignAnswer, OutcomeReport};
use clap::{Args, Subcommand};

use crate::gate::ServiceArgs;
use crate::run_cmd::client;

const CALL: Duration = Duration::from_secs(10);

#[derive(Debug, Subcommand)]
pub enum CampaignCommand {
    /// Check a campaign file and open the fleet approval of its definition.
    Create {
        #[command(flatten)]
        service: ServiceArgs,
        #[arg(long)]
        file: PathBuf,
    },
    /// Propose the next batch of N repositories for approval.
    Stage {
        #[command(flatten)]
        service: ServiceArgs,
        #[arg(long)]
        campaign: String,
        #[arg(long)]
        next: u32,
    },
    /// Record a repository's outcome; the failure threshold stops the campaign.
    Report(ReportArgs),
    /// Let a stopped campaign go on (a person's token).
    Resume {
        #[command(flatten)]
        service: ServiceArgs,
        campaign: String,
    },
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub service: ServiceArgs,
    #[arg(long)]
    pub campaign: String,
    #[arg(long)]
    pub repo: String,
    #[arg(long, conflicts_with = "passed", required_unless_present = "passed")]
    pub failed: bool,
    #[arg(long)]
    pub passed: bool,
}

pub fn run(cmd: CampaignCommand) -> ExitCode {
    ExitCode::from(match cmd {
        CampaignCommand::Create { service, file } => create(&service, &file),
        CampaignCommand::Stage {
            service,
            campaign,
            next,
        } => call(&service, |c, at| c.campaign_stage(&campaign, next, at)),
        CampaignCommand::Report(args) => {
            let report = OutcomeReport {
                repo: args.repo.clone(),
                result: if args.failed {
                    OutcomeResult::Failed
                } else {
                    OutcomeResult::Passed
                },
            };
            call(&args.service, |c, at| {
                c.campaign_report(&args.campaign, &report, at)
            })
        }
        CampaignCommand::Resume { service, campaign } => {
            call(&service, |c, at| c.campaign_resume(&campaign, at))
        }
    })
}

fn create(service: &ServiceArgs, file: &PathBuf) -> u8 {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(err) => {
            eprintln!("cannot read {}: {err}", file.display());
            return 2;
        }
    };
    if let Err(err) = parse_campaign(&text) {
        eprintln!("{}: {err}; nothing was created", file.display());
        return 2;
    }
    call(service, |c, at| c.campaign_create(&text, at))
}

fn call(
    service: &ServiceArgs,
    op: impl FnOnce(&assent_client::blocking::Client, Instant) -> Result<CampaignAnswer, ClientError>,
) -> u8 {
    let client = match client(service) {
        Ok(client) => client,
        Err(code) => return code,
    };
    match op(&client, Instant::now() + CALL) {
        Ok(answer) => {
            println!("{}", summary(&answer));
            0
        }
        Err(err) => {
            eprintln!("{err}");
            match err {
                ClientError::Api { status: 400, .. } => 2,
                ClientError::Api { .. } => 1,
                _ => 13,
            }
        }
    }
}

/// One line: the campaign, its state, and what awaits approval.
fn summary(answer: &CampaignAnswer) -> String {
    let c: &Campaign = &answer.campaign;
    let (passed, failed) = c.tally();
    let status = assent_core::campaign::state::status_name(c.status);
    let mut line = format!(
        "campaign {}: {status}, {} stages, {passed} passed, {failed} failed",
        c.campaign_id,
        c.stages.len()
    );
    if let Some(reason) = &c.stop_reason {
        line.push_str(&format!(" ({reason})"));
    }
    if let Some(id) = &answer.approval_id {
        match c.stages.last().filter(|s| s.approval_id == *id) {
            Some(stage) => line.push_str(&format!(
                "; stage {} [{}] awaits approval {id}",
                stage.number,
                stage.repos.join(", ")
            )),
            None => line.push_str(&format!("; its definition awaits approval {id}")),
        }
    }
    line
}
