//! The glob sets a policy matches paths and command lines with.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// Where users' homes are: a `~/` pattern holds in every one of them, not only this user's.
const EVERY_HOME: &[&str] = &["/home/*/", "/root/", "/Users/*/"];

/// `patterns`, each `~/…` one followed by its form in every user's home
/// (`~/.aws/**` also gives `/home/*/.aws/**`, `/root/.aws/**`, `/Users/*/.aws/**`).
pub(crate) fn in_every_home(patterns: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(patterns.len());
    for pattern in patterns {
        out.push(pattern.clone());
        if let Some(rest) = pattern.strip_prefix("~/") {
            out.extend(EVERY_HOME.iter().map(|home| format!("{home}{rest}")));
        }
    }
    out
}

/// A glob set; `paths` makes `*` stop at `/`.
pub(crate) fn glob_set(patterns: &[String], paths: bool) -> Result<GlobSet, (String, String)> {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = GlobBuilder::new(pattern)
            .literal_separator(paths)
            .backslash_escape(true)
            .build()
            .map_err(|e| (pattern.clone(), format!("bad pattern {pattern:?}: {e}")))?;
        builder.add(glob);
    }
    builder
        .build()
        .map_err(|e| (String::new(), format!("bad patterns: {e}")))
}
