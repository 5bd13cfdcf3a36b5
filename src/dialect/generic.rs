//! `json`: a generic `mcpServers` file at an explicit path. Entries are written exactly as
//! declared (no `type` field, references as `${VAR}`); the file may use comments and trailing
//! commas.

use super::{BASE, Base, McpServers, Scope, Syntax};

/// The generic client.
pub static JSON: McpServers = McpServers {
    id: "json",
    description: "generic `mcpServers` JSON file at an explicit `path`",
    scopes: &[
        Scope::new("project", Base::Root, ""),
        Scope::new("user", Base::Home, ""),
    ],
    syntax: Syntax::Jsonc,
    cwd: true,
    known_fields: &["command", "args", "env", "cwd", "url", "headers", "type"],
    ..BASE
};
