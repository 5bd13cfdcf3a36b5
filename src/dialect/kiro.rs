//! `kiro`: Kiro's settings `mcp.json`, workspace `.kiro/settings/mcp.json` and user
//! `~/.kiro/settings/mcp.json`; strict JSON; references spelled `${VAR}` (Kiro's docs).

use super::{Base, McpServers, Scope, Syntax, TypeField};

/// Kiro settings.
pub static KIRO: McpServers = McpServers {
    id: "kiro",
    description: "Kiro IDE / CLI settings `mcp.json`",
    scopes: &[
        Scope {
            name: "project",
            base: Base::Root,
            path: ".kiro/settings/mcp.json",
        },
        Scope {
            name: "user",
            base: Base::Home,
            path: ".kiro/settings/mcp.json",
        },
    ],
    syntax: Syntax::Json,
    container_key: "mcpServers",
    type_field: TypeField::OnlySse,
    var_syntax: "${VAR}",
    cwd: false,
    known_fields: &[
        "command",
        "args",
        "env",
        "url",
        "headers",
        "disabled",
        "autoApprove",
        "disabledTools",
        "oauth",
        "oauthScopes",
        "timeout",
        "requestTimeout",
        "type",
    ],
};
