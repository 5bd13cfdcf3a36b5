//! `claude-code`: scope `project` is `.mcp.json` at the repository root (strict JSON, entries
//! carry `type`, references spelled `${VAR}`).

use super::{Base, McpServers, Scope, Syntax, TypeField};

/// Claude Code.
pub static CLAUDE_CODE: McpServers = McpServers {
    id: "claude-code",
    description: "Claude Code (project `.mcp.json`)",
    scopes: &[Scope {
        name: "project",
        base: Base::Root,
        path: ".mcp.json",
    }],
    syntax: Syntax::Json,
    container_key: "mcpServers",
    type_field: TypeField::Always,
    var_syntax: "${VAR}",
    cwd: false,
    known_fields: &[
        "type",
        "command",
        "args",
        "env",
        "url",
        "headers",
        "headersHelper",
        "oauth",
        "timeout",
        "alwaysLoad",
    ],
};
