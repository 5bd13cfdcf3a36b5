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
//! * **Servers in a list.** A keyed-list segment `key[field]` in a path (see [`crate::keyed`],
//!   Continue's `mcpServers[name]`) enters the list at `key`: it reads as an object keyed by
//!   its items' `field`, each entry being the item without that field; an upsert writes
//!   `- field: name` followed by the entry. Items without the field (Continue's
//!   `- uses: org/block`) are kept and not shown; a repeated name is refused when the list is
//!   edited.
//! * **Exact undo.** An upsert that creates the container or fills an empty flow one (`{}`,
//!   `[]`) returns [`UndoHint`]s so that the matching remove gives back the original bytes.
//! * **Verification.** After every edit the new text (or the edited part, below) is parsed
//!   again and its value must equal the old value with exactly the intended change, or the
//!   edit is refused (`internal-edit-error`) and the document is left as it was.
//! * **Part by part.** A document whose root is a block mapping is split at its column-0 keys
//!   into parts, one top-level entry each (`parts`): it is proven a batch of parts at a time,
//!   keeps no tree of the whole, reads an entry's tree when first asked for, and proves an
//!   edit of one entry on that entry's part alone (the new part must read as the old entry's
//!   bytes, the intended value, or both), the other parts being copied byte for byte. What the
//!   split does not expect is read whole, as is every document for `lint`
//!   ([`YamlDoc::parse_whole`]). A big entry whose value is a block mapping (a Goose file
//!   that is all `extensions`) splits again one level down (`split`): it is read and edited
//!   child by child the same way.
//!
//! Pure: no I/O, no panics on any input.

mod emit;
mod parse;
mod parts;
mod scalar;
mod split;
mod src;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::diag::{Code, ReadError};
use crate::keyed::keyed_segment;
use parse::{Item, Kind, Node, Parser, to_value};
use parts::Parts;
use split::Part;
use src::Src;

#[cfg(test)]
thread_local! {
    /// How many edits were proven on one part (for the tests).
    static PARTS_COMMITS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// How many edits were proven on the children of a split entry (for the tests).
    static SPLIT_COMMITS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

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
    /// The whole document was an empty flow mapping (`{}`, as Goose writes a fresh config),
    /// this text: written in block style from the first entry on, and given back when the
    /// last one goes.
    RootFlowEmpty {
        /// The document's text (without a BOM).
        text: String,
    },
}

/// A parsed YAML document. The text and the tree are shared by its clones (a plan keeps the
/// document read beside the edited one): a clone copies neither, and an edit of a document
/// read part by part shares the bytes read (its text is them with the ranges the edits
/// replaced, see `src`).
#[derive(Debug, Clone)]
pub struct YamlDoc {
    /// The whole file (valid UTF-8, checked once when parsed), BOM included: the bytes read,
    /// and after an edit of a document read part by part the ranges of them edits replaced.
    text: crate::text::Content,
    /// The text joined, once something asked for it as one string.
    joined: std::sync::OnceLock<std::sync::Arc<String>>,
    /// Length of a leading BOM (0 or 3).
    bom: usize,
    root: std::sync::Arc<Node>,
    /// A block-mapping root read part by part (see `parts`): then `root` is an empty stand-in,
    /// and the trees are read from the parts when asked for.
    parts: Option<std::sync::Arc<Parts>>,
}

fn err(code: Code, message: impl Into<String>, line: usize, column: usize) -> ReadError {
    ReadError {
        code,
        message: message.into(),
        line,
        column,
    }
}

/// Where a path leads: a node (an item of a keyed list shows without its naming field), or
/// the value under a keyed-list segment.
enum At<'n> {
    Node(&'n Node, Option<String>),
    List(&'n Node, String),
}

/// Whether a node is a key with nothing after it (`key:`), which reads as an empty container.
fn bare_null(n: &Node) -> bool {
    matches!(n.kind, Kind::Scalar(Value::Null)) && n.start == n.end
}

impl YamlDoc {
    /// Parse, failing closed (see the module docs).
    pub fn parse(bytes: Vec<u8>) -> Result<YamlDoc, ReadError> {
        YamlDoc::read(bytes, false)
    }

    /// Parse as [`YamlDoc::parse`] does, but read the whole tree at once: for a reader of the
    /// whole document (lint), and the reference the parts are tested against.
    pub fn parse_whole(bytes: Vec<u8>) -> Result<YamlDoc, ReadError> {
        YamlDoc::read(bytes, true)
    }

    fn read(bytes: Vec<u8>, whole_read: bool) -> Result<YamlDoc, ReadError> {
        let whole = crate::text::utf8(bytes)?;
        let text = whole.as_str();
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
        crate::text::crlf(body)?;
        if !whole_read && let Some(parts) = Parts::of(body) {
            let root = YamlDoc::empty().root;
            return Ok(YamlDoc {
                text: crate::text::Content::shared(std::sync::Arc::new(whole)),
                joined: std::sync::OnceLock::new(),
                bom,
                root,
                parts: Some(std::sync::Arc::new(parts)),
            });
        }
        let root = Parser::parse(body)?;
        Ok(YamlDoc {
            text: crate::text::Content::shared(std::sync::Arc::new(whole)),
            joined: std::sync::OnceLock::new(),
            bom,
            root: std::sync::Arc::new(root),
            parts: None,
        })
    }

    /// A new, empty document (for a new file).
    pub fn empty() -> YamlDoc {
        YamlDoc {
            text: crate::text::Content::shared(std::sync::Arc::new(String::new())),
            joined: std::sync::OnceLock::new(),
            bom: 0,
            root: std::sync::Arc::new(Node {
                kind: Kind::Map(Vec::new()),
                start: 0,
                end: 0,
                flow: false,
            }),
            parts: None,
        }
    }

    /// The whole tree (for a document read part by part, read whole once when asked for).
    fn tree(&self) -> &Node {
        match &self.parts {
            Some(p) => p.whole(&self.src()).unwrap_or(&self.root),
            None => &self.root,
        }
    }

    /// The top-level entry `key`.
    fn top_entry(&self, key: &str) -> Option<&parse::Entry> {
        match &self.parts {
            Some(p) => p.top(&self.src(), key),
            None => match &self.root.kind {
                Kind::Map(es) => es.iter().find(|e| e.key == key),
                _ => None,
            },
        }
    }

    /// The top-level entry `key` when it is read child by child (see `split`): where its
    /// part begins and ends, and the split.
    fn split(&self, key: &str) -> Option<(usize, usize, &split::Split)> {
        self.parts.as_ref()?.split(&self.src(), key)
    }

    /// The child `name` of the split top-level entry `key`.
    fn split_kid(&self, key: &str, name: &str) -> Option<&parse::Entry> {
        let (start, end, s) = self.split(key)?;
        let src = self.src();
        let part = Part {
            src: &src,
            start,
            end,
        };
        s.kid(&part, s.find(&part, name)?)
    }

    /// A one-segment path to a top-level entry read child by child.
    fn split_top(&self, path: &[String]) -> Option<(usize, usize, &split::Split)> {
        match path {
            [key] if keyed_segment(key).is_none() => self.split(key),
            _ => None,
        }
    }

    /// How many entries the container at `path` holds (`None`: it is not a mapping or a list).
    pub fn member_count(&self, path: &[String]) -> Option<usize> {
        if let Some((_, _, s)) = self.split_top(path) {
            return Some(s.len());
        }
        Some(self.get(path)?.as_object()?.len())
    }

    /// The bytes, shared with this document (no copy): the bytes read with the ranges the
    /// edits replaced.
    pub fn content(&self) -> crate::text::Content {
        self.text.clone()
    }

    /// The bytes, without a copy when no clone shares them and nothing was spliced.
    pub fn into_bytes(self) -> Vec<u8> {
        self.text.into_vec()
    }

    /// The whole text, BOM included, as one string (joined once when in pieces).
    fn whole_text(&self) -> &str {
        match self.text.as_str() {
            Some(s) => s,
            None => self.joined.get_or_init(|| {
                std::sync::Arc::new(String::from_utf8_lossy(&self.text.to_vec()).into_owned())
            }),
        }
    }

    /// The text (without a BOM), as one string: for a document read whole (a document read
    /// part by part is read through `YamlDoc::src`, which joins nothing).
    pub fn text(&self) -> &str {
        self.whole_text().get(self.bom..).unwrap_or("")
    }

    /// The text (without a BOM) in its pieces.
    fn src(&self) -> Src<'_> {
        Src::new(&self.text, self.bom).unwrap_or_else(|| Src::of(self.text()))
    }

    /// The bytes as they are now (joined once when in pieces: prefer [`YamlDoc::content`]).
    pub fn bytes(&self) -> &[u8] {
        self.whole_text().as_bytes()
    }

    /// The whole value.
    pub fn value(&self) -> Value {
        to_value(self.tree())
    }

    /// The whole value for lint, which reads containers by key: beside every list whose items
    /// have a string `name`, its keyed view under `<key>[name]` (see [`crate::keyed`]).
    pub fn lint_value(&self) -> Value {
        fn walk(n: &Node) -> Value {
            match &n.kind {
                Kind::Scalar(v) => v.clone(),
                Kind::Seq(items) => Value::Array(items.iter().map(|i| walk(&i.value)).collect()),
                Kind::Map(es) => {
                    let mut m = Map::new();
                    for e in es {
                        m.insert(e.key.clone(), walk(&e.value));
                        if let Kind::Seq(items) = &e.value.kind
                            && items.iter().any(|i| item_name(i, "name").is_some())
                        {
                            m.insert(format!("{}[name]", e.key), list_view(items, "name"));
                        }
                    }
                    Value::Object(m)
                }
            }
        }
        walk(self.tree())
    }

    /// Follow a path; a keyed segment `key[field]` (see [`crate::keyed`]) enters the list at
    /// `key`, whose items the next segment names by their `field`.
    fn at(&self, path: &[String]) -> Option<At<'_>> {
        let (mut cur, path) = match (&self.parts, path.split_first()) {
            (Some(_), Some((first, rest)))
                if rest.first().is_some_and(|s| keyed_segment(s).is_none())
                    && self.split_top(std::slice::from_ref(first)).is_some() =>
            {
                let kid = self.split_kid(first, &rest[0])?;
                (At::Node(&kid.value, None), &rest[1..])
            }
            (Some(_), Some((first, rest))) => {
                let cur = match keyed_segment(first) {
                    Some((key, field)) => At::List(&self.top_entry(key)?.value, field.to_string()),
                    None => At::Node(&self.top_entry(first)?.value, None),
                };
                (cur, rest)
            }
            _ => (At::Node(self.tree(), None), path),
        };
        for seg in path {
            cur = match cur {
                At::Node(n, _) => {
                    let Kind::Map(es) = &n.kind else {
                        return None;
                    };
                    match keyed_segment(seg) {
                        Some((key, field)) => {
                            At::List(&es.iter().find(|e| e.key == key)?.value, field.to_string())
                        }
                        None => At::Node(&es.iter().find(|e| &e.key == seg)?.value, None),
                    }
                }
                At::List(n, field) => {
                    let Kind::Seq(items) = &n.kind else {
                        return None;
                    };
                    let i = items.iter().find(|i| item_name(i, &field) == Some(seg))?;
                    At::Node(&i.value, Some(field))
                }
            };
        }
        Some(cur)
    }

    /// The value at a path; through a keyed segment a list reads as an object keyed by its
    /// items' names (first of a repeated name), each item without its naming field. Items
    /// without a name (Continue's `- uses: org/block`) are not shown.
    pub fn get(&self, path: &[String]) -> Option<Value> {
        if let Some((start, end, s)) = self.split_top(path) {
            let src = self.src();
            return s.value(&Part {
                src: &src,
                start,
                end,
            });
        }
        match self.at(path)? {
            At::Node(n, strip) => {
                let mut v = to_value(n);
                if let (Some(f), Some(m)) = (strip, v.as_object_mut()) {
                    m.shift_remove(&f);
                }
                Some(v)
            }
            At::List(n, field) => match &n.kind {
                Kind::Seq(items) => Some(list_view(items, &field)),
                _ => Some(to_value(n)),
            },
        }
    }

    /// The kind of the value at a path, as error messages say it. A key with nothing after it
    /// reads as an (empty) object, which an upsert fills.
    pub fn kind(&self, path: &[String]) -> Option<&'static str> {
        if self.split_top(path).is_some() {
            return Some("an object");
        }
        Some(match self.at(path)? {
            At::Node(n, _) if bare_null(n) => "an object",
            At::Node(n, _) => match &n.kind {
                Kind::Map(_) => "an object",
                Kind::Seq(_) => "an array",
                Kind::Scalar(v) => kind_of(v),
            },
            At::List(n, _) => match &n.kind {
                Kind::Seq(_) => "an object",
                _ if bare_null(n) => "an object",
                _ => crate::keyed::BAD_KEYED_LIST,
            },
        })
    }

    /// Index of an entry among its container's entries.
    pub fn position(&self, container: &[String], name: &str) -> Option<usize> {
        if let Some((start, end, s)) = self.split_top(container) {
            let src = self.src();
            let part = Part {
                src: &src,
                start,
                end,
            };
            return s.find(&part, name).map(|at| s.index(&part, at));
        }
        match self.at(container)? {
            At::Node(n, _) => match &n.kind {
                Kind::Map(entries) => entries.iter().position(|e| e.key == name),
                _ => None,
            },
            At::List(n, field) => match &n.kind {
                Kind::Seq(items) => items
                    .iter()
                    .position(|i| item_name(i, &field) == Some(name)),
                _ => None,
            },
        }
    }

    /// 1-based line and column of the entry at `path` (its key, or its item's `-`).
    pub fn location(&self, path: &[String]) -> Option<(usize, usize)> {
        Some(self.src().line_col(self.offset(path)?))
    }

    /// The byte offset of the entry at `path` (its key, or its item's `-`).
    pub fn offset(&self, path: &[String]) -> Option<usize> {
        let (last, parent) = path.split_last()?;
        if let Some((start, end, s)) = self.split_top(parent) {
            let src = self.src();
            let part = Part {
                src: &src,
                start,
                end,
            };
            return Some(s.places(&part, s.find(&part, last)?)?.0);
        }
        Some(match self.at(parent)? {
            At::Node(n, _) => match &n.kind {
                Kind::Map(entries) => entries.iter().find(|e| &e.key == last)?.key_at,
                _ => return None,
            },
            At::List(n, field) => match &n.kind {
                Kind::Seq(items) => {
                    items
                        .iter()
                        .find(|i| item_name(i, &field) == Some(last))?
                        .at
                }
                _ => return None,
            },
        })
    }

    /// The byte offset of every key and named list item below `parent`, by its path relative
    /// to `parent` ([`YamlDoc::offset`] of each, the first of a repeated key or name, whose
    /// subtree alone is walked), in one walk: for a caller that locates many places below one
    /// container (lint locates a finding in every entry; a walk from the root each time made it
    /// quadratic). Lists below the entries are not entered (their items have no key).
    pub fn descendant_offsets(
        &self,
        parent: &[String],
    ) -> Option<std::collections::HashMap<Vec<String>, usize>> {
        fn walk(
            n: &Node,
            prefix: &mut Vec<String>,
            out: &mut std::collections::HashMap<Vec<String>, usize>,
        ) {
            if let Kind::Map(entries) = &n.kind {
                for e in entries {
                    prefix.push(e.key.clone());
                    if !out.contains_key(prefix.as_slice()) {
                        out.insert(prefix.clone(), e.key_at);
                        walk(&e.value, prefix, out);
                    }
                    prefix.pop();
                }
            }
        }
        let mut out = std::collections::HashMap::new();
        let mut prefix = Vec::new();
        match self.at(parent)? {
            At::Node(n, _) => walk(n, &mut prefix, &mut out),
            At::List(n, field) => match &n.kind {
                Kind::Seq(items) => {
                    for i in items {
                        let Some(name) = item_name(i, &field) else {
                            continue;
                        };
                        prefix.push(name.to_string());
                        if !out.contains_key(prefix.as_slice()) {
                            out.insert(prefix.clone(), i.at);
                            walk(&i.value, &mut prefix, &mut out);
                        }
                        prefix.pop();
                    }
                }
                _ => return None,
            },
        }
        Some(out)
    }

    /// The byte offset of every entry under `parent` ([`YamlDoc::offset`] of each child, the
    /// first of a repeated key or name), in one walk: for a caller that locates them all.
    pub fn child_offsets(
        &self,
        parent: &[String],
    ) -> Option<std::collections::HashMap<String, usize>> {
        let mut out = std::collections::HashMap::new();
        match self.at(parent)? {
            At::Node(n, _) => match &n.kind {
                Kind::Map(entries) => {
                    for e in entries {
                        out.entry(e.key.clone()).or_insert(e.key_at);
                    }
                }
                _ => return None,
            },
            At::List(n, field) => match &n.kind {
                Kind::Seq(items) => {
                    for i in items {
                        if let Some(name) = item_name(i, &field) {
                            out.entry(name.to_string()).or_insert(i.at);
                        }
                    }
                }
                _ => return None,
            },
        }
        Some(out)
    }
}

/// A list's keyed view: name → the item without its naming field (first of a repeated name).
fn list_view(items: &[Item], field: &str) -> Value {
    let mut m = Map::new();
    for i in items {
        if let Some(name) = item_name(i, field)
            && !m.contains_key(name)
        {
            let mut v = to_value(&i.value);
            if let Some(o) = v.as_object_mut() {
                o.shift_remove(field);
            }
            m.insert(name.to_string(), v);
        }
    }
    Value::Object(m)
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

/// The name of a sequence item (its mapping's `key` entry, a string).
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
