//! `devin`: Devin for Windsurf, Windsurf's successor (`windsurf` stays for the older app).
//! Project `.devin/mcp_config.json`, user `~/.config/devin/mcp_config.json` (Windows
//! `%APPDATA%\devin\mcp_config.json`: give an explicit `path` there); strict JSON under
//! `mcpServers`, a remote server's URL in `url`. The references Windsurf expands
//! (`${env:VAR}`) are not documented for Devin yet, so a `${VAR}` is refused rather than
//! written as a literal.

use super::{BASE, Base, McpServers, Places, Scope, Syntax, Ty, Types};

/// Devin.
pub static DEVIN: McpServers = McpServers {
    id: "devin",
    description: "Devin (Windsurf's successor) `mcp_config.json`",
    scopes: &[
        Scope::new("project", Base::Root, ".devin/mcp_config.json"),
        Scope::new("user", Base::Home, ".config/devin/mcp_config.json"),
    ],
    syntax: Syntax::Json,
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Omit,
        sse: Ty::Omit,
    },
    var_places: Places::Nowhere,
    known_fields: &[
        "command",
        "args",
        "env",
        "url",
        "serverUrl",
        "headers",
        "disabled",
        "disabledTools",
    ],
    source: "https://docs.devin.ai (Devin for Windsurf, MCP); rulesync Devin target",
    checked: "Devin for Windsurf v3000.3 (not re-read 2026-12-05: Devin Desktop's MCP page is not in the stored corpus)",
    ..BASE
};
