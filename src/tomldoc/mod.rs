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
//! **Read and edited through windows.** Every table header starts with a top-level key, and
//! only the text before the first header and the tables whose header starts with a key can
//! hold anything below it; tables whose headers differ in their first two keys cannot define
//! the same key. So a file is proven (parsed, and given back byte for byte by `toml_edit`) a
//! window of table groups at a time (`layout::Layout::proves`, on the headers
//! `scan::scan` finds), and a top-level key's value is read from its own window when asked
//! for. An edit parses, edits and proves (`edit::Editor`) only the text before the first
//! header and the container's tables, in which each run of other tables stands as one empty
//! stand-in table (`[__mcpconf_stub_N]`, with the comments above the run kept in front of it,
//! so tables keep their order and comments their place); the stand-ins are then given their
//! bytes back. What the other tables hold cannot change: their bytes are copied, and nothing
//! in the window can be below their keys. A file of many `[projects."…"]` tables is so read
//! and edited in the memory of its bytes, its headers' layout and one window. Where the scan
//! does not follow the text, a window does not prove, or a stand-in's name is in the file, the
//! file is read whole (for its error, or as it is). A new container's first table goes at the
//! end of the file (`toml_edit` would put it after the table it visits last, which differs
//! only when tables of one key are spread between others').
//!
//! **One entry's window.** The same one level down: an edit of the entry `mcp_servers.X` is
//! first made in X's window (the text before the first header, the `[mcp_servers]` tables,
//! X's tables and those of the entry whose table is the container's last in the file, every
//! other run a stand-in), an entry's value is read from its own tables, and a table's kind
//! from its one-key tables. A new entry's table goes right after the last table of its
//! container in the file, in every window and in the whole text. Pure: no I/O.

mod convert;
mod edit;
mod layout;
mod pieces;
#[cfg(test)]
mod proptests;
mod scan;
#[cfg(test)]
mod tests;

pub use convert::{item_to_json, json_to_value, table_to_json, value_to_json};

use std::borrow::Cow;
use std::sync::{Arc, Mutex, OnceLock};

use rustc_hash::FxHashMap;
use serde_json::{Map, Value};
use toml_edit::Document;

use crate::diag::{Code, ReadError};
use crate::keyed::keyed_segment;
use crate::text::{Content, line_col};
use edit::Editor;
use layout::{Layout, STUB};
use pieces::Src;

const BOM: &str = "\u{feff}";

#[cfg(test)]
thread_local! {
    /// How many edits read a window smaller than the whole text (for the tests).
    static WINDOWED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// How many edits were made in an entry's window (for the tests).
    static CHILD_WINDOWED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// How many times a document scanned its text again (for the tests).
    static RESCANNED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A parsed TOML document. Its clones share the bytes, the layout and the values read until
/// one of them is edited (a plan keeps the document read beside the edited one).
#[derive(Debug, Clone)]
pub struct TomlDoc {
    /// The text as it is now, BOM and CRLF included: the bytes read, and after an edit the
    /// ranges of them the edits replaced (not joined: see [`Content::edited`]).
    text: Content,
    /// The text joined, once something asked for it as one slice ([`TomlDoc::bytes`]).
    joined: OnceLock<Arc<[u8]>>,
    bom: bool,
    crlf: bool,
    /// Where the table headers are in the text, shared by the document's clones (see
    /// [`Slot`]).
    layout: Arc<Mutex<Slot>>,
    /// The values of the top-level keys read so far (`None`: no such key).
    values: Arc<Mutex<Values>>,
    /// Whether every edit reads the whole text ([`TomlDoc::parse_whole`]).
    whole: bool,
}

/// Where a text's layout is. An edit takes the layout of the text it edits and makes it the new
/// text's in place (a copy would be a second layout of the file's size / 70 or so); the clones
/// that shared it, which keep the text as it was, scan that text again if they need it.
#[derive(Debug)]
enum Slot {
    /// Not known: the text is read whole.
    Whole,
    Here(Arc<Layout>),
    /// Given to an edit of a clone: the text is unchanged and proven, and is scanned again when
    /// its layout is needed.
    Lent,
}

impl Slot {
    fn of(layout: Option<Layout>) -> Arc<Mutex<Slot>> {
        Arc::new(Mutex::new(
            layout.map_or(Slot::Whole, |l| Slot::Here(Arc::new(l))),
        ))
    }
}

/// The values read so far: of top-level keys, and of entries of top-level tables (read from
/// their own tables, see [`Layout::child_value_of`]).
#[derive(Debug, Default, Clone)]
struct Values {
    tops: FxHashMap<String, Option<Arc<Value>>>,
    kids: FxHashMap<(String, String), Option<Arc<Value>>>,
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
        TomlDoc::read(bytes.to_vec(), false)
    }

    /// [`TomlDoc::parse`] taking ownership of the bytes, which the document then holds.
    pub fn parse_vec(bytes: Vec<u8>) -> Result<TomlDoc, ReadError> {
        TomlDoc::read(bytes, false)
    }

    fn read(bytes: Vec<u8>, whole: bool) -> Result<TomlDoc, ReadError> {
        let whole_text = crate::text::utf8(bytes)?;
        let text = whole_text.as_str();
        let (bom, text) = match text.strip_prefix(BOM) {
            Some(t) => (true, t),
            None => (false, text),
        };
        // An empty or blank file is an empty TOML document (Codex's own `codex mcp remove` of
        // its last server leaves a 0-byte `config.toml`); unlike JSON, nothing is missing.
        let crlf = crate::text::crlf(text)?;
        let lf = if crlf {
            Cow::Owned(text.replace("\r\n", "\n"))
        } else {
            Cow::Borrowed(text)
        };
        let layout = if whole || lf.contains(STUB) {
            None
        } else {
            scan::scan(&lf).and_then(|mut l| l.proves(&lf).then_some(l))
        };
        let mut values = Values::default();
        if layout.is_none() {
            // Read whole: for the error, or for a file the scan did not follow.
            for (k, v) in read_whole(&lf)? {
                values.tops.insert(k, Some(Arc::new(v)));
            }
        }
        Ok(TomlDoc {
            text: Content::shared(Arc::new(whole_text)),
            joined: OnceLock::new(),
            bom,
            crlf,
            layout: Slot::of(layout),
            values: Arc::new(Mutex::new(values)),
            whole,
        })
    }

    /// Parse as [`TomlDoc::parse`] does, but read the whole text with `toml_edit` and edit it
    /// whole (the reference the windows are tested against).
    #[doc(hidden)]
    pub fn parse_whole(bytes: &[u8]) -> Result<TomlDoc, ReadError> {
        TomlDoc::read(bytes.to_vec(), true)
    }

    /// An empty document (for a new file).
    pub fn empty() -> TomlDoc {
        TomlDoc {
            text: Content::shared(Arc::new(String::new())),
            joined: OnceLock::new(),
            bom: false,
            crlf: false,
            layout: Slot::of(Some(Layout::default())),
            values: Arc::default(),
            whole: false,
        }
    }

    /// The whole document as JSON (dates become strings, NaN/inf become null), built on demand
    /// from the whole text (costly for a big file: prefer [`TomlDoc::get`]).
    pub fn value(&self) -> Value {
        Value::Object(read_whole(&self.lf()).unwrap_or_default())
    }

    /// The value of the top-level key `key`, read from its window once.
    fn top(&self, key: &str) -> Option<Arc<Value>> {
        let mut values = self.values.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(v) = values.tops.get(key) {
            return v.clone();
        }
        let v = match self.layout() {
            Some(l) => l.value_of(self.lf_text().src(), key),
            None => read_whole(&self.lf()).ok().and_then(|mut m| m.remove(key)),
        }
        .map(Arc::new);
        values.tops.insert(key.to_string(), v.clone());
        v
    }

    /// The value of the entry `child` of the top-level table `key`, read from its own tables
    /// (`Err`: read `key` whole instead: its value is known, or not a table read so).
    fn kid(&self, key: &str, child: &str) -> Result<Option<Arc<Value>>, ()> {
        let mut values = self.values.lock().unwrap_or_else(|p| p.into_inner());
        if values.tops.contains_key(key) {
            return Err(());
        }
        let id = (key.to_string(), child.to_string());
        if let Some(v) = values.kids.get(&id) {
            return Ok(v.clone());
        }
        let Some(l) = self.layout() else {
            return Err(());
        };
        let v = l
            .child_value_of(self.lf_text().src(), key, child)?
            .map(Arc::new);
        values.kids.insert(id, v.clone());
        Ok(v)
    }

    /// [`TomlDoc::lookup`] for a caller that only needs the kind of the value: a top-level
    /// key's value is then read from its one-key tables, not from every table below it.
    pub fn shape(&self, path: &[String]) -> Option<Result<Value, &'static str>> {
        if let [key] = path
            && keyed_segment(key).is_none()
        {
            let known = self
                .values
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .tops
                .contains_key(key);
            if !known
                && let Some(l) = self.layout()
                && let Ok(v) = l.shape_of(self.lf_text().src(), key)
            {
                return v.map(Ok);
            }
        }
        self.lookup(path)
    }

    /// The value at a path of table keys, or the kind of what stands where a keyed list was
    /// expected (see [`crate::keyed::get_path`]); only the path's top-level key is read, and
    /// only the value found is copied.
    pub fn lookup(&self, path: &[String]) -> Option<Result<Value, &'static str>> {
        let Some((first, rest)) = path.split_first() else {
            return Some(Ok(self.value()));
        };
        if let Some((second, below)) = rest.split_first()
            && keyed_segment(first).is_none()
            && keyed_segment(second).is_none()
            && let Ok(v) = self.kid(first, second)
        {
            return crate::keyed::get_path(&*v?, below);
        }
        let key = keyed_segment(first).map_or(first.as_str(), |(k, _)| k);
        crate::keyed::get_below(&*self.top(key)?, first, rest)
    }

    /// The value at a path of table keys; a keyed-list segment (`mcp_servers[name]`, see
    /// [`crate::keyed`]) shows its list as an object, and one that is not a keyed list as
    /// nothing.
    pub fn get(&self, path: &[String]) -> Option<Value> {
        self.lookup(path)?.ok()
    }

    /// The bytes as they are now (after an edit, joined once when first asked for).
    pub fn bytes(&self) -> &[u8] {
        match self.text.as_str() {
            Some(s) => s.as_bytes(),
            None => self.joined.get_or_init(|| self.text.to_vec().into()),
        }
    }

    /// The bytes to write (BOM, CRLF and final newline as the input had them).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.text.to_vec()
    }

    /// The bytes to write, shared with this document (no copy): the bytes read with the
    /// ranges the edits replaced.
    pub fn content(&self) -> Content {
        self.text.clone()
    }

    /// The bytes to write, without a copy when no clone shares them and nothing was edited.
    pub fn into_bytes(self) -> Vec<u8> {
        self.text.into_vec()
    }

    /// Whether two documents hold the same bytes (without joining edited ones).
    pub fn same_bytes(&self, other: &TomlDoc) -> bool {
        self.text == other.text
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

    /// The text as it is now, with LF line endings and no BOM, as one string.
    fn lf(&self) -> Cow<'_, str> {
        let text = match self.text.as_str() {
            Some(s) => Cow::Borrowed(s),
            // Pieces of UTF-8 cut at character bounds: the lossy reading borrows.
            None => String::from_utf8_lossy(self.bytes()),
        };
        let skip = if self.bom { BOM.len() } else { 0 };
        match text {
            Cow::Borrowed(t) if !self.crlf => Cow::Borrowed(t.get(skip..).unwrap_or_default()),
            t if self.crlf => Cow::Owned(t.get(skip..).unwrap_or_default().replace("\r\n", "\n")),
            t => Cow::Owned(t.get(skip..).unwrap_or_default().to_string()),
        }
    }

    /// The text as it is now, with LF line endings and no BOM, for a layout to read: the
    /// content's pieces, or for a CRLF file the text read whole and converted.
    fn lf_text(&self) -> Lf<'_> {
        if self.crlf {
            Lf::Whole(self.lf())
        } else {
            Lf::Pieces(&self.text, if self.bom { BOM.len() } else { 0 })
        }
    }

    /// The text's layout (`None`: it is read whole), scanned again if an edit of a clone took
    /// it ([`Slot::Lent`]).
    fn layout(&self) -> Option<Arc<Layout>> {
        let mut slot = self.layout.lock().unwrap_or_else(|p| p.into_inner());
        match &*slot {
            Slot::Whole => None,
            Slot::Here(l) => Some(l.clone()),
            Slot::Lent => {
                let l = self.rescan().map(Arc::new);
                *slot = l.clone().map_or(Slot::Whole, Slot::Here);
                l
            }
        }
    }

    /// The text's layout for an edit to make the new text's: taken from the clones that share
    /// it (they scan their text again if they need it), copied only if one is reading it now.
    fn take_layout(&self) -> Option<Layout> {
        let mut slot = self.layout.lock().unwrap_or_else(|p| p.into_inner());
        match std::mem::replace(&mut *slot, Slot::Lent) {
            Slot::Whole => {
                *slot = Slot::Whole;
                None
            }
            Slot::Here(l) => Some(Arc::unwrap_or_clone(l)),
            Slot::Lent => self.rescan(),
        }
    }

    /// The layout of the text as it is now, scanned again (it was proven when read or made by
    /// an edit, which proves its window).
    fn rescan(&self) -> Option<Layout> {
        #[cfg(test)]
        RESCANNED.with(|w| w.set(w.get() + 1));
        let lf = self.lf();
        if lf.contains(STUB) {
            return None;
        }
        scan::scan(&lf).map(Layout::scanned)
    }

    fn edit(
        &mut self,
        container: &[String],
        name: &str,
        value: Option<&Value>,
    ) -> Result<(), ReadError> {
        let key = top_key(container, name);
        // The text read through a clone of the content, so that the layout can be taken out
        // and made the new text's in place when no other document shares it.
        let content = self.text.clone();
        let lf = match self.lf_text() {
            Lf::Pieces(_, skip) => Lf::Pieces(&content, skip),
            Lf::Whole(w) => Lf::Whole(Cow::Owned(w.into_owned())),
        };
        let src = lf.src();
        // An edit of one entry of a top-level table is first made in that entry's window; what
        // it cannot prove there (a table given a header, a refusal) is made in the table's.
        let held = self.layout();
        let child = match (&held, container) {
            (Some(layout), [c]) if keyed_segment(c).is_none() => layout
                .child_window(src, c, name)
                .and_then(
                    |(window, runs)| match edit_window(&window, container, name, value) {
                        Ok(Some((doc, now, false))) => Some((doc, now, runs)),
                        _ => None,
                    },
                ),
            _ => None,
        };
        let one = child.is_some();
        let (doc, now, runs) = match child {
            Some(done) => done,
            None => self.edit_in_window(held.as_deref(), src, key, container, name, value)?,
        };
        drop(held);
        #[cfg(test)]
        if one {
            CHILD_WINDOWED.with(|w| w.set(w.get() + 1));
        }
        #[cfg(test)]
        if !runs.is_empty() && !one {
            WINDOWED.with(|w| w.set(w.get() + 1));
        }
        let bug = || {
            err(
                Code::InternalEditError,
                "the edited window's stand-ins could not be found again; this is a bug, nothing was written".into(),
                1,
                1,
            )
        };
        let (edits, layout) = match self.take_layout() {
            Some(layout) => layout.restore(src, &doc, &runs),
            None => {
                let mut edits = Vec::new();
                pieces::push_edit(&mut edits, src, 0, src.len(), doc.raw())
                    .map(|()| (edits, Layout::of(&doc)))
            }
        }
        .ok_or_else(bug)?;
        // The new text: the edits made in the content's pieces, or for a CRLF file in the text
        // read whole, whose line ends are then given back.
        let text = match lf {
            Lf::Pieces(content, skip) => content
                .edited(
                    edits
                        .into_iter()
                        .map(|(lo, hi, mid)| (lo + skip, hi + skip, mid.into_bytes()))
                        .collect(),
                )
                .ok_or_else(bug)?,
            Lf::Whole(whole) => {
                let mut text = pieces::apply(&whole, &edits).replace('\n', "\r\n");
                if self.bom {
                    text.insert_str(0, BOM);
                }
                Content::shared(Arc::new(text))
            }
        };
        // The other keys' values are unchanged; this key's is the window's.
        let mut values = self
            .values
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let value = match now {
            Value::Object(mut m) => m.remove(key),
            _ => None,
        };
        if one {
            // The window held the entry and not the rest of the table: the entry's value is
            // known, the table's is read again when asked for.
            let kid = value.and_then(|mut v| v.as_object_mut()?.remove(name));
            values.tops.remove(key);
            values
                .kids
                .insert((key.to_string(), name.to_string()), kid.map(Arc::new));
        } else {
            values.kids.retain(|(k, _), _| k != key);
            values.tops.insert(key.to_string(), value.map(Arc::new));
        }
        self.values = Arc::new(Mutex::new(values));
        self.layout = Slot::of(layout.filter(|_| !self.whole));
        self.text = text;
        self.joined = OnceLock::new();
        Ok(())
    }

    /// The edit made in the window of the top-level key `key` (the whole text when that is
    /// all there is): the edited document, its value and the runs its stand-ins replace.
    fn edit_in_window(
        &self,
        layout: Option<&Layout>,
        src: Src<'_>,
        key: &str,
        container: &[String],
        name: &str,
        value: Option<&Value>,
    ) -> Result<(Document<String>, Value, Vec<layout::Run>), ReadError> {
        let whole = || src.get(0, src.len());
        let windowed = match layout {
            Some(layout) if container.len() == 1 => layout.window(src, key),
            _ => None,
        };
        let cannot = || {
            err(
                Code::CannotPreserve,
                "mcpconf cannot edit this TOML without reformatting it; this is a bug".into(),
                1,
                1,
            )
        };
        let (window, runs) = match windowed {
            Some(w) => w,
            None => (whole().ok_or_else(cannot)?, Vec::new()),
        };
        Ok(match edit_window(&window, container, name, value)? {
            Some((doc, now, false)) => (doc, now, runs),
            Some((doc, now, true)) if runs.is_empty() => (doc, now, runs),
            // A window toml_edit would not give back as it is, or an edit it would place by
            // what lies outside the window: the whole text.
            _ if !runs.is_empty() => {
                match edit_window(&whole().ok_or_else(cannot)?, container, name, value)? {
                    Some((doc, now, _)) => (doc, now, Vec::new()),
                    None => return Err(cannot()),
                }
            }
            _ => return Err(cannot()),
        })
    }
}

/// The LF text of a document ([`TomlDoc::lf_text`]).
enum Lf<'a> {
    /// The content's pieces after this many bytes (a byte order mark).
    Pieces(&'a Content, usize),
    /// One string.
    Whole(Cow<'a, str>),
}

impl Lf<'_> {
    fn src(&self) -> Src<'_> {
        match self {
            Lf::Pieces(c, skip) => Src::Pieces(c, *skip),
            Lf::Whole(s) => Src::Str(s),
        }
    }
}

/// The refusal of a text `toml_edit` does not parse: `duplicate-key` or `parse-error`, at the
/// error's position in `text`.
pub fn parse_error(e: &toml_edit::TomlError, text: &str) -> ReadError {
    let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
    let msg = e.message().trim().trim_end_matches('.').to_string();
    let code = if msg.contains("duplicate key") {
        Code::DuplicateKey
    } else {
        Code::ParseError
    };
    err(code, format!("invalid TOML: {msg}"), line, column)
}

/// Read the whole text with `toml_edit`: its top-level values, or why it cannot be read or
/// edited.
fn read_whole(lf: &str) -> Result<Map<String, Value>, ReadError> {
    let spanned = Document::parse(lf).map_err(|e| parse_error(&e, lf))?;
    let Some(ed) = Editor::new(spanned.into_mut(), lf) else {
        return Err(err(
            Code::CannotPreserve,
            "mcpconf cannot edit this TOML without reformatting it (e.g. dotted keys of one table interleaved with other keys); group those keys and try again".into(),
            1,
            1,
        ));
    };
    match ed.into_value() {
        Value::Object(m) => Ok(m),
        _ => Ok(Map::new()),
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
