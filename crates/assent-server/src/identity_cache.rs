//! Token → identity, cached in memory, never stale.
//!
//! Every request still asks the database one cheap question: the identity version (a counter
//! triggers bump on every change of the identities or their tokens, whoever makes it: this
//! service, another replica, `assent people …` in another process, a SQL shell). An entry is
//! served only while that counter is the value read *before* the entry was looked up, so a
//! removed person, a rotated token or a changed role applies to the very next request. When
//! the counter cannot be read, the request fails (nothing is served from the cache).

use std::collections::HashMap;
use std::sync::Mutex;

use assent_core::Identity;

use crate::store::{Store, StoreError};

/// Entries kept at most; past it the cache starts over (tokens are few; this bounds memory
/// if many distinct valid tokens are presented).
const MAX_ENTRIES: usize = 4096;

#[derive(Debug, Default)]
pub struct IdentityCache {
    entries: Mutex<Entries>,
}

#[derive(Debug, Default)]
struct Entries {
    /// The identity version every entry was looked up under.
    version: i64,
    by_hash: HashMap<String, Identity>,
}

impl IdentityCache {
    /// The identity holding the token whose SHA-256 is `hash`, as of now.
    pub async fn identity(
        &self,
        store: &dyn Store,
        hash: &str,
    ) -> Result<Option<Identity>, StoreError> {
        let version = store.identity_version().await?;
        if let Some(identity) = self.cached(version, hash) {
            return Ok(Some(identity));
        }
        // Looked up after `version` was read: it is at least as new as that version, so it
        // may be served for as long as the version stays the same.
        let found = store.identity_by_token(hash).await?;
        if let Some(identity) = &found {
            self.remember(version, hash, identity);
        }
        Ok(found)
    }

    fn cached(&self, version: i64, hash: &str) -> Option<Identity> {
        let entries = self.entries.lock().ok()?;
        if entries.version != version {
            return None;
        }
        entries.by_hash.get(hash).cloned()
    }

    fn remember(&self, version: i64, hash: &str, identity: &Identity) {
        let Ok(mut entries) = self.entries.lock() else {
            return;
        };
        if version < entries.version {
            return; // a slower request read an older version: its answer may be stale
        }
        if version > entries.version || entries.by_hash.len() >= MAX_ENTRIES {
            entries.by_hash.clear();
            entries.version = version;
        }
        entries.by_hash.insert(hash.to_owned(), identity.clone());
    }
}
