//! `assent webhooks add|list|remove|deliveries`: a platform admin's outbound webhooks.
//! The token is `--token`, else `$ASSENT_TOKEN`, else the data dir's `approver.token` (the
//! owner, who holds platform_admin). Exit codes: 0 done, 1 refused (not allowed, unknown
//! id, a duplicate), 2 usage or bad input, 13 unavailable.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use assent_client::{blocking, ClientConfig, ClientError};
use assent_protocol::{DeliveryState, WebhookCreate, WebhookDelivery, WebhookInfo};
use clap::Subcommand;

use crate::gate::ServiceArgs;

const CALL: Duration = Duration::from_secs(10);

#[derive(Debug, Subcommand)]
pub enum WebhooksCommand {
    /// Register a webhook: prints its id and its secret (`whsec_…`, shown this once).
    Add {
        #[command(flatten)]
        service: ServiceArgs,
        /// Where deliveries are posted: https://, or http:// to a loopback address.
        #[arg(value_name = "URL")]
        target: String,
        /// An event type to deliver (repeat it); approval.settled when none is named.
        #[arg(long = "event", value_name = "NAME")]
        events: Vec<String>,
        /// Only this agent's own events.
        #[arg(long, value_name = "NAME")]
        agent: Option<String>,
        /// Let the URL reach private, link-local and metadata addresses.
        #[arg(long)]
        allow_private: bool,
    },
    /// List the webhooks (never their secrets).
    List {
        #[command(flatten)]
        service: ServiceArgs,
    },
    /// Remove a webhook and its pending deliveries.
    Remove {
        #[command(flatten)]
        service: ServiceArgs,
        id: String,
    },
    /// A webhook's newest deliveries, each with its attempts (status, latency).
    Deliveries {
        #[command(flatten)]
        service: ServiceArgs,
        id: String,
    },
}

pub fn run(cmd: WebhooksCommand) -> ExitCode {
    ExitCode::from(match cmd {
        WebhooksCommand::Add {
            service,
            target: url,
            events,
            agent,
            allow_private,
        } => call(&service, |c, at| {
            let created = c.webhook_create(
                &WebhookCreate {
                    url,
                    events,
                    agent,
                    allow_private,
                },
                at,
            )?;
            println!("id      {}", created.id);
            println!("secret  {}", created.secret);
            eprintln!("the secret is shown this once: keep it where the receiver verifies");
            Ok(())
        }),
        WebhooksCommand::List { service } => call(&service, |c, at| {
            let list = c.webhook_list(at)?;
            if list.webhooks.is_empty() {
                println!("no webhooks");
            }
            for hook in &list.webhooks {
                println!("{}", webhook_line(hook));
            }
            Ok(())
        }),
        WebhooksCommand::Remove { service, id } => call(&service, |c, at| {
            c.webhook_remove(&id, at)?;
            println!("removed {id}");
            Ok(())
        }),
        WebhooksCommand::Deliveries { service, id } => call(&service, |c, at| {
            let list = c.webhook_deliveries(&id, at)?;
            if list.deliveries.is_empty() {
                println!("no deliveries yet");
            }
            for delivery in &list.deliveries {
                println!("{}", delivery_line(delivery));
            }
            Ok(())
        }),
    })
}

/// `wh_…  https://…  approval.settled,grant.revoked  agent ci-bot`.
fn webhook_line(hook: &WebhookInfo) -> String {
    let mut line = format!("{}  {}  {}", hook.id, hook.url, hook.events.join(","));
    if let Some(agent) = &hook.agent {
        line.push_str(&format!("  agent {agent}"));
    }
    if hook.allow_private {
        line.push_str("  allow-private");
    }
    line
}

/// `msg_…  approval.settled  delivered  2 attempts: 500 12ms, 200 3ms`.
fn delivery_line(d: &WebhookDelivery) -> String {
    let state = match d.state {
        DeliveryState::Pending => match d.next_attempt_at {
            Some(at) => format!("pending (next {})", at.to_rfc3339()),
            None => "pending".to_owned(),
        },
        DeliveryState::Delivered => "delivered".to_owned(),
        DeliveryState::Failed => "failed".to_owned(),
    };
    let attempts: Vec<String> = d
        .attempts
        .iter()
        .map(|a| {
            let what = match (a.status, &a.error) {
                (Some(status), _) => status.to_string(),
                (None, Some(error)) => error.clone(),
                (None, None) => "no answer".to_owned(),
            };
            format!("{what} {}ms", a.latency_ms)
        })
        .collect();
    format!(
        "{}  {}  {state}  {} attempts{}{}",
        d.id,
        d.kind,
        d.attempts.len(),
        if attempts.is_empty() { "" } else { ": " },
        attempts.join(", ")
    )
}

/// A client with a person's token: `--token`, `$ASSENT_TOKEN`, else `approver.token`.
fn client(service: &ServiceArgs) -> Result<blocking::Client, u8> {
    let env_token = std::env::var(assent_client::TOKEN_ENV)
        .ok()
        .filter(|t| !t.trim().is_empty());
    let token = match (&service.token, env_token) {
        (Some(token), _) => Some(token.clone()),
        (None, Some(token)) => Some(token),
        (None, None) => assent_client::default_data_dir()
            .map(|dir| dir.join(assent_protocol::APPROVER_TOKEN_FILE))
            .and_then(|path| std::fs::read_to_string(path).ok())
            .map(|text| text.trim().to_owned())
            .filter(|t| !t.is_empty()),
    };
    let Some(token) = token else {
        eprintln!(
            "assent webhooks needs a platform admin's token: --token, $ASSENT_TOKEN, or the \
             data dir's approver.token"
        );
        return Err(2);
    };
    ClientConfig::resolve(service.url.as_deref(), Some(&token))
        .and_then(|config| blocking::Client::from_config(&config))
        .map_err(|err| {
            eprintln!("{err}");
            13
        })
}

fn call(
    service: &ServiceArgs,
    op: impl FnOnce(&blocking::Client, Instant) -> Result<(), ClientError>,
) -> u8 {
    let client = match client(service) {
        Ok(client) => client,
        Err(code) => return code,
    };
    match op(&client, Instant::now() + CALL) {
        Ok(()) => 0,
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
