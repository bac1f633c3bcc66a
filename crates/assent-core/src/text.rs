//! How the core shortens text for a person: a lifetime as a span ("15 min"), a command on
//! one line, text clipped to a width with an ellipsis or fitted between words ([`fit_words`],
//! the one cut of the core's summaries and the protocol's prompt words), a body cut to a byte
//! budget.

/// "15 min", "1 h", "90 s".
pub(crate) fn span(seconds: i64) -> String {
    if seconds % 3600 == 0 {
        format!("{} h", seconds / 3600)
    } else if seconds % 60 == 0 {
        format!("{} min", seconds / 60)
    } else {
        format!("{seconds} s")
    }
}

/// "30 d", "12 h", "15 min", "90 s": [`span`], with whole days as days.
pub(crate) fn span_days(seconds: i64) -> String {
    const DAY: i64 = 24 * 3600;
    if seconds >= DAY && seconds % DAY == 0 {
        format!("{} d", seconds / DAY)
    } else {
        span(seconds)
    }
}

/// The seconds a policy's span means: a count with its unit, `s`, `m`, `h` or `d` ("90s",
/// "15m", "1h", "7d"); `None` when it is not one (or overflows). Bounds are the caller's.
pub(crate) fn span_seconds(text: &str) -> Option<i64> {
    let unit = text.chars().last()?;
    let count: i64 = text.get(..text.len() - unit.len_utf8())?.parse().ok()?;
    let per = match unit {
        's' => 1,
        'm' => 60,
        'h' => 3600,
        'd' => 86_400,
        _ => return None,
    };
    count.checked_mul(per)
}

/// `text` on one line: every run of whitespace (newlines too) one space, none at the ends.
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first `n` characters of `text`, cut without a mark.
pub(crate) fn first_chars(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}

/// The first `n` characters of `text`, and an ellipsis after them when more followed.
pub(crate) fn first_chars_marked(text: &str, n: usize) -> String {
    let short = first_chars(text, n);
    if short.len() < text.len() {
        format!("{short}…")
    } else {
        short
    }
}

/// `text` in at most `max` characters, the last an ellipsis when it was cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out = first_chars(text, max.saturating_sub(1));
    out.push('…');
    out
}

/// Which brackets a cut by [`fit_words`] never leaves open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Brackets {
    /// `()` only: a prompt's words (`assent_protocol::words::fit_words`).
    Round,
    /// `()`, `[]` and `{}`: the core's evidence summaries and review lines.
    Every,
}

impl Brackets {
    fn pairs(self) -> &'static [(char, char)] {
        match self {
            Brackets::Round => &[('(', ')')],
            Brackets::Every => &[('(', ')'), ('[', ']'), ('{', '}')],
        }
    }
}

/// `text` in at most `max_chars` characters: a cut falls between words (or after a `/` of a
/// path or URL, `…/acme/shop/…`), never inside a word, and never leaves one of `brackets` open
/// — `deletes every object there (sync --delete)` is cut before ` (sync`, not inside it; a cut
/// ends with an ellipsis. Text that fits is whole.
pub fn fit_words(text: &str, max_chars: usize, brackets: Brackets) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let keep: String = text.chars().take(max_chars.saturating_sub(1)).collect();
    // The next character starts a word (or is a space): the cut is between words already.
    let at_word = text
        .chars()
        .nth(keep.chars().count())
        .is_some_and(char::is_whitespace);
    // Between words, else after a `/` of a path or URL, in the later half.
    let mut cut = match keep.rfind(|c: char| c.is_whitespace() || c == '/') {
        Some(at) if !at_word && at > keep.len() / 2 => {
            let end = if keep.get(at..).is_some_and(|rest| rest.starts_with('/')) {
                at + 1
            } else {
                at
            };
            keep.get(..end).unwrap_or(&keep)
        }
        _ => keep.as_str(),
    }
    .trim_end()
    .to_owned();
    for &(open, close) in brackets.pairs() {
        while cut.matches(open).count() > cut.matches(close).count() {
            match cut.rfind(open) {
                Some(at) => cut = cut.get(..at).unwrap_or_default().trim_end().to_owned(),
                None => break,
            }
        }
    }
    let cut = cut.trim_end_matches([',', ';', ':', '·', ' ']);
    format!("{cut}…")
}

/// `text` cut to at most `limit` bytes on a character boundary, and whether it was cut.
pub(crate) fn cut_bytes(text: &str, limit: usize) -> (&str, bool) {
    if text.len() <= limit {
        return (text, false);
    }
    let end = (0..=limit)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    (text.get(..end).unwrap_or_default(), true)
}

/// `text` up to its last whole line within `limit` bytes (on a character boundary when one
/// line is longer), and whether anything was left out.
pub(crate) fn cut_at_line(text: &str, limit: usize) -> (&str, bool) {
    let (head, cut) = cut_bytes(text, limit);
    if !cut {
        return (head, false);
    }
    let kept = head
        .rfind('\n')
        .map_or(head, |at| head.get(..=at).unwrap_or(head));
    (kept, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_name_the_largest_whole_unit() {
        assert_eq!(span(3600), "1 h");
        assert_eq!(span(900), "15 min");
        assert_eq!(span(90), "90 s");
        assert_eq!(span(86_400), "24 h", "span leaves days to span_days");
        assert_eq!(span_days(30 * 86_400), "30 d");
        assert_eq!(span_days(12 * 3600), "12 h");
    }

    #[test]
    fn clipping_keeps_whole_characters() {
        assert_eq!(clip("héllo", 5), "héllo");
        assert_eq!(
            clip("héllo world", 5),
            "héll…",
            "the ellipsis counts in the width"
        );
        assert_eq!(first_chars_marked("héllo world", 5), "héllo…");
        assert_eq!(first_chars_marked("héllo", 5), "héllo");
        assert_eq!(one_line(" a\n  b\tc "), "a b c");
        assert_eq!(
            cut_bytes("héllo", 2),
            ("h", true),
            "never inside a character"
        );
        assert_eq!(cut_at_line("one\ntwo\nthree", 9), ("one\ntwo\n", true));
        assert_eq!(cut_at_line("one line", 4), ("one ", true));
        assert_eq!(cut_at_line("short", 9), ("short", false));
    }

    /// Both callers' cuts, from one function: a prompt's words close round brackets only, the
    /// core's summaries every kind.
    #[test]
    fn a_fitted_text_never_leaves_its_kind_of_bracket_open() {
        let rows = [
            (
                "Change GitHub (repo edit acme/shop --visibility public)",
                30,
                "Change GitHub…",
                "Change GitHub…",
                "a cut inside round brackets drops the open bracket, for both",
            ),
            (
                "Run jq on data.json with the filter [.items | select(.ok)] sorted",
                50,
                "Run jq on data.json with the filter [.items |…",
                "Run jq on data.json with the filter…",
                "a cut inside square brackets: only the summaries drop them",
            ),
            (
                "Run awk over access.log printing {print $1, $7} per line",
                40,
                "Run awk over access.log printing {print…",
                "Run awk over access.log printing…",
                "a cut inside braces: only the summaries drop them",
            ),
            (
                "Install left-pad and chalk with npm",
                22,
                "Install left-pad and…",
                "Install left-pad and…",
                "a cut falls between words, not inside one",
            ),
            (
                "Send a POST to api.github.com/repos/acme/shop/dispatches",
                45,
                "Send a POST to api.github.com/repos/acme/…",
                "Send a POST to api.github.com/repos/acme/…",
                "a URL is cut after one of its slashes",
            ),
            (
                "Push main [origin]",
                64,
                "Push main [origin]",
                "Push main [origin]",
                "what fits is whole",
            ),
        ];
        for (text, max, round, every, why) in rows {
            let got = (
                fit_words(text, max, Brackets::Round),
                fit_words(text, max, Brackets::Every),
            );
            assert_eq!(got, (round.to_owned(), every.to_owned()), "{why}");
            assert!(
                got.0.chars().count() <= max && got.1.chars().count() <= max,
                "{why}: both fit in {max}"
            );
        }
    }
}
