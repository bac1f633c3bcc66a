//! Path normalisation: `~`, `$HOME`, `..`, `.`, `//` and relative paths resolved lexically
//! (the core does no I/O, so symlinks are not followed; a path through `..` is resolved
//! before any glob sees it).

/// The absolute, normalised form of `path` as seen from `cwd`.
pub fn normalize(path: &str, cwd: &str, home: &str) -> String {
    let expanded = expand_home(path, home);
    let joined = if expanded.starts_with('/') {
        expanded
    } else {
        format!("{cwd}/{expanded}")
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    format!("/{}", parts.join("/"))
}

fn expand_home(path: &str, home: &str) -> String {
    for prefix in ["~", "$HOME", "${HOME}"] {
        if let Some(rest) = path.strip_prefix(prefix) {
            if rest.is_empty() || rest.starts_with('/') {
                return format!("{home}{rest}");
            }
        }
    }
    path.to_owned()
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
    Some(path.get(root.len()..).unwrap_or_default().trim_start_matches('/'))
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
