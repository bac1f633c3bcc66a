//! Where a webhook may post, checked twice: its URL when it is registered, and every address
//! its host resolves to at each delivery (after DNS, so a name cannot be repointed at a
//! private address later). `https://` anywhere public; plain `http://` only to loopback;
//! private, link-local, shared and metadata addresses only with `allow_private`.

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;

/// The longest URL accepted.
pub const MAX_URL: usize = 2048;

/// Host names that are cloud metadata services whatever they resolve to.
const METADATA_NAMES: [&str; 3] = [
    "metadata.google.internal",
    "metadata.goog",
    "instance-data.ec2.internal",
];

/// Why a URL cannot be a webhook's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    #[error("url must be at most {MAX_URL} characters")]
    TooLong,
    #[error("url is not a URL: {0}")]
    NotUrl(String),
    #[error("url must be https:// (plain http:// only to a loopback address such as 127.0.0.1)")]
    NotHttps,
    #[error("url must not carry a user name, password or fragment")]
    Credentials,
    #[error(
        "url names {0}: private, link-local and metadata addresses are refused \
         unless allow_private is set"
    )]
    Private(String),
}

/// How far a delivery may reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reach {
    /// Plain `http://`: loopback only.
    Loopback,
    /// `https://`: public addresses and loopback.
    Public,
    /// `https://` with `allow_private`: anything but unspecified and multicast addresses.
    Any,
}

impl Reach {
    /// The reach of a webhook at `url` (already checked).
    pub fn of(url: &url::Url, allow_private: bool) -> Reach {
        match (url.scheme(), allow_private) {
            ("https", true) => Reach::Any,
            ("https", false) => Reach::Public,
            _ => Reach::Loopback,
        }
    }

    /// Why `ip` is out of this reach, if it is.
    pub fn refuses(self, ip: IpAddr) -> Option<String> {
        let ip = canonical(ip);
        if ip.is_loopback() {
            return None;
        }
        match self {
            Reach::Loopback => Some(format!("{ip}, not a loopback address (plain http://)")),
            Reach::Public => special(ip).map(|kind| format!("{ip}, a {kind} address")),
            Reach::Any => (ip.is_unspecified() || ip.is_multicast())
                .then(|| format!("{ip}, not an address to post to")),
        }
    }
}

/// Checks a URL at registration: its form, its scheme, and a literal address or a metadata
/// name in it (a name's addresses are checked at each delivery).
pub fn check_url(text: &str, allow_private: bool) -> Result<url::Url, UrlError> {
    if text.len() > MAX_URL {
        return Err(UrlError::TooLong);
    }
    let url = url::Url::parse(text).map_err(|err| UrlError::NotUrl(err.to_string()))?;
    if !url.username().is_empty() || url.password().is_some() || url.fragment().is_some() {
        return Err(UrlError::Credentials);
    }
    let host = url.host().ok_or(UrlError::NotHttps)?;
    let literal = match host {
        url::Host::Ipv4(ip) => Some(IpAddr::V4(ip)),
        url::Host::Ipv6(ip) => Some(IpAddr::V6(ip)),
        url::Host::Domain(_) => None,
    };
    let loopback_name = matches!(host, url::Host::Domain(name) if is_localhost(name));
    match url.scheme() {
        "https" => {}
        "http" if loopback_name || literal.is_some_and(|ip| canonical(ip).is_loopback()) => {}
        _ => return Err(UrlError::NotHttps),
    }
    let reach = Reach::of(&url, allow_private);
    if let Some(why) = literal.and_then(|ip| reach.refuses(ip)) {
        return Err(UrlError::Private(why));
    }
    if let url::Host::Domain(name) = host {
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        if !allow_private && METADATA_NAMES.contains(&name.as_str()) {
            return Err(UrlError::Private(format!("{name}, a metadata service")));
        }
    }
    Ok(url)
}

fn is_localhost(name: &str) -> bool {
    let name = name.trim_end_matches('.');
    name.eq_ignore_ascii_case("localhost")
}

/// An IPv4 address mapped into IPv6 is judged as the IPv4 address.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    }
}

/// What kind of non-public address `ip` is (`None`: a public one).
fn special(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => special_v4(v4),
        IpAddr::V6(v6) => special_v6(v6),
    }
}

fn special_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, d] = ip.octets();
    Some(match (a, b, c) {
        (169, 254, 169) if d == 254 => "metadata",
        (169, 254, _) => "link-local",
        (10, _, _) | (192, 168, _) => "private",
        (172, 16..=31, _) => "private",
        (100, 64..=127, _) => "shared (carrier-grade NAT)",
        (0, _, _) => "unspecified",
        (192, 0, 0) => "IETF protocol",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "documentation",
        (198, 18 | 19, _) => "benchmarking",
        (224..=239, _, _) => "multicast",
        (240..=255, _, _) => "reserved",
        _ => return None,
    })
}

fn special_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let [s0, s1, s2, _, _, _, s6, s7] = ip.segments();
    let embedded = |high: u16, low: u16| {
        let [a, b] = high.to_be_bytes();
        let [c, d] = low.to_be_bytes();
        Ipv4Addr::new(a, b, c, d)
    };
    Some(match s0 {
        _ if ip.is_unspecified() => "unspecified",
        0xfd00 if s1 == 0x0ec2 => "metadata",
        0xfc00..=0xfdff => "unique local (private)",
        0xfe80..=0xfebf => "link-local",
        0xfec0..=0xfeff => "site-local",
        0xff00..=0xffff => "multicast",
        0x2001 if s1 == 0x0db8 => "documentation",
        // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) embed an IPv4 address: judge it.
        0x0064 if s1 == 0xff9b => return special_v4(embedded(s6, s7)),
        0x2002 => return special_v4(embedded(s1, s2)),
        _ => return None,
    })
}

/// A future of resolved addresses.
pub type Resolving = Pin<Box<dyn Future<Output = std::io::Result<Vec<IpAddr>>> + Send>>;

/// Turns a host name into addresses: the system's DNS, or a test's stub.
pub trait Resolver: Send + Sync + std::fmt::Debug {
    fn resolve(&self, host: &str) -> Resolving;
}

/// The system's resolver (`getaddrinfo`, through tokio).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

impl Resolver for SystemResolver {
    fn resolve(&self, host: &str) -> Resolving {
        let host = host.to_owned();
        Box::pin(async move {
            let addrs = tokio::net::lookup_host((host.as_str(), 0)).await?;
            Ok(addrs.map(|addr| addr.ip()).collect())
        })
    }
}

/// The resolver the HTTP client uses for one [`Reach`]: every address the name resolves to
/// must be within it, or none is answered — so no connection to a refused address is tried.
#[derive(Debug, Clone)]
pub struct Checked {
    pub inner: Arc<dyn Resolver>,
    pub reach: Reach,
}

impl reqwest::dns::Resolve for Checked {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let name = name.as_str().to_owned();
        let pending = self.inner.resolve(&name);
        let reach = self.reach;
        Box::pin(async move {
            let ips = pending.await?;
            if ips.is_empty() {
                return Err(format!("{name} resolves to no address").into());
            }
            if let Some(why) = ips.iter().find_map(|ip| reach.refuses(*ip)) {
                return Err(Box::new(Refused(format!("{name} resolves to {why}")))
                    as Box<dyn std::error::Error + Send + Sync>);
            }
            let addrs: Vec<SocketAddr> = ips.into_iter().map(|ip| SocketAddr::new(ip, 0)).collect();
            Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// An address refused after DNS.
#[derive(Debug, thiserror::Error)]
#[error("refused: {0}")]
pub struct Refused(pub String);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registration_takes_https_and_loopback_http_only() {
        let table = [
            ("https://hooks.example.com/assent", false, true),
            ("http://127.0.0.1:9000/hook", false, true),
            ("http://[::1]:9000/hook", false, true),
            ("http://localhost:9000/hook", false, true),
            ("http://hooks.example.com/hook", false, false),
            ("http://10.0.0.5/hook", true, false),
            ("ftp://127.0.0.1/x", false, false),
            ("file:///etc/passwd", false, false),
            ("https://user:pw@hooks.example.com/x", false, false),
            ("https://hooks.example.com/x#frag", false, false),
            ("not a url", false, false),
        ];
        for (url, allow_private, ok) in table {
            assert_eq!(
                check_url(url, allow_private).is_ok(),
                ok,
                "{url} (allow_private {allow_private})"
            );
        }
        let long = format!("https://hooks.example.com/{}", "a".repeat(MAX_URL));
        assert_eq!(
            check_url(&long, false),
            Err(UrlError::TooLong),
            "no unbounded rows"
        );
    }

    #[test]
    fn private_link_local_and_metadata_literals_need_allow_private() {
        for url in [
            "https://10.1.2.3/x",
            "https://172.20.0.1/x",
            "https://192.168.1.1/x",
            "https://169.254.169.254/latest/meta-data",
            "https://169.254.10.1/x",
            "https://100.64.0.1/x",
            "https://[fe80::1]/x",
            "https://[fd00:ec2::254]/x",
            "https://[fc00::1]/x",
            "https://[::ffff:10.0.0.1]/x",
            "https://[64:ff9b::a9fe:a9fe]/x",
            "https://metadata.google.internal/computeMetadata/v1/",
            "https://0.0.0.0/x",
        ] {
            assert!(
                matches!(check_url(url, false), Err(UrlError::Private(_))),
                "{url} is refused without allow_private"
            );
        }
        assert!(
            check_url("https://10.1.2.3/x", true).is_ok(),
            "allow_private lets a private address in"
        );
        assert!(
            check_url("https://93.184.215.14/x", false).is_ok(),
            "a public address is fine"
        );
    }

    #[test]
    fn each_reach_judges_resolved_addresses() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert_eq!(
            Reach::Public.refuses(ip("127.0.0.1")),
            None,
            "loopback is local"
        );
        assert_eq!(Reach::Public.refuses(ip("93.184.215.14")), None, "public");
        let why = Reach::Public.refuses(ip("169.254.169.254")).unwrap();
        assert!(why.contains("metadata"), "says which kind: {why}");
        assert!(
            Reach::Public
                .refuses(ip("10.9.8.7"))
                .unwrap()
                .contains("private"),
            "private"
        );
        assert!(
            Reach::Public.refuses(ip("fe80::1")).is_some(),
            "link-local v6"
        );
        assert!(
            Reach::Loopback.refuses(ip("93.184.215.14")).is_some(),
            "plain http never leaves the machine"
        );
        assert_eq!(Reach::Any.refuses(ip("10.9.8.7")), None, "allow_private");
        assert!(
            Reach::Any.refuses(ip("0.0.0.0")).is_some(),
            "never unspecified"
        );
    }
}
