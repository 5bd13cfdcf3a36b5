//! `antigravity`: Google Antigravity. The current release reads
//! `~/.gemini/config/mcp_config.json` (scope `user`); earlier releases read
//! `~/.gemini/antigravity/mcp_config.json` (scope `user-legacy`); a workspace's own servers
//! live in `.agents/mcp_config.json` (scope `project`). Strict JSON under
//! `mcpServers`; a remote server's URL goes in `serverUrl` (streamable HTTP; SSE is not
//! documented and is refused). Antigravity documents no environment references, so a `${VAR}`
//! is refused rather than written as a literal.

use super::{BASE, Base, McpServers, Places, Scope, Syntax, Ty, Types};

/// Antigravity.
pub static ANTIGRAVITY: McpServers = McpServers {
    id: "antigravity",
    description: "Google Antigravity `mcp_config.json`",
    scopes: &[
        Scope::new("user", Base::Home, ".gemini/config/mcp_config.json"),
        Scope::new(
            "user-legacy",
            Base::Home,
            ".gemini/antigravity/mcp_config.json",
        ),
        Scope::new("project", Base::Root, ".agents/mcp_config.json"),
    ],
    syntax: Syntax::Json,
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Omit,
        sse: Ty::Unsupported,
    },
    http_url_key: "serverUrl",
    sse_url_key: "serverUrl",
    var_places: Places::Nowhere,
    known_fields: &[
        "command",
        "args",
        "env",
        "serverUrl",
        "headers",
        "disabled",
        "disabledTools",
    ],
    source: "https://antigravity.google/docs/mcp; rulesync Antigravity target (`.agents/mcp_config.json`)",
    checked: "Antigravity 2.0 docs (not re-read 2026-12-05: the page is not in the stored corpus)",
    ..BASE
};
