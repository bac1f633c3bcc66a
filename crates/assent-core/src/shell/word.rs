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
    /// The word could not be read safely (its substitutions are unknown): the line is
    /// treated as unparsed.
    pub unreadable: bool,
    /// It holds a context where bash reads a value again as code: arithmetic (whose array
    /// subscripts run `$(…)` held in a variable's value), an indirection `${!x}`, an array
    /// subscript or a prompt transform `${x@P}`.
    pub reevaluates: bool,
    /// Literal text (quoted or escaped, so not run here) that holds a command substitution,
    /// `'a[$(cmd)]'`: harmless alone, code when a re-evaluating context reads it.
    pub literal_code: bool,
}

/// Where `~`, `$HOME` and `$PWD` point.
pub(crate) struct WordEnv<'a> {
    pub home: &'a str,
    pub cwd: &'a str,
}

/// Runs a `brush-parser` call, turning a panic inside it into `None`. The parser unwraps some
/// numbers it reads (`~99999999999999999999`, `{1..99999999999999999999}`, a huge file
/// descriptor), found by fuzzing; a line it cannot read is asked, never a crash.
pub(crate) fn guarded<T>(call: impl FnOnce() -> T) -> Option<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(call)).ok()
}

/// Keeps the shell parser's caught panics off stderr. [`guarded`] turns a panic inside
/// `brush-parser` into "could not read this line" (answered *ask*), but the default panic hook
/// has printed `thread 'main' panicked at …/brush-parser…` by then — noise in a hook's output
/// or a service log for an input that was handled. This installs a process-wide hook that
/// drops panics raised inside `brush-parser` and hands every other panic to the hook that was
/// there before. For binaries: a library must not change its process's panic hook, so the core
/// never calls it itself.
pub fn quiet_parser_panics() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let in_parser = info
            .location()
            .is_some_and(|at| at.file().contains("brush-parser"));
        if !in_parser {
            previous(info);
        }
    }));
}

/// Words the word parser must not be handed: a huge number it would unwrap, or a `${…[`
/// subscript left open, on which it backtracks exponentially (found by fuzzing: five of
/// them took 40 s).
fn too_hard(raw: &str) -> bool {
    has_huge_number(raw) || has_open_subscript(raw)
}

/// `${name[…` without its `]` before the closing `}`.
fn has_open_subscript(raw: &str) -> bool {
    let mut rest = raw;
    while let Some(at) = rest.find("${") {
        let after = rest.get(at + 2..).unwrap_or_default();
        let inside = after.split('}').next().unwrap_or_default();
        if let Some(open) = inside.find('[') {
            if !inside.get(open..).unwrap_or_default().contains(']') {
                return true;
            }
        }
        rest = after;
    }
    false
}

/// A run of 19 or more digits: more than the parser's numbers hold (checked first, so the
/// known cases never reach [`guarded`] and print a panic message).
pub(crate) fn has_huge_number(raw: &str) -> bool {
    let mut run = 0usize;
    raw.bytes().any(|b| {
        run = if b.is_ascii_digit() { run + 1 } else { 0 };
        run >= 19
    })
}

/// Expands `raw` (a word as written, quotes included).
pub(crate) fn expand(raw: &str, env: &WordEnv<'_>, options: &ParserOptions) -> ExpandedWord {
    let mut out = ExpandedWord::default();
    if !raw.contains(['\'', '"', '\\', '$', '`', '~']) {
        // Nothing to remove or expand: the word is its own text.
        out.text = raw.to_owned();
        return out;
    }
    if too_hard(raw) {
        out.text = raw.to_owned();
        out.dynamic = true;
        out.unreadable = true;
        return out;
    }
    let parsed = match guarded(|| brush_parser::word::parse(raw, options)) {
        Some(parsed) => parsed.ok(),
        None => {
            out.unreadable = true;
            None
        }
    };
    match parsed {
        Some(pieces) => expand_pieces(raw, &pieces, env, &mut out),
        None => {
            out.text = raw.to_owned();
            out.dynamic = true;
        }
    }
    out
}

/// Expands a here-document body: only its substitutions matter (`None`: it cannot be read).
pub(crate) fn heredoc_substitutions(raw: &str, options: &ParserOptions) -> Option<Vec<String>> {
    let mut out = ExpandedWord::default();
    let env = WordEnv { home: "", cwd: "" };
    if too_hard(raw) {
        return None;
    }
    match guarded(|| brush_parser::word::parse_heredoc(raw, options))? {
        Ok(pieces) => expand_pieces(raw, &pieces, &env, &mut out),
        Err(_) => return Some(Vec::new()),
    }
    Some(out.substitutions)
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
            WordPiece::Text(s) | WordPiece::SingleQuotedText(s) => {
                out.literal_code |= looks_like_code(s);
                out.text.push_str(s);
            }
            WordPiece::AnsiCQuotedText(s) => {
                let decoded = decode_ansi_c(s);
                out.literal_code |= looks_like_code(&decoded);
                out.text.push_str(&decoded);
            }
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                expand_pieces(raw, inner, env, out);
            }
            WordPiece::EscapeSequence(s) => {
                // `\$(cmd)`: the `$` is literal here, the text is code if read again.
                out.literal_code |= s == "\\$" || s == "\\`";
                out.text.push_str(s.get(1..).unwrap_or_default());
            }
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
                    out.reevaluates |= reevaluates(expr);
                    // `${x:-$(cmd)}`, `${x/a/$(cmd)}`, `${a[$(cmd)]}`, `${x:$(cmd)}`: the
                    // words inside the braces are expanded, and their substitutions run.
                    let inner = source
                        .strip_prefix("${")
                        .and_then(|s| s.strip_suffix('}'))
                        .unwrap_or_default();
                    inner_substitutions(inner, env, out);
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
                out.reevaluates = true;
                // `$((1+$(cmd)))`: the expression is expanded before it is computed.
                inner_substitutions(&expr.value, env, out);
            }
        }
    }
}

/// Collects the command substitutions inside `text`, a piece of a word that bash expands
/// again (an arithmetic expression, the words of a `${…}` operator), into `out`. Text that
/// holds a substitution but does not parse is unreadable: the line is asked.
pub(crate) fn inner_substitutions(text: &str, env: &WordEnv<'_>, out: &mut ExpandedWord) {
    if !text.contains(['$', '`']) {
        return;
    }
    if too_hard(text) {
        out.unreadable = true;
        return;
    }
    let options = ParserOptions::default();
    match guarded(|| brush_parser::word::parse(text, &options)) {
        Some(Ok(pieces)) => {
            let mut inner = ExpandedWord::default();
            expand_pieces(text, &pieces, env, &mut inner);
            out.substitutions.append(&mut inner.substitutions);
            out.unreadable |= inner.unreadable;
            out.reevaluates |= inner.reevaluates;
            out.literal_code |= inner.literal_code;
        }
        _ => {
            if looks_like_code(text) || text.contains("<(") || text.contains(">(") {
                out.unreadable = true;
            }
        }
    }
}

/// Text that would run a command if bash expanded it: `$(`, a backtick.
pub(crate) fn looks_like_code(text: &str) -> bool {
    text.contains("$(") || text.contains('`')
}

/// Parameter expansions that read a value again as a name or as code: an indirection
/// (`${!x}`, whose target may be `a[$(cmd)]`), an array subscript (computed as arithmetic),
/// a substring offset (arithmetic) and the prompt and escape transforms (`${x@P}` runs the
/// `$(…)` in x's value).
fn reevaluates(expr: &ParameterExpr) -> bool {
    use brush_parser::word::ParameterTransformOp as Op;
    let (parameter, indirect) = match expr {
        ParameterExpr::Parameter {
            parameter,
            indirect,
        }
        | ParameterExpr::UseDefaultValues {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::AssignDefaultValues {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::IndicateErrorIfNullOrUnset {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::UseAlternativeValue {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::ParameterLength {
            parameter,
            indirect,
        }
        | ParameterExpr::RemoveSmallestSuffixPattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::RemoveLargestSuffixPattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::RemoveSmallestPrefixPattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::RemoveLargestPrefixPattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::UppercaseFirstChar {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::UppercasePattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::LowercaseFirstChar {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::LowercasePattern {
            parameter,
            indirect,
            ..
        }
        | ParameterExpr::ReplaceSubstring {
            parameter,
            indirect,
            ..
        } => (parameter, *indirect),
        ParameterExpr::Substring { .. } => return true,
        ParameterExpr::Transform {
            parameter,
            indirect,
            op,
        } => {
            if matches!(op, Op::PromptExpand | Op::ExpandEscapeSequences) {
                return true;
            }
            (parameter, *indirect)
        }
        ParameterExpr::VariableNames { .. } | ParameterExpr::MemberKeys { .. } => return false,
    };
    indirect
        || matches!(
            parameter,
            brush_parser::word::Parameter::NamedWithIndex { .. }
        )
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

/// Whether `text` carries NUL, control, bidi, zero-width or other invisible characters
/// ([`is_invisible`]).
pub fn has_suspicious_chars(text: &str) -> bool {
    text.chars()
        .any(|c| (c.is_control() && c != '\n' && c != '\t') || is_invisible(c))
}

/// Whether `c` changes how text reads, or carries text, without being seen: bidi overrides,
/// isolates and marks, zero-width characters, the soft hyphen, and the tag characters and
/// supplementary variation selectors that can smuggle a whole hidden string behind a visible
/// one (U+E0000–U+E007F, U+E0100–U+E01EF). One list for the policy and every surface that
/// shows text to a person.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{061C}'
            | '\u{180E}'
            | '\u{FEFF}'
            | '\u{00AD}'
            | '\u{E0000}'..='\u{E007F}'
            | '\u{E0100}'..='\u{E01EF}'
    )
}
