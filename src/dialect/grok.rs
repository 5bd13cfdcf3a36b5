//! `grok`: xAI's Grok Build CLI. User `~/.grok/config.toml` (`$GROK_HOME/config.toml` when set:
//! give an explicit `path`), project `.grok/config.toml`. TOML tables `[mcp_servers.<name>]`:
//! a local server `{command, args, env}`, a remote one `{url, headers}` (streamable HTTP, the
//! shape `grok mcp add --transport http` writes; SSE is not documented and is refused). Grok
//! expands `${VAR}` and `${VAR:-default}` in `url`, `command`, `args`, `env` and `headers` at
//! load time, so references are written `${VAR}` and a literal `${…}` is refused. Source:
//! docs.x.ai/build/features/mcp-servers.

use super::{BASE, Base, McpServers, Scope, Syntax, Ty, Types};

/// Grok Build.
pub static GROK: McpServers = McpServers {
    id: "grok",
    description: "Grok Build CLI `config.toml` (`[mcp_servers.*]`)",
    scopes: &[
        Scope::new("user", Base::Home, ".grok/config.toml"),
        Scope::new("project", Base::Root, ".grok/config.toml"),
    ],
    syntax: Syntax::Toml,
    container_key: "mcp_servers",
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Omit,
        sse: Ty::Unsupported,
    },
    known_fields: &[
        "command",
        "args",
        "env",
        "enabled",
        "startup_timeout_sec",
        "tool_timeout_sec",
        "tool_timeouts",
        "url",
        "headers",
    ],
    source: "https://docs.x.ai/build/features/mcp-servers",
    checked: "docs (2026-12-05)",
    ..BASE
};
