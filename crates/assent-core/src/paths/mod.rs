//! Path normalisation: `~`, `$HOME`, `..`, `.`, `//` and relative paths resolved lexically
//! (the core does no I/O; a path through `..` is resolved before any glob sees it). Where a
//! symlink really leads is the business of [`crate::paths::links`], through the machine's resolver.

pub mod links;

/// The absolute, normalised form of `path` as seen from `cwd`.
///
/// Built in one buffer (no intermediate strings or part lists): it runs for every argument
/// of every command.
pub fn normalize(path: &str, cwd: &str, home: &str) -> String {
    // Most paths are already clean (`/home/u/repo`, `src/lib.rs` in a clean cwd): copy them.
    if home_rest(path).is_none() && is_clean(path) {
        if path.starts_with('/') {
            return path.to_owned();
        }
        if cwd.starts_with('/') && is_clean(cwd) {
            let mut out = String::with_capacity(cwd.len() + path.len() + 1);
            out.push_str(cwd.trim_end_matches('/'));
            out.push('/');
            out.push_str(path);
            return out;
        }
    }
    normalize_parts(path, cwd, home)
}

/// Nothing to resolve: no `.`/`..`/empty parts, no trailing `/` (except `/` itself).
fn is_clean(path: &str) -> bool {
    if path == "/" {
        return true;
    }
    let body = path.strip_prefix('/').unwrap_or(path);
    if body.is_empty() {
        return false;
    }
    // One pass over the bytes: every part is non-empty and neither `.` nor `..`.
    let (mut len, mut dots) = (0usize, 0usize);
    for &b in body.as_bytes().iter().chain(std::iter::once(&b'/')) {
        if b == b'/' {
            if len == 0 || (dots == len && len <= 2) {
                return false;
            }
            (len, dots) = (0, 0);
        } else {
            len += 1;
            dots += usize::from(b == b'.');
        }
    }
    true
}

/// The general case, part by part.
fn normalize_parts(path: &str, cwd: &str, home: &str) -> String {
    let (head, tail) = match home_rest(path) {
        Some(rest) => (home, rest),
        None => ("", path),
    };
    let absolute = if head.is_empty() {
        tail.starts_with('/')
    } else {
        head.starts_with('/')
    };
    let base = if absolute { "" } else { cwd };
    let mut out = String::with_capacity(base.len() + head.len() + tail.len() + 1);
    for part in base
        .split('/')
        .chain(head.split('/'))
        .chain(tail.split('/'))
    {
        match part {
            "" | "." => {}
            ".." => {
                let cut = out.rfind('/').unwrap_or(0);
                out.truncate(cut);
            }
            other => {
                out.push('/');
                out.push_str(other);
            }
        }
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// What follows a `~`, `$HOME` or `${HOME}` prefix that stands for the home directory.
fn home_rest(path: &str) -> Option<&str> {
    ["~", "$HOME", "${HOME}"].into_iter().find_map(|prefix| {
        path.strip_prefix(prefix)
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// Whether `path` is `root` or below it (both normalised).
pub fn is_within(path: &str, root: &str) -> bool {
    if root == "/" {
        return true;
    }
    path == root
        || path
            .strip_prefix(root)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// `path` relative to `root` when within it (`""` for the root itself).
pub fn relative_to<'a>(path: &'a str, root: &str) -> Option<&'a str> {
    if !is_within(path, root) {
        return None;
    }
    if root == "/" {
        return path.get(1..);
    }
    Some(
        path.get(root.len()..)
            .unwrap_or_default()
            .trim_start_matches('/'),
    )
}

/// The part of `path` below a user's home (`.bashrc` of `/home/alice/.bashrc`): this user's
/// `home`, `/root`, `/home/<user>` or `/Users/<user>`; `None` outside every home.
pub(crate) fn below_home<'a>(path: &'a str, home: &str) -> Option<&'a str> {
    if home != "/" && !home.is_empty() {
        if let Some(rel) = relative_to(path, home) {
            return Some(rel);
        }
    }
    if let Some(rel) = relative_to(path, "/root") {
        return Some(rel);
    }
    ["/home/", "/Users/"].iter().find_map(|parent| {
        let rest = path.strip_prefix(parent)?;
        let (user, rel) = rest.split_once('/').unwrap_or((rest, ""));
        (!user.is_empty()).then_some(rel)
    })
}

/// Presents `path` for a person: relative inside the repo, `~/…` under home.
pub fn display(path: &str, repo_root: &str, home: &str) -> String {
    match relative_to(path, repo_root) {
        Some("") => ".".to_owned(),
        Some(rel) => rel.to_owned(),
        None => match relative_to(path, home) {
            Some(rel) if !home.is_empty() && home != "/" => format!("~/{rel}"),
            _ => path.to_owned(),
        },
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, reason = "tests")]
mod tests {
    use proptest::prelude::*;

    use super::{normalize, normalize_parts};

    fn path() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec![
                "", ".", "..", "a", "b.rs", "~", "$HOME", "${HOME}", "x y",
            ]),
            0..6,
        )
        .prop_flat_map(|parts| {
            prop::bool::ANY.prop_map(move |abs| {
                let body = parts.join("/");
                if abs {
                    format!("/{body}")
                } else {
                    body
                }
            })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        /// The shortcut for clean paths gives what the part-by-part walk gives.
        #[test]
        fn the_clean_path_shortcut_agrees(p in path(), cwd in path(), home in path()) {
            let cwd = format!("/{cwd}");
            let home = format!("/{home}");
            prop_assert_eq!(normalize(&p, &cwd, &home), normalize_parts(&p, &cwd, &home), "{:?} in {:?}", p, cwd);
        }
    }

    #[test]
    fn clean_paths_are_copied() {
        assert_eq!(normalize("/a/b", "/x", "/h"), "/a/b", "absolute and clean");
        assert_eq!(
            normalize("src/lib.rs", "/r", "/h"),
            "/r/src/lib.rs",
            "relative in a clean cwd"
        );
        assert_eq!(normalize("src", "/", "/h"), "/src", "relative to the root");
        assert_eq!(
            normalize("./src/../x", "/r", "/h"),
            "/r/x",
            "not clean: walked"
        );
    }
}
