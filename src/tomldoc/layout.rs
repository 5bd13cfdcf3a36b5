//! Where the table headers of a TOML text are, and the windows read through them: a file is
//! proven valid window by window, a top-level key's value is read from its window, and an
//! edit is made in its window (see the parent module's docs). Pure: no I/O.

use std::borrow::Cow;
use std::hash::BuildHasher;

use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};
use serde_json::Value;
use toml_edit::{Document, DocumentMut, Item};

use super::convert::table_to_json;
use super::pieces::{Edit, Src, push_edit};

/// The name that stand-in tables start with (a file holding it anywhere is read whole).
pub(super) const STUB: &str = "__mcpconf_stub_";

/// About how much text a window read to prove a file holds (beside the top-level keys and the
/// one-key tables above its tables, which every window of their key holds). Small in tests
/// and under the fuzzer, so that small files are proven in many windows.
const BATCH: usize = if cfg!(any(test, fuzzing)) {
    48
} else {
    256 * 1024
};

/// One table header's part of the text: from the comments and blank lines above the header
/// (`begin`) to the next part's `begin`, the last one to the layout's `tail`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Section {
    /// The top-level key the header starts with (an index into [`Layout::keys`]), and in
    /// the high bit whether the header has that one key only ([`Section::ancestor`]).
    top: u32,
    begin: u32,
    /// Where the header's `[` is.
    header: u32,
    /// The header's first two keys, hashed ([`group`]): tables of different groups cannot
    /// define the same key (a collision only puts two groups in one window).
    group: u32,
}

/// The bit of [`Section::top`] that marks a header of one key.
const ANCESTOR: u32 = 1 << 31;

/// The group of a header whose first two keys are `top` and `second`.
fn group(top: &str, second: Option<&str>) -> u32 {
    FxBuildHasher.hash_one((top, second)) as u32
}

impl Section {
    /// The top-level key the header starts with (an index into [`Layout::keys`]).
    pub(super) fn key(&self) -> u32 {
        self.top & !ANCESTOR
    }

    /// A header of one key (`[a]`, `[[a]]`): every window of its key holds it.
    pub(super) fn ancestor(&self) -> bool {
        self.top & ANCESTOR != 0
    }

    pub(super) fn begin(&self) -> usize {
        self.begin as usize
    }

    pub(super) fn header(&self) -> usize {
        self.header as usize
    }
}

/// The headers of a text, in document order, and where the comments after the last table
/// (`tail`) begin. The text before the first part holds the top-level keys.
#[derive(Debug, Clone, Default)]
pub(super) struct Layout {
    pub(super) keys: Vec<String>,
    ids: FxHashMap<String, u32>,
    pub(super) sections: Vec<Section>,
    pub(super) tail: usize,
    /// An offset did not fit the sections' 32 bits: the layout is not used.
    overflow: bool,
}

impl Layout {
    /// Add a header whose first two keys are `top` and `second`.
    pub(super) fn push(&mut self, top: &str, second: Option<&str>, begin: usize, header: usize) {
        self.push_section(top, group(top, second), second.is_none(), begin, header);
    }

    fn push_section(&mut self, top: &str, group: u32, ancestor: bool, begin: usize, header: usize) {
        let (Ok(begin), Ok(header)) = (u32::try_from(begin), u32::try_from(header)) else {
            self.overflow = true;
            return;
        };
        let top = match self.ids.get(top) {
            Some(&i) => i,
            None if self.keys.len() >= ANCESTOR as usize => {
                self.overflow = true;
                return;
            }
            None => {
                let i = self.keys.len() as u32;
                self.keys.push(top.to_string());
                self.ids.insert(top.to_string(), i);
                i
            }
        };
        self.sections.push(Section {
            top: if ancestor { top | ANCESTOR } else { top },
            begin,
            header,
            group,
        });
    }

    /// The layout, its sections in document order; `None` when they overlap or `tail` lies
    /// outside the text (`len` bytes).
    pub(super) fn finish(mut self, tail: usize, len: usize) -> Option<Layout> {
        if self.overflow || u32::try_from(len).is_err() {
            return None;
        }
        if !self.sections.is_sorted_by_key(|s| s.header) {
            let mut order: Vec<usize> = (0..self.sections.len()).collect();
            order.sort_by_key(|&i| self.sections[i].header);
            self.sections = order.iter().map(|&i| self.sections[i].clone()).collect();
        }
        let mut at = 0;
        for s in &self.sections {
            if s.begin() < at || s.header < s.begin {
                return None;
            }
            at = s.header() + 1;
        }
        self.tail = tail;
        // A layout lives as long as its document: no room left over from its growth.
        self.sections.shrink_to_fit();
        (at <= tail && tail <= len).then_some(self)
    }

    /// The layout of a parsed text (`toml_edit`'s spans); `None` when a span is missing.
    pub(super) fn of<S: AsRef<str>>(doc: &Document<S>) -> Option<Layout> {
        fn header(t: &toml_edit::Table) -> Option<(usize, usize)> {
            let header = t.span()?.start;
            let begin = match t.decor().prefix() {
                Some(p) => match p.span() {
                    Some(r) => r.start,
                    None if p.as_str().is_some_and(str::is_empty) => header,
                    None => return None,
                },
                None => header,
            };
            Some((begin, header))
        }
        fn walk(l: &mut Layout, top: &str, second: Option<&str>, item: &Item) -> Option<()> {
            let tables: Vec<&toml_edit::Table> = match item {
                Item::Table(t) => vec![t],
                Item::ArrayOfTables(a) => a.iter().collect(),
                Item::Value(_) | Item::None => return Some(()),
            };
            for t in tables {
                if matches!(item, Item::ArrayOfTables(_)) || (!t.is_implicit() && !t.is_dotted()) {
                    let (begin, at) = header(t)?;
                    l.push(top, second, begin, at);
                }
                for (k, i) in t.iter() {
                    walk(l, top, Some(second.unwrap_or(k)), i)?;
                }
            }
            Some(())
        }
        let text = doc.raw();
        let mut l = Layout::default();
        for (k, item) in doc.as_table().iter() {
            walk(&mut l, k, None, item)?;
        }
        let trailing = doc.trailing();
        let tail = match trailing.span() {
            Some(r) => r.start,
            None if trailing.as_str().is_some_and(str::is_empty) => text.len(),
            None => return None,
        };
        l.finish(tail, text.len())
    }

    fn id(&self, key: &str) -> Option<u32> {
        self.ids.get(key).copied()
    }

    /// The top-level key of a section.
    pub(super) fn top(&self, s: &Section) -> &str {
        &self.keys[s.key() as usize]
    }

    /// Where section `i`'s part ends.
    fn end(&self, i: usize) -> usize {
        self.sections.get(i + 1).map_or(self.tail, Section::begin)
    }

    /// Where the text before the first header ends.
    fn preamble_end(&self) -> usize {
        self.sections.first().map_or(self.tail, Section::begin)
    }

    /// Whether every window of the file parses and `toml_edit` gives it back byte for byte,
    /// which proves the same of the whole file: windows hold every byte of it, and tables of
    /// different groups cannot define the same key (see the parent module's docs).
    pub(super) fn proves(&self, text: &str) -> bool {
        if self.sections.is_empty() {
            return super::edit::roundtrips(text) == Ok(true);
        }
        let groups: Vec<u32> = self.sections.iter().map(|s| s.group).collect();
        // What every window of a key holds (the top-level keys, the key's one-key tables) is
        // read once per window: a batch is at least as big, so that it is read at most about
        // as often as the text's own size allows (no more than twice the text in all).
        let mut fixed = vec![0usize; self.keys.len()];
        for (i, s) in self.sections.iter().enumerate() {
            if s.ancestor() {
                fixed[s.key() as usize] += self.end(i) - s.begin();
            }
        }
        let batch = BATCH
            .max(self.preamble_end())
            .max(fixed.iter().copied().max().unwrap_or(0));
        // Each group goes to the batch open when it first appears.
        let mut batch_of: FxHashMap<u32, u32> = FxHashMap::default();
        let mut sizes: Vec<usize> = vec![0];
        for (i, (s, g)) in self.sections.iter().zip(&groups).enumerate() {
            let len = self.end(i) - s.begin();
            let b = *batch_of.entry(*g).or_insert_with(|| {
                if sizes.last().is_some_and(|&n| n >= batch) {
                    sizes.push(0);
                }
                (sizes.len() - 1) as u32
            });
            sizes[b as usize] += len;
        }
        let mut tops: FxHashSet<(u32, u32)> = FxHashSet::default();
        let mut batches_of_top: Vec<Vec<u32>> = vec![Vec::new(); self.keys.len()];
        for (s, g) in self.sections.iter().zip(&groups) {
            let b = batch_of[g];
            if tops.insert((s.key(), b)) {
                batches_of_top[s.key() as usize].push(b);
            }
        }
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); sizes.len()];
        for (i, (s, g)) in self.sections.iter().zip(&groups).enumerate() {
            if s.ancestor() {
                for &b in &batches_of_top[s.key() as usize] {
                    members[b as usize].push(i);
                }
            } else {
                members[batch_of[g] as usize].push(i);
            }
        }
        let pre = &text[..self.preamble_end()];
        let last = members.len() - 1;
        members.iter().enumerate().all(|(b, parts)| {
            let mut w = String::with_capacity(pre.len() + sizes[b]);
            w.push_str(pre);
            for &i in parts {
                w.push_str(&text[self.sections[i].begin()..self.end(i)]);
            }
            if b == last {
                w.push_str(&text[self.tail..]);
            }
            super::edit::roundtrips(&w) == Ok(true)
        })
    }

    /// The value of `key` read from the text before the first header and `key`'s sections
    /// that `held` says (`Err`: they do not parse; `Ok(None)`: they do not define `key`).
    fn read_of(
        &self,
        text: Src<'_>,
        key: &str,
        held: impl Fn(&Section) -> bool,
    ) -> Result<Option<Value>, ()> {
        let mut w = text.get(0, self.preamble_end()).ok_or(())?.into_owned();
        if let Some(id) = self.id(key) {
            for (i, s) in self.sections.iter().enumerate() {
                if s.key() == id && held(s) {
                    w.push_str(&text.get(s.begin(), self.end(i)).ok_or(())?);
                }
            }
        }
        let doc: DocumentMut = w.parse().map_err(|_| ())?;
        match table_to_json(doc.as_table()) {
            Value::Object(mut m) => Ok(m.remove(key)),
            _ => Err(()),
        }
    }

    /// The value of the top-level key `key` (`None`: the file has no such key), read from the
    /// text before the first header and `key`'s tables.
    pub(super) fn value_of(&self, text: Src<'_>, key: &str) -> Option<Value> {
        self.read_of(text, key, |_| true).ok()?
    }

    /// The value of the entry `child` of the top-level key `key` (`None`: there is none), read
    /// from the text before the first header, `key`'s one-key tables and `child`'s tables.
    /// `Err` when `key`'s value is not a table read so (the caller reads `key` whole).
    pub(super) fn child_value_of(
        &self,
        text: Src<'_>,
        key: &str,
        child: &str,
    ) -> Result<Option<Value>, ()> {
        let g = group(key, Some(child));
        match self.read_of(text, key, |s| s.ancestor() || s.group == g)? {
            Some(Value::Object(mut t)) => Ok(t.remove(child)),
            // Only other entries' tables define `key`: a table without `child`.
            None => Ok(None),
            Some(_) => Err(()),
        }
    }

    /// The value of the top-level key `key` as far as its kind needs it: read from the text
    /// before the first header and `key`'s one-key tables, or an empty table when only tables
    /// below it define it (`Ok(None)`: there is no such key; `Err`: read `key` whole).
    pub(super) fn shape_of(&self, text: Src<'_>, key: &str) -> Result<Option<Value>, ()> {
        Ok(match self.read_of(text, key, |s| s.ancestor())? {
            Some(v) => Some(v),
            None => self.id(key).map(|_| Value::Object(serde_json::Map::new())),
        })
    }

    /// The window of `text` an edit below the top-level key `key` reads (see the parent
    /// module's docs), and the runs its stand-ins replace, in order (`None`: `text` is not
    /// as laid out).
    pub(super) fn window<'t>(&self, text: Src<'t>, key: &str) -> Option<(Cow<'t, str>, Vec<Run>)> {
        let id = self.id(key);
        self.window_of(text, |x| Some(x.key()) == id)
    }

    /// The window of `text` an edit of the entry `child` of the top-level table `key` reads:
    /// the text before the first header, `key`'s one-key tables, `child`'s tables, and the
    /// tables of the entry whose table is `key`'s last in the file (after which a new entry's
    /// table goes); `None` when that is all of `key`'s tables.
    pub(super) fn child_window<'t>(
        &self,
        text: Src<'t>,
        key: &str,
        child: &str,
    ) -> Option<(Cow<'t, str>, Vec<Run>)> {
        let id = self.id(key)?;
        let g = group(key, Some(child));
        let s = &self.sections;
        let last = s.iter().rev().find(|x| x.key() == id)?.group;
        let held = |x: &Section| x.key() == id && (x.ancestor() || x.group == g || x.group == last);
        if s.iter().filter(|x| x.key() == id).all(held) {
            return None;
        }
        self.window_of(text, held)
    }

    /// The window of `text` that holds the sections `held` says, every run of the others
    /// standing as one stand-in.
    fn window_of<'t>(
        &self,
        text: Src<'t>,
        held: impl Fn(&Section) -> bool,
    ) -> Option<(Cow<'t, str>, Vec<Run>)> {
        let s = &self.sections;
        if text.contains(STUB) || s.iter().all(&held) {
            return Some((text.get(0, text.len())?, Vec::new()));
        }
        let mut w = String::new();
        let mut runs = Vec::new();
        let mut copied = 0;
        let mut i = 0;
        while i < s.len() {
            if held(&s[i]) {
                i += 1;
                continue;
            }
            let mut j = i;
            while j < s.len() && !held(&s[j]) {
                j += 1;
            }
            let (start, end) = (s[i].header(), s.get(j).map_or(self.tail, Section::begin));
            w.push_str(&text.get(copied, start)?);
            w.push_str(&format!("[{STUB}{}]", runs.len()));
            if end > start && text.byte(end - 1) == Some(b'\n') {
                w.push('\n');
            }
            runs.push(Run {
                start,
                end,
                sections: i..j,
            });
            copied = end;
            i = j;
        }
        w.push_str(&text.get(copied, text.len())?);
        Some((Cow::Owned(w), runs))
    }

    /// The edits of `text` (laid out as `self`) that make it the whole new text, from the
    /// edited window `doc` of it whose stand-ins replaced the `runs` of `text`, and the new
    /// text's layout (`None` if not known). The runs stay where they are: only the window's
    /// own text is edited, so the new text is the bytes read with a few ranges replaced.
    pub(super) fn restore(
        &self,
        text: Src<'_>,
        doc: &Document<String>,
        runs: &[Run],
    ) -> Option<(Vec<Edit>, Option<Layout>)> {
        let out = doc.raw();
        let window = Layout::of(doc);
        if runs.is_empty() {
            let mut edits = Vec::new();
            push_edit(&mut edits, text, 0, text.len(), out)?;
            return Some((edits, window));
        }
        // Each stand-in's header, in order.
        let mut stubs = Vec::with_capacity(runs.len());
        for (k, item) in doc.as_table().iter() {
            let Some(n) = k.strip_prefix(STUB) else {
                continue;
            };
            let n: usize = n.parse().ok()?;
            let span = item.as_table()?.span()?;
            stubs.push((span.start, span.end, n));
        }
        stubs.sort_unstable();
        if stubs.len() != runs.len() || stubs.iter().enumerate().any(|(i, s)| s.2 != i) {
            return None;
        }
        // A stand-in ends with its line's newline when its run does (it was written so),
        // unless it ends the text, whose final newline was taken away: then so is the run's.
        let mut cut = vec![false; runs.len()];
        for ((stub, run), cut) in stubs.iter_mut().zip(runs).zip(&mut cut) {
            if run.end > run.start && text.byte(run.end - 1) == Some(b'\n') {
                match out.as_bytes().get(stub.1) {
                    Some(b'\n') => stub.1 += 1,
                    None => *cut = true,
                    Some(_) => return None,
                }
            }
        }
        // The text between the runs (the window's own) becomes the output's between the
        // stand-ins; a run whose final newline was cut loses it.
        let mut edits = Vec::new();
        let (mut from, mut copied) = (0, 0);
        for ((&(start, end, _), run), &cut) in stubs.iter().zip(runs).zip(&cut) {
            push_edit(&mut edits, text, from, run.start, out.get(copied..start)?)?;
            from = run.end - usize::from(cut);
            copied = end;
        }
        push_edit(&mut edits, text, from, text.len(), out.get(copied..)?)?;
        let grown: isize = edits
            .iter()
            .map(|(lo, hi, mid)| mid.len() as isize - (hi - lo) as isize)
            .sum();
        let whole_len = text.len().checked_add_signed(grown)?;
        // The whole text's layout: the window's, each stand-in giving way to its run's
        // sections (the first keeps the stand-in's `begin`: comments may have moved above it).
        let layout = window.and_then(|w| {
            let at = |x: usize, d: isize| x.checked_add_signed(d);
            let mut l = Layout::default();
            let in_runs: usize = runs.iter().map(|r| r.sections.len()).sum();
            l.sections
                .reserve_exact((w.sections.len() + in_runs).saturating_sub(runs.len()));
            let mut shift: isize = 0;
            let mut next = stubs.iter().zip(runs).zip(&cut).peekable();
            for s in &w.sections {
                match next.peek() {
                    Some(&((&(start, end, _), run), &cut)) if s.header() == start => {
                        next.next();
                        let delta = at(start, shift)? as isize - run.start as isize;
                        for (i, o) in self.sections[run.sections.clone()].iter().enumerate() {
                            let begin = if i == 0 {
                                at(s.begin(), shift)?
                            } else {
                                at(o.begin(), delta)?
                            };
                            let top = self.top(o);
                            l.push_section(
                                top,
                                o.group,
                                o.ancestor(),
                                begin,
                                at(o.header(), delta)?,
                            );
                        }
                        shift += (run.end - run.start) as isize - (end - start) as isize;
                        if cut {
                            shift -= 1;
                        }
                    }
                    _ => l.push_section(
                        w.top(s),
                        s.group,
                        s.ancestor(),
                        at(s.begin(), shift)?,
                        at(s.header(), shift)?,
                    ),
                }
            }
            if next.peek().is_some() {
                return None;
            }
            let tail = at(w.tail, shift)?;
            l.finish(tail, whole_len)
        });
        Some((edits, layout))
    }

    /// The sections by key name, for comparing layouts read in different orders.
    #[cfg(test)]
    pub(super) fn view(&self) -> View {
        let sections = self
            .sections
            .iter()
            .map(|s| (self.top(s).to_string(), s.ancestor(), s.begin(), s.header()))
            .collect();
        (sections, self.tail)
    }
}

/// A layout by key name: each section's key, whether an ancestor, `begin` and header; and the
/// tail.
#[cfg(test)]
pub(super) type View = (Vec<(String, bool, usize, usize)>, usize);

/// A run of tables outside an edit's window: the bytes its stand-in replaces, and its
/// sections in the layout.
#[derive(Debug)]
pub(super) struct Run {
    start: usize,
    end: usize,
    sections: std::ops::Range<usize>,
}
