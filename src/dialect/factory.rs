//! `factory`: Factory's Droid CLI. User `~/.factory/mcp.json`, project `.factory/mcp.json`
//! (Droid also reads `.factory/mcp.json` in every ancestor folder); strict JSON under
//! `mcpServers`; `type` is `stdio`, `http` or `sse`. Droid expands `${VAR}` and
//! `${VAR:-default}` in `command`, `args`, `env` values, `url` and header values when it loads
//! the file (an unset variable without a default stays as written), with no escape, so a
//! literal `${…}` is refused. `enabledTools` is a tool allow-list (it wins over
//! `disabledTools`). Source: Factory-AI/factory `docs/cli/configuration/mcp.mdx` ("Variable
//! expansion", "Per-tool filtering", "Configuration Schema").

use super::{BASE, Base, ClientManaged, DISABLED_TRUE, McpServers, Scope, Syntax, Ty, Types};

/// Factory Droid.
pub static FACTORY: McpServers = McpServers {
    id: "factory",
    description: "Factory Droid CLI `mcp.json`",
    scopes: &[
        Scope::new("project", Base::Root, ".factory/mcp.json"),
        Scope::new("user", Base::Home, ".factory/mcp.json"),
    ],
    syntax: Syntax::Json,
    types: Types {
        stdio: Ty::Name("stdio"),
        http: Ty::Name("http"),
        sse: Ty::Name("sse"),
    },
    pin_field: Some("enabledTools"),
    known_fields: &[
        "type",
        "command",
        "args",
        "env",
        "url",
        "headers",
        "oauth",
        "disabled",
        "enabledTools",
        "disabledTools",
        "timeoutMs",
    ],
    client_managed: ClientManaged {
        keys: &["disabled"],
        source: "https://github.com/Factory-AI/factory/blob/main/docs/cli/configuration/mcp.mdx",
        checked: "docs a80aa7c: `disabled` (boolean, default false) \"temporarily disable the server\", set by `/mcp`'s Enable/disable",
    },
    off: Some(DISABLED_TRUE),
    source: "https://github.com/Factory-AI/factory/blob/main/docs/cli/configuration/mcp.mdx",
    checked: "docs a80aa7c (2026-07-24)",
    ..BASE
};
