use std::path::PathBuf;

use crate::error::ClientError;

/// Environment variable naming the service URL.
pub const URL_ENV: &str = "ASSENT_URL";
/// Environment variable holding the requester (or approver) token.
pub const TOKEN_ENV: &str = "ASSENT_TOKEN";

/// Where the service is and which token to present.
#[derive(Clone, PartialEq, Eq)]
pub struct ClientConfig {
    pub url: String,
    pub token: String,
}

impl std::fmt::Debug for ClientConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientConfig")
            .field("url", &self.url)
            .field("token", &"<redacted>")
            .finish()
    }
}

impl ClientConfig {
    /// `ASSENT_URL` (default `http://127.0.0.1:7391`) and `ASSENT_TOKEN`, else the
    /// `requester.token` file in the default data dir.
    pub fn from_env() -> Result<ClientConfig, ClientError> {
        ClientConfig::resolve(None, None)
    }

    /// Explicit values (`--url`, `--token`) win over the environment, which wins over the
    /// defaults.
    pub fn resolve(url: Option<&str>, token: Option<&str>) -> Result<ClientConfig, ClientError> {
        ClientConfig::resolve_as(url, token, None)
    }

    /// As [`resolve`](Self::resolve), for the gate of `agent` (`claude-code`, `codex`…): with
    /// neither `--token` nor `ASSENT_TOKEN`, the token `assent install` made for that agent
    /// ([`agent_token_path`]) when there is one, so its requests are asked in its name; else
    /// `requester.token`.
    pub fn resolve_as(
        url: Option<&str>,
        token: Option<&str>,
        agent: Option<&str>,
    ) -> Result<ClientConfig, ClientError> {
        let url = match url {
            Some(url) => url.to_owned(),
            None => non_empty_env(URL_ENV).unwrap_or_else(|| assent_protocol::DEFAULT_URL.into()),
        };
        let token = match token {
            Some(token) => token.to_owned(),
            None => match non_empty_env(TOKEN_ENV) {
                Some(token) => token,
                None => match agent.and_then(read_agent_token) {
                    Some(token) => token,
                    None => read_default_token()?,
                },
            },
        };
        Ok(ClientConfig { url, token })
    }
}

fn non_empty_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// The service's default data dir: `$XDG_DATA_HOME/assent`, else `~/.local/share/assent`.
pub fn default_data_dir() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    let base = xdg.or_else(|| dirs::home_dir().map(|h| h.join(".local").join("share")))?;
    Some(base.join("assent"))
}

/// Where `assent install AGENT` keeps the token it made for that agent:
/// `<data dir>/agents/<agent>.token`. `None` without a home, or for a name that is no plain
/// file name.
pub fn agent_token_path(agent: &str) -> Option<PathBuf> {
    let plain = !agent.is_empty()
        && agent
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !plain {
        return None;
    }
    default_data_dir().map(|dir| dir.join("agents").join(format!("{agent}.token")))
}

/// The token `assent install` made for `agent`, when its file is there and holds one.
fn read_agent_token(agent: &str) -> Option<String> {
    let text = std::fs::read_to_string(agent_token_path(agent)?).ok()?;
    let token = text.trim();
    (!token.is_empty()).then(|| token.to_owned())
}

fn read_default_token() -> Result<String, ClientError> {
    let dir = default_data_dir()
        .ok_or_else(|| ClientError::Config("no ASSENT_TOKEN and no home directory".into()))?;
    let path = dir.join(assent_protocol::REQUESTER_TOKEN_FILE);
    let text = std::fs::read_to_string(&path).map_err(|err| {
        ClientError::Config(format!(
            "no ASSENT_TOKEN and cannot read {}: {err}",
            path.display()
        ))
    })?;
    let token = text.trim();
    if token.is_empty() {
        return Err(ClientError::Config(format!("{} is empty", path.display())));
    }
    Ok(token.to_owned())
}

/// How the client talks to the service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// Plain HTTP (loopback, or a trusted network).
    Http,
    /// HTTP over TLS: system roots plus `ASSENT_CA_FILE`.
    Https,
}

/// A `http[s]://host:port[/prefix]` endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub scheme: Scheme,
    pub host: String,
    pub port: u16,
    /// Path prefix without a trailing slash (usually empty).
    pub prefix: String,
}

impl Endpoint {
    /// Parses `http[s]://host[:port][/prefix]`. Other schemes are a configuration error.
    pub fn parse(url: &str) -> Result<Endpoint, ClientError> {
        let (scheme, rest, default_port) = if let Some(rest) = url.strip_prefix("http://") {
            (Scheme::Http, rest, 80)
        } else if let Some(rest) = url.strip_prefix("https://") {
            (Scheme::Https, rest, 443)
        } else {
            return Err(ClientError::Config(format!(
                "the service URL must start with http:// or https://: {url}"
            )));
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => rest.split_at(i),
            None => (rest, ""),
        };
        let (host, port) = split_host_port(authority, default_port)
            .ok_or_else(|| ClientError::Config(format!("bad host:port in {url}")))?;
        if host.is_empty() || authority.contains('@') {
            return Err(ClientError::Config(format!("bad host in {url}")));
        }
        Ok(Endpoint {
            scheme,
            host: host.to_owned(),
            port,
            prefix: path.trim_end_matches('/').to_owned(),
        })
    }

    /// The `Host` header value.
    pub fn authority(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

fn split_host_port(authority: &str, default_port: u16) -> Option<(&str, u16)> {
    if let Some(v6) = authority.strip_prefix('[') {
        let (host, after) = v6.split_once(']')?;
        let port = match after.strip_prefix(':') {
            Some(p) => p.parse().ok()?,
            None if after.is_empty() => default_port,
            None => return None,
        };
        return Some((host, port));
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => Some((host, port.parse().ok()?)),
        None => Some((authority, default_port)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_parses_the_forms_the_service_uses() {
        let cases = [
            ("http://127.0.0.1:7391", Scheme::Http, "127.0.0.1", 7391, ""),
            ("http://localhost:9/", Scheme::Http, "localhost", 9, ""),
            (
                "http://[::1]:7391/base/",
                Scheme::Http,
                "::1",
                7391,
                "/base",
            ),
            ("http://example.test", Scheme::Http, "example.test", 80, ""),
            (
                "https://assent.example.test",
                Scheme::Https,
                "assent.example.test",
                443,
                "",
            ),
            ("https://[::1]:8443/", Scheme::Https, "::1", 8443, ""),
        ];
        for (url, scheme, host, port, prefix) in cases {
            let e = Endpoint::parse(url);
            assert_eq!(
                e.ok(),
                Some(Endpoint {
                    scheme,
                    host: host.into(),
                    port,
                    prefix: prefix.into()
                }),
                "{url} must parse to its host, port and prefix"
            );
        }
    }

    #[test]
    fn endpoint_refuses_what_it_cannot_speak() {
        for url in [
            "ftp://x",
            "HTTPS//x",
            "https://:443",
            "http://:80",
            "http://u@h:1",
            "http://h:99999",
            "http://[::1",
        ] {
            assert!(
                matches!(Endpoint::parse(url), Err(ClientError::Config(_))),
                "{url} must be refused as configuration, not tried"
            );
        }
    }

    #[test]
    fn an_agent_token_is_a_plain_file_in_the_agents_dir() {
        for name in ["", "../requester", "a/b", "claude code", "."] {
            assert_eq!(
                agent_token_path(name),
                None,
                "{name:?} names no agent's token file: nothing outside agents/ is read"
            );
        }
        if let Some(path) = agent_token_path("claude-code") {
            assert!(
                path.ends_with("assent/agents/claude-code.token"),
                "the token install made for claude-code: {}",
                path.display()
            );
        }
    }

    #[test]
    fn authority_brackets_ipv6() {
        let e = Endpoint {
            scheme: Scheme::Http,
            host: "::1".into(),
            port: 1,
            prefix: String::new(),
        };
        assert_eq!(
            e.authority(),
            "[::1]:1",
            "an IPv6 Host header needs brackets"
        );
    }
}
