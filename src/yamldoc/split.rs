//! One big top-level entry whose value is a block mapping (a Goose file that is all
//! `extensions`), read child by child: the part is split one level down, the same way
//! `parts` splits the document. Inside the entry every line indented exactly as its first
//! child begins a child, and a child's lines end where the next child begins; each batch of
//! children is proven by the parser together with the entry's key line (the header), so the
//! children read in the same context as in the whole text. No tree of the entry is kept, and
//! nothing per child: a child is found by scanning the lines at the children's indentation
//! for its key (see `parts`), its tree is read from its lines when asked for, the container's
//! value is built child by child, and an edit of one child is proven on that child's lines
//! (with the child before it, whose lines a removal may end). What the split does not expect
//! (a line indented less than the children, a child line that is not a key, a tab, two keys
//! of one 64-bit hash, a batch the parser reads otherwise) gives no
//! split, and the entry is read whole. Pure: no I/O.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, OnceLock};

use rustc_hash::FxHashMap;
use serde_json::{Map, Value};

use super::parse::{Entry, Kind, Node, line_key, to_value};
use super::parts::{BATCH, Distinct, Edit, Memo, lines, not_a_key, read, seq_of, shift};
use super::src::Src;

/// The most text before the first child that a split reads with every batch.
const HEADER: usize = 64 * 1024;

/// A split part's text: the document's text and where the part begins and ends. Offsets
/// given to it are relative to the part's start.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Part<'s, 'a> {
    pub(crate) src: &'s Src<'a>,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

impl<'a> Part<'_, 'a> {
    fn len(&self) -> usize {
        self.end - self.start
    }

    fn get(&self, a: usize, z: usize) -> Option<Cow<'a, str>> {
        if z > self.len() {
            return None;
        }
        self.src.get(self.start + a, self.start + z)
    }
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
    /// How many children.
    count: usize,
    /// Each child's entry read, by where its line begins (offsets in the whole text, for the
    /// part start the split was read at).
    trees: Memo<Option<Arc<Entry>>>,
    /// The children looked up by key: where each one's line begins (`None`: no such child).
    found: Mutex<FxHashMap<String, Option<usize>>>,
    /// The first child with a block sequence under a key: where it begins, and whether the
    /// sequence is flush with its key (`None`: none has). Found again when asked for after
    /// an edit that took it away.
    seq: OnceLock<Option<(usize, bool)>>,
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
    part: &Part,
    header: usize,
    indent: usize,
    (from, to): (usize, usize),
    expect: &[usize],
) -> Option<(String, Entry)> {
    let mut text = String::with_capacity(header + to - from);
    text.push_str(&part.get(0, header)?);
    text.push_str(&part.get(from, to)?);
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
    part: &Part,
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
    pub(super) fn of(text: &str) -> Option<(Split, Option<bool>)> {
        small(text.len())?;
        let (header, indent, starts) = scan(text)?;
        if header > HEADER {
            return None;
        }
        let src = Src::of(text);
        let part = Part {
            src: &src,
            start: 0,
            end: text.len(),
        };
        let mut keys = Distinct::new(starts.len());
        let mut seq = None;
        let mut top = None;
        batches(&part, header, indent, &starts, |batch, a, e| {
            let Kind::Map(es) = &e.value.kind else {
                return None;
            };
            for (i, k) in es.iter().enumerate() {
                keys.add(&k.key);
                if seq.is_none() {
                    seq = seq_of(batch, k).map(|f| (starts[a + i], f));
                }
            }
            if top.is_none() {
                top = Some((e.key.clone(), e.key_at, e.line_start, e.colon));
            }
            Some(())
        })?;
        if !keys.proven(starts.iter().map(|&s| line_key(text, s + indent))) {
            return None;
        }
        let (key, key_at, line_start, colon) = top?;
        let split = Split {
            key,
            key_at: small(key_at)?,
            line_start: small(line_start)?,
            colon: small(colon)?,
            header: small(header)?,
            indent: small(indent)?,
            count: starts.len(),
            trees: Memo::default(),
            found: Mutex::default(),
            seq: OnceLock::from(seq),
        };
        Some((split, seq.map(|(_, f)| f)))
    }

    /// The same split for a part that moved: no tree read at the old place is kept.
    pub(super) fn moved(&self) -> Split {
        Split {
            key: self.key.clone(),
            trees: Memo::default(),
            found: Mutex::new(self.found.lock().unwrap_or_else(|p| p.into_inner()).clone()),
            seq: self.seq.clone(),
            ..*self
        }
    }

    /// The entry's key.
    pub(super) fn key(&self) -> &str {
        &self.key
    }

    /// How many children.
    pub(crate) fn len(&self) -> usize {
        self.count
    }

    /// Whether the line at `at` (relative) begins a child.
    fn kid_line(&self, part: &Part, at: usize) -> bool {
        let indent = self.indent as usize;
        let src = part.src;
        let at = part.start + at;
        (0..indent).all(|k| src.byte(at + k) == Some(b' '))
            && !matches!(
                src.byte(at + indent),
                None | Some(b' ' | b'\n' | b'\r' | b'#')
            )
    }

    /// Calls `f` with where each child's line begins (relative), in order, until it says to
    /// stop.
    fn kids<R>(&self, part: &Part, mut f: impl FnMut(usize) -> Option<R>) -> Option<R> {
        let from = part.start + self.header as usize;
        part.src.line_starts(from, part.end, |at| {
            let at = at - part.start;
            if self.kid_line(part, at) { f(at) } else { None }
        })
    }

    /// Where the child after the one at `at` begins (the part's end).
    fn region_end(&self, part: &Part, at: usize) -> usize {
        let next = part.src.next_line(part.start + at) - part.start;
        if next >= part.len() {
            return part.len();
        }
        part.src
            .line_starts(part.start + next, part.end, |x| {
                self.kid_line(part, x - part.start)
                    .then_some(x - part.start)
            })
            .unwrap_or(part.len())
    }

    /// Where the child holding `p` (relative, past the header) begins.
    fn kid_of(&self, part: &Part, p: usize) -> usize {
        let header = self.header as usize;
        let mut at = part.src.line_start(part.start + p) - part.start;
        while at > header && !self.kid_line(part, at) {
            at = part.src.line_start(part.start + at - 1) - part.start;
        }
        at.max(header)
    }

    /// The child before the one at `at` (itself for the first).
    fn before(&self, part: &Part, at: usize) -> usize {
        let header = self.header as usize;
        if at <= header {
            return header;
        }
        self.kid_of(part, at - 1)
    }

    /// The child at `at`'s entry (offsets in the whole text), read from its lines.
    fn read_kid(&self, part: &Part, at: usize) -> Option<Entry> {
        let (_, e) = read_batch(
            part,
            self.header as usize,
            self.indent as usize,
            (at, self.region_end(part, at)),
            &[at],
        )?;
        let Kind::Map(mut es) = e.value.kind else {
            return None;
        };
        let mut kid = es.pop()?;
        shift(&mut kid, part.start + at - self.header as usize);
        Some(kid)
    }

    /// The child at `at`'s entry, read from its lines once.
    pub(crate) fn kid(&self, part: &Part, at: usize) -> Option<&Entry> {
        self.trees
            .get_or(at, || self.read_kid(part, at).map(Arc::new))
            .as_deref()
    }

    /// The child named `name`: where its line begins (relative).
    pub(crate) fn find(&self, part: &Part, name: &str) -> Option<usize> {
        let mut found = self.found.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(at) = found.get(name) {
            return *at;
        }
        let indent = self.indent as usize;
        let at = self.kids(part, |at| {
            let x = part.start + at + indent;
            let maybe = part.src.starts_with(x, name.as_bytes())
                || matches!(part.src.byte(x), Some(b'"' | b'\''));
            let same = || match self.trees.get(at) {
                Some(e) => e.as_ref().is_some_and(|e| e.key == name),
                None => self.read_kid(part, at).is_some_and(|e| e.key == name),
            };
            (maybe && same()).then_some(at)
        });
        found.insert(name.to_string(), at);
        at
    }

    /// The index of the child at `at` among the children.
    pub(crate) fn index(&self, part: &Part, at: usize) -> usize {
        let mut n = 0;
        self.kids(part, |x| {
            if x >= at {
                return Some(());
            }
            n += 1;
            None
        });
        n
    }

    /// Where the last child begins.
    pub(crate) fn last(&self, part: &Part) -> usize {
        self.kid_of(part, part.len().saturating_sub(1))
    }

    /// The child at `at`'s places in the whole text: its key, its line start, its end.
    pub(crate) fn places(&self, part: &Part, at: usize) -> Option<(usize, usize, usize)> {
        let e = self.kid(part, at)?;
        Some((e.key_at, e.line_start, e.end))
    }

    /// The children's indentation.
    pub(crate) fn indent(&self) -> usize {
        self.indent as usize
    }

    /// The part's first block sequence under a key (found again when not known).
    pub(super) fn first_seq(&self, part: &Part) -> Option<bool> {
        let found = self.seq.get_or_init(|| {
            let mut starts = Vec::new();
            self.kids(part, |at| {
                starts.push(at);
                None::<()>
            });
            let mut out = None;
            batches(
                part,
                self.header as usize,
                self.indent(),
                &starts,
                |text, a, e| {
                    if out.is_none()
                        && let Kind::Map(es) = &e.value.kind
                    {
                        out = es
                            .iter()
                            .enumerate()
                            .find_map(|(i, k)| seq_of(text, k).map(|f| (starts[a + i], f)));
                    }
                    Some(())
                },
            );
            out
        });
        found.map(|(_, f)| f)
    }

    /// The part's first block sequence under a key when it is known without reading.
    pub(super) fn known_seq(&self) -> Option<Option<bool>> {
        self.seq.get().map(|s| s.map(|(_, f)| f))
    }

    /// The entry's places (offsets in the whole text), with no value: where a new top-level
    /// key goes after it.
    pub(super) fn place(&self, part: &Part) -> Option<Entry> {
        let start = part.start;
        let end = match self.kid(part, self.last(part)) {
            Some(k) => k.end,
            None => start + self.colon as usize + 1,
        };
        Some(Entry {
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
        })
    }

    /// The entry's value, built child by child (no tree of the whole is held).
    pub(crate) fn value(&self, part: &Part) -> Option<Value> {
        let mut starts = Vec::with_capacity(self.count);
        self.kids(part, |at| {
            starts.push(at);
            None::<()>
        });
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
}

/// The lines an edit reads again (relative offsets): from the child before the first one the
/// splices touch (a removal may leave lines, comments, that now follow it) to the end of the
/// last one touched, and their text after the splices.
struct Region {
    /// Where the region begins: a child's line, or the header's end.
    from: usize,
    /// Where the last child touched begins.
    last: usize,
    /// Where the region ends: the next child's line, or the part's end.
    to: usize,
    /// The region's text after the splices.
    text: String,
}

/// A region's new text read with the header (see `Split::reread`).
struct Reread<'t> {
    /// The header and the region's new text.
    text: &'t str,
    /// The new children read in it (offsets in `text`), in order.
    kids: &'t [Entry],
    /// How much of the region comes before its first child: comment lines, which join the
    /// header.
    lead: usize,
}

/// The splices, relative to the part and in order; `None` when one reaches the header or
/// past the part.
fn relative<'t>(
    part: &Part,
    header: usize,
    splices: &'t [Edit],
) -> Option<Vec<(usize, usize, &'t str)>> {
    let start = part.start;
    let mut sorted: Vec<(usize, usize, &str)> = splices
        .iter()
        .map(|(s, e, t)| Some((s.checked_sub(start)?, e.checked_sub(start)?, t.as_str())))
        .collect::<Option<_>>()?;
    sorted.sort_by_key(|s| (s.0, s.1));
    let first = sorted.first()?.0;
    if first < header || sorted.iter().any(|&(s, e, _)| s > e || e > part.len()) {
        return None;
    }
    Some(sorted)
}

impl Split {
    /// The edit of the part by `splices` (offsets in the whole text, non-overlapping) that
    /// change only the child `name`, which must then read as `want` (`None`: gone): proven
    /// on the children the splices touch and the one before them. The range of the text
    /// replaced and the new part's split, or `None` when the edit reaches the header, the
    /// children it touches do not read as themselves and the wanted child, or the text is not
    /// split the same way.
    pub(super) fn commit(
        &self,
        part: &Part,
        splices: &[Edit],
        name: &str,
        want: Option<&Value>,
    ) -> Option<(Edit, Split)> {
        let sorted = relative(part, self.header as usize, splices)?;
        let region = self.region(part, &sorted, name, want)?;
        let (text, e) = self.reread(part, &region.text)?;
        let kids: &[Entry] = match &e {
            None => &[],
            Some(e) => match &e.value.kind {
                Kind::Map(es) if !e.value.flow && e.key == self.key => es,
                _ => return None,
            },
        };
        let new = Reread {
            text: &text,
            kids,
            lead: self.lead(part, &region, &text, kids)?,
        };
        let old = self.others_kept(part, &region, &new, name, want)?;
        let split = self.edited(part, &region, &new, old)?;
        let start = part.start;
        Some(((start + region.from, start + region.to, region.text), split))
    }

    /// The region the sorted `splices` touch, with its text after them; `None` when the child
    /// `name` is outside it, when neither is there nor wanted, or when the new text would not
    /// end its line before what follows.
    fn region(
        &self,
        part: &Part,
        sorted: &[(usize, usize, &str)],
        name: &str,
        want: Option<&Value>,
    ) -> Option<Region> {
        let from = self.before(part, self.kid_of(part, sorted.first()?.0));
        let last = sorted
            .iter()
            .map(|&(s, e, _)| self.kid_of(part, if e > s { e - 1 } else { s }))
            .max()?;
        let to = self.region_end(part, last);
        match (self.find(part, name), want) {
            (Some(i), _) if i < from || i > last => return None,
            (None, None) => return None,
            _ => {}
        }
        let mut text = String::with_capacity(to - from + 64);
        let mut at = from;
        for &(s, e, t) in sorted {
            if s < at {
                return None;
            }
            text.push_str(&part.get(at, s)?);
            text.push_str(t);
            at = e;
        }
        text.push_str(&part.get(at, to)?);
        // What follows must still begin a line.
        let follows = to < part.len() || part.src.byte(part.end - 1) == Some(b'\n');
        if follows && !text.is_empty() && !text.ends_with('\n') {
            return None;
        }
        Some(Region {
            from,
            last,
            to,
            text,
        })
    }

    /// The header and a region's new text, read as one entry (`None` for the entry when the
    /// region is only comment lines, what a removed first child leaves: they join the header).
    fn reread(&self, part: &Part, region: &str) -> Option<(String, Option<Entry>)> {
        let head = part.get(0, self.header as usize)?;
        if region.lines().all(|l| blank(l.as_bytes())) {
            return Some((String::new(), None));
        }
        let mut text = String::with_capacity(head.len() + region.len());
        text.push_str(&head);
        text.push_str(region);
        let mut es = read(&text)?;
        if es.len() != 1 {
            return None;
        }
        let e = es.pop()?;
        Some((text, Some(e)))
    }

    /// How much of the region comes before its first new child (see `Reread::lead`);
    /// `None` when the new children are not split the same way: none left, text before them
    /// that does not follow the header, a header grown too big, a child not at the children's
    /// indentation, a line at their indentation that does not begin one, or one that begins
    /// with what cannot begin a key. `read_in` is the text the children were read in.
    fn lead(&self, part: &Part, region: &Region, read_in: &str, kids: &[Entry]) -> Option<usize> {
        let header = self.header as usize;
        let indent = self.indent as usize;
        let text = &region.text;
        let lead = kids.first().map_or(text.len(), |k| k.line_start - header);
        if (kids.is_empty() && region.from == header && region.last == self.last(part))
            || (lead > 0 && region.from > header)
            || header + lead > HEADER
            || kids.iter().any(|k| k.key_at != k.line_start + indent)
        {
            return None;
        }
        // Every line of the new children at their indentation begins one of them.
        let kid_lines = lines(text.as_bytes()).map(|(a, _)| a).filter(|&a| {
            let l = &text.as_bytes()[a..];
            l.len() > indent
                && l[..indent].iter().all(|&c| c == b' ')
                && !matches!(l[indent], b' ' | b'\n' | b'\r' | b'#')
        });
        if !kid_lines
            .map(|a| a + header)
            .eq(kids.iter().map(|k| k.line_start))
            || kids.iter().any(|k| {
                read_in
                    .as_bytes()
                    .get(k.key_at)
                    .is_none_or(|&c| not_a_key(c))
            })
        {
            return None;
        }
        Some(lead)
    }

    /// Whether the new children read as the old ones (same bytes, same order) and the wanted
    /// one: how many old children the region held, or `None`.
    fn others_kept(
        &self,
        part: &Part,
        region: &Region,
        new: &Reread,
        name: &str,
        want: Option<&Value>,
    ) -> Option<usize> {
        let start = part.start;
        let mut old_starts = Vec::new();
        part.src
            .line_starts(start + region.from, start + region.to, |x| {
                if self.kid_line(part, x - start) {
                    old_starts.push(x - start);
                }
                None::<()>
            });
        let (old_text, old) = read_batch(
            part,
            self.header as usize,
            self.indent as usize,
            (region.from, region.to),
            &old_starts,
        )?;
        let Kind::Map(old) = &old.value.kind else {
            return None;
        };
        let olds: Vec<&str> = old
            .iter()
            .filter(|k| k.key != name)
            .map(|k| old_text.get(k.line_start..k.end))
            .collect::<Option<_>>()?;
        let mut kept = Vec::new();
        let mut got = 0;
        for k in new.kids {
            if k.key == name {
                got += 1;
                if want != Some(&to_value(&k.value)) {
                    return None;
                }
            } else {
                kept.push(new.text.get(k.line_start..k.end)?);
            }
        }
        (kept == olds && got == usize::from(want.is_some())).then_some(old.len())
    }

    /// The split of the part after the edit: what is known of the children before the
    /// region stays, what follows it moves, and the new children are found where they begin.
    fn edited(&self, part: &Part, region: &Region, new: &Reread, old: usize) -> Option<Split> {
        let header = self.header as usize;
        let (rs, re) = (region.from, region.to);
        let delta = region.text.len() as isize - (re - rs) as isize;
        let moved = |x: usize| {
            if x >= re {
                x.checked_add_signed(delta)
            } else {
                Some(x)
            }
        };
        small(part.len().checked_add_signed(delta)?)?;
        let mut found = super::parts::carry_found(&self.found, rs..re, moved)?;
        let mut first_seq = None;
        for k in new.kids {
            let at = rs + k.line_start - header;
            first_seq = first_seq.or(seq_of(new.text, k).map(|f| (at, f)));
            found.insert(k.key.clone(), Some(at));
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
        let trees = Memo::default();
        for (at, t) in self.trees.iter().filter(|&(at, _)| at < rs) {
            trees.get_or(at, || t.clone());
        }
        Some(Split {
            key: self.key.clone(),
            header: small(header + new.lead)?,
            count: (self.count + new.kids.len()).checked_sub(old)?,
            trees,
            found: Mutex::new(found),
            seq,
            ..*self
        })
    }
}
