//! Byte-preserving reading and editing of JSON / JSONC agent config files.
//!
//! # What this module owns
//!
//! * **Reading, fail closed.** [`JsonDoc::parse`] runs a small, strict, *iterative* (never recursive)
//!   parser written for this module. It accepts exactly RFC 8259 JSON plus, depending on [`Syntax`],
//!   `//` / `/* */` comments and trailing commas. Everything else (single quotes, unquoted keys, hex,
//!   `+1`, `.5`, `NaN`, lone surrogates, raw control characters, trailing data, …) is refused with a
//!   stable [`ReadError::code`] and the 1-based line/column of the offending token. It also refuses
//!   duplicate keys at any depth (JSON readers silently keep one of them), nesting deeper than
//!   [`MAX_DEPTH`], and a root that is not an object. A leading UTF-8 BOM is accepted and re-emitted.
//!   As defence in depth, every accepted text is parsed a second time by `serde_json` (after
//!   comments and trailing commas are blanked to spaces, which keeps all offsets) and both values must
//!   agree.
//! * **Editing by splicing.** The parser records the byte span of every object, key, value and comma.
//!   [`JsonDoc::upsert`] and [`JsonDoc::remove`] compute a few `(range, replacement)` splices from those
//!   spans, so only the bytes of the entry being changed (plus, at most, one separator comma) differ
//!   afterwards. Comments, key order, number spellings, string escapes, indentation, line endings and
//!   the BOM of everything else stay byte-for-byte. New text follows the file's style: indentation unit,
//!   newline kind, `":"` spacing, trailing-comma use, and one-line vs multi-line layout of the object.
//! * **Exact undo.** An upsert that creates containers or fills an empty object returns [`UndoHint`]s
//!   (structure and whitespace only, never values) so that the matching [`JsonDoc::remove`] restores the
//!   original bytes exactly.
//! * **Verification.** After every edit the new text is re-parsed with the same [`Syntax`] and its value
//!   must equal the old value with exactly the intended change (compared in place, without cloning the
//!   root), and the serde_json cross-check must pass; otherwise the edit is refused with
//!   `internal-edit-error` and the document is left untouched.
//!
//! # Numbers
//!
//! Floats are read with Rust's correctly rounded parser (what `JSON.parse` gives the agent apps), so a
//! float written by an upsert (shortest round-trip spelling) always reads back identically. serde_json
//! without `float_roundtrip` can be one ulp off; the cross-check tolerates a few ulps for that reason.
//! A number outside the `f64` range (`1e400`) is refused as `parse-error`.
//!
//! # What it must never do
//!
//! No I/O, no panics (no `unwrap`, no unchecked indexing on input-derived positions), no unbounded
//! recursion on input, and no reformatting of bytes the user wrote.

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Number, Value};

/// Deepest nesting of objects/arrays that is accepted (the root object is depth 1).
pub const MAX_DEPTH: usize = 128;

const BOM: &[u8] = b"\xEF\xBB\xBF";

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
    fn comments(self) -> bool {
        !matches!(self, Syntax::Json)
    }
    fn trailing_commas(self) -> bool {
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
    pub code: &'static str,
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
    pub code: &'static str,
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
    syntax: Syntax,
    /// The whole file, BOM included.
    buf: Arc<String>,
    /// Where the JSON text starts in `buf` (3 after a BOM, else 0).
    start: usize,
    /// The root object and its own members (`obj` is `None` for all of them).
    root: ObjSpan,
}

/// What an edit must have done to the member at the end of its key path.
#[derive(Clone, Copy)]
enum Expect<'v> {
    Set(&'v Value),
    Removed,
    Same,
}

impl JsonDoc {
    /// Parses `bytes` (optionally starting with a UTF-8 BOM) in the given syntax, refusing anything
    /// ambiguous or invalid; see [`ReadError`] for the codes.
    pub fn parse(bytes: &[u8], syntax: Syntax) -> Result<JsonDoc, ReadError> {
        JsonDoc::parse_vec(bytes.to_vec(), syntax)
    }

    /// [`JsonDoc::parse`] taking ownership of the bytes (no copy of the text is made).
    ///
    /// The whole text is validated by one non-recursive pass that builds nothing but the keys of
    /// the objects being read (for the duplicate check) and the root's member spans; serde_json
    /// must accept the same text (defence in depth).
    pub fn parse_vec(bytes: Vec<u8>, syntax: Syntax) -> Result<JsonDoc, ReadError> {
        Self::parse_with(bytes, syntax, true)
    }

    /// [`JsonDoc::parse_vec`] for a document that is only read, never edited (`lint`): the
    /// same strict parse and refusals, without serde_json's second opinion, which guards edits.
    pub fn parse_for_reading(bytes: Vec<u8>, syntax: Syntax) -> Result<JsonDoc, ReadError> {
        Self::parse_with(bytes, syntax, false)
    }

    fn parse_with(
        bytes: Vec<u8>,
        syntax: Syntax,
        second_opinion: bool,
    ) -> Result<JsonDoc, ReadError> {
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
                    code: "invalid-utf8",
                    message: format!("the file is not valid utf-8 (bad byte at offset {at})"),
                    line,
                    column,
                });
            }
        };
        let text = buf.get(start..).unwrap_or("");
        let parsed = parse_core(text, syntax, Mode::VALIDATE)?;
        if second_opinion && text.len() <= SERDE_WHOLE_FILE {
            serde_accepts(text, &parsed.blanks)?;
        }
        let Some(root) = parsed.tree.objs.into_iter().next() else {
            return Err(ReadError {
                code: "not-an-object",
                message: "the top level of the file must be an object".into(),
                line: 1,
                column: 1,
            });
        };
        Ok(JsonDoc {
            syntax,
            buf: Arc::new(buf),
            start,
            root,
        })
    }

    /// The text after the BOM.
    pub fn text(&self) -> &str {
        self.buf.get(self.start..).unwrap_or("")
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
        let text = self.text();
        let Some((last, parents)) = path.split_last() else {
            return Some((self.root.open, self.root.close + 1));
        };
        let obj = self.obj_at(parents)?;
        let m = obj.members.iter().find(|m| &m.key == last)?;
        Some((m.value_start, m.value_end)).filter(|&(a, z)| text.get(a..z).is_some())
    }

    /// The object at a key path, with its own members.
    fn obj_at(&self, path: &[String]) -> Option<ObjSpan> {
        let text = self.text();
        let mut obj = self.root.clone();
        for key in path {
            let m = obj.members.iter().find(|m| &m.key == key)?;
            obj = shallow(text, m.value_start, self.syntax, None)?;
        }
        Some(obj)
    }

    /// The value at a key path (`[]` is the root), if every step exists and is an object. Only
    /// that value is built.
    pub fn get(&self, path: &[String]) -> Option<Value> {
        let (a, z) = self.span_of(path)?;
        value_at(self.text(), a, z, self.syntax)
    }

    /// What kind of value is at a key path (`"an object"`, `"an array"`, `"a string"`,
    /// `"a number"`, `"a boolean"` or `"null"`), without building it.
    pub fn kind(&self, path: &[String]) -> Option<&'static str> {
        let (a, _) = self.span_of(path)?;
        Some(match self.text().as_bytes().get(a)? {
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
        self.obj_at(container)?
            .members
            .iter()
            .position(|m| m.key == name)
    }

    /// Byte range (in the text after the BOM) of the value of the member at `path` (a non-empty
    /// key path), if it exists.
    pub fn value_span(&self, path: &[String]) -> Option<(usize, usize)> {
        let (last, parents) = path.split_last()?;
        let obj = self.obj_at(parents)?;
        let m = obj.members.iter().find(|m| &m.key == last)?;
        Some((m.value_start, m.value_end))
    }

    /// 1-based line and column of the key of the member at `path` (a non-empty key path), if it
    /// exists; used to point errors such as a conflict at the entry itself.
    pub fn location(&self, path: &[String]) -> Option<(usize, usize)> {
        let (last, parents) = path.split_last()?;
        let obj = self.obj_at(parents)?;
        let m = obj.members.iter().find(|m| &m.key == last)?;
        Some(line_col(self.text(), m.key_start))
    }

    /// The file's bytes: the BOM (if the input had one) followed by the current text.
    pub fn bytes(&self) -> &[u8] {
        self.buf.as_bytes()
    }

    /// The file's bytes, as a new vector.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.buf.as_bytes().to_vec()
    }

    /// The file's bytes, without a copy when this document is their only holder.
    pub fn into_bytes(self) -> Vec<u8> {
        Arc::try_unwrap(self.buf).map_or_else(|b| b.as_bytes().to_vec(), String::into_bytes)
    }

    /// Whether two documents hold the same bytes (cheap when one is a clone of the other).
    pub fn same_bytes(&self, other: &JsonDoc) -> bool {
        Arc::ptr_eq(&self.buf, &other.buf) || self.buf == other.buf
    }

    /// Sets `name` inside the object at key path `container` (e.g. `["mcpServers"]` or
    /// `["projects", "/abs/dir", "mcpServers"]`), creating missing containers as objects.
    ///
    /// If `name` exists only its value's bytes are replaced; otherwise the entry is appended after the
    /// last entry, in the object's layout (one-line or multi-line) and the file's indentation, newline,
    /// colon spacing and trailing-comma style. Returns the hints that [`JsonDoc::remove`] needs to
    /// restore the exact original bytes (empty when nothing had to be created).
    ///
    /// Errors: `not-an-object` if a container on the path exists but is not an object, `too-deep`,
    /// `internal-edit-error`. On error the document is unchanged.
    pub fn upsert(
        &mut self,
        container: &[String],
        name: &str,
        value: &Value,
    ) -> Result<Vec<UndoHint>, EditError> {
        let depth = container.len() + 1 + value_depth(value);
        if depth > MAX_DEPTH {
            return Err(edit_err_at(
                "too-deep",
                format!(
                    "the entry would be nested {depth} levels deep, more than the limit of {MAX_DEPTH}"
                ),
                1,
                1,
            ));
        }
        let text = self.text();
        let tree = spine(text, &self.root, container, self.syntax);
        // Walk the existing part of the container path.
        let mut obj = 0usize;
        let mut existing = 0usize;
        for key in container {
            let Some(o) = tree.objs.get(obj) else {
                return Err(internal("object index out of range"));
            };
            match o.members.iter().find(|m| &m.key == key) {
                Some(m) => match m.obj {
                    Some(child) => {
                        obj = child;
                        existing += 1;
                    }
                    None => {
                        let (line, column) = line_col(text, m.value_start);
                        return Err(edit_err_at(
                            "not-an-object",
                            format!(
                                "`{}` is not an object, so the entry cannot be added inside it",
                                show_path(container.get(..=existing).unwrap_or(container))
                            ),
                            line,
                            column,
                        ));
                    }
                },
                None => break,
            }
        }
        let style = Style::detect(text, self.syntax);
        let mut hints = Vec::new();
        let splices;
        if existing == container.len() {
            let Some(o) = tree.objs.get(obj) else {
                return Err(internal("object index out of range"));
            };
            if let Some(m) = o.members.iter().find(|m| m.key == name) {
                if value_at(text, m.value_start, m.value_end, self.syntax).as_ref() == Some(value) {
                    // Already there: leave the user's spelling of it alone.
                    return Ok(hints);
                }
                // Replace the value only.
                let layout = Layout::for_object(text, &tree, obj);
                let indent = own_line_indent(text.as_bytes(), m.key_start)
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("{}{}", line_indent(text, o.open), style.unit));
                let mut out = String::new();
                write_value(&mut out, value, &layout, &indent, &style)?;
                splices = vec![Splice::new(m.value_start, m.value_end, out)];
            } else {
                let (s, empty) = insert_member(text, &tree, obj, name, value, &style)?;
                if let Some(inner) = empty {
                    hints.push(UndoHint::EmptyInner {
                        path: container.to_vec(),
                        inner,
                    });
                }
                splices = s;
            }
        } else {
            // Build {missing2: {...: {name: value}}} and insert it as member `missing1`.
            let (created, below) = container.split_at(existing);
            let Some((first, rest)) = below.split_first() else {
                return Err(internal("empty missing path"));
            };
            let mut m = Map::new();
            m.insert(name.to_owned(), value.clone());
            let mut nested = Value::Object(m);
            for key in rest.iter().rev() {
                let mut m = Map::new();
                m.insert(key.clone(), nested);
                nested = Value::Object(m);
            }
            let (s, empty) = insert_member(text, &tree, obj, first, &nested, &style)?;
            if let Some(inner) = empty {
                hints.push(UndoHint::EmptyInner {
                    path: created.to_vec(),
                    inner,
                });
            }
            let mut path = created.to_vec();
            path.push(first.clone());
            hints.push(UndoHint::Created { path });
            splices = s;
        }
        let mut keys: Vec<&str> = container
            .get(existing..)
            .unwrap_or(&[])
            .iter()
            .map(String::as_str)
            .collect();
        keys.push(name);
        let x = tree
            .objs
            .get(obj)
            .ok_or_else(|| internal("object index out of range"))?;
        let prefix = self.buf.get(..self.start).unwrap_or("");
        let (buf, root) = commit_edit(
            self.syntax,
            prefix,
            text,
            &self.root,
            x,
            obj == 0,
            existing,
            &splices,
            &keys,
            Expect::Set(value),
        )?;
        self.buf = Arc::new(buf);
        self.root = root;
        Ok(hints)
    }

    /// Removes `name` from the object at `container`.
    ///
    /// `hints` are the ones returned by the upsert that added the entry (passing the union of the hints
    /// of several upserts into the same container is also fine). With them, objects that the upsert
    /// created are deleted again once empty, and an object that was empty gets its original inner
    /// whitespace back, so `remove(upsert(doc))` is byte-identical to `doc`.
    ///
    /// Removal of an entry keeps the comments of its neighbours; a comment on the entry's own line(s)
    /// goes with it. Errors: `not-found` (no such container or entry; nothing changed),
    /// `not-an-object`, `invalid-hint`, `internal-edit-error`.
    pub fn remove(
        &mut self,
        container: &[String],
        name: &str,
        hints: &[UndoHint],
    ) -> Result<(), EditError> {
        for h in hints {
            if let UndoHint::EmptyInner { inner, .. } = h
                && !inner.bytes().all(is_ws)
            {
                return Err(edit_err_at(
                    "invalid-hint",
                    "an undo hint holds something other than whitespace, so it was not applied"
                        .into(),
                    1,
                    1,
                ));
            }
        }
        match self.kind(container) {
            None => {
                return Err(edit_err_at(
                    "not-found",
                    format!("there is no object `{}` in the file", show_path(container)),
                    1,
                    1,
                ));
            }
            Some("an object") => {
                if self.position(container, name).is_none() {
                    return Err(edit_err_at(
                        "not-found",
                        format!("there is no entry `{name}` in `{}`", show_path(container)),
                        1,
                        1,
                    ));
                }
            }
            Some(_) => {
                return Err(edit_err_at(
                    "not-an-object",
                    format!("`{}` is not an object", show_path(container)),
                    1,
                    1,
                ));
            }
        }
        let mut work = Work {
            syntax: self.syntax,
            start: self.start,
            buf: std::borrow::Cow::Borrowed(self.buf.as_str()),
            root: self.root.clone(),
            changed: false,
        };
        work.remove_member(container, name)?;

        // Delete objects the upsert created, deepest first, while they are empty.
        let created_top = hints
            .iter()
            .filter_map(|h| match h {
                UndoHint::Created { path } if container.starts_with(path) => Some(path.len()),
                _ => None,
            })
            .min();
        if let Some(top) = created_top {
            let mut len = container.len();
            while len >= top.max(1) {
                let Some(path) = container.get(..len) else {
                    break;
                };
                if !work.is_blank_object(path) {
                    break;
                }
                let Some((last, parent)) = path.split_last() else {
                    break;
                };
                work.remove_member(parent, last)?;
                len -= 1;
            }
        }
        // Restore the inner whitespace of objects that were empty before.
        for h in hints {
            if let UndoHint::EmptyInner { path, inner } = h {
                work.restore_inner(path, inner)?;
            }
        }
        // Every step was verified (and cross-checked) against the previous one.
        if !work.changed {
            return Err(internal("nothing was removed"));
        }
        let Work { buf, root, .. } = work;
        self.buf = Arc::new(buf.into_owned());
        self.root = root;
        Ok(())
    }
}

/// Calls `f(key, value)` for every object member whose value is a string and whose key passes
/// `want`, in any JSON or JSONC text, in one pass that builds nothing else. Best effort: it never
/// fails (invalid parts are skipped), and comments are ignored.
pub fn string_members(b: &[u8], want: impl Fn(&str) -> bool, mut f: impl FnMut(&str, &str)) {
    fn decode(raw: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
        let s = std::str::from_utf8(raw).ok()?;
        if s.contains('\\') {
            serde_json::from_str::<String>(s).ok().map(Into::into)
        } else {
            s.get(1..s.len().saturating_sub(1)).map(Into::into)
        }
    }
    let mut last: Option<(usize, usize)> = None;
    let mut key: Option<(usize, usize)> = None;
    let mut i = 0usize;
    while let Some(&c) = b.get(i) {
        match c {
            b'"' => {
                let end = skip_str(b, i).unwrap_or(b.len());
                match key.take() {
                    Some((ka, kz)) => {
                        if let (Some(k), Some(raw)) =
                            (b.get(ka..kz).and_then(decode), b.get(i..end))
                            && want(&k)
                            && let Some(v) = decode(raw)
                        {
                            f(&k, &v);
                        }
                        last = None;
                    }
                    None => last = Some((i, end)),
                }
                i = end;
            }
            b':' => {
                key = last.take();
                i += 1;
            }
            b'/' if matches!(b.get(i + 1), Some(b'/' | b'*')) => {
                i = skip_comment(b, i).unwrap_or(b.len()).max(i + 1);
            }
            c if is_ws(c) => i += 1,
            _ => {
                key = None;
                last = None;
                i += 1;
            }
        }
    }
}

/// The members of the object whose `{` is at `open`, in already validated text (values are
/// skipped, not parsed). `None` if `open` is not an object.
fn shallow(text: &str, open: usize, syntax: Syntax, parent: Option<usize>) -> Option<ObjSpan> {
    let b = text.as_bytes();
    if b.get(open) != Some(&b'{') {
        return None;
    }
    let mut p = Parser {
        text,
        b,
        pos: open + 1,
        syntax,
        blanks: Vec::new(),
    };
    let mut members = Vec::new();
    loop {
        p.skip_trivia().ok()?;
        match p.peek()? {
            b'}' => {
                return Some(ObjSpan {
                    open,
                    close: p.pos,
                    parent,
                    members,
                });
            }
            b'"' => {
                let key_start = p.pos;
                let key = p.parse_string().ok()?;
                let key_end = p.pos;
                p.skip_trivia().ok()?;
                if p.peek()? != b':' {
                    return None;
                }
                p.pos += 1;
                p.skip_trivia().ok()?;
                let value_start = p.pos;
                p.pos = skip_value(b, p.pos, syntax.comments())?;
                let value_end = p.pos;
                p.skip_trivia().ok()?;
                let comma = if p.peek() == Some(b',') {
                    p.pos += 1;
                    Some(p.pos - 1)
                } else {
                    None
                };
                members.push(MemSpan {
                    key,
                    key_start,
                    key_end,
                    value_start,
                    value_end,
                    comma,
                    obj: None,
                });
            }
            _ => return None,
        }
    }
}

/// End of the string starting at `pos` (validated text).
fn skip_str(b: &[u8], pos: usize) -> Option<usize> {
    let mut i = pos + 1;
    loop {
        let n = b.get(i..)?.iter().position(|&c| c == b'"' || c == b'\\')?;
        i += n;
        if b.get(i) == Some(&b'"') {
            return Some(i + 1);
        }
        i += 2;
    }
}

/// End of the comment starting at `pos` (validated text), or `pos + 1` if there is none.
fn skip_comment(b: &[u8], pos: usize) -> Option<usize> {
    match b.get(pos + 1) {
        Some(b'/') => {
            let rest = b.get(pos..)?;
            Some(
                pos + rest
                    .iter()
                    .position(|&c| c == b'\n' || c == b'\r')
                    .unwrap_or(rest.len()),
            )
        }
        Some(b'*') => {
            let body = b.get(pos + 2..)?;
            Some(pos + 2 + body.windows(2).position(|w| w == b"*/")? + 2)
        }
        _ => Some(pos + 1),
    }
}

/// End of the value starting at `pos` in validated text, found without building it.
fn skip_value(b: &[u8], pos: usize, comments: bool) -> Option<usize> {
    match b.get(pos)? {
        b'"' => skip_str(b, pos),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = pos;
            loop {
                match b.get(i)? {
                    b'"' => i = skip_str(b, i)?,
                    b'{' | b'[' => {
                        depth += 1;
                        i += 1;
                    }
                    b'}' | b']' => {
                        depth -= 1;
                        i += 1;
                        if depth == 0 {
                            return Some(i);
                        }
                    }
                    b'/' if comments => i = skip_comment(b, i)?,
                    _ => i += 1,
                }
            }
        }
        _ => {
            let rest = b.get(pos..)?;
            let n = rest
                .iter()
                .position(|c| matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r' | b'/'))
                .unwrap_or(rest.len());
            Some(pos + n)
        }
    }
}

/// The value of `text[a..z]` (validated text).
fn value_at(text: &str, a: usize, z: usize, syntax: Syntax) -> Option<Value> {
    let span = text.get(a..z)?;
    parse_core(
        span,
        syntax,
        Mode {
            build: true,
            any_root: true,
            base_depth: 0,
        },
    )
    .ok()
    .map(|p| p.root)
}

/// The objects along `path` from the root (each with its own members, and `obj` set on the
/// member that leads to the next one); stops where the path leaves existing objects.
fn spine(text: &str, root: &ObjSpan, path: &[String], syntax: Syntax) -> Tree {
    let mut tree = Tree {
        objs: vec![root.clone()],
    };
    let mut cur = 0usize;
    for key in path {
        let Some(o) = tree.objs.get(cur) else { break };
        let Some(j) = o.members.iter().position(|m| &m.key == key) else {
            break;
        };
        let Some(start) = o.members.get(j).map(|m| m.value_start) else {
            break;
        };
        let Some(child) = shallow(text, start, syntax, Some(cur)) else {
            break;
        };
        tree.objs.push(child);
        let idx = tree.objs.len() - 1;
        if let Some(m) = tree.objs.get_mut(cur).and_then(|o| o.members.get_mut(j)) {
            m.obj = Some(idx);
        }
        cur = idx;
    }
    tree
}

/// serde_json must accept the text too (comments and trailing commas blanked to spaces).
fn serde_accepts(text: &str, blanks: &[(usize, usize)]) -> Result<(), ReadError> {
    let res = if blanks.is_empty() {
        serde_json::from_str::<serde::de::IgnoredAny>(text).map(|_| ())
    } else {
        let mut blanked = text.as_bytes().to_vec();
        blank_out(&mut blanked, blanks);
        serde_json::from_slice::<serde::de::IgnoredAny>(&blanked).map(|_| ())
    };
    match res {
        Ok(()) => Ok(()),
        // serde_json stops one level before MAX_DEPTH; the strict parser already checked depth.
        Err(e) if e.to_string().contains("recursion limit") => Ok(()),
        Err(e) => Err(ReadError {
            code: "parse-error",
            message: format!("the file is not valid json ({e})"),
            line: e.line().max(1),
            column: e.column().max(1),
        }),
    }
}

fn blank_out(bytes: &mut [u8], blanks: &[(usize, usize)]) {
    for &(a, z) in blanks {
        if let Some(slice) = bytes.get_mut(a..z) {
            for c in slice.iter_mut().filter(|c| **c != b'\n' && **c != b'\r') {
                *c = b' ';
            }
        }
    }
}

/// Up to this size serde_json must also accept the whole file when it is read (defence in
/// depth; above it, only each edited object is cross-checked, to keep big files fast).
pub const SERDE_WHOLE_FILE: usize = 8 << 20;

/// Below this size the edited object is also read by serde_json and both values compared;
/// above it serde_json only has to accept it.
const CROSS_CHECK_VALUES: usize = 4 << 20;

/// Applies `splices` (all inside object `x`, at nesting level `level`, the root being level 0)
/// and proves the result: the bytes outside `x` are unchanged, the new text of `x` is valid on
/// its own (so the whole document is), serde_json agrees, and below `x` every member except the
/// one on the key path `keys` is byte-identical while the last key holds what `expect` says.
/// Returns the new buffer (with `prefix`, the BOM) and the new root spans.
#[allow(clippy::too_many_arguments)]
fn commit_edit(
    syntax: Syntax,
    prefix: &str,
    old: &str,
    old_root: &ObjSpan,
    x: &ObjSpan,
    x_is_root: bool,
    level: usize,
    splices: &[Splice],
    keys: &[&str],
    expect: Expect<'_>,
) -> Result<(String, ObjSpan), EditError> {
    let lo = splices.iter().map(|s| s.start).min().unwrap_or(x.close);
    let hi = splices.iter().map(|s| s.end).max().unwrap_or(x.close);
    if lo <= x.open || hi > x.close {
        return Err(internal("an edit reaches outside its object"));
    }
    let buf = apply_splices(prefix, old, splices)?;
    let new = buf.get(prefix.len()..).unwrap_or("");
    let tail = old.len() - hi;
    let new_close = (x.close + new.len())
        .checked_sub(old.len())
        .ok_or_else(|| internal("edit out of range"))?;
    if new.get(..lo) != old.get(..lo) || new.get(new.len() - tail..) != old.get(hi..) {
        return Err(internal("bytes outside the edit changed"));
    }
    let span = new
        .get(x.open..=new_close)
        .ok_or_else(|| internal("edit out of range"))?;
    let build = span.len() <= CROSS_CHECK_VALUES;
    let mode = Mode {
        build,
        any_root: true,
        base_depth: level,
    };
    let parsed = parse_core(span, syntax, mode)
        .map_err(|e| internal(&format!("the result does not parse: {}", e.message)))?;
    if !span.starts_with('{') {
        return Err(internal("the edited object is no longer an object"));
    }
    if build {
        cross_check(span, &parsed).map_err(|e| internal(&e.message))?;
    } else {
        serde_accepts(span, &parsed.blanks).map_err(|e| internal(&e.message))?;
    }
    let new_x = shallow(new, x.open, syntax, None)
        .ok_or_else(|| internal("the edited object cannot be read"))?;
    if !members_match(syntax, old, new, x.clone(), new_x, keys, expect) {
        return Err(internal("the result holds a different value than intended"));
    }
    let root = if x_is_root {
        shallow(new, old_root.open, syntax, None)
            .ok_or_else(|| internal("the root cannot be read"))?
    } else {
        // Only positions after the edit move.
        let delta = new.len() as isize - old.len() as isize;
        let mv = |p: usize| {
            if p >= hi {
                p.saturating_add_signed(delta)
            } else {
                p
            }
        };
        let mut r = old_root.clone();
        r.close = mv(r.close);
        for m in &mut r.members {
            m.key_start = mv(m.key_start);
            m.key_end = mv(m.key_end);
            m.value_start = mv(m.value_start);
            m.value_end = mv(m.value_end);
            m.comma = m.comma.map(mv);
        }
        r
    };
    Ok((buf, root))
}

/// Member-wise proof of an edit below object `old_obj` / `new_obj` (see [`commit_edit`]).
fn members_match(
    syntax: Syntax,
    old: &str,
    new: &str,
    old_obj: ObjSpan,
    new_obj: ObjSpan,
    keys: &[&str],
    expect: Expect<'_>,
) -> bool {
    let others = |text: &str, o: &ObjSpan, skip: Option<&str>| -> Vec<(String, Option<String>)> {
        o.members
            .iter()
            .filter(|m| Some(m.key.as_str()) != skip)
            .map(|m| {
                (
                    m.key.clone(),
                    text.get(m.value_start..m.value_end).map(str::to_owned),
                )
            })
            .collect()
    };
    if keys.is_empty() {
        return others(old, &old_obj, None) == others(new, &new_obj, None);
    }
    let mut old_obj = Some(old_obj);
    let mut new_obj = new_obj;
    for (i, key) in keys.iter().enumerate() {
        let last = i + 1 == keys.len();
        let nm = new_obj.members.iter().find(|m| m.key == *key).cloned();
        match &old_obj {
            None => {
                // Created by this edit: holds exactly the path key.
                if new_obj.members.len() != 1 {
                    return false;
                }
                let Some(nm) = nm else { return false };
                if last {
                    return match expect {
                        Expect::Set(v) => {
                            value_at(new, nm.value_start, nm.value_end, syntax).as_ref() == Some(v)
                        }
                        _ => false,
                    };
                }
                let Some(child) = shallow(new, nm.value_start, syntax, None) else {
                    return false;
                };
                new_obj = child;
            }
            Some(o) => {
                // Byte-identical values prove equal values without building them.
                let same = o.members.iter().filter(|m| m.key != *key).count()
                    == new_obj.members.iter().filter(|m| m.key != *key).count()
                    && o.members
                        .iter()
                        .filter(|m| m.key != *key)
                        .zip(new_obj.members.iter().filter(|m| m.key != *key))
                        .all(|(a, b)| {
                            a.key == b.key
                                && old.get(a.value_start..a.value_end)
                                    == new.get(b.value_start..b.value_end)
                        });
                if !same {
                    return false;
                }
                let om = o.members.iter().find(|m| m.key == *key).cloned();
                if last {
                    return match expect {
                        Expect::Set(v) => nm.is_some_and(|nm| {
                            value_at(new, nm.value_start, nm.value_end, syntax).as_ref() == Some(v)
                        }),
                        Expect::Removed => om.is_some() && nm.is_none(),
                        Expect::Same => match (om, nm) {
                            (None, None) => true,
                            (Some(a), Some(b)) => {
                                old.get(a.value_start..a.value_end)
                                    == new.get(b.value_start..b.value_end)
                            }
                            _ => false,
                        },
                    };
                }
                match (om, nm) {
                    (Some(om), Some(nm)) => {
                        let (Some(oc), Some(nc)) = (
                            shallow(old, om.value_start, syntax, None),
                            shallow(new, nm.value_start, syntax, None),
                        ) else {
                            return false;
                        };
                        old_obj = Some(oc);
                        new_obj = nc;
                    }
                    (None, Some(nm)) if matches!(expect, Expect::Set(_)) => {
                        let Some(nc) = shallow(new, nm.value_start, syntax, None) else {
                            return false;
                        };
                        old_obj = None;
                        new_obj = nc;
                    }
                    _ => return false,
                }
            }
        }
    }
    false
}

// ---------------------------------------------------------------------------------------------
// Errors and positions
// ---------------------------------------------------------------------------------------------

/// 1-based (line, column-in-chars) of byte offset `at` in `text`. Offsets past the end or inside a
/// character are clamped; never panics.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(text.len());
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = text.get(..at).unwrap_or("");
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

fn edit_err_at(code: &'static str, message: String, line: usize, column: usize) -> EditError {
    EditError {
        code,
        message,
        line,
        column,
    }
}

fn internal(what: &str) -> EditError {
    edit_err_at(
        "internal-edit-error",
        format!("the edit was not applied because it did not verify ({what}); this is a bug"),
        1,
        1,
    )
}

fn show_path(path: &[String]) -> String {
    if path.is_empty() {
        "(root)".to_owned()
    } else {
        path.join(".")
    }
}

// ---------------------------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------------------------

/// Byte spans of one object, recorded by the parser for the editor.
#[derive(Debug, Clone)]
struct ObjSpan {
    open: usize,
    close: usize,
    parent: Option<usize>,
    members: Vec<MemSpan>,
}

/// Byte spans of one `"key": value` member.
#[derive(Debug, Clone)]
struct MemSpan {
    key: String,
    key_start: usize,
    key_end: usize,
    value_start: usize,
    value_end: usize,
    /// Position of the comma after the value (separator, or trailing comma for the last member).
    comma: Option<usize>,
    /// Index in `Tree::objs` when the value is an object.
    obj: Option<usize>,
}

#[derive(Debug, Clone, Default)]
struct Tree {
    /// Every object in document order; the root object (when the root is an object) is index 0.
    objs: Vec<ObjSpan>,
}

struct Parsed {
    root: Value,
    tree: Tree,
    /// Comment and trailing-comma spans (for the serde_json cross-check).
    blanks: Vec<(usize, usize)>,
}

enum Frame {
    Obj {
        idx: usize,
        map: Map<String, Value>,
        key: Option<(String, usize, usize)>,
        value_start: usize,
        comma: Option<usize>,
    },
    Arr {
        start: usize,
        items: Vec<Value>,
        comma: Option<usize>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Value,
    ObjKeyOrEnd,
    ObjColon,
    ObjCommaOrEnd,
    ArrValueOrEnd,
    ArrCommaOrEnd,
    Done,
}

struct Parser<'a> {
    text: &'a str,
    b: &'a [u8],
    pos: usize,
    syntax: Syntax,
    /// Comment and trailing-comma spans, blanked for the serde_json cross-check.
    blanks: Vec<(usize, usize)>,
}

/// Bytes that end a run of plain string content: `"`, `\\` and control characters.
static STRING_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

impl<'a> Parser<'a> {
    fn err(&self, code: &'static str, message: String, at: usize) -> ReadError {
        let (line, column) = line_col(self.text, at);
        ReadError {
            code,
            message,
            line,
            column,
        }
    }

    fn found(&self, at: usize) -> String {
        match self.text.get(at..).and_then(|s| s.chars().next()) {
            None => "the end of the file".to_owned(),
            Some(c) => format!("`{}`", c.escape_debug()),
        }
    }

    fn unexpected(&self, expected: &str) -> ReadError {
        let found = self.found(self.pos);
        let hint = match self.b.get(self.pos) {
            Some(b'\'') => " (strings and keys need double quotes)",
            Some(b'N' | b'I') => " (nan and infinity are not json)",
            Some(b'+') => " (numbers cannot start with `+`)",
            Some(b'.') => " (numbers need a digit before the `.`)",
            _ => "",
        };
        let msg = format!("expected {expected} but found {found}{hint}");
        if self.pos >= self.b.len() {
            self.err(
                "parse-error",
                format!("unexpected end of file: {msg}"),
                self.pos,
            )
        } else {
            self.err("parse-error", msg, self.pos)
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    /// Skips whitespace and (when allowed) comments.
    fn skip_trivia(&mut self) -> Result<(), ReadError> {
        loop {
            match self.peek() {
                Some(c) if is_ws(c) => self.pos += 1,
                Some(b'/') => {
                    let start = self.pos;
                    let next = self.b.get(start + 1).copied();
                    if !matches!(next, Some(b'/' | b'*')) {
                        return Err(self.unexpected("a json value or punctuation"));
                    }
                    if !self.syntax.comments() {
                        return Err(self.err(
                            "parse-error",
                            "comments are not allowed in a strict json file".into(),
                            start,
                        ));
                    }
                    if next == Some(b'/') {
                        let rest = self.b.get(start..).unwrap_or(&[]);
                        let len = rest
                            .iter()
                            .position(|&c| c == b'\n' || c == b'\r')
                            .unwrap_or(rest.len());
                        self.pos = start + len;
                    } else {
                        let body = self.b.get(start + 2..).unwrap_or(&[]);
                        match body.windows(2).position(|w| w == b"*/") {
                            Some(i) => self.pos = start + 2 + i + 2,
                            None => {
                                return Err(self.err(
                                    "parse-error",
                                    "unexpected end of file inside a block comment".into(),
                                    start,
                                ));
                            }
                        }
                    }
                    self.blanks.push((start, self.pos));
                }
                _ => return Ok(()),
            }
        }
    }

    fn parse_string(&mut self) -> Result<String, ReadError> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        let mut run = self.pos;
        loop {
            let Some(c) = self.peek() else {
                return Err(self.err(
                    "parse-error",
                    "unexpected end of file inside a string".into(),
                    start,
                ));
            };
            match c {
                b'"' => {
                    out.push_str(self.text.get(run..self.pos).unwrap_or(""));
                    self.pos += 1;
                    return Ok(out);
                }
                b'\\' => {
                    out.push_str(self.text.get(run..self.pos).unwrap_or(""));
                    let esc = self.pos;
                    let Some(e) = self.b.get(esc + 1).copied() else {
                        return Err(self.err(
                            "parse-error",
                            "unexpected end of file inside a string".into(),
                            start,
                        ));
                    };
                    self.pos = esc + 2;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4(esc)?;
                            let cp = if (0xD800..0xDC00).contains(&hi) {
                                let lo = if self.b.get(self.pos) == Some(&b'\\')
                                    && self.b.get(self.pos + 1) == Some(&b'u')
                                {
                                    let save = self.pos;
                                    self.pos += 2;
                                    let lo = self.hex4(save)?;
                                    (0xDC00..0xE000).contains(&lo).then_some(lo)
                                } else {
                                    None
                                };
                                match lo {
                                    Some(lo) => 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00),
                                    None => {
                                        return Err(self.err(
                                            "parse-error",
                                            format!("lone surrogate `\\u{hi:04x}` in a string (it is not a valid character)"),
                                            esc,
                                        ));
                                    }
                                }
                            } else if (0xDC00..0xE000).contains(&hi) {
                                return Err(self.err(
                                    "parse-error",
                                    format!("lone surrogate `\\u{hi:04x}` in a string (it is not a valid character)"),
                                    esc,
                                ));
                            } else {
                                hi
                            };
                            match char::from_u32(cp) {
                                Some(ch) => out.push(ch),
                                None => {
                                    return Err(self.err(
                                        "parse-error",
                                        "invalid unicode escape in a string".into(),
                                        esc,
                                    ));
                                }
                            }
                        }
                        _ => {
                            return Err(self.err(
                                "parse-error",
                                format!(
                                    "invalid escape `\\{}` in a string",
                                    self.found(esc + 1).trim_matches('`')
                                ),
                                esc,
                            ));
                        }
                    }
                    run = self.pos;
                }
                c if c < 0x20 => {
                    return Err(self.err(
                        "parse-error",
                        format!(
                            "raw control character u+{c:04x} in a string (write it as `\\u{c:04x}`)"
                        ),
                        self.pos,
                    ));
                }
                _ => self.pos += 1,
            }
        }
    }

    /// Validates a string like [`Parser::parse_string`] (same errors) without building it.
    fn skip_string(&mut self) -> Result<(), ReadError> {
        let start = self.pos;
        self.pos += 1;
        loop {
            // Fast path: plain bytes.
            let rest = self.b.get(self.pos..).unwrap_or(&[]);
            let n = rest
                .iter()
                .position(|&c| STRING_STOP[usize::from(c)])
                .unwrap_or(rest.len());
            self.pos += n;
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    // Rare: let the full decoder check this escape (and the rest of the string).
                    let esc = self.pos;
                    match self.b.get(esc + 1).copied() {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                            self.pos = esc + 2;
                        }
                        _ => {
                            self.pos = start;
                            self.parse_string()?;
                            return Ok(());
                        }
                    }
                }
                _ => {
                    // End of file or a control character: the decoder reports it.
                    self.pos = start;
                    self.parse_string()?;
                    return Ok(());
                }
            }
        }
    }

    /// Reads 4 hex digits at `self.pos`; `esc` is where the escape started (for errors).
    fn hex4(&mut self, esc: usize) -> Result<u32, ReadError> {
        let mut v = 0u32;
        for _ in 0..4 {
            let d = match self.peek() {
                Some(c @ b'0'..=b'9') => u32::from(c - b'0'),
                Some(c @ b'a'..=b'f') => u32::from(c - b'a' + 10),
                Some(c @ b'A'..=b'F') => u32::from(c - b'A' + 10),
                _ => {
                    return Err(self.err(
                        "parse-error",
                        "a `\\u` escape needs four hex digits".into(),
                        esc,
                    ));
                }
            };
            v = v * 16 + d;
            self.pos += 1;
        }
        Ok(v)
    }

    fn digits(&mut self, what: &str) -> Result<(), ReadError> {
        if !matches!(self.peek(), Some(b'0'..=b'9')) {
            return Err(self.unexpected(what));
        }
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        Ok(())
    }

    fn parse_number(&mut self) -> Result<Value, ReadError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits("a digit")?,
            _ => return Err(self.unexpected("a digit after `-`")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.digits("a digit after the decimal point")?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            self.digits("a digit in the exponent")?;
        }
        let raw = self.text.get(start..self.pos).unwrap_or("");
        match number_from_literal(raw) {
            Some(n) => Ok(Value::Number(n)),
            None => Err(self.err(
                "parse-error",
                format!("the number `{raw}` is out of range"),
                start,
            )),
        }
    }

    fn literal(&mut self, word: &'static str, v: Value) -> Result<Value, ReadError> {
        if self.b.get(self.pos..self.pos + word.len()) == Some(word.as_bytes()) {
            self.pos += word.len();
            Ok(v)
        } else {
            Err(self.unexpected("a json value"))
        }
    }
}

/// Converts a validated JSON number literal. Integers become `u64`/`i64` when they fit (and `-0`
/// becomes `-0.0`, like serde_json); everything else is a correctly rounded `f64` (std's parser,
/// the same result as JavaScript's `JSON.parse`). `None` when the value is out of `f64` range.
fn number_from_literal(raw: &str) -> Option<Number> {
    let is_int = !raw.contains(['.', 'e', 'E']);
    if is_int {
        if let Some(digits) = raw.strip_prefix('-') {
            if digits.bytes().all(|c| c == b'0') {
                return Number::from_f64(-0.0);
            }
            if let Ok(i) = raw.parse::<i64>() {
                return Some(Number::from(i));
            }
        } else if let Ok(u) = raw.parse::<u64>() {
            return Some(Number::from(u));
        }
    }
    raw.parse::<f64>().ok().and_then(Number::from_f64)
}

/// Structural equality where floats may differ by a few units in the last place: serde_json
/// (without `float_roundtrip`) is not always correctly rounded. Iterative, so any depth is fine.
fn values_agree(a: &Value, b: &Value) -> bool {
    let mut stack = vec![(a, b)];
    while let Some((a, b)) = stack.pop() {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                for (k, va) in x {
                    match y.get(k) {
                        Some(vb) => stack.push((va, vb)),
                        None => return false,
                    }
                }
            }
            (Value::Array(x), Value::Array(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                stack.extend(x.iter().zip(y.iter()));
            }
            (Value::Number(x), Value::Number(y)) if x.is_f64() && y.is_f64() => {
                let (Some(x), Some(y)) = (x.as_f64(), y.as_f64()) else {
                    return false;
                };
                let ordered = |f: f64| {
                    let bits = f.to_bits() as i64;
                    if bits < 0 { i64::MIN - bits } else { bits }
                };
                if ordered(x).abs_diff(ordered(y)) > 4 {
                    return false;
                }
            }
            (x, y) => {
                if x != y {
                    return false;
                }
            }
        }
    }
    true
}

/// The strict parser: iterative with an explicit stack, bounded by [`MAX_DEPTH`].
fn parse_only(text: &str, syntax: Syntax) -> Result<Parsed, ReadError> {
    parse_core(text, syntax, Mode::BUILD)
}

/// How [`parse_core`] runs.
#[derive(Debug, Clone, Copy)]
struct Mode {
    /// Build the value and every object's spans (else only validate, recording the root
    /// object's own members, with `obj: None`).
    build: bool,
    /// Accept any value at the top (a span of a document) instead of only an object.
    any_root: bool,
    /// Nesting levels above the text (for the depth limit of a span).
    base_depth: usize,
}

impl Mode {
    const BUILD: Mode = Mode {
        build: true,
        any_root: false,
        base_depth: 0,
    };
    const VALIDATE: Mode = Mode {
        build: false,
        any_root: false,
        base_depth: 0,
    };
}

/// The strict parser (see [`Mode`]). In validate mode nothing is allocated per value except
/// the keys of the open objects (for the duplicate check); the errors are the same.
fn parse_core(text: &str, syntax: Syntax, mode: Mode) -> Result<Parsed, ReadError> {
    let mut p = Parser {
        text,
        b: text.as_bytes(),
        pos: 0,
        syntax,
        blanks: Vec::new(),
    };
    if text.bytes().all(is_ws) {
        return Err(p.err("empty-file", "the file is empty".into(), 0));
    }
    let mut tree = Tree::default();
    let mut stack: Vec<Frame> = Vec::new();
    let mut state = State::Value;
    let mut root: Option<(Value, usize)> = None;

    loop {
        p.skip_trivia()?;
        // A finished value: (value, start, obj index) to hand to the enclosing frame.
        let mut done: Option<(Value, usize, Option<usize>)> = None;
        match state {
            State::Done => {
                if p.pos < p.b.len() {
                    return Err(p.err(
                        "parse-error",
                        format!(
                            "unexpected {} after the end of the json document",
                            p.found(p.pos)
                        ),
                        p.pos,
                    ));
                }
                break;
            }
            State::Value | State::ArrValueOrEnd => {
                let start = p.pos;
                match p.peek() {
                    Some(b']') if state == State::ArrValueOrEnd => {
                        done = Some(close_array(&mut p, &mut stack)?);
                    }
                    Some(c @ (b'{' | b'[')) => {
                        if stack.len() + 1 + mode.base_depth > MAX_DEPTH {
                            return Err(p.err(
                                "too-deep",
                                format!("the document nests deeper than {MAX_DEPTH} levels"),
                                start,
                            ));
                        }
                        p.pos += 1;
                        if c == b'{' {
                            let parent = stack.iter().rev().find_map(|f| match f {
                                Frame::Obj { idx, .. } => Some(*idx),
                                Frame::Arr { .. } => None,
                            });
                            tree.objs.push(ObjSpan {
                                open: start,
                                close: start,
                                parent,
                                members: Vec::new(),
                            });
                            stack.push(Frame::Obj {
                                idx: if mode.build || tree.objs.len() == 1 {
                                    tree.objs.len() - 1
                                } else {
                                    usize::MAX
                                },
                                map: Map::new(),
                                key: None,
                                value_start: start,
                                comma: None,
                            });
                            state = State::ObjKeyOrEnd;
                        } else {
                            stack.push(Frame::Arr {
                                start,
                                items: Vec::new(),
                                comma: None,
                            });
                            state = State::ArrValueOrEnd;
                        }
                    }
                    Some(b'"') if !mode.build => {
                        p.skip_string()?;
                        // The kind matters only for a top-level value (`not-an-object`).
                        let v = if stack.is_empty() {
                            Value::String(String::new())
                        } else {
                            Value::Null
                        };
                        done = Some((v, start, None));
                    }
                    Some(b'"') => done = Some((Value::String(p.parse_string()?), start, None)),
                    Some(b'-' | b'0'..=b'9') => done = Some((p.parse_number()?, start, None)),
                    Some(b't') => done = Some((p.literal("true", Value::Bool(true))?, start, None)),
                    Some(b'f') => {
                        done = Some((p.literal("false", Value::Bool(false))?, start, None));
                    }
                    Some(b'n') => done = Some((p.literal("null", Value::Null)?, start, None)),
                    None if stack.is_empty() && !mode.any_root => {
                        return Err(p.err(
                            "empty-file",
                            "the file contains only comments and no json value".into(),
                            0,
                        ));
                    }
                    _ => {
                        if state == State::ArrValueOrEnd {
                            return Err(p.unexpected("a json value or `]`"));
                        }
                        return Err(p.unexpected("a json value"));
                    }
                }
            }
            State::ObjKeyOrEnd => match p.peek() {
                Some(b'}') => done = Some(close_object(&mut p, &mut stack, &mut tree)?),
                Some(b'"') => {
                    let start = p.pos;
                    let key = p.parse_string()?;
                    let end = p.pos;
                    if let Some(Frame::Obj { map, key: slot, .. }) = stack.last_mut() {
                        if map.contains_key(&key) {
                            let shown = serde_json::to_string(&key).unwrap_or_default();
                            return Err(p.err(
                                "duplicate-key",
                                format!("duplicate key {shown} in an object (json readers keep only one of them)"),
                                start,
                            ));
                        }
                        *slot = Some((key, start, end));
                    }
                    state = State::ObjColon;
                }
                _ => return Err(p.unexpected("a double-quoted key or `}`")),
            },
            State::ObjColon => {
                if p.peek() != Some(b':') {
                    return Err(p.unexpected("`:` after the key"));
                }
                p.pos += 1;
                p.skip_trivia()?;
                if let Some(Frame::Obj { value_start, .. }) = stack.last_mut() {
                    *value_start = p.pos;
                }
                state = State::Value;
            }
            State::ObjCommaOrEnd => match p.peek() {
                Some(b',') => {
                    let at = p.pos;
                    p.pos += 1;
                    if let Some(Frame::Obj { idx, comma, .. }) = stack.last_mut() {
                        *comma = Some(at);
                        if let Some(m) = tree.objs.get_mut(*idx).and_then(|o| o.members.last_mut())
                        {
                            m.comma = Some(at);
                        }
                    }
                    state = State::ObjKeyOrEnd;
                }
                Some(b'}') => done = Some(close_object(&mut p, &mut stack, &mut tree)?),
                _ => return Err(p.unexpected("`,` or `}` after an object member")),
            },
            State::ArrCommaOrEnd => match p.peek() {
                Some(b',') => {
                    let at = p.pos;
                    p.pos += 1;
                    if let Some(Frame::Arr { comma, .. }) = stack.last_mut() {
                        *comma = Some(at);
                    }
                    state = State::ArrValueOrEnd;
                }
                Some(b']') => done = Some(close_array(&mut p, &mut stack)?),
                _ => return Err(p.unexpected("`,` or `]` after an array element")),
            },
        }
        if let Some((v, start, obj)) = done {
            let end = p.pos;
            match stack.last_mut() {
                None => {
                    root = Some((v, start));
                    state = State::Done;
                }
                Some(Frame::Obj {
                    idx,
                    map,
                    key,
                    value_start,
                    comma,
                }) => {
                    let Some((k, key_start, key_end)) = key.take() else {
                        return Err(p.err("parse-error", "internal parser error".into(), start));
                    };
                    *comma = None;
                    if let Some(o) = tree.objs.get_mut(*idx) {
                        o.members.push(MemSpan {
                            key: k.clone(),
                            key_start,
                            key_end,
                            value_start: *value_start,
                            value_end: end,
                            comma: None,
                            obj: if mode.build { obj } else { None },
                        });
                    }
                    map.insert(k, if mode.build { v } else { Value::Null });
                    state = State::ObjCommaOrEnd;
                }
                Some(Frame::Arr { items, comma, .. }) => {
                    *comma = None;
                    if mode.build {
                        items.push(v);
                    }
                    state = State::ArrCommaOrEnd;
                }
            }
        }
    }
    match root {
        Some((v, _)) if mode.any_root => Ok(Parsed {
            root: v,
            tree,
            blanks: p.blanks,
        }),
        Some((Value::Object(m), _)) => Ok(Parsed {
            root: Value::Object(m),
            tree,
            blanks: p.blanks,
        }),
        Some((v, start)) => {
            let kind = match v {
                Value::Array(_) => "an array",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                Value::Bool(_) => "a boolean",
                Value::Null => "null",
                Value::Object(_) => "an object",
            };
            Err(p.err(
                "not-an-object",
                format!("the top level of the file must be an object, not {kind}"),
                start,
            ))
        }
        None => Err(p.err("empty-file", "the file contains no json value".into(), 0)),
    }
}

fn trailing_comma_check(p: &mut Parser<'_>, comma: Option<usize>) -> Result<(), ReadError> {
    if let Some(at) = comma {
        if !p.syntax.trailing_commas() {
            return Err(p.err(
                "parse-error",
                "trailing comma is not allowed in this file".into(),
                at,
            ));
        }
        p.blanks.push((at, at + 1));
    }
    Ok(())
}

fn close_object(
    p: &mut Parser<'_>,
    stack: &mut Vec<Frame>,
    tree: &mut Tree,
) -> Result<(Value, usize, Option<usize>), ReadError> {
    match stack.pop() {
        Some(Frame::Obj {
            idx, map, comma, ..
        }) => {
            trailing_comma_check(p, comma)?;
            let close = p.pos;
            p.pos += 1;
            let open = match tree.objs.get_mut(idx) {
                Some(o) => {
                    o.close = close;
                    o.open
                }
                None => close,
            };
            Ok((Value::Object(map), open, Some(idx)))
        }
        _ => Err(p.err("parse-error", "internal parser error".into(), p.pos)),
    }
}

fn close_array(
    p: &mut Parser<'_>,
    stack: &mut Vec<Frame>,
) -> Result<(Value, usize, Option<usize>), ReadError> {
    match stack.pop() {
        Some(Frame::Arr {
            start,
            items,
            comma,
        }) => {
            trailing_comma_check(p, comma)?;
            p.pos += 1;
            Ok((Value::Array(items), start, None))
        }
        _ => Err(p.err("parse-error", "internal parser error".into(), p.pos)),
    }
}

/// Defence in depth: serde_json must accept the text with comments and trailing commas blanked
/// to spaces (offsets and newlines unchanged) and produce the same value.
fn cross_check(text: &str, parsed: &Parsed) -> Result<(), ReadError> {
    let mut blanked = text.as_bytes().to_vec();
    for &(a, z) in &parsed.blanks {
        if let Some(slice) = blanked.get_mut(a..z) {
            for c in slice.iter_mut().filter(|c| **c != b'\n' && **c != b'\r') {
                *c = b' ';
            }
        }
    }
    match serde_json::from_slice::<Value>(&blanked) {
        Ok(v) if values_agree(&v, &parsed.root) => Ok(()),
        Ok(_) => Err(ReadError {
            code: "parse-error",
            message: "the file was read differently by two json parsers, so it is refused".into(),
            line: 1,
            column: 1,
        }),
        // serde_json stops one level before MAX_DEPTH; the strict parser already checked depth.
        Err(e) if e.to_string().contains("recursion limit") => Ok(()),
        Err(e) => Err(ReadError {
            code: "parse-error",
            message: format!("the file is not valid json ({e})"),
            line: e.line().max(1),
            column: e.column().max(1),
        }),
    }
}

// ---------------------------------------------------------------------------------------------
// Editing
// ---------------------------------------------------------------------------------------------

/// One replacement of `text[start..end]`.
#[derive(Debug, Clone)]
struct Splice {
    start: usize,
    end: usize,
    with: String,
}

impl Splice {
    fn new(start: usize, end: usize, with: String) -> Splice {
        Splice { start, end, with }
    }
}

/// Applies non-overlapping splices (any order; equal positions keep their given order) to
/// `text`, into one new buffer that starts with `prefix`.
fn apply_splices(prefix: &str, text: &str, splices: &[Splice]) -> Result<String, EditError> {
    let mut sorted: Vec<&Splice> = splices.iter().collect();
    sorted.sort_by_key(|s| (s.start, s.end));
    let grow: usize = splices.iter().map(|s| s.with.len()).sum();
    let mut out = String::with_capacity(prefix.len() + text.len() + grow);
    out.push_str(prefix);
    let mut at = 0usize;
    for s in sorted {
        if s.start < at || s.end < s.start {
            return Err(internal("overlapping edits"));
        }
        out.push_str(
            text.get(at..s.start)
                .ok_or_else(|| internal("edit out of range"))?,
        );
        out.push_str(&s.with);
        at = s.end;
    }
    out.push_str(
        text.get(at..)
            .ok_or_else(|| internal("edit out of range"))?,
    );
    Ok(out)
}

/// Sets `name` in the object at `container` inside `root`, creating objects as needed.
#[cfg(test)]
fn set_path(root: &mut Value, container: &[String], name: &str, v: Value) -> Result<(), EditError> {
    let mut cur = root;
    for key in container {
        let obj = cur
            .as_object_mut()
            .ok_or_else(|| internal("container is not an object"))?;
        cur = obj
            .entry(key.clone())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    cur.as_object_mut()
        .ok_or_else(|| internal("container is not an object"))?
        .insert(name.to_owned(), v);
    Ok(())
}

/// Nesting depth of a value (scalars 0), computed without recursion.
fn value_depth(v: &Value) -> usize {
    let mut max = 0;
    let mut stack = vec![(v, 1usize)];
    while let Some((v, d)) = stack.pop() {
        match v {
            Value::Object(m) => {
                max = max.max(d);
                stack.extend(m.values().map(|c| (c, d + 1)));
            }
            Value::Array(a) => {
                max = max.max(d);
                stack.extend(a.iter().map(|c| (c, d + 1)));
            }
            _ => {}
        }
    }
    max
}

/// Kinds of text found between tokens (the parser guarantees gaps hold only these).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gap {
    Space,
    Newline,
    LineComment,
    BlockComment { multiline: bool },
    Comma,
    Other,
}

#[derive(Debug, Clone, Copy)]
struct GapItem {
    kind: Gap,
    start: usize,
    end: usize,
}

fn gap_items(b: &[u8], start: usize, end: usize) -> Vec<GapItem> {
    let end = end.min(b.len());
    let mut out = Vec::new();
    let mut i = start;
    while i < end {
        let s = i;
        let c = b.get(i).copied().unwrap_or(0);
        let kind = match c {
            b'\n' => {
                i += 1;
                Gap::Newline
            }
            b'\r' if b.get(i + 1) == Some(&b'\n') && i + 1 < end => {
                i += 2;
                Gap::Newline
            }
            b' ' | b'\t' | b'\r' => {
                while i < end && matches!(b.get(i), Some(b' ' | b'\t'))
                    || (i < end && b.get(i) == Some(&b'\r') && b.get(i + 1) != Some(&b'\n'))
                {
                    i += 1;
                }
                if i == s {
                    i += 1;
                }
                Gap::Space
            }
            b',' => {
                i += 1;
                Gap::Comma
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < end && !matches!(b.get(i), Some(b'\n' | b'\r')) {
                    i += 1;
                }
                Gap::LineComment
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                let mut multiline = false;
                let mut closed = false;
                while i < end {
                    match b.get(i) {
                        Some(b'*') if b.get(i + 1) == Some(&b'/') => {
                            i += 2;
                            closed = true;
                            break;
                        }
                        Some(b'\n') => {
                            multiline = true;
                            i += 1;
                        }
                        _ => i += 1,
                    }
                }
                if closed {
                    Gap::BlockComment { multiline }
                } else {
                    Gap::Other
                }
            }
            _ => {
                i += 1;
                Gap::Other
            }
        };
        out.push(GapItem {
            kind,
            start: s,
            end: i.min(end),
        });
    }
    out
}

/// Leading spaces/tabs of the line that contains `pos`.
fn line_indent(text: &str, pos: usize) -> &str {
    let b = text.as_bytes();
    let mut ls = pos.min(b.len());
    while ls > 0 && b.get(ls - 1) != Some(&b'\n') {
        ls -= 1;
    }
    let mut e = ls;
    while matches!(b.get(e), Some(b' ' | b'\t')) {
        e += 1;
    }
    text.get(ls..e).unwrap_or("")
}

/// If only spaces/tabs stand between the previous `\n` and `pos`, returns that indentation.
fn own_line_indent(b: &[u8], pos: usize) -> Option<&str> {
    let start = own_line_start(b, pos)?;
    let nl_end = b
        .get(start..pos)
        .map(|s| s.iter().take_while(|&&c| c == b'\r' || c == b'\n').count())?;
    std::str::from_utf8(b.get(start + nl_end..pos)?).ok()
}

/// If only spaces/tabs stand between the previous `\n` and `pos`, returns the position where that
/// line break starts (including a preceding `\r`).
fn own_line_start(b: &[u8], pos: usize) -> Option<usize> {
    let mut i = pos;
    loop {
        if i == 0 {
            return None;
        }
        match b.get(i - 1)? {
            b' ' | b'\t' => i -= 1,
            b'\n' => {
                let nl = i - 1;
                return Some(if nl > 0 && b.get(nl - 1) == Some(&b'\r') {
                    nl - 1
                } else {
                    nl
                });
            }
            _ => return None,
        }
    }
}

/// Formatting conventions detected from the file.
struct Style {
    unit: String,
    nl: &'static str,
}

impl Style {
    /// The newline of the first line break, and the indentation unit of the first object (in
    /// document order) whose first key is on its own line, indented deeper than the object.
    /// Scans validated text without building anything; usually stops at the root.
    fn detect(text: &str, syntax: Syntax) -> Style {
        let nl = match text.find('\n') {
            Some(i) if i > 0 && text.as_bytes().get(i - 1) == Some(&b'\r') => "\r\n",
            _ => "\n",
        };
        let b = text.as_bytes();
        let comments = syntax.comments();
        let mut unit = None;
        let mut i = 0usize;
        while let Some(&c) = b.get(i) {
            match c {
                b'"' => i = skip_str(b, i).unwrap_or(b.len()),
                b'/' if comments => i = skip_comment(b, i).unwrap_or(b.len()),
                b'{' => {
                    // The first member's key, after whitespace and comments.
                    let mut k = i + 1;
                    loop {
                        match b.get(k) {
                            Some(&c) if is_ws(c) => k += 1,
                            Some(b'/') if comments => {
                                k = skip_comment(b, k).unwrap_or(b.len()).max(k + 1)
                            }
                            _ => break,
                        }
                    }
                    if b.get(k) == Some(&b'"')
                        && let Some(key_indent) = own_line_indent(b, k)
                        && let Some(extra) = key_indent.strip_prefix(line_indent(text, i))
                        && !extra.is_empty()
                    {
                        unit = Some(extra.to_owned());
                        break;
                    }
                    i += 1;
                }
                _ => i += 1,
            }
        }
        Style {
            unit: unit.unwrap_or_else(|| "  ".to_owned()),
            nl,
        }
    }
}

/// How new text is laid out inside one object.
struct Layout {
    multiline: bool,
    /// Between a key and its value, e.g. `": "` or `":"`.
    colon: String,
    /// Between members on one line, e.g. `", "` or `","`.
    sep: String,
}

/// Whether the gaps of an object (outside member values) contain a line break; `None` when the
/// object is empty and its inner text has no line break.
fn object_multiline(b: &[u8], o: &ObjSpan) -> Option<bool> {
    let mut from = o.open + 1;
    let mut any_member = false;
    for m in &o.members {
        any_member = true;
        if b.get(from..m.key_start).is_some_and(|s| s.contains(&b'\n')) {
            return Some(true);
        }
        from = m.value_end;
    }
    if b.get(from..o.close).is_some_and(|s| s.contains(&b'\n')) {
        return Some(true);
    }
    any_member.then_some(false)
}

impl Layout {
    fn for_object(text: &str, tree: &Tree, obj: usize) -> Layout {
        let b = text.as_bytes();
        // Decide one-line vs multi-line from this object, else the nearest ancestor that decides.
        let mut multiline = true;
        let mut cur = Some(obj);
        let mut guard = 0;
        while let Some(i) = cur {
            let Some(o) = tree.objs.get(i) else { break };
            if let Some(m) = object_multiline(b, o) {
                multiline = m;
                break;
            }
            cur = o.parent;
            guard += 1;
            if guard > MAX_DEPTH + 1 {
                break;
            }
        }
        // Separators from this object's members, else the nearest ancestor with members.
        let mut colon = None;
        let mut sep = None;
        let mut cur = Some(obj);
        let mut guard = 0;
        while let Some(i) = cur {
            let Some(o) = tree.objs.get(i) else { break };
            if colon.is_none()
                && let Some(m) = o.members.last()
                && let Some(s) = text.get(m.key_end..m.value_start)
                && s.bytes().all(|c| matches!(c, b' ' | b'\t' | b':'))
                && s.bytes().filter(|&c| c == b':').count() == 1
            {
                colon = Some(s.to_owned());
            }
            if sep.is_none()
                && let (Some(m0), Some(m1)) = (o.members.first(), o.members.get(1))
                && let Some(s) = text.get(m0.value_end..m1.key_start)
                && s.starts_with(',')
                && s.bytes().skip(1).all(|c| matches!(c, b' ' | b'\t'))
            {
                sep = Some(s.to_owned());
            }
            if colon.is_some() && sep.is_some() {
                break;
            }
            cur = o.parent;
            guard += 1;
            if guard > MAX_DEPTH + 1 {
                break;
            }
        }
        let colon = colon.unwrap_or_else(|| ": ".to_owned());
        let sep = sep.unwrap_or_else(|| {
            if colon.ends_with([' ', '\t']) {
                ", ".to_owned()
            } else {
                ",".to_owned()
            }
        });
        Layout {
            multiline,
            colon,
            sep,
        }
    }
}

fn json_string(s: &str) -> Result<String, EditError> {
    serde_json::to_string(s).map_err(|_| internal("string escaping failed"))
}

/// Writes `v` in the given layout; in multi-line layout `indent` is the indentation of the line the
/// value starts on. Recursion is bounded by the depth check done before any edit.
fn write_value(
    out: &mut String,
    v: &Value,
    layout: &Layout,
    indent: &str,
    style: &Style,
) -> Result<(), EditError> {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => out.push_str(&json_string(s)?),
        Value::Object(m) if m.is_empty() => out.push_str("{}"),
        Value::Array(a) if a.is_empty() => out.push_str("[]"),
        Value::Object(m) => {
            out.push('{');
            let inner = format!("{indent}{}", style.unit);
            for (i, (k, v)) in m.iter().enumerate() {
                if layout.multiline {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(style.nl);
                    out.push_str(&inner);
                } else if i > 0 {
                    out.push_str(&layout.sep);
                }
                out.push_str(&json_string(k)?);
                out.push_str(&layout.colon);
                write_value(out, v, layout, &inner, style)?;
            }
            if layout.multiline {
                out.push_str(style.nl);
                out.push_str(indent);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            let inner = format!("{indent}{}", style.unit);
            for (i, v) in a.iter().enumerate() {
                if layout.multiline {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(style.nl);
                    out.push_str(&inner);
                } else if i > 0 {
                    out.push_str(&layout.sep);
                }
                write_value(out, v, layout, &inner, style)?;
            }
            if layout.multiline {
                out.push_str(style.nl);
                out.push_str(indent);
            }
            out.push(']');
        }
    }
    Ok(())
}

/// Plans the insertion of a new member at the end of object `obj`. Returns the splices and, when the
/// object was empty with whitespace-only inner text that gets replaced, that original inner text.
fn insert_member(
    text: &str,
    tree: &Tree,
    obj: usize,
    key: &str,
    value: &Value,
    style: &Style,
) -> Result<(Vec<Splice>, Option<String>), EditError> {
    let b = text.as_bytes();
    let o = tree
        .objs
        .get(obj)
        .ok_or_else(|| internal("object index out of range"))?;
    let layout = Layout::for_object(text, tree, obj);
    let obj_indent = line_indent(text, o.open);
    let member = |indent: &str| -> Result<String, EditError> {
        let mut s = json_string(key)?;
        s.push_str(&layout.colon);
        write_value(&mut s, value, &layout, indent, style)?;
        Ok(s)
    };
    if let Some(last) = o.members.last() {
        let trailing = last.comma;
        if layout.multiline {
            let indent = own_line_indent(b, last.key_start)
                .or_else(|| {
                    o.members
                        .first()
                        .and_then(|m| own_line_indent(b, m.key_start))
                })
                .map(str::to_owned)
                .unwrap_or_else(|| format!("{obj_indent}{}", style.unit));
            let anchor = trailing.map_or(last.value_end, |c| c + 1);
            // Insert after the rest of the last member's line (its trailing comment), so that
            // comment keeps following its own member.
            let mut at = anchor;
            for it in gap_items(b, anchor, o.close) {
                match it.kind {
                    Gap::Space => {}
                    Gap::BlockComment { multiline: false } => at = it.end,
                    Gap::LineComment => {
                        at = it.end;
                        break;
                    }
                    Gap::Newline => {
                        at = it.start;
                        break;
                    }
                    _ => break,
                }
            }
            // Never put our line break right after a lone CR: `\r` + `\n` would read back as
            // one CRLF and the removal would take the CR (found by fuzzing).
            while at > anchor && b.get(at - 1) == Some(&b'\r') {
                at -= 1;
            }
            let mut ins = format!("{}{indent}{}", style.nl, member(&indent)?);
            let mut splices = Vec::new();
            if trailing.is_some() {
                ins.push(',');
            } else {
                splices.push(Splice::new(last.value_end, last.value_end, ",".into()));
            }
            splices.push(Splice::new(at, at, ins));
            Ok((splices, None))
        } else {
            let m = member("")?;
            let s = match trailing {
                Some(c) => {
                    let after = layout.sep.get(1..).unwrap_or("");
                    Splice::new(c + 1, c + 1, format!("{after}{m},"))
                }
                None => Splice::new(last.value_end, last.value_end, format!("{}{m}", layout.sep)),
            };
            Ok((vec![s], None))
        }
    } else {
        let inner = text
            .get(o.open + 1..o.close)
            .ok_or_else(|| internal("object span out of range"))?;
        let indent = format!("{obj_indent}{}", style.unit);
        if inner.bytes().all(is_ws) {
            let new_inner = if layout.multiline {
                format!(
                    "{nl}{indent}{}{nl}{obj_indent}",
                    member(&indent)?,
                    nl = style.nl
                )
            } else {
                member("")?
            };
            Ok((
                vec![Splice::new(o.open + 1, o.close, new_inner)],
                Some(inner.to_owned()),
            ))
        } else {
            // Keep the comments; add the member after the last one.
            let at = gap_items(b, o.open + 1, o.close)
                .iter()
                .rev()
                .find(|it| !matches!(it.kind, Gap::Space | Gap::Newline))
                .map_or(o.open + 1, |it| it.end);
            let ins = if layout.multiline {
                format!("{}{indent}{}", style.nl, member(&indent)?)
            } else {
                let sp = if layout.colon.ends_with([' ', '\t']) {
                    " "
                } else {
                    ""
                };
                format!("{sp}{}", member("")?)
            };
            Ok((vec![Splice::new(at, at, ins)], None))
        }
    }
}

/// Start of the whitespace run that precedes a key, scanning the gap `[from, key_start)` forwards.
/// A line break that ends a `//` comment is kept, so the comment never swallows the next token.
fn ws_run_start(b: &[u8], from: usize, key_start: usize) -> usize {
    let items = gap_items(b, from, key_start);
    let mut start = from;
    let mut after_line_comment = false;
    for it in &items {
        match it.kind {
            Gap::Space => {}
            Gap::Newline => {
                if after_line_comment {
                    start = it.end;
                    after_line_comment = false;
                }
            }
            Gap::LineComment => {
                start = it.end;
                after_line_comment = true;
            }
            _ => {
                start = it.end;
                after_line_comment = false;
            }
        }
    }
    start
}

/// If the member ends its line (only a comma and comments after it, then a line break), the
/// position where that line break starts.
fn own_line_end(b: &[u8], m: &MemSpan, next: usize) -> Option<usize> {
    let items = gap_items(b, m.value_end, next);
    let mut iter = items.iter().peekable();
    let mut end = None;
    while let Some(it) = iter.next() {
        match it.kind {
            // A lone `\r` ends a `//` comment, and a member inserted after such a comment is
            // followed by it: the member's line ends before it (found by fuzzing: removal
            // swallowed the `\r`). Only right after the value, so whitespace before a lone `\r`
            // is never taken.
            Gap::Space if b.get(it.start) == Some(&b'\r') => {
                end = Some(it.start);
                break;
            }
            Gap::Space | Gap::Comma | Gap::BlockComment { multiline: false } => {}
            Gap::LineComment => {
                if iter.peek().is_some_and(|n| n.kind == Gap::Newline) {
                    end = Some(it.end);
                }
                break;
            }
            Gap::Newline => {
                end = Some(it.start);
                break;
            }
            _ => break,
        }
    }
    let end = end?;
    match m.comma {
        Some(c) if c >= end => None,
        _ => Some(end),
    }
}

/// The state remove() edits step by step, verifying each step against the previous one.
struct Work<'a> {
    syntax: Syntax,
    /// Where the text starts in `buf` (after a BOM).
    start: usize,
    buf: std::borrow::Cow<'a, str>,
    root: ObjSpan,
    changed: bool,
}

impl Work<'_> {
    fn text(&self) -> &str {
        self.buf.get(self.start..).unwrap_or("")
    }

    /// The objects along `path`, and the index of the last one if the whole path exists.
    fn spine(&self, path: &[String]) -> (Tree, Option<usize>) {
        let tree = spine(self.text(), &self.root, path, self.syntax);
        let idx = (tree.objs.len() == path.len() + 1).then(|| tree.objs.len() - 1);
        (tree, idx)
    }

    /// An object with no members and only whitespace inside.
    fn is_blank_object(&self, path: &[String]) -> bool {
        let (tree, idx) = self.spine(path);
        idx.and_then(|i| tree.objs.get(i)).is_some_and(|o| {
            o.members.is_empty()
                && self
                    .text()
                    .as_bytes()
                    .get(o.open + 1..o.close)
                    .is_some_and(|s| s.iter().all(|&c| is_ws(c)))
        })
    }

    /// Applies `splices` inside object `obj` of `tree` (at key path `path`), verifies the result
    /// (see [`commit_edit`]) and makes it current.
    fn commit(
        &mut self,
        splices: &[Splice],
        tree: &Tree,
        obj: usize,
        path: &[String],
        keys: &[&str],
        expect: Expect<'_>,
    ) -> Result<(), EditError> {
        let x = tree
            .objs
            .get(obj)
            .ok_or_else(|| internal("object index out of range"))?;
        let prefix = self.buf.get(..self.start).unwrap_or("");
        let (buf, root) = commit_edit(
            self.syntax,
            prefix,
            self.text(),
            &self.root,
            x,
            obj == 0,
            path.len(),
            splices,
            keys,
            expect,
        )?;
        self.buf = std::borrow::Cow::Owned(buf);
        self.root = root;
        self.changed = true;
        Ok(())
    }

    fn remove_member(&mut self, container: &[String], name: &str) -> Result<(), EditError> {
        let (tree, obj) = self.spine(container);
        let obj = obj.ok_or_else(|| internal("container not found"))?;
        let o = tree
            .objs
            .get(obj)
            .ok_or_else(|| internal("object index out of range"))?;
        let i = o
            .members
            .iter()
            .position(|m| m.key == name)
            .ok_or_else(|| internal("member not found"))?;
        let m = o.members.get(i).ok_or_else(|| internal("member index"))?;
        let prev = i.checked_sub(1).and_then(|j| o.members.get(j));
        let next = o.members.get(i + 1);
        let b = self.text().as_bytes();
        let next_token = next.map_or(o.close, |n| n.key_start);
        let mut splices = Vec::new();
        let own = own_line_start(b, m.key_start).zip(own_line_end(b, m, next_token));
        let is_last = next.is_none();
        if let Some((start, end)) = own {
            // The member owns whole lines: drop them (from the line break before it).
            splices.push(Splice::new(start, end, String::new()));
            if is_last
                && m.comma.is_none()
                && let Some(c) = prev.and_then(|p| p.comma)
            {
                splices.push(Splice::new(c, c + 1, String::new()));
            }
        } else if !is_last {
            // `"a": 1, "b": 2` -> `"b": 2`: the member, its comma and the spaces after it.
            let c = m.comma.ok_or_else(|| internal("missing separator comma"))?;
            let mut end = c + 1;
            while matches!(b.get(end), Some(b' ' | b'\t')) {
                end += 1;
            }
            splices.push(Splice::new(m.key_start, end.min(next_token), String::new()));
        } else {
            // Last member on a shared line: the whitespace before it, the member, and either its
            // own trailing comma or the previous member's separator comma.
            let from = prev.map_or(o.open + 1, |p| p.value_end);
            let start = if prev.is_some() {
                ws_run_start(b, from, m.key_start)
            } else {
                ws_run_start(b, o.open + 1, m.key_start)
            };
            let end = m.comma.map_or(m.value_end, |c| c + 1);
            splices.push(Splice::new(start, end, String::new()));
            if m.comma.is_none()
                && let Some(c) = prev.and_then(|p| p.comma)
            {
                splices.push(Splice::new(c, c + 1, String::new()));
            }
        }
        self.commit(&splices, &tree, obj, container, &[name], Expect::Removed)
    }

    fn restore_inner(&mut self, path: &[String], inner: &str) -> Result<(), EditError> {
        if !self.is_blank_object(path) {
            return Ok(());
        }
        let (tree, idx) = self.spine(path);
        let Some(obj) = idx else { return Ok(()) };
        let Some(o) = tree.objs.get(obj) else {
            return Ok(());
        };
        if self.text().get(o.open + 1..o.close) == Some(inner) {
            return Ok(());
        }
        let splices = [Splice::new(o.open + 1, o.close, inner.to_owned())];
        self.commit(&splices, &tree, obj, path, &[], Expect::Same)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn p(path: &[&str]) -> Vec<String> {
        path.iter().map(|s| (*s).to_owned()).collect()
    }

    fn text(d: &JsonDoc) -> String {
        String::from_utf8(d.to_bytes()).unwrap()
    }

    // ----------------------------------------------------------------------------------------
    // Refusals
    // ----------------------------------------------------------------------------------------

    #[test]
    fn refusals() {
        use Syntax::{Json, JsonComments, Jsonc};
        let deep_after_key = format!("{{\"a\":{}", "[".repeat(200));
        let cases: Vec<(Vec<u8>, Syntax, &str, usize, usize)> = vec![
            (b"\xff".to_vec(), Json, "invalid-utf8", 1, 1),
            (
                b"{\"a\":\n\"\xc3\x28\"}".to_vec(),
                Json,
                "invalid-utf8",
                2,
                2,
            ),
            (
                b"{\"\xc3\xa9\":\"\xe9\"}".to_vec(),
                Json,
                "invalid-utf8",
                1,
                7,
            ),
            (b"".to_vec(), Json, "empty-file", 1, 1),
            (b" \n\t\r\n".to_vec(), Jsonc, "empty-file", 1, 1),
            (b"\xEF\xBB\xBF".to_vec(), Json, "empty-file", 1, 1),
            (
                b"// nothing\n/* here */".to_vec(),
                Jsonc,
                "empty-file",
                1,
                1,
            ),
            (b"{\"a\":1 // c\n}".to_vec(), Json, "parse-error", 1, 8),
            (b"{\"a\":1 /* c */}".to_vec(), Json, "parse-error", 1, 8),
            (b"{\"a\":1,}".to_vec(), Json, "parse-error", 1, 7),
            (b"{\"a\":1,\n}".to_vec(), JsonComments, "parse-error", 1, 7),
            (b"{\"a\":[1,]}".to_vec(), JsonComments, "parse-error", 1, 8),
            (b"{\"a\":[1,,2]}".to_vec(), Jsonc, "parse-error", 1, 9),
            (b"{,\"a\":1}".to_vec(), Jsonc, "parse-error", 1, 2),
            (b"{,}".to_vec(), Jsonc, "parse-error", 1, 2),
            (b"{'a':1}".to_vec(), Jsonc, "parse-error", 1, 2),
            (b"{\"a\":'x'}".to_vec(), Jsonc, "parse-error", 1, 6),
            (b"{a:1}".to_vec(), Jsonc, "parse-error", 1, 2),
            (b"{\"a\":0x10}".to_vec(), Jsonc, "parse-error", 1, 7),
            (b"{\"a\":+1}".to_vec(), Jsonc, "parse-error", 1, 6),
            (b"{\"a\":.5}".to_vec(), Jsonc, "parse-error", 1, 6),
            (b"{\"a\":01}".to_vec(), Json, "parse-error", 1, 7),
            (b"{\"a\":1.}".to_vec(), Json, "parse-error", 1, 8),
            (b"{\"a\":1e}".to_vec(), Json, "parse-error", 1, 8),
            (b"{\"a\":-}".to_vec(), Json, "parse-error", 1, 7),
            (b"{\"a\":1e400}".to_vec(), Json, "parse-error", 1, 6),
            (b"{\"a\":NaN}".to_vec(), Jsonc, "parse-error", 1, 6),
            (b"{\"a\":Infinity}".to_vec(), Jsonc, "parse-error", 1, 6),
            (b"{\"a\":-Infinity}".to_vec(), Jsonc, "parse-error", 1, 7),
            (b"{\"a\":tru}".to_vec(), Json, "parse-error", 1, 6),
            (b"{\"a\":\"\\ud800\"}".to_vec(), Json, "parse-error", 1, 7),
            (b"{\"a\":\"\\udc00\"}".to_vec(), Json, "parse-error", 1, 7),
            (
                b"{\"a\":\"\\ud800\\u0041\"}".to_vec(),
                Json,
                "parse-error",
                1,
                7,
            ),
            (b"{\"\\ud800\":1}".to_vec(), Json, "parse-error", 1, 3),
            (b"{\"a\":\"\\x\"}".to_vec(), Json, "parse-error", 1, 7),
            (b"{\"a\":\"\\u12\"}".to_vec(), Json, "parse-error", 1, 7),
            (b"{\"a\":\"x\ty\"}".to_vec(), Json, "parse-error", 1, 8),
            (b"{\"a\":\"x\ny\"}".to_vec(), Jsonc, "parse-error", 1, 8),
            (b"{\"a\":\"x\0\"}".to_vec(), Json, "parse-error", 1, 8),
            (b"{} {}".to_vec(), Json, "parse-error", 1, 4),
            (b"{}x".to_vec(), Json, "parse-error", 1, 3),
            (b"{}\0".to_vec(), Json, "parse-error", 1, 3),
            (b"{}\n[]".to_vec(), Jsonc, "parse-error", 2, 1),
            (b"{\"a\":".to_vec(), Json, "parse-error", 1, 6),
            (b"{\"a\":1".to_vec(), Json, "parse-error", 1, 7),
            (b"{\"a\":\"abc".to_vec(), Json, "parse-error", 1, 6),
            (b"{\"a".to_vec(), Json, "parse-error", 1, 2),
            (b"{\"a\" 1}".to_vec(), Json, "parse-error", 1, 6),
            (b"{\"a\":1 \"b\":2}".to_vec(), Jsonc, "parse-error", 1, 8),
            (b"{} /* x".to_vec(), Jsonc, "parse-error", 1, 4),
            (b"{} / x".to_vec(), Jsonc, "parse-error", 1, 4),
            (
                b"\xEF\xBB\xBF\xEF\xBB\xBF{}".to_vec(),
                Json,
                "parse-error",
                1,
                1,
            ),
            (b"{\"a\":1,\"a\":2}".to_vec(), Json, "duplicate-key", 1, 8),
            (
                b"{\"x\":{\"b\":1,\n  \"b\":2}}".to_vec(),
                Json,
                "duplicate-key",
                2,
                3,
            ),
            (
                b"{\"a\":1,\"\\u0061\":2}".to_vec(),
                Json,
                "duplicate-key",
                1,
                8,
            ),
            (
                b"{\"x\":[{\"k\":1,\"k\":2}]}".to_vec(),
                Json,
                "duplicate-key",
                1,
                14,
            ),
            (deep_after_key.into_bytes(), Json, "too-deep", 1, 133),
            ("[".repeat(100_000).into_bytes(), Json, "too-deep", 1, 129),
            (
                "{\"a\":".repeat(100_000).into_bytes(),
                Jsonc,
                "too-deep",
                1,
                641,
            ),
            (b"[]".to_vec(), Json, "not-an-object", 1, 1),
            (b"null".to_vec(), Json, "not-an-object", 1, 1),
            (b"\"x\"".to_vec(), Json, "not-an-object", 1, 1),
            (b"1".to_vec(), Json, "not-an-object", 1, 1),
            (b"  \n  [1,]".to_vec(), Jsonc, "not-an-object", 2, 3),
            (b"\xEF\xBB\xBF[]".to_vec(), Json, "not-an-object", 1, 1),
        ];
        for (input, syntax, code, line, column) in cases {
            let shown = String::from_utf8_lossy(&input[..input.len().min(40)]).into_owned();
            match JsonDoc::parse(&input, syntax) {
                Ok(_) => panic!("{shown:?} ({syntax:?}) was accepted"),
                Err(e) => {
                    assert_eq!(
                        (e.code, e.line, e.column),
                        (code, line, column),
                        "{shown:?} ({syntax:?}): {e}"
                    );
                    assert!(!e.message.is_empty());
                    assert!(!e.message.starts_with(char::is_uppercase), "{e}");
                    assert!(!e.message.ends_with('.'), "{e}");
                }
            }
        }
    }

    #[test]
    fn accepted_per_syntax() {
        use Syntax::{Json, JsonComments, Jsonc};
        let cases: &[(&str, &[Syntax])] = &[
            ("{}", &[Json, JsonComments, Jsonc]),
            ("{\"a\":1} // c", &[JsonComments, Jsonc]),
            ("/* c */{\"a\":[1, /* c */ 2]}", &[JsonComments, Jsonc]),
            ("{\"a\":[1,2,],}", &[Jsonc]),
            (
                "{\"a\":\"\\ud83d\\ude00 \\u00e9 \\/ \\b\\f\\n\\r\\t\"}",
                &[Json, JsonComments, Jsonc],
            ),
            (
                "{\"n\":[0,-0,1.50,1E2,-1e-3,12345678901234567890,123456789012345678901234]}",
                &[Json, JsonComments, Jsonc],
            ),
            ("{\"a\":1} // no final newline", &[JsonComments, Jsonc]),
            ("{\"a\":1} //\r{}", &[]),
        ];
        for (input, ok) in cases {
            for syntax in [Json, JsonComments, Jsonc] {
                let r = JsonDoc::parse(input.as_bytes(), syntax);
                assert_eq!(
                    r.is_ok(),
                    ok.contains(&syntax),
                    "{input:?} {syntax:?}: {r:?}"
                );
                if let Ok(d) = r {
                    assert_eq!(d.to_bytes(), input.as_bytes());
                }
            }
        }
        // 128 levels are accepted (the root is level 1).
        let ok = format!("{{\"a\":{}{}}}", "[".repeat(127), "]".repeat(127));
        assert!(JsonDoc::parse(ok.as_bytes(), Json).is_ok());
        let bad = format!("{{\"a\":{}{}}}", "[".repeat(128), "]".repeat(128));
        assert_eq!(
            JsonDoc::parse(bad.as_bytes(), Json).unwrap_err().code,
            "too-deep"
        );
    }

    // ----------------------------------------------------------------------------------------
    // Formatting
    // ----------------------------------------------------------------------------------------

    #[test]
    fn formatting() {
        use Syntax::{Json, Jsonc};
        let cmd = json!({"command": "x"});
        let cases: Vec<(&str, Syntax, Vec<String>, &str)> = vec![
            // tabs + CRLF
            (
                "{\r\n\t\"a\": 1\r\n}\r\n",
                Json,
                p(&["mcpServers"]),
                "{\r\n\t\"a\": 1,\r\n\t\"mcpServers\": {\r\n\t\t\"srv\": {\r\n\t\t\t\"command\": \"x\"\r\n\t\t}\r\n\t}\r\n}\r\n",
            ),
            // 4-space indent detected
            (
                "{\n    \"mcpServers\": {\n        \"a\": 1\n    }\n}",
                Json,
                p(&["mcpServers"]),
                "{\n    \"mcpServers\": {\n        \"a\": 1,\n        \"srv\": {\n            \"command\": \"x\"\n        }\n    }\n}",
            ),
            // trailing commas kept
            (
                "{\n  \"mcpServers\": {\n    \"a\": 1,\n  },\n}",
                Jsonc,
                p(&["mcpServers"]),
                "{\n  \"mcpServers\": {\n    \"a\": 1,\n    \"srv\": {\n      \"command\": \"x\"\n    },\n  },\n}",
            ),
            // comment after the last property stays on its line
            (
                "{\n  \"mcpServers\": {\n    \"a\": 1 // keep\n  }\n}",
                Jsonc,
                p(&["mcpServers"]),
                "{\n  \"mcpServers\": {\n    \"a\": 1, // keep\n    \"srv\": {\n      \"command\": \"x\"\n    }\n  }\n}",
            ),
            // comment before the closing brace stays last
            (
                "{\n  \"mcpServers\": {\n    \"a\": 1\n    // end\n  }\n}",
                Jsonc,
                p(&["mcpServers"]),
                "{\n  \"mcpServers\": {\n    \"a\": 1,\n    \"srv\": {\n      \"command\": \"x\"\n    }\n    // end\n  }\n}",
            ),
            // comment inside an empty object is kept
            (
                "{\n  \"mcpServers\": {\n    // add servers here\n  }\n}",
                Jsonc,
                p(&["mcpServers"]),
                "{\n  \"mcpServers\": {\n    // add servers here\n    \"srv\": {\n      \"command\": \"x\"\n    }\n  }\n}",
            ),
            // one-line objects stay one-line, spacing copied
            (
                "{\"mcpServers\":{\"a\":1}}",
                Json,
                p(&["mcpServers"]),
                "{\"mcpServers\":{\"a\":1,\"srv\":{\"command\":\"x\"}}}",
            ),
            (
                "{\"mcpServers\": {\"a\": 1}}\n",
                Json,
                p(&["mcpServers"]),
                "{\"mcpServers\": {\"a\": 1, \"srv\": {\"command\": \"x\"}}}\n",
            ),
            (
                "{\"a\": 1, \"mcpServers\": {}}",
                Json,
                p(&["mcpServers"]),
                "{\"a\": 1, \"mcpServers\": {\"srv\": {\"command\": \"x\"}}}",
            ),
            (
                "{ \"a\": 1 }",
                Json,
                p(&["mcpServers"]),
                "{ \"a\": 1, \"mcpServers\": {\"srv\": {\"command\": \"x\"}} }",
            ),
            // single-line object inside a multi-line file stays single-line
            (
                "{\n  \"mcpServers\": {\"a\": 1}\n}",
                Json,
                p(&["mcpServers"]),
                "{\n  \"mcpServers\": {\"a\": 1, \"srv\": {\"command\": \"x\"}}\n}",
            ),
            // BOM
            (
                "\u{feff}{}",
                Json,
                p(&["mcpServers"]),
                "\u{feff}{\n  \"mcpServers\": {\n    \"srv\": {\n      \"command\": \"x\"\n    }\n  }\n}",
            ),
            // replace keeps everything else
            (
                "{\"mcpServers\": {\"srv\": {\"old\": true}, \"b\": 2}}",
                Json,
                p(&["mcpServers"]),
                "{\"mcpServers\": {\"srv\": {\"command\": \"x\"}, \"b\": 2}}",
            ),
            // numbers and escapes elsewhere untouched
            (
                "{\"n\": 12345678901234567890, \"f\": 1.50, \"e\": 1E2, \"s\": \"\\u00e9\", \"mcpServers\": {}}",
                Json,
                p(&["mcpServers"]),
                "{\"n\": 12345678901234567890, \"f\": 1.50, \"e\": 1E2, \"s\": \"\\u00e9\", \"mcpServers\": {\"srv\": {\"command\": \"x\"}}}",
            ),
            // nested path created under an existing object
            (
                "{\n  \"projects\": {\n    \"/p\": {\n      \"x\": 1\n    }\n  }\n}\n",
                Json,
                p(&["projects", "/p", "mcpServers"]),
                "{\n  \"projects\": {\n    \"/p\": {\n      \"x\": 1,\n      \"mcpServers\": {\n        \"srv\": {\n          \"command\": \"x\"\n        }\n      }\n    }\n  }\n}\n",
            ),
        ];
        for (input, syntax, path, expected) in cases {
            let mut d = JsonDoc::parse(input.as_bytes(), syntax).unwrap();
            let existed = d.get(&path).is_some_and(|c| c.get("srv").is_some());
            let hints = d.upsert(&path, "srv", &cmd).unwrap();
            assert_eq!(text(&d), expected, "upsert into {input:?}");
            if !existed {
                d.remove(&path, "srv", &hints).unwrap();
                assert_eq!(text(&d), input, "remove from {expected:?}");
            }
        }
    }

    #[test]
    fn removal_keeps_neighbour_comments() {
        let input =
            "{\n  // about a\n  \"a\": 1, // a line\n  // about b\n  \"b\": 2 // b line\n}\n";
        let cases = [
            (
                "a",
                "{\n  // about a\n  // about b\n  \"b\": 2 // b line\n}\n",
            ),
            (
                "b",
                "{\n  // about a\n  \"a\": 1 // a line\n  // about b\n}\n",
            ),
        ];
        for (name, expected) in cases {
            let mut d = JsonDoc::parse(input.as_bytes(), Syntax::Jsonc).unwrap();
            d.remove(&[], name, &[]).unwrap();
            assert_eq!(text(&d), expected);
        }
        // one-line, with a comment between members
        let input = "{\"a\": 1, /* c */ \"b\": 2}";
        let mut d = JsonDoc::parse(input.as_bytes(), Syntax::Jsonc).unwrap();
        d.remove(&[], "b", &[]).unwrap();
        assert_eq!(text(&d), "{\"a\": 1 /* c */}");
        let mut d = JsonDoc::parse(input.as_bytes(), Syntax::Jsonc).unwrap();
        d.remove(&[], "a", &[]).unwrap();
        assert_eq!(text(&d), "{/* c */ \"b\": 2}");
        // a line comment before the last member never swallows the closing brace
        let input = "{\"a\": 1, // c\n  \"b\": 2}";
        let mut d = JsonDoc::parse(input.as_bytes(), Syntax::Jsonc).unwrap();
        d.remove(&[], "b", &[]).unwrap();
        assert_eq!(text(&d), "{\"a\": 1 // c\n}");
        // trailing comma on the removed last member: the previous comma becomes trailing
        let input = "{\n  \"a\": 1,\n  \"b\": 2,\n}";
        let mut d = JsonDoc::parse(input.as_bytes(), Syntax::Jsonc).unwrap();
        d.remove(&[], "b", &[]).unwrap();
        assert_eq!(text(&d), "{\n  \"a\": 1,\n}");
    }

    #[test]
    fn edit_errors() {
        let mut d = JsonDoc::parse(b"{\"mcpServers\": [1]}", Syntax::Json).unwrap();
        let e = d.upsert(&p(&["mcpServers"]), "x", &json!(1)).unwrap_err();
        assert_eq!((e.code, e.line, e.column), ("not-an-object", 1, 16));
        let e = d
            .upsert(&p(&["mcpServers", "deeper"]), "x", &json!(1))
            .unwrap_err();
        assert_eq!(e.code, "not-an-object");
        let e = d.remove(&p(&["mcpServers"]), "x", &[]).unwrap_err();
        assert_eq!(e.code, "not-an-object");
        let e = d.remove(&p(&["nope"]), "x", &[]).unwrap_err();
        assert_eq!(e.code, "not-found");
        let mut d = JsonDoc::parse(b"{\"m\": {}}", Syntax::Json).unwrap();
        let e = d.remove(&p(&["m"]), "x", &[]).unwrap_err();
        assert_eq!(e.code, "not-found");
        let bad = [UndoHint::EmptyInner {
            path: vec![],
            inner: "x".into(),
        }];
        let e = d.remove(&p(&["m"]), "x", &bad).unwrap_err();
        assert_eq!(e.code, "invalid-hint");
        // a value nested too deep is refused before anything is written
        let mut v = json!(1);
        for _ in 0..130 {
            v = json!([v]);
        }
        let before = d.to_bytes();
        let e = d.upsert(&p(&["m"]), "x", &v).unwrap_err();
        assert_eq!(e.code, "too-deep");
        assert_eq!(d.to_bytes(), before);
    }

    /// Fuzzing regression: a lone `\r` after a `//` comment that ends the last member's line
    /// must survive an upsert followed by the remove.
    #[test]
    fn lone_cr_after_line_comment_survives_upsert_remove() {
        let src = b"{\"other\": true// c\r\r\n// d\n}\n";
        for s in [Syntax::JsonComments, Syntax::Jsonc] {
            let mut d = JsonDoc::parse(src, s).unwrap();
            let hints = d
                .upsert(&p(&["mcpServers"]), "srv", &json!({"command": "x"}))
                .unwrap();
            d.remove(&p(&["mcpServers"]), "srv", &hints).unwrap();
            assert_eq!(d.to_bytes(), src);
            let hints = d.upsert(&p(&[]), "srv", &json!(1)).unwrap();
            d.remove(&p(&[]), "srv", &hints).unwrap();
            assert_eq!(d.to_bytes(), src);
        }
        // …but whitespace before a lone `\r` that follows a value stays where it is.
        let src = b"{\n\"m\": \r{}\t\t\r\r\t}\n";
        let mut d = JsonDoc::parse(src, Syntax::Jsonc).unwrap();
        let c = p(&["projects", "/p", "mcpServers"]);
        let hints = d.upsert(&c, "a", &json!(1)).unwrap();
        d.remove(&c, "a", &hints).unwrap();
        assert_eq!(d.to_bytes(), src);
    }

    #[test]
    fn hints_serialize_small() {
        let mut d = JsonDoc::parse(b"{}", Syntax::Json).unwrap();
        let hints = d
            .upsert(&p(&["mcpServers"]), "s", &json!({"command": "secret"}))
            .unwrap();
        let s = serde_json::to_string(&hints).unwrap();
        assert_eq!(
            s,
            r#"[{"kind":"empty-inner","path":[],"inner":""},{"kind":"created","path":["mcpServers"]}]"#
        );
        let back: Vec<UndoHint> = serde_json::from_str(&s).unwrap();
        assert_eq!(back, hints);
    }

    // ----------------------------------------------------------------------------------------
    // Property tests
    // ----------------------------------------------------------------------------------------

    /// A generated JSON shape; scalars and keys hold their exact source spelling.
    #[derive(Debug, Clone)]
    enum G {
        Obj(Vec<(String, G)>),
        Arr(Vec<G>),
        Raw(String),
    }

    impl G {
        fn has_key(&self, raw: &str) -> bool {
            matches!(self, G::Obj(ms) if ms.iter().any(|(k, _)| k == raw))
        }
    }

    /// Formatting knobs for rendering a `G`.
    #[derive(Debug, Clone)]
    struct Fmt {
        syntax: Syntax,
        nl: &'static str,
        /// `None` = everything on one line.
        indent: Option<&'static str>,
        colon: &'static str,
        sep: &'static str,
        bom: bool,
        final_nl: bool,
        seed: u64,
    }

    /// Tiny deterministic RNG so comment placement is part of the generated case.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn chance(&mut self, in_n: u64) -> bool {
            self.next().is_multiple_of(in_n)
        }
    }

    fn render_doc(root: &G, f: &Fmt) -> Vec<u8> {
        let mut rng = Rng(f.seed | 1);
        let mut out = String::new();
        if f.syntax.comments() && rng.chance(3) {
            out.push_str(if f.indent.is_some() {
                "// head"
            } else {
                "/* head */"
            });
            out.push_str(f.nl);
        }
        render(&mut out, root, 0, f, &mut rng);
        if f.syntax.comments() && rng.chance(4) {
            out.push_str(" /* tail */");
        }
        if f.final_nl {
            out.push_str(f.nl);
        }
        let mut bytes = Vec::new();
        if f.bom {
            bytes.extend_from_slice(BOM);
        }
        bytes.extend_from_slice(out.as_bytes());
        bytes
    }

    fn render(out: &mut String, g: &G, depth: usize, f: &Fmt, rng: &mut Rng) {
        let comments = f.syntax.comments();
        let block = |rng: &mut Rng, out: &mut String| {
            if comments && rng.chance(6) {
                out.push_str("/* b, } */ ");
            }
        };
        match g {
            G::Raw(r) => out.push_str(r),
            G::Obj(_) | G::Arr(_) if ms_len(g) == 0 => {
                let (o, c) = if matches!(g, G::Obj(_)) {
                    ('{', '}')
                } else {
                    ('[', ']')
                };
                out.push(o);
                match rng.next() % 4 {
                    0 => out.push(' '),
                    1 if f.indent.is_some() => {
                        out.push_str(f.nl);
                        out.push_str(&f.indent.unwrap_or("").repeat(depth));
                    }
                    2 if comments && f.indent.is_some() => {
                        out.push_str(f.nl);
                        out.push_str(&f.indent.unwrap_or("").repeat(depth + 1));
                        out.push_str("// empty");
                        out.push_str(f.nl);
                        out.push_str(&f.indent.unwrap_or("").repeat(depth));
                    }
                    _ => {}
                }
                out.push(c);
            }
            G::Obj(_) | G::Arr(_) => {
                let (o, c) = if matches!(g, G::Obj(_)) {
                    ('{', '}')
                } else {
                    ('[', ']')
                };
                let items: Vec<(Option<&String>, &G)> = match g {
                    G::Obj(ms) => ms.iter().map(|(k, v)| (Some(k), v)).collect(),
                    G::Arr(vs) => vs.iter().map(|v| (None, v)).collect(),
                    G::Raw(_) => vec![],
                };
                out.push(o);
                if let Some(unit) = f.indent {
                    if comments && rng.chance(5) {
                        out.push_str(" // open");
                    }
                    let pad = unit.repeat(depth + 1);
                    let n = items.len();
                    for (i, (k, v)) in items.into_iter().enumerate() {
                        out.push_str(f.nl);
                        out.push_str(&pad);
                        if comments && rng.chance(5) {
                            out.push_str("// before");
                            out.push_str(f.nl);
                            out.push_str(&pad);
                        }
                        if let Some(k) = k {
                            out.push_str(k);
                            out.push_str(f.colon);
                        }
                        render(out, v, depth + 1, f, rng);
                        if i + 1 < n || (f.syntax.trailing_commas() && rng.chance(2)) {
                            out.push(',');
                        }
                        if comments && rng.chance(4) {
                            out.push_str(if rng.chance(2) {
                                " // after, }"
                            } else {
                                " /* after */"
                            });
                        }
                    }
                    if comments && rng.chance(4) {
                        out.push_str(f.nl);
                        out.push_str(&pad);
                        out.push_str("// before close");
                    }
                    out.push_str(f.nl);
                    out.push_str(&unit.repeat(depth));
                } else {
                    let n = items.len();
                    for (i, (k, v)) in items.into_iter().enumerate() {
                        block(rng, out);
                        if let Some(k) = k {
                            out.push_str(k);
                            out.push_str(f.colon);
                        }
                        render(out, v, depth + 1, f, rng);
                        if i + 1 < n {
                            out.push_str(f.sep);
                        } else if f.syntax.trailing_commas() && rng.chance(3) {
                            out.push(',');
                        }
                    }
                    block(rng, out);
                }
                out.push(c);
            }
        }
    }

    fn ms_len(g: &G) -> usize {
        match g {
            G::Obj(v) => v.len(),
            G::Arr(v) => v.len(),
            G::Raw(_) => 0,
        }
    }

    fn raw_string() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(r#""plain""#.to_owned()),
            Just(r#""caf\u00e9""#.to_owned()),
            Just(r#""caf\u00E9""#.to_owned()),
            Just(r#""tab\there\n""#.to_owned()),
            Just(r#""q\"uote\\ \/ sl""#.to_owned()),
            Just(r#""\ud83d\ude00 emoji 😀""#.to_owned()),
            Just(r#""${V} // not a comment /* */""#.to_owned()),
            Just(r#""""#.to_owned()),
            any::<String>().prop_map(|s| serde_json::to_string(&s).unwrap_or_default()),
            "[a-zA-Z0-9_./-]{0,12}".prop_map(|s| format!("\"{s}\"")),
        ]
    }

    fn raw_scalar() -> impl Strategy<Value = String> {
        prop_oneof![
            raw_string(),
            Just("12345678901234567890".to_owned()),
            Just("123456789012345678901234567890".to_owned()),
            Just("1.50".to_owned()),
            Just("1E2".to_owned()),
            Just("-0".to_owned()),
            Just("-1.5e-3".to_owned()),
            Just("0.1".to_owned()),
            any::<i64>().prop_map(|i| i.to_string()),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(|f| format!("{f:e}")),
            Just("true".to_owned()),
            Just("false".to_owned()),
            Just("null".to_owned()),
        ]
    }

    fn dedupe(ms: Vec<(String, G)>) -> Vec<(String, G)> {
        let mut seen = std::collections::HashSet::new();
        ms.into_iter()
            .filter(|(k, _)| {
                let d: String = serde_json::from_str(k).unwrap_or_default();
                d != "mcpServers" && d != "projects" && !d.starts_with("mcpconf-") && seen.insert(d)
            })
            .collect()
    }

    fn gen_value() -> impl Strategy<Value = G> {
        raw_scalar()
            .prop_map(G::Raw)
            .prop_recursive(4, 32, 5, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..5).prop_map(G::Arr),
                    prop::collection::vec((raw_string(), inner), 0..5)
                        .prop_map(|ms| G::Obj(dedupe(ms))),
                ]
            })
    }

    fn mcp_entry() -> G {
        G::Obj(vec![
            ("\"command\"".into(), G::Raw("\"npx\"".into())),
            (
                "\"args\"".into(),
                G::Arr(vec![G::Raw("\"-y\"".into()), G::Raw("\"x\"".into())]),
            ),
            (
                "\"env\"".into(),
                G::Obj(vec![("\"K\"".into(), G::Raw("\"${V}\"".into()))]),
            ),
        ])
    }

    /// Where the servers live in the generated document.
    #[derive(Debug, Clone, Copy)]
    enum Place {
        /// `mcpServers` absent.
        Absent,
        /// `mcpServers` present with this many entries (0 = empty object).
        Present(usize),
        /// `projects` -> `/abs/dir` -> `mcpServers`, with none/some levels present.
        Nested(usize),
    }

    fn gen_doc() -> impl Strategy<Value = (Vec<u8>, Fmt, Vec<String>)> {
        let fmt = (
            prop_oneof![
                Just(Syntax::Json),
                Just(Syntax::JsonComments),
                Just(Syntax::Jsonc)
            ],
            prop_oneof![Just("\n"), Just("\r\n")],
            prop_oneof![
                Just(None),
                Just(Some("  ")),
                Just(Some("    ")),
                Just(Some("\t"))
            ],
            prop_oneof![Just(":"), Just(": ")],
            prop_oneof![Just(","), Just(", ")],
            any::<bool>(),
            any::<bool>(),
            any::<u64>(),
        )
            .prop_map(
                |(syntax, nl, indent, colon, sep, bom, final_nl, seed)| Fmt {
                    syntax,
                    nl,
                    indent,
                    colon,
                    sep,
                    bom,
                    final_nl,
                    seed,
                },
            );
        let place = prop_oneof![
            Just(Place::Absent),
            (0usize..4).prop_map(Place::Present),
            (0usize..4).prop_map(Place::Nested),
        ];
        (
            fmt,
            prop::collection::vec((raw_string(), gen_value()), 0..6),
            place,
            0usize..8,
            prop::collection::vec(gen_value(), 0..3),
        )
            .prop_map(|(f, members, place, at, extra_entries)| {
                let mut ms = dedupe(members);
                let entries = |n: usize| -> G {
                    let mut v: Vec<(String, G)> = Vec::new();
                    for i in 0..n {
                        let g = if i == 0 {
                            mcp_entry()
                        } else {
                            extra_entries.get(i - 1).cloned().unwrap_or_else(mcp_entry)
                        };
                        v.push((format!("\"srv{i}\""), g));
                    }
                    G::Obj(v)
                };
                let (container, member) = match place {
                    Place::Absent => (vec!["mcpServers".to_owned()], None),
                    Place::Present(n) => (
                        vec!["mcpServers".to_owned()],
                        Some(("\"mcpServers\"".to_owned(), entries(n))),
                    ),
                    Place::Nested(level) => {
                        let container = vec![
                            "projects".to_owned(),
                            "/abs/dir".to_owned(),
                            "mcpServers".to_owned(),
                        ];
                        let g = match level {
                            0 => None,
                            1 => Some(G::Obj(vec![])),
                            2 => Some(G::Obj(vec![("\"/abs/dir\"".into(), G::Obj(vec![]))])),
                            _ => Some(G::Obj(vec![(
                                "\"/abs/dir\"".into(),
                                G::Obj(vec![("\"mcpServers\"".into(), entries(2))]),
                            )])),
                        };
                        (container, g.map(|g| ("\"projects\"".to_owned(), g)))
                    }
                };
                if let Some(m) = member {
                    let at = at.min(ms.len());
                    ms.insert(at, m);
                }
                let root = G::Obj(ms);
                debug_assert!(!root.has_key("\"mcpconf-a\""));
                (render_doc(&root, &f), f, container)
            })
    }

    fn entry_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(json!({"command":"npx","args":["-y","x"],"env":{"K":"${V}"}})),
            Just(json!({"url":"https://e.x/mcp","headers":{"Authorization":"Bearer ${T}"}})),
            Just(json!({})),
            Just(json!([])),
            Just(json!("str \u{e9} \" \\ \n")),
            Just(json!(1.5)),
            gen_value().prop_filter_map("valid", |g| {
                let f = Fmt {
                    syntax: Syntax::Json,
                    nl: "\n",
                    indent: None,
                    colon: ":",
                    sep: ",",
                    bom: false,
                    final_nl: false,
                    seed: 1,
                };
                let mut s = String::new();
                render(&mut s, &g, 0, &f, &mut Rng(1));
                serde_json::from_str(&s).ok()
            }),
        ]
    }

    fn cfg() -> ProptestConfig {
        ProptestConfig {
            cases: std::env::var("PROPTEST_CASES")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(512),
            ..ProptestConfig::default()
        }
    }

    fn show(b: &[u8]) -> String {
        String::from_utf8_lossy(b).into_owned()
    }

    proptest! {
        #![proptest_config(cfg())]

        /// 1. parse then to_bytes is the identity.
        #[test]
        fn prop_roundtrip((bytes, f, _c) in gen_doc()) {
            let d = JsonDoc::parse(&bytes, f.syntax);
            prop_assert!(d.is_ok(), "{:?}\n{}", d.err(), show(&bytes));
            let d = d.unwrap();
            prop_assert_eq!(d.to_bytes(), bytes);
        }

        /// 2 + 3. upsert a new name: the value is old + entry; remove with the hints restores the
        /// input byte for byte.
        #[test]
        fn prop_upsert_remove((bytes, f, container) in gen_doc(), v in entry_value()) {
            let mut d = JsonDoc::parse(&bytes, f.syntax).unwrap();
            let mut expected = d.value().clone();
            set_path(&mut expected, &container, "mcpconf-a", v.clone()).unwrap();
            let hints = d.upsert(&container, "mcpconf-a", &v);
            prop_assert!(hints.is_ok(), "{:?}\n{}", hints.err(), show(&bytes));
            let hints = hints.unwrap();
            let after = d.to_bytes();
            let re = JsonDoc::parse(&after, f.syntax).unwrap();
            prop_assert_eq!(re.value(), expected);
            // the BOM and the untouched start of the file are kept
            prop_assert_eq!(after.starts_with(BOM), bytes.starts_with(BOM));
            // a second identical upsert changes nothing
            let mut again = re.clone();
            prop_assert_eq!(again.upsert(&container, "mcpconf-a", &v).unwrap(), vec![]);
            prop_assert_eq!(again.to_bytes(), after.clone());
            let r = d.remove(&container, "mcpconf-a", &hints);
            prop_assert!(r.is_ok(), "{:?}\n{}", r.err(), show(&after));
            prop_assert_eq!(show(&d.to_bytes()), show(&bytes), "after upsert:\n{}", show(&after));
        }

        /// 3. replacing an existing entry only changes that entry's value bytes.
        #[test]
        fn prop_replace_only_value((bytes, f, container) in gen_doc(), v in entry_value()) {
            let mut d = JsonDoc::parse(&bytes, f.syntax).unwrap();
            let Some(Value::Object(m)) = d.get(&container) else { return Ok(()) };
            let Some(name) = m.keys().next().cloned() else { return Ok(()) };
            let tree = spine(d.text(), &d.root, &container, d.syntax);
            let span = tree.objs.last().unwrap().members.iter().find(|m| m.key == name).map(|m| (m.value_start, m.value_end)).unwrap();
            let old = d.text().to_owned();
            let mut expected = d.value().clone();
            set_path(&mut expected, &container, &name, v.clone()).unwrap();
            prop_assert_eq!(d.upsert(&container, &name, &v).unwrap(), vec![]);
            let new = d.text().to_owned();
            prop_assert_eq!(d.value(), expected);
            prop_assert_eq!(&new[..span.0], &old[..span.0]);
            prop_assert_eq!(&new[new.len() - (old.len() - span.1)..], &old[span.1..]);
        }

        /// 4. two upserts, removed in reverse order with their own hints, or in insertion order
        /// with the union of the hints: both give back the input exactly.
        #[test]
        fn prop_two_entries((bytes, f, container) in gen_doc(), a in entry_value(), b in entry_value(), reverse in any::<bool>()) {
            let mut d = JsonDoc::parse(&bytes, f.syntax).unwrap();
            let ha = d.upsert(&container, "mcpconf-a", &a).unwrap();
            let hb = d.upsert(&container, "mcpconf-b", &b).unwrap();
            let mid = d.to_bytes();
            if reverse {
                d.remove(&container, "mcpconf-b", &hb).unwrap();
                d.remove(&container, "mcpconf-a", &ha).unwrap();
            } else {
                let all: Vec<UndoHint> = ha.iter().chain(hb.iter()).cloned().collect();
                d.remove(&container, "mcpconf-a", &ha).unwrap();
                d.remove(&container, "mcpconf-b", &all).unwrap();
            }
            prop_assert_eq!(show(&d.to_bytes()), show(&bytes), "with both:\n{}", show(&mid));
        }

        /// 4b. insertion order with only each entry's own hints: the value is the input's, except
        /// that containers created by the first upsert may remain (empty).
        #[test]
        fn prop_two_entries_own_hints((bytes, f, container) in gen_doc(), a in entry_value(), b in entry_value()) {
            let mut d = JsonDoc::parse(&bytes, f.syntax).unwrap();
            let orig = d.value().clone();
            let ha = d.upsert(&container, "mcpconf-a", &a).unwrap();
            let hb = d.upsert(&container, "mcpconf-b", &b).unwrap();
            prop_assert!(hb.is_empty());
            d.remove(&container, "mcpconf-a", &ha).unwrap();
            d.remove(&container, "mcpconf-b", &hb).unwrap();
            if ha.is_empty() {
                prop_assert_eq!(show(&d.to_bytes()), show(&bytes));
            } else {
                let mut v = d.value().clone();
                if let Some(UndoHint::Created { path }) = ha.iter().find(|h| matches!(h, UndoHint::Created { .. })) {
                    let (last, parent) = path.split_last().unwrap();
                    let mut cur = &mut v;
                    for k in parent { cur = cur.get_mut(k.as_str()).unwrap(); }
                    cur.as_object_mut().unwrap().shift_remove(last);
                }
                prop_assert_eq!(v, orig);
            }
        }

        /// 5. no panics on arbitrary bytes.
        #[test]
        fn prop_no_panic_random(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
            for s in [Syntax::Json, Syntax::JsonComments, Syntax::Jsonc] {
                let _ = JsonDoc::parse(&bytes, s);
            }
        }

        /// 5. no panics on mutated valid documents, and for strict JSON the same accept/refuse
        /// decision as serde_json (modulo the extra rules: duplicates, root type).
        #[test]
        fn prop_no_panic_mutations(
            (bytes, _f, _c) in gen_doc(),
            edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<u8>()), 1..4),
            pick in prop::sample::select(vec![b'{', b'}', b'[', b']', b'"', b'\\', b',', b':', b'/', b'*', b'\n', b'\r', b' ', b'0', b'e', b'.', b'-', b'+', 0u8, 0xff]),
        ) {
            let mut bytes = bytes;
            for (i, op, byte) in edits {
                let b = if byte % 2 == 0 { pick } else { byte };
                let at = if bytes.is_empty() { 0 } else { i.index(bytes.len()) };
                match op {
                    0 if !bytes.is_empty() => { bytes.remove(at); }
                    1 => bytes.insert(at, b),
                    _ if !bytes.is_empty() => bytes[at] = b,
                    _ => {}
                }
            }
            let mine: Vec<_> = [Syntax::Json, Syntax::JsonComments, Syntax::Jsonc]
                .iter().map(|&s| JsonDoc::parse(&bytes, s)).collect();
            let body = bytes.strip_prefix(BOM).unwrap_or(&bytes);
            let serde = serde_json::from_slice::<Value>(body);
            match (&mine[0], &serde) {
                (Ok(d), Ok(v)) => prop_assert!(values_agree(&d.value(), v)),
                (Ok(_), Err(e)) => prop_assert!(false, "accepted but serde_json says {e}: {}", show(&bytes)),
                (Err(e), Ok(v)) => prop_assert!(
                    matches!(e.code, "duplicate-key" | "not-an-object" | "too-deep") && (e.code != "not-an-object" || !v.is_object()),
                    "refused {e} but serde_json accepts: {}", show(&bytes)),
                (Err(_), Err(_)) => {}
            }
            // anything strict JSON accepts, the laxer syntaxes accept identically
            if let Ok(d) = &mine[0] {
                prop_assert_eq!(mine[1].as_ref().map(|x| x.value()).ok(), Some(d.value()));
                prop_assert_eq!(mine[2].as_ref().map(|x| x.value()).ok(), Some(d.value()));
            }
            same_as_builder(&bytes)?;
        }

        /// 6. the validating pass and the building parser decide identically, with the same
        /// error (code, message, position), on generated documents too.
        #[test]
        fn prop_validate_equals_build((bytes, _f, _c) in gen_doc()) {
            same_as_builder(&bytes)?;
        }
    }

    /// The validating pass that [`JsonDoc::parse`] uses and the building parser agree exactly,
    /// and so do the shallow member listing of the root and the built tree's root.
    fn same_as_builder(bytes: &[u8]) -> Result<(), TestCaseError> {
        let body = bytes.strip_prefix(BOM).unwrap_or(bytes);
        let Ok(text) = std::str::from_utf8(body) else {
            return Ok(());
        };
        for s in [Syntax::Json, Syntax::JsonComments, Syntax::Jsonc] {
            let v = parse_core(text, s, Mode::VALIDATE);
            let b = parse_only(text, s);
            match (&v, &b) {
                (Ok(v), Ok(b)) => {
                    let (vr, br) = (&v.tree.objs[0], &b.tree.objs[0]);
                    prop_assert_eq!(
                        (vr.open, vr.close, vr.members.len()),
                        (br.open, br.close, br.members.len())
                    );
                    for (x, y) in vr.members.iter().zip(&br.members) {
                        prop_assert_eq!(
                            (
                                &x.key,
                                x.key_start,
                                x.key_end,
                                x.value_start,
                                x.value_end,
                                x.comma
                            ),
                            (
                                &y.key,
                                y.key_start,
                                y.key_end,
                                y.value_start,
                                y.value_end,
                                y.comma
                            )
                        );
                    }
                    let sh = shallow(text, br.open, s, None).unwrap();
                    for (x, y) in sh.members.iter().zip(&br.members) {
                        prop_assert_eq!(
                            (
                                &x.key,
                                x.key_start,
                                x.key_end,
                                x.value_start,
                                x.value_end,
                                x.comma
                            ),
                            (
                                &y.key,
                                y.key_start,
                                y.key_end,
                                y.value_start,
                                y.value_end,
                                y.comma
                            )
                        );
                    }
                    prop_assert_eq!(sh.members.len(), br.members.len());
                    prop_assert_eq!(v.blanks.clone(), b.blanks.clone());
                }
                (Err(x), Err(y)) => prop_assert_eq!(x, y),
                _ => prop_assert!(
                    false,
                    "validate {:?} but build {:?}: {}",
                    v.as_ref().err(),
                    b.as_ref().err(),
                    show(bytes)
                ),
            }
        }
        Ok(())
    }
}
