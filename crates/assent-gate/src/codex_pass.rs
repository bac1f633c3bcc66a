//! What Codex's PreToolUse decided, handed to the PermissionRequest that may follow for the
//! same call, so a person is asked once per call, not twice.
//!
//! Codex runs PreToolUse for every call, then — only when it asks for permission itself (an
//! escalation, a "prompt" rule) — PermissionRequest, without the call's id. The gate holds
//! PreToolUse for a person, so by the time a PermissionRequest arrives, Assent has already
//! allowed that very call (a denial stops the call before any permission step). The PreToolUse
//! gate leaves a *pass* for each call it allowed; the PermissionRequest gate takes one pass for
//! its call (same session, turn and command) and answers allow without submitting again — a
//! "once" grant is spent by then, and submitting again would open a second prompt.
//!
//! A pass is an empty file named by the call, in a directory only the user can read (inside
//! Assent's state dir, which the policy blocks agents from), kept for [`PASS_LIFETIME`].
//! Taking it is removing it, so two equal calls in one turn each take their own. Even a forged
//! pass would gain little: every call still passes PreToolUse first, which decides it in full;
//! a pass only answers Codex's own second question about the same call.
//! PostToolUse drops the call's pass (the usual case: Codex did not ask), SessionEnd the
//! session's.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::Value;
use sha2::{Digest, Sha256};

/// How long a pass stays good after its PreToolUse answered (PermissionRequest follows at once).
pub const PASS_LIFETIME: Duration = Duration::from_secs(15 * 60);

/// The passes of every session: `$XDG_STATE_HOME/assent/codex-calls`, else
/// `~/.local/state/assent/codex-calls` — inside Assent's state dir, which the policy keeps
/// every agent out of (reading, writing, listing), so an agent cannot plant a pass.
pub fn default_root() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let base = var("XDG_STATE_HOME").map(PathBuf::from).or_else(|| {
        var("HOME")
            .map(PathBuf::from)
            .or_else(dirs::home_dir)
            .map(|home| home.join(".local").join("state"))
    })?;
    Some(base.join("assent").join("codex-calls"))
}

/// One call as both hooks name it: its session, turn and command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    session: String,
    /// Hex digest of the turn and the tool input: the prefix of its passes' names.
    call: String,
}

impl Call {
    /// The call a hook payload is about; `None` without a session id.
    pub fn of(payload: &Value) -> Option<Call> {
        let text = |key: &str| payload.get(key).and_then(Value::as_str).unwrap_or("");
        let session = text("session_id");
        if session.is_empty() {
            return None;
        }
        // PermissionRequest adds the model's justification as `description`: the command is
        // what names the call in both.
        let input = payload.get("tool_input");
        let command = input
            .and_then(|i| i.get("command"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let mut digest = Sha256::new();
        for part in [text("turn_id"), text("tool_name"), command] {
            digest.update(part.len().to_le_bytes());
            digest.update(part.as_bytes());
        }
        Some(Call {
            session: short_hex(&Sha256::digest(session.as_bytes()), 16),
            call: short_hex(&digest.finalize(), 16),
        })
    }
}

/// The passes under one root directory.
#[derive(Debug, Clone)]
pub struct Passes {
    root: PathBuf,
}

impl Passes {
    pub fn new(root: PathBuf) -> Passes {
        Passes { root }
    }

    fn session_dir(&self, call: &Call) -> PathBuf {
        self.root.join(&call.session)
    }

    fn pass_path(&self, call: &Call, call_id: &str) -> PathBuf {
        let id = short_hex(&Sha256::digest(call_id.as_bytes()), 8);
        self.session_dir(call).join(format!("{}.{id}", call.call))
    }

    /// Leaves a pass for `call` (id `call_id`), allowed by PreToolUse.
    pub fn leave(&self, call: &Call, call_id: &str) -> std::io::Result<()> {
        let dir = self.session_dir(call);
        create_private_dir(&dir)?;
        std::fs::write(self.pass_path(call, call_id), b"")
    }

    /// Takes one live pass for `call`: true when there was one (it is gone now).
    pub fn take(&self, call: &Call, now: SystemTime) -> bool {
        let Ok(entries) = std::fs::read_dir(self.session_dir(call)) else {
            return false;
        };
        let prefix = format!("{}.", call.call);
        for entry in entries.flatten() {
            let name = entry.file_name();
            if !name.to_string_lossy().starts_with(&prefix) {
                continue;
            }
            let live = entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|written| is_live(written, now));
            // Whoever removes it has taken it: two equal calls never share a pass.
            let taken = std::fs::remove_file(entry.path()).is_ok();
            if taken && live {
                return true;
            }
        }
        false
    }

    /// Drops the pass of `call_id`, if PermissionRequest did not take it.
    pub fn drop_pass(&self, call: &Call, call_id: &str) {
        let _ = std::fs::remove_file(self.pass_path(call, call_id));
    }

    /// Drops every pass of the session.
    pub fn end_session(&self, call: &Call) {
        let _ = std::fs::remove_dir_all(self.session_dir(call));
    }
}

/// The first `bytes` bytes of a digest, in hex: enough to tell calls apart in a file name.
fn short_hex(digest: &[u8], bytes: usize) -> String {
    hex::encode(digest.iter().take(bytes).copied().collect::<Vec<u8>>())
}

fn is_live(written: SystemTime, now: SystemTime) -> bool {
    now.duration_since(written)
        .map_or(true, |age| age <= PASS_LIFETIME)
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    // A directory made earlier with a looser mode is narrowed; one not ours fails here.
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn payload(event: &str, session: &str, command: &str) -> Value {
        let mut p = json!({
            "session_id": session, "turn_id": "t1", "hook_event_name": event,
            "tool_name": "Bash", "tool_input": { "command": command },
        });
        if event == "PermissionRequest" {
            p["tool_input"]["description"] = json!("need it");
        } else {
            p["tool_use_id"] = json!("call_1");
        }
        p
    }

    #[test]
    fn a_pass_is_taken_once_by_the_permission_request_of_the_same_call() {
        let tmp = tempfile::tempdir().unwrap();
        let passes = Passes::new(tmp.path().to_owned());
        let pre = Call::of(&payload("PreToolUse", "s1", "git push")).unwrap();
        let ask = Call::of(&payload("PermissionRequest", "s1", "git push")).unwrap();
        assert_eq!(
            pre, ask,
            "the justification Codex adds to PermissionRequest does not change the call"
        );
        passes.leave(&pre, "call_1").unwrap();
        let other = Call::of(&payload("PermissionRequest", "s1", "git push --force")).unwrap();
        assert!(
            !passes.take(&other, SystemTime::now()),
            "a pass covers only its own command"
        );
        let other_session = Call::of(&payload("PermissionRequest", "s2", "git push")).unwrap();
        assert!(
            !passes.take(&other_session, SystemTime::now()),
            "a pass covers only its own session"
        );
        assert!(
            passes.take(&ask, SystemTime::now()),
            "the call PreToolUse allowed is allowed"
        );
        assert!(
            !passes.take(&ask, SystemTime::now()),
            "a pass is spent once: a second PermissionRequest is decided in full"
        );
    }

    #[test]
    fn equal_calls_each_take_their_own_and_old_passes_are_dead() {
        let tmp = tempfile::tempdir().unwrap();
        let passes = Passes::new(tmp.path().to_owned());
        let call = Call::of(&payload("PreToolUse", "s1", "cat a")).unwrap();
        passes.leave(&call, "call_1").unwrap();
        passes.leave(&call, "call_2").unwrap();
        let now = SystemTime::now();
        assert!(passes.take(&call, now), "the first equal call has a pass");
        assert!(passes.take(&call, now), "and so has the second");
        assert!(!passes.take(&call, now), "but only two calls were allowed");

        passes.leave(&call, "call_3").unwrap();
        let later = now + PASS_LIFETIME + Duration::from_secs(60);
        assert!(
            !passes.take(&call, later),
            "a pass outlives its lifetime for nothing"
        );
        passes.leave(&call, "call_4").unwrap();
        passes.drop_pass(&call, "call_4");
        assert!(
            !passes.take(&call, SystemTime::now()),
            "PostToolUse dropped the pass of the call that ran"
        );
        passes.leave(&call, "call_5").unwrap();
        passes.end_session(&call);
        assert!(
            !passes.take(&call, SystemTime::now()),
            "SessionEnd drops the session's passes"
        );
    }

    #[test]
    fn a_payload_without_a_session_names_no_call() {
        assert_eq!(
            Call::of(&json!({ "tool_input": { "command": "ls" } })),
            None,
            "passes are per session; without one there is nothing to hand over"
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_session_directory_is_the_users_alone() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let passes = Passes::new(tmp.path().join("calls"));
        let call = Call::of(&payload("PreToolUse", "s1", "ls")).unwrap();
        passes.leave(&call, "c").unwrap();
        let mode = std::fs::metadata(passes.session_dir(&call))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(
            mode & 0o077,
            0,
            "another user must not plant passes: {mode:o}"
        );
    }
}
