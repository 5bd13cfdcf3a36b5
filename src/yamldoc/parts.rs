//! A document whose root is a block mapping, read part by part. Every key at column 0 begins
//! an entry of the root mapping, and an entry's lines end where the next such key begins: so
//! the text splits into parts, one top-level entry each (the first part also holds what
//! comes before the first key), and the whole text reads as the parts read alone, given their
//! keys differ. A document is proven a batch of parts at a time (no tree of the whole is
//! kept), an entry's tree is read from its part when first asked for, and an edit of one
//! entry is proven on its part alone. What the split does not expect (a column-0 line that
//! is not a plain or quoted key, a second document, a byte order mark (allowed only where a
//! part would begin), two keys of one 64-bit hash, a batch the parser
//! reads otherwise) gives no parts, and the document is read whole.
//!
//! **Memory.** Nothing is kept per part: a part is found by scanning the column-0 lines for
//! its key (a line that begins with the key's bytes, or with a quote, is read to compare its
//! key), and the parts found, the entries read and the big entries split one level down are
//! remembered by where they begin. While a document is proven, a Bloom filter of its keys'
//! hashes (a byte a key) finds the keys that may repeat, and a second look at the key lines
//! counts those alone (`Distinct`); both are dropped once it is proven. An edit returns the one
//! range of the text it replaces, so that the edited document shares the bytes read (see
//! `src`). Pure: no I/O.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex, OnceLock};

use rustc_hash::{FxBuildHasher, FxHashMap};
use serde_json::Value;

use super::parse::{Entry, Kind, Node, Parser, to_value};
use super::split::{Part, Split};
use super::src::Src;

/// About how much text a batch proven at once holds. Small in tests and under the fuzzer, so
/// that small documents are proven in many batches. A batch's tree takes about ten times its
/// text while it is proven (an entry, its key and value, the parser's lines): 64 KiB keeps
/// that under a megabyte, and per-batch costs are still small.
pub(super) const BATCH: usize = if cfg!(any(test, fuzzing)) {
    24
} else {
    64 * 1024
};

/// One edit of the text: the range `lo..hi` replaced by the string.
pub(super) type Edit = (usize, usize, String);

/// Values by where they begin, added once and kept while the memo lives, read through a
/// shared reference (a chain of cells: a document remembers a few entries).
#[derive(Debug)]
pub(super) struct Memo<T> {
    slot: OnceLock<(usize, T)>,
    next: OnceLock<Box<Memo<T>>>,
}

impl<T> Default for Memo<T> {
    fn default() -> Memo<T> {
        Memo {
            slot: OnceLock::new(),
            next: OnceLock::new(),
        }
    }
}

impl<T> Memo<T> {
    /// Every value, with where it begins.
    pub(super) fn iter(&self) -> impl Iterator<Item = (usize, &T)> {
        std::iter::successors(Some(self), |m| m.next.get().map(|b| &**b))
            .filter_map(|m| m.slot.get().map(|(k, v)| (*k, v)))
    }

    /// The value at `k`.
    pub(super) fn get(&self, k: usize) -> Option<&T> {
        self.iter().find(|&(at, _)| at == k).map(|(_, v)| v)
    }

    /// The value at `k`, made by `f` when there is none.
    pub(super) fn get_or(&self, k: usize, f: impl FnOnce() -> T) -> &T {
        if let Some(v) = self.get(k) {
            return v;
        }
        let mut v = Some(f());
        let mut m = self;
        loop {
            if let Some(x) = v.take()
                && let Err((_, back)) = m.slot.set((k, x))
            {
                v = Some(back);
            }
            if let Some((at, x)) = m.slot.get()
                && *at == k
            {
                return x;
            }
            m = m.next.get_or_init(Box::default);
        }
    }
}

pub(super) fn hash(key: &str) -> u64 {
    FxBuildHasher.hash_one(key)
}

/// Whether the keys of a mapping are distinct, proven in two looks with little memory: a Bloom
/// filter of their hashes (a byte a key) flags a key whose hash may have been seen before,
/// and a second look at every key ([`Distinct::proven`]) counts the flagged hashes alone.
/// Two keys of one 64-bit hash count as a repeat (the document is then read whole, which
/// finds the true repeat or reads it).
pub(crate) struct Distinct {
    bits: Vec<u64>,
    /// The hashes the filter flagged, sorted once the first look is done.
    flagged: Vec<u64>,
}

impl Distinct {
    /// Room for about `keys` keys: eight bits each (at least 64 Kibit, so that a small
    /// document seldom needs the second look).
    pub(crate) fn new(keys: usize) -> Distinct {
        let words = keys.div_ceil(8).max(1024).next_power_of_two();
        Distinct {
            bits: vec![0; words],
            flagged: Vec::new(),
        }
    }

    /// The four bits of a hash (double hashing of its two halves, mixed again: the low
    /// bits of a map's hash alone are not spread enough).
    fn probes(&self, h: u64) -> [(usize, u64); 4] {
        let mask = self.bits.len() * 64 - 1;
        let h = h.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let (a, b) = (h as usize, (h >> 32) as usize | 1);
        [0, 1, 2, 3].map(|i| {
            let x = a.wrapping_add(b.wrapping_mul(i)) & mask;
            (x / 64, 1u64 << (x % 64))
        })
    }

    /// The first look at a key.
    pub(crate) fn add(&mut self, key: &str) {
        let h = hash(key);
        let mut seen = true;
        for (w, bit) in self.probes(h) {
            seen &= self.bits[w] & bit != 0;
            self.bits[w] |= bit;
        }
        if seen {
            self.flagged.push(h);
        }
    }

    /// Whether the keys are distinct, given every key again, lazily: it is read only when
    /// the first look flagged one (a key `None`, one that cannot be read, is not proven).
    pub(crate) fn proven<'k>(mut self, keys: impl Iterator<Item = Option<Cow<'k, str>>>) -> bool {
        if self.flagged.is_empty() {
            return true;
        }
        self.bits = Vec::new();
        self.flagged.sort_unstable();
        self.flagged.dedup();
        let mut hit = Vec::new();
        for k in keys {
            let Some(k) = k else {
                return false;
            };
            let h = hash(&k);
            if self.flagged.binary_search(&h).is_ok() {
                hit.push(h);
            }
        }
        hit.sort_unstable();
        hit.windows(2).all(|w| w[0] != w[1])
    }
}

/// How many lines of `body` begin with something other than a blank or a comment: at least
/// as many as its parts, each of which begins with its key at column 0.
pub(super) fn key_lines(body: &str) -> usize {
    body.split('\n')
        .filter(|l| {
            l.as_bytes()
                .first()
                .is_some_and(|c| !matches!(c, b' ' | b'\t' | b'#' | b'\r'))
        })
        .count()
}

/// The places of keys found before an edit, after it: those inside `forget` (the edited
/// range) are dropped, to be looked for again; the others moved by `moved`. `None` when one
/// cannot move.
pub(super) fn carry_found(
    found: &Mutex<FxHashMap<String, Option<usize>>>,
    forget: std::ops::Range<usize>,
    moved: impl Fn(usize) -> Option<usize>,
) -> Option<FxHashMap<String, Option<usize>>> {
    let mut out = FxHashMap::default();
    for (k, at) in found.lock().unwrap_or_else(|p| p.into_inner()).iter() {
        match at {
            Some(at) if forget.contains(at) => {}
            Some(at) => {
                out.insert(k.clone(), Some(moved(*at)?));
            }
            None => {
                out.insert(k.clone(), None);
            }
        }
    }
    Some(out)
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

/// Whether a line beginning with `c` begins a part (past the first key: see [`Starts`]).
fn key_line(c: Option<u8>) -> bool {
    !matches!(c, None | Some(b' ' | b'\n' | b'\r' | b'#'))
}

/// The parts' starts in a text, streamed (see the module docs); `bad` once a line is one the
/// split does not expect. Of a document's first part it gives 0 (what precedes the first key
/// is the first part's); of a text that continues a document, where its key lines begin.
struct Starts<'a> {
    body: &'a str,
    at: usize,
    keyed: bool,
    first: bool,
    bad: bool,
    /// Where the key line of the part last given begins (of the first part, past what
    /// precedes its key).
    key_at: usize,
}

impl<'a> Starts<'a> {
    fn new(body: &'a str, first: bool) -> Starts<'a> {
        Starts {
            body,
            at: 0,
            keyed: !first,
            first,
            bad: false,
            key_at: 0,
        }
    }
}

impl Iterator for Starts<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let b = self.body.as_bytes();
        while self.at < b.len() && !self.bad {
            let at = self.at;
            let end = b[at..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |i| at + i + 1);
            self.at = end;
            let line = &b[at..end];
            let marker = |m: &[u8]| {
                line.strip_prefix(m)
                    .is_some_and(|r| r.first().is_none_or(u8::is_ascii_whitespace))
            };
            match b[at] {
                b' ' | b'\n' | b'\r' | b'#' => {}
                _ if !self.keyed && marker(b"---") => {}
                c if not_a_key(c) => self.bad = true,
                _ if marker(b"---") || marker(b"...") => self.bad = true,
                _ if !self.keyed => {
                    self.keyed = true;
                    self.key_at = at;
                    return Some(if self.first { 0 } else { at });
                }
                _ => {
                    self.key_at = at;
                    return Some(at);
                }
            }
        }
        None
    }
}

/// The parts' starts read ahead of the batch being proven.
struct Window<'a> {
    it: Starts<'a>,
    buf: VecDeque<usize>,
    /// The index of `buf[0]`.
    base: usize,
}

impl Window<'_> {
    /// Where part `k` (not before the window) begins.
    fn start(&mut self, k: usize) -> Option<usize> {
        while self.base + self.buf.len() <= k {
            self.buf.push_back(self.it.next()?);
        }
        self.buf.get(k.checked_sub(self.base)?).copied()
    }

    /// Where part `k` ends.
    fn end(&mut self, k: usize) -> usize {
        self.start(k + 1).unwrap_or(self.it.body.len())
    }

    /// Whether part `k` is as big as a batch.
    fn big(&mut self, k: usize) -> bool {
        match self.start(k) {
            Some(s) => self.end(k) - s >= BATCH,
            None => false,
        }
    }

    /// Forget the parts before `k`.
    fn forget(&mut self, k: usize) {
        while self.base < k && self.buf.pop_front().is_some() {
            self.base += 1;
        }
    }
}

/// The key of every part of `body`, read from its key line (the second look of [`Distinct`]).
fn part_keys(body: &str) -> impl Iterator<Item = Option<Cow<'_, str>>> + '_ {
    let mut it = Starts::new(body, true);
    std::iter::from_fn(move || {
        it.next()?;
        Some(super::parse::line_key(body, it.key_at))
    })
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

/// The parts of a document (see the module docs).
#[derive(Debug)]
pub(crate) struct Parts {
    /// Where the second part begins (the text's length when there is one).
    second: usize,
    /// The parts read child by child (see `split`), by where they begin: a big entry whose
    /// value is a block mapping. Its tree is read only when the whole entry is asked for.
    splits: Vec<(usize, Arc<Split>)>,
    /// The entries read, by where their parts begin (offsets in the whole text).
    entries: Memo<Option<Arc<Entry>>>,
    /// The parts looked up by key: where each begins (`None`: no such key).
    found: Mutex<FxHashMap<String, Option<usize>>>,
    /// The first block sequence under a key, in document order: where its part begins, and
    /// whether it is flush with its key (`None`: there is none). Found again when asked for
    /// after an edit that took it away.
    seq: OnceLock<Option<(usize, bool)>>,
    /// The whole tree, when asked for.
    whole: OnceLock<Option<Arc<Node>>>,
    /// A root mapping of the first and last entries (their places only, no values): where
    /// a new top-level key goes.
    ends: OnceLock<Node>,
}

impl Parts {
    /// The parts of `body`, proven batch by batch; `None`: read it whole.
    pub(crate) fn of(body: &str) -> Option<Parts> {
        // A byte order mark is refused anywhere but at the start of the text, which a part's
        // start would be.
        if body.contains('\u{feff}') {
            return None;
        }
        let mut w = Window {
            it: Starts::new(body, true),
            buf: VecDeque::new(),
            base: 0,
        };
        let second = w.start(1)?;
        // A byte a key line: the most a part-by-part document holds per key.
        let mut keys = Distinct::new(key_lines(body));
        let mut seq = None;
        let mut splits = Vec::new();
        let entries = Memo::default();
        let mut i = 0;
        while let Some(si) = w.start(i) {
            // A big part is proven alone, child by child when it splits.
            if w.big(i)
                && let Some((split, first)) = Split::of(&body[si..w.end(i)])
            {
                keys.add(split.key());
                if seq.is_none() {
                    seq = first.map(|f| (si, f));
                }
                splits.push((si, Arc::new(split)));
                i += 1;
                continue;
            }
            let mut j = i + 1;
            while w.start(j).is_some_and(|sj| sj - si < BATCH) && !w.big(j) {
                j += 1;
            }
            let text = &body[si..w.end(j - 1)];
            let es = read(text)?;
            if es.len() != j - i {
                return None;
            }
            for (k, mut e) in es.into_iter().enumerate() {
                let sk = w.start(i + k)?;
                if k > 0 && e.line_start != sk - si {
                    return None;
                }
                keys.add(&e.key);
                if seq.is_none() {
                    seq = seq_of(text, &e).map(|f| (sk, f));
                }
                // A part as big as a batch is one big entry (a Goose `extensions`), most
                // likely the one an edit reads: its tree is kept rather than read again.
                if w.end(i + k) - sk >= BATCH {
                    shift(&mut e, si);
                    entries.get_or(sk, || Some(Arc::new(e)));
                }
            }
            w.forget(j);
            i = j;
        }
        if w.it.bad || !keys.proven(part_keys(body)) {
            return None;
        }
        Some(Parts {
            second,
            splits,
            entries,
            found: Mutex::default(),
            seq: OnceLock::from(seq),
            whole: OnceLock::new(),
            ends: OnceLock::new(),
        })
    }

    /// The split part beginning at `start`.
    fn split_at(&self, start: usize) -> Option<&Split> {
        let i = self.splits.binary_search_by_key(&start, |s| s.0).ok()?;
        Some(&self.splits[i].1)
    }

    /// Where the part after the one beginning at `start` begins (the text's end).
    fn end(&self, src: &Src, start: usize) -> usize {
        if start < self.second {
            return self.second.min(src.len());
        }
        let from = src.next_line(start);
        src.line_starts(from, src.len(), |at| key_line(src.byte(at)).then_some(at))
            .unwrap_or(src.len())
    }

    /// Where the part holding `p` begins.
    fn part_of(&self, src: &Src, p: usize) -> usize {
        if p < self.second {
            return 0;
        }
        let mut at = src.line_start(p);
        while at > self.second && !key_line(src.byte(at)) {
            at = src.line_start(at - 1);
        }
        at
    }

    /// Where the last part begins.
    fn last(&self, src: &Src) -> usize {
        if self.second >= src.len() {
            return 0;
        }
        self.part_of(src, src.len() - 1)
    }

    /// The entry of the part beginning at `start`, read from its part once.
    fn entry(&self, src: &Src, start: usize) -> Option<&Entry> {
        self.entries
            .get_or(start, || self.read_part(src, start).map(Arc::new))
            .as_deref()
    }

    /// The entry of the part beginning at `start`, read (not remembered).
    fn read_part(&self, src: &Src, start: usize) -> Option<Entry> {
        let text = src.get(start, self.end(src, start))?;
        let mut e = read(&text)?.pop()?;
        shift(&mut e, start);
        Some(e)
    }

    /// Whether the part beginning at `start` is the key `key`'s.
    fn is_key(&self, src: &Src, start: usize, key: &str) -> bool {
        if let Some(s) = self.split_at(start) {
            return s.key() == key;
        }
        if let Some(e) = self.entries.get(start) {
            return e.as_ref().is_some_and(|e| e.key == key);
        }
        self.read_part(src, start).is_some_and(|e| e.key == key)
    }

    /// The part holding the top-level key `key`: where it begins.
    fn part(&self, src: &Src, key: &str) -> Option<usize> {
        let mut found = self.found.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(at) = found.get(key) {
            return *at;
        }
        // A key line is read when it begins with the key's bytes or a quote.
        let maybe = |at: usize| {
            src.starts_with(at, key.as_bytes()) || matches!(src.byte(at), Some(b'"' | b'\''))
        };
        let first = src
            .line_starts(0, self.second, |at| {
                (key_line(src.byte(at)) && !src.starts_with(at, b"---")).then_some(at)
            })
            .unwrap_or(0);
        let at = if maybe(first) && self.is_key(src, 0, key) {
            Some(0)
        } else {
            src.line_starts(self.second, src.len(), |at| {
                (key_line(src.byte(at)) && maybe(at) && self.is_key(src, at, key)).then_some(at)
            })
        };
        found.insert(key.to_string(), at);
        at
    }

    /// The part `key` when it is read child by child: where it begins and ends, and its split.
    pub(crate) fn split(&self, src: &Src, key: &str) -> Option<(usize, usize, &Split)> {
        let start = self.part(src, key)?;
        let s = self.split_at(start)?;
        Some((start, self.end(src, start), s))
    }

    /// The top-level entry `key`.
    pub(crate) fn top(&self, src: &Src, key: &str) -> Option<&Entry> {
        let start = self.part(src, key)?;
        self.entry(src, start)
    }

    /// How many parts are read child by child (for the tests).
    #[cfg(test)]
    pub(crate) fn splits(&self) -> usize {
        self.splits.len()
    }

    /// How many entries' trees have been read (for the tests).
    #[cfg(test)]
    pub(crate) fn read_entries(&self) -> usize {
        self.entries.iter().filter(|(_, e)| e.is_some()).count()
    }

    /// The whole tree, read once when asked for.
    pub(crate) fn whole(&self, src: &Src) -> Option<&Node> {
        self.whole
            .get_or_init(|| {
                let text = src.get(0, src.len())?;
                Parser::parse(&text).ok().map(Arc::new)
            })
            .as_deref()
    }

    /// Whether the document writes a sequence flush with its key (the first one decides).
    pub(crate) fn flush_seq(&self, src: &Src) -> bool {
        let first = self.seq.get_or_init(|| {
            let mut at = Some(0);
            while let Some(s) = at {
                let end = self.end(src, s);
                let found = match self.split_at(s) {
                    Some(split) => split.first_seq(&Part { src, start: s, end }),
                    None => {
                        let text = src.get(s, end)?;
                        read(&text)?.last().and_then(|e| seq_of(&text, e))
                    }
                };
                if let Some(f) = found {
                    return Some((s, f));
                }
                at = (end < src.len()).then_some(end);
            }
            None
        });
        first.is_some_and(|(_, f)| f)
    }

    /// The root mapping as far as adding a top-level key needs it: the first and last entries'
    /// places, without their values.
    pub(crate) fn ends(&self, src: &Src) -> &Node {
        self.ends.get_or_init(|| {
            let place = |start: usize| {
                if let Some(s) = self.split_at(start) {
                    return s.place(&Part {
                        src,
                        start,
                        end: self.end(src, start),
                    });
                }
                self.entry(src, start).map(|e| Entry {
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
            let es: Vec<Entry> = [place(0), place(self.last(src))]
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
}

impl Parts {
    /// The edit of the text by `splices` (non-overlapping, in any order) below the top-level
    /// key `top`, which must then read as `want` (an object holding `top`'s value, or none),
    /// proven on the one part the splices touch: the range of the text replaced and the new
    /// text's parts. `None` when the splices reach beyond one part or the part does not read
    /// as one entry (or an entry and the new one), which the caller then proves on the whole
    /// text.
    pub(crate) fn commit(
        &self,
        src: &Src,
        splices: &[Edit],
        want: &Value,
        top: &str,
    ) -> Option<(Edit, Parts)> {
        let mut sorted: Vec<&Edit> = splices.iter().collect();
        sorted.sort_by_key(|s| (s.0, s.1));
        let rs = self.part_of(src, sorted.first()?.0);
        let re = self.end(src, rs);
        let len = src.len();
        let inside = |&&(s, e, _): &&Edit| {
            s >= rs && s <= e && if e > s { e <= re } else { s < re || s == len }
        };
        if !sorted.iter().all(inside) {
            return None;
        }
        let mut region = String::with_capacity(re - rs);
        let mut at = rs;
        for &(s, e, t) in &sorted {
            if *s < at {
                return None;
            }
            region.push_str(&src.get(at, *s)?);
            region.push_str(t);
            at = *e;
        }
        region.push_str(&src.get(at, re)?);
        // The next part's key must still begin a line.
        if re < len && !region.is_empty() && !region.ends_with('\n') {
            return None;
        }
        let new = read(&region)?;
        // The new entries begin where the split finds parts.
        let mut lines = Starts::new(&region, rs == 0);
        let starts: Vec<usize> = lines.by_ref().collect();
        let expect = new
            .iter()
            .enumerate()
            .map(|(k, e)| if rs == 0 && k == 0 { 0 } else { e.line_start });
        if lines.bad || !starts.iter().copied().eq(expect) {
            return None;
        }
        let old = self.entry(src, rs)?;
        let want_top = want.get(top);
        let (mut seen_top, mut seen_old) = (false, false);
        let old_text = src.get(old.line_start, old.end)?;
        for e in &new {
            if e.key == top {
                seen_top = want_top == Some(&to_value(&e.value));
                if !seen_top {
                    return None;
                }
            } else if e.key == old.key && region.get(e.line_start..e.end) == Some(&*old_text) {
                seen_old = true;
            } else {
                return None;
            }
        }
        if seen_top != want_top.is_some() || (old.key != top && !seen_old) {
            return None;
        }
        // A new top-level key must not be another part's.
        if seen_top && old.key != top && self.part(src, top).is_some() {
            return None;
        }
        if new.is_empty() && rs == 0 {
            return None;
        }
        let delta = region.len() as isize - (re - rs) as isize;
        let moved = |x: usize| {
            if x >= re {
                x.checked_add_signed(delta)
            } else {
                Some(x)
            }
        };
        let second = if rs == 0 {
            new.get(1).map_or(region.len(), |e| e.line_start)
        } else if rs == self.second {
            rs + new.first().map_or(region.len(), |e| e.line_start)
        } else {
            moved(self.second)?
        };
        let entries = Memo::default();
        for (at, e) in self.entries.iter().filter(|&(at, _)| at < rs) {
            entries.get_or(at, || e.clone());
        }
        let mut found = carry_found(&self.found, rs..re, moved)?;
        let mut first_seq = None;
        for (k, mut e) in new.into_iter().enumerate() {
            let at = if k == 0 { rs } else { rs + e.line_start };
            first_seq = first_seq.or(seq_of(&region, &e).map(|f| (at, f)));
            shift(&mut e, rs);
            found.insert(e.key.clone(), Some(at));
            entries.get_or(at, || Some(Arc::new(e)));
        }
        let seq = match self.seq.get() {
            Some(Some((d, f))) if *d < rs => OnceLock::from(Some((*d, *f))),
            Some(known) => match (first_seq, known) {
                (Some(s), _) => OnceLock::from(Some(s)),
                (None, None) => OnceLock::from(None),
                (None, Some((d, f))) if *d >= re => OnceLock::from(Some((moved(*d)?, *f))),
                (None, Some(_)) => OnceLock::new(),
            },
            None => OnceLock::new(),
        };
        let splits = self.carry(rs, re, delta, None)?;
        #[cfg(test)]
        super::PARTS_COMMITS.with(|c| c.set(c.get() + 1));
        let parts = Parts {
            second,
            splits,
            entries,
            found: Mutex::new(found),
            seq,
            whole: OnceLock::new(),
            ends: OnceLock::new(),
        };
        Some(((rs, re, region), parts))
    }

    /// The splits of the other parts once the part `rs..re` changed by `delta` bytes (a
    /// moved split keeps no tree: its offsets changed), and `new` at `rs`.
    fn carry(
        &self,
        rs: usize,
        re: usize,
        delta: isize,
        new: Option<Split>,
    ) -> Option<Vec<(usize, Arc<Split>)>> {
        let mut out = Vec::with_capacity(self.splits.len());
        for (at, s) in &self.splits {
            if *at < rs {
                out.push((*at, s.clone()));
            } else if *at >= re {
                let s = if delta == 0 {
                    s.clone()
                } else {
                    Arc::new(s.moved())
                };
                out.push((at.checked_add_signed(delta)?, s));
            }
        }
        if let Some(n) = new {
            let i = out.partition_point(|s| s.0 < rs);
            out.insert(i, (rs, Arc::new(n)));
        }
        Some(out)
    }

    /// The edit of the text by `splices` (non-overlapping) that change only the child `name`
    /// of the split top-level entry `top`, which must then read as `want` (`None`: gone),
    /// proven on the children it touches (see [`Split::commit`]): the range of the text
    /// replaced and the new text's parts. `None` when the split cannot prove it, which the
    /// caller then proves otherwise.
    pub(crate) fn split_commit(
        &self,
        src: &Src,
        splices: &[Edit],
        top: &str,
        name: &str,
        want: Option<&Value>,
    ) -> Option<(Edit, Parts)> {
        let start = self.part(src, top)?;
        let split = self.split_at(start)?;
        let end = self.end(src, start);
        let part = Part { src, start, end };
        let ((rs, re, region), new) = split.commit(&part, splices, name, want)?;
        let delta = region.len() as isize - (re - rs) as isize;
        let moved = |x: usize| {
            if x >= re {
                x.checked_add_signed(delta)
            } else {
                Some(x)
            }
        };
        let entries = Memo::default();
        for (at, e) in self.entries.iter().filter(|&(at, _)| at < start) {
            entries.get_or(at, || e.clone());
        }
        let found = carry_found(&self.found, 0..0, moved)?;
        let part_seq = new.known_seq();
        let seq = match (self.seq.get(), part_seq) {
            (Some(Some((d, f))), _) if *d < start => OnceLock::from(Some((*d, *f))),
            (Some(Some((d, f))), _) if *d > start => match part_seq {
                Some(Some(g)) => OnceLock::from(Some((start, g))),
                Some(None) => OnceLock::from(Some((moved(*d)?, *f))),
                None => OnceLock::new(),
            },
            (Some(_), Some(Some(g))) => OnceLock::from(Some((start, g))),
            (Some(None), Some(None)) => OnceLock::from(None),
            _ => OnceLock::new(),
        };
        let splits = self.carry(start, start + 1, delta, Some(new))?;
        #[cfg(test)]
        super::SPLIT_COMMITS.with(|c| c.set(c.get() + 1));
        let parts = Parts {
            second: moved(self.second)?,
            splits,
            entries,
            found: Mutex::new(found),
            seq,
            whole: OnceLock::new(),
            ends: OnceLock::new(),
        };
        Some(((rs, re, region), parts))
    }
}
