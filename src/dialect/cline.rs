//! `cline`: `~/.cline/data/settings/cline_mcp_settings.json` (user scope only; older VS Code
//! global-storage paths are migrated by Cline). Strict JSON; `type` is `stdio`,
//! `streamableHttp` or `sse` (a `url` without `type` would default to SSE); references spelled
//! `${env:VAR}`. Cline writes this file under a `<file>.lock` directory lock, which mcpconf
//! takes too.

use super::{BASE, Base, ClientManaged, DISABLED_TRUE, McpServers, Scope, Syntax, Ty, Types};

/// Cline.
pub static CLINE: McpServers = McpServers {
    id: "cline",
    description: "Cline (VS Code extension and CLI)",
    scopes: &[Scope::new(
        "user",
        Base::Home,
        ".cline/data/settings/cline_mcp_settings.json",
    )],
    syntax: Syntax::Json,
    types: Types {
        stdio: Ty::Name("stdio"),
        http: Ty::Name("streamableHttp"),
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
        "autoApprove",
        "disabled",
        "timeout",
        "transportType",
        "transport",
    ],
    lock_scopes: &["user"],
    client_managed: ClientManaged {
        keys: &["autoApprove", "disabled", "timeout", "oauth"],
        source: "https://github.com/cline/cline/blob/main/apps/vscode/src/services/mcp/McpHub.ts",
        checked: "Cline 4.1.13 (cline/cline 21cb8d2): toggleToolAutoApprove, toggleServerDisabledRPC, updateServerTimeoutRPC; McpOAuthManager.ts writes `oauth`",
    },
    off: Some(DISABLED_TRUE),
    // A `url` without `type` is SSE: the schema's union tries `sse` (its `type` optional)
    // before `streamableHttp` (schemas.ts; cline/cline#6767).
    defaults: &[("type", "\"sse\"")],
    source: "https://github.com/cline/cline/blob/main/src/services/mcp/schemas.ts, src/utils/envExpansion.ts",
    checked: "cline/cline 1a19637 (schemas.ts), 3e4d79f (envExpansion.ts), re-read 2026-12-05",
    ..BASE
};
