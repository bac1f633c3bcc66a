//! Codex's `apply_patch` patches read as file changes, so a gate can send them as unified
//! diffs. Pure: the gate reads the files a patch updates and diffs the result
//! ([`crate::diff::ChangeSet`]).
//!
//! ```text
//! *** Begin Patch
//! *** Add File: notes.txt        (every line `+`)
//! *** Update File: src/a.rs      (optionally `*** Move to: src/b.rs`)
//! @@ fn a()                      (chunks: ` ` context, `-` removed, `+` added)
//! *** Delete File: gone.txt
//! *** End Patch
//! ```

/// One file operation of a patch, with its own text (shown as written when it cannot be
/// matched against the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchOp {
    pub path: String,
    pub change: PatchChange,
    /// The operation's lines as the patch has them.
    pub raw: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchChange {
    /// A new file with this content.
    Add(String),
    Delete,
    Update {
        move_to: Option<String>,
        chunks: Vec<Chunk>,
    },
}

/// One `@@` chunk of an update: context and removed lines (`old`) become context and
/// added lines (`new`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chunk {
    pub old: Vec<String>,
    pub new: Vec<String>,
}

/// Why an update does not apply to the file as it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("chunk {index} does not match the file")]
pub struct PatchMismatch {
    pub index: usize,
}

/// The operations of `patch`, in order.
pub fn parse_patch(patch: &str) -> Vec<PatchOp> {
    let mut ops: Vec<PatchOp> = Vec::new();
    for line in patch.lines() {
        if let Some(op) = header(line) {
            ops.push(op);
            continue;
        }
        let Some(op) = ops.last_mut() else { continue };
        if line.starts_with("*** End Patch") {
            break;
        }
        op.raw.push_str(line);
        op.raw.push('\n');
        body_line(&mut op.change, line);
    }
    ops
}

fn header(line: &str) -> Option<PatchOp> {
    let op = |path: &str, change| PatchOp {
        path: path.trim().to_owned(),
        change,
        raw: format!("{line}\n"),
    };
    if let Some(path) = line.strip_prefix("*** Add File: ") {
        return Some(op(path, PatchChange::Add(String::new())));
    }
    if let Some(path) = line.strip_prefix("*** Delete File: ") {
        return Some(op(path, PatchChange::Delete));
    }
    line.strip_prefix("*** Update File: ").map(|path| {
        op(
            path,
            PatchChange::Update {
                move_to: None,
                chunks: Vec::new(),
            },
        )
    })
}

fn body_line(change: &mut PatchChange, line: &str) {
    match change {
        PatchChange::Add(content) => {
            if let Some(added) = line.strip_prefix('+') {
                content.push_str(added);
                content.push('\n');
            }
        }
        PatchChange::Delete => {}
        PatchChange::Update { move_to, chunks } => {
            if let Some(to) = line.strip_prefix("*** Move to: ") {
                *move_to = Some(to.trim().to_owned());
            } else if line.starts_with("@@") || chunks.is_empty() {
                chunks.push(Chunk::default());
                chunk_line(chunks, line);
            } else {
                chunk_line(chunks, line);
            }
        }
    }
}

fn chunk_line(chunks: &mut [Chunk], line: &str) {
    let Some(chunk) = chunks.last_mut() else {
        return;
    };
    if line.starts_with("@@") || line.starts_with("***") {
        return;
    }
    if let Some(added) = line.strip_prefix('+') {
        chunk.new.push(added.to_owned());
    } else if let Some(removed) = line.strip_prefix('-') {
        chunk.old.push(removed.to_owned());
    } else {
        let context = line.strip_prefix(' ').unwrap_or(line);
        chunk.old.push(context.to_owned());
        chunk.new.push(context.to_owned());
    }
}

/// The content an update leaves in a file holding `old`: each chunk's old lines found in
/// order (exactly, else ignoring trailing, else surrounding whitespace, as Codex matches)
/// and replaced by its new lines; a chunk with no old lines appends. Ends with a newline.
pub fn apply_chunks(old: &str, chunks: &[Chunk]) -> Result<String, PatchMismatch> {
    let mut lines: Vec<String> = old.lines().map(str::to_owned).collect();
    let mut cursor = 0;
    for (index, chunk) in chunks.iter().enumerate() {
        if chunk.old.is_empty() {
            let end = lines.len();
            lines.splice(end..end, chunk.new.iter().cloned());
            cursor = lines.len();
            continue;
        }
        let at = find(&lines, &chunk.old, cursor).ok_or(PatchMismatch { index })?;
        let end = at + chunk.old.len();
        lines.splice(at..end, chunk.new.iter().cloned());
        cursor = at + chunk.new.len();
    }
    let mut out = lines.join("\n");
    out.push('\n');
    Ok(out)
}

fn find(lines: &[String], wanted: &[String], from: usize) -> Option<usize> {
    let fits = |eq: &dyn Fn(&str, &str) -> bool| {
        (from..=lines.len().saturating_sub(wanted.len())).find(|&start| {
            lines
                .iter()
                .skip(start)
                .zip(wanted)
                .filter(|(have, want)| eq(have, want))
                .count()
                == wanted.len()
        })
    };
    fits(&|a, b| a == b)
        .or_else(|| fits(&|a, b| a.trim_end() == b.trim_end()))
        .or_else(|| fits(&|a, b| a.trim() == b.trim()))
}

#[cfg(test)]
#[path = "patch_tests.rs"]
mod tests;
