//! The notification lines of a diff, PR or exception approval: the prompt's words
//! ([`assent_protocol::words`], what the window shows too), each line's agent text cleaned for
//! a notification and cut short.

use assent_protocol::words::prompt_words;
use assent_protocol::Approval;

use crate::text::untrusted;

/// Longest line of a packet (the summary, the file list, a diff approval).
const MAX_LINE_CHARS: usize = 120;

/// The body lines for a typed packet, or `None` for a tool approval (its command says it).
pub fn packet_lines(approval: &Approval) -> Option<Vec<String>> {
    let summary = prompt_words(approval).summary;
    (!summary.is_empty()).then(|| {
        summary
            .iter()
            .map(|line| untrusted(line, MAX_LINE_CHARS))
            .collect()
    })
}
