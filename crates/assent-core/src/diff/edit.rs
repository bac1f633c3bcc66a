//! What a Claude Code file tool would leave in the file: its input applied to the current
//! content the way Claude Code applies it. Pure; the gate reads the file and diffs the result.
//!
//! - `Write`: the new content, whatever was there.
//! - `Edit`: `old_string` must occur (exactly once unless `replace_all`); an empty
//!   `old_string` creates the file (only when it is absent or empty).
//! - `MultiEdit`: each edit in order on the previous one's result; all or nothing.
//! - `NotebookEdit`: the cell named by `cell_id` (its `id`, or `cell-N` for the N-th)
//!   replaced, inserted after, or deleted (`edit_mode`), the notebook written back as
//!   Jupyter writes it (keys sorted, one-space indent, a final newline).

use serde_json::{Map, Value};

/// The tools whose input this module applies.
pub const EDIT_TOOLS: [&str; 4] = ["Write", "Edit", "MultiEdit", "NotebookEdit"];

/// Why the tool input does not apply to the file (Claude Code would refuse it too).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("edit {index}: old_string does not occur in the file")]
    NotFound { index: usize },
    #[error("edit {index}: old_string occurs {count} times and replace_all is not set")]
    NotUnique { index: usize, count: usize },
    #[error("edit {index}: an empty old_string only creates a file that is absent or empty")]
    FileExists { index: usize },
    #[error("the notebook is not JSON with a \"cells\" list: {0}")]
    BadNotebook(String),
    #[error("the notebook has no cell {0:?}")]
    NoCell(String),
    #[error("{0} is not a file tool this gate applies")]
    NotAnEdit(String),
}

/// The content `tool` with `input` leaves in a file that holds `old` (`None`: absent).
pub fn edited_content(tool: &str, input: &Value, old: Option<&str>) -> Result<String, EditError> {
    match tool {
        "Write" => Ok(text(input, "content").to_owned()),
        "Edit" => apply_edit(old.unwrap_or_default(), old.is_some(), 0, input),
        "MultiEdit" => {
            let edits = input.get("edits").and_then(Value::as_array);
            let mut content = old.unwrap_or_default().to_owned();
            let mut present = old.is_some();
            for (index, edit) in edits.into_iter().flatten().enumerate() {
                content = apply_edit(&content, present, index, edit)?;
                present = true;
            }
            Ok(content)
        }
        "NotebookEdit" => notebook_edit(old.unwrap_or_default(), input),
        other => Err(EditError::NotAnEdit(other.to_owned())),
    }
}

/// The file `tool` writes, as its input names it (`file_path`, or `notebook_path`).
pub fn edit_path<'a>(tool: &str, input: &'a Value) -> Option<&'a str> {
    match tool {
        "NotebookEdit" => input.get("notebook_path").and_then(Value::as_str),
        t if EDIT_TOOLS.contains(&t) => input.get("file_path").and_then(Value::as_str),
        _ => None,
    }
}

/// The new text an edit writes, for showing against an empty file when the file is gone:
/// every `new_string` (or the content, or the cell's source), one after another.
pub fn written_text(tool: &str, input: &Value) -> String {
    match tool {
        "Write" => text(input, "content").to_owned(),
        "MultiEdit" => input
            .get("edits")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|edit| text(edit, "new_string"))
            .collect::<Vec<_>>()
            .join("\n"),
        "NotebookEdit" => text(input, "new_source").to_owned(),
        _ => text(input, "new_string").to_owned(),
    }
}

fn apply_edit(
    content: &str,
    present: bool,
    index: usize,
    edit: &Value,
) -> Result<String, EditError> {
    let old = text(edit, "old_string");
    let new = text(edit, "new_string");
    if old.is_empty() {
        if present && !content.is_empty() {
            return Err(EditError::FileExists { index });
        }
        return Ok(new.to_owned());
    }
    // One pass over the file finds every occurrence (a file can be large; `memmem` is SIMD).
    let at: Vec<usize> = memchr::memmem::find_iter(content.as_bytes(), old.as_bytes()).collect();
    let replace_all = edit
        .get("replace_all")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    match at.len() {
        0 => Err(EditError::NotFound { index }),
        count if count == 1 || replace_all => Ok(replaced_at(content, old, new, &at)),
        count => Err(EditError::NotUnique { index, count }),
    }
}

/// `content` with `new` in place of the occurrences of `old` that start at `at` (in order,
/// not overlapping, as `memmem` finds them) — `str::replace`'s result, without searching again.
fn replaced_at(content: &str, old: &str, new: &str, at: &[usize]) -> String {
    let mut out =
        String::with_capacity(content.len() - at.len() * old.len() + at.len() * new.len());
    let mut from = 0;
    for &start in at {
        // An occurrence of a whole string in a string starts and ends on character boundaries.
        let (Some(before), Some(after)) = (content.get(from..start), start.checked_add(old.len()))
        else {
            return content.replace(old, new);
        };
        out.push_str(before);
        out.push_str(new);
        from = after;
    }
    match content.get(from..) {
        Some(rest) => out.push_str(rest),
        None => return content.replace(old, new),
    }
    out
}

fn notebook_edit(old: &str, input: &Value) -> Result<String, EditError> {
    let mut notebook: Value =
        serde_json::from_str(old).map_err(|e| EditError::BadNotebook(e.to_string()))?;
    let cells = notebook
        .get_mut("cells")
        .and_then(Value::as_array_mut)
        .ok_or_else(|| EditError::BadNotebook("no \"cells\" list".to_owned()))?;
    let cell_id = input.get("cell_id").and_then(Value::as_str);
    let position = cell_id.map(|id| find_cell(cells, id)).transpose()?;
    let mode = input
        .get("edit_mode")
        .and_then(Value::as_str)
        .unwrap_or("replace");
    let source = source_lines(text(input, "new_source"));
    match (mode, position) {
        ("insert", at) => {
            let cell_type = input
                .get("cell_type")
                .and_then(Value::as_str)
                .unwrap_or("code");
            let index = at.map_or(0, |i| i + 1);
            cells.insert(index.min(cells.len()), new_cell(cell_type, source));
        }
        ("delete", Some(at)) => {
            cells.remove(at);
        }
        (_, Some(at)) => {
            if let Some(Value::Object(cell)) = cells.get_mut(at) {
                replace_cell(cell, input, source);
            }
        }
        (_, None) => return Err(EditError::NoCell(String::new())),
    }
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(&notebook, &mut serializer)
        .map_err(|e| EditError::BadNotebook(e.to_string()))?;
    out.push(b'\n');
    String::from_utf8(out).map_err(|e| EditError::BadNotebook(e.to_string()))
}

/// The index of the cell whose `id` is `id`, else of `cell-N`.
fn find_cell(cells: &[Value], id: &str) -> Result<usize, EditError> {
    cells
        .iter()
        .position(|cell| cell.get("id").and_then(Value::as_str) == Some(id))
        .or_else(|| {
            id.strip_prefix("cell-")
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|&n| n < cells.len())
        })
        .ok_or_else(|| EditError::NoCell(id.to_owned()))
}

fn replace_cell(cell: &mut Map<String, Value>, input: &Value, source: Value) {
    cell.insert("source".to_owned(), source);
    if let Some(cell_type) = input.get("cell_type").and_then(Value::as_str) {
        cell.insert("cell_type".to_owned(), Value::String(cell_type.to_owned()));
    }
    if cell.get("cell_type").and_then(Value::as_str) == Some("code") {
        cell.insert("execution_count".to_owned(), Value::Null);
        cell.insert("outputs".to_owned(), Value::Array(Vec::new()));
    }
}

fn new_cell(cell_type: &str, source: Value) -> Value {
    let mut cell = Map::new();
    cell.insert("cell_type".to_owned(), Value::String(cell_type.to_owned()));
    cell.insert("metadata".to_owned(), Value::Object(Map::new()));
    cell.insert("source".to_owned(), source);
    if cell_type == "code" {
        cell.insert("execution_count".to_owned(), Value::Null);
        cell.insert("outputs".to_owned(), Value::Array(Vec::new()));
    }
    Value::Object(cell)
}

/// A cell source as Jupyter stores it: its lines, each but the last with its newline.
fn source_lines(source: &str) -> Value {
    Value::Array(
        source
            .split_inclusive('\n')
            .map(|line| Value::String(line.to_owned()))
            .collect(),
    )
}

/// The string `field` of `value`, empty when absent.
fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value.get(field).and_then(Value::as_str).unwrap_or_default()
}

#[cfg(test)]
#[path = "edit_tests.rs"]
mod tests;
