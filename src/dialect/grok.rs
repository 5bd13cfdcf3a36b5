//! `grok`: xAI's Grok Build CLI. User `~/.grok/config.toml` (`$GROK_HOME/config.toml` when set:
//! give an explicit `path`), project `.grok/config.toml`. TOML tables `[mcp_servers.<name>]`
//! with `command`, `args`, `env` (the shape `grok mcp add` writes). mcpconf writes only stdio
//! servers there: the remote fields are not documented well enough to write them, so a remote
//! server is refused, and so is a `${VAR}` (Grok documents no environment references).

use super::{BASE, Base, McpServers, Places, Scope, Syntax, Ty, Types};

/// Grok Build.
pub static GROK: McpServers = McpServers {
    id: "grok",
    description: "Grok Build CLI `config.toml` (`[mcp_servers.*]`, stdio only)",
    scopes: &[
        Scope::new("user", Base::Home, ".grok/config.toml"),
        Scope::new("project", Base::Root, ".grok/config.toml"),
    ],
    syntax: Syntax::Toml,
    container_key: "mcp_servers",
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Unsupported,
        sse: Ty::Unsupported,
    },
    var_places: Places::Nowhere,
    known_fields: &[
        "command",
        "args",
        "env",
        "enabled",
        "startup_timeout_sec",
        "tool_timeouts",
        "url",
    ],
    ..BASE
};
