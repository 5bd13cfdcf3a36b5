//! The one JSON ↔ TOML conversion of values. Pure: no I/O.

use serde_json::Value;
use toml_edit::{Array, InlineTable, Item, TableLike};

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

pub(super) fn json_to_inline(m: &serde_json::Map<String, Value>) -> InlineTable {
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
