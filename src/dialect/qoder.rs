//! `qoder`: the Qoder CLI (`qodercli`, npm `@qoder-ai/qodercli`). Scopes as
//! docs.qoder.com/cli/mcp-servers gives them and `qodercli mcp add -s …` 1.1.52 writes them: user
//! `~/.qoder/settings.json`, project `.mcp.json` (shared with the team; Qoder asks before it
//! starts a project server). Strict JSON under `mcpServers`: stdio `{command, args, env}` without
//! a `type`, remote `{type: "http" | "sse", url, headers}`.
//!
//! No environment reference is documented for these files (the bundle is obfuscated, so its
//! reading could not be checked in code), so a `${VAR}` is refused, and so is any literal `${`
//! (the file is Claude Code's `.mcp.json`, where `${…}` is a reference). No working-directory
//! field is documented.

use super::{
    BASE, Base, ClientManaged, DISABLED_TRUE, Hazard, McpServers, Places, Scope, Syntax, Ty, Types,
};

/// Qoder CLI.
pub static QODER: McpServers = McpServers {
    id: "qoder",
    description: "Qoder CLI (`~/.qoder/settings.json`, `.mcp.json`)",
    scopes: &[
        Scope::new("user", Base::Home, ".qoder/settings.json"),
        Scope::new("project", Base::Root, ".mcp.json"),
    ],
    syntax: Syntax::Json,
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Name("http"),
        sse: Ty::Name("sse"),
    },
    var_places: Places::Nowhere,
    // qodercli 1.1.52 expands `$VAR`, `${VAR}` and `${VAR:-default}` in every string of its
    // settings files when it loads them (no escape: `$$NAME` and `\$NAME` are substituted too),
    // but not in the project `.mcp.json`: a reference cannot mean the same in both scopes, so
    // none is written, and a literal `$NAME`, `${` or `$(` is refused everywhere (it reached
    // the server as the variable's value).
    hazard: Hazard::Dollar,
    hazard_everywhere: true,
    known_fields: &[
        "type",
        "command",
        "args",
        "env",
        "url",
        "headers",
        "headersHelper",
    ],
    client_managed: ClientManaged {
        keys: &["disabled"],
        source: "https://docs.qoder.com/cli/mcp-servers",
        checked: "qodercli 1.1.52 (npm `@qoder-ai/qodercli`), run: `qodercli mcp disable NAME` adds `\"disabled\": true` to the entry, `mcp enable NAME` removes it (the docs page does not mention the toggle)",
    },
    off: Some(DISABLED_TRUE),
    source: "https://docs.qoder.com/cli/mcp-servers; npm @qoder-ai/qodercli 1.1.52 bundle/qodercli.js (settings load expands `$VAR`, `${VAR}`, `${VAR:-default}`; `.mcp.json` is parsed as is)",
    checked: "qodercli 1.1.52",
    ..BASE
};
