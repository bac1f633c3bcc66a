//! The service answers (`/healthz`) and knows the token (`/v1/me`); the token files and the
//! data dir are private. The judgements are pure; [`probe`] and [`modes`] do the I/O.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use assent_client::{blocking, ClientConfig};
use assent_core::IdentityKind;
use assent_protocol::{Me, APPROVER_TOKEN_FILE, REQUESTER_TOKEN_FILE};

use super::report::Check;

/// How long each call to the service may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);
const START_FIX: &str = "start the service (`assent serve`, or `systemctl --user start assent`), \
                         or point ASSENT_URL (or --url) at where it runs";

/// `/healthz`'s answer at `url`.
pub fn service(url: &str, health: &Result<(), String>) -> Check {
    match health {
        Ok(()) => Check::pass("service", format!("{url} answers /healthz")),
        Err(why) => Check::fail_closed(
            "service",
            format!("{url} does not answer: {why}; every gated tool call is refused"),
            START_FIX,
        ),
    }
}

/// Whose token the gate presents, from `/v1/me`.
pub fn identity(me: &Result<Me, String>) -> Check {
    const CHECK: &str = "identity";
    match me {
        Ok(me) if me.kind == IdentityKind::Agent => {
            Check::pass(CHECK, format!("the token is agent `{}`", me.name))
        }
        Ok(me) => Check::warn(
            CHECK,
            format!("the token is person `{}`, not an agent", me.name),
            "give the gate a requester token: ASSENT_TOKEN from `assent agents add NAME`, or \
             the data dir's requester.token",
        ),
        Err(why) => Check::fail_closed(
            CHECK,
            format!(
                "the service does not accept the token: {why}; every gated tool call is refused"
            ),
            "set ASSENT_TOKEN to a requester token (`assent agents add NAME`), or unset it to use \
             requester.token in the service's data dir",
        ),
    }
}

/// Asks `/healthz` and, when it answers, `/v1/me` with the configured token.
pub fn probe(url: &str, token: Option<&str>) -> Vec<Check> {
    let health = blocking::Client::new(url, "doctor")
        .and_then(|client| client.health(Instant::now() + CALL_TIMEOUT))
        .map_err(|err| err.to_string());
    let mut checks = vec![service(url, &health)];
    if health.is_ok() {
        checks.push(identity(&me(url, token)));
    }
    checks
}

fn me(url: &str, token: Option<&str>) -> Result<Me, String> {
    let config = ClientConfig::resolve(Some(url), token).map_err(|e| e.to_string())?;
    let client = assent_client::Client::from_config(&config).map_err(|e| e.to_string())?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        tokio::time::timeout(CALL_TIMEOUT, client.me())
            .await
            .map_err(|_| format!("no answer within {CALL_TIMEOUT:?}"))?
            .map_err(|e| e.to_string())
    })
}

/// The data dir's mode and each token file's (`None`: absent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Modes {
    pub dir: PathBuf,
    pub dir_mode: Option<u32>,
    pub files: Vec<(PathBuf, Option<u32>)>,
}

/// Reads the modes of `dir` and its token files.
pub fn modes(dir: &Path) -> Modes {
    let mode = |p: &Path| {
        std::fs::metadata(p)
            .ok()
            .map(|m| m.permissions().mode() & 0o7777)
    };
    Modes {
        dir: dir.to_owned(),
        dir_mode: mode(dir),
        files: [REQUESTER_TOKEN_FILE, APPROVER_TOKEN_FILE]
            .iter()
            .map(|name| (dir.join(name), mode(&dir.join(name))))
            .collect(),
    }
}

/// Tokens present (a requester token in the data dir or `ASSENT_TOKEN`) and private: the dir
/// 0700, each file 0600 — another local user who can read a token can request, or approve.
pub fn tokens(found: &Modes, env_token: bool) -> Vec<Check> {
    let dir = found.dir.display();
    let Some(dir_mode) = found.dir_mode else {
        return vec![if env_token {
            Check::pass(
                "tokens",
                format!("ASSENT_TOKEN is set (no data dir at {dir})"),
            )
        } else {
            Check::fail_closed(
                "tokens",
                format!("no ASSENT_TOKEN and no data dir at {dir}: the gate has no token"),
                "start the service once (`assent serve` writes the tokens), or set ASSENT_TOKEN",
            )
        }];
    };
    let mut checks = vec![if dir_mode & 0o077 == 0 {
        Check::pass("tokens.dir", format!("{dir} is private ({dir_mode:o})"))
    } else {
        Check::fail(
            "tokens.dir",
            format!("{dir} is open to others (mode {dir_mode:o}, want 700)"),
            format!("chmod 700 {dir}"),
        )
    }];
    for (path, mode) in &found.files {
        let shown = path.display();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("token");
        let check = format!("tokens.{name}");
        checks.push(match mode {
            Some(mode) if mode & 0o077 == 0 => {
                Check::pass(&check, format!("{shown} is private ({mode:o})"))
            }
            Some(mode) => Check::fail(
                &check,
                format!("{shown} is readable by others (mode {mode:o}, want 600)"),
                format!("chmod 600 {shown}"),
            ),
            None if name == REQUESTER_TOKEN_FILE && !env_token => Check::fail_closed(
                &check,
                format!("no {shown} and no ASSENT_TOKEN: the gate has no token"),
                "start the service once (`assent serve` writes it), or set ASSENT_TOKEN",
            ),
            None => Check::pass(&check, format!("{shown} absent (not needed here)")),
        });
    }
    checks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::report::Status;

    fn found(dir_mode: Option<u32>, requester: Option<u32>) -> Modes {
        Modes {
            dir: "/d".into(),
            dir_mode,
            files: vec![
                ("/d/requester.token".into(), requester),
                ("/d/approver.token".into(), Some(0o600)),
            ],
        }
    }

    fn statuses(checks: &[Check]) -> Vec<Status> {
        checks.iter().map(|c| c.status).collect()
    }

    #[test]
    fn loose_modes_and_missing_tokens_fail() {
        use Status::*;
        let rows = [
            (
                found(Some(0o700), Some(0o600)),
                false,
                vec![Pass, Pass, Pass],
                "all private",
            ),
            (
                found(Some(0o755), Some(0o600)),
                false,
                vec![Fail, Pass, Pass],
                "dir open",
            ),
            (
                found(Some(0o700), Some(0o644)),
                false,
                vec![Pass, Fail, Pass],
                "token readable",
            ),
            (
                found(Some(0o700), None),
                false,
                vec![Pass, Fail, Pass],
                "no token at all",
            ),
            (
                found(Some(0o700), None),
                true,
                vec![Pass, Pass, Pass],
                "ASSENT_TOKEN instead",
            ),
            (
                found(None, None),
                true,
                vec![Pass],
                "remote service, env token",
            ),
            (found(None, None), false, vec![Fail], "nothing to present"),
        ];
        for (modes, env, want, why) in rows {
            assert_eq!(statuses(&tokens(&modes, env)), want, "{why}");
        }
        let readable = tokens(&found(Some(0o700), Some(0o644)), false);
        assert_eq!(
            readable.get(1).and_then(|c| c.fix.clone()).as_deref(),
            Some("chmod 600 /d/requester.token"),
            "the fix is the command that makes it private"
        );
    }
}
