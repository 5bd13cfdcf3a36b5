//! `tabnine`: the Tabnine CLI and Tabnine Agent (IDE), which share `settings.json` files
//! (docs.tabnine.com "MCP Server Config"): user `~/.tabnine/agent/settings.json`, workspace
//! `<project>/.tabnine/agent/settings.json` (read only in a trusted workspace). Servers under
//! `mcpServers`, stdio `{command, args, env, cwd}`; JSON with comments, as Gemini CLI (which
//! the Tabnine CLI derives from) reads it.
//!
//! Only the stdio shape is documented with its keys, so remote servers are refused rather than
//! guessed. No environment reference is documented for Tabnine; Gemini CLI's settings loader
//! expands `$NAME`, `${NAME}` and `$(…)`-like text, so a `${VAR}` is refused and so is any
//! literal the Gemini loader would take for a reference.

use super::{BASE, Base, Hazard, McpServers, Places, Scope, Syntax, Ty, Types};

/// Tabnine.
pub static TABNINE: McpServers = McpServers {
    id: "tabnine",
    description: "Tabnine CLI / Agent `settings.json` (local servers)",
    scopes: &[
        Scope::new("project", Base::Root, ".tabnine/agent/settings.json"),
        Scope::new("user", Base::Home, ".tabnine/agent/settings.json"),
    ],
    syntax: Syntax::JsonComments,
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Unsupported,
        sse: Ty::Unsupported,
    },
    var_places: Places::Nowhere,
    hazard: Hazard::Dollar,
    hazard_everywhere: true,
    cwd: true,
    known_fields: &["command", "args", "env", "cwd", "timeout", "trust"],
    source: "https://docs.tabnine.com/main/getting-started/tabnine-agent/mcp-intro-and-setup/mcp-server-config",
    checked: "docs (checked 2026-12): no environment reference documented",
    ..BASE
};
