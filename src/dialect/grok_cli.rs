//! `grok-cli`: the open-source Grok CLI (npm `@vibe-kit/grok-cli`, superagent-ai/grok-cli), not
//! xAI's Grok Build (`grok`). It reads MCP servers from the project file `.grok/settings.json`
//! only (`dist/mcp/config.js` `loadMCPConfig`: `mcpServers` of the project settings), each entry
//! `{name, transport: {type: "stdio", command, args, env}}` (`dist/mcp/transports.js`).
//!
//! Its `http` transport is not MCP's streamable HTTP (a plain HTTP client that probes
//! `/health`) and its SSE transport drops headers, so remote servers are refused. It expands no
//! references, so a `${VAR}` is refused. `grok mcp list` lists the servers offline (the oracle
//! in tests/it/real_clients/grok_cli.rs).

use serde_json::{Map, Value};

use super::reshaped::{Reshaped, no_precheck};
use super::{BASE, Base, McpServers, Places, Scope, Syntax, Ty, Types};
use crate::server::Server;

/// Grok CLI.
pub static GROK_CLI: Reshaped = Reshaped {
    inner: McpServers {
        id: "grok-cli",
        description: "Grok CLI (`@vibe-kit/grok-cli`) `.grok/settings.json` (local servers)",
        scopes: &[Scope::new("project", Base::Root, ".grok/settings.json")],
        syntax: Syntax::Json,
        types: Types {
            stdio: Ty::Name("stdio"),
            http: Ty::Unsupported,
            sse: Ty::Unsupported,
        },
        var_places: Places::Nowhere,
        known_fields: &["name", "transport", "command", "args"],
        canonical: Some(lifted_transport),
        source: "https://github.com/superagent-ai/grok-cli src/mcp/config.ts (v0.0.34: `.grok/settings.json` `mcpServers`)",
        checked: "grok-cli 0.0.34 (checked 2026-12-05 against superagent-ai/grok-cli fb97af8: v1.x, npm `grok-dev`, reads only `~/.grok/user-settings.json` `mcp.servers`, an array of `{id, label, enabled, transport, …}`: not this dialect)",
        ..BASE
    },
    home_only: false,
    precheck: no_precheck,
    reshape: nested_transport,
    unshape: flat_transport,
};

/// `{name, transport: {type, command, args, env}}`.
fn nested_transport(server: &Server, m: Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("name".into(), Value::String(server.name.clone()));
    out.insert("transport".into(), Value::Object(m));
    out
}

/// Grok CLI's reading of an entry in either shape it takes (the nested `transport` mcpconf
/// writes, the legacy flat `{name, command, args, env}`): the keys of `transport` lifted to the
/// top, where they win over the same keys outside it, as Grok CLI reads only `transport` when
/// there is one. `name` stays: both shapes carry it. Plan and import compare through it.
fn lifted_transport(v: &Value) -> Value {
    match v.as_object() {
        Some(m) if m.get("transport").is_some_and(Value::is_object) => {
            let mut out = Map::new();
            let nested = m.get("transport").and_then(Value::as_object);
            for (k, x) in m {
                if k == "transport" {
                    out.extend(nested.cloned().unwrap_or_default());
                } else if !nested.is_some_and(|t| t.contains_key(k)) {
                    out.insert(k.clone(), x.clone());
                }
            }
            Value::Object(out)
        }
        _ => v.clone(),
    }
}

/// The inverse of [`nested_transport`]: the keys of `transport` (`type`, `command`, `args`,
/// `env`, `url`, `headers`) read at the top, and `name` dropped when it is the server's own.
/// Grok CLI also reads the legacy flat `{name, command, args, env}` (`dist/mcp/client.js`), which
/// needs only the `name`; with a `transport` it reads only that, so a key both inside and
/// outside `transport` is read from inside, as Grok CLI does.
fn flat_transport(name: &str, m: Map<String, Value>) -> Map<String, Value> {
    let nested = match m.get("transport") {
        Some(Value::Object(t)) => t.clone(),
        _ => Map::new(),
    };
    let mut out = Map::new();
    for (k, v) in m {
        match (k.as_str(), v) {
            ("name", Value::String(n)) if n == name => {}
            ("transport", Value::Object(_)) => out.extend(nested.clone()),
            (_, v) if nested.contains_key(&k) => drop(v),
            (_, v) => {
                out.insert(k, v);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn import_reads_the_nested_and_the_legacy_shape() {
        let nested: Map<String, Value> = serde_json::from_str(
            r#"{"name":"fs","transport":{"type":"stdio","command":"npx","args":["a"],"env":{}}}"#,
        )
        .unwrap();
        assert_eq!(
            Value::Object(flat_transport("fs", nested)),
            serde_json::json!({"type": "stdio", "command": "npx", "args": ["a"], "env": {}})
        );
        let legacy: Map<String, Value> =
            serde_json::from_str(r#"{"name":"git","command":"uvx","args":["g"]}"#).unwrap();
        assert_eq!(
            Value::Object(flat_transport("git", legacy)),
            serde_json::json!({"command": "uvx", "args": ["g"]})
        );
        // A name other than the key stays (import names what it drops); `transport` wins.
        let both: Map<String, Value> = serde_json::from_str(
            r#"{"name":"other","command":"old","transport":{"type":"stdio","command":"new"}}"#,
        )
        .unwrap();
        let flat = flat_transport("x", both);
        assert_eq!(flat["command"], "new");
        assert_eq!(flat["name"], "other");
    }

    #[test]
    fn both_shapes_read_the_same() {
        let nested = serde_json::json!({"name": "git", "transport": {"type": "stdio", "command": "uvx", "args": ["g"]}});
        let legacy = serde_json::json!({"name": "git", "command": "uvx", "args": ["g"]});
        let facts = crate::dialect::client_facts("grok-cli");
        assert!(crate::plan::semantic_eq_for(&nested, &legacy, facts));
        let other = serde_json::json!({"name": "git", "command": "uvx", "args": ["h"]});
        assert!(!crate::plan::semantic_eq_for(&nested, &other, facts));
    }
}
