//! A client config document, whatever its syntax: the engine's one view of a file's contents.
//!
//! Values cross this boundary as `serde_json::Value` (the neutral form); each syntax keeps its
//! own format-preserving editor behind it. Pure: no I/O.

use serde_json::Value;

use crate::dialect::Syntax;
use crate::jsondoc::{self, JsonDoc, UndoHint};

/// A refusal to read a file, with a stable code and a 1-based position.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadError {
    /// Stable kebab-case code (`parse-error`, `duplicate-key`, …).
    pub code: &'static str,
    /// One sentence.
    pub message: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

/// A parsed document.
#[derive(Debug, Clone)]
pub struct Doc {
    inner: JsonDoc,
}

fn json_syntax(s: Syntax) -> jsondoc::Syntax {
    match s {
        Syntax::Json => jsondoc::Syntax::Json,
        Syntax::JsonComments => jsondoc::Syntax::JsonComments,
        Syntax::Jsonc => jsondoc::Syntax::Jsonc,
    }
}

impl Doc {
    /// Parse a file's bytes in a client's syntax, failing closed.
    pub fn parse(bytes: &[u8], syntax: Syntax) -> Result<Doc, ReadError> {
        Doc::parse_vec(bytes.to_vec(), syntax)
    }

    /// [`Doc::parse`] taking ownership of the bytes, which the document then holds (no copy).
    pub fn parse_vec(bytes: Vec<u8>, syntax: Syntax) -> Result<Doc, ReadError> {
        JsonDoc::parse_vec(bytes, json_syntax(syntax))
            .map(|inner| Doc { inner })
            .map_err(|e| ReadError {
                code: e.code,
                message: e.message,
                line: e.line,
                column: e.column,
            })
    }

    /// The text of a new file holding `root`.
    pub fn new_file_text(root: &Value, _syntax: Syntax) -> Vec<u8> {
        let mut s = serde_json::to_string_pretty(root).unwrap_or_else(|_| "{}".into());
        s.push('\n');
        s.into_bytes()
    }

    /// The whole root value, built on demand (costly for a big file: prefer [`Doc::get`]).
    pub fn root(&self) -> Value {
        self.inner.value()
    }

    /// The value at a path of object keys; only that value is built.
    pub fn get(&self, path: &[String]) -> Option<Value> {
        self.inner.get(path)
    }

    /// The kind of the value at a path (`"an object"`, `"an array"`, `"a string"`, `"a number"`,
    /// `"a boolean"` or `"null"`), without building it.
    pub fn kind(&self, path: &[String]) -> Option<&'static str> {
        self.inner.kind(path)
    }

    /// Set an entry, creating containers; returns opaque undo hints.
    pub fn upsert(
        &mut self,
        container: &[String],
        name: &str,
        value: &Value,
    ) -> Result<Option<Value>, ReadError> {
        let hints = self
            .inner
            .upsert(container, name, value)
            .map_err(edit_error)?;
        Ok(if hints.is_empty() {
            None
        } else {
            serde_json::to_value(hints).ok()
        })
    }

    /// Remove an entry, using the hints its upsert returned.
    pub fn remove(
        &mut self,
        container: &[String],
        name: &str,
        hints: Option<&Value>,
    ) -> Result<(), ReadError> {
        let hints: Vec<UndoHint> = hints
            .and_then(|h| serde_json::from_value(h.clone()).ok())
            .unwrap_or_default();
        self.inner
            .remove(container, name, &hints)
            .map_err(edit_error)
    }

    /// Index of an entry among its container's entries, in document order (to remove the
    /// entries that come last first).
    pub fn position(&self, container: &[String], name: &str) -> Option<usize> {
        self.inner.position(container, name)
    }

    /// 1-based line and column of the entry at `path`, if it exists.
    pub fn location(&self, path: &[String]) -> Option<(usize, usize)> {
        self.inner.location(path)
    }

    /// The file's bytes (shared with every clone of this document until one is edited).
    pub fn bytes(&self) -> &[u8] {
        self.inner.bytes()
    }

    /// The bytes to write.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.inner.to_bytes()
    }

    /// The bytes to write, without a copy when no clone shares them.
    pub fn into_bytes(self) -> Vec<u8> {
        self.inner.into_bytes()
    }

    /// Whether two documents hold the same bytes (cheap when nothing was edited).
    pub fn same_bytes(&self, other: &Doc) -> bool {
        self.inner.same_bytes(&other.inner)
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
