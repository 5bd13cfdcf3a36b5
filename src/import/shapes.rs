//! Client shapes before an entry is read: a Goose, Continue or Hermes entry in the common
//! shape, the entries a client starts nothing from, and what an untyped `url` means to a client.

use serde_json::{Map, Value};

use super::Notes;
use crate::dialect::Dialect;
use crate::server::RemoteKind;

/// The fields a YAML client's entries carry that mcpconf also writes (so adopting them is
/// not refused for them).
pub(super) const WRITTEN_TOO: &[&str] = &["enabled", "name", "description", "timeout"];

/// A Goose, Continue or Hermes entry in the common shape `server_table` reads (`command`,
/// `args`, `env`, `url`, `headers`, `type`, `tools`); other clients' entries as they are.
/// `None`: an entry that is not a server mcpconf manages (Goose's own extensions).
pub(super) fn yaml_client_entry(
    id: &str,
    name: &str,
    e: &Map<String, Value>,
    notes: &mut Notes,
) -> Option<Map<String, Value>> {
    let mut out = e.clone();
    let rename = |out: &mut Map<String, Value>, from: &str, to: &str| {
        if let Some(v) = out.remove(from) {
            out.insert(to.to_string(), v);
        }
    };
    match id {
        "goose" => {
            let ty = e.get("type").and_then(Value::as_str).unwrap_or("");
            if !matches!(ty, "stdio" | "streamable_http") {
                notes.say(goose_skip(name, ty));
                return None;
            }
            out.remove("type");
            rename(&mut out, "cmd", "command");
            rename(&mut out, "envs", "env");
            rename(&mut out, "uri", "url");
            rename(&mut out, "available_tools", "tools");
            // Variables Goose takes from its secret store or the environment, by name.
            if let Some(Value::Array(keys)) = out.remove("env_keys") {
                let headers = out.contains_key("url");
                let env = out
                    .entry("env")
                    .or_insert_with(|| Value::Object(Map::new()));
                for k in keys.iter().filter_map(Value::as_str) {
                    let used_in_header = headers
                        && e.get("headers")
                            .and_then(Value::as_object)
                            .is_some_and(|h| {
                                h.values()
                                    .any(|v| v.as_str().is_some_and(|v| v.contains(k)))
                            });
                    if let (Some(m), false) = (env.as_object_mut(), used_in_header) {
                        m.insert(k.to_string(), Value::String(format!("${{{k}}}")));
                    }
                }
                if env.as_object().is_some_and(Map::is_empty) {
                    out.remove("env");
                }
            }
        }
        "continue" => {
            if let Some(Value::Object(ro)) = out.remove("requestOptions") {
                if let Some(h) = ro.get("headers") {
                    out.insert("headers".into(), h.clone());
                }
                if ro.keys().any(|k| k != "headers") {
                    out.insert("requestOptions".into(), Value::Object(ro));
                }
            }
            if out.get("type").and_then(Value::as_str) != Some("sse") {
                out.remove("type");
            }
        }
        "hermes" => {
            if out.get("transport").and_then(Value::as_str) == Some("sse") {
                out.remove("transport");
                out.insert("type".into(), "sse".into());
            }
            if let Some(include) = e
                .get("tools")
                .and_then(Value::as_object)
                .and_then(|t| t.get("include"))
            {
                out.insert("tools".into(), include.clone());
            }
        }
        _ => return Some(out),
    }
    // What mcpconf writes itself goes, as long as it says what mcpconf would write; anything
    // else stays, so the warning about dropped fields names it.
    for k in WRITTEN_TOO {
        let same = match (*k, out.get(*k)) {
            ("enabled", Some(v)) => v == &Value::Bool(true),
            ("name", Some(v)) => v.as_str() == Some(name),
            ("description", Some(v)) => v.as_str() == Some(""),
            ("timeout", Some(v)) => id == "goose" && v.as_u64() == Some(300),
            _ => false,
        };
        if same {
            out.remove(*k);
        }
    }
    Some(out)
}

/// Why a Goose extension that is not `stdio` or `streamable_http` is not imported, truthfully
/// for its type: an `sse` extension is an MCP server Goose no longer starts (its
/// `extensions::get_warnings` says "SSE is unsupported, migrate to streamable_http"); the
/// others (`builtin`, `platform`, `frontend`, `inline_python`) are Goose's own, not MCP server
/// entries.
pub(super) fn goose_skip(name: &str, ty: &str) -> String {
    match ty {
        "sse" => format!(
            "server `{name}` is skipped: it is a Goose `sse` extension, which Goose no longer starts (it reports SSE as unsupported); if the server also speaks streamable HTTP, change the entry to `type: streamable_http` and import again"
        ),
        "" => format!("server `{name}` is skipped: its Goose extension has no `type`"),
        _ => format!(
            "server `{name}` is skipped: it is a Goose `{ty}` extension (Goose's own), not an MCP server entry"
        ),
    }
}

/// Why the client reads nothing from this entry, when it is a remote entry without `type` and
/// its client starts no server from one ([`Dialect::untyped_url_unread`]: Roo Code rejects it,
/// Amazon Q takes it for a local command): the entry does nothing, so there is nothing to
/// import.
pub(super) fn unread_untyped(
    name: &str,
    e: &Map<String, Value>,
    dialect: &dyn Dialect,
) -> Option<String> {
    dialect.untyped_url_unread()?;
    if e.contains_key("type") || e.contains_key("command") || !e.contains_key("url") {
        return None;
    }
    let id = dialect.id();
    Some(format!(
        "server `{name}` is left out: client `{id}` starts no server from a `url` entry without `type` (it rejects the entry or takes it for a local command), so the entry does nothing there; add the `type` the client wants (see `mcpconf clients {id}`) and import again"
    ))
}

/// What a remote entry without a transport marker (`type`) whose URL stands under `key` means
/// to its client, read from how the dialect writes each kind: the kind it writes with its URL
/// under `key` and no marker (or a marker its client assumes when absent, one of its
/// [`Dialect::defaults`]). Streamable HTTP when both or neither are (Cursor's `url` is either).
/// Qwen Code's `url` is SSE (`httpUrl` is streamable HTTP).
pub(super) fn untyped_url(dialect: &dyn Dialect, key: &str) -> Option<RemoteKind> {
    let untyped = |kind: RemoteKind| {
        let server = crate::server::Server {
            name: "probe".into(),
            transport: crate::server::Transport::Remote {
                url: crate::template::Template::literal("https://example.invalid/mcp"),
                headers: Vec::new(),
                kind,
            },
            tools: None,
            enabled: None,
            checks: Default::default(),
        };
        let Ok(r) = dialect.render(&server) else {
            return false;
        };
        let marker = ["type", "transport"]
            .into_iter()
            .filter_map(|m| r.value.get(m).map(|v| (m, v)))
            .all(|(m, v)| {
                let json = serde_json::to_string(v).unwrap_or_default();
                dialect
                    .defaults()
                    .iter()
                    .any(|(k, d)| *k == m && *d == json)
            });
        r.value.get(key).is_some() && marker
    };
    match (untyped(RemoteKind::Http), untyped(RemoteKind::Sse)) {
        (false, true) => Some(RemoteKind::Sse),
        (true, _) => Some(RemoteKind::Http),
        (false, false) => None,
    }
}
