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

/// One evaluation's view of the resolver: the root and home mapped once (only when a path is
/// resolved at all), answers cached, the number of resolved paths bounded.
pub(crate) struct Links<'a> {
    resolver: Option<&'a dyn PathResolver>,
    /// The written repository root and home directory.
    written: [String; 2],
    /// (written, real) pairs for the root and the home, resolved on first need.
    bases: OnceCell<[(String, Option<String>); 2]>,
    seen: RefCell<Vec<(String, Real)>>,
}

impl<'a> Links<'a> {
    /// No resolver: every path is what it says, at no cost.
    pub fn none() -> Self {
        Links {
            resolver: None,
            written: Default::default(),
            bases: OnceCell::new(),
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
            bases: OnceCell::new(),
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
                    let mapped = self.rebase(resolver, &real);
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

    /// A real path below the real root or home, written below the written one.
    fn rebase(&self, resolver: &dyn PathResolver, real: &str) -> String {
        let bases = self.bases.get_or_init(|| {
            self.written.clone().map(|written| {
                let real = resolver.real_path(&written).filter(|r| *r != written);
                (written, real)
            })
        });
        for (written, real_base) in bases {
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
