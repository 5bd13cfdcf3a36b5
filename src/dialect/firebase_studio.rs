//! `firebase-studio`: Firebase Studio's interactive chat (Gemini in Firebase Studio). One
//! workspace file, `.idx/mcp.json` (firebase.google.com/docs/studio/mcp-servers), strict JSON
//! under `mcpServers`, stdio entries `{command, args, env}`. Its documentation says SSE and
//! streamable-HTTP servers work too (with headers) but shows no remote entry (the keys a URL
//! server takes are not given), so remote servers are refused rather than guessed; it passes environment variables through the workspace `.env` file and
//! documents no references in this file, so a `${VAR}` is refused.

use super::{BASE, Base, McpServers, Places, Scope, Syntax, Ty, Types};

/// Firebase Studio.
pub static FIREBASE_STUDIO: McpServers = McpServers {
    id: "firebase-studio",
    description: "Firebase Studio `.idx/mcp.json` (local servers)",
    scopes: &[Scope::new("project", Base::Root, ".idx/mcp.json")],
    syntax: Syntax::Json,
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Unsupported,
        sse: Ty::Unsupported,
    },
    var_places: Places::Nowhere,
    known_fields: &["command", "args", "env"],
    source: "https://firebase.google.com/docs/studio/mcp-servers",
    checked: "docs (2026-12-05)",
    ..BASE
};
