//! [`Src`]: the LF text a layout reads its windows from, either one string or a document's
//! [`Content`] (the bytes read with the ranges its edits replaced), so that an edited document
//! is read and edited again without joining its text. Pure: no I/O.

use std::borrow::Cow;

use crate::text::Content;

/// One edit of a text: the range `lo..hi` replaced by the string.
pub(super) type Edit = (usize, usize, String);

/// The text a layout reads.
#[derive(Debug, Clone, Copy)]
pub(super) enum Src<'a> {
    /// One string.
    Str(&'a str),
    /// A content's text from its byte `skip` on (after a byte order mark), its pieces not
    /// joined.
    Pieces(&'a Content, usize),
}

impl<'a> Src<'a> {
    /// Length in bytes.
    pub(super) fn len(self) -> usize {
        match self {
            Src::Str(s) => s.len(),
            Src::Pieces(c, skip) => c.len().saturating_sub(skip),
        }
    }

    /// The text `a..z`, borrowed when it lies in one piece; `None` outside the text or off a
    /// character's bounds.
    pub(super) fn get(self, a: usize, z: usize) -> Option<Cow<'a, str>> {
        match self {
            Src::Str(s) => s.get(a..z).map(Cow::Borrowed),
            Src::Pieces(c, skip) => {
                if a > z || z > self.len() {
                    return None;
                }
                match c.slice(a + skip, z + skip) {
                    Cow::Borrowed(b) => std::str::from_utf8(b).ok().map(Cow::Borrowed),
                    Cow::Owned(v) => String::from_utf8(v).ok().map(Cow::Owned),
                }
            }
        }
    }

    /// The byte at `i`.
    pub(super) fn byte(self, i: usize) -> Option<u8> {
        match self {
            Src::Str(s) => s.as_bytes().get(i).copied(),
            Src::Pieces(c, skip) => c.byte_at(i.checked_add(skip)?),
        }
    }

    /// Whether the ASCII `needle` occurs in the text.
    pub(super) fn contains(self, needle: &str) -> bool {
        match self {
            Src::Str(s) => s.contains(needle),
            // A byte order mark is not ASCII: it cannot be part of a match.
            Src::Pieces(c, _) => c.contains(needle),
        }
    }
}

/// Add the edit that makes the text `a..z` of `text` read `new` (nothing when it already
/// does): only the bytes between their common ends, cut at character bounds. `None` when
/// `a..z` is not text of `text`.
pub(super) fn push_edit(
    edits: &mut Vec<Edit>,
    text: Src<'_>,
    a: usize,
    z: usize,
    new: &str,
) -> Option<()> {
    let old = text.get(a, z)?;
    let (mut p, mut q) = crate::text::common_ends(old.as_bytes(), new.as_bytes());
    while !old.is_char_boundary(p) || !new.is_char_boundary(p) {
        p -= 1;
    }
    while !old.is_char_boundary(old.len() - q) || !new.is_char_boundary(new.len() - q) {
        q -= 1;
    }
    if p + q == old.len() && p + q == new.len() {
        return Some(());
    }
    edits.push((a + p, z - q, new[p..new.len() - q].to_string()));
    Some(())
}

/// `text` with `edits` (in order, disjoint) made, as one string.
pub(super) fn apply(text: &str, edits: &[Edit]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (lo, hi, mid) in edits {
        out.push_str(&text[at..*lo]);
        out.push_str(mid);
        at = *hi;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    proptest::proptest! {
        /// The edits `push_edit` makes turn the old text into the new one, on a string and on
        /// a content in pieces, and are small: their ends are not common bytes.
        #[test]
        fn edits_make_the_new_text(
            old in "[ab\né]{0,30}",
            new in "[ab\nè]{0,30}",
            cut in 0usize..40,
        ) {
            let mut edits = Vec::new();
            push_edit(&mut edits, Src::Str(&old), 0, old.len(), &new).unwrap();
            proptest::prop_assert_eq!(apply(&old, &edits), new.clone());
            proptest::prop_assert_eq!(edits.is_empty(), old == new);
            // The same read through a content that holds the old text in two pieces.
            let mut cut = cut.min(old.len());
            while !old.is_char_boundary(cut) {
                cut -= 1;
            }
            let base = Arc::new(format!("\u{feff}{}x{}", &old[..cut], &old[cut..]));
            let at = 3 + cut;
            let c = Content::spliced(base, at, at + 1, Vec::new()).unwrap();
            let src = Src::Pieces(&c, 3);
            proptest::prop_assert_eq!(src.len(), old.len());
            proptest::prop_assert_eq!(src.get(0, old.len()).unwrap(), old.as_str());
            let mut again = Vec::new();
            push_edit(&mut again, src, 0, old.len(), &new).unwrap();
            proptest::prop_assert_eq!(again, edits);
            for (i, b) in old.bytes().enumerate() {
                proptest::prop_assert_eq!(src.byte(i), Some(b));
            }
        }
    }
}
