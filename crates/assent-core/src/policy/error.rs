//! A policy file that cannot be used, and where in its text.

/// A policy file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct PolicyError {
    /// 1-based line of the offending text.
    pub line: usize,
    pub message: String,
}

/// 1-based line of byte offset `at` in `text`.
pub(crate) fn line_of(text: &str, at: usize) -> usize {
    // An error at the very end points at the last line with text, not past it.
    let at = at.min(text.trim_end().len());
    text.get(..at)
        .map_or(1, |before| before.matches('\n').count() + 1)
}
