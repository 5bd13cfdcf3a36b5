//! Format-preserving TOML documents (Codex's `config.toml`), on `toml_edit`.
//!
//! `toml_edit` keeps comments, key order and unknown keys, but its output differs from its
//! input in known ways: CRLF becomes LF, a BOM is dropped, a missing final newline is added.
//! Those are undone after rendering. Anything else it would change (interleaved dotted keys get
//! reordered) is refused before editing: parse → render must give back the input byte for byte,
//! or the file is not edited at all.
//!
//! Entries are tables `[<container>.<name>]` (never inline), placed after their last sibling;
//! their values arrive as neutral JSON and become TOML strings, arrays and inline tables.
//! Removing a table leaves the comment above the next table in place (it lives in the next
//! table's decoration), and keeps the comments above its own header (mcpconf writes none, so
//! they are someone else's): above the table that follows, or at the end.
//!
//! **An edit reads only its window.** Every table header starts with a top-level key, and only
//! the text before the first header and the tables whose header starts with the container's
//! first key (`mcp_servers`) can hold anything below that key. An edit parses, edits and
//! proves ([`edit::Editor`]) only that window, in which each run of other tables stands as one
//! empty stand-in table (`[__mcpconf_stub_N]`, with the comments above the run kept in front
//! of it, so tables keep their order and comments their place); the stand-ins are then given
//! their bytes back. What the other tables hold cannot change: their bytes are copied, and
//! nothing in the window can be below their keys. A file of many `[projects."…"]` tables is
//! so edited in the time and memory of its `mcp_servers` part plus one copy of its bytes.
//! Where the layout of the headers is not known (a span missing, a stand-in's name in the
//! file), the window is the whole file. Pure: no I/O.

mod convert;
mod edit;
#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

pub use convert::{item_to_json, json_to_value, table_to_json, value_to_json};

use std::borrow::Cow;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde_json::{Map, Value};
use toml_edit::{Document, Item};

use crate::diag::{Code, ReadError};
use crate::keyed::keyed_segment;
use crate::text::line_col;
use edit::Editor;

const BOM: &str = "\u{feff}";

#[cfg(test)]
thread_local! {
    /// How many edits read a window smaller than the whole text (for the tests).
    static WINDOWED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The name that stand-in tables start with (a file holding it anywhere is edited whole).
const STUB: &str = "__mcpconf_stub_";

/// A parsed TOML document. Its clones share the bytes, the values and the layout until one of
/// them is edited (a plan keeps the document read beside the edited one).
#[derive(Debug, Clone)]
pub struct TomlDoc {
    /// The bytes as they are now (as read, or after the last edit).
    bytes: Arc<Vec<u8>>,
    bom: bool,
    crlf: bool,
    top: Arc<Top>,
    /// Where the table headers are in the text (`None`: not known, edits read the whole text).
    layout: Option<Arc<Layout>>,
}

/// The document's value, by top-level key (in document order): an edit below one key replaces
/// that key's value and shares the others.
#[derive(Debug, Default, Clone)]
struct Top {
    keys: Vec<(String, Arc<Value>)>,
    at: FxHashMap<String, usize>,
}

impl Top {
    fn of(root: Value) -> Top {
        let mut top = Top::default();
        if let Value::Object(m) = root {
            for (k, v) in m {
                top.at.insert(k.clone(), top.keys.len());
                top.keys.push((k, Arc::new(v)));
            }
        }
        top
    }

    fn get(&self, key: &str) -> Option<&Value> {
        self.at.get(key).map(|&i| &*self.keys[i].1)
    }

    /// This value with `key`'s value replaced (`None`: removed; a new key comes last).
    fn with(&self, key: &str, value: Option<Value>) -> Top {
        let mut keys = self.keys.clone();
        match (self.at.get(key), value) {
            (Some(&i), Some(v)) => keys[i].1 = Arc::new(v),
            (Some(&i), None) => {
                keys.remove(i);
            }
            (None, Some(v)) => keys.push((key.to_string(), Arc::new(v))),
            (None, None) => {}
        }
        let at = keys
            .iter()
            .enumerate()
            .map(|(i, (k, _))| (k.clone(), i))
            .collect();
        Top { keys, at }
    }
}

/// Where each table header's part of the text lies, in document order. A part runs from the
/// comments and blank lines above its header (`begin`) to the next part's `begin`, the last
/// one to `tail` (the comments after the last table). The text before the first part holds
/// the top-level keys.
#[derive(Debug, Clone, PartialEq)]
struct Layout {
    sections: Vec<Section>,
    tail: usize,
    /// Whether the header `toml_edit` visits last (in key order, where it places a new
    /// container's first table) is the last in the text (`None`: not known).
    last_is_last: Option<bool>,
}

#[derive(Debug, Clone, PartialEq)]
struct Section {
    /// The top-level key the header starts with.
    top: String,
    begin: usize,
    /// Where the header's `[` is.
    header: usize,
}

impl Layout {
    /// The layout of a parsed text; `None` when a span is missing or out of order.
    fn of<S: AsRef<str>>(doc: &Document<S>) -> Option<Layout> {
        fn header(top: &str, t: &toml_edit::Table, out: &mut Vec<Section>) -> Option<()> {
            let header = t.span()?.start;
            let begin = match t.decor().prefix() {
                Some(p) => match p.span() {
                    Some(r) => r.start,
                    None if p.as_str().is_some_and(str::is_empty) => header,
                    None => return None,
                },
                None => header,
            };
            out.push(Section {
                top: top.to_string(),
                begin,
                header,
            });
            Some(())
        }
        fn walk(top: &str, item: &Item, out: &mut Vec<Section>) -> Option<()> {
            match item {
                Item::Table(t) => {
                    if !t.is_implicit() && !t.is_dotted() {
                        header(top, t, out)?;
                    }
                    for (_, i) in t.iter() {
                        walk(top, i, out)?;
                    }
                }
                Item::ArrayOfTables(a) => {
                    for t in a.iter() {
                        header(top, t, out)?;
                        for (_, i) in t.iter() {
                            walk(top, i, out)?;
                        }
                    }
                }
                Item::Value(_) | Item::None => {}
            }
            Some(())
        }
        let text = doc.raw();
        let mut sections = Vec::new();
        for (k, item) in doc.as_table().iter() {
            walk(k, item, &mut sections)?;
        }
        let visited_last = sections.last().map(|s| s.header);
        sections.sort_by_key(|s| s.header);
        let trailing = doc.trailing();
        let tail = match trailing.span() {
            Some(r) => r.start,
            None if trailing.as_str().is_some_and(str::is_empty) => text.len(),
            None => return None,
        };
        let mut at = 0;
        for s in &sections {
            if s.begin < at || s.header < s.begin {
                return None;
            }
            at = s.header + 1;
        }
        let last_is_last = Some(visited_last == sections.last().map(|s| s.header));
        (at <= tail && tail <= text.len()).then_some(Layout {
            sections,
            tail,
            last_is_last,
        })
    }

    /// Whether an edit below the top-level key `key` (`present`: in the document) may read
    /// only its window: `toml_edit` then places what it adds among the window's tables as it
    /// would in the whole text. A new table goes after the one visited before it in key order:
    /// one of `key`'s own tables when `key` has one; for a new `key`, the table visited last,
    /// which must be the last in the text (a key that only the top-level keys define has no
    /// table of its own and is edited whole).
    fn windowed(&self, key: &str, present: bool) -> bool {
        self.sections.iter().any(|s| s.top == key) || (!present && self.last_is_last == Some(true))
    }
}

/// A run of tables outside an edit's window: the bytes its stand-in replaces, and its
/// sections in the layout.
#[derive(Debug)]
struct Run {
    start: usize,
    end: usize,
    sections: std::ops::Range<usize>,
}

/// The window of `text` an edit below the top-level key `key` reads (see the module docs),
/// and the runs its stand-ins replace, in order.
fn window<'t>(text: &'t str, layout: &Layout, key: &str) -> (Cow<'t, str>, Vec<Run>) {
    let s = &layout.sections;
    if text.contains(STUB) || s.iter().all(|x| x.top == key) {
        return (Cow::Borrowed(text), Vec::new());
    }
    let mut w = String::new();
    let mut runs = Vec::new();
    let mut copied = 0;
    let mut i = 0;
    while i < s.len() {
        if s[i].top == key {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < s.len() && s[j].top != key {
            j += 1;
        }
        let (start, end) = (s[i].header, s.get(j).map_or(layout.tail, |x| x.begin));
        w.push_str(&text[copied..start]);
        w.push_str(&format!("[{STUB}{}]", runs.len()));
        if text[start..end].ends_with('\n') {
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
    w.push_str(&text[copied..]);
    (Cow::Owned(w), runs)
}

fn err(code: Code, message: String, line: usize, column: usize) -> ReadError {
    ReadError {
        code,
        message,
        line,
        column,
    }
}

/// The top-level key an edit of `container`.`name` is below.
fn top_key<'a>(container: &'a [String], name: &'a str) -> &'a str {
    match container.first() {
        Some(first) => keyed_segment(first).map_or(first.as_str(), |(k, _)| k),
        None => name,
    }
}

impl TomlDoc {
    /// Parse, failing closed (see the module docs).
    pub fn parse(bytes: &[u8]) -> Result<TomlDoc, ReadError> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let ok = &bytes[..e.valid_up_to()];
            let (line, column) = line_col(&String::from_utf8_lossy(ok), e.valid_up_to());
            err(
                Code::InvalidUtf8,
                format!(
                    "the file is not valid utf-8 (bad byte at offset {})",
                    e.valid_up_to()
                ),
                line,
                column,
            )
        })?;
        let (bom, text) = match text.strip_prefix(BOM) {
            Some(t) => (true, t),
            None => (false, text),
        };
        // An empty or blank file is an empty TOML document (Codex's own `codex mcp remove` of
        // its last server leaves a 0-byte `config.toml`); unlike JSON, nothing is missing.
        let crlf = text.contains("\r\n");
        if crlf && text.replace("\r\n", "").contains('\n') {
            return Err(err(
                Code::CannotPreserve,
                "the file mixes CRLF and LF line endings; mcpconf cannot edit it without changing them (make them consistent first)".into(),
                1,
                1,
            ));
        }
        let lf = if crlf {
            Cow::Owned(text.replace("\r\n", "\n"))
        } else {
            Cow::Borrowed(text)
        };
        let spanned = Document::parse(&*lf).map_err(|e: toml_edit::TomlError| {
            let (line, column) = e.span().map(|s| line_col(&lf, s.start)).unwrap_or((1, 1));
            let msg = e.message().trim().trim_end_matches('.').to_string();
            let code = if msg.contains("duplicate key") {
                Code::DuplicateKey
            } else {
                Code::ParseError
            };
            err(code, format!("invalid TOML: {msg}"), line, column)
        })?;
        let layout = Layout::of(&spanned).map(Arc::new);
        let Some(ed) = Editor::new(spanned.into_mut(), &lf) else {
            return Err(err(
                Code::CannotPreserve,
                "mcpconf cannot edit this TOML without reformatting it (e.g. dotted keys of one table interleaved with other keys); group those keys and try again".into(),
                1,
                1,
            ));
        };
        Ok(TomlDoc {
            bytes: Arc::new(bytes.to_vec()),
            bom,
            crlf,
            top: Arc::new(Top::of(ed.into_value())),
            layout,
        })
    }

    /// An empty document (for a new file).
    pub fn empty() -> TomlDoc {
        TomlDoc {
            bytes: Arc::new(Vec::new()),
            bom: false,
            crlf: false,
            top: Arc::new(Top::default()),
            layout: Some(Arc::new(Layout {
                sections: Vec::new(),
                tail: 0,
                last_is_last: Some(true),
            })),
        }
    }

    /// The whole document as JSON (dates become strings, NaN/inf become null), built on demand.
    pub fn value(&self) -> Value {
        Value::Object(
            self.top
                .keys
                .iter()
                .map(|(k, v)| (k.clone(), (**v).clone()))
                .collect(),
        )
    }

    /// The value at a path of table keys, or the kind of what stands where a keyed list was
    /// expected (see [`crate::keyed::get_path`]); only the path's top-level key is copied.
    pub fn lookup(&self, path: &[String]) -> Option<Result<Value, &'static str>> {
        let Some(first) = path.first() else {
            return Some(Ok(self.value()));
        };
        let key = keyed_segment(first).map_or(first.as_str(), |(k, _)| k);
        let one = Value::Object(Map::from_iter([(
            key.to_string(),
            self.top.get(key)?.clone(),
        )]));
        crate::keyed::get_path(&one, path)
    }

    /// The value at a path of table keys; a keyed-list segment (`mcp_servers[name]`, see
    /// [`crate::keyed`]) shows its list as an object, and one that is not a keyed list as
    /// nothing.
    pub fn get(&self, path: &[String]) -> Option<Value> {
        self.lookup(path)?.ok()
    }

    /// The bytes as they are now.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes to write (BOM, CRLF and final newline as the input had them).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.bytes.to_vec()
    }

    /// Set `[<container>.<name>]` to `value` (a JSON object), creating the container as an
    /// implicit table (no header line of its own).
    pub fn upsert(
        &mut self,
        container: &[String],
        name: &str,
        value: &Value,
    ) -> Result<(), ReadError> {
        self.edit(container, name, Some(value))
    }

    /// Remove `[<container>.<name>]`; an implicit container left empty disappears with it.
    pub fn remove(&mut self, container: &[String], name: &str) -> Result<(), ReadError> {
        self.edit(container, name, None)
    }

    /// The text as it is now, with LF line endings and no BOM.
    fn lf(&self) -> Result<Cow<'_, str>, ReadError> {
        let text = std::str::from_utf8(&self.bytes)
            .map_err(|_| err(Code::InternalEditError, "not utf-8; a bug".into(), 1, 1))?;
        let text = text.strip_prefix(BOM).unwrap_or(text);
        Ok(if self.crlf {
            Cow::Owned(text.replace("\r\n", "\n"))
        } else {
            Cow::Borrowed(text)
        })
    }

    fn edit(
        &mut self,
        container: &[String],
        name: &str,
        value: Option<&Value>,
    ) -> Result<(), ReadError> {
        let key = top_key(container, name);
        let lf = self.lf()?;
        let (window, runs) = match &self.layout {
            Some(layout)
                if container.len() == 1 && layout.windowed(key, self.top.get(key).is_some()) =>
            {
                window(&lf, layout, key)
            }
            _ => (Cow::Borrowed(&*lf), Vec::new()),
        };
        let cannot = || {
            err(
                Code::CannotPreserve,
                "mcpconf cannot edit this TOML without reformatting it; this is a bug".into(),
                1,
                1,
            )
        };
        let (doc, now, runs) = match edit_window(&window, container, name, value)? {
            Some((doc, now, false)) => (doc, now, runs),
            Some((doc, now, true)) if runs.is_empty() => (doc, now, runs),
            // A window toml_edit would not give back as it is, or an edit it would place by
            // what lies outside the window: the whole text.
            _ if !runs.is_empty() => match edit_window(&lf, container, name, value)? {
                Some((doc, now, _)) => (doc, now, Vec::new()),
                None => return Err(cannot()),
            },
            _ => return Err(cannot()),
        };
        #[cfg(test)]
        if !runs.is_empty() {
            WINDOWED.with(|w| w.set(w.get() + 1));
        }
        let layout = self.layout.as_deref();
        let Some((text, layout)) = restore(&lf, layout, &doc, &runs) else {
            return Err(err(
                Code::InternalEditError,
                "the edited window's stand-ins could not be found again; this is a bug, nothing was written".into(),
                1,
                1,
            ));
        };
        let mut text = if self.crlf {
            text.replace('\n', "\r\n")
        } else {
            text
        };
        if self.bom {
            text.insert_str(0, BOM);
        }
        let value = match now {
            Value::Object(mut m) => m.remove(key),
            _ => None,
        };
        self.top = Arc::new(self.top.with(key, value));
        self.layout = layout.map(Arc::new);
        self.bytes = Arc::new(text.into_bytes());
        Ok(())
    }
}

/// Edit `text` and prove the edit: the new text parsed (with its spans), its value, and
/// whether a table got a header without a place of its own ([`Editor::floating`]); `None`
/// when `toml_edit` would not give `text` back as it is.
fn edit_window(
    text: &str,
    container: &[String],
    name: &str,
    value: Option<&Value>,
) -> Result<Option<(Document<String>, Value, bool)>, ReadError> {
    let Ok(Some(mut ed)) = Editor::parse(text) else {
        return Ok(None);
    };
    let before = ed.value().clone();
    match value {
        Some(v) => ed.upsert(container, name, v)?,
        None => ed.remove(container, name)?,
    }
    let (doc, now) = ed.verified(&before, container, name, value)?;
    Ok(Some((doc, now, ed.floating)))
}

/// The whole new text from the edited window `doc` of `text` (laid out as `layout`), whose
/// stand-ins replaced the `runs` of `text`, and its layout (`None` if not known).
fn restore(
    text: &str,
    layout: Option<&Layout>,
    doc: &Document<String>,
    runs: &[Run],
) -> Option<(String, Option<Layout>)> {
    let out = doc.raw();
    let window = Layout::of(doc);
    if runs.is_empty() {
        return Some((out.to_string(), window));
    }
    // Each stand-in's header line, in order.
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
    // A stand-in ends with its line's newline when its run does (it was written so), unless
    // it ends the text, whose final newline was taken away: then so is the run's.
    let mut cut = vec![false; runs.len()];
    for ((stub, run), cut) in stubs.iter_mut().zip(runs).zip(&mut cut) {
        if text[run.start..run.end].ends_with('\n') {
            match out.as_bytes().get(stub.1) {
                Some(b'\n') => stub.1 += 1,
                None => *cut = true,
                Some(_) => return None,
            }
        }
    }
    let mut whole = String::with_capacity(text.len() + out.len());
    let mut copied = 0;
    for ((&(start, end, _), run), &cut) in stubs.iter().zip(runs).zip(&cut) {
        whole.push_str(&out[copied..start]);
        whole.push_str(&text[run.start..run.end - usize::from(cut)]);
        copied = end;
    }
    whole.push_str(&out[copied..]);
    // The whole text's layout: the window's, each stand-in giving way to its run's sections
    // (the first keeps the stand-in's `begin`: comments may have moved above it).
    let layout = layout.zip(window).and_then(|(old, w)| {
        let at = |x: usize, d: isize| x.checked_add_signed(d);
        let mut sections = Vec::with_capacity(old.sections.len() + 1);
        let mut shift: isize = 0;
        let mut next = stubs.iter().zip(runs).zip(&cut).peekable();
        for s in w.sections {
            match next.peek() {
                Some(&((&(start, end, _), run), &cut)) if s.header == start => {
                    next.next();
                    let delta = at(start, shift)? as isize - run.start as isize;
                    for (i, o) in old.sections[run.sections.clone()].iter().enumerate() {
                        sections.push(Section {
                            top: o.top.clone(),
                            begin: if i == 0 {
                                at(s.begin, shift)?
                            } else {
                                at(o.begin, delta)?
                            },
                            header: at(o.header, delta)?,
                        });
                    }
                    shift += (run.end - run.start) as isize - (end - start) as isize;
                    if cut {
                        shift -= 1;
                    }
                }
                _ => sections.push(Section {
                    top: s.top,
                    begin: at(s.begin, shift)?,
                    header: at(s.header, shift)?,
                }),
            }
        }
        let layout = Layout {
            sections,
            tail: at(w.tail, shift)?,
            last_is_last: None,
        };
        (next.peek().is_none() && layout.tail <= whole.len()).then_some(layout)
    });
    Some((whole, layout))
}
