//! What classification needs to know about where the action happens, and the questions it
//! asks of that place (is this path secret, is this host allowed).

use crate::classify::verdict::host_of;
use crate::paths::links::{Links, Real};
use crate::paths::{is_within, relative_to};
use crate::policy::Policy;

/// What classification needs to know about where the action happens.
pub(crate) struct Ctx<'a> {
    pub policy: &'a Policy,
    pub home: &'a str,
    /// Where paths really lead (nothing resolves without a resolver).
    pub links: Links<'a>,
    /// The repository root: the request's absolute repo path, else the cwd.
    pub root: String,
    pub trusted: bool,
    /// Assent's own places and the agents' hook configuration: blocked.
    pub own: &'a crate::own::places::OwnPlaces,
    /// What a file edit writes, for the paths of a `file_write` action.
    pub edit: Option<&'a crate::request::EditText>,
    /// The variable a credential capability request puts its secret in: the approved command
    /// may use (and print) it, since `assent exec` masks its output.
    pub injected: Option<&'a str>,
}

impl Ctx<'_> {
    /// Whether `path` (absolute, normalised) is a secret file.
    pub fn is_sensitive(&self, path: &str) -> bool {
        let c = &self.policy.compiled;
        let home_form = relative_to(path, self.home)
            .filter(|_| !self.home.is_empty() && self.home != "/")
            .map(|rel| {
                if rel.is_empty() {
                    "~".to_owned()
                } else {
                    format!("~/{rel}")
                }
            });
        // One candidate per form, shared by both sets (building it splits the path).
        let plain = globset::Candidate::new(path);
        let home = home_form.as_deref().map(globset::Candidate::new);
        let hit = |set: &globset::GlobSet| {
            set.is_match_candidate(&plain)
                || home.as_ref().is_some_and(|h| set.is_match_candidate(h))
        };
        hit(&c.sensitive) && !hit(&c.not_sensitive)
    }

    /// Whether `path`, or where it really leads, is a secret file.
    pub fn is_sensitive_or_links_to(&self, path: &str) -> bool {
        self.is_sensitive(path)
            || matches!(self.links.real(path), Real::Differs(real) if self.is_sensitive(&real))
    }

    /// Whether `host` is on the network allowlist.
    pub fn allowlisted(&self, target: &str) -> bool {
        let host = host_of(target);
        self.policy
            .network_allowlist
            .iter()
            .any(|entry| match entry.strip_prefix("*.") {
                Some(suffix) => host.ends_with(&format!(".{suffix}")) || host == suffix,
                None => host == entry.as_str(),
            })
    }

    pub fn within_root(&self, path: &str) -> bool {
        is_within(path, &self.root)
    }
}
