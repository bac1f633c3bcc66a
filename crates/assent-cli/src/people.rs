//! `assent people …` and `assent agents …`: the identities of a service's database. They work
//! on the database directly (beside a running service on the same data dir, or on a team's
//! PostgreSQL with `--database URL`), so they need no token — whoever can write the data dir
//! (or the database) is the service's administrator.

use std::path::PathBuf;
use std::process::ExitCode;

use assent_core::{IdentityKind, Role};
use assent_protocol::IdentityInfo;
use assent_server::{Directory, DirectoryError};

/// Where the database is.
#[derive(Debug, Clone, clap::Args)]
pub struct Database {
    /// The service's data dir (default: the XDG data dir, e.g. ~/.local/share/assent).
    #[arg(long, global = true)]
    data_dir: Option<PathBuf>,
    /// A team service's PostgreSQL (`postgres://…`) instead of the data dir's SQLite.
    #[arg(long, global = true, env = crate::serve::DATABASE_ENV, hide_env_values = true)]
    database: Option<String>,
}

#[derive(Debug, clap::Subcommand)]
pub enum PeopleCommand {
    /// Add a person; prints their token as the only line on stdout (shown once).
    Add {
        name: String,
        /// task_author, repo_maintainer, security_reviewer or platform_admin (repeatable).
        #[arg(long = "role")]
        roles: Vec<String>,
        #[command(flatten)]
        db: Database,
    },
    /// List people and their roles.
    List {
        /// One JSON document instead of a table.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        db: Database,
    },
    /// Remove a person; their tokens stop working at once.
    Remove {
        name: String,
        #[command(flatten)]
        db: Database,
    },
    /// Print a one-time link that enrols a passkey for NAME in the web desk (the only line on
    /// stdout; it works once, for --for).
    Invite {
        name: String,
        /// How long the link works: 15m, 1h, 1d (at most a day).
        #[arg(long = "for", default_value = "15m")]
        valid_for: String,
        /// The desk's address as the person will open it (default: the service's public URL
        /// or ASSENT_URL, with 127.0.0.1 as localhost, else http://localhost:7391).
        #[arg(long)]
        url: Option<String>,
        #[command(flatten)]
        db: Database,
    },
    /// Change a person's roles.
    Roles {
        name: String,
        #[arg(long = "add")]
        add: Vec<String>,
        #[arg(long = "remove")]
        remove: Vec<String>,
        #[command(flatten)]
        db: Database,
    },
}

#[derive(Debug, clap::Subcommand)]
pub enum AgentsCommand {
    /// Add an agent (or CI job); prints its requester token as the only line on stdout.
    Add {
        name: String,
        #[command(flatten)]
        db: Database,
    },
    /// List agents.
    List {
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        db: Database,
    },
    /// Remove an agent; its tokens stop working at once.
    Remove {
        name: String,
        #[command(flatten)]
        db: Database,
    },
}

#[derive(Debug, thiserror::Error)]
enum AdminError {
    #[error(transparent)]
    Directory(#[from] DirectoryError),
    #[error(transparent)]
    Role(#[from] assent_core::NameError),
    #[error("no data dir: pass --data-dir")]
    NoDataDir,
    #[error(transparent)]
    Database(#[from] assent_server::DatabaseChoiceError),
    #[error("name the roles to change with --add ROLE and/or --remove ROLE")]
    NothingToChange,
    #[error("cannot start: {0}")]
    Runtime(std::io::Error),
}

pub fn run_people(command: PeopleCommand) -> ExitCode {
    report("people", people(command))
}

pub fn run_agents(command: AgentsCommand) -> ExitCode {
    report("agents", agents(command))
}

fn report(what: &str, outcome: Result<String, AdminError>) -> ExitCode {
    match outcome {
        Ok(out) => {
            if !out.is_empty() {
                println!("{out}");
            }
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("assent {what}: {err}");
            ExitCode::FAILURE
        }
    }
}

fn people(command: PeopleCommand) -> Result<String, AdminError> {
    match command {
        PeopleCommand::Add { name, roles, db } => {
            let roles = parse_roles(&roles)?;
            with_directory(
                &db,
                |dir| async move { dir.add_person(&name, &roles).await },
            )
        }
        PeopleCommand::List { json, db } => with_directory(&db, |dir| async move {
            dir.list(IdentityKind::Person)
                .await
                .map(|list| render(&list, json))
        }),
        PeopleCommand::Remove { name, db } => with_directory(&db, |dir| async move {
            dir.remove(&name, IdentityKind::Person).await?;
            eprintln!("assent people: removed {name}; their tokens no longer work");
            Ok(String::new())
        }),
        PeopleCommand::Invite {
            name,
            valid_for,
            url,
            db,
        } => {
            let desk = desk_url(url.as_deref(), std::env::var(assent_client::URL_ENV).ok());
            with_directory(&db, |dir| async move {
                let invite = dir.invite(&name, &valid_for, &desk).await?;
                eprintln!(
                    "assent people: this link enrols a passkey for {} once, until {}",
                    invite.person,
                    invite.expires_at.format("%Y-%m-%d %H:%M:%S UTC")
                );
                Ok(invite.link)
            })
        }
        PeopleCommand::Roles {
            name,
            add,
            remove,
            db,
        } => {
            if add.is_empty() && remove.is_empty() {
                return Err(AdminError::NothingToChange);
            }
            let (add, remove) = (parse_roles(&add)?, parse_roles(&remove)?);
            with_directory(&db, |dir| async move {
                let person = dir.roles(&name, &add, &remove).await?;
                Ok(format!(
                    "{}: {}",
                    person.name,
                    roles_text(person.roles.iter())
                ))
            })
        }
    }
}

fn agents(command: AgentsCommand) -> Result<String, AdminError> {
    match command {
        AgentsCommand::Add { name, db } => {
            with_directory(&db, |dir| async move { dir.add_agent(&name).await })
        }
        AgentsCommand::List { json, db } => with_directory(&db, |dir| async move {
            dir.list(IdentityKind::Agent)
                .await
                .map(|list| render(&list, json))
        }),
        AgentsCommand::Remove { name, db } => with_directory(&db, |dir| async move {
            dir.remove(&name, IdentityKind::Agent).await?;
            eprintln!("assent agents: removed {name}; its tokens no longer work");
            Ok(String::new())
        }),
    }
}

/// Where the person will open the desk: `--url`, else the service `ASSENT_URL` names, else
/// the local default — with a loopback address written `localhost`, the name passkeys accept.
fn desk_url(flag: Option<&str>, env_url: Option<String>) -> String {
    let base = flag
        .map(str::to_owned)
        .or(env_url.filter(|url| !url.trim().is_empty()))
        .unwrap_or_else(|| assent_protocol::DEFAULT_URL.to_owned());
    base.trim()
        .trim_end_matches('/')
        .replace("://127.0.0.1:", "://localhost:")
        .replace("://[::1]:", "://localhost:")
}

fn parse_roles(names: &[String]) -> Result<Vec<Role>, AdminError> {
    Ok(names
        .iter()
        .map(|name| name.parse::<Role>())
        .collect::<Result<_, _>>()?)
}

/// Opens the directory, runs `op`, closes it (so the database is released cleanly).
fn with_directory<F, Fut>(db: &Database, op: F) -> Result<String, AdminError>
where
    F: FnOnce(Directory) -> Fut,
    Fut: std::future::Future<Output = Result<String, DirectoryError>>,
{
    let database = db
        .database
        .as_deref()
        .map(str::parse::<assent_server::Database>)
        .transpose()?;
    let postgres = match database {
        Some(assent_server::Database::Postgres(url)) => Some(url),
        Some(assent_server::Database::Sqlite) | None => None,
    };
    let data_dir = match (&db.data_dir, &postgres) {
        (Some(dir), _) => dir.clone(),
        (None, Some(_)) => PathBuf::new(),
        (None, None) => assent_client::default_data_dir().ok_or(AdminError::NoDataDir)?,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(AdminError::Runtime)?;
    runtime.block_on(async move {
        let directory = match &postgres {
            Some(url) => Directory::connect(url).await?,
            None => Directory::open(&data_dir).await?,
        };
        let outcome = op(directory.clone()).await;
        directory.close().await;
        Ok(outcome?)
    })
}

fn roles_text<'a>(roles: impl Iterator<Item = &'a Role>) -> String {
    let names: Vec<&str> = roles.map(|r| assent_core::role_name(*r)).collect();
    if names.is_empty() {
        "(no roles)".to_owned()
    } else {
        names.join(", ")
    }
}

fn render(list: &[IdentityInfo], json: bool) -> String {
    if json {
        return serde_json::to_string_pretty(&serde_json::json!({ "identities": list }))
            .unwrap_or_default();
    }
    let mut out = format!("{:<24} {:<7} {:<6} ROLES", "NAME", "KIND", "TOKENS");
    for identity in list {
        out.push_str(&format!(
            "\n{:<24} {:<7} {:<6} {}",
            identity.name,
            identity.kind.as_str(),
            identity.tokens,
            roles_text(identity.roles.iter())
        ));
    }
    out
}
