//! `kiro`: Kiro's settings `mcp.json`, workspace `.kiro/settings/mcp.json` and user
//! `~/.kiro/settings/mcp.json`; strict JSON. Kiro's documentation expands `${VAR}` in env values
//! and headers only, so a reference anywhere else is refused.

use super::{BASE, Base, McpServers, Places, Scope, Syntax};

/// Kiro settings.
pub static KIRO: McpServers = McpServers {
    id: "kiro",
    description: "Kiro IDE / CLI settings `mcp.json`",
    scopes: &[
        Scope::new("project", Base::Root, ".kiro/settings/mcp.json"),
        Scope::new("user", Base::Home, ".kiro/settings/mcp.json"),
    ],
    syntax: Syntax::Json,
    var_places: Places::EnvAndHeaders,
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
    ..BASE
};
