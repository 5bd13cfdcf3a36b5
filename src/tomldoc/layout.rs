//! Where the table headers of a TOML text are, and the windows read through them: a file is
//! proven valid window by window, a top-level key's value is read from its window, and an
//! edit is made in its window (see the parent module's docs). Pure: no I/O.

use std::borrow::Cow;
use std::hash::BuildHasher;

use rustc_hash::{FxBuildHasher, FxHashMap};
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
    // `toml_edit` holds a window in 35 to 90 times its size (more for tables of arrays).
    4 * 1024
};

/// One table header's part of the text: from the comments and blank lines above the header
/// (`begin`, [`Layout::begin`]) to the next part's `begin`, the last one to the layout's
/// `tail`. Eight bytes: a layout lives as long as its document, and a file of many small
/// tables has one per 70 bytes or so.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Section {
    /// Where the header's `[` is.
    header: u32,
    /// From the high bit down: whether the header has one key only ([`Section::ancestor`]);
    /// 7 bits of the top-level key the header starts with (an index into [`Layout::keys`],
    /// [`FAR_KEY`]: in [`Layout::far`]); 8 bits of how far `begin` lies before the header
    /// ([`FAR_DECOR`]: in [`Layout::far`]); the low 16 bits of its group ([`group`]).
    meta: u32,
}

/// The bit of [`Section::meta`] that marks a header of one key.
const ANCESTOR: u32 = 1 << 31;
/// The key bits of a section whose key is in [`Layout::far`].
const FAR_KEY: u32 = 0x7f;
/// The decor bits of a section whose `begin` is in [`Layout::far`].
const FAR_DECOR: u32 = 0xff;

/// The low 16 bits of a group, which a section keeps: tables of different groups cannot
/// define the same key, and a collision only puts two groups in one window (proving a file
/// reads the groups of a low half together, [`Layout::proves`]).
fn low(group: u32) -> u32 {
    group & 0xffff
}

/// The group of a header whose first two keys are `top` and `second`.
fn group(top: &str, second: Option<&str>) -> u32 {
    FxBuildHasher.hash_one((top, second)) as u32
}

impl Section {
    /// A header of one key (`[a]`, `[[a]]`): every window of its key holds it.
    pub(super) fn ancestor(&self) -> bool {
        self.meta & ANCESTOR != 0
    }

    pub(super) fn header(&self) -> usize {
        self.header as usize
    }

    /// The low 16 bits of the header's group ([`low`]).
    fn group(&self) -> u32 {
        low(self.meta)
    }

    /// A section of key id `top` whose comments begin `decor` bytes before its header.
    fn packed(top: u32, group: u32, ancestor: bool, decor: u32, header: u32) -> Section {
        let anc = if ancestor { ANCESTOR } else { 0 };
        Section {
            header,
            meta: anc | top.min(FAR_KEY) << 24 | decor.min(FAR_DECOR) << 16 | low(group),
        }
    }

    /// Whether a section's key or `begin` is kept in [`Layout::far`].
    fn far(s: Section) -> bool {
        s.meta >> 24 & FAR_KEY == FAR_KEY || s.meta >> 16 & FAR_DECOR == FAR_DECOR
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
    /// The key and `begin` of the sections whose own bits cannot hold them (a key past the
    /// 127th, more than 254 bytes of comments above a header), by header.
    far: FxHashMap<u32, (u32, u32)>,
    /// While a text is scanned: a filter of the groups seen ([`Layout::saw`]).
    seen: Vec<u64>,
    /// The group of the last header scanned.
    last: Option<u32>,
    /// A bit for each low half of a group ([`low`]) whose tables may be spread between
    /// others', from the scan until [`Layout::proves`] reads them (empty: none).
    spread: Vec<u64>,
}

/// Bits of the scan's filter for each header it has room for: with three bits set in one word
/// of it for each group, about one group in a hundred is taken for one seen before.
const SEEN_BITS: usize = 12;

/// A 64-bit mix of a group (splitmix64's finalizer).
fn mix(g: u32) -> u64 {
    let mut z = u64::from(g).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Layout {
    /// Room for `n` more headers ([`Layout::push`]).
    pub(super) fn reserve(&mut self, n: usize) {
        self.sections.reserve_exact(n);
        self.seen = vec![0; (n * SEEN_BITS).div_ceil(64).max(1)];
    }

    /// Add a header whose first two keys are `top` and `second`. The first header of a run of
    /// its group's whose group the filter has seen marks its group's low half as spread: every
    /// group whose tables are in more than one run is so marked, and a few others, which
    /// [`Layout::proves`] reads as it does a spread group (together, in one window).
    pub(super) fn push(&mut self, top: &str, second: Option<&str>, begin: usize, header: usize) {
        let g = group(top, second);
        if self.last != Some(g) {
            self.last = Some(g);
            if self.saw(g) {
                self.mark(low(g));
            }
        }
        self.push_section(top, g, second.is_none(), begin, header);
    }

    /// Whether the filter has seen group `g` (or a few others' bits cover its), and add it: a
    /// blocked Bloom filter, three bits in one word for each group.
    fn saw(&mut self, g: u32) -> bool {
        if self.seen.is_empty() {
            self.seen = vec![0; 64];
        }
        let h = mix(g);
        let word = ((u128::from(h) * self.seen.len() as u128) >> 64) as usize;
        let mask = 1u64 << (h & 63) | 1u64 << (h >> 6 & 63) | 1u64 << (h >> 12 & 63);
        let Some(w) = self.seen.get_mut(word) else {
            return true;
        };
        let had = *w & mask == mask;
        *w |= mask;
        had
    }

    /// Mark the low half `lo` of a group as spread.
    fn mark(&mut self, lo: u32) {
        if self.spread.is_empty() {
            self.spread = vec![0; (1 << 16) / 64];
        }
        if let Some(w) = self.spread.get_mut(lo as usize / 64) {
            *w |= 1 << (lo % 64);
        }
    }

    fn push_section(&mut self, top: &str, group: u32, ancestor: bool, begin: usize, header: usize) {
        let (Ok(begin), Ok(header)) = (u32::try_from(begin), u32::try_from(header)) else {
            self.overflow = true;
            return;
        };
        let Some(decor) = header.checked_sub(begin) else {
            self.overflow = true;
            return;
        };
        let Some(top) = self.intern(top) else {
            self.overflow = true;
            return;
        };
        let section = Section::packed(top, group, ancestor, decor, header);
        if Section::far(section) {
            self.far.insert(header, (top, begin));
        }
        self.sections.push(section);
    }

    /// The id of a top-level key (an index into [`Layout::keys`]), added if new.
    fn intern(&mut self, top: &str) -> Option<u32> {
        if let Some(&i) = self.ids.get(top) {
            return Some(i);
        }
        let i = u32::try_from(self.keys.len()).ok()?;
        self.keys.push(top.to_string());
        self.ids.insert(top.to_string(), i);
        Some(i)
    }

    /// A section of key id `top`, kept aside in [`Layout::far`] if it must be (`None`: an
    /// offset does not fit 32 bits, or `begin` lies after the header).
    fn encode(
        &mut self,
        top: u32,
        group: u32,
        ancestor: bool,
        begin: usize,
        header: usize,
    ) -> Option<Section> {
        let (begin, header) = (u32::try_from(begin).ok()?, u32::try_from(header).ok()?);
        let section = Section::packed(top, group, ancestor, header.checked_sub(begin)?, header);
        if Section::far(section) {
            self.far.insert(header, (top, begin));
        }
        Some(section)
    }

    /// The layout, its sections in document order; `None` when they overlap or `tail` lies
    /// outside the text (`len` bytes).
    pub(super) fn finish(mut self, tail: usize, len: usize) -> Option<Layout> {
        if self.overflow || u32::try_from(len).is_err() {
            return None;
        }
        self.seen = Vec::new();
        if !self.sections.is_sorted_by_key(|s| s.header) {
            self.sections.sort_by_key(|s| s.header);
            // Runs found out of order say nothing: every group is read as a spread one.
            self.spread = vec![u64::MAX; (1 << 16) / 64];
        }
        let mut at = 0;
        for s in &self.sections {
            if self.begin(s) < at {
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
        // Only a scanned text is proven from its groups.
        l.finish(tail, text.len()).map(Layout::scanned)
    }

    /// A scanned layout without what only [`Layout::proves`] reads (for a text proven before).
    pub(super) fn scanned(mut self) -> Layout {
        self.spread = Vec::new();
        self
    }

    fn id(&self, key: &str) -> Option<u32> {
        self.ids.get(key).copied()
    }

    /// The top-level key of a section (an index into [`Layout::keys`]).
    pub(super) fn key(&self, s: &Section) -> u32 {
        match s.meta >> 24 & FAR_KEY {
            FAR_KEY => self.far[&s.header].0,
            k => k,
        }
    }

    /// Where the comments and blank lines above a section's header begin.
    pub(super) fn begin(&self, s: &Section) -> usize {
        match s.meta >> 16 & FAR_DECOR {
            FAR_DECOR => self.far[&s.header].1 as usize,
            d => s.header() - d as usize,
        }
    }

    /// The top-level key of a section.
    pub(super) fn top(&self, s: &Section) -> &str {
        &self.keys[self.key(s) as usize]
    }

    /// Where section `i`'s part ends.
    fn end(&self, i: usize) -> usize {
        self.sections
            .get(i + 1)
            .map_or(self.tail, |s| self.begin(s))
    }

    /// Where the text before the first header ends.
    fn preamble_end(&self) -> usize {
        self.sections.first().map_or(self.tail, |s| self.begin(s))
    }

    /// Whether every window of the file parses and `toml_edit` gives it back byte for byte,
    /// which proves the same of the whole file: windows hold every byte of it, and tables of
    /// different groups cannot define the same key (see the parent module's docs).
    ///
    /// Each group goes to the batch open when it first appears, and each one-key table to
    /// every batch holding its key. Nothing is kept per table beyond the layout itself: the
    /// batches are runs of tables, except for the groups whose low half the scan marked as
    /// spread (rare; [`Layout::push`]), which alone are looked up, by their low half: all the
    /// groups of a marked half are read in one window, so a group in more than one run is.
    pub(super) fn proves(&mut self, text: &str) -> bool {
        let spread = std::mem::take(&mut self.spread);
        if self.sections.is_empty() {
            return super::edit::roundtrips(text) == Ok(true);
        }
        let b = self.batches(&spread);
        drop(spread);
        let pre = &text[..self.preamble_end()];
        let count = b.starts.len();
        (0..count).all(|k| {
            let range = b.starts[k]..b.starts.get(k + 1).copied().unwrap_or(self.sections.len());
            let mut w = String::with_capacity(pre.len() + b.sizes[k]);
            w.push_str(pre);
            let mut extra = b.extra(k).iter().copied().peekable();
            let mut skip = b.skip(k).iter().copied().peekable();
            let mut push = |i: usize| w.push_str(&text[self.begin(&self.sections[i])..self.end(i)]);
            for i in range {
                while let Some(e) = extra.next_if(|&e| (e as usize) < i) {
                    push(e as usize);
                }
                let skipped = skip.next_if_eq(&(i as u32)).is_some();
                if b.holds(self, k as u32, i, skipped) {
                    push(i);
                }
            }
            extra.for_each(|e| push(e as usize));
            if k == count - 1 {
                w.push_str(&text[self.tail..]);
            }
            super::edit::roundtrips(&w) == Ok(true)
        })
    }

    /// The batches [`Layout::proves`] reads (see there).
    fn batches(&self, spread: &[u64]) -> Batches {
        let mut fixed = vec![0usize; self.keys.len()];
        for (i, s) in self.sections.iter().enumerate() {
            if s.ancestor() {
                fixed[self.key(s) as usize] += self.end(i) - self.begin(s);
            }
        }
        // What every window of a key holds (the top-level keys, the key's one-key tables) is
        // read once per window: a batch is at least as big, so that it is read at most about
        // as often as the text's own size allows (no more than twice the text in all).
        let batch = BATCH
            .max(self.preamble_end())
            .max(fixed.iter().copied().max().unwrap_or(0));
        drop(fixed);
        let marked = |g: u32| {
            spread
                .get(g as usize / 64)
                .is_some_and(|w| w & 1 << (g % 64) != 0)
        };
        let mut b = Batches {
            starts: Vec::new(),
            sizes: Vec::new(),
            spread: FxHashMap::default(),
            of_top: vec![Vec::new(); self.keys.len()],
            lists: [Vec::new(), Vec::new()],
            at: [Vec::new(), Vec::new()],
        };
        let mut last: Option<(u32, u32)> = None;
        for (i, s) in self.sections.iter().enumerate() {
            let g = s.group();
            let open = |b: &mut Batches| {
                if b.sizes.last().is_none_or(|&n| n >= batch) {
                    b.starts.push(i);
                    b.sizes.push(0);
                }
                (b.sizes.len() - 1) as u32
            };
            let k = if marked(g) {
                match b.spread.get(&g) {
                    Some(&k) => k,
                    None => {
                        let k = open(&mut b);
                        b.spread.insert(g, k);
                        k
                    }
                }
            } else {
                match last {
                    Some((last_g, k)) if last_g == g => k,
                    _ => open(&mut b),
                }
            };
            last = Some((g, k));
            b.sizes[k as usize] += self.end(i) - self.begin(s);
            let tops = &mut b.of_top[self.key(s) as usize];
            if !tops.contains(&k) {
                tops.push(k);
            }
        }
        // The tables a batch holds outside its run, and those in its run it does not, in
        // document order: counted, then placed, each batch's list a slice of one vector (a
        // list of its own for each of thousands of batches would take more than the tables).
        let n = b.starts.len();
        let mut at = [vec![0u32; n + 1], vec![0u32; n + 1]];
        self.placed(&b, |w, k, _| at[w][k + 1] += 1);
        for a in &mut at {
            for k in 0..n {
                a[k + 1] += a[k];
            }
        }
        let mut lists = [vec![0u32; at[0][n] as usize], vec![0u32; at[1][n] as usize]];
        let mut next = at.clone();
        self.placed(&b, |w, k, i| {
            lists[w][next[w][k] as usize] = i;
            next[w][k] += 1;
        });
        (b.lists, b.at) = (lists, at);
        b.spread = FxHashMap::default();
        b
    }

    /// Each table a batch holds outside its run (`f(EXTRA, batch, table)`), and each one in a
    /// batch's run that the batch does not hold (`f(SKIP, …)`), in document order.
    fn placed(&self, b: &Batches, mut f: impl FnMut(usize, usize, u32)) {
        let mut run = 0;
        for (i, s) in self.sections.iter().enumerate() {
            while b.starts.get(run + 1).is_some_and(|&n| n <= i) {
                run += 1;
            }
            let held: &[u32] = if s.ancestor() {
                &b.of_top[self.key(s) as usize]
            } else {
                match b.spread.get(&s.group()) {
                    Some(k) => std::slice::from_ref(k),
                    None => &[],
                }
            };
            for &k in held {
                if k as usize != run {
                    f(EXTRA, k as usize, i as u32);
                }
            }
            if !s.ancestor() && held.first().is_some_and(|&k| k as usize != run) {
                f(SKIP, run, i as u32);
            }
        }
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
                if self.key(s) == id && held(s) {
                    w.push_str(&text.get(self.begin(s), self.end(i)).ok_or(())?);
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
        let g = low(group(key, Some(child)));
        match self.read_of(text, key, |s| s.ancestor() || s.group() == g)? {
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
        self.window_of(text, |x| Some(self.key(x)) == id)
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
        let g = low(group(key, Some(child)));
        let s = &self.sections;
        let last = s.iter().rev().find(|x| self.key(x) == id)?.group();
        let held = |x: &Section| {
            self.key(x) == id && (x.ancestor() || x.group() == g || x.group() == last)
        };
        if s.iter().filter(|x| self.key(x) == id).all(held) {
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
            let (start, end) = (s[i].header(), s.get(j).map_or(self.tail, |x| self.begin(x)));
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
        self,
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
        let layout = window.and_then(|w| self.respliced(&w, &stubs, runs, &cut, whole_len));
        Some((edits, layout))
    }

    /// The whole text's layout, made of this one (the text's before the edit) in place: the
    /// window's `w`, each stand-in (`stubs`) giving way to its run's sections (the first keeps
    /// the stand-in's `begin`: comments may have moved above it), shifted by what the window
    /// grew before it. The runs' sections stay where they are (only their headers move), and
    /// the window's own take the place of the sections they were: no second copy of the
    /// sections is made.
    fn respliced(
        mut self,
        w: &Layout,
        stubs: &[(usize, usize, usize)],
        runs: &[Run],
        cut: &[bool],
        whole_len: usize,
    ) -> Option<Layout> {
        let at = |x: usize, d: isize| x.checked_add_signed(d);
        let old_far = std::mem::take(&mut self.far);
        let mut sections = std::mem::take(&mut self.sections);
        // The window's sections between the runs, re-encoded: `gaps[k]` comes before run `k`.
        let mut gaps: Vec<Vec<Section>> = vec![Vec::new(); runs.len() + 1];
        let mut shift: isize = 0;
        let mut next = stubs.iter().zip(runs).zip(cut).enumerate().peekable();
        for s in &w.sections {
            match next.peek() {
                Some(&(_, ((&(start, end, _), run), &cut))) if s.header() == start => {
                    next.next();
                    let delta = at(start, shift)? as isize - run.start as isize;
                    for (i, o) in sections[run.sections.clone()].iter_mut().enumerate() {
                        let old = match Section::far(*o) {
                            true => Some(*old_far.get(&o.header)?),
                            false => None,
                        };
                        let header = at(o.header(), delta)?;
                        if i > 0 && old.is_none() {
                            // Header and `begin` move together: only the header changes.
                            o.header = u32::try_from(header).ok()?;
                            continue;
                        }
                        let (key, begin) = match old {
                            Some(f) => (f.0, at(f.1 as usize, delta)?),
                            None => (
                                o.meta >> 24 & FAR_KEY,
                                header - (o.meta >> 16 & FAR_DECOR) as usize,
                            ),
                        };
                        let begin = if i == 0 {
                            at(w.begin(s), shift)?
                        } else {
                            begin
                        };
                        *o = self.encode(key, o.group(), o.ancestor(), begin, header)?;
                    }
                    shift += (run.end - run.start) as isize - (end - start) as isize;
                    if cut {
                        shift -= 1;
                    }
                }
                _ => {
                    let k = next.peek().map_or(runs.len(), |&(k, _)| k);
                    let key = self.intern(w.top(s))?;
                    let begin = at(w.begin(s), shift)?;
                    let header = at(s.header(), shift)?;
                    let section = self.encode(key, s.group(), s.ancestor(), begin, header)?;
                    gaps[k].push(section);
                }
            }
        }
        if next.peek().is_some() {
            return None;
        }
        // The window's sections take the place of the held ones, from the last gap back.
        let added: usize = gaps.iter().map(Vec::len).sum();
        let held = sections.len() - runs.iter().map(|r| r.sections.len()).sum::<usize>();
        sections.reserve_exact(added.saturating_sub(held));
        for (k, gap) in gaps.into_iter().enumerate().rev() {
            let from = k.checked_sub(1).map_or(0, |p| runs[p].sections.end);
            let to = runs.get(k).map_or(sections.len(), |r| r.sections.start);
            sections.splice(from..to, gap);
        }
        self.sections = sections;
        self.spread = Vec::new();
        let tail = at(w.tail, shift)?;
        self.finish(tail, whole_len)
    }

    /// The sections by key name, for comparing layouts read in different orders.
    #[cfg(test)]
    pub(super) fn view(&self) -> View {
        let sections = self
            .sections
            .iter()
            .map(|s| {
                (
                    self.top(s).to_string(),
                    s.ancestor(),
                    self.begin(s),
                    s.header(),
                )
            })
            .collect();
        (sections, self.tail)
    }
}

/// A layout by key name: each section's key, whether an ancestor, `begin` and header; and the
/// tail.
#[cfg(test)]
pub(super) type View = (Vec<(String, bool, usize, usize)>, usize);

/// The batches of tables [`Layout::proves`] reads, each in a window of its own.
struct Batches {
    /// The first table of each batch's run: the tables up to the next batch's run are the
    /// batch's, but for those of spread groups and one-key tables.
    starts: Vec<usize>,
    /// About how much text each batch holds.
    sizes: Vec<usize>,
    /// The batch of each low half of a group marked as spread ([`Layout::push`]),
    /// while the batches are made.
    spread: FxHashMap<u32, u32>,
    /// The batches holding tables of each top-level key, in order.
    of_top: Vec<Vec<u32>>,
    /// [`EXTRA`]: the tables each batch holds outside its run; [`SKIP`]: the tables in each
    /// batch's run that are another batch's (of a spread group); each in document order,
    /// batch `k`'s from `at[_][k]` to `at[_][k + 1]`.
    lists: [Vec<u32>; 2],
    at: [Vec<u32>; 2],
}

/// Which of [`Batches::lists`].
const EXTRA: usize = 0;
const SKIP: usize = 1;

impl Batches {
    fn list(&self, w: usize, k: usize) -> &[u32] {
        let at = &self.at[w];
        match (at.get(k), at.get(k + 1)) {
            (Some(&a), Some(&z)) => self.lists[w].get(a as usize..z as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The tables batch `k` holds outside its run.
    fn extra(&self, k: usize) -> &[u32] {
        self.list(EXTRA, k)
    }

    /// The tables in batch `k`'s run that it does not hold.
    fn skip(&self, k: usize) -> &[u32] {
        self.list(SKIP, k)
    }

    /// Whether batch `k` holds table `i`, which lies in `k`'s run (`skipped`: it is in
    /// [`Batches::skip`]).
    fn holds(&self, l: &Layout, k: u32, i: usize, skipped: bool) -> bool {
        let s = &l.sections[i];
        if s.ancestor() {
            self.of_top[l.key(s) as usize].contains(&k)
        } else {
            !skipped
        }
    }
}

/// A run of tables outside an edit's window: the bytes its stand-in replaces, and its
/// sections in the layout.
#[derive(Debug)]
pub(super) struct Run {
    start: usize,
    end: usize,
    sections: std::ops::Range<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout of `text` scanned and proven, and the same read from `toml_edit`'s spans.
    fn both(text: &str) -> (Option<Layout>, Option<Layout>) {
        let doc: Document<String> = Document::parse(text.to_string()).unwrap();
        (proven(text), Layout::of(&doc))
    }

    /// The layout of `text` scanned, if the windows prove it.
    fn proven(text: &str) -> Option<Layout> {
        super::super::scan::scan(text).and_then(|mut l| l.proves(text).then_some(l))
    }

    /// A section is eight bytes; what does not fit (a key past the 127th, a long comment
    /// above a header) is kept aside, and only for those sections; the scan's groups are
    /// gone once the file is proven.
    #[test]
    fn sections_are_eight_bytes_and_what_does_not_fit_is_kept_aside() {
        assert_eq!(std::mem::size_of::<Section>(), 8);
        let mut text = String::from("model = \"o3\"\n\n");
        for i in 0..200 {
            if i % 50 == 7 {
                text.push_str(&format!("# {}\n", "x".repeat(300)));
            }
            text.push_str(&format!("[k{i}.t]\nv = {i}\n\n"));
        }
        let (scanned, parsed) = both(&text);
        let (scanned, parsed) = (scanned.unwrap(), parsed.unwrap());
        assert_eq!(scanned.view(), parsed.view());
        assert!(scanned.spread.is_empty() && parsed.spread.is_empty());
        assert!(scanned.seen.is_empty() && parsed.seen.is_empty());
        // Keys 127..200, and the four long comments of keys under 127.
        assert_eq!(scanned.far.len(), 73 + 3);
        let v = scanned.view();
        assert_eq!(v.0[180].0, "k180");
        assert_eq!(
            &text[v.0[57].2..v.0[57].3],
            format!("\n# {}\n", "x".repeat(300))
        );
    }

    /// The tables of a group spread between others' are proven in one window: a key one
    /// defines and another redefines is refused as the whole text is, however far apart.
    #[test]
    fn a_spread_group_is_proven_in_one_window() {
        let filler: String = (0..40).map(|i| format!("[f.g{i}]\nx = 1\n\n")).collect();
        let bad = format!("[a.b]\nc = 1\n\n{filler}[a.b.c]\nd = 1\n");
        assert!(Document::parse(bad.clone()).is_err());
        assert!(
            proven(&bad).is_none(),
            "a conflict across windows was proven"
        );
        let good = format!(
            "[a.b]\nc = 1\n\n{filler}[a.b.e]\nd = 1\n\n{filler2}",
            filler2 = "[z]\n"
        );
        let (scanned, parsed) = both(&good);
        assert_eq!(scanned.unwrap().view(), parsed.unwrap().view());
    }
}
