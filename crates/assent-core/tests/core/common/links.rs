//! A fake filesystem of symlinks for the resolver: links are absolute paths, targets are
//! absolute or relative to the link's directory, exactly as `readlink` would give them.

use std::sync::Arc;

use assent_core::paths::normalize;
use assent_core::{Environment, PathResolver};

#[derive(Debug, Clone, Default)]
pub struct FakeLinks {
    /// (link, target) pairs.
    pub links: Vec<(String, String)>,
    /// Paths whose resolution fails (a permission error).
    pub unreadable: Vec<String>,
}

impl FakeLinks {
    pub fn new(links: &[(&str, &str)]) -> Self {
        FakeLinks {
            links: links
                .iter()
                .map(|(l, t)| ((*l).to_owned(), (*t).to_owned()))
                .collect(),
            unreadable: Vec::new(),
        }
    }

    pub fn env(self, home: &str) -> Environment {
        Environment::new(home).with_resolver(Arc::new(self))
    }

    /// The first link on the way down `path`, with what follows it.
    fn first_link<'a>(&self, path: &'a str) -> Option<(&(String, String), &'a str)> {
        let mut end = 0;
        loop {
            let next = path
                .get(end + 1..)?
                .find('/')
                .map_or(path.len(), |i| end + 1 + i);
            let prefix = path.get(..next)?;
            if let Some(link) = self.links.iter().find(|(l, _)| l == prefix) {
                return Some((link, path.get(next..).unwrap_or_default()));
            }
            if next >= path.len() {
                return None;
            }
            end = next;
        }
    }
}

impl PathResolver for FakeLinks {
    fn real_path(&self, canonical: &str) -> Option<String> {
        let mut current = canonical.to_owned();
        for _ in 0..40 {
            if self
                .unreadable
                .iter()
                .any(|u| assent_core::paths::is_within(&current, u))
            {
                return None;
            }
            let Some(((link, target), rest)) = self.first_link(&current) else {
                return Some(current);
            };
            let parent = link.rsplit_once('/').map_or("/", |(p, _)| p);
            let parent = if parent.is_empty() { "/" } else { parent };
            current = normalize(&format!("{target}{rest}"), parent, "/");
        }
        None
    }
}
