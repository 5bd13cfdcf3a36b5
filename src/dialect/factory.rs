//! `factory`: Factory's Droid CLI. User `~/.factory/mcp.json`, project `.factory/mcp.json`;
//! strict JSON under `mcpServers`; `type` is `stdio` or `http` (no SSE). Factory documents no
//! environment references in this file, so a `${VAR}` is refused rather than written as a
//! literal. Source: docs.factory.ai/cli/configuration/mcp.

use super::{BASE, Base, McpServers, Places, Scope, Syntax, Ty, Types};

/// Factory Droid.
pub static FACTORY: McpServers = McpServers {
    id: "factory",
    description: "Factory Droid CLI `mcp.json`",
    scopes: &[
        Scope::new("project", Base::Root, ".factory/mcp.json"),
        Scope::new("user", Base::Home, ".factory/mcp.json"),
    ],
    syntax: Syntax::Json,
    types: Types {
        stdio: Ty::Name("stdio"),
        http: Ty::Name("http"),
        sse: Ty::Unsupported,
    },
    var_places: Places::Nowhere,
    known_fields: &[
        "type",
        "command",
        "args",
        "env",
        "url",
        "headers",
        "disabled",
        "disabledTools",
    ],
    ..BASE
};
