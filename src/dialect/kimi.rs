//! `kimi`: the archived Kimi CLI (MoonshotAI/kimi-cli, Python). User `~/.kimi/mcp.json` (the
//! file `kimi mcp add` writes). Strict JSON under `mcpServers` in fastmcp's `MCPConfig` shape:
//! stdio `{command, args, env, cwd}`, remote `{url, headers}` (streamable HTTP) or
//! `{"transport": "sse", url, headers}`. Kimi expands no environment references, so a `${VAR}`
//! is refused rather than written as a literal. The current Kimi Code CLI is `kimi-code`.

use super::{BASE, Base, McpServers, Places, Scope, Syntax, Ty, Types, UserHome};

/// Kimi CLI (archived).
pub static KIMI: McpServers = McpServers {
    id: "kimi",
    description: "Kimi CLI (archived) `~/.kimi/mcp.json`",
    scopes: &[Scope::new("user", Base::Home, ".kimi/mcp.json")],
    syntax: Syntax::Json,
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Omit,
        sse: Ty::Name("sse"),
    },
    type_key: "transport",
    var_places: Places::Nowhere,
    cwd: true,
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
        "sse_read_timeout",
    ],
    source: "https://github.com/MoonshotAI/kimi-cli (README, MCP); fastmcp `src/fastmcp/mcp_config.py` (`StdioMCPServer`, `RemoteMCPServer`)",
    checked: "kimi-cli (archived), fastmcp 2.x",
    ..BASE
};

/// Kimi Code CLI (MoonshotAI/kimi-code): user `~/.kimi-code/mcp.json` (`$KIMI_CODE_HOME/mcp.json`
/// when that is set: `packages/agent-core-v2/src/app/mcpConfig/configLoader.ts`; read as
/// [`crate::settings::ClientHomes::kimi_code_home`] says), project `.kimi-code/mcp.json`. Strict JSON under
/// `mcpServers`: stdio `{command, args, env, cwd}`, remote `{url, headers}` (HTTP) or
/// `{"transport": "sse", url, headers}`; `enabledTools` is a tool allow-list. Kimi Code expands
/// no references in this file, so a `${VAR}` is refused, except a header
/// `Authorization: Bearer ${VAR}`, written as `bearerTokenEnvVar: "VAR"` (Kimi Code then sends
/// that header itself: `client-remote.ts`). Source: `docs/en/customization/mcp.md`,
/// `packages/agent-core-v2/src/mcpCore/config-schema.ts`.
pub static KIMI_CODE: McpServers = McpServers {
    id: "kimi-code",
    description: "Kimi Code CLI `mcp.json`",
    scopes: &[
        Scope::new("user", Base::Home, ".kimi-code/mcp.json"),
        Scope::new("project", Base::Root, ".kimi-code/mcp.json"),
    ],
    syntax: Syntax::Json,
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Omit,
        sse: Ty::Name("sse"),
    },
    type_key: "transport",
    var_places: Places::Nowhere,
    cwd: true,
    user_home: Some(UserHome {
        dir: |h| h.kimi_code_home.as_ref(),
        file: "mcp.json",
    }),
    pin_field: Some("enabledTools"),
    bearer_env_field: Some("bearerTokenEnvVar"),
    known_fields: &[
        "transport",
        "command",
        "args",
        "env",
        "cwd",
        "executor",
        "runtime_id",
        "url",
        "headers",
        "auth",
        "bearerTokenEnvVar",
        "enabled",
        "startupTimeoutMs",
        "toolTimeoutMs",
        "enabledTools",
        "disabledTools",
    ],
    source: "https://github.com/MoonshotAI/kimi-code/blob/main/docs/en/customization/mcp.md; packages/agent-core-v2/src/mcpCore/config-schema.ts",
    checked: "kimi-code d723cc4 (2026-08-22)",
    ..BASE
};
