//! The export of the audit chain (`assent audit export`) and its reading back
//! (`assent audit verify --from FILE`): a header, the chain's start record, the checkpoints,
//! then every event with its links, one per line, in JSONL or CSV. Both directions stream:
//! rows are read from the store a page at a time and from the file a line at a time, so a
//! large audit never sits in memory.

use std::io::{BufRead, Write};
use std::path::Path;

use super::{ChainRow, ChainStart, Checkpoint, Report, Start, Walk};
use crate::store::{Store, StoreError};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The export's name and version, in its header.
const EXPORT_FORMAT: &str = "assent.audit.export.v1";

/// The CSV's column names (its first line). `requester`, the last, repeats an event's
/// `requester` from its body for people and spreadsheets (empty on other lines and on events
/// without one); reading an export back checks that it says what the body says.
const CSV_COLUMNS: &str = "kind,chain_seq,prev_hash,hash,body,requester";

/// The column names of CSV exports written before the `requester` column: still read.
const CSV_COLUMNS_BEFORE_REQUESTER: &str = "kind,chain_seq,prev_hash,hash,body";

/// Rows read from the store per page.
const PAGE: i64 = 2_000;

/// The export's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Jsonl,
    Csv,
}

/// Why an export could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    #[error("export line {line}: {why}")]
    Line { line: usize, why: String },
}

/// One line of an export (a JSONL line; a CSV row carries the same in its columns).
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Line {
    /// The first line: what the export holds (`start`: `genesis` for the whole chain,
    /// `anywhere` for an export `--since`).
    Header {
        format: String,
        start: String,
    },
    /// The signed record of the rows from before the chain (none when the store has none).
    ChainStart(ChainStart),
    Checkpoint(Checkpoint),
    Event(ChainRow),
}

#[derive(Deserialize)]
struct Timestamp {
    timestamp: DateTime<Utc>,
}

/// The agent identity an event's body names (`ApprovalAuditEvent::requester`).
#[derive(Deserialize)]
struct Requester {
    #[serde(default)]
    requester: Option<String>,
}

/// The requester `body` names; `None` when it names none (or is not an event's JSON).
fn requester_of(body: &str) -> Option<String> {
    serde_json::from_str::<Requester>(body)
        .ok()
        .and_then(|r| r.requester)
}

/// Writes the export of `store` to `out`: events from the first at or after `since` (all
/// without it).
pub async fn export(
    store: &dyn Store,
    since: Option<DateTime<Utc>>,
    format: Format,
    mut out: impl Write,
) -> Result<(), ExportError> {
    // The start record and checkpoints first (read before the rows, so every checkpoint signs a
    // row the export holds).
    let chain_start = store.audit_chain_start().await?;
    let checkpoints = store.audit_checkpoints().await?;
    if let Format::Csv = format {
        writeln!(out, "{CSV_COLUMNS}")?;
    }
    let start = if since.is_some() {
        "anywhere"
    } else {
        "genesis"
    };
    let header = Line::Header {
        format: EXPORT_FORMAT.to_owned(),
        start: start.to_owned(),
    };
    write_line(&mut out, format, &header)?;
    if let Some(record) = chain_start {
        write_line(&mut out, format, &Line::ChainStart(record))?;
    }
    for cp in checkpoints {
        write_line(&mut out, format, &Line::Checkpoint(cp))?;
    }
    // From the lowest table row: a row inserted by hand may carry any `seq`, 0 or below too.
    let mut after = i64::MIN;
    let mut started = since.is_none();
    loop {
        let page = store.audit_chain_page(after, PAGE).await?;
        let Some((last, _)) = page.last() else { break };
        after = *last;
        for (_, row) in page {
            if !started {
                let at: Option<Timestamp> = serde_json::from_str(&row.body).ok();
                started = since.is_some_and(|since| at.is_some_and(|at| at.timestamp >= since));
                if !started {
                    continue;
                }
            }
            write_line(&mut out, format, &Line::Event(row))?;
        }
    }
    out.flush()?;
    Ok(())
}

fn write_line(out: &mut impl Write, format: Format, line: &Line) -> Result<(), ExportError> {
    match (format, line) {
        (Format::Jsonl, line) => writeln!(out, "{}", serde_json::to_string(line)?)?,
        (Format::Csv, Line::Event(row)) => writeln!(
            out,
            "event,{},{},{},{},{}",
            row.chain_seq.map(|s| s.to_string()).unwrap_or_default(),
            row.prev_hash.as_deref().unwrap_or_default(),
            row.hash.as_deref().unwrap_or_default(),
            csv_field(&row.body),
            requester_of(&row.body)
                .map(|r| csv_field(&r))
                .unwrap_or_default()
        )?,
        (Format::Csv, Line::Checkpoint(cp)) => writeln!(
            out,
            "checkpoint,{},,{},{},",
            cp.chain_seq,
            cp.head_hash,
            csv_field(&serde_json::to_string(cp)?)
        )?,
        (Format::Csv, Line::ChainStart(record)) => writeln!(
            out,
            "chain_start,,,{},{},",
            record.head_hash,
            csv_field(&serde_json::to_string(record)?)
        )?,
        (Format::Csv, header @ Line::Header { .. }) => writeln!(
            out,
            "header,,,,{},",
            csv_field(&serde_json::to_string(header)?)
        )?,
    }
    Ok(())
}

/// The quoted CSV field `text` starts with, unquoted, and the text after it; `None` when it
/// does not start with one.
fn quoted(text: &str) -> Option<(String, &str)> {
    let inner = text.strip_prefix('"')?;
    let mut field = String::with_capacity(inner.len());
    let mut chars = inner.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c != '"' {
            field.push(c);
        } else if chars.next_if(|&(_, next)| next == '"').is_some() {
            field.push('"');
        } else {
            return Some((field, inner.get(at + 1..)?));
        }
    }
    None
}

/// The requester column, from what follows the body column: `None` when there is none (an
/// export from before it), else its name (`None` when empty).
fn requester_column(rest: &str) -> Result<Option<Option<String>>, String> {
    if rest.is_empty() {
        return Ok(None);
    }
    match rest.strip_prefix(',') {
        Some("") => Ok(Some(None)),
        Some(column) => match quoted(column) {
            Some((name, "")) => Ok(Some(Some(name))),
            _ => Err("the requester column is not one quoted field".to_owned()),
        },
        None => Err("text after the body column".to_owned()),
    }
}

/// One CSV field, quoted (RFC 4180). The JSON inside never holds a raw line break, so one
/// row is one line.
fn csv_field(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// Walks the export at `path` (JSONL or CSV, told apart by its first line) and checks its
/// checkpoints with `keys`.
pub fn verify_export(
    path: &Path,
    keys: &[ed25519_dalek::VerifyingKey],
) -> Result<Report, ExportError> {
    let file = std::io::BufReader::new(std::fs::File::open(path)?);
    let mut checkpoints = Vec::new();
    let mut chain_start = None;
    let mut walk: Option<Walk> = None;
    let mut start = Start::Genesis;
    let mut csv = false;
    for (n, text) in file.lines().enumerate() {
        let text = text?;
        if n == 0 && [CSV_COLUMNS, CSV_COLUMNS_BEFORE_REQUESTER].contains(&text.trim_end()) {
            csv = true;
            continue;
        }
        if text.trim().is_empty() {
            continue;
        }
        let bad = |why: String| ExportError::Line { line: n + 1, why };
        let line = if csv {
            read_csv(&text).map_err(bad)?
        } else {
            serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?
        };
        match line {
            Line::Header { start: s, .. } => {
                if s == "anywhere" {
                    start = Start::Anywhere;
                }
            }
            // The start record and checkpoints come first in an export: the walk needs them.
            Line::ChainStart(record) => chain_start = Some(record),
            Line::Checkpoint(cp) => checkpoints.push(cp),
            Line::Event(row) => walk
                .get_or_insert_with(|| Walk::new(&checkpoints, chain_start.take(), start))
                .push(None, &row),
        }
    }
    let walk = walk.unwrap_or_else(|| Walk::new(&checkpoints, chain_start, start));
    Ok(walk.finish(&checkpoints, keys))
}

/// One CSV row: four plain columns (no commas in them), the quoted JSON body, then (in
/// exports since it was added) the requester, quoted or empty.
fn read_csv(text: &str) -> Result<Line, String> {
    let mut columns = text.splitn(5, ',');
    let mut next = || columns.next().unwrap_or_default();
    let (kind, seq, prev, hash, rest) = (next(), next(), next(), next(), next());
    let (body, rest) = quoted(rest).ok_or("the body column is not quoted")?;
    // Like a checkpoint's columns, the requester column must say what the body says.
    let named = if kind == "event" {
        requester_of(&body)
    } else {
        None
    };
    if let Some(column) = requester_column(rest)?.filter(|column| *column != named) {
        return Err(format!(
            "its requester column ({}) does not match its body ({})",
            column.as_deref().unwrap_or("empty"),
            named.as_deref().unwrap_or("none")
        ));
    }
    let json = |e: serde_json::Error| e.to_string();
    match kind {
        "header" => serde_json::from_str(&body).map_err(json),
        "checkpoint" => {
            let cp: Checkpoint = serde_json::from_str(&body).map_err(json)?;
            // The plain columns are for people reading the file: they must say what is signed.
            if seq != cp.chain_seq.to_string() || hash != cp.head_hash {
                return Err(format!(
                    "checkpoint {}: its columns do not match what it signs",
                    cp.id
                ));
            }
            Ok(Line::Checkpoint(cp))
        }
        "chain_start" => {
            let record: ChainStart = serde_json::from_str(&body).map_err(json)?;
            if hash != record.head_hash {
                return Err(
                    "the chain's start record: its columns do not match what it signs".to_owned(),
                );
            }
            Ok(Line::ChainStart(record))
        }
        "event" => {
            let some = |s: &str| (!s.is_empty()).then(|| s.to_owned());
            let chain_seq = some(seq)
                .map(|s| s.parse::<i64>())
                .transpose()
                .map_err(|e| format!("chain_seq: {e}"))?;
            Ok(Line::Event(ChainRow {
                chain_seq,
                prev_hash: some(prev),
                hash: some(hash),
                body,
            }))
        }
        other => Err(format!("unknown kind {other:?}")),
    }
}
