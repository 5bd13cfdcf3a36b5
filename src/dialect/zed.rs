//! `zed`: Zed `settings.json`, project `.zed/settings.json` and user
//! `~/.config/zed/settings.json`; JSONC; servers under `context_servers`. Zed expands no
//! environment references (headers are sent literally), so a `${VAR}` is refused.

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
    source: "https://github.com/zed-industries/zed/blob/main/crates/settings_content/src/project.rs (`ContextServerSettingsContent`, `ContextServerCommand`)",
    checked: "zed main (2026-12-05)",
    ..BASE
};
