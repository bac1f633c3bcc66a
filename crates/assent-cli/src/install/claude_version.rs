//! Whether the Claude Code on `PATH` honours the hooks' `onFailure: "block"` (2.1.295 and
//! later). An older one treats a hook that cannot start (the `assent` binary missing or
//! broken) as a non-blocking error and runs the tool call: install still writes the hooks,
//! and says so loudly.

use std::fmt;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The program asked for its version, looked up on `PATH`.
const PROGRAM: &str = "claude";
/// The first Claude Code that reads `onFailure`.
pub const ON_FAILURE_SINCE: Version = Version {
    major: 2,
    minor: 1,
    patch: 295,
};
/// How long `claude --version` may take before the version counts as unknown.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The first `X.Y.Z` word of `claude --version`'s output (`2.1.300 (Claude Code)`; a `v`
/// prefix and a pre-release suffix are allowed).
pub fn parse(output: &str) -> Option<Version> {
    output.split_whitespace().find_map(|word| {
        let mut parts = word.strip_prefix('v').unwrap_or(word).splitn(3, '.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        let patch = parts.next()?;
        let digits = patch
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(patch.len());
        let patch = patch.get(..digits)?.parse().ok()?;
        Some(Version {
            major,
            minor,
            patch,
        })
    })
}

/// What `claude --version` told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClaudeCode {
    /// No `claude` on `PATH`.
    NotFound,
    /// It ran but its version could not be had: why.
    Unknown(String),
    Found(Version),
}

/// Asks the `claude` on `PATH` for its version, waiting at most [`PROBE_TIMEOUT`].
pub fn probe() -> ClaudeCode {
    probe_program(Path::new(PROGRAM), PROBE_TIMEOUT)
}

/// Asks `program --version` (a name looked up on `PATH`, or a path), waiting at most
/// `timeout`; `assent doctor` asks `codex` the same way.
pub(crate) fn probe_program(program: &Path, timeout: Duration) -> ClaudeCode {
    let spawned = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return ClaudeCode::NotFound,
        Err(err) => return ClaudeCode::Unknown(format!("`claude --version` did not run: {err}")),
    };
    let Some(mut stdout) = child.stdout.take() else {
        let _ = child.kill();
        let _ = child.wait();
        return ClaudeCode::Unknown("`claude --version` gave no output".to_owned());
    };
    // The output is read on a thread so the wait for it can be bounded; a hung `claude` is
    // killed, which ends the read.
    let (sender, answer) = mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stdout.read_to_end(&mut bytes);
        let _ = sender.send(String::from_utf8_lossy(&bytes).into_owned());
    });
    let Ok(output) = answer.recv_timeout(timeout) else {
        let _ = child.kill();
        let _ = child.wait();
        return ClaudeCode::Unknown(format!(
            "`claude --version` did not answer within {timeout:?}"
        ));
    };
    match child.wait() {
        Ok(status) if status.success() => match parse(&output) {
            Some(version) => ClaudeCode::Found(version),
            None => ClaudeCode::Unknown(format!(
                "`claude --version` printed no version: {:?}",
                output.trim()
            )),
        },
        Ok(status) => ClaudeCode::Unknown(format!("`claude --version` failed ({status})")),
        Err(err) => ClaudeCode::Unknown(format!("`claude --version` did not end: {err}")),
    }
}

/// What to tell the person about the Claude Code found, for hooks running `bin`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Advice {
    /// All is well (stdout).
    Fine(String),
    /// Worth knowing, nothing wrong (stderr).
    Note(String),
    /// The hooks may fail open (stderr).
    Warning(String),
}

pub fn advice(found: &ClaudeCode, bin: &Path) -> Advice {
    let bin = bin.display();
    match found {
        ClaudeCode::Found(version) if *version >= ON_FAILURE_SINCE => Advice::Fine(format!(
            "Claude Code {version} honours onFailure: if {bin} is missing or fails to start, \
             the tool call is blocked"
        )),
        ClaudeCode::Found(version) => Advice::Warning(format!(
            "Claude Code {version} is older than {ON_FAILURE_SINCE} and does not honour \
             onFailure: if {bin} is missing or fails to start, this Claude Code runs the tool \
             unguarded. Upgrade Claude Code to {ON_FAILURE_SINCE} or later (`claude update`)."
        )),
        ClaudeCode::NotFound => Advice::Note(format!(
            "`claude` was not found on PATH, so its version is unknown: the hooks apply when \
             Claude Code is installed; use {ON_FAILURE_SINCE} or later, as older versions run \
             the tool unguarded if {bin} is missing or fails to start."
        )),
        ClaudeCode::Unknown(why) => Advice::Warning(format!(
            "cannot tell Claude Code's version ({why}). Versions before {ON_FAILURE_SINCE} do \
             not honour onFailure and run the tool unguarded if {bin} is missing or fails to \
             start; check with `claude --version`."
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(major: u64, minor: u64, patch: u64) -> Option<Version> {
        Some(Version {
            major,
            minor,
            patch,
        })
    }

    #[test]
    fn versions_are_read_from_what_claude_prints() {
        let rows = [
            ("2.1.300 (Claude Code)\n", version(2, 1, 300)),
            ("2.1.295", version(2, 1, 295)),
            ("claude v2.1.294-beta.1", version(2, 1, 294)),
            ("10.0.0 (Claude Code)", version(10, 0, 0)),
            ("Claude Code", None),
            ("2.1 (Claude Code)", None),
            ("", None),
        ];
        for (output, want) in rows {
            assert_eq!(parse(output), want, "{output:?}");
        }
    }

    #[test]
    fn versions_compare_by_number_not_text() {
        assert!(version(2, 1, 300) > version(2, 1, 295), "300 > 295");
        assert!(version(2, 2, 0) > version(2, 1, 999), "minor before patch");
        assert!(
            version(2, 1, 99) < version(2, 1, 295),
            "99 < 295, though '99' > '295'"
        );
    }

    #[test]
    fn advice_follows_the_version() {
        let bin = Path::new("/usr/local/bin/assent");
        let rows = [
            (ClaudeCode::Found(ON_FAILURE_SINCE), "fine"),
            (
                ClaudeCode::Found(Version {
                    major: 2,
                    minor: 1,
                    patch: 294,
                }),
                "warning",
            ),
            (ClaudeCode::NotFound, "note"),
            (ClaudeCode::Unknown("garbage".to_owned()), "warning"),
        ];
        for (found, want) in rows {
            let got = match advice(&found, bin) {
                Advice::Fine(_) => "fine",
                Advice::Note(_) => "note",
                Advice::Warning(text) => {
                    assert!(
                        text.contains("unguarded") && text.contains("/usr/local/bin/assent"),
                        "a warning names the risk and the binary: {text}"
                    );
                    "warning"
                }
            };
            assert_eq!(got, want, "{found:?}");
        }
    }

    #[test]
    fn a_hung_claude_is_killed_after_the_timeout() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let program = dir.path().join("claude");
        std::fs::write(&program, "#!/bin/sh\nexec sleep 30\n").expect("write");
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let started = std::time::Instant::now();

        let found = probe_program(&program, Duration::from_millis(300));

        assert!(
            matches!(&found, ClaudeCode::Unknown(why) if why.contains("did not answer")),
            "a claude that never answers leaves the version unknown: {found:?}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the wait is bounded, not the 30 s the program sleeps"
        );
    }

    #[test]
    fn a_missing_program_is_not_found() {
        assert_eq!(
            probe_program(Path::new("/nonexistent/claude"), PROBE_TIMEOUT),
            ClaudeCode::NotFound
        );
    }
}
