//! `visual-studio`: Visual Studio 2022 (17.14 and later) and 2026, GitHub Copilot agent mode.
//! Files (learn.microsoft.com/visualstudio/ide/mcp-servers): the user file
//! `%USERPROFILE%\.mcp.json`, the solution files `<SOLUTIONDIR>\.mcp.json` and
//! `<SOLUTIONDIR>\.vs\mcp.json` (mcpconf's `--root` is the solution directory). VS Code's
//! notation: strict JSON here, servers under `servers`, `type` `stdio`, `http` or `sse`.
//! Visual Studio resolves `${input:…}` placeholders and documents no environment reference in
//! these files, so a `${VAR}` is refused, and so is any literal `${` (it would be read as a
//! placeholder). No working-directory field is documented.

use super::{BASE, Base, Hazard, McpServers, Places, Scope, Syntax, Ty, Types};

/// Visual Studio.
pub static VISUAL_STUDIO: McpServers = McpServers {
    id: "visual-studio",
    description: "Visual Studio (GitHub Copilot) `.mcp.json`",
    scopes: &[
        Scope::new("project", Base::Root, ".mcp.json"),
        Scope::new("solution", Base::Root, ".vs/mcp.json"),
        Scope::new("user", Base::Home, ".mcp.json"),
    ],
    syntax: Syntax::Json,
    container_key: "servers",
    types: Types {
        stdio: Ty::Name("stdio"),
        http: Ty::Name("http"),
        sse: Ty::Name("sse"),
    },
    var_places: Places::Nowhere,
    hazard: Hazard::DollarBrace,
    hazard_everywhere: true,
    known_fields: &["type", "command", "args", "env", "url", "headers"],
    source: "https://learn.microsoft.com/visualstudio/ide/mcp-servers",
    checked: "docs (MicrosoftDocs/visualstudio-docs docs/ide/mcp-servers.md, revised 2026-04-29: VS 2026 and VS 2022 17.14)",
    ..BASE
};
