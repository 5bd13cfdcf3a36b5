//! `vscode`: VS Code / GitHub Copilot `mcp.json`: workspace `.vscode/mcp.json`, user profile
//! `~/.config/Code/User/mcp.json` (macOS `~/Library/Application Support/Code/User/mcp.json`,
//! Windows `%APPDATA%\Code\User\mcp.json`). JSONC, servers under `servers` with a `type` field,
//! references spelled `${env:VAR}`. A stdio server's `cwd` is written as `cwd`
//! (`mcpConfiguration.ts`). VS Code resolves every `${…}` (`${env:…}`, `${workspaceFolder}`,
//! `${input:…}`) and has no escape, so a literal `${` is refused.

use super::{BASE, Base, McpServers, Scope, Syntax, Ty, Types};

/// VS Code.
pub static VSCODE: McpServers = SHAPE;

/// VS Code's description, which VS Code Insiders shares but for its user profile.
pub(super) const SHAPE: McpServers = McpServers {
    id: "vscode",
    description: "VS Code / GitHub Copilot `mcp.json`",
    scopes: &[
        Scope::new("project", Base::Root, ".vscode/mcp.json"),
        Scope {
            name: "user",
            base: Base::Home,
            path: ".config/Code/User/mcp.json",
            macos: "Library/Application Support/Code/User/mcp.json",
        },
    ],
    syntax: Syntax::Jsonc,
    container_key: "servers",
    types: Types {
        stdio: Ty::Name("stdio"),
        http: Ty::Name("http"),
        sse: Ty::Name("sse"),
    },
    var_syntax: "${env:VAR}",
    // https://code.visualstudio.com/docs/reference/variables-reference (MCP configuration
    // resolves them: https://code.visualstudio.com/docs/copilot/reference/mcp-configuration).
    builtins: super::VSCODE_VARIABLES,
    // VS Code's MCP docs (2026-11-25): it also discovers the workspace `.mcp.json` and the
    // Copilot CLI's `~/.copilot/mcp-config.json`.
    also_reads: &[("claude-code", "project"), ("copilot-cli", "user")],
    cwd: true,
    // https://code.visualstudio.com/docs/copilot/reference/mcp-configuration: a stdio server's
    // `envFile`, and the file's top-level `inputs` (`promptString`, `${input:ID}`).
    env_file: true,
    inputs: Some("inputs"),
    known_fields: &[
        "type",
        "command",
        "args",
        "cwd",
        "env",
        "envFile",
        "url",
        "headers",
        "sandboxEnabled",
        "sandbox",
        "dev",
        "gallery",
    ],
    source: "https://github.com/microsoft/vscode-docs docs/copilot/reference/mcp-configuration.md; microsoft/vscode src/vs/workbench/contrib/mcp/common/mcpRegistry.ts (`_replaceVariablesInLaunch`)",
    checked: "VS Code 1.137",
    ..BASE
};
