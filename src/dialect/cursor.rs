//! `cursor`: `.cursor/mcp.json` (project) and `~/.cursor/mcp.json` (user, also
//! `%USERPROFILE%\.cursor\mcp.json` on Windows); strict JSON (a trailing comma breaks Cursor);
//! references spelled `${env:VAR}` in command, args, env, url and headers.

use super::{BASE, Base, ClientManaged, McpServers, Scope, Syntax};

/// Cursor.
pub static CURSOR: McpServers = McpServers {
    id: "cursor",
    description: "Cursor (editor and CLI)",
    scopes: &[
        Scope::new("project", Base::Root, ".cursor/mcp.json"),
        Scope::new("user", Base::Home, ".cursor/mcp.json"),
    ],
    syntax: Syntax::Json,
    var_syntax: "${env:VAR}",
    // Cursor's docs: a stdio server's `envFile` (no `inputs`: Cursor prompts for nothing).
    env_file: true,
    known_fields: &[
        "command", "args", "env", "envFile", "url", "headers", "type", "auth",
    ],
    client_managed: ClientManaged {
        keys: &[],
        source: "https://docs.cursor.com/context/model-context-protocol",
        checked: "Cursor docs, checked 2026-12: servers are switched on and off in Cursor settings, which keeps that state outside `mcp.json`",
    },
    // Cursor's docs ("Config interpolation"): `${userHome}`, `${workspaceFolder}`,
    // `${workspaceFolderBasename}`, `${pathSeparator}` / `${/}` besides `${env:NAME}`.
    builtins: super::VSCODE_VARIABLES.split_at(5).0,
    source: "https://cursor.com/docs/context/mcp",
    checked: "docs (2026-09; not re-read 2026-12-05: the page is not in the stored corpus)",
    ..BASE
};
