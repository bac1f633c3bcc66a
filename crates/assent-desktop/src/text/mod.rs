//! Agent text is untrusted. Before any of it reaches a notification (whose body the server may
//! render as markup) it goes through [`untrusted`]: ANSI sequences stripped, secrets masked,
//! control / bidi / zero-width characters shown as visible escapes, truncated, markup escaped.

use std::sync::LazyLock;

use regex::Regex;

/// The ellipsis marking a truncation.
pub use assent_protocol::words::ELLIPSIS;

/// What replaces a secret value.
pub const MASK: &str = "****";

/// Cleans one piece of agent text for display in at most `max_chars` characters (before
/// markup escaping, which only lengthens entities).
pub fn untrusted(text: &str, max_chars: usize) -> String {
    let plain = strip_ansi(text);
    let masked = mask_secrets(&plain);
    let visible = visible_escapes(&masked);
    escape_markup(&truncate(&visible, max_chars))
}

/// Like [`untrusted`] but without markup escaping, for surfaces that render plain text
/// (the tray menu).
pub fn untrusted_plain(text: &str, max_chars: usize) -> String {
    let plain = strip_ansi(text);
    let masked = mask_secrets(&plain);
    truncate(&visible_escapes(&masked), max_chars)
}

static ANSI: LazyLock<Option<Regex>> = LazyLock::new(|| {
    // CSI (7-bit and 8-bit), OSC terminated by BEL or ST, and two-character escapes.
    Regex::new(concat!(
        r"\x1b\[[0-?]*[ -/]*[@-~]",
        r"|\x{9b}[0-?]*[ -/]*[@-~]",
        r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?",
        r"|\x1b[@-Z\\-_]",
    ))
    .ok()
});

/// Removes terminal escape sequences (colours, cursor moves, titles, hyperlinks).
pub fn strip_ansi(text: &str) -> String {
    match ANSI.as_ref() {
        Some(re) => re.replace_all(text, "").into_owned(),
        None => text.replace('\u{1b}', ""),
    }
}

/// Secrets are masked by the one function every surface uses (the service already sends
/// masked display text; this is the same function, applied again to what arrives).
pub use assent_core::mask::mask_secrets;

/// Whether `c` must be shown as an escape: control characters (C0, DEL, C1), bidi and
/// zero-width characters.
pub fn is_hidden(c: char) -> bool {
    c.is_control() || assent_core::is_invisible(c)
}

/// Whether the text carries anything [`visible_escapes`] would rewrite.
pub fn has_hidden_chars(text: &str) -> bool {
    text.chars().any(is_hidden)
}

/// Shows control, bidi and zero-width characters as visible escapes (`\n`, `\t`, `\x07`,
/// `\u{202e}`), so they can neither hide nor reorder text.
pub fn visible_escapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_ascii_control() => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            c if is_hidden(c) => out.push_str(&format!("\\u{{{:04x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

/// At most `max_chars` characters; a cut ends with [`ELLIPSIS`] (counted in `max_chars`).
pub fn truncate(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let keep = max_chars.saturating_sub(1);
    let mut out: String = text.chars().take(keep).collect();
    if max_chars > 0 {
        out.push(ELLIPSIS);
    }
    out
}

/// `text` cut at a word to fit (the prompt's words and the notification share one cut).
pub use assent_protocol::words::fit_words;

/// Escapes the notification markup subset (`<b>`, `<a href>`, `<img>`…) and entities.
pub fn escape_markup(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
