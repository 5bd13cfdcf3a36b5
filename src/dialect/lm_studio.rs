//! `lm-studio`: LM Studio (0.3.17 and later). One user file, `~/.lmstudio/mcp.json`, in
//! Cursor's `mcp.json` notation (lmstudio.ai/docs/app/mcp): strict JSON under `mcpServers`,
//! stdio `{command, args, env}`, remote `{url, headers}`. LM Studio documents no environment
//! references, so a `${VAR}` is refused rather than written as a literal; SSE is refused (a bare
//! `url` is not read as SSE).

use super::{BASE, Base, McpServers, Places, Scope, Syntax, Ty, Types};

/// LM Studio.
pub static LM_STUDIO: McpServers = McpServers {
    id: "lm-studio",
    description: "LM Studio `mcp.json`",
    scopes: &[Scope::new("user", Base::Home, ".lmstudio/mcp.json")],
    syntax: Syntax::Json,
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Omit,
        sse: Ty::Unsupported,
    },
    var_places: Places::Nowhere,
    known_fields: &["command", "args", "env", "url", "headers"],
    source: "https://lmstudio.ai/docs/app/mcp (https://github.com/lmstudio-ai/docs 0_app/2_plugins/mcp/index.md)",
    checked: "docs 9e42fd5 (2026-12-05)",
    ..BASE
};
