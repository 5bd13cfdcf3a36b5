//! `augment`: Augment Code's CLI (Auggie) and extensions. User `~/.augment/settings.json`,
//! project `.augment/settings.json`; strict JSON under `mcpServers`: stdio `{command, args,
//! env}`, remote `{"type": "http" | "sse", url, headers}`. Augment documents no environment
//! references in this file, so a `${VAR}` is refused rather than written as a literal.
//! Source: docs.augmentcode.com/cli/integrations (MCP).

use super::{BASE, Base, McpServers, Places, Scope, Syntax, Ty, Types};

/// Augment.
pub static AUGMENT: McpServers = McpServers {
    id: "augment",
    description: "Augment Code (Auggie CLI) `settings.json`",
    scopes: &[
        Scope::new("user", Base::Home, ".augment/settings.json"),
        Scope::new("project", Base::Root, ".augment/settings.json"),
    ],
    syntax: Syntax::Json,
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Name("http"),
        sse: Ty::Name("sse"),
    },
    var_places: Places::Nowhere,
    known_fields: &["type", "command", "args", "env", "url", "headers"],
    ..BASE
};
