//! `zed`: Zed `settings.json`, project `.zed/settings.json` and user
//! `~/.config/zed/settings.json`; JSONC; servers under `context_servers`. Zed expands no
//! environment references (headers are sent literally), so a `${VAR}` is refused.
//!
//! Zed still reads the legacy `"command": {"path", "args", "env"}` object: its settings
//! migration `m_2025_06_27` (`flatten_context_server_command`, crates/migrator) rewrites it to
//! `command`, `args` and `env`, and `SettingsStore::parse_and_migrate_zed_settings`
//! (crates/settings/src/settings_store.rs) runs the migrations in memory on every load, leaving
//! the file as it is. [`flat_command`] is that reading: the legacy entry is the same entry.

use serde_json::Value;

use super::{
    BASE, Base, ClientManaged, ENABLED_FALSE, McpServers, Places, Scope, Syntax, Ty, Types,
};

/// Zed.
pub static ZED: McpServers = McpServers {
    id: "zed",
    description: "Zed editor `context_servers`",
    scopes: &[
        Scope::new("project", Base::Root, ".zed/settings.json"),
        Scope::new("user", Base::Home, ".config/zed/settings.json"),
    ],
    syntax: Syntax::Jsonc,
    container_key: "context_servers",
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Omit,
        sse: Ty::Unsupported,
    },
    var_places: Places::Nowhere,
    known_fields: &[
        "command", "args", "env", "url", "headers", "timeout", "enabled", "remote", "oauth",
        "settings", "source",
    ],
    client_managed: ClientManaged {
        keys: &["enabled"],
        source: "https://github.com/zed-industries/zed/blob/main/crates/settings_content/src/project.rs",
        checked: "Zed (zed-industries/zed main, 2026-12-05): `ContextServerSettingsContent::set_enabled`, used by the agent panel's server toggle",
    },
    off: Some(ENABLED_FALSE),
    // `ContextServerSettingsContent::Extension { enabled, settings }`: a server an installed
    // extension provides, configured here.
    extension_key: Some("settings"),
    // Zed's settings migration of 2025-06 (`m_2025_06_16`) wrote `"source": "custom"` into
    // every custom server's entry; the entry means the same without it (a `command` or `url`
    // tells a custom server from an extension's).
    defaults: &[("source", "\"custom\"")],
    canonical: Some(flat_command),
    source: "https://github.com/zed-industries/zed/blob/main/crates/settings_content/src/project.rs (`ContextServerSettingsContent`, `ContextServerCommand`)",
    checked: "zed main (2026-12-05)",
    ..BASE
};

/// Zed's reading of a legacy `"command": {"path", "args", "env"}` object (migration
/// `m_2025_06_27`): `command` the path, and `args` and `env` beside it where the entry has
/// none of its own. Any other entry as it is (the migration needs a `path`).
pub fn flat_command(v: &Value) -> Value {
    let Some(m) = v.as_object() else {
        return v.clone();
    };
    let Some(Value::Object(c)) = m.get("command") else {
        return v.clone();
    };
    let Some(path) = c.get("path") else {
        return v.clone();
    };
    let mut out = m.clone();
    out.insert("command".into(), path.clone());
    for k in ["args", "env"] {
        if let Some(x) = c.get(k)
            && !out.contains_key(k)
        {
            out.insert(k.into(), x.clone());
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legacy_command_object_reads_flat() {
        let legacy = serde_json::json!({"command": {"path": "srv", "args": ["run"], "env": {}}, "settings": {}});
        assert_eq!(
            flat_command(&legacy),
            serde_json::json!({"command": "srv", "args": ["run"], "env": {}, "settings": {}})
        );
        // Without a path the migration does nothing, and neither does this.
        let odd = serde_json::json!({"command": {"args": ["x"]}});
        assert_eq!(flat_command(&odd), odd);
    }
}
