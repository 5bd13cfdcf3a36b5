//! `kimi`: Kimi Code CLI (MoonshotAI/kimi-cli). User `~/.kimi/mcp.json` (the file `kimi mcp
//! add` writes). Strict JSON under `mcpServers` in the FastMCP configuration shape: stdio
//! `{command, args, env}`, remote `{url, headers}` (streamable HTTP; a URL is not marked as SSE,
//! so SSE is refused). Kimi expands no environment references, so a `${VAR}` is refused rather
//! than written as a literal.

use super::{BASE, Base, McpServers, Places, Scope, Syntax, Ty, Types};

/// Kimi Code CLI.
pub static KIMI: McpServers = McpServers {
    id: "kimi",
    description: "Kimi Code CLI `mcp.json`",
    scopes: &[Scope::new("user", Base::Home, ".kimi/mcp.json")],
    syntax: Syntax::Json,
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Omit,
        sse: Ty::Unsupported,
    },
    var_places: Places::Nowhere,
    known_fields: &[
        "command",
        "args",
        "env",
        "cwd",
        "url",
        "headers",
        "transport",
        "auth",
        "timeout",
    ],
    ..BASE
};
