//! [`Src`]: the text of a document read part by part, as the pieces of its [`Content`] (the
//! bytes read, with the ranges edits replaced), not joined: an edit of a big file keeps one
//! copy of it, shared with the document it was made from. Offsets are in the text after the
//! byte order mark. Pure: no I/O.

use std::borrow::Cow;

use crate::text::Content;

/// A document's text in pieces (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct Src<'a> {
    /// Each piece's start and text, in order, none empty.
    pieces: Vec<(usize, &'a str)>,
    len: usize,
}

impl<'a> Src<'a> {
    /// The text of `c` after its first `skip` bytes; `None` when a piece is not text.
    pub(crate) fn new(c: &'a Content, skip: usize) -> Option<Src<'a>> {
        let mut pieces = Vec::new();
        let (mut at, mut skip) = (0, skip);
        for p in c.str_pieces()? {
            let cut = skip.min(p.len());
            skip -= cut;
            let p = p.get(cut..)?;
            if !p.is_empty() {
                pieces.push((at, p));
                at += p.len();
            }
        }
        Some(Src { pieces, len: at })
    }

    /// One string.
    pub(crate) fn of(s: &'a str) -> Src<'a> {
        let pieces = if s.is_empty() {
            Vec::new()
        } else {
            vec![(0, s)]
        };
        Src {
            pieces,
            len: s.len(),
        }
    }

    /// Length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The index of the piece holding byte `at` (the last piece for the end).
    fn piece(&self, at: usize) -> usize {
        self.pieces
            .partition_point(|&(s, _)| s <= at)
            .saturating_sub(1)
    }

    /// The text `a..z`, borrowed when it lies in one piece; `None` outside the text or off a
    /// character's bounds.
    pub(crate) fn get(&self, a: usize, z: usize) -> Option<Cow<'a, str>> {
        if a > z || z > self.len {
            return None;
        }
        if self.pieces.is_empty() {
            return Some(Cow::Borrowed(""));
        }
        let i = self.piece(a);
        let (s, p) = *self.pieces.get(i)?;
        if z <= s + p.len() {
            return p.get(a - s..z - s).map(Cow::Borrowed);
        }
        let mut out = String::with_capacity(z - a);
        for &(s, p) in &self.pieces[i..] {
            if s >= z {
                break;
            }
            out.push_str(p.get(a.max(s) - s..z.min(s + p.len()) - s)?);
        }
        Some(Cow::Owned(out))
    }

    /// The byte at `i`.
    pub(crate) fn byte(&self, i: usize) -> Option<u8> {
        let (s, p) = *self.pieces.get(self.piece(i))?;
        p.as_bytes().get(i.checked_sub(s)?).copied()
    }

    /// Whether the text at `at` begins with `prefix`.
    pub(crate) fn starts_with(&self, at: usize, prefix: &[u8]) -> bool {
        let z = at.saturating_add(prefix.len());
        if z > self.len {
            return false;
        }
        let i = self.piece(at);
        match self.pieces.get(i) {
            Some(&(s, p)) if z <= s + p.len() => &p.as_bytes()[at - s..z - s] == prefix,
            _ => (0..prefix.len()).all(|k| self.byte(at + k) == Some(prefix[k])),
        }
    }

    /// The start of the line holding `at`.
    pub(crate) fn line_start(&self, at: usize) -> usize {
        let at = at.min(self.len);
        let mut i = self.piece(at);
        let mut to = at;
        loop {
            let Some(&(s, p)) = self.pieces.get(i) else {
                return 0;
            };
            let local = to.saturating_sub(s).min(p.len());
            if let Some(k) = p.as_bytes()[..local].iter().rposition(|&c| c == b'\n') {
                return s + k + 1;
            }
            if i == 0 {
                return 0;
            }
            i -= 1;
            to = s;
        }
    }

    /// Where the line after the one holding `at` begins (the length on the last line).
    pub(crate) fn next_line(&self, at: usize) -> usize {
        let mut i = self.piece(at);
        let mut from = at;
        while let Some(&(s, p)) = self.pieces.get(i) {
            let local = from.saturating_sub(s).min(p.len());
            if let Some(k) = p.as_bytes()[local..].iter().position(|&c| c == b'\n') {
                return s + local + k + 1;
            }
            i += 1;
            from = s + p.len();
        }
        self.len
    }

    /// The end of the line holding `at`, before its `\n` or `\r\n`.
    pub(crate) fn line_end(&self, at: usize) -> usize {
        let at = at.min(self.len);
        let next = self.next_line(at);
        let mut k = next;
        if k > at && self.byte(k - 1) == Some(b'\n') {
            k -= 1;
            if k > at && self.byte(k - 1) == Some(b'\r') {
                k -= 1;
            }
        }
        k
    }

    /// Calls `f` with the start of every line that begins in `a..z` (`a` itself when it
    /// begins a line), in order, until it says to stop.
    pub(crate) fn line_starts<R>(
        &self,
        a: usize,
        z: usize,
        mut f: impl FnMut(usize) -> Option<R>,
    ) -> Option<R> {
        if a < z
            && (a == 0 || self.byte(a - 1) == Some(b'\n'))
            && let Some(r) = f(a)
        {
            return Some(r);
        }
        for &(s, p) in &self.pieces[self.piece(a)..] {
            if s >= z {
                break;
            }
            let from = a.max(s) - s;
            let to = z.min(s + p.len()) - s;
            let b = &p.as_bytes()[from..to];
            let mut k = 0;
            while let Some(n) = b[k..].iter().position(|&c| c == b'\n') {
                let at = s + from + k + n + 1;
                k += n + 1;
                if at < z
                    && let Some(r) = f(at)
                {
                    return Some(r);
                }
            }
        }
        None
    }

    /// 1-based line and column (in characters) of `at`.
    pub(crate) fn line_col(&self, at: usize) -> (usize, usize) {
        let at = at.min(self.len);
        let mut lines = 1;
        for &(s, p) in &self.pieces {
            if s >= at {
                break;
            }
            let z = (at - s).min(p.len());
            lines += p.as_bytes()[..z].iter().filter(|&&c| c == b'\n').count();
        }
        let start = self.line_start(at);
        // Inside a character: its start.
        let mut end = at;
        let column = loop {
            match self.get(start, end) {
                Some(t) => break t.chars().count(),
                None if end > start => end -= 1,
                None => break 0,
            }
        };
        (lines, column + 1)
    }

    /// The indentation unit: the smallest indentation of a content line, else 2.
    pub(crate) fn unit(&self) -> usize {
        let mut min = usize::MAX;
        self.line_starts(0, self.len, |at| {
            let mut n = 0;
            while self.byte(at + n) == Some(b' ') {
                n += 1;
            }
            if n > 0 && n < min && !matches!(self.byte(at + n), None | Some(b'\n' | b'\r' | b'#')) {
                // A line of only spaces and tabs is blank too.
                let end = self.line_end(at);
                let blank = self
                    .get(at, end)
                    .is_some_and(|l| l.trim().is_empty() || l.trim_start().starts_with('#'));
                if !blank {
                    min = n;
                }
            }
            None::<()>
        });
        if min == usize::MAX {
            2
        } else {
            min.clamp(1, 8)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    proptest::proptest! {
        /// Every way of reading a text in pieces gives what the joined text gives.
        #[test]
        fn pieces_read_as_the_joined_text(
            text in "[ab \\n#é]{0,40}",
            cut in 0usize..45, cut2 in 0usize..45,
            mid in "[a \\né]{0,6}",
        ) {
            let at = |c: usize| {
                let mut c = c.min(text.len());
                while !text.is_char_boundary(c) {
                    c -= 1;
                }
                c
            };
            let (a, z) = (at(cut.min(cut2)), at(cut.max(cut2)));
            let base = Arc::new(format!("\u{feff}{text}"));
            let c = Content::spliced(base, a + 3, z + 3, mid.clone().into_bytes()).unwrap();
            let joined = format!("{}{mid}{}", &text[..a], &text[z..]);
            let src = Src::new(&c, 3).unwrap();
            let one = Src::of(&joined);
            proptest::prop_assert_eq!(src.len(), joined.len());
            for i in 0..=joined.len() {
                proptest::prop_assert_eq!(src.byte(i), joined.as_bytes().get(i).copied());
                proptest::prop_assert_eq!(src.line_start(i), one.line_start(i));
                proptest::prop_assert_eq!(src.line_end(i), one.line_end(i));
                proptest::prop_assert_eq!(src.next_line(i), one.next_line(i));
                proptest::prop_assert_eq!(src.line_col(i), crate::text::line_col(&joined, i));
                for j in i..=joined.len() {
                    let got = src.get(i, j);
                    proptest::prop_assert_eq!(got.as_deref(), joined.get(i..j));
                }
            }
            let starts = |s: &Src| {
                let mut v = Vec::new();
                s.line_starts(0, joined.len(), |x| { v.push(x); None::<()> });
                v
            };
            proptest::prop_assert_eq!(starts(&src), starts(&one));
            let want: Vec<usize> = std::iter::once(0)
                .chain(joined.match_indices('\n').map(|(i, _)| i + 1))
                .filter(|&i| i < joined.len())
                .collect();
            proptest::prop_assert_eq!(starts(&one), want);
            proptest::prop_assert_eq!(src.unit(), one.unit());
        }
    }
}
