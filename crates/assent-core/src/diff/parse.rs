//! Reading a unified diff (git's, or `diff -u`'s): which files change and how, the lines each
//! adds and removes, binary files. Total: any text parses, and what could not be read is
//! said in a note (a hunk with no file header, an unreadable `@@` line), never a panic.
//!
//! Hunk bodies are read by the counts of their `@@ -a,b +c,d @@` header, so a removed line
//! that reads `--- x` is a removed line, not the next file's header.

use crate::evidence::FileChange;

/// The most files one diff lists; later ones are left out with a note.
pub(crate) const MAX_FILES: usize = 4096;
/// The longest path kept (characters); longer ones are cut.
const MAX_PATH_CHARS: usize = 1024;

/// A diff as read: its files and what could not be read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ParsedDiff<'a> {
    pub files: Vec<ParsedFile<'a>>,
    pub notes: Vec<String>,
}

/// One file of a diff with the lines it adds and removes (without their `+`/`-`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParsedFile<'a> {
    /// As the diff names it, without `a/`/`b/` (the new name, the old one when deleted).
    pub path: String,
    pub change: FileChange,
    pub binary: bool,
    pub added: Vec<&'a str>,
    pub removed: Vec<&'a str>,
}

impl ParsedFile<'_> {
    fn new(path: String) -> Self {
        ParsedFile {
            path,
            change: FileChange::Modified,
            binary: false,
            added: Vec::new(),
            removed: Vec::new(),
        }
    }
}

/// Lines left in the hunk being read, old side and new side.
#[derive(Debug, Clone, Copy)]
struct Hunk {
    old: u64,
    new: u64,
}

/// Reads `text` as a unified diff.
pub(crate) fn parse(text: &str) -> ParsedDiff<'_> {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut out = ParsedDiff::default();
    let mut current: Option<ParsedFile<'_>> = None;
    // The file came from a `diff --git` line and no `---`/`+++` pair named it yet.
    let mut from_git_header = false;
    let mut hunk: Option<Hunk> = None;
    let mut i = 0;
    while let Some(&line) = lines.get(i) {
        i += 1;
        if let Some(h) = hunk.as_mut() {
            if let (Some(file), true) = (current.as_mut(), h.old > 0 || h.new > 0) {
                if body_line(line, h, file) {
                    continue;
                }
            }
            hunk = None;
        }
        if let Some(rest) = line.strip_prefix("diff --git ") {
            finish(&mut out, current.take());
            current = Some(ParsedFile::new(git_header_path(rest)));
            from_git_header = true;
        } else if line.starts_with("new file mode") {
            set_change(current.as_mut(), FileChange::Added);
        } else if line.starts_with("deleted file mode") {
            set_change(current.as_mut(), FileChange::Deleted);
        } else if let Some(to) = line.strip_prefix("rename to ") {
            if let Some(file) = current.as_mut() {
                file.path = clean_path(to);
            }
        } else if line.starts_with("GIT binary patch") {
            if let Some(file) = current.as_mut() {
                file.binary = true;
            }
        } else if let Some(names) = binary_line(line) {
            binary_files(&mut out, &mut current, from_git_header, names);
            from_git_header = false;
        } else if let (Some(old), Some(new)) = (
            line.strip_prefix("--- "),
            lines.get(i).and_then(|next| next.strip_prefix("+++ ")),
        ) {
            i += 1;
            let named = file_of(old, new);
            match current.as_mut() {
                Some(file) if from_git_header => {
                    file.path = named.path;
                    if named.change != FileChange::Modified {
                        file.change = named.change;
                    }
                }
                _ => {
                    finish(&mut out, current.take());
                    current = Some(named);
                }
            }
            from_git_header = false;
        } else if line.starts_with("@@") {
            hunk = open_hunk(line, &mut current, &mut out.notes);
            from_git_header = false;
        }
    }
    finish(&mut out, current);
    out
}

/// Reads one line of a hunk's body; false when the line is not one (the hunk ended early).
fn body_line<'a>(line: &'a str, h: &mut Hunk, file: &mut ParsedFile<'a>) -> bool {
    let mut chars = line.chars();
    match chars.next() {
        // Some tools drop the one space of an empty context line.
        Some(' ') | None => {
            h.old = h.old.saturating_sub(1);
            h.new = h.new.saturating_sub(1);
        }
        Some('-') if h.old > 0 => {
            file.removed.push(chars.as_str());
            h.old -= 1;
        }
        Some('+') if h.new > 0 => {
            file.added.push(chars.as_str());
            h.new -= 1;
        }
        Some('\\') => {}
        _ => return false,
    }
    true
}

/// Starts a hunk at its `@@` line; `None` (with a note) when the line cannot be read.
fn open_hunk<'a>(
    line: &str,
    current: &mut Option<ParsedFile<'a>>,
    notes: &mut Vec<String>,
) -> Option<Hunk> {
    let Some(h) = hunk_counts(line) else {
        notes.push(format!(
            "an unreadable hunk header was skipped: {}",
            clip(line)
        ));
        return None;
    };
    if current.is_none() {
        notes.push("a hunk with no file header was counted as an unnamed file".to_owned());
        *current = Some(ParsedFile::new("(unnamed)".to_owned()));
    }
    Some(h)
}

/// The line counts of `@@ -a[,b] +c[,d] @@…` (an omitted count is 1).
fn hunk_counts(line: &str) -> Option<Hunk> {
    let inner = line.strip_prefix("@@ ")?;
    let (ranges, _) = inner.split_once(" @@")?;
    let (old, new) = ranges.split_once(' ')?;
    let count = |range: &str, sign: char| -> Option<u64> {
        let range = range.strip_prefix(sign)?;
        match range.split_once(',') {
            Some((start, len)) => {
                start.parse::<u64>().ok()?;
                len.parse().ok()
            }
            None => range.parse::<u64>().ok().map(|_| 1),
        }
    };
    Some(Hunk {
        old: count(old, '-')?,
        new: count(new, '+')?,
    })
}

/// The names in `Binary files A and B differ`.
fn binary_line(line: &str) -> Option<(&str, &str)> {
    line.strip_prefix("Binary files ")?
        .strip_suffix(" differ")?
        .split_once(" and ")
}

fn binary_files<'a>(
    out: &mut ParsedDiff<'a>,
    current: &mut Option<ParsedFile<'a>>,
    from_git_header: bool,
    (old, new): (&str, &str),
) {
    let named = file_of(old, new);
    match current.as_mut() {
        Some(file) if from_git_header => {
            file.binary = true;
            if named.change != FileChange::Modified {
                file.change = named.change;
            }
        }
        _ => {
            finish(out, current.take());
            *current = Some(ParsedFile {
                binary: true,
                ..named
            });
        }
    }
}

/// The file an `old`/`new` name pair names (`/dev/null` on one side: added or deleted).
fn file_of(old: &str, new: &str) -> ParsedFile<'static> {
    let (old, new) = (clean_path(old), clean_path(new));
    let (path, change) = match (old == "/dev/null", new == "/dev/null") {
        (true, false) => (new, FileChange::Added),
        (false, true) => (old, FileChange::Deleted),
        _ => (new, FileChange::Modified),
    };
    ParsedFile {
        change,
        ..ParsedFile::new(path)
    }
}

/// The new name in `diff --git a/X b/Y`.
fn git_header_path(rest: &str) -> String {
    match rest.rfind(" b/") {
        Some(at) => clean_path(rest.get(at + 1..).unwrap_or_default()),
        None => clean_path(rest.rsplit(' ').next().unwrap_or_default()),
    }
}

/// A name as a diff writes it, without a timestamp, quotes, `a/`/`b/` or `./`.
fn clean_path(name: &str) -> String {
    let name = name.split('\t').next().unwrap_or_default().trim();
    let name = name
        .strip_prefix('"')
        .and_then(|n| n.strip_suffix('"'))
        .unwrap_or(name);
    if name == "/dev/null" {
        return name.to_owned();
    }
    let name = name
        .strip_prefix("a/")
        .or_else(|| name.strip_prefix("b/"))
        .unwrap_or(name);
    let name = name.strip_prefix("./").unwrap_or(name);
    crate::text::first_chars(name, MAX_PATH_CHARS)
}

fn set_change(file: Option<&mut ParsedFile<'_>>, change: FileChange) {
    if let Some(file) = file {
        file.change = change;
    }
}

/// Adds a finished file, merged into an earlier entry of the same path.
fn finish<'a>(out: &mut ParsedDiff<'a>, file: Option<ParsedFile<'a>>) {
    let Some(file) = file else { return };
    if let Some(earlier) = out.files.iter_mut().find(|f| f.path == file.path) {
        earlier.binary |= file.binary;
        if file.change != FileChange::Modified {
            earlier.change = file.change;
        }
        earlier.added.extend(file.added);
        earlier.removed.extend(file.removed);
    } else if out.files.len() < MAX_FILES {
        out.files.push(file);
    } else {
        let note = format!("the diff lists more than {MAX_FILES} files: the rest are left out");
        if !out.notes.contains(&note) {
            out.notes.push(note);
        }
    }
}

/// A line as a note quotes it: at most 80 characters.
fn clip(line: &str) -> String {
    crate::text::first_chars(line, 80)
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
