//! `junie`: JetBrains Junie. Project `.junie/mcp/mcp.json`, user `~/.junie/mcp/mcp.json`;
//! strict JSON under `mcpServers`, `{command, args, env}`. Junie supports only stdio servers
//! (jetbrains.com/help/junie/model-context-protocol-mcp.html), so remote servers are refused,
//! and it documents no environment references, so a `${VAR}` is refused too.

use super::{BASE, Base, McpServers, Places, Scope, Syntax, Ty, Types};

/// Junie.
pub static JUNIE: McpServers = McpServers {
    id: "junie",
    description: "JetBrains Junie `mcp.json` (stdio servers only)",
    scopes: &[
        Scope::new("project", Base::Root, ".junie/mcp/mcp.json"),
        Scope::new("user", Base::Home, ".junie/mcp/mcp.json"),
    ],
    syntax: Syntax::Json,
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Unsupported,
        sse: Ty::Unsupported,
    },
    var_places: Places::Nowhere,
    known_fields: &["command", "args", "env"],
    source: "https://www.jetbrains.com/help/junie/model-context-protocol-mcp.html",
    checked: "docs (2026-12-05)",
    ..BASE
};
