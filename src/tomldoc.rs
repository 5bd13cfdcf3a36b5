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
//! they are someone else's): above the table that follows, or at the end. Pure: no I/O.

use crate::diag::Code;
use std::sync::Arc;

use serde_json::Value;
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, TableLike};

use crate::diag::ReadError;
use crate::keyed::keyed_segment;

const BOM: &str = "\u{feff}";

/// A parsed TOML document. Its clones share the document, the bytes and the value until one
/// of them is edited (a plan keeps the document read beside the edited one).
#[derive(Debug, Clone)]
pub struct TomlDoc {
    doc: Arc<DocumentMut>,
    /// The bytes as they are now (as read, or after the last edit).
    bytes: Arc<Vec<u8>>,
    bom: bool,
    crlf: bool,
    final_newline: bool,
    root: Arc<Value>,
}

fn err(code: Code, message: String, line: usize, column: usize) -> ReadError {
    ReadError {
        code,
        message,
        line,
        column,
    }
}

impl TomlDoc {
    /// Parse, failing closed (see the module docs).
    pub fn parse(bytes: &[u8]) -> Result<TomlDoc, ReadError> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let ok = &bytes[..e.valid_up_to()];
            let (line, column) = line_col(&String::from_utf8_lossy(ok), e.valid_up_to());
            err(
                Code::InvalidUtf8,
                format!(
                    "the file is not valid utf-8 (bad byte at offset {})",
                    e.valid_up_to()
                ),
                line,
                column,
            )
        })?;
        let (bom, text) = match text.strip_prefix(BOM) {
            Some(t) => (true, t),
            None => (false, text),
        };
        // An empty or blank file is an empty TOML document (Codex's own `codex mcp remove` of
        // its last server leaves a 0-byte `config.toml`); unlike JSON, nothing is missing.
        let crlf = text.contains("\r\n");
        if crlf && text.replace("\r\n", "").contains('\n') {
            return Err(err(
                Code::CannotPreserve,
                "the file mixes CRLF and LF line endings; mcpconf cannot edit it without changing them (make them consistent first)".into(),
                1,
                1,
            ));
        }
        let lf = if crlf {
            text.replace("\r\n", "\n")
        } else {
            text.to_string()
        };
        let doc: DocumentMut = lf.parse().map_err(|e: toml_edit::TomlError| {
            let (line, column) = e.span().map(|s| line_col(&lf, s.start)).unwrap_or((1, 1));
            let msg = e.message().trim().trim_end_matches('.').to_string();
            let code = if msg.contains("duplicate key") {
                Code::DuplicateKey
            } else {
                Code::ParseError
            };
            err(code, format!("invalid TOML: {msg}"), line, column)
        })?;
        // A blank file has no last line to keep unterminated: what is added ends with one.
        let final_newline = lf.ends_with('\n') || lf.is_empty();
        let root = table_to_json(doc.as_table());
        let parsed = TomlDoc {
            doc: Arc::new(doc),
            bytes: Arc::new(bytes.to_vec()),
            bom,
            crlf,
            final_newline,
            root: Arc::new(root),
        };
        if parsed.render() != lf {
            return Err(err(
                Code::CannotPreserve,
                "mcpconf cannot edit this TOML without reformatting it (e.g. dotted keys of one table interleaved with other keys); group those keys and try again".into(),
                1,
                1,
            ));
        }
        Ok(parsed)
    }

    /// An empty document (for a new file).
    pub fn empty() -> TomlDoc {
        TomlDoc {
            doc: Arc::new(DocumentMut::new()),
            bytes: Arc::new(Vec::new()),
            bom: false,
            crlf: false,
            final_newline: true,
            root: Arc::new(Value::Object(Default::default())),
        }
    }

    /// The whole document as JSON (dates become strings, NaN/inf become null).
    pub fn value(&self) -> &Value {
        &self.root
    }

    /// The value at a path of table keys; a keyed-list segment (`mcp_servers[name]`, see
    /// [`crate::keyed`]) shows its list as an object, and one that is not a keyed list as
    /// nothing.
    pub fn get(&self, path: &[String]) -> Option<Value> {
        crate::keyed::get_path(&self.root, path)?.ok()
    }

    fn render(&self) -> String {
        let mut s = self.doc.to_string();
        if !self.final_newline && s.ends_with('\n') {
            s.pop();
        }
        s
    }

    /// The bytes as they are now.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes to write (BOM, CRLF and final newline as the input had them).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut s = self.render();
        if self.crlf {
            s = s.replace('\n', "\r\n");
        }
        if self.bom {
            s.insert_str(0, BOM);
        }
        s.into_bytes()
    }

    /// Set `[<container>.<name>]` to `value` (a JSON object), creating the container as an
    /// implicit table (no header line of its own).
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
        let before = self.root.clone();
        if let Some((last, (key, field))) = container
            .split_last()
            .and_then(|(l, rest)| Some((rest, keyed_segment(l)?)))
        {
            self.upsert_keyed(last, key, field, name, obj)?;
            return self.verify(before, container, name, Some(value));
        }
        let parent = self.container_mut(container)?;
        match parent {
            Item::Table(parent) => match parent.get_mut(name) {
                Some(Item::Table(t)) => {
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
                    parent.insert(name, Item::Table(t));
                }
            },
            Item::Value(toml_edit::Value::InlineTable(parent)) => {
                parent.insert(name, toml_edit::Value::InlineTable(json_to_inline(obj)));
            }
            _ => return Err(not_a_table(container)),
        }
        self.verify(before, container, name, Some(value))
    }

    /// Remove `[<container>.<name>]`; an implicit container left empty disappears with it.
    pub fn remove(&mut self, container: &[String], name: &str) -> Result<(), ReadError> {
        let before = self.root.clone();
        if let Some((parents, (key, field))) = container
            .split_last()
            .and_then(|(l, rest)| Some((rest, keyed_segment(l)?)))
        {
            self.remove_keyed(parents, key, field, name)?;
            return self.verify(before, container, name, None);
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
        self.verify(before, container, name, None)
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
                if let Some(t) = table_at(Arc::make_mut(&mut self.doc).as_table_mut(), next) {
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
                Arc::make_mut(&mut self.doc).set_trailing(format!("{prefix}{trailing}"));
            }
        }
    }

    fn container_mut(&mut self, container: &[String]) -> Result<&mut Item, ReadError> {
        let mut item: &mut Item = Arc::make_mut(&mut self.doc).as_item_mut();
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

    /// Re-render, re-parse and check the result is exactly the old value plus the change.
    fn verify(
        &mut self,
        before: Arc<Value>,
        container: &[String],
        name: &str,
        value: Option<&Value>,
    ) -> Result<(), ReadError> {
        let text = self.render();
        let reparsed: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
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
        let mut expected = Arc::unwrap_or_clone(before);
        set_json(&mut expected, container, name, value.cloned());
        if !json_eq(&now, &expected) {
            return Err(err(
                Code::InternalEditError,
                "the edit did not verify (the re-parsed file is not the old content plus the change); this is a bug".into(),
                1,
                1,
            ));
        }
        self.root = Arc::new(now);
        self.bytes = Arc::new(self.to_bytes());
        Ok(())
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

/// A JSON value as a TOML value (the one JSON→TOML conversion; `null` becomes `""`).
pub fn json_to_value(v: &Value) -> toml_edit::Value {
    match v {
        Value::String(s) => s.as_str().into(),
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.into(),
            (None, Some(f)) => f.into(),
            _ => n.to_string().into(),
        },
        Value::Array(a) => {
            let mut arr = Array::new();
            for x in a {
                arr.push(json_to_value(x));
            }
            toml_edit::Value::Array(arr)
        }
        Value::Object(m) => toml_edit::Value::InlineTable(json_to_inline(m)),
        Value::Null => "".into(),
    }
}

fn json_to_inline(m: &serde_json::Map<String, Value>) -> InlineTable {
    let mut t = InlineTable::new();
    for (k, v) in m {
        t.insert(k, json_to_value(v));
    }
    t
}

/// A TOML table as JSON: the one TOML→JSON conversion (dates become strings; a float JSON
/// cannot hold, such as `nan`, becomes `null`).
pub fn table_to_json(t: &dyn TableLike) -> Value {
    Value::Object(
        t.iter()
            .filter_map(|(k, v)| Some((k.to_string(), item_to_json(v)?)))
            .collect(),
    )
}

/// A TOML item as JSON; `None` for an empty item. See [`table_to_json`].
pub fn item_to_json(i: &Item) -> Option<Value> {
    Some(match i {
        Item::None => return None,
        Item::Value(v) => value_to_json(v),
        Item::Table(t) => table_to_json(t),
        Item::ArrayOfTables(a) => Value::Array(a.iter().map(|t| table_to_json(t)).collect()),
    })
}

/// A TOML value as JSON. See [`table_to_json`].
pub fn value_to_json(v: &toml_edit::Value) -> Value {
    match v {
        toml_edit::Value::String(s) => Value::String(s.value().clone()),
        toml_edit::Value::Integer(i) => Value::from(*i.value()),
        toml_edit::Value::Float(f) => serde_json::Number::from_f64(*f.value())
            .map(Value::Number)
            .unwrap_or(Value::Null),
        toml_edit::Value::Boolean(b) => Value::Bool(*b.value()),
        toml_edit::Value::Datetime(d) => Value::String(d.value().to_string()),
        toml_edit::Value::Array(a) => Value::Array(a.iter().map(value_to_json).collect()),
        toml_edit::Value::InlineTable(t) => table_to_json(t),
    }
}

use crate::text::line_col;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn c() -> Vec<String> {
        vec!["mcp_servers".to_string()]
    }

    fn entry() -> Value {
        json!({"command": "npx", "args": ["-y", "srv"], "env": {"K": "v"}, "env_vars": ["TOKEN"]})
    }

    #[test]
    fn upsert_then_remove_is_identity() {
        let inputs = [
            "# top\nmodel = \"o3\"\n\n[mcp_servers.user]\ncommand = \"u\"\n\n# about profiles\n[profiles.x]\nmodel = \"y\"\n# trailing\n",
            "model = \"o3\"",
            "model = \"o3\"\r\n[x]\r\ny = 1\r\n",
            "\u{feff}model = 1\n",
            "[mcp_servers]\n",
            "[mcp_servers.a]\ncommand = \"a\"\n[mcp_servers.a.env]\nK = \"v\"\n",
            "x = \"\"\"\nmulti\nline\"\"\"\n[features]\nweb = true # on\n",
        ];
        for input in inputs {
            let mut d = TomlDoc::parse(input.as_bytes()).unwrap();
            assert_eq!(d.to_bytes(), input.as_bytes(), "round trip {input:?}");
            d.upsert(&c(), "ours", &entry()).unwrap();
            let added = String::from_utf8(d.to_bytes()).unwrap();
            assert!(added.contains("[mcp_servers.ours]"), "{added}");
            if input.contains("\r\n") {
                assert!(
                    !added.replace("\r\n", "").contains('\n'),
                    "CRLF kept: {added:?}"
                );
            }
            let re = TomlDoc::parse(added.as_bytes()).unwrap();
            assert_eq!(re.get(&[c()[0].clone(), "ours".into()]), Some(entry()));
            d.remove(&c(), "ours").unwrap();
            assert_eq!(
                String::from_utf8(d.to_bytes()).unwrap(),
                input,
                "identity {input:?}"
            );
        }
    }

    #[test]
    fn removal_keeps_the_comments_above_the_removed_table() {
        // Plain tables: above the next table, or at the end of the file.
        for (input, want) in [
            ("# note\n[mcp_servers.ours]\ncommand = \"a\"\n", "# note\n"),
            (
                "# note\n[mcp_servers.ours]\ncommand = \"a\"\n\n[profiles.p]\nmodel = \"m\"\n",
                "# note\n\n[profiles.p]\nmodel = \"m\"\n",
            ),
            (
                "model = \"o3\"\n\n# about ours\n[mcp_servers.ours]\ncommand = \"a\"\n",
                "model = \"o3\"\n\n# about ours\n",
            ),
        ] {
            let mut d = TomlDoc::parse(input.as_bytes()).unwrap();
            d.remove(&c(), "ours").unwrap();
            assert_eq!(String::from_utf8(d.to_bytes()).unwrap(), want, "{input:?}");
        }
        // A keyed list (Mistral Vibe's `[[mcp_servers]]`).
        let keyed = vec!["mcp_servers[name]".to_string()];
        let input = "# note\n[[mcp_servers]]\nname = \"ours\"\ncommand = \"a\"\n";
        let mut d = TomlDoc::parse(input.as_bytes()).unwrap();
        d.remove(&keyed, "ours").unwrap();
        assert_eq!(String::from_utf8(d.to_bytes()).unwrap(), "# note\n");
    }

    #[test]
    fn update_keeps_position_and_comments() {
        let input = "[mcp_servers.ours]\n# about ours\ncommand = \"old\" # note\nargs = [\"x\"]\n\n# next one\n[mcp_servers.user]\ncommand = \"u\"\n";
        let mut d = TomlDoc::parse(input.as_bytes()).unwrap();
        d.upsert(&c(), "ours", &json!({"command": "new"})).unwrap();
        let out = String::from_utf8(d.to_bytes()).unwrap();
        assert_eq!(
            out,
            "[mcp_servers.ours]\n# about ours\ncommand = \"new\" # note\n\n# next one\n[mcp_servers.user]\ncommand = \"u\"\n"
        );
        d.remove(&c(), "ours").unwrap();
        let out = String::from_utf8(d.to_bytes()).unwrap();
        assert!(out.contains("# next one\n[mcp_servers.user]"), "{out}");
    }

    #[test]
    fn blank_files_are_empty_documents() {
        // Codex's `codex mcp remove` of the last server leaves a 0-byte file.
        for input in ["", "\n", "  \n\n", "\u{feff}", "\r\n"] {
            let mut d = TomlDoc::parse(input.as_bytes()).unwrap();
            assert_eq!(d.value(), &json!({}), "{input:?}");
            assert_eq!(d.to_bytes(), input.as_bytes(), "{input:?}");
            d.upsert(&c(), "x", &entry()).unwrap();
            let out = String::from_utf8(d.to_bytes()).unwrap();
            assert!(out.contains("[mcp_servers.x]"), "{input:?}: {out:?}");
            assert!(out.ends_with('\n'), "{input:?}: {out:?}");
            let re = TomlDoc::parse(out.as_bytes()).unwrap();
            assert_eq!(re.get(&[c()[0].clone(), "x".into()]), Some(entry()));
        }
    }

    #[test]
    fn refusals() {
        let cases: &[(&str, &str)] = &[
            ("a = 1\na = 2\n", "duplicate-key"),
            ("[x\n", "parse-error"),
            ("a.b = 1\nc = 2\na.d = 3\n", "cannot-preserve"),
            ("a = 1\r\nb = 2\n", "cannot-preserve"),
        ];
        for (input, code) in cases {
            assert_eq!(
                TomlDoc::parse(input.as_bytes()).unwrap_err().code,
                *code,
                "{input:?}"
            );
        }
        assert_eq!(
            TomlDoc::parse(b"a = \"\xff\"").unwrap_err().code,
            "invalid-utf8"
        );
        let deep = format!("a = {}1{}\n", "[".repeat(5000), "]".repeat(5000));
        assert!(TomlDoc::parse(deep.as_bytes()).is_err());
        let mut d = TomlDoc::parse(b"mcp_servers = 1\n").unwrap();
        assert_eq!(
            d.upsert(&c(), "x", &entry()).unwrap_err().code,
            "not-an-object"
        );
    }

    #[test]
    fn inline_container_gets_inline_entries() {
        let input = "mcp_servers = { a = { command = \"a\" } }\n";
        let mut d = TomlDoc::parse(input.as_bytes()).unwrap();
        d.upsert(&c(), "b", &json!({"command": "b"})).unwrap();
        let re = TomlDoc::parse(&d.to_bytes()).unwrap();
        assert_eq!(
            re.get(&[c()[0].clone(), "b".into()]),
            Some(json!({"command": "b"}))
        );
        d.remove(&c(), "b").unwrap();
        assert_eq!(d.to_bytes(), input.as_bytes());
    }

    fn k() -> Vec<String> {
        vec!["mcp_servers[name]".to_string()]
    }

    fn vibe_entry() -> Value {
        json!({"transport": "stdio", "command": "npx", "args": ["-y", "srv"], "env": {"K": "v"}})
    }

    #[test]
    fn keyed_list_upsert_then_remove_is_identity() {
        let inputs = [
            "# Vibe\nactive_model = \"devstral\"\n\n[[mcp_servers]]\nname = \"fetch\" # theirs\ntransport = \"stdio\"\ncommand = \"uvx\"\n\n# linear\n[[mcp_servers]]\nname = \"linear\"\ntransport = \"streamable-http\"\nurl = \"https://mcp.linear.app/mcp\"\n\n[mcp_servers.auth]\ntype = \"oauth\"\nscopes = []\n\n[tools.fetch_get]\npermission = \"always\"\n",
            "active_model = \"devstral\"\n",
            "active_model = \"devstral\"",
            "a = 1\r\n[x]\r\ny = 2\r\n",
            "[[mcp_servers]]\nname = \"a\"\ntransport = \"stdio\"\ncommand = \"a\"\n",
        ];
        for input in inputs {
            let mut d = TomlDoc::parse(input.as_bytes()).unwrap();
            d.upsert(&k(), "ours", &vibe_entry()).unwrap();
            let added = String::from_utf8(d.to_bytes()).unwrap();
            assert!(
                added.contains("[[mcp_servers]]\nname = \"ours\"")
                    || added.contains("[[mcp_servers]]\r\nname = \"ours\""),
                "{added}"
            );
            let re = TomlDoc::parse(added.as_bytes()).unwrap();
            assert_eq!(re.get(&[k()[0].clone(), "ours".into()]), Some(vibe_entry()));
            // Everything else is still there, byte for byte, before our table.
            let cut = added.find("name = \"ours\"").unwrap();
            assert!(
                input.starts_with(
                    added[..cut]
                        .trim_end_matches("[[mcp_servers]]\n")
                        .trim_end_matches("[[mcp_servers]]\r\n")
                        .trim_end()
                ),
                "{added}"
            );
            // An update in place keeps the table where it is.
            let mut u = re.clone();
            u.upsert(
                &k(),
                "ours",
                &json!({"transport": "stdio", "command": "new"}),
            )
            .unwrap();
            let updated = String::from_utf8(u.to_bytes()).unwrap();
            assert_eq!(updated.find("name = \"ours\""), Some(cut), "{updated}");
            assert!(!updated.contains("args"), "{updated}");
            d.remove(&k(), "ours").unwrap();
            assert_eq!(
                String::from_utf8(d.to_bytes()).unwrap(),
                input,
                "identity {input:?}"
            );
        }
    }

    #[test]
    fn keyed_list_view_and_refusals() {
        let input = "[[mcp_servers]]\nname = \"a\"\ncommand = \"x\"\n[[mcp_servers]]\nname = \"b\"\nurl = \"u\"\n";
        let d = TomlDoc::parse(input.as_bytes()).unwrap();
        assert_eq!(
            d.get(&k()),
            Some(json!({"a": {"command": "x"}, "b": {"url": "u"}}))
        );
        assert_eq!(
            d.get(&[k()[0].clone(), "b".into()]),
            Some(json!({"url": "u"}))
        );
        assert_eq!(d.get(&[k()[0].clone(), "c".into()]), None);
        // Not a keyed list: a duplicate name, an element without one, a scalar: refused, the
        // document untouched; the view shows nothing.
        for bad in [
            "[[mcp_servers]]\nname = \"a\"\n[[mcp_servers]]\nname = \"a\"\n",
            "[[mcp_servers]]\ncommand = \"x\"\n",
            "[[mcp_servers]]\nname = 1\n",
            "mcp_servers = 1\n",
        ] {
            let mut d = TomlDoc::parse(bad.as_bytes()).unwrap();
            assert_eq!(d.get(&k()), None, "{bad}");
            let e = d.upsert(&k(), "ours", &vibe_entry()).unwrap_err();
            assert_eq!(e.code, "not-an-object", "{bad}");
            assert_eq!(d.to_bytes(), bad.as_bytes());
        }
        // An inline array is not edited (toml_edit would not keep its layout).
        let inline = "mcp_servers = [{ name = \"a\", command = \"x\" }]\n";
        let mut d = TomlDoc::parse(inline.as_bytes()).unwrap();
        assert_eq!(
            d.get(&[k()[0].clone(), "a".into()]),
            Some(json!({"command": "x"}))
        );
        assert_eq!(
            d.upsert(&k(), "ours", &vibe_entry()).unwrap_err().code,
            "cannot-preserve"
        );
        let mut d = TomlDoc::parse(input.as_bytes()).unwrap();
        assert_eq!(d.remove(&k(), "zz").unwrap_err().code, "not-found");
    }
}
