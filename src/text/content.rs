//! [`Content`]: the bytes a plan writes, kept as the bytes read plus the ranges the edits
//! replaced, so that an edit of a big file holds one copy of it, not two.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, Write};
use std::sync::Arc;

/// The bytes of a file to write: a base (the bytes read, shared with the document they were
/// parsed into, or bytes of their own) with disjoint ranges replaced (`lo..hi` by `mid`).
/// Writing, hashing and comparing go over the pieces; nothing builds the whole text unless
/// asked ([`Content::to_vec`]).
///
/// ```
/// use mcpconf::text::Content;
///
/// let whole = Content::from(b"{\"a\": 1}\n".to_vec());
/// assert_eq!(whole.len(), 9);
/// let edited = Content::spliced(std::sync::Arc::new("{\"a\": 1}\n".to_string()), 6, 7, b"22".to_vec())
///     .expect("in range");
/// assert_eq!(edited.to_vec(), b"{\"a\": 22}\n");
/// assert_eq!(edited, Content::from(b"{\"a\": 22}\n".to_vec()));
/// let mut out = Vec::new();
/// edited.write_to(&mut out)?;
/// assert_eq!(out, edited.to_vec());
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone)]
pub struct Content {
    base: Base,
    /// The replaced ranges of the base, in order, disjoint.
    parts: Vec<Part>,
}

#[derive(Clone)]
struct Part {
    lo: usize,
    hi: usize,
    mid: Vec<u8>,
}

#[derive(Clone)]
enum Base {
    Shared(Arc<String>),
    Owned(Arc<Vec<u8>>),
}

impl Base {
    fn bytes(&self) -> &[u8] {
        match self {
            Base::Shared(s) => s.as_bytes(),
            Base::Owned(v) => v.as_slice(),
        }
    }
}

/// Where a [`Content`] differs from the bytes it was made from: `old[start..old_end]` became
/// `new[start..new_end]`; everything before `start` and after the ends is the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change {
    /// First byte that may differ (same offset in both).
    pub start: usize,
    /// End of the replaced range in the old bytes.
    pub old_end: usize,
    /// End of the replacement in the new bytes.
    pub new_end: usize,
}

impl Content {
    /// `base` with `base[lo..hi]` replaced by `mid`; `None` when the range is not inside
    /// `base` (`lo <= hi <= base.len()`).
    pub fn spliced(base: Arc<String>, lo: usize, hi: usize, mid: Vec<u8>) -> Option<Content> {
        Content::replaced(base, vec![(lo, hi, mid)])
    }

    /// `base` with each range `lo..hi` replaced by its bytes; `None` unless the ranges lie in
    /// `base`, in order and disjoint.
    pub fn replaced(base: Arc<String>, parts: Vec<(usize, usize, Vec<u8>)>) -> Option<Content> {
        let mut at = 0;
        for (lo, hi, _) in &parts {
            if *lo < at || hi < lo || *hi > base.len() {
                return None;
            }
            at = *hi;
        }
        Some(Content {
            base: Base::Shared(base),
            parts: parts
                .into_iter()
                .map(|(lo, hi, mid)| Part { lo, hi, mid })
                .collect(),
        })
    }

    /// `base` unchanged, shared (no copy).
    pub fn shared(base: Arc<String>) -> Content {
        Content {
            base: Base::Shared(base),
            parts: Vec::new(),
        }
    }

    /// The pieces, in order: the base before the first replaced range, its replacement, the
    /// base up to the next one, … and the base after the last.
    pub fn pieces(&self) -> Vec<&[u8]> {
        let b = self.base.bytes();
        let mut out = Vec::with_capacity(2 * self.parts.len() + 1);
        let mut at = 0;
        for p in &self.parts {
            out.push(b.get(at..p.lo).unwrap_or_default());
            out.push(p.mid.as_slice());
            at = p.hi;
        }
        out.push(b.get(at..).unwrap_or_default());
        out
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        let replaced: usize = self.parts.iter().map(|p| p.hi - p.lo).sum();
        let added: usize = self.parts.iter().map(|p| p.mid.len()).sum();
        self.base.bytes().len() - replaced + added
    }

    /// Whether there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes the bytes, one `write_all` per piece.
    pub fn write_to(&self, w: &mut dyn Write) -> io::Result<()> {
        for p in self.pieces() {
            w.write_all(p)?;
        }
        Ok(())
    }

    /// The bytes as one new vector (a copy of the whole file: for small files and tests).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        for p in self.pieces() {
            out.extend_from_slice(p);
        }
        out
    }

    /// The byte at `i`.
    pub fn byte_at(&self, i: usize) -> Option<u8> {
        let b = self.base.bytes();
        let mut grown = 0isize;
        for p in &self.parts {
            let start = p.lo.saturating_add_signed(grown);
            if i < start {
                break;
            }
            if i < start + p.mid.len() {
                return p.mid.get(i - start).copied();
            }
            grown += p.mid.len() as isize - (p.hi - p.lo) as isize;
        }
        b.get(i.checked_add_signed(-grown)?).copied()
    }

    /// The bytes `a..z` (clamped to the length), borrowed when they lie in one piece.
    pub fn slice(&self, a: usize, z: usize) -> Cow<'_, [u8]> {
        let z = z.min(self.len());
        let a = a.min(z);
        let mut at = 0;
        for p in self.pieces() {
            if a >= at && z <= at + p.len() {
                return Cow::Borrowed(&p[a - at..z - at]);
            }
            at += p.len();
        }
        let mut out = Vec::with_capacity(z - a);
        let mut at = 0;
        for p in self.pieces() {
            let (pa, pz) = (a.clamp(at, at + p.len()), z.clamp(at, at + p.len()));
            out.extend_from_slice(&p[pa - at..pz - at]);
            at += p.len();
        }
        Cow::Owned(out)
    }

    /// The ranges that differ from `old`, in order, when these bytes were made from exactly
    /// `old` (the same buffer, not a copy of it): then nothing outside them needs to be
    /// compared.
    pub fn changes_from(&self, old: &[u8]) -> Option<Vec<Change>> {
        let b = self.base.bytes();
        if b.as_ptr() != old.as_ptr() || b.len() != old.len() {
            return None;
        }
        let mut grown = 0isize;
        let mut out = Vec::with_capacity(self.parts.len().max(1));
        for p in &self.parts {
            let start = p.lo.saturating_add_signed(grown);
            out.push(Change {
                start,
                old_end: p.hi,
                new_end: start + p.mid.len(),
            });
            grown += p.mid.len() as isize - (p.hi - p.lo) as isize;
        }
        if out.is_empty() {
            let n = b.len();
            out.push(Change {
                start: n,
                old_end: n,
                new_end: n,
            });
        }
        Some(out)
    }

    /// The one range that holds every change from `old` (see [`Content::changes_from`]):
    /// `start` and `new_end` in the new bytes, `old_end` in `old`.
    pub fn change_from(&self, old: &[u8]) -> Option<Change> {
        let all = self.changes_from(old)?;
        let (first, last) = (all.first()?, all.last()?);
        Some(Change {
            start: first.start,
            old_end: last.old_end,
            new_end: last.new_end,
        })
    }
}

impl Content {
    /// These bytes with each range `lo..hi` of them (in order, disjoint) replaced by its
    /// bytes, the base still shared: a second edit of edited content is spliced too, not
    /// joined. `None` when a range is out of order or outside these bytes.
    pub fn edited(&self, edits: Vec<(usize, usize, Vec<u8>)>) -> Option<Content> {
        let len = self.len();
        let mut at = 0;
        for (lo, hi, _) in &edits {
            if *lo < at || hi < lo || *hi > len {
                return None;
            }
            at = *hi;
        }
        // What the result is made of, in order: ranges of the base and bytes of their own.
        enum Seg<'a> {
            Base(usize, usize),
            Bytes(&'a [u8]),
        }
        let mut segs: Vec<(usize, Seg)> = Vec::with_capacity(2 * self.parts.len() + 1);
        let mut now = 0;
        let mut was = 0;
        for p in &self.parts {
            segs.push((now, Seg::Base(was, p.lo)));
            now += p.lo - was;
            segs.push((now, Seg::Bytes(&p.mid)));
            now += p.mid.len();
            was = p.hi;
        }
        segs.push((now, Seg::Base(was, self.base.bytes().len())));
        // The result's segments: the current ones cut around each edit, its bytes between.
        let mut out: Vec<Seg> = Vec::with_capacity(segs.len() + 2 * edits.len());
        fn keep<'a>(out: &mut Vec<Seg<'a>>, a: usize, z: usize, segs: &[(usize, Seg<'a>)]) {
            for (start, seg) in segs {
                let seg_len = match seg {
                    Seg::Base(x, y) => y - x,
                    Seg::Bytes(b) => b.len(),
                };
                let (s, e) = (a.max(*start), z.min(start + seg_len));
                if s >= e {
                    continue;
                }
                let (s, e) = (s - start, e - start);
                out.push(match seg {
                    Seg::Base(x, _) => Seg::Base(x + s, x + e),
                    Seg::Bytes(b) => Seg::Bytes(&b[s..e]),
                });
            }
        }
        let mut cursor = 0;
        for (lo, hi, mid) in &edits {
            keep(&mut out, cursor, *lo, &segs);
            out.push(Seg::Bytes(mid));
            cursor = *hi;
        }
        keep(&mut out, cursor, len, &segs);
        // Back to a base and the ranges of it replaced.
        let mut parts = Vec::new();
        let mut pending: Vec<u8> = Vec::new();
        let mut base_at = 0;
        for seg in out {
            match seg {
                Seg::Bytes(b) => pending.extend_from_slice(b),
                Seg::Base(x, y) => {
                    if x < base_at {
                        return None;
                    }
                    if !pending.is_empty() || x != base_at {
                        parts.push(Part {
                            lo: base_at,
                            hi: x,
                            mid: std::mem::take(&mut pending),
                        });
                    }
                    base_at = y;
                }
            }
        }
        let base_len = self.base.bytes().len();
        if !pending.is_empty() || base_at != base_len {
            parts.push(Part {
                lo: base_at,
                hi: base_len,
                mid: pending,
            });
        }
        Some(Content {
            base: self.base.clone(),
            parts,
        })
    }

    /// Whether the ASCII `needle` occurs in these bytes (within a piece or across pieces).
    pub fn contains(&self, needle: &str) -> bool {
        debug_assert!(needle.is_ascii());
        if needle.is_empty() {
            return true;
        }
        // Bytes that are not UTF-8 become U+FFFD, which no ASCII needle holds.
        let holds = |b: &[u8]| String::from_utf8_lossy(b).contains(needle);
        let pieces = self.pieces();
        if pieces.iter().any(|p| holds(p)) {
            return true;
        }
        // Across a boundary: the bytes around it, one short of the needle on each side.
        let reach = needle.len() - 1;
        let mut at = 0;
        pieces[..pieces.len() - 1].iter().any(|p| {
            at += p.len();
            holds(&self.slice(at.saturating_sub(reach), at + reach))
        })
    }

    /// The pieces as text ([`Content::pieces`]), when the base is text and every replacement
    /// is UTF-8 cut at character bounds: the base's pieces are borrowed without checking them
    /// again.
    pub fn str_pieces(&self) -> Option<Vec<&str>> {
        let Base::Shared(s) = &self.base else {
            return None;
        };
        let mut out = Vec::with_capacity(2 * self.parts.len() + 1);
        let mut at = 0;
        for p in &self.parts {
            out.push(s.get(at..p.lo)?);
            out.push(std::str::from_utf8(&p.mid).ok()?);
            at = p.hi;
        }
        out.push(s.get(at..)?);
        Some(out)
    }

    /// How many ranges of the base are replaced.
    pub fn replaced_ranges(&self) -> usize {
        self.parts.len()
    }

    /// The text, when it is one string read whole (no edits, not made from bytes).
    pub fn as_str(&self) -> Option<&str> {
        match (&self.base, self.parts.is_empty()) {
            (Base::Shared(s), true) => Some(s.as_str()),
            _ => None,
        }
    }

    /// The bytes as one vector, without a copy when they are one buffer no clone shares.
    pub fn into_vec(self) -> Vec<u8> {
        if !self.parts.is_empty() {
            return self.to_vec();
        }
        match self.base {
            Base::Shared(s) => {
                Arc::try_unwrap(s).map_or_else(|s| s.as_bytes().to_vec(), String::into_bytes)
            }
            Base::Owned(v) => Arc::try_unwrap(v).unwrap_or_else(|v| v.as_ref().clone()),
        }
    }
}
impl From<Vec<u8>> for Content {
    fn from(bytes: Vec<u8>) -> Content {
        Content {
            base: Base::Owned(Arc::new(bytes)),
            parts: Vec::new(),
        }
    }
}

/// Byte-wise equality of two piece lists, without joining them.
fn pieces_eq(a: &[&[u8]], b: &[&[u8]]) -> bool {
    let (mut a, mut b) = (a.iter().copied(), b.iter().copied());
    let (mut x, mut y): (&[u8], &[u8]) = (&[], &[]);
    loop {
        while x.is_empty() {
            match a.next() {
                Some(p) => x = p,
                None => break,
            }
        }
        while y.is_empty() {
            match b.next() {
                Some(p) => y = p,
                None => break,
            }
        }
        if x.is_empty() || y.is_empty() {
            return x.is_empty() && y.is_empty();
        }
        let n = x.len().min(y.len());
        // The same bytes of one buffer (a document's clone) need no comparing.
        if x.as_ptr() != y.as_ptr() && x[..n] != y[..n] {
            return false;
        }
        x = &x[n..];
        y = &y[n..];
    }
}

impl PartialEq for Content {
    fn eq(&self, other: &Content) -> bool {
        self.len() == other.len() && pieces_eq(&self.pieces(), &other.pieces())
    }
}

impl Eq for Content {}

impl PartialEq<[u8]> for Content {
    fn eq(&self, other: &[u8]) -> bool {
        self.len() == other.len() && pieces_eq(&self.pieces(), &[other])
    }
}

impl fmt::Debug for Content {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Content")
            .field("len", &self.len())
            .field(
                "replaced",
                &self.parts.iter().map(|p| p.lo..p.hi).collect::<Vec<_>>(),
            )
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Every way of reading a spliced content gives exactly the materialised bytes.
        #[test]
        fn pieces_equal_the_materialised_bytes(
            base in "[a-z\\n{}é]{0,40}",
            a in 0usize..50, b in 0usize..50,
            mid in proptest::collection::vec(any::<u8>(), 0..20),
            s in 0usize..60, e in 0usize..60,
        ) {
            let bytes = base.as_bytes();
            let (lo, hi) = (a.min(b), a.max(b));
            let c = Content::spliced(Arc::new(base.clone()), lo, hi, mid.clone());
            prop_assert_eq!(c.is_some(), hi <= bytes.len());
            let Some(c) = c else { return Ok(()) };
            let mut want = bytes[..lo].to_vec();
            want.extend_from_slice(&mid);
            want.extend_from_slice(&bytes[hi..]);
            prop_assert_eq!(c.to_vec(), want.clone());
            prop_assert_eq!(c.len(), want.len());
            let mut w = Vec::new();
            c.write_to(&mut w).unwrap();
            prop_assert_eq!(&w, &want);
            prop_assert!(c == *want.as_slice());
            prop_assert!(c == Content::from(want.clone()));
            let (s, e) = (s.min(e).min(want.len()), e.max(s).min(want.len()));
            let got = c.slice(s, e);
            prop_assert_eq!(got.as_ref(), &want[s..e]);
            // Any other byte string differs.
            let mut other = want.clone();
            other.push(b'x');
            prop_assert!(c != *other.as_slice());
            if let Some(last) = want.last().copied() {
                let mut flipped = want.clone();
                *flipped.last_mut().unwrap() = last ^ 1;
                prop_assert!(c != Content::from(flipped));
            }
        }
    }

    proptest! {
        /// An edit of edited content is the edit of its materialised bytes, with the base
        /// still shared; `contains` finds what the materialised bytes hold.
        #[test]
        fn edits_of_edited_content_equal_the_materialised_edits(
            base in "[ab\n]{0,60}",
            first in proptest::collection::vec((0usize..70, 0usize..8, "[cd\n]{0,6}"), 0..4),
            second in proptest::collection::vec((0usize..80, 0usize..8, "[ae\n]{0,6}"), 0..4),
            needle in "[a-e]{1,3}",
        ) {
            let splits = |n: usize, edits: Vec<(usize, usize, String)>| {
                let mut at = 0;
                let mut out = Vec::new();
                for (lo, w, mid) in edits {
                    let lo = lo.max(at).min(n);
                    let hi = (lo + w).min(n);
                    out.push((lo, hi, mid.into_bytes()));
                    at = hi;
                }
                out
            };
            let shared = Arc::new(base.clone());
            let c = Content::replaced(shared.clone(), splits(base.len(), first)).unwrap();
            let before = c.to_vec();
            let edits = splits(before.len(), second);
            let mut want = Vec::new();
            let mut at = 0;
            for (lo, hi, mid) in &edits {
                want.extend_from_slice(&before[at..*lo]);
                want.extend_from_slice(mid);
                at = *hi;
            }
            want.extend_from_slice(&before[at..]);
            let e = c.edited(edits).unwrap();
            prop_assert_eq!(e.to_vec(), want.clone());
            prop_assert!(e.changes_from(shared.as_bytes()).is_some());
            let found = want.windows(needle.len()).any(|w| w == needle.as_bytes());
            prop_assert_eq!(e.contains(&needle), found);
        }
    }

    #[test]
    fn change_is_known_only_against_the_same_buffer() {
        let base = Arc::new("{\"a\": 1}".to_string());
        let c = Content::spliced(base.clone(), 6, 7, b"2".to_vec()).unwrap();
        let change = c.change_from(base.as_bytes()).unwrap();
        assert_eq!((change.start, change.old_end, change.new_end), (6, 7, 7));
        let copy = base.as_bytes().to_vec();
        assert!(c.change_from(&copy).is_none());
    }
}
