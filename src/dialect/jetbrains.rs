//! `jetbrains`: JetBrains AI Assistant. Project `.ai/mcp/mcp.json` (the project-level file the
//! IDE reads beside its settings UI); strict JSON under `mcpServers`, stdio `{command, args,
//! env}` and remote `{url, headers}` (streamable HTTP). SSE is refused (a bare `url` is not read
//! as SSE) and so is a `${VAR}` (no environment references are documented).

use super::{BASE, Base, McpServers, Places, Scope, Syntax, Ty, Types};

/// JetBrains AI Assistant.
pub static JETBRAINS: McpServers = McpServers {
    id: "jetbrains",
    description: "JetBrains AI Assistant project `mcp.json`",
    scopes: &[Scope::new("project", Base::Root, ".ai/mcp/mcp.json")],
    syntax: Syntax::Json,
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Omit,
        sse: Ty::Unsupported,
    },
    var_places: Places::Nowhere,
    known_fields: &["command", "args", "env", "url", "headers", "disabled"],
    source: "https://www.jetbrains.com/help/ai-assistant/mcp.html",
    checked: "docs (2026-09; 2026-12-05: the stored copies of the page say stdio only, see the audit)",
    ..BASE
};
