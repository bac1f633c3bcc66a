//! One shell word, as the shell would see it before running: quotes and escapes removed,
//! `~`/`$HOME`/`$PWD` expanded, everything else dynamic kept in a canonical spelling.

use brush_parser::word::{Parameter, ParameterExpr, TildeExpr, WordPiece, WordPieceWithSource};
use brush_parser::ParserOptions;

/// A word after quote removal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ExpandedWord {
    pub text: String,
    /// It holds an expansion only known at run time (`$X`, `$(…)`, `$((…))`).
    pub dynamic: bool,
    /// The scripts of its command substitutions, in order.
    pub substitutions: Vec<String>,
}

/// Where `~`, `$HOME` and `$PWD` point.
pub(crate) struct WordEnv<'a> {
    pub home: &'a str,
    pub cwd: &'a str,
}

/// Expands `raw` (a word as written, quotes included).
pub(crate) fn expand(raw: &str, env: &WordEnv<'_>, options: &ParserOptions) -> ExpandedWord {
    let mut out = ExpandedWord::default();
    if !raw.contains(['\'', '"', '\\', '$', '`', '~']) {
        // Nothing to remove or expand: the word is its own text.
        out.text = raw.to_owned();
        return out;
    }
    match brush_parser::word::parse(raw, options) {
        Ok(pieces) => expand_pieces(raw, &pieces, env, &mut out),
        Err(_) => {
            out.text = raw.to_owned();
            out.dynamic = true;
        }
    }
    out
}

/// Expands a here-document body: only its substitutions matter.
pub(crate) fn heredoc_substitutions(raw: &str, options: &ParserOptions) -> Vec<String> {
    let mut out = ExpandedWord::default();
    let env = WordEnv { home: "", cwd: "" };
    if let Ok(pieces) = brush_parser::word::parse_heredoc(raw, options) {
        expand_pieces(raw, &pieces, &env, &mut out);
    }
    out.substitutions
}

fn expand_pieces(
    raw: &str,
    pieces: &[WordPieceWithSource],
    env: &WordEnv<'_>,
    out: &mut ExpandedWord,
) {
    for piece in pieces {
        let source = raw
            .get(piece.start_index..piece.end_index)
            .unwrap_or_default();
        match &piece.piece {
            WordPiece::Text(s) | WordPiece::SingleQuotedText(s) => out.text.push_str(s),
            WordPiece::AnsiCQuotedText(s) => out.text.push_str(&decode_ansi_c(s)),
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                expand_pieces(raw, inner, env, out);
            }
            WordPiece::EscapeSequence(s) => out.text.push_str(s.get(1..).unwrap_or_default()),
            WordPiece::TildeExpansion(TildeExpr::Home) => out.text.push_str(env.home),
            WordPiece::TildeExpansion(TildeExpr::WorkingDir) => out.text.push_str(env.cwd),
            WordPiece::TildeExpansion(_) => {
                out.text.push_str(source);
                out.dynamic = true;
            }
            WordPiece::ParameterExpansion(expr) => match known_parameter(expr, env) {
                Some(value) => out.text.push_str(value),
                None => {
                    out.text.push_str(source);
                    out.dynamic = true;
                }
            },
            WordPiece::CommandSubstitution(script)
            | WordPiece::BackquotedCommandSubstitution(script) => {
                out.substitutions.push(script.clone());
                out.text.push_str("$(");
                out.text.push_str(script.trim());
                out.text.push(')');
                out.dynamic = true;
            }
            WordPiece::ArithmeticExpression(expr) => {
                out.text.push_str("$((");
                out.text.push_str(expr.value.trim());
                out.text.push_str("))");
                out.dynamic = true;
            }
        }
    }
}

fn known_parameter<'a>(expr: &ParameterExpr, env: &WordEnv<'a>) -> Option<&'a str> {
    match expr {
        ParameterExpr::Parameter {
            parameter: Parameter::Named(name),
            indirect: false,
        } => match name.as_str() {
            "HOME" => Some(env.home),
            "PWD" => Some(env.cwd),
            _ => None,
        },
        _ => None,
    }
}

/// Decodes the body of `$'…'` the way bash does.
pub(crate) fn decode_ansi_c(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(next) = chars.next() else {
            out.push('\\');
            break;
        };
        let simple = match next {
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' | '?' => Some(next),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            continue;
        }
        let (radix, max_len) = match next {
            'x' => (16, 2),
            'u' => (16, 4),
            'U' => (16, 8),
            '0'..='7' => (8, 3),
            _ => {
                out.push('\\');
                out.push(next);
                continue;
            }
        };
        let mut digits = String::new();
        if radix == 8 {
            digits.push(next);
        }
        while digits.len() < max_len {
            match chars.peek() {
                Some(d) if d.is_digit(radix) => {
                    digits.push(*d);
                    chars.next();
                }
                _ => break,
            }
        }
        match u32::from_str_radix(&digits, radix)
            .ok()
            .and_then(char::from_u32)
        {
            Some(decoded) => out.push(decoded),
            None => {
                out.push('\\');
                out.push(next);
                out.push_str(if radix == 8 {
                    digits.get(1..).unwrap_or_default()
                } else {
                    &digits
                });
            }
        }
    }
    out
}

/// Quotes `word` so the canonical rendering reads back as the same word.
pub(crate) fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Whether `text` carries NUL, control, bidi or zero-width characters.
pub fn has_suspicious_chars(text: &str) -> bool {
    text.chars().any(|c| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}' | '\u{061C}')
    })
}
