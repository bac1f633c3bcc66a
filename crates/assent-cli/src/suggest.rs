//! `assent policy suggest [--since 7d] [--apply]`: policy changes proposed from what people
//! decided, each with its evidence; `--apply` writes them into the policy file keeping its
//! comments and layout (toml_edit), checks the result, and audits the change.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use assent_core::policy_edit::edit_policy;
use assent_core::suggest::{PolicyChange, Suggestion};
use assent_core::Policy;
use assent_fs::atomic_file;
use assent_server::store::{SqliteStore, Store};
use assent_server::suggestions::applied_audit;
use chrono::{Duration, Utc};

/// Arguments of `assent policy suggest`.
#[derive(Debug, clap::Args)]
pub struct SuggestArgs {
    /// How far back to look: `7d`, `24h`, `90m` or seconds.
    #[arg(long, default_value = "7d", value_parser = parse_since)]
    since: Duration,
    /// The service's data dir (default: the XDG data dir).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// The policy file the service runs with (what is already trusted or blocked; what
    /// `--apply` edits). Default: `policy.toml` in the data dir, the file a service started
    /// without `--policy` follows (created by the first `--apply`).
    #[arg(long)]
    policy: Option<PathBuf>,
    /// Write the suggestions into the policy file, keeping its comments; audited.
    #[arg(long)]
    apply: bool,
    /// One JSON document instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, thiserror::Error)]
enum SuggestError {
    #[error("no data dir: pass --data-dir")]
    NoDataDir,
    #[error("{0} has no database yet: nothing was decided there")]
    NoDatabase(PathBuf),
    #[error("cannot read the decisions: {0}")]
    Store(#[from] assent_server::StoreError),
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not valid TOML: {message}")]
    Toml { path: PathBuf, message: String },
    #[error("{path}: the changed policy would not load ({message}); nothing written")]
    Invalid { path: PathBuf, message: String },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot start: {0}")]
    Runtime(std::io::Error),
}

fn parse_since(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (digits, unit) = text.split_at(
        text.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len()),
    );
    let n: i64 = digits
        .parse()
        .map_err(|_| format!("{text:?}: give a number with d, h, m or s, e.g. 7d"))?;
    let seconds = match unit {
        "d" => n.checked_mul(86_400),
        "h" => n.checked_mul(3_600),
        "m" => n.checked_mul(60),
        "s" | "" => Some(n),
        other => return Err(format!("unknown unit {other:?}: use d, h, m or s")),
    }
    .filter(|s| (1..=366 * 86_400).contains(s))
    .ok_or_else(|| format!("{text:?} must be between 1 s and 366 days"))?;
    Ok(Duration::seconds(seconds))
}

pub fn run(args: SuggestArgs) -> ExitCode {
    match suggest_cmd(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("assent policy suggest: {err}");
            ExitCode::FAILURE
        }
    }
}

fn suggest_cmd(args: SuggestArgs) -> Result<(), SuggestError> {
    let data_dir = match &args.data_dir {
        Some(dir) => dir.clone(),
        None => assent_client::default_data_dir().ok_or(SuggestError::NoDataDir)?,
    };
    let database = data_dir.join("assent.db");
    if !database.exists() {
        return Err(SuggestError::NoDatabase(data_dir));
    }
    let path = args
        .policy
        .clone()
        .unwrap_or_else(|| data_dir.join(assent_server::reload::POLICY_FILE));
    let text = read(&path)?;
    let policy = if text.is_empty() {
        Policy::default()
    } else {
        Policy::from_toml(&text).map_err(|e| SuggestError::Invalid {
            path: path.clone(),
            message: e.to_string(),
        })?
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(SuggestError::Runtime)?;
    runtime.block_on(async {
        let store = SqliteStore::open(&database).await?;
        let since = Utc::now() - args.since;
        let suggestions =
            assent_server::suggestions::suggestions_since(&store, &policy, since).await?;
        print(&suggestions, args.json);
        let outcome = if args.apply && !suggestions.is_empty() {
            apply(&store, &path, &text, &suggestions).await
        } else {
            Ok(())
        };
        store.close().await;
        outcome
    })
}

fn print(suggestions: &[Suggestion], json: bool) {
    if json {
        let doc = serde_json::json!({ "suggestions": suggestions });
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        return;
    }
    if suggestions.is_empty() {
        println!("no suggestions: no verifier was always approved, no command always denied");
    }
    for s in suggestions {
        let change = match &s.change {
            PolicyChange::TrustRepo { repo } => format!("trusted_repos += {repo:?}"),
            PolicyChange::BlockCommand { pattern } => format!("block_patterns += {pattern:?}"),
        };
        println!("{change}\n    {}", s.evidence);
    }
}

fn read(path: &Path) -> Result<String, SuggestError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(source) => Err(SuggestError::Read {
            path: path.to_owned(),
            source,
        }),
    }
}

async fn apply(
    store: &SqliteStore,
    path: &Path,
    text: &str,
    suggestions: &[Suggestion],
) -> Result<(), SuggestError> {
    let changes: Vec<PolicyChange> = suggestions.iter().map(|s| s.change.clone()).collect();
    let new = edit_policy(text, &changes).map_err(|e| SuggestError::Toml {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    let policy = Policy::from_toml(&new).map_err(|e| SuggestError::Invalid {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    atomic_file::write(path, new.as_bytes(), 0o600).map_err(|source| SuggestError::Write {
        path: path.to_owned(),
        source,
    })?;
    let who = std::env::var("USER").unwrap_or_else(|_| "someone".to_owned());
    let now = Utc::now();
    for s in suggestions {
        store
            .audit_record(&applied_audit(s, &who, None, policy.version(), now))
            .await?;
    }
    eprintln!(
        "assent policy suggest: wrote {} change(s) to {}; a service running with it reloads it within seconds",
        suggestions.len(),
        path.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_takes_days_hours_minutes_seconds() {
        assert_eq!(parse_since("7d"), Ok(Duration::days(7)), "days");
        assert_eq!(parse_since("24h"), Ok(Duration::hours(24)), "hours");
        assert_eq!(parse_since("90"), Ok(Duration::seconds(90)), "bare seconds");
        assert!(parse_since("7w").is_err(), "an unknown unit is an error");
        assert!(parse_since("0d").is_err(), "nothing to look back on");
        assert!(
            parse_since("99999999999999d").is_err(),
            "overflow is an error, not a panic"
        );
    }
}
