//! How the core shortens text for a person: a lifetime as a span ("15 min"), a command on
//! one line, text clipped to a width with an ellipsis, a body cut to a byte budget.

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
}
