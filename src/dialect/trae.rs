//! `trae`: Trae IDE. User `mcp.json` in Trae's user directory (Linux `~/.config/Trae/User/`,
//! macOS `~/Library/Application Support/Trae/User/`, Windows `%APPDATA%\Trae\User\`), project
//! `.trae/mcp.json`. Strict JSON under `mcpServers`, Cursor's shape (no `type`; remote servers
//! by `url`, streamable HTTP). Trae documents no environment references, so a `${VAR}` is
//! refused rather than written as a literal; SSE is refused (a bare `url` is not read as SSE).

use super::{BASE, Base, McpServers, Places, Scope, Syntax, Ty, Types};

/// Trae.
pub static TRAE: McpServers = McpServers {
    id: "trae",
    description: "Trae IDE `mcp.json`",
    scopes: &[
        Scope {
            name: "user",
            base: Base::Home,
            path: ".config/Trae/User/mcp.json",
            macos: "Library/Application Support/Trae/User/mcp.json",
        },
        Scope::new("project", Base::Root, ".trae/mcp.json"),
    ],
    syntax: Syntax::Json,
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Omit,
        sse: Ty::Unsupported,
    },
    var_places: Places::Nowhere,
    known_fields: &[
        "command", "args", "env", "url", "headers", "type", "disabled",
    ],
    source: "https://docs.trae.ai (MCP: add MCP servers manually)",
    checked: "docs (2026-09; not re-read 2026-12-05: Trae IDE's MCP page is not in the stored corpus)",
    ..BASE
};
