//! What a sed script does besides editing its input: GNU sed's `e` command and `s///e` flag
//! run commands, `w`/`W` and `s///w` write other files, `r`/`R` read them. A script that
//! only prints or substitutes is a reader (or an editor, with `-i`).

/// Why the sed invocation `args` is more than an edit: it runs a command, writes or reads
/// another file, or its script is in a file the policy cannot read. `None` when its scripts
/// only edit the stream (or `--sandbox` refuses those commands).
pub(crate) fn more_than_an_edit(args: &[String]) -> Option<&'static str> {
    if args.iter().any(|a| a == "--sandbox") {
        return None;
    }
    let scripts = match scripts(args) {
        Ok(scripts) => scripts,
        Err(reason) => return Some(reason),
    };
    scripts.iter().find_map(|s| script_danger(s))
}

/// The scripts given with `-e`/`--expression`, or the first operand.
fn scripts(args: &[String]) -> Result<Vec<String>, &'static str> {
    let mut out = Vec::new();
    let mut operands = Vec::new();
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        let a = arg.as_str();
        if a == "--" {
            operands.extend(words.by_ref().cloned());
            break;
        }
        if let Some(value) = a.strip_prefix("--expression=") {
            out.push(value.to_owned());
        } else if a == "--expression" {
            out.push(words.next().cloned().unwrap_or_default());
        } else if a == "--file" || a.starts_with("--file=") {
            return Err(FILE);
        } else if a.starts_with("--") || a == "-" {
            if a == "-" {
                operands.push(arg.clone());
            }
        } else if let Some(cluster) = a.strip_prefix('-') {
            // Short options: `-n`, `-E`, `-i[SUF]`, `-l N`, `-e SCRIPT`, `-f FILE`, combined.
            for (i, c) in cluster.char_indices() {
                let rest = cluster.get(i + c.len_utf8()..).unwrap_or_default();
                match c {
                    'e' => {
                        out.push(if rest.is_empty() {
                            words.next().cloned().unwrap_or_default()
                        } else {
                            rest.to_owned()
                        });
                        break;
                    }
                    'f' => return Err(FILE),
                    'l' => {
                        if rest.is_empty() {
                            words.next();
                        }
                        break;
                    }
                    'i' => break,
                    _ => {}
                }
            }
        } else {
            operands.push(arg.clone());
        }
    }
    if out.is_empty() {
        out.extend(operands.into_iter().take(1));
    }
    Ok(out)
}

const FILE: &str = "the sed script is in a file, which may run commands (`e`) or write files (`w`)";
const RUNS: &str = "the sed script runs a command (`e`)";
const WRITES: &str = "the sed script writes another file (`w`)";
const READS: &str = "the sed script reads another file (`r`)";
const UNREAD: &str = "the sed script could not be read to the end";

/// Walks one script command by command.
fn script_danger(script: &str) -> Option<&'static str> {
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied();
    while i < chars.len() {
        // Separators and blocks.
        while at(i).is_some_and(|c| c.is_whitespace() || c == ';' || c == '{' || c == '}') {
            i += 1;
        }
        // Addresses: numbers, `$`, `/re/`, `\cREc`, with `,`, `~`, `+`, `!` between.
        loop {
            match at(i) {
                Some(c) if c.is_ascii_digit() || matches!(c, '$' | ',' | '~' | '+' | '!' | ' ') => {
                    i += 1;
                }
                Some('/') => i = skip_delimited(&chars, i + 1, '/')?,
                Some('\\') => {
                    let delim = at(i + 1)?;
                    i = skip_delimited(&chars, i + 2, delim)?;
                }
                Some('I' | 'M') if i > 0 && at(i - 1).is_some_and(|p| p == '/') => i += 1,
                _ => break,
            }
        }
        let Some(command) = at(i) else { break };
        i += 1;
        match command {
            'e' => return Some(RUNS),
            'w' | 'W' => return Some(WRITES),
            'r' | 'R' => return Some(READS),
            's' => {
                let delim = at(i)?;
                if delim == '\n' || delim == '\\' {
                    return Some(UNREAD);
                }
                i = skip_delimited(&chars, i + 1, delim)?;
                i = skip_delimited(&chars, i, delim)?;
                while let Some(flag) = at(i) {
                    match flag {
                        'e' => return Some(RUNS),
                        'w' => return Some(WRITES),
                        'g' | 'p' | 'i' | 'I' | 'm' | 'M' => i += 1,
                        c if c.is_ascii_digit() => i += 1,
                        _ => break,
                    }
                }
            }
            'y' => {
                let delim = at(i)?;
                i = skip_delimited(&chars, i + 1, delim)?;
                i = skip_delimited(&chars, i, delim)?;
            }
            // Text to the end of the line (GNU one-liners), labels to `;` or the line's end.
            'a' | 'i' | 'c' => i = line_end(&chars, i),
            ':' | 'b' | 't' | 'T' => {
                while at(i).is_some_and(|c| c != ';' && c != '\n') {
                    i += 1;
                }
            }
            'q' | 'Q' | 'l' | 'L' => {
                while at(i).is_some_and(|c| c.is_ascii_digit() || c == ' ') {
                    i += 1;
                }
            }
            '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z' | 'F'
            | '{' | '}' => {}
            '#' => i = line_end(&chars, i),
            _ => return Some(UNREAD),
        }
    }
    None
}

/// The index after the closing `delim` from `i`, backslash escapes skipped.
fn skip_delimited(chars: &[char], mut i: usize, delim: char) -> Option<usize> {
    while let Some(&c) = chars.get(i) {
        if c == '\\' {
            i += 2;
        } else if c == delim {
            return Some(i + 1);
        } else {
            i += 1;
        }
    }
    None
}

fn line_end(chars: &[char], mut i: usize) -> usize {
    while chars.get(i).is_some_and(|&c| c != '\n') {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::more_than_an_edit;

    fn args(line: &str) -> Vec<String> {
        line.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn edits_and_prints_are_only_edits() {
        for line in [
            "-n 1,40p src/lib.rs",
            "-i s/foo/bar/g src/lib.rs",
            "-e s/e/E/ -e /re/d f",
            "-ne /x/p f",
            "-E s|a(b)|\\1|g f",
            "$d f",
            "/start/,/end/{s/x/y/;p} f",
            "y/abc/xyz/ f",
            "1i\\header f",
            "--sandbox 1e\\ rm f",
        ] {
            assert_eq!(
                more_than_an_edit(&args(line)),
                None,
                "`sed {line}` only edits or prints its input: it must stay a reader/editor"
            );
        }
    }

    #[test]
    fn commands_writes_and_reads_are_seen() {
        for line in [
            "-n 1e\\ rm f",
            "s/x/id/e f",
            "-e p -e 1e f",
            "-ne s/a/b/gw\\ /tmp/out f",
            "w /tmp/out f",
            "1r /home/dev/.ssh/id_rsa f",
            "--expression=1e f",
            "-f script.sed f",
            "-nes/x/y/e f",
            "/x/Ie f",
        ] {
            assert!(
                more_than_an_edit(&args(line)).is_some(),
                "`sed {line}` runs a command, writes or reads another file, or hides its \
                 script: it must not pass as an edit"
            );
        }
    }
}
