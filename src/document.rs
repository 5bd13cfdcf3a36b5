//! A client config document, whatever its syntax: the engine's one view of a file's contents.
//!
//! Values cross this boundary as `serde_json::Value` (the neutral form), built only for the
//! paths asked for; each syntax keeps its own format-preserving editor behind it:
//! [`crate::jsondoc`] for JSON and JSONC, [`crate::tomldoc`] for TOML, [`crate::yamldoc`] for
//! YAML. Pure: no I/O.

use crate::diag::Code;
use serde_json::Value;

use crate::jsondoc::{self, JsonDoc, UndoHint};
use crate::keyed_json;
use crate::text::Content;
use crate::tomldoc::TomlDoc;
use crate::yamldoc::{UndoHint as YamlHint, YamlDoc};

/// File syntax a client reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// Strict RFC 8259 JSON.
    Json,
    /// JSON with comments, no trailing commas.
    JsonComments,
    /// JSON with comments and trailing commas.
    Jsonc,
    /// TOML.
    Toml,
    /// YAML (the block-style subset [`crate::yamldoc`] edits).
    Yaml,
}

impl Syntax {
    /// A short human name.
    pub fn describe(self) -> &'static str {
        match self {
            Syntax::Json => "strict JSON",
            Syntax::JsonComments => "JSON with comments",
            Syntax::Jsonc => "JSON with comments and trailing commas",
            Syntax::Toml => "TOML",
            Syntax::Yaml => "YAML",
        }
    }
}

pub use crate::diag::ReadError;

pub use crate::keyed::{BAD_KEYED_LIST, get_path, keyed_segment, keyed_view};

/// A parsed document.
#[derive(Debug, Clone)]
pub enum Doc {
    /// JSON or JSONC.
    Json(JsonDoc),
    /// TOML.
    Toml(Box<TomlDoc>),
    /// YAML.
    Yaml(Box<YamlDoc>),
}

fn json_syntax(s: Syntax) -> jsondoc::Syntax {
    match s {
        Syntax::Json | Syntax::Toml | Syntax::Yaml => jsondoc::Syntax::Json,
        Syntax::JsonComments => jsondoc::Syntax::JsonComments,
        Syntax::Jsonc => jsondoc::Syntax::Jsonc,
    }
}

fn read_error(e: jsondoc::ReadError) -> ReadError {
    ReadError {
        code: e.code,
        message: e.message,
        line: e.line,
        column: e.column,
    }
}

/// The kind of a value, as error messages say it.
pub fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Doc {
    /// Parse a file's bytes in a client's syntax, failing closed.
    pub fn parse(bytes: &[u8], syntax: Syntax) -> Result<Doc, ReadError> {
        Doc::parse_vec(bytes.to_vec(), syntax)
    }

    /// [`Doc::parse`] taking ownership of the bytes, which the document then holds (no copy).
    pub fn parse_vec(bytes: Vec<u8>, syntax: Syntax) -> Result<Doc, ReadError> {
        if syntax == Syntax::Toml {
            return TomlDoc::parse_vec(bytes).map(|d| Doc::Toml(Box::new(d)));
        }
        if syntax == Syntax::Yaml {
            return YamlDoc::parse(bytes).map(|d| Doc::Yaml(Box::new(d)));
        }
        JsonDoc::parse_vec(bytes, json_syntax(syntax))
            .map(Doc::Json)
            .map_err(read_error)
    }

    /// An empty document of a syntax, to build a new file with [`Doc::upsert`].
    pub fn empty(syntax: Syntax) -> Result<Doc, ReadError> {
        match syntax {
            Syntax::Toml => Ok(Doc::Toml(Box::new(TomlDoc::empty()))),
            Syntax::Yaml => Ok(Doc::Yaml(Box::new(YamlDoc::empty()))),
            other => Doc::parse(b"{}\n", other),
        }
    }

    /// A new document of a syntax starting with `text` (a client's required header), or
    /// [`Doc::empty`] when `text` is empty.
    pub fn new_file(syntax: Syntax, text: &str) -> Result<Doc, ReadError> {
        if text.is_empty() {
            Doc::empty(syntax)
        } else {
            Doc::parse(text.as_bytes(), syntax)
        }
    }

    /// The whole root value, built on demand (costly for a big file: prefer [`Doc::get`]).
    pub fn root(&self) -> Value {
        match self {
            Doc::Json(d) => d.value(),
            Doc::Toml(d) => d.value(),
            Doc::Yaml(d) => d.value(),
        }
    }

    /// The value at a path of object keys; only that value is built.
    pub fn get(&self, path: &[String]) -> Option<Value> {
        if let (Doc::Json(d), Some(_)) = (self, keyed_json::first(path)) {
            return keyed_json::get(d, path).and_then(Result::ok);
        }
        match self {
            Doc::Json(d) => d.get(path),
            Doc::Toml(d) => d.get(path),
            Doc::Yaml(d) => d.get(path),
        }
    }

    /// The kind of the value at a path (`"an object"`, `"an array"`, …), without building it.
    pub fn kind(&self, path: &[String]) -> Option<&'static str> {
        if let (Doc::Json(d), Some(_)) = (self, keyed_json::first(path)) {
            return keyed_json::get(d, path).map(|r| r.map_or_else(|bad| bad, |v| kind_of(&v)));
        }
        match self {
            Doc::Json(d) => d.kind(path),
            Doc::Toml(d) => match d.shape(path)? {
                Ok(v) => Some(kind_of(&v)),
                Err(bad) => Some(bad),
            },
            Doc::Yaml(d) => d.kind(path),
        }
    }

    /// Index of an entry among its container's entries, in document order (to remove the
    /// entries that come last first).
    pub fn position(&self, container: &[String], name: &str) -> Option<usize> {
        if let (Doc::Json(d), Some(_)) = (self, keyed_json::first(container)) {
            return keyed_json::position(d, container, name);
        }
        match self {
            Doc::Json(d) => d.position(container, name),
            Doc::Toml(d) => d
                .get(container)?
                .as_object()?
                .keys()
                .position(|k| k == name),
            Doc::Yaml(d) => d.position(container, name),
        }
    }

    /// How many entries the object at `container` holds (`None`: no object there).
    pub fn member_count(&self, container: &[String]) -> Option<usize> {
        if let (Doc::Json(d), Some(_)) = (self, keyed_json::first(container)) {
            return keyed_json::member_count(d, container);
        }
        match self {
            Doc::Json(d) => d.member_count(container),
            Doc::Toml(d) => Some(d.get(container)?.as_object()?.len()),
            Doc::Yaml(d) => d.member_count(container),
        }
    }

    /// Sets (`Some`) or removes (`None`) several distinct entries of the existing object at
    /// `container`, which keeps at least one entry: the same result as the single edits one
    /// after the other ([`Doc::upsert`], [`Doc::remove`] without hints), made and proven in one
    /// pass over a JSON object when its layout allows, else by those single edits.
    pub fn edit_entries(
        &mut self,
        container: &[String],
        edits: &[(String, Option<Value>)],
    ) -> Result<(), ReadError> {
        if let Doc::Json(d) = self
            && keyed_json::first(container).is_none()
            && d.edit_members(container, edits).is_ok()
        {
            return Ok(());
        }
        for (name, value) in edits {
            match value {
                Some(v) => {
                    self.upsert(container, name, v)?;
                }
                None => self.remove(container, name, None)?,
            }
        }
        Ok(())
    }

    /// 1-based line and column of the entry at `path`, if known.
    pub fn location(&self, path: &[String]) -> Option<(usize, usize)> {
        if let (Doc::Json(d), Some((key, _))) = (self, keyed_json::first(path)) {
            // The list: its elements have no key of their own.
            return d.location(&[key.to_string()]);
        }
        match self {
            Doc::Json(d) => d.location(path),
            Doc::Toml(_) => None,
            Doc::Yaml(d) => d.location(path),
        }
    }

    /// Set an entry, creating containers; returns opaque undo hints.
    pub fn upsert(
        &mut self,
        container: &[String],
        name: &str,
        value: &Value,
    ) -> Result<Option<Value>, ReadError> {
        if let (Doc::Json(d), Some(_)) = (&mut *self, keyed_json::first(container)) {
            return keyed_json::upsert(d, container, name, value);
        }
        match self {
            Doc::Json(d) => {
                let hints = d.upsert(container, name, value).map_err(edit_error)?;
                Ok(if hints.is_empty() {
                    None
                } else {
                    serde_json::to_value(hints).ok()
                })
            }
            Doc::Toml(d) => d.upsert(container, name, value).map(|()| None),
            Doc::Yaml(d) => {
                let hints = d.upsert(container, name, value)?;
                Ok(if hints.is_empty() {
                    None
                } else {
                    serde_json::to_value(hints).ok()
                })
            }
        }
    }

    /// Update the existing entry `name` (an object) to `value` while its members `keep` (the
    /// client's own keys, not in `value`) stay exactly as they are, bytes included: only the
    /// members that differ are set, members that are neither wanted nor kept are removed, new
    /// members are appended.
    pub fn update_entry(
        &mut self,
        container: &[String],
        name: &str,
        value: &Value,
        keep: &[String],
    ) -> Result<(), ReadError> {
        if let (Doc::Json(_), Some(_)) = (&*self, keyed_json::first(container)) {
            // An element is written whole (its members are few).
            return self.upsert(container, name, value).map(|_| ());
        }
        let mut path = container.to_vec();
        path.push(name.to_string());
        let (Some(Value::Object(now)), Some(want)) = (self.get(&path), value.as_object()) else {
            return self.upsert(container, name, value).map(|_| ());
        };
        if let Doc::Toml(d) = self {
            // TOML tables are edited field by field already; equal fields are left untouched.
            let mut merged = want.clone();
            for k in keep {
                if let Some(x) = now.get(k) {
                    merged.insert(k.clone(), x.clone());
                }
            }
            return d.upsert(container, name, &Value::Object(merged));
        }
        let mut edits: Vec<(String, Option<Value>)> = Vec::new();
        for (k, _) in now.iter() {
            if !want.contains_key(k) && !keep.iter().any(|c| c == k) {
                edits.push((k.clone(), None));
            }
        }
        for (k, x) in want {
            if keep.iter().any(|c| c == k) {
                continue;
            }
            if now.get(k) != Some(x) {
                edits.push((k.clone(), Some(x.clone())));
            }
        }
        if edits.is_empty() {
            return Ok(());
        }
        self.edit_entries(&path, &edits)
    }

    /// Remove an entry, using the hints its upsert returned.
    pub fn remove(
        &mut self,
        container: &[String],
        name: &str,
        hints: Option<&Value>,
    ) -> Result<(), ReadError> {
        if let (Doc::Json(d), Some(_)) = (&mut *self, keyed_json::first(container)) {
            return keyed_json::remove(d, container, name, hints);
        }
        match self {
            Doc::Json(d) => {
                let hints: Vec<UndoHint> = hints
                    .and_then(|h| serde_json::from_value(h.clone()).ok())
                    .unwrap_or_default();
                d.remove(container, name, &hints).map_err(edit_error)
            }
            Doc::Toml(d) => d.remove(container, name),
            Doc::Yaml(d) => {
                let hints: Vec<YamlHint> = match hints {
                    Some(h) => serde_json::from_value(h.clone()).map_err(|_| ReadError {
                        code: Code::InvalidHint,
                        message: format!("the undo hints of `{name}` are not YAML undo hints"),
                        line: 1,
                        column: 1,
                    })?,
                    None => Vec::new(),
                };
                d.remove(container, name, &hints)
            }
        }
    }

    /// Append a string to the array at `path` (JSON documents only), touching only its bytes.
    pub fn array_push(&mut self, path: &[String], value: &str) -> Result<(), ReadError> {
        self.array_edit(path, value, true)
    }

    /// Remove the last occurrence of a string from the array at `path`.
    pub fn array_remove(&mut self, path: &[String], value: &str) -> Result<(), ReadError> {
        self.array_edit(path, value, false)
    }

    fn array_edit(&mut self, path: &[String], value: &str, push: bool) -> Result<(), ReadError> {
        let fail = |m: &str| ReadError {
            code: Code::InternalEditError,
            message: format!("cannot edit the array `{}`: {m}", path.join(".")),
            line: 1,
            column: 1,
        };
        let Doc::Json(d) = self else {
            return Err(fail("only JSON documents have grant arrays"));
        };
        let Some(Value::Array(old)) = d.get(path) else {
            return Err(fail("it is not an array"));
        };
        let mut expected = old;
        if push {
            expected.push(Value::String(value.to_string()));
        } else {
            let Some(i) = expected.iter().rposition(|v| v.as_str() == Some(value)) else {
                return Err(fail("the value is not in it"));
            };
            expected.remove(i);
        }
        let array = d.value_text(path).ok_or_else(|| fail("not found"))?;
        let edited = if push {
            crate::jsondoc::array::push(&array, value)
        } else {
            crate::jsondoc::array::remove(&array, value)
        }
        .ok_or_else(|| fail("its text could not be split into elements"))?;
        let (name, container) = path.split_last().ok_or_else(|| fail("not found"))?;
        // Proven like every edit: everything else unchanged, the array exactly as intended.
        d.replace_value(container, name, &edited, &Value::Array(expected))
            .map_err(|e| fail(&e.message))
    }

    /// The file's bytes (for JSON shared with every clone of this document until one is
    /// edited).
    pub fn bytes(&self) -> &[u8] {
        match self {
            Doc::Json(d) => d.bytes(),
            Doc::Toml(d) => d.bytes(),
            Doc::Yaml(d) => d.bytes(),
        }
    }

    /// The bytes to write.
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            Doc::Json(d) => d.to_bytes(),
            Doc::Toml(d) => d.to_bytes(),
            Doc::Yaml(d) => d.content().to_vec(),
        }
    }

    /// The bytes to write, without a copy when no clone shares them.
    pub fn into_bytes(self) -> Vec<u8> {
        match self {
            Doc::Json(d) => d.into_bytes(),
            Doc::Toml(d) => d.into_bytes(),
            Doc::Yaml(d) => d.into_bytes(),
        }
    }

    /// The bytes to write, as [`Content`]: for JSON and TOML the bytes read plus the edited
    /// ranges' new bytes, shared, not copied (for YAML read whole, the whole new text, shared).
    pub fn content(&self) -> Content {
        match self {
            Doc::Json(d) => d.content(),
            Doc::Toml(d) => d.content(),
            Doc::Yaml(d) => d.content(),
        }
    }

    /// Whether two documents hold the same bytes (cheap when nothing was edited).
    pub fn same_bytes(&self, other: &Doc) -> bool {
        match (self, other) {
            (Doc::Json(a), Doc::Json(b)) => a.same_bytes(b),
            (Doc::Toml(a), Doc::Toml(b)) => a.same_bytes(b),
            (Doc::Yaml(a), Doc::Yaml(b)) => a.content() == b.content(),
            (a, b) => a.bytes() == b.bytes(),
        }
    }
}

fn edit_error(e: jsondoc::EditError) -> ReadError {
    ReadError {
        code: e.code,
        message: e.message,
        line: e.line,
        column: e.column,
    }
}
