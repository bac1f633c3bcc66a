//! Symlinks: where a written path really leads.
//!
//! The core does no I/O. The machine it runs on may hand it a [`PathResolver`] (through
//! [`crate::Environment::with_resolver`]); without one every path is taken as written. With
//! one, classification judges both the written path and its real path, path-pattern grants
//! cover a path only when its real path is covered too, and every path whose real path
//! differs (or cannot be known) becomes part of the canonical action, so its hash changes
//! when a link is retargeted.
//!
//! Real paths are reported in the request's own coordinates: when the repository root or the
//! home directory is itself behind a symlink (`/home/u` → `/data/u`), a real path below it is
//! mapped back under the written root or home, so such a setup is not mistaken for links.

use std::cell::{OnceCell, RefCell};

use serde::{Deserialize, Serialize};

use crate::paths::relative_to;

/// Learns what a canonical path really names on the machine.
pub trait PathResolver: Send + Sync {
    /// The real path of `canonical` (absolute and normalised): every symlink followed, the
    /// not-yet-existing rest appended. `None` when it cannot be known (a symlink loop, no
    /// permission to look): the caller treats that as risky.
    ///
    /// The core relies on what following links implies: when a path's real path is the path
    /// itself, no ancestor of it is a link, so each ancestor's real path is that ancestor.
    fn real_path(&self, canonical: &str) -> Option<String>;
}

/// Most distinct paths resolved for one action; later ones count as unknown (risky).
pub const MAX_RESOLVED_PATHS: usize = 64;

/// A path of the action whose real path is not what was written.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RealPath {
    /// The written path (absolute, normalised).
    pub path: String,
    /// Where it really leads; `None` when that could not be known.
    pub real: Option<String>,
}

/// What resolving one path found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Real {
    /// The path leads where it says (or nothing resolves paths here).
    Same,
    Differs(String),
    Unknown,
}

/// One evaluation's view of the resolver: the root and home each mapped once, and only when
/// a resolved path needs it; answers cached, the number of resolved paths bounded.
pub(crate) struct Links<'a> {
    resolver: Option<&'a dyn PathResolver>,
    /// The written repository root and home directory.
    written: [String; 2],
    /// The real root and home where they differ from the written ones, resolved on first
    /// need.
    bases: [OnceCell<Option<String>>; 2],
    seen: RefCell<Vec<(String, Real)>>,
}

impl<'a> Links<'a> {
    /// No resolver: every path is what it says, at no cost.
    pub fn none() -> Self {
        Links {
            resolver: None,
            written: Default::default(),
            bases: Default::default(),
            seen: RefCell::new(Vec::new()),
        }
    }

    pub fn new(resolver: Option<&'a dyn PathResolver>, root: &str, home: &str) -> Self {
        if resolver.is_none() {
            return Links::none();
        }
        Links {
            resolver,
            written: [root.to_owned(), home.to_owned()],
            bases: Default::default(),
            seen: RefCell::new(Vec::new()),
        }
    }

    /// Where `path` (absolute, normalised) really leads.
    pub fn real(&self, path: &str) -> Real {
        let Some(resolver) = self.resolver else {
            return Real::Same;
        };
        if is_virtual(path) {
            return Real::Same;
        }
        if let Some((_, known)) = self.seen.borrow().iter().find(|(p, _)| p == path) {
            return known.clone();
        }
        let mut seen = self.seen.borrow_mut();
        let answer = if seen.len() >= MAX_RESOLVED_PATHS {
            Real::Unknown
        } else {
            match resolver.real_path(path) {
                None => Real::Unknown,
                Some(real) => {
                    let mapped = self.rebase(resolver, path, &real);
                    if mapped == path {
                        Real::Same
                    } else {
                        Real::Differs(mapped)
                    }
                }
            }
        };
        seen.push((path.to_owned(), answer.clone()));
        answer
    }

    /// A real path below the real root or home, written below the written one. `path` is
    /// what was resolved to `real`.
    fn rebase(&self, resolver: &dyn PathResolver, path: &str, real: &str) -> String {
        for (written, base) in self.written.iter().zip(&self.bases) {
            // A path that leads to itself has no link among its ancestors: a root or home
            // above it is no link either, so it maps nothing and need not be resolved (the
            // common case, a path in the repository, resolves one path, not three).
            if real == path && crate::paths::is_within(path, written) {
                continue;
            }
            let real_base = base.get_or_init(|| {
                resolver
                    .real_path(written)
                    .filter(|resolved| resolved != written)
            });
            if let Some(rel) = real_base.as_deref().and_then(|b| relative_to(real, b)) {
                return join(written, rel);
            }
        }
        real.to_owned()
    }

    /// Every path whose real path differs or is unknown, sorted (part of the action hash).
    pub fn differing(&self) -> Vec<RealPath> {
        let mut out: Vec<RealPath> = self
            .seen
            .borrow()
            .iter()
            .filter_map(|(path, real)| {
                let real = match real {
                    Real::Same => return None,
                    Real::Differs(r) => Some(r.clone()),
                    Real::Unknown => None,
                };
                Some(RealPath {
                    path: path.clone(),
                    real,
                })
            })
            .collect();
        out.sort();
        out
    }
}

/// `/dev` and `/proc` links name per-process views (`/dev/stdout`), not files.
fn is_virtual(path: &str) -> bool {
    ["/dev", "/proc"]
        .iter()
        .any(|root| crate::paths::is_within(path, root))
}

fn join(base: &str, rel: &str) -> String {
    match (base, rel) {
        (_, "") => base.to_owned(),
        ("/", _) => format!("/{rel}"),
        _ => format!("{base}/{rel}"),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// `/home/u` is a link to `/data/u`; every call is recorded.
    #[derive(Default)]
    struct Recording {
        calls: Mutex<Vec<String>>,
    }

    impl PathResolver for Recording {
        fn real_path(&self, canonical: &str) -> Option<String> {
            if let Ok(mut calls) = self.calls.lock() {
                calls.push(canonical.to_owned());
            }
            Some(match canonical.strip_prefix("/home/u") {
                Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("/data/u{rest}"),
                _ => canonical.to_owned(),
            })
        }
    }

    fn calls(resolver: &Recording) -> Vec<String> {
        resolver.calls.lock().map(|c| c.clone()).unwrap_or_default()
    }

    #[test]
    fn a_path_in_an_unlinked_repository_resolves_only_itself() {
        let resolver = Recording::default();
        let links = Links::new(Some(&resolver), "/srv/shop", "/srv");
        assert_eq!(links.real("/srv/shop/src/lib.rs"), Real::Same);
        assert_eq!(
            calls(&resolver),
            ["/srv/shop/src/lib.rs"],
            "a path leading to itself has no link above it: the root and home above it map \
             nothing and are not resolved"
        );
        let resolver = Recording::default();
        let links = Links::new(Some(&resolver), "/srv/shop", "/home/u");
        assert_eq!(links.real("/srv/shop/src/lib.rs"), Real::Same);
        assert_eq!(
            calls(&resolver),
            ["/srv/shop/src/lib.rs", "/home/u"],
            "a home that is not above the path is resolved: the path could be its real place"
        );
    }

    #[test]
    fn a_root_behind_a_link_still_maps_back() {
        let resolver = Recording::default();
        let links = Links::new(Some(&resolver), "/home/u/shop", "/root");
        assert_eq!(
            links.real("/home/u/shop/src"),
            Real::Same,
            "/data/u/shop/src is /home/u/shop/src written under the linked root"
        );
        // The real location written out: it leads to itself, yet lies below the real root,
        // so it is reported in the request's coordinates, as before.
        assert_eq!(
            links.real("/data/u/shop/x"),
            Real::Differs("/home/u/shop/x".to_owned())
        );
    }
}
