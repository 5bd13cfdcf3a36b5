//! `cursor`: `.cursor/mcp.json` (project) and `~/.cursor/mcp.json` (user); strict JSON
//! (a trailing comma breaks Cursor); references spelled `${env:VAR}`.

use super::{Base, McpServers, Scope, Syntax, TypeField};

/// Cursor.
pub static CURSOR: McpServers = McpServers {
    id: "cursor",
    description: "Cursor (editor and CLI)",
    scopes: &[
        Scope {
            name: "project",
            base: Base::Root,
            path: ".cursor/mcp.json",
        },
        Scope {
            name: "user",
            base: Base::Home,
            path: ".cursor/mcp.json",
        },
    ],
    syntax: Syntax::Json,
    container_key: "mcpServers",
    type_field: TypeField::OnlySse,
    var_syntax: "${env:VAR}",
    cwd: false,
    known_fields: &[
        "command", "args", "env", "envFile", "url", "headers", "type", "auth",
    ],
};
