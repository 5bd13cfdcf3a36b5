//! [`YamlDoc::upsert`] and [`YamlDoc::remove`]: splices planned from the parsed spans, applied
//! to a copy, and proven by parsing the result again.

use serde_json::{Map, Value};

use std::sync::{Arc, OnceLock};

use super::parse::{Entry, Kind, Node, Parser};
use super::parts::{Edit, Parts};
use super::split::Part;
use super::{UndoHint, YamlDoc, emit, err, item_name};
use crate::diag::{Code, ReadError};
use crate::text::Content;

/// Where the container stands in the file.
enum Place<'d> {
    /// A block collection with at least one child.
    Block(&'d Node),
    /// An empty flow collection after its key (`key: {}`).
    Flow(&'d Entry),
    /// A key with nothing after it (`key:`); `missing` levels of the path below it are absent.
    Null(&'d Entry, usize),
    /// The key of level `at` is absent from this mapping.
    Missing(&'d Node, usize),
}

/// One child of a container: where its text starts (its key or `-`), where its line starts,
/// where its content ends.
struct Child {
    at: usize,
    line_start: usize,
    end: usize,
}

fn children(n: &Node) -> Vec<Child> {
    match &n.kind {
        Kind::Map(es) => es
            .iter()
            .map(|e| Child {
                at: e.key_at,
                line_start: e.line_start,
                end: e.end,
            })
            .collect(),
        Kind::Seq(items) => items
            .iter()
            .map(|i| Child {
                at: i.at,
                line_start: i.line_start,
                end: i.end,
            })
            .collect(),
        Kind::Scalar(_) => Vec::new(),
    }
}

impl YamlDoc {
    fn internal(&self, message: impl Into<String>) -> ReadError {
        err(Code::InternalEditError, message, 1, 1)
    }

    fn at_error(&self, code: Code, at: usize, message: String) -> ReadError {
        let (line, column) = self.src().line_col(at);
        err(code, message, line, column)
    }

    fn nl(&self) -> &'static str {
        if self.text.contains("\r\n") {
            "\r\n"
        } else {
            "\n"
        }
    }

    /// The indentation unit: the smallest indentation of a content line, else 2.
    fn unit(&self) -> usize {
        self.src().unit()
    }

    /// The end of the line holding `at`, before its `\n` or `\r\n`.
    fn line_end(&self, at: usize) -> usize {
        self.src().line_end(at)
    }

    /// The start of the line holding `at`.
    fn line_start(&self, at: usize) -> usize {
        self.src().line_start(at)
    }

    /// The byte range that deletes the lines from `start` (a line start) through the line of
    /// `end`: with the following newline, or, on the last line without one, with the newline
    /// before.
    fn lines_range(&self, start: usize, end: usize) -> (usize, usize) {
        let src = self.src();
        let len = src.len();
        let e = src.line_end(end);
        if e < len {
            let after = if src.byte(e) == Some(b'\r') {
                e + 2
            } else {
                e + 1
            };
            (start, after.min(len))
        } else {
            let nl = self.nl().len();
            (start.saturating_sub(nl), len)
        }
    }

    fn locate(&self, container: &[String], key: Option<&str>) -> Result<Place<'_>, ReadError> {
        let list = key.is_some();
        // (For a document read part by part, `root` is an empty block mapping: the first key
        // is looked up in the parts.)
        let mut cur: &Node = &self.root;
        for (i, k) in container.iter().enumerate() {
            let Kind::Map(entries) = &cur.kind else {
                return Err(self.at_error(
                    Code::NotAnObject,
                    cur.start,
                    format!("`{}` is not a mapping", container[..i].join(".")),
                ));
            };
            if cur.flow {
                return Err(self.at_error(
                    Code::UnsupportedYaml,
                    cur.start,
                    format!(
                        "{} is a flow mapping (`{{…}}`); mcpconf edits only block style, so the file is not edited (write it in block style)",
                        if i == 0 {
                            "the document".to_string()
                        } else {
                            format!("`{}`", container[..i].join("."))
                        }
                    ),
                ));
            }
            let found = match (&self.parts, i) {
                (Some(_), 0) => self.top_entry(k),
                _ => entries.iter().find(|e| &e.key == k),
            };
            let Some(e) = found else {
                return Ok(Place::Missing(
                    match (&self.parts, i) {
                        (Some(p), 0) => p.ends(&self.src()),
                        _ => cur,
                    },
                    i,
                ));
            };
            let last = i + 1 == container.len();
            let v = &e.value;
            let empty_null = matches!(v.kind, Kind::Scalar(Value::Null)) && v.start == v.end;
            if empty_null {
                return Ok(Place::Null(e, container.len() - i - 1));
            }
            let here = container[..=i].join(".");
            match (&v.kind, last) {
                (Kind::Map(es), false) if !v.flow || es.is_empty() => {
                    if v.flow {
                        return Err(self.at_error(
                            Code::UnsupportedYaml,
                            v.start,
                            format!("`{here}` is an empty flow mapping on the way to the servers; write it in block style"),
                        ));
                    }
                    cur = v;
                }
                (Kind::Map(es), true) if !list => {
                    return match (v.flow, es.is_empty()) {
                        (false, _) => Ok(Place::Block(v)),
                        (true, true) => Ok(Place::Flow(e)),
                        (true, false) => Err(self.at_error(
                            Code::UnsupportedYaml,
                            v.start,
                            format!("`{here}` is a flow mapping (`{{…}}`); mcpconf edits only block style, so the file is not edited (write it in block style)"),
                        )),
                    };
                }
                (Kind::Seq(items), true) if list => {
                    if let Some(f) = key {
                        self.distinct_names(items, f)?;
                    }
                    return match (v.flow, items.is_empty()) {
                        (false, _) => Ok(Place::Block(v)),
                        (true, true) => Ok(Place::Flow(e)),
                        (true, false) => Err(self.at_error(
                            Code::UnsupportedYaml,
                            v.start,
                            format!("`{here}` is a flow sequence (`[…]`); mcpconf edits only block style, so the file is not edited (write it in block style)"),
                        )),
                    };
                }
                _ => {
                    let want = if last && list { "a list" } else { "an object" };
                    return Err(self.at_error(
                        Code::NotAnObject,
                        e.key_at,
                        format!(
                            "`{here}` is {}, not {want}",
                            super::kind_of(&super::to_value(v))
                        ),
                    ));
                }
            }
        }
        Err(self.internal("the container path is empty"))
    }

    /// Whether the file writes a sequence under a key at the key's own column (as Goose's
    /// serde_yaml does): the first such sequence decides.
    fn flush_seq(&self) -> bool {
        match &self.parts {
            Some(p) => p.flush_seq(&self.src()),
            None => super::parts::first_seq(self.text(), &self.root).unwrap_or(false),
        }
    }

    /// The indentation of a container's children relative to its key: a list in a file that
    /// writes sequences flush with their key gets none.
    fn step(&self, container_level: bool, list: bool) -> usize {
        if container_level && list && self.flush_seq() {
            0
        } else {
            self.unit()
        }
    }

    fn style(&self) -> emit::Style {
        emit::Style {
            unit: self.unit(),
            nl: self.nl(),
            flush_seq: self.flush_seq(),
        }
    }

    /// Two items of one keyed list with the same name cannot be told apart: refused at the
    /// second.
    fn distinct_names(&self, items: &[super::parse::Item], field: &str) -> Result<(), ReadError> {
        let mut seen: Vec<&str> = Vec::new();
        for i in items {
            if let Some(name) = item_name(i, field) {
                if seen.contains(&name) {
                    return Err(self.at_error(
                        Code::DuplicateKey,
                        i.at,
                        format!("two items of one list are named `{name}`"),
                    ));
                }
                seen.push(name);
            }
        }
        Ok(())
    }

    /// The text of the entry (or list item) at `indent`, ending with a newline.
    fn entry_text(&self, indent: usize, name: &str, value: &Value, list: bool) -> String {
        let mut out = String::new();
        let st = self.style();
        if list {
            emit::item(&mut out, indent, value, &st);
        } else {
            emit::entry(&mut out, indent, name, value, &st);
        }
        out
    }

    /// Missing levels then the entry, starting at `indent`, ending with a newline.
    fn nested_text(
        &self,
        levels: &[String],
        indent: usize,
        name: &str,
        value: &Value,
        list: bool,
    ) -> String {
        let nl = self.nl();
        let mut out = String::new();
        let mut ind = indent;
        for (i, k) in levels.iter().enumerate() {
            for _ in 0..ind {
                out.push(' ');
            }
            out.push_str(&emit::string(k));
            out.push(':');
            out.push_str(nl);
            ind += self.step(i + 1 == levels.len(), list);
        }
        out.push_str(&self.entry_text(ind, name, value, list));
        out
    }

    /// A container path whose last segment may be a keyed-list segment (`mcpServers[name]`):
    /// the plain path and the naming field. A keyed segment anywhere else is not supported.
    fn plain(&self, container: &[String]) -> Result<(Vec<String>, Option<String>), ReadError> {
        let mut out = container.to_vec();
        let mut field = None;
        for (i, seg) in container.iter().enumerate() {
            if let Some((key, f)) = crate::keyed::keyed_segment(seg) {
                if i + 1 != container.len() {
                    return Err(self.internal("a keyed list inside another container path"));
                }
                out[i] = key.to_string();
                field = Some(f.to_string());
            }
        }
        Ok((out, field))
    }

    /// Set an entry, creating the containers; returns the undo hints. Under a keyed-list
    /// segment the entry is written as an item `- <field>: <name>` followed by `value`.
    pub fn upsert(
        &mut self,
        container: &[String],
        name: &str,
        value: &Value,
    ) -> Result<Vec<UndoHint>, ReadError> {
        if let Some(text) = self.empty_flow_root() {
            // `{}` is an empty document: the entry goes into a block-style one.
            let bom = String::from_utf8_lossy(&self.text.slice(0, self.bom)).into_owned();
            let mut fresh = YamlDoc {
                text: Content::shared(Arc::new(bom)),
                joined: OnceLock::new(),
                bom: self.bom,
                root: YamlDoc::empty().root,
                parts: None,
            };
            let mut hints = fresh.upsert(container, name, value)?;
            hints.insert(0, UndoHint::RootFlowEmpty { text });
            *self = fresh;
            return Ok(hints);
        }
        let (container, field) = self.plain(container)?;
        match field {
            None => self.upsert_in(&container, name, value, None),
            Some(f) => {
                let Value::Object(m) = value else {
                    return Err(self.internal("a list entry must be a mapping; this is a bug"));
                };
                if m.contains_key(&f) {
                    return Err(self.internal(format!(
                        "a list entry must not carry its naming field `{f}`; this is a bug"
                    )));
                }
                let mut item = Map::new();
                item.insert(f.clone(), Value::String(name.to_string()));
                item.extend(m.iter().map(|(k, v)| (k.clone(), v.clone())));
                self.upsert_in(&container, name, &Value::Object(item), Some(&f))
            }
        }
    }

    fn upsert_in(
        &mut self,
        container: &[String],
        name: &str,
        value: &Value,
        list: Option<&str>,
    ) -> Result<Vec<UndoHint>, ReadError> {
        if list.is_none() && self.split_edit(container, name, Some(value)) {
            return Ok(Vec::new());
        }
        let nl = self.nl();
        let mut splices: Vec<(usize, usize, String)> = Vec::new();
        let mut hints = Vec::new();
        match self.locate(container, list)? {
            Place::Block(n) => {
                let kids = children(n);
                let first = kids.first().ok_or_else(|| self.internal("empty block"))?;
                let indent = first.at - self.line_start(first.at);
                let existing = match (&n.kind, list) {
                    (Kind::Map(es), None) => es.iter().position(|e| e.key == name),
                    (Kind::Seq(items), Some(k)) => {
                        items.iter().position(|i| item_name(i, k) == Some(name))
                    }
                    _ => None,
                };
                let last = kids.last().ok_or_else(|| self.internal("empty block"))?;
                let existing = existing.map(|j| &kids[j]);
                splices.push(self.block_upsert(indent, existing, last, name, value, list));
            }
            Place::Flow(e) => {
                let after = e.colon + 1;
                let indent = e.key_at - self.line_start(e.key_at) + self.step(true, list.is_some());
                let text = self.src().get(after, e.value.end).unwrap_or_default();
                hints.push(UndoHint::FlowEmpty {
                    text: text.into_owned(),
                });
                let text = self.entry_text(indent, name, value, list.is_some());
                let at = self.line_end(e.value.end);
                splices.push((
                    at,
                    at,
                    format!("{nl}{}", text.trim_end_matches(['\n', '\r'])),
                ));
                splices.push((after, e.value.end, String::new()));
            }
            Place::Null(e, missing) => {
                let indent =
                    e.key_at - self.line_start(e.key_at) + self.step(missing == 0, list.is_some());
                let levels = &container[container.len() - missing..];
                let text = self.nested_text(levels, indent, name, value, list.is_some());
                let at = self.line_end(e.colon);
                splices.push((
                    at,
                    at,
                    format!("{nl}{}", text.trim_end_matches(['\n', '\r'])),
                ));
                hints.push(if missing > 0 {
                    UndoHint::Created { levels: missing }
                } else {
                    UndoHint::FilledNull
                });
            }
            Place::Missing(p, i) => {
                let levels = &container[i..];
                hints.push(UndoHint::Created {
                    levels: levels.len(),
                });
                let kids = children(p);
                match kids.last() {
                    Some(last) => {
                        let first = &kids[0];
                        let indent = first.at - self.line_start(first.at);
                        let text = self.nested_text(levels, indent, name, value, list.is_some());
                        let at = self.line_end(last.end);
                        splices.push((
                            at,
                            at,
                            format!("{nl}{}", text.trim_end_matches(['\n', '\r'])),
                        ));
                    }
                    None => {
                        let text = self.nested_text(levels, 0, name, value, list.is_some());
                        let t = self.text();
                        let at = t.len();
                        let ins = if t.is_empty() || t.ends_with('\n') {
                            text
                        } else {
                            format!("{nl}{}", text.trim_end_matches(['\n', '\r']))
                        };
                        splices.push((at, at, ins));
                    }
                }
            }
        }
        let top = container.first().map(String::as_str);
        let mut want = self.want_of(top);
        expect_upsert(&mut want, container, name, value, list);
        self.commit(splices, &want, top)?;
        Ok(hints)
    }

    /// Remove an entry, undoing what its upsert's hints say it created.
    pub fn remove(
        &mut self,
        container: &[String],
        name: &str,
        hints: &[UndoHint],
    ) -> Result<(), ReadError> {
        let (container, field) = self.plain(container)?;
        self.remove_in(&container, name, hints, field.as_deref())?;
        // A document that was `{}` before its first entry is `{}` again after its last.
        for h in hints {
            if let UndoHint::RootFlowEmpty { text } = h
                && self.text().trim().is_empty()
            {
                let mut bytes = self.bytes()[..self.bom].to_vec();
                bytes.extend_from_slice(text.as_bytes());
                *self = YamlDoc::parse(bytes)?;
            }
        }
        Ok(())
    }

    /// The document's text when the whole document is an empty flow mapping (`{}`, nothing
    /// else but whitespace).
    fn empty_flow_root(&self) -> Option<String> {
        let empty = matches!(&self.root.kind, Kind::Map(e) if e.is_empty());
        (self.root.flow && empty && self.text().trim() == "{}").then(|| self.text().to_string())
    }

    fn remove_in(
        &mut self,
        container: &[String],
        name: &str,
        hints: &[UndoHint],
        list: Option<&str>,
    ) -> Result<(), ReadError> {
        if list.is_none() && self.split_edit(container, name, None) {
            return Ok(());
        }
        let Place::Block(n) = self.locate(container, list)? else {
            return Err(self.internal(format!("no entry `{name}` to remove")));
        };
        let (j, kids) = match (&n.kind, list) {
            (Kind::Map(es), None) => (es.iter().position(|e| e.key == name), children(n)),
            (Kind::Seq(items), Some(k)) => (
                items.iter().position(|i| item_name(i, k) == Some(name)),
                children(n),
            ),
            _ => (None, Vec::new()),
        };
        let j = j.ok_or_else(|| self.internal(format!("no entry `{name}` to remove")))?;
        let c = &kids[j];
        if c.line_start != self.line_start(c.at) {
            return Err(self.at_error(
                Code::UnsupportedYaml,
                c.at,
                format!(
                    "the entry `{name}` shares its line with other text; mcpconf does not remove it"
                ),
            ));
        }
        let mut splices = Vec::new();
        let top = container.first().map(String::as_str);
        let mut want = self.want_of(top);
        let last = kids.len() == 1;
        let created = hints.iter().find_map(|h| match h {
            UndoHint::Created { levels } => Some(*levels),
            _ => None,
        });
        // The container's own key.
        let (parent_path, key) = container
            .split_at_checked(container.len().saturating_sub(1))
            .ok_or_else(|| self.internal("the container path is empty"))?;
        let ckey = self
            .entry_at(parent_path, &key[0])
            .ok_or_else(|| self.internal("the container has no key"))?;
        match (last, created) {
            (true, Some(levels)) if levels >= 1 && levels <= container.len() => {
                let top = container.len() - levels;
                let t = self
                    .entry_at(&container[..top], &container[top])
                    .ok_or_else(|| self.internal("the created key is gone"))?;
                if t.line_start != self.line_start(t.key_at) {
                    return Err(self.internal("the created key shares its line"));
                }
                let (s, e) = self.lines_range(t.line_start, c.end);
                splices.push((s, e, String::new()));
                remove_path(&mut want, &container[..=top]);
            }
            (true, _) => {
                let (s, e) = self.lines_range(c.line_start, c.end);
                splices.push((s, e, String::new()));
                let restore = hints.iter().find_map(|h| match h {
                    UndoHint::FlowEmpty { text } => Some(text.clone()),
                    _ => None,
                });
                let filled_null = hints.contains(&UndoHint::FilledNull);
                let empty = if list.is_some() {
                    Value::Array(Vec::new())
                } else {
                    Value::Object(Map::new())
                };
                let (text, v) = match (restore, filled_null) {
                    (Some(t), _) => (t, empty),
                    (None, true) => (String::new(), Value::Null),
                    (None, false) => {
                        let t = if list.is_some() { " []" } else { " {}" };
                        (t.to_string(), empty)
                    }
                };
                if text.contains(['\n', '\r']) {
                    return Err(self.internal("an undo hint with a line break"));
                }
                let at = ckey.colon + 1;
                let src = self.src();
                let line_rest = src.get(at, self.line_end(at)).unwrap_or_default();
                if !line_rest.trim().is_empty() && !text.is_empty() {
                    // `key:  # comment`: the flow collection goes before the comment.
                    splices.push((at, at, text));
                } else if !text.is_empty() {
                    splices.push((at, at + line_rest.len(), text));
                }
                set_path(&mut want, container, v);
            }
            (false, _) => {
                let (s, e) = self.lines_range(c.line_start, c.end);
                splices.push((s, e, String::new()));
                expect_remove(&mut want, container, name, list);
            }
        }
        self.commit(splices, &want, top)
    }

    /// Set (`Some`) or remove (`None`) the entry `name` of a top-level entry read child by
    /// child (see `split`), proven on the children it touches: the same splices as the block
    /// mapping's edit below. `false` when the container is not split or the split cannot prove
    /// the edit: the caller then edits it as a block mapping read whole.
    fn split_edit(&mut self, container: &[String], name: &str, want: Option<&Value>) -> bool {
        let Some(splice) = self.split_splice(container, name, want) else {
            return false;
        };
        let done = self
            .parts
            .as_ref()
            .and_then(|p| p.split_commit(&self.src(), &[splice], &container[0], name, want));
        let Some((edit, parts)) = done else {
            return false;
        };
        self.set_parts(edit, parts)
    }

    /// The splice of [`YamlDoc::split_edit`].
    fn split_splice(
        &self,
        container: &[String],
        name: &str,
        want: Option<&Value>,
    ) -> Option<(usize, usize, String)> {
        let (start, end, s) = self.split_top(container)?;
        let src = self.src();
        let part = Part {
            src: &src,
            start,
            end,
        };
        let found = s.find(&part, name);
        let Some(value) = want else {
            let (at, line_start, end) = s.places(&part, found?)?;
            if s.len() < 2 || line_start != self.line_start(at) {
                return None;
            }
            let (a, b) = self.lines_range(line_start, end);
            return Some((a, b, String::new()));
        };
        let child = |i: usize| {
            let (at, line_start, end) = s.places(&part, i)?;
            Some(Child {
                at,
                line_start,
                end,
            })
        };
        let existing = match found {
            Some(j) => Some(child(j)?),
            None => None,
        };
        let last = child(s.last(&part))?;
        Some(self.block_upsert(s.indent(), existing.as_ref(), &last, name, value, None))
    }

    /// The splice that sets the child `name` of a block collection whose children are indented
    /// `indent`: over the existing child's text, or as lines after the last child.
    fn block_upsert(
        &self,
        indent: usize,
        existing: Option<&Child>,
        last: &Child,
        name: &str,
        value: &Value,
        list: Option<&str>,
    ) -> (usize, usize, String) {
        let text = self.entry_text(indent, name, value, list.is_some());
        let body = text.trim_end_matches(['\n', '\r']);
        match existing {
            Some(c) => (c.at, c.end, body[indent.min(body.len())..].to_string()),
            None => {
                let at = self.line_end(last.end);
                (at, at, format!("{}{body}", self.nl()))
            }
        }
    }

    /// This document with the range `lo..hi` of its text (after its byte order mark)
    /// replaced by `mid`, read as `parts`: the pieces stay shared with the bytes read, only the
    /// new range is new. `false` when the range is not in the text (nothing is changed).
    fn set_parts(&mut self, (lo, hi, mid): Edit, parts: Parts) -> bool {
        let bom = self.bom;
        let Some(text) = self
            .text
            .edited(vec![(lo + bom, hi + bom, mid.into_bytes())])
        else {
            return false;
        };
        *self = YamlDoc {
            text,
            joined: OnceLock::new(),
            bom,
            root: YamlDoc::empty().root,
            parts: Some(Arc::new(parts)),
        };
        true
    }

    fn entry_at(&self, parent: &[String], key: &str) -> Option<&Entry> {
        let Some((first, parent)) = parent.split_first() else {
            return self.top_entry(key);
        };
        let mut cur: &Node = &self.top_entry(first)?.value;
        for k in parent {
            let Kind::Map(es) = &cur.kind else {
                return None;
            };
            cur = &es.iter().find(|e| &e.key == k)?.value;
        }
        let Kind::Map(es) = &cur.kind else {
            return None;
        };
        es.iter().find(|e| e.key == key)
    }

    /// What the document should read as after an edit below the top-level key `top`: only
    /// that key's value (the rest is proven unchanged by its bytes, see [`YamlDoc::commit`]).
    fn want_of(&self, top: Option<&str>) -> Value {
        let Some(top) = top else {
            return self.value();
        };
        let mut m = Map::new();
        if let Some(e) = self.top_entry(top) {
            m.insert(top.to_string(), super::to_value(&e.value));
        }
        Value::Object(m)
    }

    /// Apply splices (non-overlapping) to the text, parse the result, and keep it only if it
    /// reads as `want`. With `top` (the top-level key the edit is below), `want` holds only
    /// that key's value ([`YamlDoc::want_of`]): every other top-level entry must then be the
    /// same key with the same bytes, in the same order, which proves its value unchanged
    /// without building the values of the whole document.
    fn commit(
        &mut self,
        mut splices: Vec<(usize, usize, String)>,
        want: &Value,
        top: Option<&str>,
    ) -> Result<(), ReadError> {
        let bom = self.bom;
        if let (Some(p), Some(top)) = (&self.parts, top)
            && let Some((edit, parts)) = p.commit(&self.src(), &splices, want, top)
            && self.set_parts(edit, parts)
        {
            return Ok(());
        }
        splices.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
        let mut whole = self.whole_text().to_owned();
        let mut prev = usize::MAX;
        for (s, e, t) in &splices {
            let (s, e) = (s + bom, e + bom);
            if s > e
                || e > whole.len()
                || e > prev
                || !whole.is_char_boundary(s)
                || !whole.is_char_boundary(e)
            {
                return Err(self.internal("the edit's splices overlap; this is a bug"));
            }
            whole.replace_range(s..e, t);
            prev = s;
        }
        let text = whole.get(bom..).unwrap_or("");
        let root = Parser::parse(text).map_err(|e| {
            self.internal(format!(
                "the edited text does not parse ({}); this is a bug, nothing was written",
                e.message
            ))
        })?;
        let verified = match top {
            None => super::to_value(&root) == *want,
            Some(top) => {
                let others = |n: &Node| -> Option<Vec<(String, usize, usize)>> {
                    match &n.kind {
                        Kind::Map(es) => Some(
                            es.iter()
                                .filter(|e| e.key != top)
                                .map(|e| (e.key.clone(), e.line_start, e.end))
                                .collect(),
                        ),
                        _ => None,
                    }
                };
                let old_text = self.text();
                let same_others = match (others(self.tree()), others(&root)) {
                    (Some(a), Some(b)) => {
                        a.len() == b.len()
                            && a.iter().zip(&b).all(|((ka, sa, ea), (kb, sb, eb))| {
                                ka == kb && old_text.get(*sa..*ea) == text.get(*sb..*eb)
                            })
                    }
                    _ => false,
                };
                let got = match &root.kind {
                    Kind::Map(es) => es
                        .iter()
                        .find(|e| e.key == top)
                        .map(|e| super::to_value(&e.value)),
                    _ => None,
                };
                same_others && got.as_ref() == want.get(top)
            }
        };
        if !verified {
            return Err(self.internal(
                "the edit did not verify (the new text does not read as the intended value); this is a bug, nothing was written",
            ));
        }
        *self = YamlDoc {
            text: Content::shared(Arc::new(whole)),
            joined: OnceLock::new(),
            bom,
            root: root.into(),
            parts: None,
        };
        Ok(())
    }
}

/// The container on `path`, created (or a null turned into an empty collection) as needed.
fn container_mut<'v>(root: &'v mut Value, path: &[String], list: bool) -> Option<&'v mut Value> {
    let mut cur = root;
    for (i, k) in path.iter().enumerate() {
        let last = i + 1 == path.len();
        let obj = cur.as_object_mut()?;
        let slot = obj.entry(k.clone()).or_insert(Value::Null);
        if slot.is_null() {
            *slot = if last && list {
                Value::Array(Vec::new())
            } else {
                Value::Object(Map::new())
            };
        }
        cur = slot;
    }
    Some(cur)
}

fn expect_upsert(root: &mut Value, path: &[String], name: &str, value: &Value, key: Option<&str>) {
    let Some(c) = container_mut(root, path, key.is_some()) else {
        return;
    };
    match (c, key) {
        (Value::Object(m), None) => {
            m.insert(name.to_string(), value.clone());
        }
        (Value::Array(a), Some(k)) => {
            match a
                .iter()
                .position(|i| i.get(k).and_then(Value::as_str) == Some(name))
            {
                Some(j) => a[j] = value.clone(),
                None => a.push(value.clone()),
            }
        }
        _ => {}
    }
}

fn expect_remove(root: &mut Value, path: &[String], name: &str, key: Option<&str>) {
    let Some(c) = container_mut(root, path, key.is_some()) else {
        return;
    };
    match (c, key) {
        (Value::Object(m), None) => {
            m.shift_remove(name);
        }
        (Value::Array(a), Some(k)) => {
            a.retain(|i| i.get(k).and_then(Value::as_str) != Some(name));
        }
        _ => {}
    }
}

fn set_path(root: &mut Value, path: &[String], v: Value) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut cur = root;
    for k in parents {
        match cur.get_mut(k) {
            Some(n) => cur = n,
            None => return,
        }
    }
    if let Some(m) = cur.as_object_mut() {
        m.insert(last.clone(), v);
    }
}

fn remove_path(root: &mut Value, path: &[String]) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut cur = root;
    for k in parents {
        match cur.get_mut(k) {
            Some(n) => cur = n,
            None => return,
        }
    }
    if let Some(m) = cur.as_object_mut() {
        m.shift_remove(last);
        // A key left with nothing below it reads as null.
        if m.is_empty() && !parents.is_empty() {
            *cur = Value::Null;
        }
    }
}
