//! Lines `brush-parser` must not be handed, found by fuzzing: it backtracks exponentially, loops
//! or panics on them. Each check is cheap and conservative; a refused line is asked.

/// Where a `(` operator is followed by another after a space: bash reads two subshells.
pub(crate) fn spaced_parens(tokens: &[brush_parser::Token]) -> Vec<usize> {
    use brush_parser::Token;
    tokens
        .windows(2)
        .filter_map(|pair| match pair {
            [Token::Operator(a, first), Token::Operator(b, second)]
                if a == "(" && b == "(" && first.end.index != second.start.index =>
            {
                Some(first.start.index)
            }
            _ => None,
        })
        .collect()
}

/// `99999999999>x`: the parser unwraps the number as a file descriptor and panics when it does
/// not fit (found by fuzzing), so such lines are not handed to it.
pub(crate) fn has_oversized_fd(tokens: &[brush_parser::Token]) -> bool {
    use brush_parser::Token;
    tokens.windows(2).any(|pair| match pair {
        [Token::Word(w, _), Token::Operator(op, _)] => {
            op.starts_with(['<', '>'])
                && w.chars().all(|c| c.is_ascii_digit())
                && w.parse::<brush_parser::ast::IoFd>().is_err()
        }
        _ => false,
    })
}

/// The deepest nesting of `(`/`{`/`` ` `` (an upper bound; quotes are not looked at).
pub(crate) fn bracket_depth(line: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for b in line.bytes() {
        match b {
            b'(' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// `cat <<"" ` or `cat <<  "her' go 4  " ` with no body: the tokenizer never ends and grows
/// without bound. A here-document with no line after its operator, or
/// whose delimiter is empty once its quotes are dropped (`<<"'"` included: dropping every
/// quote character is the conservative reading), is refused.
pub(crate) fn has_empty_heredoc_delimiter(line: &str) -> bool {
    let mut rest = line;
    while let Some(at) = rest.find("<<") {
        let after = rest.get(at + 2..).unwrap_or_default();
        if let Some(herestring) = after.strip_prefix('<') {
            rest = herestring;
            continue;
        }
        if !after.contains('\n') {
            return true;
        }
        let word = after
            .trim_start_matches('-')
            .trim_start_matches([' ', '\t'])
            .split(|c: char| c.is_whitespace() || ";|&()<>".contains(c))
            .next()
            .unwrap_or_default();
        if word.chars().all(|c| matches!(c, '\'' | '"' | '\\')) {
            return true;
        }
        rest = after;
    }
    false
}
