//! The public types and the read-only queries of a parsed document.

use crate::diag::Code;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;

use crate::text::Content;

use super::parse::{MemSpan, Mode, ObjSpan, parse_core, parse_only};
use super::scan::{shallow, value_at};
use super::verify::moved;
use super::view::Region;

/// Deepest nesting of objects/arrays that is accepted (the root object is depth 1).
pub const MAX_DEPTH: usize = 128;

pub(super) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The dialect a config file is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// Strict RFC 8259 JSON: no comments, no trailing commas (`.cursor/mcp.json`, `~/.claude.json`).
    Json,
    /// JSON plus `//` and `/* */` comments; trailing commas are refused (Gemini settings).
    JsonComments,
    /// JSON plus comments and trailing commas (VS Code, Zed and generic JSONC).
    Jsonc,
}

impl Syntax {
    pub(super) fn comments(self) -> bool {
        !matches!(self, Syntax::Json)
    }
    pub(super) fn trailing_commas(self) -> bool {
        matches!(self, Syntax::Jsonc)
    }
}

/// Why a file was refused. `code` is stable and meant for programs; `message` is one lower-case
/// sentence for people. `line` and `column` are 1-based; `column` counts characters (not bytes) on
/// the line, after any BOM. A whole-file problem is reported at 1:1.
///
/// Codes: `invalid-utf8`, `empty-file`, `parse-error`, `duplicate-key`, `too-deep`, `not-an-object`.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadError {
    /// Stable machine-readable code.
    pub code: Code,
    /// One clear lower-case sentence.
    pub message: String,
    /// 1-based line of the offending token.
    pub line: usize,
    /// 1-based column (in characters) of the offending token.
    pub column: usize,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {} ({})",
            self.line, self.column, self.message, self.code
        )
    }
}

impl std::error::Error for ReadError {}

/// Why an edit was refused; the document is unchanged when this is returned.
///
/// Codes: `not-an-object` (a container on the path is not an object; position of that value),
/// `not-found` (remove: no such entry/container), `too-deep` (the result would nest deeper than
/// [`MAX_DEPTH`]), `invalid-hint` (an [`UndoHint`] holds non-whitespace), `internal-edit-error`
/// (the edited text did not re-parse to exactly the intended value; a bug, nothing was changed).
/// `line`/`column` are 1-based, or 1:1 when there is no meaningful position.
#[derive(Debug, Clone, PartialEq)]
pub struct EditError {
    /// Stable machine-readable code.
    pub code: Code,
    /// One clear lower-case sentence.
    pub message: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {} ({})",
            self.line, self.column, self.message, self.code
        )
    }
}

impl std::error::Error for EditError {}

/// What an [`JsonDoc::upsert`] did besides writing the entry, so that [`JsonDoc::remove`] can restore
/// the original bytes. Holds only key paths and whitespace, never values; meant to be persisted.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum UndoHint {
    /// The upsert created the object at `path` (and every object below it on the container path).
    /// Remove deletes such objects again when they have become empty.
    Created {
        /// Key path from the root to the created object.
        path: Vec<String>,
    },
    /// The object at `path` was empty and its inner text (between `{` and `}`) was `inner`, which is
    /// whitespace only. Remove restores it when the object is empty again.
    EmptyInner {
        /// Key path from the root to the object.
        path: Vec<String>,
        /// The original whitespace between the braces.
        inner: String,
    },
}

/// A parsed config file that can be edited without reformatting it.
///
/// Holds the file's text (shared, never copied when cloned) and the spans of the root object's
/// own members; values are built only for the parts that are read ([`JsonDoc::get`]).
#[derive(Debug, Clone)]
pub struct JsonDoc {
    pub(super) syntax: Syntax,
    /// The whole file, BOM included, as read; after edits, the file as it was before them,
    /// with `spliced` saying what replaced which of its bytes.
    pub(super) buf: Arc<String>,
    /// The edits' new bytes over `buf`, when the whole text was not built.
    pub(super) spliced: Option<Arc<Spliced>>,
    /// Where the JSON text starts in `buf` (3 after a BOM, else 0).
    pub(super) start: usize,
    /// The root object and its own members (`obj` is `None` for all of them).
    pub(super) root: ObjSpan,
    /// What read-only queries found so far (replaced, never shared, after an edit).
    pub(super) cache: Arc<Cache>,
}

/// One edited range of the bytes read: `buf[lo..hi]` became `mid`.
#[derive(Debug, Clone)]
pub(super) struct Part {
    pub(super) lo: usize,
    pub(super) hi: usize,
    pub(super) mid: String,
    /// What a later edit inside the object this part holds needs of the text around it (see
    /// `view`); `None`: a later edit there reads the whole text.
    pub(super) region: Option<Region>,
}

/// The text of a document after edits: `buf` with disjoint ranges replaced (the parts, in
/// order). The whole text is built only when a query needs it (`flat`), never to write the
/// file.
#[derive(Debug)]
pub(super) struct Spliced {
    pub(super) parts: Vec<Part>,
    flat: OnceLock<Arc<String>>,
}

/// Where a range of the whole text lies: in the bytes read or in a part's new bytes.
pub(super) enum Seg {
    Base,
    Part(usize),
}

impl Spliced {
    pub(super) fn new(parts: Vec<Part>) -> Spliced {
        Spliced {
            parts,
            flat: OnceLock::new(),
        }
    }

    /// A copy (of the parts, not of the file).
    pub(super) fn copy(&self) -> Spliced {
        Spliced::new(self.parts.clone())
    }

    /// Whether the whole text was built.
    #[cfg(test)]
    pub(super) fn is_built(&self) -> bool {
        self.flat.get().is_some()
    }

    /// Forgets the whole text built from earlier parts.
    pub(super) fn reset(&mut self) {
        self.flat = OnceLock::new();
    }

    /// Each part with its index, where it starts in the whole text, and how much the parts
    /// before it grew the text (a whole-text position between parts is its position in `buf`
    /// plus that).
    pub(super) fn placed(&self) -> impl Iterator<Item = (usize, &Part, usize, isize)> {
        self.parts.iter().enumerate().scan(0isize, |grown, (i, p)| {
            let before = *grown;
            *grown += p.mid.len() as isize - (p.hi - p.lo) as isize;
            Some((i, p, p.lo.saturating_add_signed(before), before))
        })
    }

    /// How much all the parts grew the text (negative: shrank it).
    pub(super) fn grown(&self) -> isize {
        self.parts
            .iter()
            .map(|p| p.mid.len() as isize - (p.hi - p.lo) as isize)
            .sum()
    }

    /// Where part `i` starts in the whole text.
    pub(super) fn start_of(&self, i: usize) -> usize {
        self.placed().nth(i).map_or(0, |(_, _, start, _)| start)
    }

    /// The segment that holds the whole-text range `a..z` and `d` such that whole-text
    /// position `p` is `p + d` in it (in `buf` for [`Seg::Base`], in the part's `mid`).
    pub(super) fn seg(&self, a: usize, z: usize) -> Option<(Seg, isize)> {
        let mut base_from = 0usize;
        for (i, p, start, before) in self.placed() {
            if z <= start {
                return (a >= base_from.saturating_add_signed(before))
                    .then_some((Seg::Base, -before));
            }
            let end = start + p.mid.len();
            if a >= start && z <= end {
                return Some((Seg::Part(i), -(start as isize)));
            }
            if a < end {
                return None;
            }
            base_from = p.hi;
        }
        let grown = self.grown();
        (a >= base_from.saturating_add_signed(grown)).then_some((Seg::Base, -grown))
    }

    /// The whole-text position of base position `p` outside every part.
    pub(super) fn whole_of(&self, p: usize) -> usize {
        let before = self
            .placed()
            .find(|(_, q, _, _)| q.lo >= p)
            .map_or_else(|| self.grown(), |(_, _, _, before)| before);
        p.saturating_add_signed(before)
    }

    /// The base position of whole-text position `p` outside every part (at a part's start
    /// or end its `lo` or `hi`; `None` strictly inside one).
    pub(super) fn to_base(&self, p: usize) -> Option<usize> {
        for (_, q, start, before) in self.placed() {
            if p <= start {
                return Some(p.saturating_add_signed(-before));
            }
            if p < start + q.mid.len() {
                return None;
            }
        }
        Some(p.saturating_add_signed(-self.grown()))
    }
}

/// Indexes built on demand by the read-only queries, so that looking up each of n entries of
/// one object costs O(1) instead of a scan of the object (and a location costs O(log lines)
/// instead of a count of the lines before it). Valid for one text only: an edit replaces it.
#[derive(Debug, Default)]
pub(super) struct Cache {
    /// Objects below the root that were looked up, by key path, with their members by key.
    objs: Mutex<HashMap<Vec<String>, Arc<Indexed>>>,
    /// The root's members by key.
    root_keys: OnceLock<HashMap<String, usize>>,
    /// Byte offsets where the lines of the text start.
    lines: OnceLock<Vec<usize>>,
}

/// An object's members with an index by key.
#[derive(Debug)]
pub(super) struct Indexed {
    pub(super) span: ObjSpan,
    by_key: HashMap<String, usize>,
}

impl Indexed {
    fn new(span: ObjSpan) -> Indexed {
        let by_key = key_index(&span);
        Indexed { span, by_key }
    }

    fn member(&self, key: &str) -> Option<&MemSpan> {
        self.by_key.get(key).and_then(|&i| self.span.members.get(i))
    }
}

fn key_index(o: &ObjSpan) -> HashMap<String, usize> {
    o.members
        .iter()
        .enumerate()
        .map(|(i, m)| (m.key.clone(), i))
        .collect()
}

/// At most this many objects are kept in a document's cache (a walk over every project of a
/// big `~/.claude.json` must not hold them all).
const CACHED_OBJECTS: usize = 64;

impl JsonDoc {
    /// Parses `bytes` (optionally starting with a UTF-8 BOM) in the given syntax, refusing anything
    /// ambiguous or invalid; see [`ReadError`] for the codes.
    pub fn parse(bytes: &[u8], syntax: Syntax) -> Result<JsonDoc, ReadError> {
        JsonDoc::parse_vec(bytes.to_vec(), syntax)
    }

    /// [`JsonDoc::parse`] taking ownership of the bytes (no copy of the text is made).
    ///
    /// The whole text is validated by one non-recursive pass that builds nothing but the keys of
    /// the objects being read (for the duplicate check) and the root's member spans. serde_json
    /// reads what an edit changes (the edited object), not the whole file: the property tests
    /// prove that it accepts, with the same value, every text this parser accepts.
    pub fn parse_vec(bytes: Vec<u8>, syntax: Syntax) -> Result<JsonDoc, ReadError> {
        Self::parse_with(bytes, syntax)
    }

    /// [`JsonDoc::parse_vec`] for a document that is only read, never edited (`lint`); the
    /// same parse (kept for callers that name it).
    pub fn parse_for_reading(bytes: Vec<u8>, syntax: Syntax) -> Result<JsonDoc, ReadError> {
        Self::parse_with(bytes, syntax)
    }

    fn parse_with(bytes: Vec<u8>, syntax: Syntax) -> Result<JsonDoc, ReadError> {
        let (buf, start) = decode_text(bytes)?;
        let text = buf.get(start..).unwrap_or("");
        let parsed = parse_core(text, syntax, Mode::VALIDATE)?;
        let Some(root) = parsed.tree.objs.into_iter().next() else {
            return Err(ReadError {
                code: Code::NotAnObject,
                message: "the top level of the file must be an object".into(),
                line: 1,
                column: 1,
            });
        };
        Ok(JsonDoc {
            syntax,
            buf: Arc::new(buf),
            spliced: None,
            start,
            root,
            cache: Arc::default(),
        })
    }

    /// The text after the BOM.
    pub fn text(&self) -> &str {
        self.whole().get(self.start..).unwrap_or("")
    }

    /// The whole file as one buffer: built (once) when an edit left it spliced.
    pub(super) fn whole(&self) -> &Arc<String> {
        let Some(sp) = &self.spliced else {
            return &self.buf;
        };
        sp.flat.get_or_init(|| {
            let b = self.buf.as_str();
            let mut s = String::with_capacity(b.len().saturating_add_signed(sp.grown()));
            let mut at = 0;
            for p in &sp.parts {
                s.push_str(b.get(at..p.lo).unwrap_or(""));
                s.push_str(&p.mid);
                at = p.hi;
            }
            s.push_str(b.get(at..).unwrap_or(""));
            Arc::new(s)
        })
    }

    /// The whole root value, built on demand (costly for a big file: prefer [`JsonDoc::get`]).
    pub fn value(&self) -> Value {
        parse_only(self.text(), self.syntax)
            .map(|p| p.root)
            .unwrap_or(Value::Null)
    }

    /// The syntax this document was parsed with.
    pub fn syntax(&self) -> Syntax {
        self.syntax
    }

    /// Byte span (in the text) of the value at a key path (`[]` is the root).
    fn span_of(&self, path: &[String]) -> Option<(usize, usize)> {
        let Some((last, parents)) = path.split_last() else {
            return Some((self.root.open, self.root.close + 1));
        };
        let (a, z) = self.member_at(parents, last, |m| (m.value_start, m.value_end))?;
        let (t, d) = self.local(a, z)?;
        Some((a, z)).filter(|&(a, z)| t.get(at(a, d)..at(z, d)).is_some())
    }

    /// The text `a..z` (offsets in the text) as part of one buffer, without building the whole
    /// text of an edited document when the range lies before, inside or after its edited
    /// object: the buffer and `d` such that `text[a..z]` is `buffer[a + d..z + d]`.
    fn local(&self, a: usize, z: usize) -> Option<(&str, isize)> {
        let Some(sp) = self.spliced.as_ref().filter(|sp| sp.flat.get().is_none()) else {
            return Some((self.text(), 0));
        };
        let s = self.start;
        let (ba, bz) = (s.checked_add(a)?, s.checked_add(z)?);
        Some(match sp.seg(ba, bz) {
            Some((Seg::Base, d)) => (self.buf.as_str(), s as isize + d),
            Some((Seg::Part(i), d)) => (sp.parts.get(i)?.mid.as_str(), s as isize + d),
            None => (self.text(), 0),
        })
    }

    /// `f` of the member `key` of the object at `path`, through the cached indexes.
    fn member_at<T>(&self, path: &[String], key: &str, f: impl FnOnce(&MemSpan) -> T) -> Option<T> {
        if path.is_empty() {
            let keys = self.cache.root_keys.get_or_init(|| key_index(&self.root));
            return keys.get(key).and_then(|&i| self.root.members.get(i)).map(f);
        }
        let obj = self.obj_at(path)?;
        obj.member(key).map(f)
    }

    /// The object at a non-empty key path, with its own members, indexed (cached).
    fn obj_at(&self, path: &[String]) -> Option<Arc<Indexed>> {
        let (last, parents) = path.split_last()?;
        if let Ok(objs) = self.cache.objs.lock()
            && let Some(o) = objs.get(path)
        {
            return Some(o.clone());
        }
        let (start, end) = if parents.is_empty() {
            let keys = self.cache.root_keys.get_or_init(|| key_index(&self.root));
            let m = keys.get(last).and_then(|&i| self.root.members.get(i))?;
            (m.value_start, m.value_end)
        } else {
            let parent = self.obj_at(parents)?;
            let m = parent.member(last)?;
            (m.value_start, m.value_end)
        };
        // Read from the buffer that holds it, then moved to offsets in the text.
        let (t, d) = self.local(start, end)?;
        let span = shallow(t, at(start, d), self.syntax, None)?;
        let obj = Arc::new(Indexed::new(moved(span, 0, -d)));
        if let Ok(mut objs) = self.cache.objs.lock() {
            if objs.len() >= CACHED_OBJECTS {
                objs.clear();
            }
            objs.insert(path.to_vec(), obj.clone());
        }
        Some(obj)
    }

    /// The value at a key path (`[]` is the root), if every step exists and is an object. Only
    /// that value is built.
    pub fn get(&self, path: &[String]) -> Option<Value> {
        let (a, z) = self.span_of(path)?;
        let (t, d) = self.local(a, z)?;
        value_at(t, at(a, d), at(z, d), self.syntax)
    }

    /// What kind of value is at a key path (`"an object"`, `"an array"`, `"a string"`,
    /// `"a number"`, `"a boolean"` or `"null"`), without building it.
    pub fn kind(&self, path: &[String]) -> Option<&'static str> {
        let (a, _) = self.span_of(path)?;
        let (t, d) = self.local(a, a + 1)?;
        Some(match t.as_bytes().get(at(a, d))? {
            b'{' => "an object",
            b'[' => "an array",
            b'"' => "a string",
            b't' | b'f' => "a boolean",
            b'n' => "null",
            _ => "a number",
        })
    }

    /// Index of `name` among the members of the object at `container`, in document order.
    pub fn position(&self, container: &[String], name: &str) -> Option<usize> {
        if container.is_empty() {
            let keys = self.cache.root_keys.get_or_init(|| key_index(&self.root));
            return keys.get(name).copied();
        }
        self.obj_at(container)?.by_key.get(name).copied()
    }

    /// How many members the object at `container` has (`None`: no object there).
    pub fn member_count(&self, container: &[String]) -> Option<usize> {
        if container.is_empty() {
            return Some(self.root.members.len());
        }
        Some(self.obj_at(container)?.span.members.len())
    }

    /// Byte range (in the text after the BOM) of the value of the member at `path` (a non-empty
    /// key path), if it exists.
    pub fn value_span(&self, path: &[String]) -> Option<(usize, usize)> {
        let (last, parents) = path.split_last()?;
        self.member_at(parents, last, |m| (m.value_start, m.value_end))
    }

    /// The text of the value of the member at `path` (a non-empty key path), as written,
    /// without building the whole text of an edited document.
    pub fn value_text(&self, path: &[String]) -> Option<std::borrow::Cow<'_, str>> {
        let (a, z) = self.value_span(path)?;
        self.read(a, z)
    }

    /// 1-based line and column of the key of the member at `path` (a non-empty key path), if it
    /// exists; used to point errors such as a conflict at the entry itself.
    pub fn location(&self, path: &[String]) -> Option<(usize, usize)> {
        let (last, parents) = path.split_last()?;
        let at = self.member_at(parents, last, |m| m.key_start)?;
        Some(self.line_col(at))
    }

    /// [`line_col`] of an offset in the text, through a cached table of line starts.
    fn line_col(&self, at: usize) -> (usize, usize) {
        let text = self.text();
        let lines = self.cache.lines.get_or_init(|| {
            std::iter::once(0)
                .chain(
                    text.bytes()
                        .enumerate()
                        .filter(|&(_, c)| c == b'\n')
                        .map(|(i, _)| i + 1),
                )
                .collect()
        });
        let mut at = at.min(text.len());
        while at > 0 && !text.is_char_boundary(at) {
            at -= 1;
        }
        let line = lines.partition_point(|&s| s <= at).max(1);
        let start = lines.get(line - 1).copied().unwrap_or(0);
        let column = text.get(start..at).map_or(0, |s| s.chars().count()) + 1;
        (line, column)
    }

    /// The file's bytes: the BOM (if the input had one) followed by the current text.
    pub fn bytes(&self) -> &[u8] {
        self.whole().as_bytes()
    }

    /// The file's bytes, as a new vector.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.content().to_vec()
    }

    /// The file's bytes, without a copy when this document is their only holder.
    pub fn into_bytes(self) -> Vec<u8> {
        if self.spliced.is_some() {
            return self.to_bytes();
        }
        Arc::try_unwrap(self.buf).map_or_else(|b| b.as_bytes().to_vec(), String::into_bytes)
    }

    /// The file's bytes to write, sharing the bytes read: after an edit below the root, the
    /// file before it plus the edited object's new bytes (no copy of the whole file).
    pub fn content(&self) -> Content {
        match &self.spliced {
            Some(sp) => {
                let parts = sp
                    .parts
                    .iter()
                    .map(|p| (p.lo, p.hi, p.mid.as_bytes().to_vec()))
                    .collect();
                Content::replaced(self.buf.clone(), parts)
                    .unwrap_or_else(|| Content::shared(self.whole().clone()))
            }
            None => Content::shared(self.buf.clone()),
        }
    }

    /// Whether two documents hold the same bytes (cheap when one is a clone of the other, or
    /// an edit below the root of it).
    pub fn same_bytes(&self, other: &JsonDoc) -> bool {
        match (&self.spliced, &other.spliced) {
            (None, None) => Arc::ptr_eq(&self.buf, &other.buf) || self.buf == other.buf,
            (Some(sp), None) | (None, Some(sp)) if Arc::ptr_eq(&self.buf, &other.buf) => sp
                .parts
                .iter()
                .all(|p| self.buf.get(p.lo..p.hi) == Some(p.mid.as_str())),
            _ => self.whole() == other.whole(),
        }
    }
}

/// `p` moved by `d` (an offset in the text to one in the buffer [`JsonDoc::local`] names).
fn at(p: usize, d: isize) -> usize {
    p.saturating_add_signed(d)
}

/// The text of a file's bytes and where the JSON starts in it (after a UTF-8 BOM); refuses
/// bytes that are not UTF-8, with the position of the first bad one.
pub(super) fn decode_text(bytes: Vec<u8>) -> Result<(String, usize), ReadError> {
    let start = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
    // A fast (SIMD) check first; std's gives the position of a bad byte.
    let checked = simdutf8::basic::from_utf8(&bytes).is_ok();
    let buf = match if checked {
        // SAFETY: `bytes` was just checked to be valid UTF-8.
        Ok(unsafe { String::from_utf8_unchecked(bytes) })
    } else {
        String::from_utf8(bytes)
    } {
        Ok(t) => t,
        Err(e) => {
            let body = e.as_bytes().get(start..).unwrap_or(&[]);
            let at = e.utf8_error().valid_up_to().saturating_sub(start);
            let (line, column) = body
                .get(..at)
                .and_then(|p| std::str::from_utf8(p).ok())
                .map_or((1, 1), |p| line_col(p, at));
            return Err(ReadError {
                code: Code::InvalidUtf8,
                message: format!("the file is not valid UTF-8 (bad byte at offset {at})"),
                line,
                column,
            });
        }
    };
    Ok((buf, start))
}

// ---------------------------------------------------------------------------------------------
// Errors and positions
// ---------------------------------------------------------------------------------------------

pub(super) use crate::text::line_col;

pub(super) fn edit_err_at(code: Code, message: String, line: usize, column: usize) -> EditError {
    EditError {
        code,
        message,
        line,
        column,
    }
}

pub(super) fn internal(what: &str) -> EditError {
    edit_err_at(
        Code::InternalEditError,
        format!("the edit was not applied because it did not verify ({what}); this is a bug"),
        1,
        1,
    )
}

pub(super) fn show_path(path: &[String]) -> String {
    if path.is_empty() {
        "(root)".to_owned()
    } else {
        path.join(".")
    }
}
