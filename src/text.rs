//! Small text helpers shared by every layer: positions in text, likely typos, hex.

/// 1-based (line, column-in-characters) of byte offset `at` in `text`. Offsets past the end or
/// inside a character are clamped; never panics.
///
/// ```
/// assert_eq!(mcpconf::text::line_col("ab\ncé d", 7), (2, 4));
/// ```
pub fn line_col(text: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(text.len());
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = text.get(..at).unwrap_or("");
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

/// The closest candidate by edit distance, if it is close enough to be a likely typo.
///
/// ```
/// use mcpconf::text::closest;
/// assert_eq!(closest("servrs", ["owner", "servers"]), Some("servers"));
/// assert_eq!(closest("zzzzzz", ["owner", "servers"]), None);
/// ```
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(word, c), c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Lower-case hex of bytes.
///
/// ```
/// assert_eq!(mcpconf::text::hex(&[0, 0xab]), "00ab");
/// ```
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_chars_and_clamps() {
        assert_eq!(line_col("ab\ncé d", 7), (2, 4));
        assert_eq!(line_col("", 5), (1, 1));
        // Inside `é` (bytes 4..6): clamped to its start.
        assert_eq!(line_col("ab\ncé d", 5), (2, 2));
    }
}
