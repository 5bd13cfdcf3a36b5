//! `amazonq`: Amazon Q Developer CLI (legacy, now Kiro CLI): workspace `.amazonq/mcp.json`,
//! user `~/.aws/amazonq/mcp.json`. Strict JSON (parsed with serde_json); `type` is `stdio` or
//! `http` (no SSE); references spelled `${env:VAR}`, expanded only in env values and headers.
//! The `command` itself is shell-expanded (`shellexpand::full` in `mcp_client/client.rs`), so a
//! literal `$NAME` or `${…}` there is refused rather than written.
//!
//! `q mcp add`, `remove` and `import` re-save the whole file through `CustomToolConfig`, whose
//! serde defaults are all written out: every entry gains `url: ""` (or `command: ""`),
//! `headers: {}`, `args: []`, `oauthScopes` (Q's four default scopes), `timeout: 120000` and
//! `disabled: false`; those are this dialect's `defaults`, so such a save keeps our entry ours.

use super::{
    BASE, Base, ClientManaged, DISABLED_TRUE, Hazard, McpServers, Places, Scope, Syntax, Ty, Types,
};

/// Amazon Q Developer CLI.
pub static AMAZONQ: McpServers = McpServers {
    id: "amazonq",
    description: "Amazon Q Developer CLI `mcp.json` (legacy)",
    scopes: &[
        Scope::new("project", Base::Root, ".amazonq/mcp.json"),
        Scope::new("user", Base::Home, ".aws/amazonq/mcp.json"),
    ],
    syntax: Syntax::Json,
    types: Types {
        stdio: Ty::Name("stdio"),
        http: Ty::Name("http"),
        sse: Ty::Unsupported,
    },
    var_syntax: "${env:VAR}",
    var_places: Places::EnvAndHeaders,
    command_hazard: Hazard::Dollar,
    known_fields: &[
        "type",
        "command",
        "args",
        "env",
        "url",
        "headers",
        "oauthScopes",
        "oauth",
        "timeout",
        "disabled",
    ],
    client_managed: ClientManaged {
        keys: &["disabled"],
        source: "https://docs.aws.amazon.com/amazonq/latest/qdeveloper-ug/mcp-ide.html",
        checked: "Amazon Q Developer IDE docs (enable/disable a server), checked 2026-12",
    },
    off: Some(DISABLED_TRUE),
    // `CustomToolConfig`'s `type` defaults to `stdio`, so a `url` entry without it is started
    // as a local command (`command` defaults to "").
    untyped_url_unread: Some(
        "https://github.com/aws/amazon-q-developer-cli/blob/main/crates/chat-cli/src/cli/chat/tools/custom_tool.rs (`CustomToolConfig`: `#[serde(default)] type`, `TransportType::default() = Stdio`)",
    ),
    // `CustomToolConfig` (chat/tools/custom_tool.rs): `#[serde(default)]` `url` and
    // `command` (""), `oauth_scopes` from `get_default_scopes` (mcp_client/oauth_util.rs),
    // `timeout` from `default_timeout` (120 * 1000); none skipped when serialized.
    defaults: &[
        ("url", "\"\""),
        ("command", "\"\""),
        (
            "oauthScopes",
            "[\"openid\",\"email\",\"profile\",\"offline_access\"]",
        ),
        ("timeout", "120000"),
    ],
    source: "https://github.com/aws/amazon-q-developer-cli/blob/main/crates/chat-cli/src/cli/chat/tools/custom_tool.rs; cli/mcp.rs (`q mcp add` re-saves through `McpServerConfig::save_to_file`), cli/agent/mcp_config.rs, mcp_client/client.rs, util/paths.rs",
    checked: "amazon-q-developer-cli 15cc8f3 (2026-04-23)",
    ..BASE
};
