//! `devin`: Devin for Windsurf, Windsurf's successor (`windsurf` stays for the older app).
//! Project `.devin/mcp_config.json`, user `~/.config/devin/mcp_config.json`; strict JSON under
//! `mcpServers`, Windsurf's shape with the remote URL in `serverUrl`. The references Windsurf
//! expands (`${env:VAR}`) are not documented for Devin yet, so a `${VAR}` is refused rather than
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
    http_url_key: "serverUrl",
    sse_url_key: "serverUrl",
    var_places: Places::Nowhere,
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
    ..BASE
};
