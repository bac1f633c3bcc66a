//! Assent's approver routes named in a command word, a piece of inline code or a fetched
//! URL: deciding an approval, resuming a run, grants, people and agents. An agent holds only
//! the requester token and the service refuses it these routes anyway; blocking the attempt
//! says so at once, and keeps an agent that found an approver token from using it.

use crate::classify::ctx::Ctx;

use crate::classify::verdict::{host_of, Verdict};
use crate::shell::ShellScript;

const ROUTE_RULE: &str = "block.assent_route";

/// Words anywhere in a line that reaches the network naming an approver route:
/// `printf 'POST /v1/approvals/x/decision …' | nc 127.0.0.1 7391`.
pub(crate) fn routes_in_line(
    script: &ShellScript,
    reaches_network: bool,
    ctx: &Ctx<'_>,
) -> Vec<Verdict> {
    let mut out: Vec<Verdict> = Vec::new();
    if !reaches_network {
        return out;
    }
    let words = script
        .commands
        .iter()
        .flat_map(|cmd| cmd.argv.iter().chain(&cmd.redirect_words));
    for v in words.filter_map(|word| route(word, ctx)) {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// What an approver route does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    Decision,
    Resume,
    Revoke,
    Grants,
    People,
    Agents,
    /// The web desk's sign-in: invites, passkeys, sessions.
    SignIn,
}

impl Route {
    fn shown(self) -> &'static str {
        match self {
            Route::Decision => "/v1/approvals/{id}/decision (decides an approval)",
            Route::Resume => "/v1/runs/{id}/resume (resumes a paused run or a stopped campaign)",
            Route::Revoke => "/v1/grants/{id}/revoke (revokes a grant)",
            Route::Grants => "/v1/grants (the grants people gave)",
            Route::People => "/v1/people (who may approve)",
            Route::Agents => "/v1/agents (agent identities and their tokens)",
            Route::SignIn => {
                "/v1/invites, /v1/passkeys, /v1/session (who may sign in to the web desk)"
            }
        }
    }

    /// Shapes no other service is likely to have: Assent's on any host.
    fn unmistakable(self) -> bool {
        matches!(self, Route::Decision | Route::Resume | Route::Revoke)
    }
}

/// The block for `text` (a command word, inline code, a fetched URL) when it names one of
/// Assent's approver routes on Assent's host.
pub(crate) fn route(text: &str, ctx: &Ctx<'_>) -> Option<Verdict> {
    find_route(text, ctx.own.ports(), ctx.own.hosts()).map(|route| {
        Verdict::block(
            ROUTE_RULE,
            format!(
                "calls Assent's approver route {}: an agent never decides, grants, resumes or manages who may approve",
                route.shown()
            ),
        )
    })
}

/// The first approver route `text` names on Assent's host (`ports` and `hosts` are the
/// service's).
fn find_route(text: &str, ports: &[u16], hosts: &[String]) -> Option<Route> {
    let mut from = 0;
    while let Some(found) = text.get(from..).and_then(|t| t.find("/v1/")) {
        let at = from + found;
        from = at + 4;
        let path = text.get(from..).unwrap_or_default();
        let path = path.split(ends_url).next().unwrap_or_default();
        let Some(route) = route_of(path) else {
            continue;
        };
        let before = text.get(..at).unwrap_or_default();
        let prefix = before.rsplit(ends_url).next().unwrap_or_default();
        if route.unmistakable() || is_assent_host(prefix, ports, hosts) {
            return Some(route);
        }
    }
    None
}

/// Characters that end a URL inside a command word or a piece of code.
fn ends_url(ch: char) -> bool {
    ch.is_whitespace()
        || matches!(
            ch,
            '"' | '\'' | '`' | '?' | '#' | '(' | ')' | ',' | ';' | '<' | '>' | '|' | '=' | '\\'
        )
}

/// The route of the path after `/v1/` (`approvals/abc/decision`); curl's `{a,b}` globs and
/// templated ids (`{id}`, `$ID`) still name the route.
fn route_of(path: &str) -> Option<Route> {
    let lower = path.to_ascii_lowercase();
    let mut parts = lower.split('/').filter(|p| !p.is_empty());
    let first = parts.next()?;
    let rest: Vec<&str> = parts.collect();
    let later = |word: &str| rest.iter().skip(1).any(|p| p.contains(word));
    if first.contains("approvals") && later("decision") {
        return Some(Route::Decision);
    }
    if (first.contains("runs") || first.contains("campaigns")) && later("resume") {
        return Some(Route::Resume);
    }
    if first.contains("grants") {
        return Some(if later("revoke") {
            Route::Revoke
        } else {
            Route::Grants
        });
    }
    if first.contains("people") {
        return Some(Route::People);
    }
    if first.contains("invites") || first.contains("passkeys") || first.contains("session") {
        return Some(Route::SignIn);
    }
    first.contains("agents").then_some(Route::Agents)
}

/// Whether the URL text before `/v1/` (`http://127.0.0.1:7391`, `localhost:7391`, or
/// nothing) is the service: a loopback host, the service's port or public host, or a host only
/// known at run time (`{base}`, `$URL`).
fn is_assent_host(prefix: &str, ports: &[u16], hosts: &[String]) -> bool {
    if prefix.is_empty() || prefix.contains(['{', '}', '$', '%', '+']) {
        return true;
    }
    let host = host_of(prefix);
    if host.is_empty() || is_loopback(&host) || hosts.contains(&host) {
        return true;
    }
    let authority = prefix.split_once("://").map_or(prefix, |(_, r)| r);
    let port = authority
        .rsplit_once(':')
        .and_then(|(_, p)| p.parse::<u16>().ok());
    port.is_some_and(|p| ports.contains(&p))
}

fn is_loopback(host: &str) -> bool {
    if matches!(
        host,
        "localhost" | "::1" | "0.0.0.0" | "0" | "0:0:0:0:0:0:0:1"
    ) || host.ends_with(".localhost")
        || host.starts_with("127.")
        || host.starts_with("0177.")
        || host.starts_with("0x7f")
        || host.starts_with("::ffff:127.")
        || host.starts_with("::ffff:7f")
    {
        return true;
    }
    // `http://2130706433/` is 127.0.0.1 to curl.
    host.parse::<u64>().is_ok_and(|n| n >> 24 == 127)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;

    #[test]
    fn routes_are_found_in_urls_words_and_code() {
        let cases = [
            (
                "http://127.0.0.1:7391/v1/approvals/a1/decision",
                Some(Route::Decision),
            ),
            ("localhost:9/v1/people", Some(Route::People)),
            ("https://api.example.com/v1/people", None),
            // Minting an enrolment link or a session is choosing who may approve.
            ("http://localhost:9/v1/invites", Some(Route::SignIn)),
            ("127.0.0.1:9/v1/session/finish", Some(Route::SignIn)),
            (
                "localhost:9/v1/passkeys/register/start",
                Some(Route::SignIn),
            ),
            ("https://api.example.com/v1/session/start", None),
            (
                "https://assent.corp.example/v1/approvals/x/decision",
                Some(Route::Decision),
            ),
            ("POST /v1/agents HTTP/1.1", Some(Route::Agents)),
            (
                "urlopen(f'{base}/v1/grants/{g}/revoke', data=b'')",
                Some(Route::Revoke),
            ),
            ("http://[::1]:7391/v1/runs/r/resume", Some(Route::Resume)),
            (
                "http://127.0.0.1:7391/v1/campaigns/java21/resume",
                Some(Route::Resume),
            ),
            ("http://2130706433:7391/v1/grants", Some(Route::Grants)),
            ("http://127.0.0.1:7391/v1/actions", None),
            ("http://127.0.0.1:7391/healthz", None),
            ("http://assent.lan:7391/v1/people", None),
        ];
        for (text, want) in cases {
            assert_eq!(find_route(text, &[], &[]), want, "{text}");
        }
        assert_eq!(
            find_route("http://assent.lan:7391/v1/people", &[7391], &[]),
            Some(Route::People),
            "the service's own port is Assent's on any host"
        );
        let team = ["assent.corp.example".to_owned()];
        for text in [
            "https://assent.corp.example/v1/grants",
            "https://ASSENT.corp.example:443/v1/people",
            "curl -X POST https://assent.corp.example/v1/agents -d @a.json",
        ] {
            assert!(
                find_route(text, &[7391], &team).is_some(),
                "a team URL's host is the service's behind a proxy on any port: {text}"
            );
        }
        assert_eq!(
            find_route("https://api.example.com/v1/people", &[7391], &team),
            None,
            "another host's /v1/people is not Assent's"
        );
    }
}
