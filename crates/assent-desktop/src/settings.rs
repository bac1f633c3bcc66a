//! The desk's settings (service URL, token, notifications, autostart), stored as JSON in the
//! user's config dir. `ASSENT_URL` + `ASSENT_TOKEN` in the environment win. Roles are not a
//! setting: the service says which roles the token's person holds (`GET /v1/me`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use assent_fs::atomic_file;

/// Stored settings. The token never goes back to the webview. Unknown keys are ignored, so a
/// file from an older desk (with its self-declared `roles`) still loads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// A remote service; empty → the embedded one.
    pub service_url: Option<String>,
    /// Its approver token.
    pub token: Option<String>,
    /// `false` → tray only, no popups.
    pub notifications_off: bool,
    pub autostart: bool,
    /// The deny reasons offered in one tap; `None` → [`DEFAULT_DENY_REASONS`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deny_reasons: Option<Vec<String>>,
}

/// The deny reasons a person picks in one tap unless they changed them: each tells the agent
/// something it can act on.
pub const DEFAULT_DENY_REASONS: [&str; 3] = [
    "use the staging environment",
    "out of scope",
    "ask me first",
];
/// The most deny reasons kept, and the longest one.
pub const MAX_DENY_REASONS: usize = 8;
pub const MAX_DENY_REASON_CHARS: usize = 200;

/// The reasons as a person typed them, one a line: trimmed, empty and repeated lines dropped,
/// at most [`MAX_DENY_REASONS`] of at most [`MAX_DENY_REASON_CHARS`] characters.
pub fn clean_deny_reasons(lines: &[String]) -> Result<Vec<String>, String> {
    let mut kept: Vec<String> = Vec::new();
    for line in lines {
        let line = line.trim();
        if line.is_empty() || kept.iter().any(|k| k == line) {
            continue;
        }
        if line.chars().count() > MAX_DENY_REASON_CHARS {
            return Err(format!(
                "a deny reason has at most {MAX_DENY_REASON_CHARS} characters"
            ));
        }
        kept.push(line.to_owned());
    }
    if kept.len() > MAX_DENY_REASONS {
        return Err(format!("at most {MAX_DENY_REASONS} deny reasons"));
    }
    Ok(kept)
}

/// Where the service is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Service {
    /// Embed assent-server on 127.0.0.1:7391.
    Embedded,
    /// Connect to this URL with this approver token.
    Remote { url: String, token: String },
}

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("no config directory")]
    NoConfigDir,
    #[error("cannot write settings to {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot encode settings: {0}")]
    Encode(#[from] serde_json::Error),
}

impl Settings {
    /// The deny reasons offered in one tap.
    pub fn deny_reasons(&self) -> Vec<String> {
        self.deny_reasons.clone().unwrap_or_else(|| {
            DEFAULT_DENY_REASONS
                .iter()
                .map(|r| (*r).to_owned())
                .collect()
        })
    }

    /// `$XDG_CONFIG_HOME/assent/desktop.json`.
    pub fn default_path() -> Option<PathBuf> {
        dirs::config_dir().map(|dir| dir.join("assent").join("desktop.json"))
    }

    /// The stored settings; missing or unreadable → defaults (logged).
    pub fn load(path: &Path) -> Settings {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).unwrap_or_else(|err| {
                tracing::warn!(%err, path = %path.display(), "ignoring unreadable settings");
                Settings::default()
            }),
            Err(_) => Settings::default(),
        }
    }

    /// Writes the settings, mode 0600 (they may hold a token).
    pub fn save(&self, path: &Path) -> Result<(), SettingsError> {
        let text = serde_json::to_string_pretty(self)?;
        atomic_file::write(path, text.as_bytes(), 0o600).map_err(|source| SettingsError::Write {
            path: path.to_owned(),
            source,
        })
    }

    /// Environment first (`ASSENT_URL` and `ASSENT_TOKEN` both set), then the settings,
    /// else embedded.
    pub fn service(&self, env_url: Option<String>, env_token: Option<String>) -> Service {
        let non_empty = |v: Option<String>| v.filter(|v| !v.trim().is_empty());
        if let (Some(url), Some(token)) = (non_empty(env_url), non_empty(env_token)) {
            return Service::Remote { url, token };
        }
        match (
            non_empty(self.service_url.clone()),
            non_empty(self.token.clone()),
        ) {
            (Some(url), Some(token)) => Service::Remote { url, token },
            _ => Service::Embedded,
        }
    }
}

impl Settings {
    /// Why part of what is configured is not used, in words for the person (`None`: all of
    /// it is): a saved service URL without a token, or only one of `ASSENT_URL` /
    /// `ASSENT_TOKEN` in the environment. Either used to fall back without a word.
    pub fn unused(&self, env_url: Option<&str>, env_token: Option<&str>) -> Option<String> {
        let set = |v: Option<&str>| v.is_some_and(|v| !v.trim().is_empty());
        let (url_env, token_env) = (assent_client::URL_ENV, assent_client::TOKEN_ENV);
        match (set(env_url), set(env_token)) {
            (true, true) => return None,
            (true, false) => {
                return Some(format!(
                    "{url_env} is set in the environment but {token_env} is not: both are \
                     needed, so {url_env} is ignored."
                ));
            }
            (false, true) => {
                return Some(format!(
                    "{token_env} is set in the environment but {url_env} is not: both are \
                     needed, so {token_env} is ignored."
                ));
            }
            (false, false) => {}
        }
        let url = self.service_url.as_deref().filter(|u| !u.trim().is_empty());
        let token = self.token.as_deref().is_some_and(|t| !t.trim().is_empty());
        match (url, token) {
            (Some(url), false) => Some(format!(
                "The saved service {url} has no token, so Assent uses its embedded service: \
                 paste that service's approver token in Settings and choose Save and connect."
            )),
            (None, true) => Some(
                "A token is saved without a service URL, so it is not used: Assent uses its \
                 embedded service."
                    .to_owned(),
            ),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_wins_then_settings_then_embedded() {
        let stored = Settings {
            service_url: Some("http://team:7391".to_owned()),
            token: Some("stored".to_owned()),
            ..Settings::default()
        };
        assert_eq!(
            stored.service(Some("http://env:1".to_owned()), Some("env".to_owned())),
            Service::Remote {
                url: "http://env:1".to_owned(),
                token: "env".to_owned()
            },
            "ASSENT_URL + ASSENT_TOKEN win"
        );
        assert_eq!(
            stored.service(Some("http://env:1".to_owned()), None),
            Service::Remote {
                url: "http://team:7391".to_owned(),
                token: "stored".to_owned()
            },
            "a URL without a token in the environment is not enough"
        );
        assert_eq!(
            Settings::default().service(None, Some(String::new())),
            Service::Embedded,
            "nothing configured → embedded service"
        );
    }

    #[test]
    fn a_configuration_that_is_not_used_says_why() {
        let url_only = Settings {
            service_url: Some("http://team:7391".to_owned()),
            ..Settings::default()
        };
        assert_eq!(
            url_only.service(None, None),
            Service::Embedded,
            "a saved URL without a token cannot sign in"
        );
        let said = url_only.unused(None, None).expect("and it says so");
        assert!(
            said.contains("http://team:7391") && said.contains("no token"),
            "the person learns which service is not used and why: {said}"
        );
        let half_env = Settings::default().unused(Some("http://env:1"), None);
        assert!(
            half_env.is_some_and(|s| s.contains("ASSENT_TOKEN is not")),
            "ASSENT_URL alone is ignored, and that is said"
        );
        assert_eq!(
            url_only.unused(Some("http://env:1"), Some("t")),
            None,
            "the environment's pair is used: nothing to warn about"
        );
        let complete = Settings {
            service_url: Some("http://team:7391".to_owned()),
            token: Some("t".to_owned()),
            ..Settings::default()
        };
        assert_eq!(
            complete.unused(None, Some("  ")),
            None,
            "a complete saved service is used; a blank variable is not set"
        );
        assert_eq!(
            Settings::default().unused(None, None),
            None,
            "nothing configured: embedded, as meant"
        );
    }

    #[test]
    fn settings_round_trip_with_private_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("nested").join("desktop.json");
        let settings = Settings {
            token: Some("secret".to_owned()),
            autostart: true,
            ..Settings::default()
        };
        settings.save(&path).expect("saved");
        assert_eq!(Settings::load(&path), settings, "what is saved loads back");
        let mode = std::fs::metadata(&path)
            .expect("exists")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600, "a file holding a token is private");
        std::fs::write(&path, "{not json").expect("write");
        assert_eq!(
            Settings::load(&path),
            Settings::default(),
            "garbage → defaults"
        );
    }

    #[test]
    fn settings_of_an_older_desk_with_self_declared_roles_still_load() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("desktop.json");
        let older = r#"{
            "service_url": "http://team:7391",
            "token": "secret",
            "notifications_off": true,
            "autostart": true,
            "roles": ["repo_maintainer", "platform_admin"]
        }"#;
        std::fs::write(&path, older).expect("write");
        assert_eq!(
            Settings::load(&path),
            Settings {
                service_url: Some("http://team:7391".to_owned()),
                token: Some("secret".to_owned()),
                notifications_off: true,
                autostart: true,
                deny_reasons: None,
            },
            "the old roles key is ignored (the service holds roles now) and nothing else is lost"
        );
        Settings::load(&path).save(&path).expect("saved");
        let saved = std::fs::read_to_string(&path).expect("read");
        assert!(
            !saved.contains("roles"),
            "saving again drops the self-declared roles: {saved}"
        );
    }

    #[test]
    fn deny_reasons_default_to_three_the_agent_can_act_on_and_are_cleaned() {
        assert_eq!(
            Settings::default().deny_reasons(),
            [
                "use the staging environment",
                "out of scope",
                "ask me first"
            ],
            "a fresh desk offers the three reasons of the issue"
        );
        let typed = ["  out of scope ", "", "out of scope", "use a fixture"].map(str::to_owned);
        assert_eq!(
            clean_deny_reasons(&typed),
            Ok(vec!["out of scope".to_owned(), "use a fixture".to_owned()]),
            "trimmed, blank and repeated lines dropped, order kept"
        );
        assert!(
            clean_deny_reasons(&["x".repeat(201)]).is_err(),
            "an over-long reason is refused, not cut"
        );
        assert!(
            clean_deny_reasons(&(0..9).map(|i| format!("r{i}")).collect::<Vec<_>>()).is_err(),
            "at most eight reasons"
        );
        let chosen = Settings {
            deny_reasons: Some(Vec::new()),
            ..Settings::default()
        };
        assert!(
            chosen.deny_reasons().is_empty(),
            "a person who cleared the list gets none back silently"
        );
    }
}
