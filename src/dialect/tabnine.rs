//! `tabnine`: the Tabnine CLI and Tabnine Agent (IDE). Two formats, both `mcpServers` with
//! stdio `{command, args, env}` entries:
//!
//! - `settings.json` (docs.tabnine.com "MCP Server Config", for the CLI and the IDE agent):
//!   user `~/.tabnine/agent/settings.json`, workspace `<project>/.tabnine/agent/settings.json`
//!   (read only in a trusted workspace); also `cwd`; JSON with comments, as Gemini CLI (which
//!   the Tabnine CLI derives from) reads it. Scopes `project` and `user`.
//! - the IDE agent's older `mcp_servers.json` (docs.tabnine.com "MCP: Intro and
//!   Configuration"): `<project>/.tabnine/mcp_servers.json` and `~/.tabnine/mcp_servers.json`,
//!   `{command, args, env}`, `url` (streamable HTTP) or `transport: "sse"`, no `cwd`. It is not
//!   a scope here: the same rules would write a `cwd` that file does not read.
//!
//! Only the stdio shape of `settings.json` is documented with its keys, so remote servers are
//! refused rather than guessed. No environment reference is documented for Tabnine; Gemini CLI's
//! settings loader expands `$NAME`, `${NAME}` and `$(…)`-like text, so a `${VAR}` is refused
//! and so is any literal the Gemini loader would take for a reference.

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
    source: "https://docs.tabnine.com/main/getting-started/tabnine-agent/mcp-intro-and-setup/mcp-server-config; https://docs.tabnine.com/main/getting-started/tabnine-agent/mcp-intro-and-setup (`mcp_servers.json`)",
    checked: "docs 2026-12-05 (source not public): no environment reference documented",
    ..BASE
};
