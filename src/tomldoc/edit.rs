//! The edit of one TOML text on `toml_edit`'s document model, and its proof: the text is
//! parsed, edited, rendered and parsed again, and the new value must be the old one plus the
//! change. [`super::TomlDoc`] gives it the part of a file an edit can touch (its window), or
//! the whole file. Pure: no I/O.

use serde_json::Value;
use toml_edit::{Document, DocumentMut, Item, Table};

use super::convert::{item_to_json, json_to_inline, json_to_value, table_to_json};
use super::err;
use crate::diag::{Code, ReadError};
use crate::keyed::keyed_segment;

/// One TOML text being edited: its document model and its value (as JSON).
pub(super) struct Editor {
    doc: DocumentMut,
    root: Value,
    final_newline: bool,
    /// Whether the edit gave a header to a table that had none (`toml_edit` places it after
    /// the table visited before it in key order, which may lie outside a window).
    pub(super) floating: bool,
}

impl Editor {
    /// Parse `text` (LF line endings, no BOM); `None` when `toml_edit` would not give it back
    /// byte for byte.
    pub(super) fn parse(text: &str) -> Result<Option<Editor>, toml_edit::TomlError> {
        Ok(Editor::new(text.parse()?, text))
    }

    /// The editor of `doc`, parsed from `text`; `None` when rendering `doc` does not give back
    /// `text` byte for byte.
    pub(super) fn new(doc: DocumentMut, text: &str) -> Option<Editor> {
        let final_newline = final_newline(text);
        (render(&doc, final_newline) == text).then(|| Editor {
            root: table_to_json(doc.as_table()),
            doc,
            final_newline,
            floating: false,
        })
    }

    /// The value read, taken out of the editor.
    pub(super) fn into_value(self) -> Value {
        self.root
    }

    /// The value read.
    pub(super) fn value(&self) -> &Value {
        &self.root
    }

    fn render(&self) -> String {
        render(&self.doc, self.final_newline)
    }

    /// [`super::TomlDoc::upsert`] on this text, unproven (see [`Editor::verified`]).
    pub fn upsert(
        &mut self,
        container: &[String],
        name: &str,
        value: &Value,
    ) -> Result<(), ReadError> {
        let Some(obj) = value.as_object() else {
            return Err(err(
                Code::InternalEditError,
                "a TOML entry must be a table".into(),
                1,
                1,
            ));
        };
        if let Some((last, (key, field))) = container
            .split_last()
            .and_then(|(l, rest)| Some((rest, keyed_segment(l)?)))
        {
            self.upsert_keyed(last, key, field, name, obj)?;
            return Ok(());
        }
        let parent = self.container_mut(container)?;
        let mut floating = false;
        match parent {
            Item::Table(parent) => match parent.get_mut(name) {
                Some(Item::Table(t)) => {
                    // An implicit table given a header now has no place of its own.
                    floating = t.is_implicit();
                    // Keep the table's position and the comments above it; keep each kept
                    // key's own decoration (e.g. a trailing comment).
                    let keys: Vec<String> = t.iter().map(|(k, _)| k.to_string()).collect();
                    for k in keys {
                        if !obj.contains_key(&k) {
                            t.remove(&k);
                        }
                    }
                    set_fields(t, obj);
                }
                Some(other) => {
                    *other = Item::Value(toml_edit::Value::InlineTable(json_to_inline(obj)))
                }
                None => {
                    let mut t = Table::new();
                    for (k, v) in obj {
                        t.insert(k, Item::Value(json_to_value(v)));
                    }
                    // A new entry's table goes right after the last table of its container
                    // in the file (`toml_edit` would put it after the table it visits last,
                    // which depends on how the tables were defined, and which the window of
                    // one entry could not know).
                    let mut positions: Vec<isize> = parent
                        .position()
                        .filter(|_| !parent.is_implicit())
                        .into_iter()
                        .collect();
                    table_positions(parent, &mut positions);
                    if let Some(&last) = positions.iter().max() {
                        t.set_position(Some(last));
                    }
                    parent.insert(name, Item::Table(t));
                }
            },
            Item::Value(toml_edit::Value::InlineTable(parent)) => {
                parent.insert(name, toml_edit::Value::InlineTable(json_to_inline(obj)));
            }
            _ => return Err(not_a_table(container)),
        }
        self.floating |= floating;
        Ok(())
    }

    /// [`super::TomlDoc::remove`] on this text, unproven (see [`Editor::verified`]).
    pub fn remove(&mut self, container: &[String], name: &str) -> Result<(), ReadError> {
        if let Some((parents, (key, field))) = container
            .split_last()
            .and_then(|(l, rest)| Some((rest, keyed_segment(l)?)))
        {
            self.remove_keyed(parents, key, field, name)?;
            return Ok(());
        }
        let removed = match self.container_mut(container)? {
            Item::Table(t) => t.remove(name).map(|item| match item {
                Item::Table(t) => Some(t),
                _ => None,
            }),
            Item::Value(toml_edit::Value::InlineTable(t)) => t.remove(name).map(|_| None),
            _ => return Err(not_a_table(container)),
        };
        let removed = match removed {
            Some(table) => {
                if let Some(t) = table {
                    self.keep_comments_above(&t);
                }
                true
            }
            None => false,
        };
        if !removed {
            return Err(err(
                Code::NotFound,
                format!("there is no entry `{name}` in `{}`", container.join(".")),
                1,
                1,
            ));
        }
        Ok(())
    }

    /// The keyed list `<parents>.<key>` as an array of tables (created when absent), after
    /// checking it is a keyed list; and the index of the table whose `field` is `name`.
    fn keyed_list(
        &mut self,
        parents: &[String],
        key: &str,
        field: &str,
        name: &str,
        create: bool,
    ) -> Result<(&mut toml_edit::ArrayOfTables, Option<usize>), ReadError> {
        let mut path = parents.to_vec();
        path.push(format!("{key}[{field}]"));
        let whole = path.join(".");
        if let Some(Err(bad)) = crate::keyed::get_path(&self.root, &path) {
            return Err(err(
                Code::NotAnObject,
                format!("`{whole}` must be a list of server tables, but it is {bad}"),
                1,
                1,
            ));
        }
        let parent = self.container_mut(parents)?;
        let Some(t) = parent.as_table_like_mut() else {
            return Err(not_a_table(parents));
        };
        if t.get(key).is_none() {
            if !create {
                return Err(err(
                    Code::NotFound,
                    format!("there is no entry `{name}` in `{whole}`"),
                    1,
                    1,
                ));
            }
            t.insert(key, Item::ArrayOfTables(toml_edit::ArrayOfTables::new()));
        }
        match t.get_mut(key) {
            Some(Item::ArrayOfTables(a)) => {
                let at = a
                    .iter()
                    .position(|e| e.get(field).and_then(|v| v.as_str()) == Some(name));
                Ok((a, at))
            }
            // An inline array `key = [{…}]`: toml_edit would not keep its layout on edit.
            _ => Err(err(
                Code::CannotPreserve,
                format!(
                    "mcpconf edits `{whole}` only as `[[{key}]]` tables, not as an inline array; write the list as `[[{key}]]` tables and try again"
                ),
                1,
                1,
            )),
        }
    }

    fn upsert_keyed(
        &mut self,
        parents: &[String],
        key: &str,
        field: &str,
        name: &str,
        obj: &serde_json::Map<String, Value>,
    ) -> Result<(), ReadError> {
        let (list, at) = self.keyed_list(parents, key, field, name, true)?;
        match at.and_then(|i| list.get_mut(i)) {
            Some(t) => {
                // Keep the table's position, its `field` and the comments above it.
                let keys: Vec<String> = t.iter().map(|(k, _)| k.to_string()).collect();
                for k in keys {
                    if k != field && !obj.contains_key(&k) {
                        t.remove(&k);
                    }
                }
                set_fields(t, obj);
            }
            None => {
                let mut t = Table::new();
                t.insert(field, Item::Value(name.into()));
                for (k, v) in obj {
                    t.insert(k, Item::Value(json_to_value(v)));
                }
                list.push(t);
            }
        }
        Ok(())
    }

    fn remove_keyed(
        &mut self,
        parents: &[String],
        key: &str,
        field: &str,
        name: &str,
    ) -> Result<(), ReadError> {
        let whole = format!(
            "{}{key}[{field}]",
            parents.iter().map(|p| format!("{p}.")).collect::<String>()
        );
        let (list, at) = self.keyed_list(parents, key, field, name, false)?;
        let Some(i) = at else {
            return Err(err(
                Code::NotFound,
                format!("there is no entry `{name}` in `{whole}`"),
                1,
                1,
            ));
        };
        let table = list.remove(i);
        let empty = list.is_empty();
        self.keep_comments_above(&table);
        if empty {
            // The list was ours alone: it goes with its last entry, as it came.
            if let Some(t) = self.container_mut(parents)?.as_table_like_mut() {
                t.remove(key);
            }
        }
        Ok(())
    }

    /// The comments above a removed table's header are not its own (mcpconf writes none):
    /// they stay, above the table that now follows, or at the end of the file.
    fn keep_comments_above(&mut self, removed: &Table) {
        let Some(prefix) = removed.decor().prefix().and_then(|p| p.as_str()) else {
            return;
        };
        let Some(at) = removed.position().filter(|_| prefix.contains('#')) else {
            return;
        };
        let prefix = prefix.to_string();
        let mut positions = Vec::new();
        table_positions(self.doc.as_table(), &mut positions);
        let earlier = positions.iter().any(|&p| p < at);
        match positions.into_iter().filter(|&p| p > at).min() {
            Some(next) => {
                if let Some(t) = table_at(self.doc.as_table_mut(), next) {
                    let own = t
                        .decor()
                        .prefix()
                        .and_then(|p| p.as_str())
                        .map(str::to_string)
                        .unwrap_or_else(|| if earlier { "\n".into() } else { String::new() });
                    t.decor_mut().set_prefix(format!("{prefix}{own}"));
                }
            }
            None => {
                let trailing = self.doc.trailing().as_str().unwrap_or("").to_string();
                self.doc.set_trailing(format!("{prefix}{trailing}"));
            }
        }
    }

    fn container_mut(&mut self, container: &[String]) -> Result<&mut Item, ReadError> {
        let mut item: &mut Item = self.doc.as_item_mut();
        for seg in container {
            let Some(t) = item.as_table_like_mut() else {
                return Err(not_a_table(container));
            };
            if t.get(seg).is_none() {
                let mut new = Table::new();
                new.set_implicit(true);
                t.insert(seg, Item::Table(new));
            }
            item = match t.get_mut(seg) {
                Some(i) => i,
                None => return Err(not_a_table(container)),
            };
        }
        Ok(item)
    }

    /// Render, parse again and check the result is exactly the value read plus the change
    /// (`value` at `container`.`name`, or nothing there): the new text, parsed with its spans,
    /// and its value.
    pub(super) fn verified(
        &self,
        before: &Value,
        container: &[String],
        name: &str,
        value: Option<&Value>,
    ) -> Result<(Document<String>, Value), ReadError> {
        let text = self.render();
        let reparsed = Document::parse(text).map_err(|e| {
            err(
                Code::InternalEditError,
                format!(
                    "the edit produced invalid TOML ({}); this is a bug",
                    e.message()
                ),
                1,
                1,
            )
        })?;
        let now = table_to_json(reparsed.as_table());
        let mut expected = before.clone();
        set_json(&mut expected, container, name, value.cloned());
        if !json_eq(&now, &expected) {
            return Err(err(
                Code::InternalEditError,
                "the edit did not verify (the re-parsed file is not the old content plus the change); this is a bug".into(),
                1,
                1,
            ));
        }
        Ok((reparsed, now))
    }
}

/// The document positions of every table with a header under `t`.
fn table_positions(t: &Table, out: &mut Vec<isize>) {
    for (_, item) in t.iter() {
        match item {
            Item::Table(s) => {
                if !s.is_implicit()
                    && let Some(p) = s.position()
                {
                    out.push(p);
                }
                table_positions(s, out);
            }
            Item::ArrayOfTables(a) => {
                for s in a.iter() {
                    if let Some(p) = s.position() {
                        out.push(p);
                    }
                    table_positions(s, out);
                }
            }
            _ => {}
        }
    }
}

/// The table with a header at document position `at` under `t`.
fn table_at(t: &mut Table, at: isize) -> Option<&mut Table> {
    for (_, item) in t.iter_mut() {
        match item {
            Item::Table(s) => {
                if !s.is_implicit() && s.position() == Some(at) {
                    return Some(s);
                }
                if let Some(found) = table_at(s, at) {
                    return Some(found);
                }
            }
            Item::ArrayOfTables(a) => {
                for s in a.iter_mut() {
                    if s.position() == Some(at) {
                        return Some(s);
                    }
                    if let Some(found) = table_at(s, at) {
                        return Some(found);
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// Set each field of `obj` in a table, replacing values in place: the key keeps its own
/// decoration (comments above it), the value keeps its (a trailing comment).
fn set_fields(t: &mut Table, obj: &serde_json::Map<String, Value>) {
    for (k, v) in obj {
        // A field that already holds this value keeps its spelling and its form (a
        // sub-table such as Codex's `[mcp_servers.x.tools.t]` stays a sub-table).
        if t.get(k).and_then(item_to_json).as_ref() == Some(v) {
            continue;
        }
        let mut new = json_to_value(v);
        match t.get_mut(k) {
            Some(Item::Value(old)) => {
                *new.decor_mut() = old.decor().clone();
                *old = new;
            }
            _ => {
                t.insert(k, Item::Value(new));
            }
        }
    }
}

fn not_a_table(container: &[String]) -> ReadError {
    err(
        Code::NotAnObject,
        format!(
            "`{}` must be a table that holds servers, but it is not",
            container.join(".")
        ),
        1,
        1,
    )
}

fn set_json(root: &mut Value, container: &[String], name: &str, value: Option<Value>) {
    let mut cur = root;
    if let Some((parents, (key, field))) = container
        .split_last()
        .and_then(|(l, rest)| Some((rest, keyed_segment(l)?)))
    {
        for seg in parents {
            let Some(obj) = cur.as_object_mut() else {
                return;
            };
            cur = obj
                .entry(seg.clone())
                .or_insert_with(|| Value::Object(Default::default()));
        }
        let Some(obj) = cur.as_object_mut() else {
            return;
        };
        let list = obj
            .entry(key.to_string())
            .or_insert_with(|| Value::Array(Vec::new()));
        let Some(items) = list.as_array_mut() else {
            return;
        };
        let at = items
            .iter()
            .position(|e| e.get(field).and_then(Value::as_str) == Some(name));
        match (value, at) {
            (Some(Value::Object(mut m)), at) => {
                m.insert(field.to_string(), Value::String(name.to_string()));
                match at {
                    Some(i) => items[i] = Value::Object(m),
                    None => items.push(Value::Object(m)),
                }
            }
            (None, Some(i)) => {
                items.remove(i);
            }
            _ => {}
        }
        if items.is_empty() {
            obj.remove(key);
        }
        return;
    }
    for seg in container {
        let Some(obj) = cur.as_object_mut() else {
            return;
        };
        cur = obj
            .entry(seg.clone())
            .or_insert_with(|| Value::Object(Default::default()));
    }
    if let Some(obj) = cur.as_object_mut() {
        match value {
            Some(v) => {
                obj.insert(name.to_string(), v);
            }
            None => {
                obj.remove(name);
            }
        }
    }
}

/// Equality that ignores empty tables (an implicit empty table renders as nothing).
fn json_eq(a: &Value, b: &Value) -> bool {
    strip_empty(a) == strip_empty(b)
}

fn strip_empty(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter_map(|(k, x)| {
                    let s = strip_empty(x);
                    let empty_table = x.is_object() && s.as_object().is_some_and(|o| o.is_empty());
                    (!empty_table).then(|| (k.clone(), s))
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Whether `text` parses and `toml_edit` gives it back byte for byte (without building its
/// value).
pub(super) fn roundtrips(text: &str) -> Result<bool, toml_edit::TomlError> {
    let doc: DocumentMut = text.parse()?;
    Ok(render(&doc, final_newline(text)) == text)
}

/// Whether a text ends its last line with a newline; a blank text has no last line to keep
/// unterminated, and what is added to it ends with one.
fn final_newline(text: &str) -> bool {
    text.ends_with('\n') || text.is_empty()
}

/// `doc`'s text, whose final newline `toml_edit` adds is taken away again unless the text
/// read had one.
fn render(doc: &DocumentMut, final_newline: bool) -> String {
    let mut s = doc.to_string();
    if !final_newline && s.ends_with('\n') {
        s.pop();
    }
    s
}
