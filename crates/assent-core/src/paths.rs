//! Path normalisation: `~`, `$HOME`, `..`, `.`, `//` and relative paths resolved lexically
//! (the core does no I/O, so symlinks are not followed; a path through `..` is resolved
//! before any glob sees it).

/// The absolute, normalised form of `path` as seen from `cwd`.
///
/// Built in one buffer (no intermediate strings or part lists): it runs for every argument
/// of every command.
pub fn normalize(path: &str, cwd: &str, home: &str) -> String {
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
