//! Keyed lists (see [`crate::keyed`]) in JSON documents: VS Code's top-level `inputs` array,
//! each element an object named by its `id`, read and edited as an object keyed by `id`
//! (`inputs[id]`), so that the planner owns an input entry exactly as it owns a server entry.
//! Only a path whose *first* segment is keyed is supported. Each edit splices one element's
//! bytes and is proven like every JSON edit ([`JsonDoc::replace_value`]). Pure: no I/O.

use serde_json::{Map, Value};

use crate::diag::{Code, ReadError};
use crate::jsondoc::{JsonDoc, UndoHint, array};
use crate::keyed::{get_below, keyed_segment};

/// `(key, field)` when the first segment of `path` is a keyed-list segment.
pub fn first(path: &[String]) -> Option<(&str, &str)> {
    path.first().and_then(|s| keyed_segment(s))
}

/// The value at `path` (its first segment keyed), as the keyed view shows it.
pub fn get(d: &JsonDoc, path: &[String]) -> Option<Result<Value, &'static str>> {
    let (key, _) = first(path)?;
    let list = d.get(&[key.to_string()])?;
    get_below(&list, &path[0], &path[1..])
}

/// The object view of the keyed container `container` (one segment).
fn view(d: &JsonDoc, container: &[String]) -> Option<Map<String, Value>> {
    match get(d, container)? {
        Ok(Value::Object(m)) if container.len() == 1 => Some(m),
        _ => None,
    }
}

/// Index of entry `name` among the keyed container's entries.
pub fn position(d: &JsonDoc, container: &[String], name: &str) -> Option<usize> {
    view(d, container)?.keys().position(|k| k == name)
}

/// How many entries the keyed container holds.
pub fn member_count(d: &JsonDoc, container: &[String]) -> Option<usize> {
    view(d, container).map(|m| m.len())
}

fn fail(container: &[String], m: &str) -> ReadError {
    ReadError {
        code: Code::InternalEditError,
        message: format!("cannot edit the list `{}`: {m}", container.join(".")),
        line: 1,
        column: 1,
    }
}

fn unsupported(container: &[String]) -> ReadError {
    fail(
        container,
        "a keyed list is edited only at the top level of a file",
    )
}

/// The element as written: `value` (an entry of the keyed view) with its naming `field`
/// put back, after a leading `type` member (VS Code's docs' order), else first.
fn element(value: &Value, field: &str, name: &str) -> Value {
    let mut out = Map::new();
    let mut placed = false;
    if let Value::Object(m) = value {
        for (i, (k, v)) in m.iter().enumerate() {
            if i == 0 && k != "type" {
                out.insert(field.to_string(), name.into());
                placed = true;
            }
            out.insert(k.clone(), v.clone());
            if i == 0 && !placed {
                out.insert(field.to_string(), name.into());
                placed = true;
            }
        }
    }
    if !placed {
        out.insert(field.to_string(), name.into());
    }
    Value::Object(out)
}

/// The indentation of the line `pos` lies on.
fn line_indent(text: &str, pos: usize) -> &str {
    let start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// `v` as pretty JSON indented by `unit`, its lines after the first by `indent` more.
fn pretty(v: &Value, unit: &str, indent: &str) -> Result<String, ReadError> {
    use serde::Serialize;
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
    v.serialize(&mut ser)
        .map_err(|_| fail(&[], "an element could not be written"))?;
    let text = String::from_utf8(buf).map_err(|_| fail(&[], "not UTF-8"))?;
    Ok(text.replace('\n', &format!("\n{indent}")))
}

/// Set entry `name` of the keyed container (creating the list when the file has none): its
/// element replaced in place, or appended. Returns the undo hints of a list it created.
pub fn upsert(
    d: &mut JsonDoc,
    container: &[String],
    name: &str,
    value: &Value,
) -> Result<Option<Value>, ReadError> {
    let (key, field) = first(container).ok_or_else(|| unsupported(container))?;
    if container.len() != 1 {
        return Err(unsupported(container));
    }
    let (key, field) = (key.to_string(), field.to_string());
    let elem = element(value, &field, name);
    let path = [key.clone()];
    let Some(Value::Array(mut items)) = d.get(&path) else {
        if d.get(&path).is_some() {
            return Err(fail(container, "it is not a list"));
        }
        let mut hints = d
            .upsert(&[], &key, &Value::Array(vec![elem]))
            .map_err(|e| fail(container, &e.message))?;
        // The list is mcpconf's: it goes with its last element. Said as the editor's own
        // hint (the keyed container created), so the file's hints merge as they always do.
        hints.push(UndoHint::Created {
            path: container.to_vec(),
        });
        return Ok(serde_json::to_value(hints).ok());
    };
    let text = d
        .value_text(&path)
        .ok_or_else(|| fail(container, "not found"))?
        .into_owned();
    let (start, _) = d
        .value_span(&path)
        .ok_or_else(|| fail(container, "not found"))?;
    let whole = d.text().to_string();
    let spans = array::spans(&text).ok_or_else(|| fail(container, "not a list"))?;
    let at = items
        .iter()
        .position(|x| x.get(&field).and_then(Value::as_str) == Some(name));
    // The indentation: an element's own line's, else one unit more than the list's line.
    let list_indent = line_indent(&whole, start).to_string();
    let elem_indent = match spans.first() {
        Some((s, _)) if text[..*s].contains('\n') => line_indent(&text, *s).to_string(),
        _ => format!("{list_indent}  "),
    };
    let unit = elem_indent
        .strip_prefix(list_indent.as_str())
        .filter(|u| !u.is_empty())
        .unwrap_or("  ")
        .to_string();
    let elem_text = pretty(&elem, &unit, &elem_indent)?;
    let edited = match at {
        Some(i) => {
            let (s, e) = spans[i];
            items[i] = elem;
            format!("{}{elem_text}{}", &text[..s], &text[e..])
        }
        None => {
            items.push(elem);
            let close = text.contains('\n').then_some(list_indent.as_str());
            let close = close.or(spans.is_empty().then_some(list_indent.as_str()));
            array::push_text(&text, &elem_text, &elem_indent, close)
                .ok_or_else(|| fail(container, "its text could not be split into elements"))?
        }
    };
    d.replace_value(&[], &key, &edited, &Value::Array(items))
        .map_err(|e| fail(container, &e.message))?;
    Ok(None)
}

/// Remove entry `name` of the keyed container; the list goes with its last element when
/// `hints` say mcpconf created it.
pub fn remove(
    d: &mut JsonDoc,
    container: &[String],
    name: &str,
    hints: Option<&Value>,
) -> Result<(), ReadError> {
    let (key, field) = first(container).ok_or_else(|| unsupported(container))?;
    if container.len() != 1 {
        return Err(unsupported(container));
    }
    let (key, field) = (key.to_string(), field.to_string());
    let path = [key.clone()];
    let Some(Value::Array(mut items)) = d.get(&path) else {
        return Err(ReadError {
            code: Code::NotFound,
            message: format!("there is no list `{key}`"),
            line: 1,
            column: 1,
        });
    };
    let i = items
        .iter()
        .position(|x| x.get(&field).and_then(Value::as_str) == Some(name))
        .ok_or_else(|| ReadError {
            code: Code::NotFound,
            message: format!("there is no entry `{name}` in `{key}`"),
            line: 1,
            column: 1,
        })?;
    let hints: Vec<UndoHint> = hints
        .and_then(|h| serde_json::from_value(h.clone()).ok())
        .unwrap_or_default();
    let created = hints
        .iter()
        .any(|h| matches!(h, UndoHint::Created { path } if path.as_slice() == container));
    if items.len() == 1 && created {
        return d
            .remove(&[], &key, &[])
            .map_err(|e| fail(container, &e.message));
    }
    let text = d
        .value_text(&path)
        .ok_or_else(|| fail(container, "not found"))?
        .into_owned();
    let edited = array::remove_at(&text, i)
        .ok_or_else(|| fail(container, "its text could not be split into elements"))?;
    items.remove(i);
    d.replace_value(&[], &key, &edited, &Value::Array(items))
        .map_err(|e| fail(container, &e.message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsondoc::Syntax;
    use serde_json::json;

    fn c() -> Vec<String> {
        vec!["inputs[id]".to_string()]
    }

    #[test]
    fn upsert_then_remove_gives_the_bytes_back() {
        for text in [
            "{\n  \"servers\": {}\n}\n",
            "{\n  \"inputs\": [],\n  \"servers\": {}\n}\n",
            "{\n    \"inputs\": [\n        {\n            \"type\": \"promptString\",\n            \"id\": \"a\"\n        }\n    ],\n    \"servers\": {}\n}\n",
        ] {
            let mut d = JsonDoc::parse(text.as_bytes(), Syntax::Jsonc).unwrap();
            let v = json!({"type": "promptString", "description": "Key", "password": true});
            let hints = upsert(&mut d, &c(), "k", &v).unwrap();
            assert_eq!(
                get(&d, &[c()[0].clone(), "k".into()]),
                Some(Ok(v.clone())),
                "{}",
                d.text()
            );
            assert_eq!(
                position(&d, &c(), "k"),
                Some(member_count(&d, &c()).unwrap() - 1)
            );
            // Replaced in place.
            let v2 = json!({"type": "promptString", "description": "Other"});
            upsert(&mut d, &c(), "k", &v2).unwrap();
            assert_eq!(get(&d, &[c()[0].clone(), "k".into()]), Some(Ok(v2)));
            remove(&mut d, &c(), "k", hints.as_ref()).unwrap();
            assert_eq!(d.text(), text);
        }
    }

    #[test]
    fn elements_keep_the_documented_order() {
        let mut d = JsonDoc::parse(b"{}\n", Syntax::Jsonc).unwrap();
        upsert(
            &mut d,
            &c(),
            "k",
            &json!({"type": "promptString", "password": true}),
        )
        .unwrap();
        let t = d.text();
        assert!(
            t.find("\"type\"") < t.find("\"id\"") && t.find("\"id\"") < t.find("\"password\""),
            "{t}"
        );
    }
}
