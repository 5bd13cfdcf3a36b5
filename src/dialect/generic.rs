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
    source: "mcpconf's own generic JSON client (no client's file: its path is the target's `path`)",
    checked: "not a client: facts are mcpconf's",
    ..BASE
};
