//! The URL a team reaches the service at (`--public-url`): the one name besides loopback that
//! the Host check lets through.

use std::fmt;
use std::str::FromStr;

/// Why a `--public-url` cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PublicUrlError {
    #[error("{url:?} is not a URL: {reason}")]
    Unparsable { url: String, reason: String },
    #[error("{url:?} must start with https:// or http://")]
    Scheme { url: String },
    #[error("{url:?} must be scheme://host[:port] only, without {part}")]
    Extra { url: String, part: &'static str },
}

/// `https://host[:port]` (or `http://`, behind a proxy that terminates TLS): scheme, host and
/// effective port, nothing else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicUrl {
    https: bool,
    /// Lower case; an IPv6 address keeps its brackets, as in a `Host` header.
    host: String,
    /// The explicit port, else the scheme's default.
    port: u16,
}

impl PublicUrl {
    pub fn parse(text: &str) -> Result<PublicUrl, PublicUrlError> {
        let url = url::Url::parse(text).map_err(|err| PublicUrlError::Unparsable {
            url: text.to_owned(),
            reason: err.to_string(),
        })?;
        let https = match url.scheme() {
            "https" => true,
            "http" => false,
            _ => return Err(PublicUrlError::Scheme { url: text.into() }),
        };
        let extra = |part| PublicUrlError::Extra {
            url: text.to_owned(),
            part,
        };
        if !url.username().is_empty() || url.password().is_some() {
            return Err(extra("a user or password"));
        }
        if url.path() != "/" {
            return Err(extra("a path"));
        }
        if url.query().is_some() {
            return Err(extra("a query"));
        }
        if url.fragment().is_some() {
            return Err(extra("a fragment"));
        }
        let host = url
            .host_str()
            .filter(|host| !host.is_empty())
            .ok_or_else(|| PublicUrlError::Unparsable {
                url: text.to_owned(),
                reason: "no host".to_owned(),
            })?
            .to_ascii_lowercase();
        let port = url
            .port_or_known_default()
            .ok_or(PublicUrlError::Scheme { url: text.into() })?;
        Ok(PublicUrl { https, host, port })
    }

    /// The host, lower case (an IPv6 address in brackets).
    pub fn host(&self) -> &str {
        &self.host
    }

    pub fn is_https(&self) -> bool {
        self.https
    }

    /// Whether a request's `Host` header names this URL: its host with its port, or without
    /// a port when the port is the scheme's default.
    pub fn names_host(&self, host_header: &str) -> bool {
        let (name, port) = split_host_header(host_header);
        let port = match port {
            Some(port) => match port.parse::<u16>() {
                Ok(port) => port,
                Err(_) => return false,
            },
            None => self.default_port(),
        };
        port == self.port && name.eq_ignore_ascii_case(&self.host)
    }

    /// `scheme://host[:port]`, the port only when it is not the scheme's default.
    pub fn origin(&self) -> String {
        let scheme = if self.https { "https" } else { "http" };
        if self.port == self.default_port() {
            format!("{scheme}://{}", self.host)
        } else {
            format!("{scheme}://{}:{}", self.host, self.port)
        }
    }

    fn default_port(&self) -> u16 {
        if self.https {
            443
        } else {
            80
        }
    }
}

/// `name[:port]`, where an IPv6 name is in brackets.
fn split_host_header(host: &str) -> (&str, Option<&str>) {
    let after_name = match host.rfind(']') {
        Some(end) => end + 1,
        None => 0,
    };
    match host.get(after_name..).and_then(|rest| rest.rfind(':')) {
        Some(colon) => {
            let at = after_name + colon;
            (host.get(..at).unwrap_or_default(), host.get(at + 1..))
        }
        None => (host, None),
    }
}

impl FromStr for PublicUrl {
    type Err = PublicUrlError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        PublicUrl::parse(text)
    }
}

impl fmt::Display for PublicUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = if self.https { "https" } else { "http" };
        if self.port == self.default_port() {
            write!(f, "{scheme}://{}", self.host)
        } else {
            write!(f, "{scheme}://{}:{}", self.host, self.port)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_origins_and_refuses_the_rest() {
        let good = [
            ("https://Assent.Example.com", "https://assent.example.com"),
            ("https://assent.example.com/", "https://assent.example.com"),
            (
                "https://assent.example.com:443",
                "https://assent.example.com",
            ),
            (
                "https://assent.example.com:8443",
                "https://assent.example.com:8443",
            ),
            ("http://10.0.0.5:7391", "http://10.0.0.5:7391"),
            ("https://[2001:db8::1]:7391", "https://[2001:db8::1]:7391"),
        ];
        for (text, shown) in good {
            let url = PublicUrl::parse(text).map(|u| u.to_string());
            assert_eq!(url.as_deref(), Ok(shown), "{text} is a usable public URL");
        }
        let bad = [
            "assent.example.com",
            "ftp://assent.example.com",
            "https://alice@assent.example.com",
            "https://assent.example.com/assent",
            "https://assent.example.com/?a=1",
            "https://assent.example.com/#x",
            "https://",
        ];
        for text in bad {
            assert!(
                PublicUrl::parse(text).is_err(),
                "{text} must be refused: the service could not tell its Host from it"
            );
        }
    }

    #[test]
    fn names_its_host_with_the_right_port_only() {
        let url = PublicUrl::parse("https://assent.example.com").unwrap();
        let cases = [
            ("assent.example.com", true),
            ("ASSENT.example.com", true),
            ("assent.example.com:443", true),
            ("assent.example.com:7391", false),
            ("evil.example.com", false),
            ("assent.example.com.evil.example", false),
            ("assent.example.com:x", false),
            ("", false),
        ];
        for (host, allowed) in cases {
            assert_eq!(
                url.names_host(host),
                allowed,
                "Host {host:?}: only the public host, on the public URL's port, is served"
            );
        }
        let v6 = PublicUrl::parse("https://[2001:db8::1]:7391").unwrap();
        assert!(
            v6.names_host("[2001:db8::1]:7391"),
            "an IPv6 Host header keeps its brackets"
        );
        assert!(
            !v6.names_host("[2001:db8::1]"),
            "without the port it means 443, not 7391"
        );
    }
}
