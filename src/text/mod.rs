//! Small text helpers shared by every layer: positions in text, likely typos, hex, the
//! window of a change, the bytes a plan writes ([`Content`]).

mod content;
pub mod semver;
pub use content::{Change, Content};

use crate::diag::{Code, ReadError};

/// A file's bytes as text, or the `invalid-utf8` refusal at its first bad byte (no copy).
pub fn utf8(bytes: Vec<u8>) -> Result<String, ReadError> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let ok = String::from_utf8_lossy(&e.as_bytes()[..at]);
        let (line, column) = line_col(&ok, at);
        ReadError {
            code: Code::InvalidUtf8,
            message: format!("the file is not valid UTF-8 (bad byte at offset {at})"),
            line,
            column,
        }
    })
}

/// Whether `text` ends its lines with CRLF; the `cannot-preserve` refusal when it mixes CRLF
/// and LF endings (an edit could not keep both).
pub fn crlf(text: &str) -> Result<bool, ReadError> {
    let b = text.as_bytes();
    let mut nl = b.iter().enumerate().filter(|&(_, &c)| c == b'\n');
    let Some((first, _)) = nl.next() else {
        return Ok(false);
    };
    let crlf_at = |i: usize| i > 0 && b[i - 1] == b'\r';
    let crlf = crlf_at(first);
    if nl.any(|(i, _)| crlf_at(i) != crlf) {
        return Err(ReadError {
            code: Code::CannotPreserve,
            message: "the file mixes CRLF and LF line endings; mcpconf cannot edit it without changing them (make them consistent first)".into(),
            line: 1,
            column: 1,
        });
    }
    Ok(crlf)
}

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

/// The lengths of the common prefix of `a` and `b`, and of their common suffix in what the
/// prefix leaves (so the two never overlap): the bytes outside `p..len - q` are the same.
///
/// ```
/// assert_eq!(mcpconf::text::common_ends(b"abXcd", b"abYYcd"), (2, 2));
/// assert_eq!(mcpconf::text::common_ends(b"aa", b"aaa"), (2, 0));
/// ```
pub fn common_ends(a: &[u8], b: &[u8]) -> (usize, usize) {
    let p = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let room = a.len().min(b.len()) - p;
    let q = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    (p, q)
}

/// The parts of `old` and `new` that differ, widened to whole lines plus four lines of context
/// on each side, and the number of lines before them: what a diff of a big file with one change
/// needs to look at (bytes outside the window are identical).
///
/// ```
/// let old = b"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n";
/// let new = b"1\n2\n3\n4\n5\n6\nseven\n8\n9\n10\n11\n12\n";
/// let (o, n, shift) = mcpconf::text::diff_window(old, new);
/// assert_eq!(o, b"3\n4\n5\n6\n7\n8\n9\n10\n11\n");
/// assert_eq!(n, b"3\n4\n5\n6\nseven\n8\n9\n10\n11\n");
/// assert_eq!(shift, 2);
/// ```
pub fn diff_window<'o, 'n>(old: &'o [u8], new: &'n [u8]) -> (&'o [u8], &'n [u8], usize) {
    const CHUNK: usize = 4096;
    let max = old.len().min(new.len());
    // Common prefix, compared a chunk at a time (memcmp), then byte by byte.
    let mut p = 0;
    while p + CHUNK <= max && old[p..p + CHUNK] == new[p..p + CHUNK] {
        p += CHUNK;
    }
    p += old[p..max]
        .iter()
        .zip(&new[p..max])
        .take_while(|(a, b)| a == b)
        .count();
    let max_q = max - p;
    let mut q = 0;
    while q + CHUNK <= max_q
        && old[old.len() - q - CHUNK..old.len() - q] == new[new.len() - q - CHUNK..new.len() - q]
    {
        q += CHUNK;
    }
    q += old[..old.len() - q]
        .iter()
        .rev()
        .zip(new[..new.len() - q].iter().rev())
        .take(max_q - q)
        .take_while(|(a, b)| a == b)
        .count();
    let (s, e, ne, shift) = widen(old, new.len(), p, q);
    (&old[s..e], &new[s..ne], shift)
}

/// [`diff_window`] of `old` and content made from it: when `new` shares `old`'s buffer
/// ([`Content::change_from`]) only the replaced ranges and what matches around them is
/// compared (the cost of the edit, not of the file) and the new window is copied out of the
/// pieces; otherwise the whole new text is compared (joined only when it is in pieces). The
/// windows are the same either way.
pub fn diff_window_of<'a>(old: &'a [u8], new: &Content) -> (&'a [u8], Vec<u8>, usize) {
    let Some(ch) = new.change_from(old) else {
        // Borrowed when the content is one piece (a new text of its own): not copied whole.
        let whole = new.slice(0, new.len());
        let (o, n, shift) = diff_window(old, &whole);
        return (o, n.to_vec(), shift);
    };
    let new_len = new.len();
    let at = |i: usize| -> u8 { new.byte_at(i).unwrap_or(0) };
    let max = old.len().min(new_len);
    // Common prefix: at least everything before the change.
    let mut p = ch.start.min(max);
    while p < max && old[p] == at(p) {
        p += 1;
    }
    // Common suffix, within what the prefix leaves: at least everything after the change.
    let max_q = max - p;
    let mut q = (old.len() - ch.old_end).min(max_q);
    while q < max_q && old[old.len() - q - 1] == at(new_len - q - 1) {
        q += 1;
    }
    let (s, e, ne, shift) = widen(old, new_len, p, q);
    (&old[s..e], new.slice(s, ne).into_owned(), shift)
}

/// The windows of [`diff_window_of`], one per place the content changed `old` (those whose
/// context lines meet are one window), so that edits far apart in a big file are compared and
/// copied out as what they changed, not as everything between them. Each window is the old
/// bytes, the new bytes and the number of lines before it; both start at the same offset plus,
/// for the new bytes, what the windows before it added.
pub fn diff_windows_of<'a>(old: &'a [u8], new: &Content) -> Vec<(&'a [u8], Vec<u8>, usize)> {
    let Some(changes) = new.changes_from(old).filter(|c| c.len() > 1) else {
        return vec![diff_window_of(old, new)];
    };
    // Each change's lines plus four lines of context, in the old bytes (merged when they
    // meet), and what the changes before each window added.
    let mut spans: Vec<(usize, usize, isize, isize)> = Vec::new();
    let mut grown = 0isize;
    for ch in &changes {
        let lo = ch.start.saturating_add_signed(-grown);
        let hi = ch.old_end;
        let after = grown + (ch.new_end - ch.start) as isize - (ch.old_end - lo) as isize;
        // Only the bytes that differ (a part holds a whole object, most of it unchanged).
        let was = &old[lo..hi];
        let now = new.slice(ch.start, ch.new_end);
        let (p, q) = common_ends(was, &now);
        let (s, e) = context(old, lo + p, hi - q);
        match spans.last_mut() {
            Some(last) if s <= last.1 => {
                last.1 = last.1.max(e);
                last.3 = after;
            }
            _ => spans.push((s, e, grown, after)),
        }
        grown = after;
    }
    spans
        .into_iter()
        .map(|(s, e, before, after)| {
            let shift = old[..s].iter().filter(|&&c| c == b'\n').count();
            let (ns, ne) = (
                s.saturating_add_signed(before),
                e.saturating_add_signed(after),
            );
            (&old[s..e], new.slice(ns, ne).into_owned(), shift)
        })
        .collect()
}

/// The lines of `old[lo..hi]` and four more on each side.
fn context(old: &[u8], lo: usize, hi: usize) -> (usize, usize) {
    let mut s = lo.min(old.len());
    for i in 0..5 {
        if i > 0 {
            if s == 0 {
                break;
            }
            s -= 1;
        }
        while s > 0 && old[s - 1] != b'\n' {
            s -= 1;
        }
    }
    let mut e = hi.min(old.len());
    for _ in 0..5 {
        while e < old.len() && old[e] != b'\n' {
            e += 1;
        }
        if e < old.len() {
            e += 1;
        }
    }
    (s, e)
}

/// The window around the bytes that differ between `old` and a new text of `new_len` bytes,
/// given their common prefix `p` and suffix `q`: whole lines, four more on each side, as
/// `old[s..e]`, `new[s..ne]` and the number of lines before `s`.
fn widen(old: &[u8], new_len: usize, p: usize, q: usize) -> (usize, usize, usize, usize) {
    let oe = old.len() - q;
    // The lines of the change and four more on each side; the end is in the common suffix,
    // so it is the same number of bytes from the end in both.
    let (s, e) = context(old, p, oe);
    let shift = old[..s].iter().filter(|&&c| c == b'\n').count();
    // The suffix after `e` is common: the new window ends as many bytes before the end.
    let ne = (new_len - q + (e - oe)).min(new_len);
    (s, e, ne, shift)
}

/// `text` as an environment variable name: ASCII letters and digits upper-cased, anything else
/// `_`, and a leading `_` before a digit (`my-key` → `MY_KEY`, `2fa` → `_2FA`).
///
/// ```
/// assert_eq!(mcpconf::text::env_var_name("my-key.v2"), "MY_KEY_V2");
/// assert_eq!(mcpconf::text::env_var_name("2fa"), "_2FA");
/// ```
pub fn env_var_name(text: &str) -> String {
    let mut s: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

/// Whether `id` is an input id mcpconf writes in `${input:ID}` and `[inputs.ID]`: 1-64
/// characters from `A-Z a-z 0-9 _ . -` (the ids VS Code's docs and users' files use).
pub fn valid_input_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
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

    proptest::proptest! {
        /// The windows of content with several replaced ranges hold every change: the old
        /// bytes with each window's old bytes replaced by its new bytes are the new bytes.
        #[test]
        fn diff_windows_of_content_hold_every_change(
            base in "[ab\n]{0,300}",
            cuts in proptest::collection::vec(0usize..310, 0..6),
            mids in proptest::collection::vec("[ab\n]{0,12}", 3),
        ) {
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(base.len())).collect();
            cuts.sort_unstable();
            let parts: Vec<(usize, usize, Vec<u8>)> = cuts
                .chunks(2)
                .filter(|c| c.len() == 2)
                .zip(&mids)
                .map(|(c, m)| (c[0], c[1], m.clone().into_bytes()))
                .collect();
            let shared = std::sync::Arc::new(base.clone());
            let c = Content::replaced(shared.clone(), parts).unwrap();
            let whole = c.to_vec();
            let old = shared.as_bytes();
            let windows = diff_windows_of(old, &c);
            let mut rebuilt = Vec::new();
            let mut at = 0usize;
            for (o, n, shift) in &windows {
                let from = o.as_ptr() as usize - old.as_ptr() as usize;
                proptest::prop_assert!(from >= at);
                proptest::prop_assert_eq!(*shift, old[..from].iter().filter(|&&b| b == b'\n').count());
                rebuilt.extend_from_slice(&old[at..from]);
                rebuilt.extend_from_slice(n);
                at = from + o.len();
            }
            rebuilt.extend_from_slice(&old[at..]);
            proptest::prop_assert_eq!(rebuilt, whole.clone());
            for (i, b) in whole.iter().enumerate() {
                proptest::prop_assert_eq!(c.byte_at(i), Some(*b));
            }
            proptest::prop_assert_eq!(c.byte_at(whole.len()), None);
        }

        /// The window of a spliced content is the window of its materialised bytes, however
        /// the replaced range sits among equal bytes.
        #[test]
        fn diff_window_of_content_equals_the_materialised_one(
            base in "[ab\n]{0,60}",
            a in 0usize..70, b in 0usize..70,
            mid in "[ab\n]{0,12}",
        ) {
            let (lo, hi) = (a.min(b).min(base.len()), a.max(b).min(base.len()));
            let shared = std::sync::Arc::new(base.clone());
            let c = Content::spliced(shared.clone(), lo, hi, mid.into_bytes()).unwrap();
            let whole = c.to_vec();
            let (o, n, shift) = diff_window(shared.as_bytes(), &whole);
            let (o2, n2, shift2) = diff_window_of(shared.as_bytes(), &c);
            proptest::prop_assert_eq!(o, o2);
            proptest::prop_assert_eq!(n, n2.as_slice());
            proptest::prop_assert_eq!(shift, shift2);
            // Not made from these bytes (a copy): the same answer the long way.
            let copy = base.as_bytes().to_vec();
            let (o3, n3, shift3) = diff_window_of(&copy, &c);
            proptest::prop_assert_eq!((o3, n3.as_slice(), shift3), (o, n, shift));
        }
    }
}
