//! Byte-preserving reading and editing of YAML agent config files (Goose, Continue, Hermes).
//!
//! No YAML crate keeps the bytes of a file it edits while failing closed on what it cannot
//! keep (see docs/design.md), so this module is a splice editor in the style of
//! [`crate::jsondoc`]:
//!
//! * **Reading, fail closed.** A strict parser of the subset config files use: block mappings
//!   and sequences, plain, single- and double-quoted scalars on one line, literal and folded
//!   block scalars, flow collections. Refused with a stable code and the 1-based line and
//!   column: invalid UTF-8 (`invalid-utf8`), duplicate keys at any depth (`duplicate-key`),
//!   nesting deeper than [`MAX_DEPTH`] (`too-deep`); anchors, aliases, tags, merge keys,
//!   complex keys, directives, several documents and multi-line plain or quoted scalars
//!   (`unsupported-yaml`): valid YAML whose meaning a splice could change or that a reader
//!   could expand (an alias bomb). A whitespace-only file is `empty-file`.
//! * **Editing by splicing.** Every mapping entry and sequence item has its byte span; an
//!   upsert replaces the entry's lines or inserts new lines after the last sibling, a remove
//!   deletes the entry's lines. Nothing else changes: comments, quoting, indentation, blank
//!   lines, line endings, a missing final newline. New text follows the file's indentation and
//!   newline and quotes every string a YAML 1.1 or 1.2 reader could take for something else.
//! * **Servers in a list.** In list mode (Continue) a sequence on a path is addressed by its
//!   items' `name`: the container reads as an object keyed by name, an entry is the item.
//! * **Exact undo.** An upsert that creates the container or fills an empty flow one (`{}`,
//!   `[]`) returns [`UndoHint`]s so that the matching remove gives back the original bytes.
//! * **Verification.** After every edit the new text is parsed again and its value must equal
//!   the old value with exactly the intended change, or the edit is refused
//!   (`internal-edit-error`) and the document is left as it was.
//!
//! Pure: no I/O, no panics on any input.

mod emit;
mod parse;
mod scalar;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::diag::{Code, ReadError};
use crate::text::line_col;
use parse::{Item, Kind, Node, Parser, to_value};

pub use parse::MAX_DEPTH;

/// Structure an upsert added, so that the matching remove can take it away again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UndoHint {
    /// The last `levels` keys of the container path were created.
    Created {
        /// How many.
        levels: usize,
    },
    /// The container was a key with nothing after it (`key:`, null).
    FilledNull,
    /// The container was an empty flow collection (`{}` / `[]`) written after its key as
    /// this text (e.g. ` {}`).
    FlowEmpty {
        /// The text after the key's `:`.
        text: String,
    },
}

/// A parsed YAML document.
#[derive(Debug, Clone)]
pub struct YamlDoc {
    bytes: Vec<u8>,
    /// Length of a leading BOM (0 or 3).
    bom: usize,
    root: Node,
    /// In list mode, the key that names the items of a sequence.
    list_key: Option<&'static str>,
}

fn err(code: Code, message: impl Into<String>, line: usize, column: usize) -> ReadError {
    ReadError {
        code,
        message: message.into(),
        line,
        column,
    }
}

impl YamlDoc {
    /// Parse, failing closed (see the module docs). `list_key`: list mode (`Some("name")`).
    pub fn parse(bytes: Vec<u8>, list_key: Option<&'static str>) -> Result<YamlDoc, ReadError> {
        let text = match std::str::from_utf8(&bytes) {
            Ok(t) => t,
            Err(e) => {
                let ok = String::from_utf8_lossy(&bytes[..e.valid_up_to()]).into_owned();
                let (line, column) = line_col(&ok, ok.len());
                return Err(err(
                    Code::InvalidUtf8,
                    format!(
                        "the file is not valid utf-8 (bad byte at offset {})",
                        e.valid_up_to()
                    ),
                    line,
                    column,
                ));
            }
        };
        let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
        let body = &text[bom..];
        if body.trim().is_empty() {
            return Err(err(
                Code::EmptyFile,
                "the file is empty; an empty file is more likely a crashed writer's leftover than a config, so it is not edited (delete it or give it content)",
                1,
                1,
            ));
        }
        let crlf = body.contains("\r\n");
        if crlf && body.replace("\r\n", "").contains('\n') {
            return Err(err(
                Code::CannotPreserve,
                "the file mixes CRLF and LF line endings; mcpconf cannot edit it without changing them (make them consistent first)",
                1,
                1,
            ));
        }
        let root = Parser::parse(body)?;
        let doc = YamlDoc {
            bytes,
            bom,
            root,
            list_key,
        };
        if let Some(k) = list_key {
            doc.check_lists(&doc.root, k)?;
        }
        Ok(doc)
    }

    /// A new document holding `text` (valid in the subset), for a new file.
    pub fn empty(text: &str, list_key: Option<&'static str>) -> Result<YamlDoc, ReadError> {
        if text.is_empty() {
            return Ok(YamlDoc {
                bytes: Vec::new(),
                bom: 0,
                root: Node {
                    kind: Kind::Map(Vec::new()),
                    start: 0,
                    end: 0,
                    flow: false,
                },
                list_key,
            });
        }
        YamlDoc::parse(text.as_bytes().to_vec(), list_key)
    }

    /// Two items of one sequence with the same name cannot both be addressed: refused.
    fn check_lists(&self, n: &Node, key: &str) -> Result<(), ReadError> {
        match &n.kind {
            Kind::Map(entries) => {
                for e in entries {
                    self.check_lists(&e.value, key)?;
                }
            }
            Kind::Seq(items) => {
                let mut seen: Vec<&str> = Vec::new();
                for i in items {
                    if let Some(name) = item_name(i, key) {
                        if seen.contains(&name) {
                            let (line, column) = line_col(self.text(), i.at);
                            return Err(err(
                                Code::DuplicateKey,
                                format!("two items of one list are named `{name}`"),
                                line,
                                column,
                            ));
                        }
                        seen.push(name);
                    }
                }
            }
            Kind::Scalar(_) => {}
        }
        Ok(())
    }

    /// The text (without a BOM).
    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.bytes[self.bom..]).unwrap_or("")
    }

    /// The bytes as they are now.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The whole value (sequences as arrays, also in list mode).
    pub fn value(&self) -> Value {
        to_value(&self.root)
    }

    /// The whole value as the engine sees it: in list mode, a sequence whose items are all
    /// mappings with a string name reads as an object keyed by name.
    pub fn keyed_value(&self) -> Value {
        fn walk(n: &Node, key: Option<&str>) -> Value {
            match &n.kind {
                Kind::Scalar(v) => v.clone(),
                Kind::Map(es) => Value::Object(
                    es.iter()
                        .map(|e| (e.key.clone(), walk(&e.value, key)))
                        .collect(),
                ),
                Kind::Seq(items) => {
                    let named: Option<Vec<&str>> = key.and_then(|k| {
                        let v: Vec<&str> = items.iter().filter_map(|i| item_name(i, k)).collect();
                        (v.len() == items.len() && !v.is_empty()).then_some(v)
                    });
                    match named {
                        Some(names) => Value::Object(
                            names
                                .into_iter()
                                .zip(items)
                                .map(|(n, i)| (n.to_string(), walk(&i.value, key)))
                                .collect(),
                        ),
                        None => Value::Array(items.iter().map(|i| walk(&i.value, key)).collect()),
                    }
                }
            }
        }
        walk(&self.root, self.list_key)
    }

    /// The node at a path; in list mode a sequence is entered by its items' names.
    fn node(&self, path: &[String]) -> Option<&Node> {
        let mut cur = &self.root;
        for k in path {
            cur = match &cur.kind {
                Kind::Map(entries) => &entries.iter().find(|e| &e.key == k)?.value,
                Kind::Seq(items) => {
                    let key = self.list_key?;
                    &items.iter().find(|i| item_name(i, key) == Some(k))?.value
                }
                Kind::Scalar(_) => return None,
            };
        }
        Some(cur)
    }

    /// The value at a path; in list mode a sequence reads as an object keyed by name.
    pub fn get(&self, path: &[String]) -> Option<Value> {
        let n = self.node(path)?;
        match (&n.kind, self.list_key) {
            (Kind::Seq(items), Some(key)) => {
                let mut m = Map::new();
                for i in items {
                    if let Some(name) = item_name(i, key) {
                        m.insert(name.to_string(), to_value(&i.value));
                    }
                }
                Some(Value::Object(m))
            }
            _ => Some(to_value(n)),
        }
    }

    /// The kind of the value at a path, as error messages say it.
    pub fn kind(&self, path: &[String]) -> Option<&'static str> {
        let n = self.node(path)?;
        Some(match &n.kind {
            Kind::Map(_) => "an object",
            Kind::Seq(_) if self.list_key.is_some() => "an object",
            Kind::Seq(_) => "an array",
            Kind::Scalar(v) => kind_of(v),
        })
    }

    /// Index of an entry among its container's entries.
    pub fn position(&self, container: &[String], name: &str) -> Option<usize> {
        match &self.node(container)?.kind {
            Kind::Map(entries) => entries.iter().position(|e| e.key == name),
            Kind::Seq(items) => {
                let key = self.list_key?;
                items.iter().position(|i| item_name(i, key) == Some(name))
            }
            Kind::Scalar(_) => None,
        }
    }

    /// 1-based line and column of the entry at `path` (its key, or its item's `-`).
    pub fn location(&self, path: &[String]) -> Option<(usize, usize)> {
        let (last, parent) = path.split_last()?;
        let at = match &self.node(parent)?.kind {
            Kind::Map(entries) => entries.iter().find(|e| &e.key == last)?.key_at,
            Kind::Seq(items) => {
                let key = self.list_key?;
                items.iter().find(|i| item_name(i, key) == Some(last))?.at
            }
            Kind::Scalar(_) => return None,
        };
        Some(line_col(self.text(), at))
    }
}

/// The kind of a value, as error messages say it.
pub(crate) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The name of a sequence item in list mode (its mapping's `key` entry, a string).
fn item_name<'n>(i: &'n Item, key: &str) -> Option<&'n str> {
    let Kind::Map(entries) = &i.value.kind else {
        return None;
    };
    match &entries.iter().find(|e| e.key == key)?.value.kind {
        Kind::Scalar(Value::String(s)) => Some(s),
        _ => None,
    }
}

mod edit;
