//! People and agents: tokens (made here, stored hashed), the first identities of a local
//! install, and the admin operations behind `assent people|agents …`.

use std::path::Path;
use std::sync::Arc;

use assent_core::{check_name, Identity, IdentityKind, NameError, Role, ALL_ROLES};
use assent_protocol::IdentityInfo;

use crate::clock::{Clock, SystemClock};
use crate::store::{PgStore, SqliteStore, Store, StoreError, TokenRecord};
pub use crate::token::{new_token, token_hash};

/// The person a local install starts with (every role); `approver.token` is theirs.
pub const OWNER: &str = "owner";
/// The agent a local install starts with; `requester.token` is theirs.
pub const DEFAULT_AGENT: &str = "default";
/// Token labels: where the token lives.
pub const LABEL_APPROVER_FILE: &str = "approver.token";
pub const LABEL_REQUESTER_FILE: &str = "requester.token";
pub const LABEL_DESK: &str = "desk";
pub const LABEL_CLI: &str = "cli";
/// The token `assent install AGENT` made for the agent it installed.
pub const LABEL_INSTALL: &str = "install";

/// Why an admin operation on identities failed.
#[derive(Debug, thiserror::Error)]
pub enum DirectoryError {
    #[error(transparent)]
    Name(#[from] NameError),
    #[error("{0} already exists (names are shared by people and agents)")]
    Exists(String),
    #[error("there is no {kind} named {name}")]
    NotFound { kind: &'static str, name: String },
    #[error(transparent)]
    Store(StoreError),
    #[error(transparent)]
    Invite(#[from] crate::web::invite::InviteError),
}

impl From<StoreError> for DirectoryError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::Conflict(name) => DirectoryError::Exists(name),
            other => DirectoryError::Store(other),
        }
    }
}

/// The identities of a service's database, for admin commands (`assent people add …`). Works
/// beside a running service on the same database.
#[derive(Debug, Clone)]
pub struct Directory {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
}

impl Directory {
    /// Opens (creating and migrating) the database in `data_dir`.
    pub async fn open(data_dir: &Path) -> Result<Directory, DirectoryError> {
        std::fs::create_dir_all(data_dir).map_err(|err| {
            DirectoryError::Store(StoreError::Corrupt(format!(
                "cannot create {}: {err}",
                data_dir.display()
            )))
        })?;
        let store = SqliteStore::open(&data_dir.join("assent.db")).await?;
        let directory = Directory::over(Arc::new(store), Arc::new(SystemClock));
        directory
            .store
            .seed_identities(directory.clock.now())
            .await?;
        Ok(directory)
    }

    /// Opens the identities of a shared PostgreSQL database (`postgres://…`), migrating it
    /// when no replica has yet. Nothing is seeded: every person and agent is added by name.
    pub async fn connect(url: &str) -> Result<Directory, DirectoryError> {
        let store = PgStore::open(url).await?;
        Ok(Directory::over(Arc::new(store), Arc::new(SystemClock)))
    }

    pub fn over(store: Arc<dyn Store>, clock: Arc<dyn Clock>) -> Directory {
        Directory { store, clock }
    }

    /// Creates a person with `roles`; returns their token (shown once, stored hashed).
    pub async fn add_person(&self, name: &str, roles: &[Role]) -> Result<String, DirectoryError> {
        self.add(Identity::person(name, roles.iter().copied()))
            .await
    }

    /// A one-time link (`<desk_url>/desk/enrol#<code>`) that enrols a passkey for the person
    /// `name`, working for `valid_for` (e.g. `15m`); audited as made by `admin`.
    pub async fn invite(
        &self,
        name: &str,
        valid_for: &str,
        desk_url: &str,
    ) -> Result<assent_protocol::Invite, DirectoryError> {
        let valid_for = crate::web::invite::parse_for(valid_for)?;
        let invite = crate::web::invite::make(
            self.store.as_ref(),
            name,
            None,
            valid_for,
            desk_url,
            self.clock.now(),
        )
        .await?;
        Ok(invite)
    }

    /// Creates an agent; returns its requester token.
    pub async fn add_agent(&self, name: &str) -> Result<String, DirectoryError> {
        self.add(Identity::agent(name)).await
    }

    /// A fresh token for the agent `name`, made by `assent install` for the agent it installs
    /// (`claude-code`, `codex`…): the agent is added when there is none, else its install
    /// token is replaced (an earlier one stops working; its other tokens stay). A person of
    /// that name is not touched.
    pub async fn install_token(&self, name: &str) -> Result<String, DirectoryError> {
        check_name(name)?;
        let token = new_token(IdentityKind::Agent);
        let record = TokenRecord {
            hash: &token_hash(&token),
            label: LABEL_INSTALL,
        };
        let now = self.clock.now();
        match self.store.identity(name).await? {
            Some(found) if found.kind != IdentityKind::Agent => {
                return Err(DirectoryError::Exists(name.to_owned()))
            }
            Some(_) => {
                self.store.token_set(name, record, now).await?;
            }
            None => {
                self.store
                    .identity_add(&Identity::agent(name), record, now)
                    .await?
            }
        }
        Ok(token)
    }

    async fn add(&self, identity: Identity) -> Result<String, DirectoryError> {
        check_name(&identity.name)?;
        let token = new_token(identity.kind);
        let record = TokenRecord {
            hash: &token_hash(&token),
            label: LABEL_CLI,
        };
        self.store
            .identity_add(&identity, record, self.clock.now())
            .await?;
        Ok(token)
    }

    pub async fn list(&self, kind: IdentityKind) -> Result<Vec<IdentityInfo>, DirectoryError> {
        Ok(self.store.identities(kind).await?)
    }

    /// Removes a person or agent; its tokens stop working at once.
    pub async fn remove(&self, name: &str, kind: IdentityKind) -> Result<(), DirectoryError> {
        if self.store.identity_remove(name, kind).await? {
            Ok(())
        } else {
            Err(not_found(kind, name))
        }
    }

    /// Adds and removes a person's roles.
    pub async fn roles(
        &self,
        name: &str,
        add: &[Role],
        remove: &[Role],
    ) -> Result<Identity, DirectoryError> {
        self.store
            .person_roles(name, add, remove)
            .await?
            .ok_or_else(|| not_found(IdentityKind::Person, name))
    }

    pub async fn close(&self) {
        self.store.close().await;
    }
}

fn not_found(kind: IdentityKind, name: &str) -> DirectoryError {
    DirectoryError::NotFound {
        kind: kind.as_str(),
        name: name.to_owned(),
    }
}

/// Attaches the data dir's token files (or the desk's in-memory credential) to the identities
/// they stand for, creating `owner` and `default` on a fresh database.
pub(crate) async fn attach(
    store: &dyn Store,
    tokens: &crate::config::Tokens,
    owner_in_memory: bool,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(), StoreError> {
    store.seed_identities(now).await?;
    let requester = TokenRecord {
        hash: &token_hash(&tokens.requester),
        label: LABEL_REQUESTER_FILE,
    };
    if !store.token_set(DEFAULT_AGENT, requester, now).await? {
        tracing::warn!(
            "the agent {DEFAULT_AGENT} was removed, so requester.token no longer works; \
             make agents with `assent agents add NAME`"
        );
    }
    let owner_hash = token_hash(&tokens.approver);
    if owner_in_memory {
        // The desk holds the owner's credential in memory only: a token file an agent could
        // read would undo that, so an older install's file stops working.
        store.token_drop(OWNER, LABEL_APPROVER_FILE).await?;
        let desk = TokenRecord {
            hash: &owner_hash,
            label: LABEL_DESK,
        };
        if !store.token_set(OWNER, desk, now).await? {
            // The person at this machine is the desk's owner: recreate them if removed.
            tracing::warn!("the person {OWNER} was removed; the desk recreates them");
            store
                .identity_add(&Identity::person(OWNER, ALL_ROLES), desk, now)
                .await?;
        }
    } else {
        let file = TokenRecord {
            hash: &owner_hash,
            label: LABEL_APPROVER_FILE,
        };
        if !store.token_set(OWNER, file, now).await? {
            tracing::warn!(
                "the person {OWNER} was removed, so approver.token no longer works; \
                 people decide with their own tokens (`assent people add NAME --role …`)"
            );
        }
    }
    Ok(())
}
