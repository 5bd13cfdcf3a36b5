//! `gemini`: Gemini CLI `settings.json`, project `.gemini/settings.json` (the default, as for
//! `gemini mcp add`) and user `~/.gemini/settings.json`. Comments are allowed, trailing commas
//! are not (it strips comments, then `JSON.parse`s). A remote server is `url` with `type`
//! (`"http"` or `"sse"`), the form `gemini mcp add --transport http|sse` writes: `httpUrl` is
//! deprecated, and a `url` without `type` is tried as streamable HTTP first, so an SSE server
//! must say `"type": "sse"`. References spelled `${VAR}`; a tool pin is written as
//! `includeTools`. Gemini expands `$VAR`, `${VAR}` and `${VAR:-default}` in every string of
//! its settings and has no escape, so a literal that looks like one is refused
//! (`resolveEnvVarsInString`, `\$(?:(\w+)|{([^}]+?)(?::-([^}]*))?})`, Gemini CLI 0.61.0): its
//! grammar is `dollar-default`.

use super::{BASE, Base, ClientManaged, Hazard, McpServers, Scope, Syntax, Ty, Types};

/// Gemini CLI.
pub static GEMINI: McpServers = McpServers {
    id: "gemini",
    description: "Gemini CLI `settings.json`",
    scopes: &[
        Scope::new("project", Base::Root, ".gemini/settings.json"),
        Scope::new("user", Base::Home, ".gemini/settings.json"),
    ],
    syntax: Syntax::JsonComments,
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Name("http"),
        sse: Ty::Name("sse"),
    },
    hazard: Hazard::Dollar,
    cwd: true,
    pin_field: Some("includeTools"),
    known_fields: &[
        "command",
        "args",
        "env",
        "cwd",
        "url",
        "httpUrl",
        "headers",
        "tcp",
        "type",
        "timeout",
        "trust",
        "description",
        "includeTools",
        "excludeTools",
        "oauth",
        "authProviderType",
        "targetAudience",
        "targetServiceAccount",
    ],
    extra_forms: &[super::RefForm::Bare],
    // `MCPServerConfig.trust`: "bypasses all tool call confirmations" (config.ts).
    trust: Some(("trust", "true")),
    // `httpUrl` is streamable HTTP, as `type: "http"` with `url` is (config.ts
    // `MCPServerConfig`; mcp-client.ts `createTransport`).
    respell: &[("httpUrl", "url", "type=\"http\"")],
    // A `url` without `type` is SSE (docs/tools/mcp-server.md: `url`, "the URL for an SSE
    // endpoint"; `httpUrl` or `type: "http"` for streamable HTTP).
    defaults: &[("type", "\"sse\"")],
    // `gemini mcp add --trust` writes `trust` (a user sets it by hand for headless runs), and
    // `--timeout`, `--description` and `--exclude-tools` write `timeout` (milliseconds per
    // request), `description` and `excludeTools` (tools switched off; mcpconf's pin is the
    // allow-list `includeTools`): the client's settings of the entry, not how the server is
    // started (issue 45, class 4). Its enable/disable go to
    // `~/.gemini/mcp-server-enablement.json`, outside the entry.
    client_managed: ClientManaged {
        keys: &["trust", "timeout", "description", "excludeTools"],
        source: "https://github.com/google-gemini/gemini-cli/blob/main/packages/cli/src/commands/mcp/add.ts",
        checked: "gemini-cli 5411f11 (add.ts e9a9474: `--trust`, `--timeout`, `--description`, `--include-tools`, `--exclude-tools`; enableDisable.ts writes mcp-server-enablement.json)",
    },
    // `mcp.excluded` of every scope is concatenated (`getConsolidatedExcludedMcpServers`);
    // the older `excludeMCPServers` is not read by `mcp list`, and a `disabled` key in an entry
    // makes Gemini reject the file.
    disable: Some(super::ProjectDisable {
        form: super::DisableForm::ProjectList(&["mcp", "excluded"]),
        source: "https://github.com/google-gemini/gemini-cli/blob/main/packages/cli/src/config/settings.ts (`getConsolidatedExcludedMcpServers`)",
        checked: "Gemini CLI 0.61.0: `gemini mcp list` in the project shows the user's server blocked, outside it connected (tests/it/real_clients/disable.rs)",
        trust: None,
    }),
    source: "https://github.com/google-gemini/gemini-cli packages/core/src/config/config.ts (`MCPServerConfig`), packages/core/src/tools/mcp-client.ts",
    checked: "Gemini CLI 0.61.0",
    grammar: crate::template::Grammar::DollarDefault,
    ..BASE
};

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::GEMINI;
    use crate::dialect::Dialect;
    use crate::manifest;

    fn render(server: &str) -> serde_json::Value {
        let m = manifest::parse(
            &format!("owner = \"o\"\n[servers.s]\n{server}\n[[targets]]\nclient = \"gemini\"\n"),
            &crate::known::Known,
        )
        .unwrap();
        GEMINI.render(&m.servers[0]).unwrap().value
    }

    #[test]
    fn remote_servers_are_url_with_type_as_gemini_mcp_add_writes_them() {
        assert_eq!(
            render(
                "url = \"https://x/mcp\"\nheaders = { Authorization = \"Bearer ${T}\" }\ntools = [\"a\"]"
            ),
            json!({"type": "http", "url": "https://x/mcp",
                   "headers": {"Authorization": "Bearer ${T}"}, "includeTools": ["a"]})
        );
        assert_eq!(
            render("url = \"https://x/sse\"\ntransport = \"sse\""),
            json!({"type": "sse", "url": "https://x/sse"})
        );
    }

    #[test]
    fn stdio_servers_carry_no_type() {
        assert_eq!(
            render("command = \"c\"\nargs = [\"a\"]\nenv = { K = \"${K}\" }\ncwd = \"/w\""),
            json!({"command": "c", "args": ["a"], "env": {"K": "${K}"}, "cwd": "/w"})
        );
    }
}
