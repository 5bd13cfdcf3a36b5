//! A document whose root is a block mapping, read part by part. Every key at column 0 begins
//! an entry of the root mapping, and an entry's lines end where the next such key begins: so
//! the text splits into parts, one top-level entry each (the first part also holds what
//! comes before the first key), and the whole text reads as the parts read alone, given their
//! keys differ. A document is proven a batch of parts at a time (no tree of the whole is
//! kept), an entry's tree is read from its part when first asked for, and an edit of one
//! entry is proven on its part alone. What the split does not expect (a column-0 line that
//! is not a plain or quoted key, a second document, a byte order mark (allowed only where a
//! part would begin), a key whose hash another key has, a batch the parser reads otherwise)
//! gives no parts, and the document is read whole. Pure: no I/O.

use std::hash::BuildHasher;
use std::sync::{Arc, OnceLock};

use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};
use serde_json::Value;

use super::parse::{Entry, Kind, Node, Parser, to_value};
use super::split::Split;

/// About how much text a batch proven at once holds. Small in tests and under the fuzzer, so
/// that small documents are proven in many batches.
pub(super) const BATCH: usize = if cfg!(any(test, fuzzing)) {
    24
} else {
    256 * 1024
};

/// The parts of a document (see the module docs).
#[derive(Debug)]
pub(crate) struct Parts {
    /// Where each part begins (the first at 0).
    starts: Vec<usize>,
    /// Each part's key, hashed.
    hashes: Vec<u64>,
    /// The parts by their keys' hashes: the part of a key.
    index: Vec<u32>,
    /// Each part's answer to "the first block sequence under a key: is it flush with its
    /// key?" (`None`: the part has no block sequence under a key).
    seq: Vec<Option<bool>>,
    /// Each part's entry, read when first asked for (offsets in the whole text).
    entries: Vec<OnceLock<Option<Arc<Entry>>>>,
    /// The parts read child by child (see `split`): a big entry whose value is a block
    /// mapping. Its tree is read only when the whole entry is asked for.
    splits: FxHashMap<usize, Arc<Split>>,
    /// The whole tree, when asked for.
    whole: OnceLock<Option<Arc<Node>>>,
    /// A root mapping of the first and last entries (their places only, no values): where
    /// a new top-level key goes.
    ends: OnceLock<Node>,
}

pub(super) fn hash(key: &str) -> u64 {
    FxBuildHasher.hash_one(key)
}

/// Each line of `b`: where it starts, and where the next one does.
pub(super) fn lines(b: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        (at < b.len()).then(|| {
            let start = at;
            at = b[at..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |i| at + i + 1);
            (start, at)
        })
    })
}

/// Whether a line whose text begins with `c` is one a split does not expect where a key
/// would begin: a sequence item, a flow collection, a directive, a complex key, a block
/// scalar, an anchor, an alias, a tag, a tab, or what may begin a document marker.
pub(super) fn not_a_key(c: u8) -> bool {
    matches!(
        c,
        b'-' | b'{'
            | b'['
            | b'%'
            | b'?'
            | b'|'
            | b'>'
            | b'&'
            | b'*'
            | b'!'
            | b'\t'
            | b':'
            | b','
            | b']'
            | b'}'
            | b'@'
            | b'`'
            | b'.'
    )
}

/// The parts' starts, or `None` (see the module docs).
fn split(body: &str) -> Option<Vec<usize>> {
    // A byte order mark is refused anywhere but at the start of the text, which a part's
    // start would be.
    if body.contains('\u{feff}') {
        return None;
    }
    let b = body.as_bytes();
    let mut starts = vec![0];
    let mut keyed = false;
    for (at, end) in lines(b) {
        let line = &body[at..end];
        let marker = |m: &str| {
            line.strip_prefix(m)
                .is_some_and(|r| r.chars().next().is_none_or(char::is_whitespace))
        };
        match b[at] {
            b' ' | b'\n' | b'\r' | b'#' => {}
            _ if !keyed && marker("---") => {}
            c if not_a_key(c) => return None,
            _ if marker("---") || marker("...") => return None,
            _ if !keyed => keyed = true,
            _ => starts.push(at),
        }
    }
    keyed.then_some(starts)
}

/// The first block sequence under a key in `n`, in document order: whether it is flush with
/// its key (`text` holds the offsets' text; `None`: there is none). The whole document's first
/// decides the style of what an edit writes (`YamlDoc::flush_seq`).
pub(super) fn first_seq(text: &str, n: &Node) -> Option<bool> {
    match &n.kind {
        Kind::Map(es) => es.iter().find_map(|e| seq_of(text, e)),
        Kind::Seq(items) => items.iter().find_map(|i| first_seq(text, &i.value)),
        Kind::Scalar(_) => None,
    }
}

/// [`first_seq`] of one entry: its value if that is a block sequence, else within it.
pub(super) fn seq_of(text: &str, e: &Entry) -> Option<bool> {
    let col = |at: usize| at - text[..at].rfind('\n').map_or(0, |i| i + 1);
    if let Kind::Seq(items) = &e.value.kind
        && !e.value.flow
        && let Some(first) = items.first()
    {
        return Some(col(first.at) == col(e.key_at));
    }
    first_seq(text, &e.value)
}

/// Add `by` to every offset of an entry.
pub(super) fn shift(e: &mut Entry, by: usize) {
    fn node(n: &mut Node, by: usize) {
        n.start += by;
        n.end += by;
        match &mut n.kind {
            Kind::Map(es) => es.iter_mut().for_each(|e| shift(e, by)),
            Kind::Seq(items) => {
                for i in items {
                    i.at += by;
                    i.line_start += by;
                    i.end += by;
                    node(&mut i.value, by);
                }
            }
            Kind::Scalar(_) => {}
        }
    }
    e.key_at += by;
    e.line_start += by;
    e.colon += by;
    e.end += by;
    node(&mut e.value, by);
}

/// The entries of a text read alone as a block mapping.
pub(super) fn read(text: &str) -> Option<Vec<Entry>> {
    match Parser::parse(text).ok()? {
        Node {
            kind: Kind::Map(es),
            flow: false,
            ..
        } => Some(es),
        _ => None,
    }
}

impl Parts {
    /// The parts of `body`, proven batch by batch; `None`: read it whole.
    pub(crate) fn of(body: &str) -> Option<Parts> {
        let starts = split(body)?;
        if starts.len() < 2 {
            return None;
        }
        let n = starts.len();
        let end = |i: usize| starts.get(i + 1).copied().unwrap_or(body.len());
        let mut hashes = Vec::with_capacity(n);
        let mut seq = Vec::with_capacity(n);
        let mut seen = FxHashSet::default();
        let mut known = Vec::new();
        let mut splits = FxHashMap::default();
        let mut i = 0;
        let big = |i: usize| end(i) - starts[i] >= BATCH;
        while i < n {
            // A big part is proven alone, child by child when it splits.
            if big(i)
                && let Some((split, first)) = Split::of(&body[starts[i]..end(i)])
            {
                let h = hash(split.key());
                if !seen.insert(h) {
                    return None;
                }
                hashes.push(h);
                seq.push(first);
                splits.insert(i, Arc::new(split));
                i += 1;
                continue;
            }
            let mut j = i + 1;
            while j < n && starts[j] - starts[i] < BATCH && !big(j) {
                j += 1;
            }
            let text = &body[starts[i]..end(j - 1)];
            let es = read(text)?;
            if es.len() != j - i {
                return None;
            }
            for (k, mut e) in es.into_iter().enumerate() {
                if k > 0 && e.line_start != starts[i + k] - starts[i] {
                    return None;
                }
                let h = hash(&e.key);
                if !seen.insert(h) {
                    return None;
                }
                hashes.push(h);
                seq.push(seq_of(text, &e));
                // A part as big as a batch is one big entry (a Goose `extensions`), most
                // likely the one an edit reads: its tree is kept rather than read again.
                if end(i + k) - starts[i + k] >= BATCH {
                    shift(&mut e, starts[i]);
                    known.push((i + k, Arc::new(e)));
                }
            }
            i = j;
        }
        Some(Parts::new(starts, hashes, seq, known, splits))
    }

    fn new(
        starts: Vec<usize>,
        hashes: Vec<u64>,
        seq: Vec<Option<bool>>,
        known: Vec<(usize, Arc<Entry>)>,
        splits: FxHashMap<usize, Arc<Split>>,
    ) -> Parts {
        let mut index: Vec<u32> = (0..hashes.len() as u32).collect();
        index.sort_unstable_by_key(|&i| hashes[i as usize]);
        let entries: Vec<_> = (0..starts.len()).map(|_| OnceLock::new()).collect();
        for (i, e) in known {
            let _ = entries[i].set(Some(e));
        }
        Parts {
            starts,
            hashes,
            index,
            seq,
            entries,
            splits,
            whole: OnceLock::new(),
            ends: OnceLock::new(),
        }
    }

    fn end(&self, i: usize, body: &str) -> usize {
        self.starts.get(i + 1).copied().unwrap_or(body.len())
    }

    /// Part `i`'s entry, read from its part once.
    fn entry(&self, body: &str, i: usize) -> Option<&Entry> {
        self.entries[i]
            .get_or_init(|| {
                let start = self.starts[i];
                let mut es = read(&body[start..self.end(i, body)])?;
                let mut e = es.pop()?;
                shift(&mut e, start);
                Some(Arc::new(e))
            })
            .as_deref()
    }

    /// The part holding the top-level key `key`.
    fn part(&self, body: &str, key: &str) -> Option<usize> {
        let h = hash(key);
        let at = self.index.partition_point(|&i| self.hashes[i as usize] < h);
        let i = *self.index.get(at)?;
        let x = self.hashes[i as usize];
        let i = i as usize;
        let same = match self.splits.get(&i) {
            Some(s) => s.key() == key,
            None => self.entry(body, i)?.key == key,
        };
        (x == h && same).then_some(i)
    }

    /// The part `key` when it is read child by child: its start, its text and its split.
    pub(crate) fn split<'s, 'b>(
        &'s self,
        body: &'b str,
        key: &str,
    ) -> Option<(usize, &'b str, &'s Split)> {
        let i = self.part(body, key)?;
        let s = self.splits.get(&i)?;
        let start = self.starts[i];
        Some((start, body.get(start..self.end(i, body))?, s))
    }

    /// The top-level entry `key`.
    pub(crate) fn top(&self, body: &str, key: &str) -> Option<&Entry> {
        self.entry(body, self.part(body, key)?)
    }

    /// How many parts are read child by child (for the tests).
    #[cfg(test)]
    pub(crate) fn splits(&self) -> usize {
        self.splits.len()
    }

    /// How many entries' trees have been read (for the tests).
    #[cfg(test)]
    pub(crate) fn read_entries(&self) -> usize {
        self.entries.iter().filter(|e| e.get().is_some()).count()
    }

    /// The whole tree, read once when asked for.
    pub(crate) fn whole(&self, body: &str) -> Option<&Node> {
        self.whole
            .get_or_init(|| Parser::parse(body).ok().map(Arc::new))
            .as_deref()
    }

    /// Whether the document writes a sequence flush with its key (the first one decides).
    pub(crate) fn flush_seq(&self) -> bool {
        self.seq.iter().find_map(|s| *s).unwrap_or(false)
    }

    /// The root mapping as far as adding a top-level key needs it: the first and last entries'
    /// places, without their values.
    pub(crate) fn ends(&self, body: &str) -> &Node {
        self.ends.get_or_init(|| {
            let place = |i: usize| {
                if let Some(s) = self.splits.get(&i) {
                    return Some(s.place(self.starts[i]));
                }
                self.entry(body, i).map(|e| Entry {
                    key: e.key.clone(),
                    key_at: e.key_at,
                    line_start: e.line_start,
                    colon: e.colon,
                    end: e.end,
                    value: Node {
                        kind: Kind::Scalar(Value::Null),
                        start: e.end,
                        end: e.end,
                        flow: true,
                    },
                })
            };
            let es: Vec<Entry> = [place(0), place(self.starts.len() - 1)]
                .into_iter()
                .flatten()
                .collect();
            Node {
                start: es.first().map_or(0, |e| e.line_start),
                end: es.last().map_or(0, |e| e.end),
                kind: Kind::Map(es),
                flow: false,
            }
        })
    }

    /// The edit of `body` by `splices` (non-overlapping, in any order) below the top-level
    /// key `top`, which must then read as `want` (an object holding `top`'s value, or none),
    /// proven on the one part the splices touch: the new body and its parts. `None` when the
    /// splices reach beyond one part or the part does not read as one entry (or an entry and
    /// the new one), which the caller then proves on the whole text.
    pub(crate) fn commit(
        &self,
        body: &str,
        splices: &[(usize, usize, String)],
        want: &Value,
        top: &str,
    ) -> Option<(String, Parts)> {
        let part_of = |p: usize| self.starts.partition_point(|&s| s <= p).saturating_sub(1);
        let mut sorted: Vec<&(usize, usize, String)> = splices.iter().collect();
        sorted.sort_by_key(|s| (s.0, s.1));
        let a = part_of(sorted.first()?.0);
        let b = sorted
            .iter()
            .map(|&&(s, e, _)| part_of(if e > s { e - 1 } else { s }))
            .max()?;
        let (rs, re) = (self.starts[a], self.end(a, body));
        if a != b || sorted.iter().any(|&&(s, e, _)| s < rs || e > re || s > e) {
            return None;
        }
        let mut region = String::with_capacity(re - rs);
        let mut at = rs;
        for &(s, e, t) in &sorted {
            if *s < at {
                return None;
            }
            region.push_str(body.get(at..*s)?);
            region.push_str(t);
            at = *e;
        }
        region.push_str(body.get(at..re)?);
        // The next part's key must still begin a line.
        if re < body.len() && !region.is_empty() && !region.ends_with('\n') {
            return None;
        }
        let new = read(&region)?;
        let old = self.entry(body, a)?;
        let want_top = want.get(top);
        let (mut seen_top, mut seen_old) = (false, false);
        for e in &new {
            if e.key == top {
                seen_top = want_top == Some(&to_value(&e.value));
                if !seen_top {
                    return None;
                }
            } else if e.key == old.key
                && region.get(e.line_start..e.end) == body.get(old.line_start..old.end)
            {
                seen_old = true;
            } else {
                return None;
            }
        }
        if seen_top != want_top.is_some() || (old.key != top && !seen_old) {
            return None;
        }
        // A new top-level key must not be another part's.
        if seen_top && old.key != top && self.part(body, top).is_some() {
            return None;
        }
        if new.is_empty() && a == 0 {
            return None;
        }
        let mut text = String::with_capacity(body.len() + region.len() - (re - rs));
        text.push_str(&body[..rs]);
        text.push_str(&region);
        text.push_str(&body[re..]);
        let delta = region.len() as isize - (re - rs) as isize;
        let n = self.starts.len();
        let mut starts = Vec::with_capacity(n + new.len());
        let mut hashes = Vec::with_capacity(n + new.len());
        let mut seq = Vec::with_capacity(n + new.len());
        let mut known = Vec::new();
        starts.extend_from_slice(&self.starts[..a]);
        hashes.extend_from_slice(&self.hashes[..a]);
        seq.extend_from_slice(&self.seq[..a]);
        for (i, e) in self.entries[..a].iter().enumerate() {
            if let Some(Some(e)) = e.get() {
                known.push((i, e.clone()));
            }
        }
        let count = new.len();
        for (k, mut e) in new.into_iter().enumerate() {
            starts.push(if k == 0 { rs } else { rs + e.line_start });
            hashes.push(hash(&e.key));
            seq.push(seq_of(&region, &e));
            shift(&mut e, rs);
            known.push((starts.len() - 1, Arc::new(e)));
        }
        for i in a + 1..n {
            starts.push(self.starts[i].checked_add_signed(delta)?);
        }
        hashes.extend_from_slice(&self.hashes[a + 1..]);
        seq.extend_from_slice(&self.seq[a + 1..]);
        let splits = self.carry(a, count, delta);
        #[cfg(test)]
        super::PARTS_COMMITS.with(|c| c.set(c.get() + 1));
        Some((text, Parts::new(starts, hashes, seq, known, splits)))
    }

    /// The splits of the other parts once part `a` became `count` parts and the parts after
    /// it moved by `delta` (a moved split keeps no tree: its offsets changed).
    fn carry(&self, a: usize, count: usize, delta: isize) -> FxHashMap<usize, Arc<Split>> {
        self.splits
            .iter()
            .filter(|&(&i, _)| i != a)
            .map(|(&i, s)| {
                if i < a {
                    (i, s.clone())
                } else if delta == 0 {
                    (i - 1 + count, s.clone())
                } else {
                    (i - 1 + count, Arc::new(s.moved()))
                }
            })
            .collect()
    }

    /// The edit of `body` by `splices` (non-overlapping) that change only the child `name` of
    /// the split top-level entry `top`, which must then read as `want` (`None`: gone), proven
    /// on the children it touches (see [`Split::commit`]): the new body and its parts. `None`
    /// when the split cannot prove it, which the caller then proves otherwise.
    pub(crate) fn split_commit(
        &self,
        body: &str,
        splices: &[(usize, usize, String)],
        top: &str,
        name: &str,
        want: Option<&Value>,
    ) -> Option<(String, Parts)> {
        let i = self.part(body, top)?;
        let split = self.splits.get(&i)?;
        let (start, end) = (self.starts[i], self.end(i, body));
        let (part, new) = split.commit(body.get(start..end)?, start, splices, name, want)?;
        let delta = part.len() as isize - (end - start) as isize;
        let mut text = String::with_capacity(body.len().checked_add_signed(delta)?);
        text.push_str(&body[..start]);
        text.push_str(&part);
        text.push_str(&body[end..]);
        let mut starts = self.starts.clone();
        for s in &mut starts[i + 1..] {
            *s = s.checked_add_signed(delta)?;
        }
        let mut seq = self.seq.clone();
        seq[i] = new.first_seq();
        let known = (0..i)
            .filter_map(|k| Some((k, self.entries[k].get()?.clone()?)))
            .collect();
        let mut splits = self.carry(i, 1, delta);
        splits.insert(i, Arc::new(new));
        #[cfg(test)]
        super::SPLIT_COMMITS.with(|c| c.set(c.get() + 1));
        Some((
            text,
            Parts::new(starts, self.hashes.clone(), seq, known, splits),
        ))
    }
}
