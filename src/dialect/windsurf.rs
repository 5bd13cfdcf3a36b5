//! `windsurf`: `~/.codeium/windsurf/mcp_config.json` (user scope only; no project file is
//! documented). Strict JSON; remote servers under `serverUrl`; references spelled `${env:VAR}`.

use super::{BASE, Base, ClientManaged, DISABLED_TRUE, McpServers, Scope, Syntax, Ty, Types};

/// Windsurf.
pub static WINDSURF: McpServers = McpServers {
    id: "windsurf",
    description: "Windsurf (Codeium) Cascade",
    scopes: &[Scope::new(
        "user",
        Base::Home,
        ".codeium/windsurf/mcp_config.json",
    )],
    syntax: Syntax::Json,
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Omit,
        sse: Ty::Omit,
    },
    http_url_key: "serverUrl",
    sse_url_key: "serverUrl",
    // Windsurf reads a remote's `url` as its `serverUrl` (both in its docs' known fields).
    respell: &[("url", "serverUrl", "")],
    var_syntax: "${env:VAR}",
    known_fields: &[
        "command",
        "args",
        "env",
        "serverUrl",
        "url",
        "headers",
        "disabled",
        "disabledTools",
    ],
    client_managed: ClientManaged {
        keys: &["disabled", "disabledTools"],
        source: "https://docs.windsurf.com/windsurf/cascade/mcp",
        checked: "Windsurf docs (server and per-tool toggles in the MCP settings), checked 2026-12",
    },
    off: Some(DISABLED_TRUE),
    source: "https://docs.windsurf.com/windsurf/cascade/mcp",
    checked: "docs (2026-09)",
    ..BASE
};
