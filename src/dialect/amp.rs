//! `amp`: Amp (Sourcegraph). User `~/.config/amp/settings.json`, workspace
//! `.amp/settings.json`; JSON with comments; servers under the literal key `"amp.mcpServers"`
//! (one key with a dot in it, not a nested object). Stdio `{command, args, env}`, remote
//! `{url, headers}` (streamable HTTP with SSE fallback, no `type`). Amp documents no environment
//! references in this file, so a `${VAR}` is refused rather than written as a literal.
//! Source: ampcode.com/manual (MCP section).

use super::{BASE, Base, McpServers, Places, Scope, Syntax, Ty, Types};

/// Amp.
pub static AMP: McpServers = McpServers {
    id: "amp",
    description: "Amp `settings.json` (`amp.mcpServers`)",
    scopes: &[
        Scope::new("user", Base::Home, ".config/amp/settings.json"),
        Scope::new("project", Base::Root, ".amp/settings.json"),
    ],
    syntax: Syntax::Jsonc,
    container_key: "amp.mcpServers",
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Omit,
        sse: Ty::Omit,
    },
    var_places: Places::Nowhere,
    known_fields: &["command", "args", "env", "url", "headers", "includeTools"],
    source: "https://ampcode.com/manual (MCP servers, `amp.mcpServers`)",
    checked: "manual (2026-09; not re-read 2026-12-05: the manual's MCP section is not in the stored corpus)",
    ..BASE
};
