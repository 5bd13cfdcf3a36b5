//! `json`: a generic `mcpServers` file at an explicit path. Entries are written exactly as
//! declared (no `type` field, references as `${VAR}`); the file may use comments and trailing
//! commas.

use super::{Base, McpServers, Scope, Syntax, TypeField};

/// The generic client.
pub static JSON: McpServers = McpServers {
    id: "json",
    description: "generic `mcpServers` JSON file at an explicit `path`",
    scopes: &[
        Scope {
            name: "project",
            base: Base::Root,
            path: "",
        },
        Scope {
            name: "user",
            base: Base::Home,
            path: "",
        },
    ],
    syntax: Syntax::Jsonc,
    container_key: "mcpServers",
    type_field: TypeField::OnlySse,
    var_syntax: "${VAR}",
    cwd: true,
    known_fields: &["command", "args", "env", "cwd", "url", "headers", "type"],
};
