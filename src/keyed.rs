//! Keyed lists: containers that are lists of tables identified by a field (Mistral Vibe's
//! `[[mcp_servers]]` with `name`), shown to the engine as objects. Pure: no I/O.

use serde_json::Value;

/// A container segment `key[field]` names a *keyed list*: the value at `key` is a list of
/// tables, each identified by its string `field` (Mistral Vibe's `[[mcp_servers]]` with
/// `name`). Through such a segment a document shows the list as an object: entry name → the
/// table without its `field`, in list order. So the engine addresses list entries exactly like
/// map entries, and the ledger's pointer names them (`/mcp_servers[name]/fetch`).
pub fn keyed_segment(seg: &str) -> Option<(&str, &str)> {
    let (key, rest) = seg.split_once('[')?;
    let field = rest.strip_suffix(']')?;
    (!key.is_empty() && !field.is_empty() && !field.contains(['[', ']'])).then_some((key, field))
}

/// What [`crate::document::Doc::kind`] says of a keyed list that is not one: an element that is not a table,
/// lacks a string `field`, or repeats another's (clients reject those lists, and which copy
/// an edit would mean is unknowable).
pub const BAD_KEYED_LIST: &str =
    "a list whose elements are not all tables with a distinct string name";

/// The object view of a keyed list (see [`keyed_segment`]); `Err(())` when it is not one.
#[allow(clippy::result_unit_err)]
pub fn keyed_view(list: &Value, field: &str) -> Result<serde_json::Map<String, Value>, ()> {
    let Value::Array(items) = list else {
        return Err(());
    };
    let mut out = serde_json::Map::new();
    for item in items {
        let Some(obj) = item.as_object() else {
            return Err(());
        };
        let Some(Value::String(name)) = obj.get(field) else {
            return Err(());
        };
        let mut entry = obj.clone();
        entry.remove(field);
        if out.insert(name.clone(), Value::Object(entry)).is_some() {
            return Err(());
        }
    }
    Ok(out)
}

/// The value at a path of a JSON tree, following keyed-list segments (see [`keyed_segment`]).
/// A keyed list that is not one shows as [`BAD_KEYED_LIST`] through `Err`.
pub fn get_path(root: &Value, path: &[String]) -> Option<Result<Value, &'static str>> {
    let mut cur = root;
    for (i, seg) in path.iter().enumerate() {
        match keyed_segment(seg) {
            Some((key, field)) => {
                let list = cur.as_object()?.get(key)?;
                return match keyed_view(list, field) {
                    Ok(m) => get_path(&Value::Object(m), &path[i + 1..]),
                    Err(()) => Some(Err(BAD_KEYED_LIST)),
                };
            }
            None => cur = cur.as_object()?.get(seg)?,
        }
    }
    Some(Ok(cur.clone()))
}

/// [`get_path`] from the value of the path's first segment `first` (for a reader that holds
/// its top-level values apart, and copies none of them whole).
pub fn get_below(
    value: &Value,
    first: &str,
    rest: &[String],
) -> Option<Result<Value, &'static str>> {
    match keyed_segment(first) {
        Some((_, field)) => match keyed_view(value, field) {
            Ok(m) => get_path(&Value::Object(m), rest),
            Err(()) => Some(Err(BAD_KEYED_LIST)),
        },
        None => get_path(value, rest),
    }
}

/// Beside every list of a tree that is a keyed list by `field`, its object view under
/// `key[field]` (for readers such as lint that walk the whole tree by plain keys).
pub fn add_views(v: &mut Value, field: &str) {
    let Value::Object(m) = v else {
        if let Value::Array(items) = v {
            items.iter_mut().for_each(|i| add_views(i, field));
        }
        return;
    };
    let mut views = Vec::new();
    for (k, x) in m.iter_mut() {
        add_views(x, field);
        if x.as_array().is_some_and(|a| !a.is_empty())
            && let Ok(view) = keyed_view(x, field)
        {
            views.push((format!("{k}[{field}]"), Value::Object(view)));
        }
    }
    for (k, view) in views {
        m.entry(k).or_insert(view);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn views_sit_beside_keyed_lists_only() {
        let mut v = json!({
            "mcp_servers": [{"name": "a", "command": "x"}, {"name": "b", "url": "u"}],
            "dup": [{"name": "a"}, {"name": "a"}],
            "plain": [1, 2],
            "t": {"inner": [{"name": "c", "k": 1}]}
        });
        super::add_views(&mut v, "name");
        assert_eq!(
            v["mcp_servers[name]"],
            json!({"a": {"command": "x"}, "b": {"url": "u"}})
        );
        assert_eq!(v["t"]["inner[name]"], json!({"c": {"k": 1}}));
        assert!(v.get("dup[name]").is_none() && v.get("plain[name]").is_none());
        assert_eq!(v["mcp_servers"][0]["name"], json!("a"));
    }
}
