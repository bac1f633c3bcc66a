//! Which browser origin the API accepts: the desk's own — the scheme the service is reached
//! with and the host the request named (a loopback name with the port, or the public URL's
//! host). Any other `Origin` is refused before a handler runs, and even the desk's own origin
//! is accepted only with a session, never with a bearer token (see `crate::guard`).

use axum::http::header::ORIGIN;
use axum::http::HeaderMap;

use crate::error::ApiError;
use crate::state::Shared;

/// The desk's origin a ceremony runs at: the request's `Origin`, which the guard has already
/// checked is the desk's own. Without one (not from a browser) the call is refused, saying
/// `why` it must come from the desk's page.
pub fn of_request(headers: &HeaderMap, why: &str) -> Result<String, ApiError> {
    headers
        .get(ORIGIN)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .ok_or_else(|| ApiError::Forbidden(why.to_owned()))
}

/// `scheme://host[:port]` of the desk as the request's `Host` names it; `None` when the host
/// is not served here.
pub fn own_origin(shared: &Shared, host: &str) -> Option<String> {
    if let Some(public) = &shared.public_url {
        if public.names_host(host) {
            let scheme = if public.is_https() { "https" } else { "http" };
            return Some(format!("{scheme}://{}", host.to_ascii_lowercase()));
        }
    }
    if is_loopback_host(host, shared.port) {
        let scheme = if shared.tls { "https" } else { "http" };
        return Some(format!("{scheme}://{}", host.to_ascii_lowercase()));
    }
    None
}

/// `127.0.0.1:PORT`, `localhost:PORT` or `[::1]:PORT`, nothing else.
pub fn is_loopback_host(host: &str, port: u16) -> bool {
    let Some((name, host_port)) = host.rsplit_once(':') else {
        return false;
    };
    // The port exactly as `port.to_string()` writes it (no sign, no leading zero), unallocated.
    let plain = !host_port.starts_with('0') && host_port.bytes().all(|b| b.is_ascii_digit());
    if !plain || host_port.parse() != Ok(port) {
        return false;
    }
    name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost") || name == "[::1]"
}

/// Where a person opens the desk of this service: its public URL, else `localhost` with its
/// port (the name passkeys accept).
pub fn desk_base(shared: &Shared) -> String {
    if let Some(public) = &shared.public_url {
        return public.origin();
    }
    let scheme = if shared.tls { "https" } else { "http" };
    format!("{scheme}://localhost:{}", shared.port)
}

/// Whether the desk is reached over plain HTTP on a loopback name: the one place its cookie
/// may go without `Secure` (browsers treat `http://localhost` as a secure context).
pub fn is_plain_loopback(origin: &str) -> bool {
    origin.starts_with("http://localhost:")
        || origin.starts_with("http://127.0.0.1:")
        || origin.starts_with("http://[::1]:")
}

/// The WebAuthn relying party id of an origin: its host name, without port (`localhost`, the
/// public URL's host). An IP address is no valid RP id: WebAuthn refuses it, so the desk
/// tells a person at `http://127.0.0.1:PORT` to open `http://localhost:PORT` instead.
pub fn rp_id(origin: &str) -> Option<&str> {
    let rest = origin.split_once("://")?.1;
    let host = if rest.starts_with('[') {
        return None;
    } else {
        rest.rsplit_once(':').map_or(rest, |(host, _)| host)
    };
    let is_ip = host.parse::<std::net::Ipv4Addr>().is_ok();
    (!is_ip && !host.is_empty()).then_some(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_rp_id_is_a_host_name_never_an_address() {
        assert_eq!(rp_id("http://localhost:7391"), Some("localhost"));
        assert_eq!(rp_id("https://desk.example.com"), Some("desk.example.com"));
        assert_eq!(
            rp_id("https://desk.example.com:8443"),
            Some("desk.example.com")
        );
        // WebAuthn refuses IP addresses as relying party ids.
        assert_eq!(rp_id("http://127.0.0.1:7391"), None);
        assert_eq!(rp_id("http://[::1]:7391"), None);
    }

    #[test]
    fn only_loopback_names_over_http_skip_secure_cookies() {
        assert!(is_plain_loopback("http://localhost:7391"));
        assert!(!is_plain_loopback("https://localhost:7391"));
        assert!(!is_plain_loopback("http://localhost.evil.example:80"));
        assert!(!is_plain_loopback("http://desk.example.com:80"));
    }

    #[test]
    fn only_loopback_names_with_the_port_as_written_are_served() {
        // DNS rebinding: a page on another name resolving to 127.0.0.1 sends its own Host.
        for host in [
            "127.0.0.1:8080",
            "localhost:8080",
            "LocalHost:8080",
            "[::1]:8080",
        ] {
            assert!(
                is_loopback_host(host, 8080),
                "{host} is this service on loopback"
            );
        }
        let refused = [
            "127.0.0.1:8081",    // another port: another service
            "127.0.0.1",         // no port at all
            "evil.example:8080", // a foreign name
            "127.0.0.1:+8080",   // a sign: not how a client writes the port
            "127.0.0.1:08080",   // a leading zero, likewise
            "127.0.0.1:8080 ",   // trailing space
            "127.0.0.1:65536080",
            "127.0.0.2:8080", // loopback, but not the address the service names
        ];
        for host in refused {
            assert!(!is_loopback_host(host, 8080), "{host:?} must be refused");
        }
    }
}
