//! One big top-level entry whose value is a block mapping (a Goose file that is all
//! `extensions`), read child by child: the part is split one level down, the same way
//! `parts` splits the document. Inside the entry every line indented exactly as its first
//! child begins a child, and a child's lines end where the next child begins; each batch of
//! children is proven by the parser together with the entry's key line (the header), so the
//! children read in the same context as in the whole text. No tree of the entry is kept: a
//! child's tree is read from its lines when asked for, the container's value is built child by
//! child, and an edit of one child is proven on that child's lines (with the child before it,
//! whose lines a removal may end). What the split does not expect (a line indented less than
//! the children, a child line that is not a key, a tab, a repeated hash, a batch the parser
//! reads otherwise) gives no split, and the entry is read whole. Pure: no I/O.

use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashSet;
use serde_json::{Map, Value};

use super::parse::{Entry, Kind, Node, to_value};
use super::parts::{BATCH, hash, lines, not_a_key, read, seq_of, shift};

/// The most text before the first child that a split reads with every batch.
const HEADER: usize = 64 * 1024;

/// One child's places, relative to the part's start.
#[derive(Debug, Clone, Copy)]
struct Kid {
    line_start: u32,
    key_at: u32,
    end: u32,
}

/// A big top-level entry read child by child (see the module docs). Offsets are relative to
/// the part's start, so the split stays true when text before the part changes.
#[derive(Debug)]
pub(crate) struct Split {
    /// The entry's key.
    key: String,
    key_at: u32,
    line_start: u32,
    colon: u32,
    /// Where the first child's line begins: the text before it (the key line, comments, and
    /// for the first part what precedes the first key) is read with every batch.
    header: u32,
    /// The children's indentation.
    indent: u32,
    kids: Vec<Kid>,
    hashes: Vec<u64>,
    /// The children by their keys' hashes.
    index: Vec<u32>,
    /// Each child's first block sequence under a key (see `parts::first_seq`).
    seq: Vec<Option<bool>>,
    /// Each child's entry, read when first asked for (offsets in the whole text, for the part
    /// start the split was read at).
    trees: Vec<OnceLock<Option<Arc<Entry>>>>,
}

/// The header's end, the children's indentation and each child's line start in a part
/// (relative offsets); `None`: the part is not split.
fn scan(part: &str) -> Option<(usize, usize, Vec<usize>)> {
    let b = part.as_bytes();
    let (mut keyed, mut indent, mut header) = (false, 0, None);
    let mut starts = Vec::new();
    for (at, end) in lines(b) {
        let line = &b[at..end];
        if blank(line) {
            continue;
        }
        let n = line.iter().take_while(|&&c| c == b' ').count();
        let rest = &line[n..];
        if !keyed {
            // The key line (after a `---` of the first part).
            let marker =
                rest.starts_with(b"---") && rest.get(3).is_none_or(|c| c.is_ascii_whitespace());
            if n != 0 {
                return None;
            }
            keyed = !marker;
            continue;
        }
        if indent == 0 {
            if n == 0 {
                return None;
            }
            indent = n;
            header = Some(at);
        }
        if n < indent {
            return None;
        }
        if n == indent {
            if not_a_key(rest[0]) {
                return None;
            }
            starts.push(at);
        }
    }
    (starts.len() >= 2).then_some((header?, indent, starts))
}

/// The header and the lines `from..to` of a part, read as one entry whose value is a block
/// mapping with a child at each of `expect` (line starts in the part) indented `indent`: the
/// text read and its entry (offsets in that text).
fn read_batch(
    part: &str,
    header: usize,
    indent: usize,
    (from, to): (usize, usize),
    expect: &[usize],
) -> Option<(String, Entry)> {
    let mut text = String::with_capacity(header + to - from);
    text.push_str(part.get(..header)?);
    text.push_str(part.get(from..to)?);
    let mut es = read(&text)?;
    if es.len() != 1 {
        return None;
    }
    let e = es.pop()?;
    let Kind::Map(kids) = &e.value.kind else {
        return None;
    };
    if e.value.flow || kids.len() != expect.len() {
        return None;
    }
    for (k, &s) in kids.iter().zip(expect) {
        if k.line_start != header + s - from || k.key_at != k.line_start + indent {
            return None;
        }
    }
    Some((text, e))
}

/// A line of nothing or only a comment.
fn blank(line: &[u8]) -> bool {
    let n = line.iter().take_while(|&&c| c == b' ').count();
    matches!(line.get(n), None | Some(b'\n' | b'\r' | b'#'))
}

/// Read the children whose lines begin at `starts` a batch at a time ([`read_batch`]), giving
/// `f` each batch's text, the index of its first child and the entry read.
fn batches(
    part: &str,
    header: usize,
    indent: usize,
    starts: &[usize],
    mut f: impl FnMut(&str, usize, Entry) -> Option<()>,
) -> Option<()> {
    let n = starts.len();
    let mut a = 0;
    while a < n {
        let mut b = a + 1;
        while b < n && starts[b] - starts[a] < BATCH {
            b += 1;
        }
        let to = starts.get(b).copied().unwrap_or(part.len());
        let (text, e) = read_batch(part, header, indent, (starts[a], to), &starts[a..b])?;
        f(&text, a, e)?;
        a = b;
    }
    Some(())
}

fn small(x: usize) -> Option<u32> {
    u32::try_from(x).ok()
}

impl Split {
    /// The split of a part (its text alone), proven batch by batch, and the part's first
    /// block sequence under a key; `None`: read the part whole.
    pub(super) fn of(part: &str) -> Option<(Split, Option<bool>)> {
        small(part.len())?;
        let (header, indent, starts) = scan(part)?;
        if header > HEADER {
            return None;
        }
        let n = starts.len();
        let mut kids = Vec::with_capacity(n);
        let mut hashes = Vec::with_capacity(n);
        let mut seq = Vec::with_capacity(n);
        let mut seen = FxHashSet::default();
        let mut top = None;
        batches(part, header, indent, &starts, |text, a, e| {
            let Kind::Map(es) = &e.value.kind else {
                return None;
            };
            let at = |x: usize| small(starts[a] + x - header);
            for k in es {
                let h = hash(&k.key);
                if !seen.insert(h) {
                    return None;
                }
                hashes.push(h);
                seq.push(seq_of(text, k));
                kids.push(Kid {
                    line_start: at(k.line_start)?,
                    key_at: at(k.key_at)?,
                    end: at(k.end)?,
                });
            }
            if top.is_none() {
                top = Some((e.key.clone(), e.key_at, e.line_start, e.colon));
            }
            Some(())
        })?;
        let (key, key_at, line_start, colon) = top?;
        let first = seq.iter().find_map(|s| *s);
        let split = Split::new(
            key,
            [key_at, line_start, colon, header, indent].map(small),
            kids,
            hashes,
            seq,
        )?;
        Some((split, first))
    }

    fn new(
        key: String,
        places: [Option<u32>; 5],
        kids: Vec<Kid>,
        hashes: Vec<u64>,
        seq: Vec<Option<bool>>,
    ) -> Option<Split> {
        let [key_at, line_start, colon, header, indent] = places;
        let mut index: Vec<u32> = (0..hashes.len() as u32).collect();
        index.sort_unstable_by_key(|&i| hashes[i as usize]);
        let trees = (0..kids.len()).map(|_| OnceLock::new()).collect();
        Some(Split {
            key,
            key_at: key_at?,
            line_start: line_start?,
            colon: colon?,
            header: header?,
            indent: indent?,
            kids,
            hashes,
            index,
            seq,
            trees,
        })
    }

    /// The same split for a part that moved: no tree read at the old place is kept.
    pub(super) fn moved(&self) -> Split {
        Split {
            key: self.key.clone(),
            kids: self.kids.clone(),
            hashes: self.hashes.clone(),
            index: self.index.clone(),
            seq: self.seq.clone(),
            trees: (0..self.kids.len()).map(|_| OnceLock::new()).collect(),
            ..*self
        }
    }

    /// The entry's key.
    pub(super) fn key(&self) -> &str {
        &self.key
    }

    /// How many children.
    pub(crate) fn len(&self) -> usize {
        self.kids.len()
    }

    /// The part's first block sequence under a key.
    pub(super) fn first_seq(&self) -> Option<bool> {
        self.seq.iter().find_map(|s| *s)
    }

    /// The entry's places (offsets in the whole text for a part at `start`), with no value:
    /// where a new top-level key goes after it.
    pub(super) fn place(&self, start: usize) -> Entry {
        let end = start + self.kids.last().map_or(self.colon + 1, |k| k.end) as usize;
        Entry {
            key: self.key.clone(),
            key_at: start + self.key_at as usize,
            line_start: start + self.line_start as usize,
            colon: start + self.colon as usize,
            end,
            value: Node {
                kind: Kind::Scalar(Value::Null),
                start: end,
                end,
                flow: true,
            },
        }
    }

    /// Where child `i`'s lines end in the part.
    fn region_end(&self, i: usize, part: &str) -> usize {
        self.kids
            .get(i + 1)
            .map_or(part.len(), |k| k.line_start as usize)
    }

    /// Child `i`'s entry (offsets in the whole text, the part being `part` at `start`), read
    /// from its lines once.
    pub(crate) fn kid(&self, part: &str, start: usize, i: usize) -> Option<&Entry> {
        self.trees
            .get(i)?
            .get_or_init(|| {
                let k = self.kids[i];
                let from = k.line_start as usize;
                let (_, e) = read_batch(
                    part,
                    self.header as usize,
                    self.indent as usize,
                    (from, self.region_end(i, part)),
                    &[from],
                )?;
                let Kind::Map(mut es) = e.value.kind else {
                    return None;
                };
                let mut kid = es.pop()?;
                shift(&mut kid, start + from - self.header as usize);
                Some(Arc::new(kid))
            })
            .as_deref()
    }

    /// The child whose key's hash is `h`.
    fn slot(&self, h: u64) -> Option<usize> {
        let at = self.index.partition_point(|&i| self.hashes[i as usize] < h);
        let i = *self.index.get(at)? as usize;
        (self.hashes[i] == h).then_some(i)
    }

    /// The child named `name` (its index).
    pub(crate) fn find(&self, part: &str, start: usize, name: &str) -> Option<usize> {
        let i = self.slot(hash(name))?;
        (self.kid(part, start, i)?.key == name).then_some(i)
    }

    /// Child `i`'s places in the whole text: its key, its line start, its end.
    pub(crate) fn places(&self, start: usize, i: usize) -> Option<(usize, usize, usize)> {
        let k = self.kids.get(i)?;
        Some((
            start + k.key_at as usize,
            start + k.line_start as usize,
            start + k.end as usize,
        ))
    }

    /// The children's indentation.
    pub(crate) fn indent(&self) -> usize {
        self.indent as usize
    }

    /// The entry's value, built child by child (no tree of the whole is held).
    pub(crate) fn value(&self, part: &str) -> Option<Value> {
        let starts: Vec<usize> = self.kids.iter().map(|k| k.line_start as usize).collect();
        let mut m = Map::new();
        batches(
            part,
            self.header as usize,
            self.indent(),
            &starts,
            |_, _, e| {
                let Kind::Map(es) = e.value.kind else {
                    return None;
                };
                for k in es {
                    let v = to_value(&k.value);
                    m.insert(k.key, v);
                }
                Some(())
            },
        )?;
        Some(Value::Object(m))
    }

    /// The edit of the part `body[start..end]` by `splices` (offsets in `body`, non-overlapping)
    /// that change only the child `name`, which must then read as `want` (`None`: gone):
    /// proven on the children the splices touch and the one before them. The new part's text
    /// and split, or `None` when the edit reaches the header, the children it touches do not
    /// read as themselves and the wanted child, or the text is not split the same way.
    pub(super) fn commit(
        &self,
        part: &str,
        start: usize,
        splices: &[(usize, usize, String)],
        name: &str,
        want: Option<&Value>,
    ) -> Option<(String, Split)> {
        let header = self.header as usize;
        let n = self.kids.len();
        let mut sorted: Vec<(usize, usize, &str)> = splices
            .iter()
            .map(|(s, e, t)| Some((s.checked_sub(start)?, e.checked_sub(start)?, t.as_str())))
            .collect::<Option<_>>()?;
        sorted.sort_by_key(|s| (s.0, s.1));
        let first = sorted.first()?.0;
        if first < header || sorted.iter().any(|&(s, e, _)| s > e || e > part.len()) {
            return None;
        }
        let kid_of = |p: usize| {
            self.kids
                .partition_point(|k| k.line_start as usize <= p)
                .saturating_sub(1)
        };
        // The child before the first one touched is read again: a removal may leave lines
        // (comments) that now follow it.
        let a = kid_of(first).saturating_sub(1);
        let b = sorted
            .iter()
            .map(|&(s, e, _)| kid_of(if e > s { e - 1 } else { s }))
            .max()?;
        let (rs, re) = (self.kids[a].line_start as usize, self.region_end(b, part));
        let named = self.find(part, start, name);
        if named.is_none() && self.slot(hash(name)).is_some() {
            // Another child's key has the new key's hash: the index could not tell them apart.
            return None;
        }
        match (named, want) {
            (Some(i), _) if i < a || i > b => return None,
            (None, None) => return None,
            _ => {}
        }
        let mut region = String::with_capacity(re - rs + 64);
        let mut at = rs;
        for &(s, e, t) in &sorted {
            if s < at {
                return None;
            }
            region.push_str(part.get(at..s)?);
            region.push_str(t);
            at = e;
        }
        region.push_str(part.get(at..re)?);
        // What follows must still begin a line.
        let follows = re < part.len() || part.ends_with('\n');
        if follows && !region.is_empty() && !region.ends_with('\n') {
            return None;
        }
        // Lines of only comments (what a removed first child leaves) join the header.
        let (text, e) = if region.lines().all(|l| blank(l.as_bytes())) {
            (String::new(), None)
        } else {
            let mut text = String::with_capacity(header + region.len());
            text.push_str(&part[..header]);
            text.push_str(&region);
            let mut es = read(&text)?;
            if es.len() != 1 {
                return None;
            }
            let e = es.pop()?;
            (text, Some(e))
        };
        let new: &[Entry] = match &e {
            None => &[],
            Some(e) => match &e.value.kind {
                Kind::Map(es) if !e.value.flow && e.key == self.key => es,
                _ => return None,
            },
        };
        let indent = self.indent as usize;
        let lead = new.first().map_or(region.len(), |k| k.line_start - header);
        if (new.is_empty() && a == 0 && b + 1 == n)
            || (lead > 0 && a > 0)
            || header + lead > HEADER
            || new.iter().any(|k| k.key_at != k.line_start + indent)
        {
            return None;
        }
        // The children read as the old ones (same bytes, same order) and the wanted one.
        let olds: Vec<&str> = (a..=b)
            .filter(|&i| Some(i) != named)
            .map(|i| {
                let k = self.kids[i];
                part.get(k.line_start as usize..k.end as usize)
            })
            .collect::<Option<_>>()?;
        let mut kept = Vec::new();
        let mut got = 0;
        for k in new {
            if k.key == name {
                got += 1;
                if want != Some(&to_value(&k.value)) {
                    return None;
                }
            } else {
                kept.push(text.get(k.line_start..k.end)?);
            }
        }
        if kept != olds || got != usize::from(want.is_some()) {
            return None;
        }
        // The new split: the children before `a` as they were, the new ones, the rest moved.
        let delta = region.len() as isize - (re - rs) as isize;
        let at = |x: usize| small(rs + x - header);
        let mut kids = Vec::with_capacity(n + 1);
        let header = header + lead;
        let mut hashes = Vec::with_capacity(n + 1);
        let mut seq = Vec::with_capacity(n + 1);
        kids.extend_from_slice(&self.kids[..a]);
        hashes.extend_from_slice(&self.hashes[..a]);
        seq.extend_from_slice(&self.seq[..a]);
        for k in new {
            kids.push(Kid {
                line_start: at(k.line_start)?,
                key_at: at(k.key_at)?,
                end: at(k.end)?,
            });
            hashes.push(hash(&k.key));
            seq.push(seq_of(&text, k));
        }
        for k in &self.kids[b + 1..] {
            let by = |x: u32| small((x as usize).checked_add_signed(delta)?);
            kids.push(Kid {
                line_start: by(k.line_start)?,
                key_at: by(k.key_at)?,
                end: by(k.end)?,
            });
        }
        hashes.extend_from_slice(&self.hashes[b + 1..]);
        seq.extend_from_slice(&self.seq[b + 1..]);
        let mut out = String::with_capacity(part.len() + region.len() - (re - rs));
        out.push_str(&part[..rs]);
        out.push_str(&region);
        out.push_str(&part[re..]);
        small(out.len())?;
        let split = Split::new(
            self.key.clone(),
            [
                Some(self.key_at),
                Some(self.line_start),
                Some(self.colon),
                small(header),
                Some(self.indent),
            ],
            kids,
            hashes,
            seq,
        )?;
        Some((out, split))
    }
}
