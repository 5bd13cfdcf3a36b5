//! `roo`: Roo Code (VS Code extension). Project `.roo/mcp.json`; global `mcp_settings.json` in
//! the extension's VS Code global storage (`<Code user dir>/globalStorage/
//! rooveterinaryinc.roo-cline/settings/`). Strict JSON, servers under `mcpServers`. A stdio
//! server carries no `type`; a remote one is `"type": "streamable-http"` or `"sse"` (Roo
//! rejects a `url` without `type`: `McpHub.ts` `validateServerConfig`). References spelled
//! `${env:VAR}` in every string (`injectVariables` in `src/utils/config.ts`, over the whole
//! entry); Roo also fills in `${workspaceFolder}` itself, so that text is written as is. `cwd`
//! is read.

use super::{BASE, Base, ClientManaged, DISABLED_TRUE, McpServers, Scope, Syntax, Ty, Types};

/// Roo Code.
pub static ROO: McpServers = McpServers {
    id: "roo",
    description: "Roo Code (VS Code extension) `mcp.json`",
    scopes: &[
        Scope::new("project", Base::Root, ".roo/mcp.json"),
        Scope {
            name: "user",
            base: Base::Home,
            path: ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
            macos: "Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json",
        },
    ],
    syntax: Syntax::Json,
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Name("streamable-http"),
        sse: Ty::Name("sse"),
    },
    var_syntax: "${env:VAR}",
    cwd: true,
    known_fields: &[
        "type",
        "command",
        "args",
        "cwd",
        "env",
        "url",
        "headers",
        "alwaysAllow",
        "disabled",
        "disabledTools",
        "timeout",
        "watchPaths",
    ],
    client_managed: ClientManaged {
        keys: &["alwaysAllow", "disabledTools", "disabled", "timeout"],
        source: "https://github.com/RooCodeInc/Roo-Code/blob/main/src/services/mcp/McpHub.ts",
        checked: "Roo Code 3.52.1 (RooCodeInc/Roo-Code cb83656): toggleToolAlwaysAllow, toggleToolEnabledForPrompt, toggleServerDisabled, updateServerTimeout",
    },
    off: Some(DISABLED_TRUE),
    untyped_url_unread: Some(
        "https://github.com/RooCodeInc/Roo-Code/blob/main/src/services/mcp/McpHub.ts (`validateServerConfig`: \"Configuration with 'url' must explicitly specify 'type'\")",
    ),
    builtins: &["workspaceFolder"],
    source: "https://github.com/RooCodeInc/Roo-Code/blob/main/src/services/mcp/McpHub.ts (`ServerConfigSchema`, `validateServerConfig`, `connectToServer`); src/utils/config.ts (`injectVariables`); https://docs.roocode.com/features/mcp/using-mcp-in-roo",
    checked: "Roo Code 3.52.1 (RooCodeInc/Roo-Code cb83656)",
    ..BASE
};
