//! `claude-desktop`: `claude_desktop_config.json` (user scope only): macOS
//! `~/Library/Application Support/Claude/`, Linux community builds `~/.config/Claude/`, Windows
//! `%APPDATA%\Claude\`. Strict JSON, local servers only (remote servers are "Connectors" added in
//! the app), and no environment references: a `${VAR}` is refused rather than written as a
//! literal. The app rewrites this file itself; write while it is quit.

use super::{BASE, Base, ClientManaged, McpServers, Places, Scope, Syntax, Ty, Types};

/// Claude Desktop.
pub static CLAUDE_DESKTOP: McpServers = McpServers {
    id: "claude-desktop",
    description: "Claude Desktop app (local servers only)",
    scopes: &[Scope {
        name: "user",
        base: Base::Home,
        path: ".config/Claude/claude_desktop_config.json",
        macos: "Library/Application Support/Claude/claude_desktop_config.json",
    }],
    syntax: Syntax::Json,
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Unsupported,
        sse: Ty::Unsupported,
    },
    var_places: Places::Nowhere,
    known_fields: &["command", "args", "env"],
    client_managed: ClientManaged {
        keys: &[],
        source: "https://modelcontextprotocol.io/docs/develop/connect-local-servers",
        checked: "Claude Desktop docs, checked 2026-12: the app reads `mcpServers` and writes nothing into an entry",
    },
    source: "https://modelcontextprotocol.io/docs/develop/connect-local-servers; anthropics/claude-code#34359",
    checked: "docs (2026-12-05)",
    ..BASE
};
