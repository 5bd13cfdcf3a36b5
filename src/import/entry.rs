//! One entry, in the common shape, read into a manifest server table: its command line or
//! URL, environment and headers (each value's references read and its secrets replaced), its
//! transport, working directory, env file and tool pin.

use serde_json::{Map, Value};
use toml_edit::{Array, InlineTable, Table, value};

use super::Notes;
use super::refs::{neutral, read_field};
use super::secrets::{protect, protect_inline};
use super::shapes::untyped_url;
use crate::dialect::Dialect;
use crate::server::RemoteKind;

pub(super) fn string_map(
    server: &str,
    v: Option<&Value>,
    dialect: &str,
    is_header: bool,
    notes: &mut Notes,
) -> Vec<(String, String)> {
    v.and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| {
                    let s = v.as_str()?;
                    if crate::redact::detect::known_prefix(k).is_some() {
                        notes.say(format!(
                            "server `{server}`: an {} entry whose name has the shape of a credential was dropped (its name is not shown); move the credential into a value read from the environment",
                            if is_header { "header" } else { "env" }
                        ));
                        notes.changed(server, k, "");
                        return None;
                    }
                    let field = format!("{}.{k}", if is_header { "headers" } else { "env" });
                    let read = read_field(server, &field, s, dialect, notes);
                    Some((k.clone(), protect(server, k, read, is_header, notes)))
                })
                .collect()
        })
        .unwrap_or_default()
}

pub(super) fn strings(v: Option<&Value>, dialect: &str) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(|s| neutral(s, dialect))
                .collect()
        })
        .unwrap_or_default()
}

/// [`strings`] with the secrets in each replaced ([`protect_inline`]).
pub(super) fn protected_strings(
    server: &str,
    field: &str,
    v: Option<&Value>,
    dialect: &str,
    notes: &mut Notes,
) -> Vec<String> {
    // Each element read as its client spells references (a foreign spelling noted), then the
    // secrets: the element after a credential option that ends the one before is its value
    // (`["--token", "V"]`), replaced whole.
    let read: Vec<String> = v
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(|s| read_field(server, field, s, dialect, notes))
                .collect()
        })
        .unwrap_or_default();
    let mut after: Option<String> = None;
    read.into_iter()
        .map(|s| {
            let flag = after.take();
            let out = match flag {
                Some(flag) if crate::redact::argv::value_after(&s) => {
                    let var = notes.var_for(&s, &[server, &flag]);
                    notes.say(format!(
                        "server `{server}`: the literal secret after the option `{flag}` in `{field}` was replaced by `${{{var}}}`; set {var} in the environment before applying"
                    ));
                    notes.replaced(&var);
                    notes.changed(server, &s, &var);
                    format!("${{{var}}}")
                }
                _ => protect_inline(server, field, s, notes),
            };
            after = crate::redact::argv::trailing_flag(&out).map(str::to_string);
            out
        })
        .collect()
}

pub(super) fn inline(pairs: &[(String, String)]) -> InlineTable {
    let mut t = InlineTable::new();
    for (k, v) in pairs {
        t.insert(k, v.as_str().into());
    }
    t
}

pub(super) fn array(items: &[String]) -> Array {
    let mut a = Array::new();
    for i in items {
        a.push(i.as_str());
    }
    a
}

pub(super) fn server_table(
    name: &str,
    e: &Map<String, Value>,
    dialect: &dyn Dialect,
    notes: &mut Notes,
) -> Option<Table> {
    let id = dialect.id();
    let mut t = Table::new();
    let ty = e.get("type").and_then(Value::as_str).unwrap_or("");
    // opencode's shape (Kilo's too): the command line as one array, `environment` for env.
    let argv_shape = e.get("command").is_some_and(Value::is_array) || e.contains_key("environment");
    let (command, args, mut env) = if argv_shape {
        let cmd = protected_strings(name, "command", e.get("command"), id, notes);
        let (c, rest) = match cmd.split_first() {
            Some((c, rest)) => (Some(c.clone()), rest.to_vec()),
            None => (None, Vec::new()),
        };
        (
            c,
            rest,
            string_map(name, e.get("environment"), id, false, notes),
        )
    } else {
        (
            e.get("command").and_then(Value::as_str).map(|s| {
                let read = read_field(name, "command", s, id, notes);
                protect_inline(name, "command", read, notes)
            }),
            protected_strings(name, "args", e.get("args"), id, notes),
            string_map(name, e.get("env"), id, false, notes),
        )
    };
    if id == "codex" {
        for v in strings(e.get("env_vars"), id) {
            env.push((v.clone(), format!("${{{v}}}")));
        }
    }
    let url_key = ["url", "serverUrl", "httpUrl"]
        .into_iter()
        .find(|k| e.get(*k).and_then(Value::as_str).is_some());
    if let Some(c) = command {
        t["command"] = value(c);
        if !args.is_empty() {
            t["args"] = value(array(&args));
        }
        if !env.is_empty() {
            t["env"] = value(inline(&env));
        }
        if let Some(cwd) = e.get("cwd").and_then(Value::as_str) {
            let read = read_field(name, "cwd", cwd, id, notes);
            t["cwd"] = value(protect_inline(name, "cwd", read, notes));
        }
        if let Some(f) = e.get("envFile").and_then(Value::as_str) {
            let read = read_field(name, "env_file", f, id, notes);
            t["env_file"] = value(protect_inline(name, "env_file", read, notes));
        }
    } else if let Some(k) = url_key {
        let url = e.get(k).and_then(Value::as_str).unwrap_or_default();
        let read = read_field(name, "url", url, id, notes);
        t["url"] = value(protect_inline(name, "url", read, notes));
        let mut headers = string_map(
            name,
            e.get(if id == "codex" {
                "http_headers"
            } else {
                "headers"
            }),
            id,
            true,
            notes,
        );
        if id == "codex" {
            if let Some(b) = e.get("bearer_token_env_var").and_then(Value::as_str) {
                headers.insert(0, ("Authorization".into(), format!("Bearer ${{{b}}}")));
            }
            if let Some(m) = e.get("env_http_headers").and_then(Value::as_object) {
                for (h, v) in m {
                    if let Some(v) = v.as_str() {
                        headers.push((h.clone(), format!("${{{v}}}")));
                    }
                }
            }
        }
        if !headers.is_empty() {
            t["headers"] = value(inline(&headers));
        }
        if ty == "sse" || (ty.is_empty() && untyped_url(dialect, k) == Some(RemoteKind::Sse)) {
            t["transport"] = value("sse");
        }
    } else {
        return None;
    }
    // The pin field from the dialects' table (the current release's).
    let pin_key = dialect.common_pin_key();
    if let Some(k) = pin_key {
        let tools = strings(e.get(k), id);
        // `["*"]` is every tool (Copilot CLI's own form for no pin).
        if !tools.is_empty() && tools != ["*"] {
            t["tools"] = value(array(&tools));
        }
    }
    Some(t)
}
