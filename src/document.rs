//! A client config document, whatever its syntax: the engine's one view of a file's contents.
//!
//! Values cross this boundary as `serde_json::Value` (the neutral form); each syntax keeps its
//! own format-preserving editor behind it: [`crate::jsondoc`] for JSON and JSONC,
//! [`crate::tomldoc`] for TOML. Pure: no I/O.

use serde_json::Value;

use crate::dialect::Syntax;
use crate::jsondoc::{self, JsonDoc, UndoHint};
use crate::tomldoc::TomlDoc;

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
pub enum Doc {
    /// JSON or JSONC.
    Json(JsonDoc),
    /// TOML.
    Toml(TomlDoc),
}

fn json_syntax(s: Syntax) -> jsondoc::Syntax {
    match s {
        Syntax::Json | Syntax::Toml => jsondoc::Syntax::Json,
        Syntax::JsonComments => jsondoc::Syntax::JsonComments,
        Syntax::Jsonc => jsondoc::Syntax::Jsonc,
    }
}

impl Doc {
    /// Parse a file's bytes in a client's syntax, failing closed.
    pub fn parse(bytes: &[u8], syntax: Syntax) -> Result<Doc, ReadError> {
        if syntax == Syntax::Toml {
            return TomlDoc::parse(bytes).map(Doc::Toml);
        }
        JsonDoc::parse(bytes, json_syntax(syntax))
            .map(Doc::Json)
            .map_err(|e| ReadError {
                code: e.code,
                message: e.message,
                line: e.line,
                column: e.column,
            })
    }

    /// An empty document of a syntax, to build a new file with [`Doc::upsert`].
    pub fn empty(syntax: Syntax) -> Result<Doc, ReadError> {
        match syntax {
            Syntax::Toml => Ok(Doc::Toml(TomlDoc::empty())),
            other => Doc::parse(b"{}\n", other),
        }
    }

    /// The whole root value.
    pub fn root(&self) -> &Value {
        match self {
            Doc::Json(d) => d.value(),
            Doc::Toml(d) => d.value(),
        }
    }

    /// The value at a path of object keys.
    pub fn get(&self, path: &[String]) -> Option<&Value> {
        match self {
            Doc::Json(d) => d.get(path),
            Doc::Toml(d) => d.get(path),
        }
    }

    /// Index of an entry among its container's entries, in document order (to remove the
    /// entries that come last first).
    pub fn position(&self, container: &[String], name: &str) -> Option<usize> {
        self.get(container)?
            .as_object()?
            .keys()
            .position(|k| k == name)
    }

    /// 1-based line and column of the entry at `path`, if known.
    pub fn location(&self, path: &[String]) -> Option<(usize, usize)> {
        match self {
            Doc::Json(d) => d.location(path),
            Doc::Toml(_) => None,
        }
    }

    /// Set an entry, creating containers; returns opaque undo hints.
    pub fn upsert(
        &mut self,
        container: &[String],
        name: &str,
        value: &Value,
    ) -> Result<Option<Value>, ReadError> {
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
        }
    }

    /// Remove an entry, using the hints its upsert returned.
    pub fn remove(
        &mut self,
        container: &[String],
        name: &str,
        hints: Option<&Value>,
    ) -> Result<(), ReadError> {
        match self {
            Doc::Json(d) => {
                let hints: Vec<UndoHint> = hints
                    .and_then(|h| serde_json::from_value(h.clone()).ok())
                    .unwrap_or_default();
                d.remove(container, name, &hints).map_err(edit_error)
            }
            Doc::Toml(d) => d.remove(container, name),
        }
    }

    /// The bytes to write.
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            Doc::Json(d) => d.to_bytes(),
            Doc::Toml(d) => d.to_bytes(),
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
