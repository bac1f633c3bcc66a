//! The policy in force, swapped in place: after a suggestion is applied, and when someone else
//! edits the file (`assent policy suggest --apply`, a text editor). Readers take the current
//! policy with one atomic load, so the submit path never waits on a reload. An edit that does
//! not load keeps the policy in force; the error is logged and shown by `GET /v1/policy`.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use arc_swap::ArcSwap;
use assent_core::policy_edit::edit_policy;
use assent_core::suggest::PolicyChange;
use assent_core::Policy;
use assent_fs::atomic_file;
use assent_protocol::PolicyStatus;
use chrono::{DateTime, Utc};

/// The policy file's name in the data dir when the service was given none.
pub const POLICY_FILE: &str = "policy.toml";
/// Mode of a policy file the service creates: the owner's alone.
const NEW_FILE_MODE: u32 = 0o600;

/// The policy in force and the file it follows.
#[derive(Debug)]
pub struct LivePolicy {
    current: ArcSwap<Policy>,
    path: PathBuf,
    /// What the service last saw of the file. Held across every read-edit-write of the file,
    /// so an apply and a reload never interleave.
    file: Mutex<FileState>,
}

#[derive(Debug)]
struct FileState {
    seen: Option<Stamp>,
    /// A change seen by the last check: loaded only if the next check sees the same, so a file
    /// caught half-written (an editor writing in place) is never put in force.
    settling: Option<Option<Stamp>>,
    error: Option<String>,
    loaded_at: DateTime<Utc>,
}

/// Enough of a file's metadata to notice a change: an atomic replace changes the inode, an
/// edit in place the time or the length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    inode: u64,
    len: u64,
    modified: Option<SystemTime>,
}

fn stamp(path: &Path) -> Option<Stamp> {
    std::fs::metadata(path).ok().map(|meta| Stamp {
        inode: meta.ino(),
        len: meta.len(),
        modified: meta.modified().ok(),
    })
}

/// What a re-check of the file found.
#[derive(Debug)]
pub enum Recheck {
    Unchanged,
    /// The edit loaded: this policy is in force now.
    Reloaded(Arc<Policy>),
    /// The edit does not load: the policy in force stays.
    Invalid(String),
}

/// Why a change was not applied.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    #[error("the policy already has {0}")]
    AlreadyThere(String),
    #[error("{path}: {message}; nothing written")]
    Invalid { path: PathBuf, message: String },
    #[error("cannot read or write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// A policy file that does not load.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct PolicyLoadError {
    pub path: PathBuf,
    pub message: String,
}

/// The policy file `policy_path` names, else `policy.toml` in the data dir; with no path
/// given and that file present, its policy replaces `policy` (it holds applied suggestions).
pub fn resolve(
    policy: &Policy,
    policy_path: Option<&Path>,
    data_dir: &Path,
) -> Result<(Policy, PathBuf), PolicyLoadError> {
    if let Some(path) = policy_path {
        return Ok((policy.clone(), path.to_owned()));
    }
    let path = data_dir.join(POLICY_FILE);
    let error = |message: String| PolicyLoadError {
        path: path.clone(),
        message,
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let loaded = Policy::from_toml(&text).map_err(|err| error(err.to_string()))?;
            Ok((loaded, path))
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok((policy.clone(), path)),
        Err(err) => Err(error(err.to_string())),
    }
}

impl LivePolicy {
    /// `policy`, read from `path` just now.
    pub fn new(policy: Policy, path: PathBuf, now: DateTime<Utc>) -> LivePolicy {
        LivePolicy {
            current: ArcSwap::from_pointee(policy),
            file: Mutex::new(FileState {
                seen: stamp(&path),
                settling: None,
                error: None,
                loaded_at: now,
            }),
            path,
        }
    }

    /// The policy in force: one atomic load, no lock.
    pub fn current(&self) -> Arc<Policy> {
        self.current.load_full()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn state(&self) -> MutexGuard<'_, FileState> {
        // A panic while holding it left plain data behind: keep using it.
        self.file
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub fn status(&self) -> PolicyStatus {
        let state = self.state();
        PolicyStatus {
            version: self.current().version().to_owned(),
            path: self.path.display().to_string(),
            exists: self.path.exists(),
            error: state.error.clone(),
            loaded_at: state.loaded_at,
        }
    }

    /// Loads the file once it changed and then held still for one check (blocking I/O: a
    /// `stat`, and a read when it changed). A file that went away keeps the policy in force;
    /// an edit that leaves the policy as it was (a comment) changes nothing.
    pub fn recheck(&self, now: DateTime<Utc>) -> Recheck {
        let mut state = self.state();
        let seen = stamp(&self.path);
        if seen == state.seen {
            state.settling = None;
            return Recheck::Unchanged;
        }
        if state.settling != Some(seen) {
            state.settling = Some(seen);
            return Recheck::Unchanged;
        }
        state.settling = None;
        state.seen = seen;
        if seen.is_none() {
            return Recheck::Unchanged;
        }
        let loaded = std::fs::read_to_string(&self.path)
            .map_err(|err| err.to_string())
            .and_then(|text| Policy::from_toml(&text).map_err(|err| err.to_string()));
        match loaded {
            Ok(policy) => {
                state.error = None;
                if policy.version() == self.current().version() {
                    return Recheck::Unchanged;
                }
                let policy = Arc::new(policy);
                self.current.store(policy.clone());
                state.loaded_at = now;
                Recheck::Reloaded(policy)
            }
            Err(message) => {
                state.error = Some(message.clone());
                Recheck::Invalid(message)
            }
        }
    }

    /// Writes `change` into the file (keeping its comments), checks the result loads, replaces
    /// the file atomically and puts the new policy in force (blocking I/O). Edits made to the
    /// file by others are kept: the change is made to what is on disk now.
    pub fn apply(
        &self,
        change: &PolicyChange,
        now: DateTime<Utc>,
    ) -> Result<Arc<Policy>, ApplyError> {
        let mut state = self.state();
        let io = |source| ApplyError::Io {
            path: self.path.clone(),
            source,
        };
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(err) => return Err(io(err)),
        };
        let invalid = |message: String| ApplyError::Invalid {
            path: self.path.clone(),
            message,
        };
        let edited = edit_policy(&text, std::slice::from_ref(change))
            .map_err(|err| invalid(err.to_string()))?;
        if edited == text {
            return Err(ApplyError::AlreadyThere(change.describe()));
        }
        let policy = Policy::from_toml(&edited)
            .map_err(|err| invalid(format!("the changed policy would not load ({err})")))?;
        atomic_file::write(&self.path, edited.as_bytes(), NEW_FILE_MODE).map_err(io)?;
        let policy = Arc::new(policy);
        self.current.store(policy.clone());
        state.seen = stamp(&self.path);
        state.settling = None;
        state.error = None;
        state.loaded_at = now;
        Ok(policy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_loaded_once_it_holds_still_and_a_broken_one_is_not() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("policy.toml");
        let now = Utc::now();
        let live = LivePolicy::new(Policy::default(), path.clone(), now);
        let defaults = live.current().version().to_owned();

        std::fs::write(&path, "trusted_repos = [\"/src/shop\"]\n").expect("write");
        assert!(
            matches!(live.recheck(now), Recheck::Unchanged),
            "a change just seen may be half-written: wait one check"
        );
        assert_eq!(live.current().version(), defaults, "not loaded yet");
        let Recheck::Reloaded(policy) = live.recheck(now) else {
            panic!("a change that held still for a check is loaded");
        };
        assert_eq!(
            live.current().version(),
            policy.version(),
            "the loaded policy is in force"
        );

        std::fs::write(&path, "trusted_repos = [\n").expect("write");
        live.recheck(now);
        assert!(
            matches!(live.recheck(now), Recheck::Invalid(_)),
            "a broken edit is reported"
        );
        assert_eq!(
            live.current().version(),
            policy.version(),
            "and the policy in force stays"
        );
        assert!(live.status().error.is_some(), "the status shows the error");
    }
}
