//! `qwen`: Qwen Code (a Gemini CLI fork). Project `.qwen/settings.json` (the default, as for
//! `qwen mcp add`) and user `~/.qwen/settings.json`; comments allowed, trailing commas not.
//! Servers under `mcpServers`: stdio `{command, args, env, cwd}`; streamable HTTP under
//! `httpUrl` (Qwen Code 0.24 lists a `url` entry as SSE), SSE under `url`. References spelled
//! `${VAR}` in every string; Qwen also expands `$VAR` and has no escape, so a literal that
//! looks like either is refused (`resolveEnvVarsInString`, `\$(?:(\w+)|{([^}]+)})`, Qwen Code
//! 0.24.4: no default, so its grammar is `dollar`). A tool pin is written as `includeTools`.

use super::{BASE, Base, Hazard, McpServers, Scope, Syntax, Ty, Types};

/// Qwen Code.
pub static QWEN: McpServers = McpServers {
    id: "qwen",
    description: "Qwen Code `settings.json`",
    scopes: &[
        Scope::new("project", Base::Root, ".qwen/settings.json"),
        Scope::new("user", Base::Home, ".qwen/settings.json"),
    ],
    syntax: Syntax::JsonComments,
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Omit,
        sse: Ty::Omit,
    },
    http_url_key: "httpUrl",
    sse_url_key: "url",
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
    // `trust` (Gemini CLI's `MCPServerConfig`, kept by the fork): no confirmation per call.
    trust: Some(("trust", "true")),
    // Qwen Code reads the project `.mcp.json` too (Claude Code's file, issue 40).
    also_reads: &[("claude-code", "project")],
    // Gemini CLI's `mcp.excluded`, kept by the fork, its scopes merged by concatenation
    // (settings schema `mergeStrategy: concat`).
    disable: Some(super::ProjectDisable {
        form: super::DisableForm::ProjectList(&["mcp", "excluded"]),
        source: "https://github.com/QwenLM/qwen-code/blob/main/packages/cli/src/config/settingsSchema.ts (`mcp.excluded`, merged by concatenation)",
        checked: "Qwen Code 0.24.4 bundle (settings schema `mcp.excluded`, `mergeStrategy: concat`; discovery skips an excluded server); its `qwen mcp list` does not show exclusions, so not seen with the real client",
        trust: None,
    }),
    source: "https://github.com/QwenLM/qwen-code docs/cli/configuration.md (MCP servers)",
    checked: "Qwen Code 0.24.4",
    grammar: crate::template::Grammar::Dollar,
    ..BASE
};
