//! `librechat`: LibreChat's `librechat.yaml` (librechat.ai/docs/configuration/librechat_yaml,
//! object structure "MCP Servers"). One file at the deployment's root (mcpconf's `--root`;
//! `$CONFIG_PATH` moves it, name it with `path` then). Servers are entries of the YAML mapping
//! `mcpServers`: stdio `{command, args, env}` (no `type` needed), streamable HTTP
//! `{type: streamable-http, url, headers}`, SSE `{type: sse, url, headers}`.
//!
//! LibreChat replaces `${VAR}` in `env` and `headers` values (`processMCPEnv`,
//! `extractEnvVariable` in librechat-data-provider; newer releases also in `args` and `url`),
//! so references are written `${VAR}` in env values and headers and refused elsewhere, and a
//! literal `${` is refused in every field. It also replaces `{{…}}` user placeholders in those
//! values; mcpconf writes none.

use super::{BASE, Base, Hazard, McpServers, Places, Scope, Syntax, Ty, Types};

/// LibreChat.
pub static LIBRECHAT: McpServers = McpServers {
    id: "librechat",
    description: "LibreChat `librechat.yaml` (`mcpServers`)",
    scopes: &[Scope::new("project", Base::Root, "librechat.yaml")],
    syntax: Syntax::Yaml,
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Name("streamable-http"),
        sse: Ty::Name("sse"),
    },
    var_places: Places::EnvAndHeaders,
    hazard: Hazard::DollarBrace,
    hazard_everywhere: true,
    known_fields: &[
        "type",
        "command",
        "args",
        "env",
        "stderr",
        "url",
        "headers",
        "timeout",
        "initTimeout",
        "iconPath",
        "chatMenu",
        "serverInstructions",
        "requiresOAuth",
        "oauth",
        "customUserVars",
        "startup",
        "title",
        "description",
        "apiKey",
        "proxy",
    ],
    source: "https://www.librechat.ai/docs/configuration/librechat_yaml/object_structure/mcp_servers; danny-avila/LibreChat packages/api/src/utils/env.ts (`processMCPEnv`)",
    checked: "docs 0643885, LibreChat 2fdfe69 (re-read 2026-12-05)",
    ..BASE
};
