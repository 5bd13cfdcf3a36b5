//! Client shapes before an entry is read: a Goose, Continue or Hermes entry in the common
//! shape, the entries a client starts nothing from, and what an untyped `url` means to a client.

use serde_json::{Map, Value};

use super::Notes;
use crate::dialect::Dialect;
use crate::server::RemoteKind;

/// The fields a YAML client's entries carry that mcpconf also writes (so adopting them is
/// not refused for them).
pub(super) const WRITTEN_TOO: &[&str] = &["enabled", "name", "description", "timeout"];

/// An entry in the common shape `server_table` reads (`command`, `args`, `env`, `url`,
/// `headers`, `type`, `tools`), as the client's dialect reads its own shape
/// ([`Dialect::common_entry`]: Goose's `cmd`/`envs`/`uri`, Continue's `requestOptions`,
/// Hermes' `transport` and `tools.include`, …). `None`: an entry that is not a server mcpconf
/// manages ([`Dialect::not_a_server`]), said in `notes`.
pub(super) fn common_entry(
    d: &dyn Dialect,
    name: &str,
    e: &Map<String, Value>,
    notes: &mut Notes,
) -> Option<Map<String, Value>> {
    if let Some(why) = d.not_a_server(name, e) {
        notes.say(why);
        return None;
    }
    let mut out = d.common_entry(name, e);
    if d.syntax() != crate::dialect::Syntax::Yaml {
        return Some(out);
    }
    // What mcpconf writes itself into a YAML client's entries goes, as long as it says what
    // mcpconf would write (a default the client writes, Goose's `timeout: 300`); anything else
    // stays, so the warning about dropped fields names it.
    for k in WRITTEN_TOO {
        let same = match (*k, out.get(*k)) {
            ("enabled", Some(v)) => v == &Value::Bool(true),
            ("name", Some(v)) => v.as_str() == Some(name),
            ("description", Some(v)) => v.as_str() == Some(""),
            ("timeout", Some(v)) => {
                let json = v.to_string();
                d.defaults()
                    .iter()
                    .any(|(dk, dv)| *dk == "timeout" && *dv == json)
            }
            _ => false,
        };
        if same {
            out.remove(*k);
        }
    }
    Some(out)
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
    crate::dialect::starts_nothing_from(dialect, e)?;
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
