//! The prompted inputs an import carries: the `${input:ID}` its servers use, and the
//! `[inputs.ID]` table of each, read from the file's own list (VS Code's `inputs`).

use serde_json::Value;
use toml_edit::{Item, Table, value};

use super::Notes;
use crate::redact::classify;

/// The ids of the inputs (`${input:ID}`) the strings of a manifest item use.
pub(super) fn inputs_in(item: &Item) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |s: &str| {
        if let Ok(t) = crate::template::Template::parse(s) {
            for id in t.inputs() {
                if !out.iter().any(|o| o == id) {
                    out.push(id.to_string());
                }
            }
        }
    };
    fn walk(v: &toml_edit::Value, add: &mut dyn FnMut(&str)) {
        match v {
            toml_edit::Value::String(s) => add(s.value()),
            toml_edit::Value::Array(a) => a.iter().for_each(|x| walk(x, add)),
            toml_edit::Value::InlineTable(t) => t.iter().for_each(|(_, x)| walk(x, add)),
            _ => {}
        }
    }
    if let Some(t) = item.as_table_like() {
        for (_, i) in t.iter() {
            if let Some(v) = i.as_value() {
                walk(v, &mut add);
            }
        }
    }
    out
}

/// The ids of the inputs the servers of `table` use.
pub(super) fn inputs_used(table: &Table) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, item) in table.iter() {
        for id in inputs_in(item) {
            if !out.contains(&id) {
                out.push(id);
            }
        }
    }
    out
}

/// The `[inputs.ID]` table of each input the servers use that the file's list declares: its
/// `description`, `password` and `default` as written (a `type` other than `promptString` is
/// kept, so the manifest refuses the servers that use it, with the reason). A default the
/// shared detector flags is left out with a warning.
pub(super) fn input_tables(table: &Table, inputs: Option<&Value>, notes: &mut Notes) -> Table {
    let mut out = Table::new();
    let list = inputs
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    for id in inputs_used(table) {
        let Some(entry) = list
            .iter()
            .filter_map(Value::as_object)
            .find(|e| e.get("id").and_then(Value::as_str) == Some(id.as_str()))
        else {
            continue;
        };
        let mut t = Table::new();
        if let Some(ty) = entry.get("type").and_then(Value::as_str)
            && ty != "promptString"
        {
            t["type"] = value(ty);
        }
        if let Some(d) = entry.get("description").and_then(Value::as_str) {
            t["description"] = value(d);
        }
        if let Some(p) = entry.get("password").and_then(Value::as_bool) {
            t["password"] = value(p);
        }
        if let Some(d) = entry.get("default").and_then(Value::as_str) {
            if crate::redact::must_hide(&id, d) || classify("default", d).is_some() {
                notes.say(format!(
                    "input `{id}`: its `default` looks like a secret and was left out; the client prompts without one"
                ));
            } else {
                t["default"] = value(d);
            }
        }
        out.insert(&id, Item::Table(t));
    }
    out
}
