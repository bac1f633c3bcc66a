//! Masking one known secret in a stream of output (a child's stdout or stderr) before anyone
//! else sees it. Bytes go out as soon as they cannot be the start of the secret; only a tail
//! that could still become it is held back, so a value split across reads is still caught.

/// What a masked secret reads as.
pub const MASK: &[u8] = b"****";

/// Masks every occurrence of a secret (and, for a multi-line secret, of each of its longer
/// lines) in a byte stream fed in pieces.
#[derive(Debug, Clone)]
pub struct SecretStream {
    patterns: Vec<Vec<u8>>,
    pending: Vec<u8>,
}

/// Lines of a multi-line secret shorter than this are too common to mask on their own.
const MIN_LINE: usize = 8;

impl SecretStream {
    /// A masker for `secret`; an empty secret masks nothing.
    pub fn new(secret: &[u8]) -> Self {
        let mut patterns: Vec<Vec<u8>> = Vec::new();
        if !secret.is_empty() {
            patterns.push(secret.to_vec());
        }
        if secret.contains(&b'\n') {
            for line in secret.split(|b| *b == b'\n') {
                let line = line.trim_ascii();
                if line.len() >= MIN_LINE && !patterns.iter().any(|p| p == line) {
                    patterns.push(line.to_vec());
                }
            }
        }
        // Longest first: at one position the whole value wins over one of its lines.
        patterns.sort_by_key(|p| std::cmp::Reverse(p.len()));
        SecretStream {
            patterns,
            pending: Vec::new(),
        }
    }

    /// Takes the next piece of output; returns what may be shown now.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<u8> {
        self.pending.extend_from_slice(chunk);
        self.drain(false)
    }

    /// The stream ended: everything held back, masked.
    pub fn finish(&mut self) -> Vec<u8> {
        self.drain(true)
    }

    fn drain(&mut self, all: bool) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.pending.len());
        let mut from = 0;
        while let Some((at, len)) = self.earliest(from) {
            out.extend_from_slice(self.pending.get(from..at).unwrap_or_default());
            out.extend_from_slice(MASK);
            from = at + len;
        }
        let rest = self.pending.get(from..).unwrap_or_default();
        let keep = if all { 0 } else { self.held_tail(rest) };
        out.extend_from_slice(rest.get(..rest.len() - keep).unwrap_or_default());
        self.pending.drain(..self.pending.len() - keep);
        out
    }

    /// The first whole pattern at or after `from`: where and how long.
    fn earliest(&self, from: usize) -> Option<(usize, usize)> {
        let hay = self.pending.get(from..)?;
        self.patterns
            .iter()
            .filter_map(|p| find(hay, p).map(|at| (from + at, p.len())))
            .min_by_key(|(at, len)| (*at, std::cmp::Reverse(*len)))
    }

    /// How many trailing bytes of `rest` could still grow into a pattern.
    fn held_tail(&self, rest: &[u8]) -> usize {
        let longest = self.patterns.first().map_or(0, Vec::len);
        let most = longest.saturating_sub(1).min(rest.len());
        (1..=most)
            .rev()
            .find(|&k| {
                let tail = rest.get(rest.len() - k..).unwrap_or_default();
                self.patterns.iter().any(|p| p.starts_with(tail))
            })
            .unwrap_or(0)
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(secret: &str, pieces: &[&str]) -> String {
        let mut stream = SecretStream::new(secret.as_bytes());
        let mut out = Vec::new();
        for piece in pieces {
            out.extend(stream.push(piece.as_bytes()));
        }
        out.extend(stream.finish());
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn a_secret_is_masked_however_the_reads_split_it() {
        let secret = "s3cr3t-T0KEN";
        let whole = format!("token={secret}\nagain {secret}!\n");
        let want = "token=****\nagain ****!\n";
        for cut in 0..whole.len() {
            let (a, b) = whole.split_at(cut);
            assert_eq!(
                feed(secret, &[a, b]),
                want,
                "split at byte {cut} must not leak the secret"
            );
        }
        let bytes: Vec<String> = whole.chars().map(String::from).collect();
        let pieces: Vec<&str> = bytes.iter().map(String::as_str).collect();
        assert_eq!(
            feed(secret, &pieces),
            want,
            "one byte per read still masks it"
        );
    }

    #[test]
    fn output_that_cannot_be_the_secret_goes_out_at_once() {
        let mut stream = SecretStream::new(b"abcdef");
        assert_eq!(
            stream.push(b"hello ab"),
            b"hello ".to_vec(),
            "only the tail that may start the secret is held back"
        );
        assert_eq!(
            stream.push(b"x"),
            b"abx".to_vec(),
            "a tail that turned out different is released"
        );
        assert_eq!(stream.finish(), Vec::<u8>::new(), "nothing is left over");
    }

    #[test]
    fn a_multi_line_secret_is_masked_whole_and_line_by_line() {
        let secret = "<server>\n  <password>hunter2-long</password>\n</server>\n";
        let out = feed(
            secret,
            &[
                &format!("cat: {secret}"),
                "grep: <password>hunter2-long</password>\n",
            ],
        );
        assert!(
            !out.contains("hunter2-long"),
            "neither the file nor one of its lines leaks: {out}"
        );
        assert_eq!(
            feed("", &["plain"]),
            "plain",
            "an empty secret masks nothing"
        );
    }
}
