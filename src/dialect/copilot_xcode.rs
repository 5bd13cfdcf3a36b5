//! `copilot-xcode`: GitHub Copilot for Xcode. One user file,
//! `~/.config/github-copilot/xcode/mcp.json` (github/CopilotForXcode
//! `Core/Sources/HostApp/ToolsSettings/MCPConfigConstants.swift`: under the home directory on
//! every release, not `$XDG_CONFIG_HOME`). VS Code's notation, strict JSON: servers under
//! `servers`, `type` `stdio` `{command, args, env}` or `http` `{url}`; a remote server's headers
//! go under `requestInit.headers`, as the app's own registry installer writes them
//! (`MCPRegistryInstallation.swift`). No SSE entry and no environment reference are documented
//! (the app flags `{NAME}` / `${NAME}` placeholders as values still to fill in), so SSE and any
//! `${VAR}` are refused.

use serde_json::{Map, Value};

use super::reshaped::{Reshaped, no_precheck};
use super::{BASE, Base, McpServers, Places, Scope, Syntax, Ty, Types};
use crate::server::Server;

/// GitHub Copilot for Xcode.
pub static COPILOT_XCODE: Reshaped = Reshaped {
    inner: McpServers {
        id: "copilot-xcode",
        description: "GitHub Copilot for Xcode `mcp.json`",
        scopes: &[Scope::new(
            "user",
            Base::Home,
            ".config/github-copilot/xcode/mcp.json",
        )],
        syntax: Syntax::Json,
        container_key: "servers",
        types: Types {
            stdio: Ty::Name("stdio"),
            http: Ty::Name("http"),
            sse: Ty::Unsupported,
        },
        var_places: Places::Nowhere,
        known_fields: &["type", "command", "args", "env", "url", "requestInit"],
        source: "https://github.com/github/CopilotForXcode/blob/main/Core/Sources/HostApp/ToolsSettings/MCPConfigConstants.swift; MCPRegistry/MCPRegistryInstallation.swift (`requestInit.headers`); https://github.com/github/github-mcp-server/blob/main/docs/installation-guides/install-other-copilot-ides.md (Xcode: `requestInit.headers`)",
        checked: "CopilotForXcode 0.47.0 (2026-02-05)",
        ..BASE
    },
    home_only: true,
    precheck: no_precheck,
    reshape: headers_in_request_init,
    unshape: headers_from_request_init,
};

/// The inverse of [`headers_in_request_init`]: `requestInit.headers` read as `headers` (other
/// `requestInit` keys stay there, for the warning about fields import drops).
fn headers_from_request_init(_: &str, m: Map<String, Value>) -> Map<String, Value> {
    m.into_iter()
        .flat_map(|(k, v)| match (k.as_str(), v) {
            ("requestInit", Value::Object(init)) if !init.contains_key("headers") => {
                vec![(k, Value::Object(init))]
            }
            ("requestInit", Value::Object(mut init)) => {
                let headers = init.remove("headers").unwrap_or_default();
                let mut out = vec![("headers".to_string(), headers)];
                if !init.is_empty() {
                    out.push((k, Value::Object(init)));
                }
                out
            }
            (_, v) => vec![(k, v)],
        })
        .collect()
}

/// `headers` moved under `requestInit`, where the entry had it.
fn headers_in_request_init(_: &Server, m: Map<String, Value>) -> Map<String, Value> {
    m.into_iter()
        .map(|(k, v)| {
            if k == "headers" {
                let mut init = Map::new();
                init.insert("headers".into(), v);
                ("requestInit".to_string(), Value::Object(init))
            } else {
                (k, v)
            }
        })
        .collect()
}
