//! Clients' admin files: the system-wide files in which an administrator tells a client which
//! MCP servers may run (`mcpconf policy`, `crate::policy`). They are written with every
//! guarantee a client's own file gets (the same plan, ledger, lock and writer), so each is a
//! [`Dialect`] too, but not a client: they are not in [`super::ALL`], a manifest's
//! `[[targets]]` cannot name them, and `mcpconf clients` does not list them.
//!
//! Each keeps the keys mcpconf writes under one container: the top level of Claude Code's
//! managed settings, `mcp` of Gemini CLI's system settings, `mcp_servers` of Codex's
//! requirements. The path is relative to the system root (`/`, or `--system-root`).

use super::{Base, Ctx, Dialect, PinSupport, RenderError, Rendered, Scope, Syntax};
use crate::server::Server;

/// One client's admin file, as data.
#[derive(Debug)]
pub struct Admin {
    /// The admin file's own id (`claude-code-managed`), recorded in the ledger.
    pub id: &'static str,
    /// The client it governs (`claude-code`).
    pub client: &'static str,
    /// One line.
    pub description: &'static str,
    /// The one scope, `system`, whose path is relative to the system root.
    pub scopes: &'static [Scope],
    /// JSON or TOML.
    pub syntax: Syntax,
    /// The object path that holds what mcpconf writes.
    pub container: &'static [&'static str],
    /// The bytes of a file mcpconf creates.
    pub new_file: &'static str,
    /// Where the client reads it: a URL into its code or documentation.
    pub source: &'static str,
    /// The client version checked.
    pub checked: &'static str,
}

impl Dialect for Admin {
    fn id(&self) -> &'static str {
        self.id
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn scopes(&self) -> &'static [Scope] {
        self.scopes
    }
    fn syntax(&self) -> Syntax {
        self.syntax
    }
    fn placeholder(&self) -> String {
        String::new()
    }
    fn pin_support(&self) -> PinSupport {
        PinSupport::None
    }
    fn known_fields(&self) -> &'static [&'static str] {
        &[]
    }
    fn container(&self, _scope: &str, _ctx: &Ctx) -> Vec<String> {
        self.container.iter().map(|s| s.to_string()).collect()
    }
    fn render(&self, server: &Server) -> Result<Rendered, RenderError> {
        Err(RenderError {
            field: "targets".into(),
            message: format!(
                "`{}` is an admin file, not a client: server `{}` is not written into it (use `[policy]`)",
                self.id, server.name
            ),
        })
    }
    fn new_file(&self) -> &'static str {
        self.new_file
    }
    fn new_file_mode(&self) -> Option<u32> {
        // Every user's client reads it; only root writes it.
        Some(0o644)
    }
    fn source(&self) -> &'static str {
        self.source
    }
    fn checked(&self) -> &'static str {
        self.checked
    }
}

/// Claude Code's managed settings: `allowedMcpServers` and `deniedMcpServers` at the top level.
pub static CLAUDE_CODE: Admin = Admin {
    id: "claude-code-managed",
    client: "claude-code",
    description: "Claude Code managed settings (allowedMcpServers, allowManagedMcpServersOnly, deniedMcpServers)",
    scopes: &[Scope::new(
        "system",
        Base::Root,
        "etc/claude-code/managed-settings.json",
    )],
    syntax: Syntax::Json,
    container: &[],
    new_file: "",
    source: "https://code.claude.com/docs/en/managed-mcp",
    checked: "2.1.197",
};

/// Codex's requirements: `[mcp_servers.NAME] identity = { command | url }`, an allow-list.
pub static CODEX: Admin = Admin {
    id: "codex-requirements",
    client: "codex",
    description: "Codex requirements (mcp_servers identities: an allow-list)",
    scopes: &[Scope::new(
        "system",
        Base::Root,
        "etc/codex/requirements.toml",
    )],
    syntax: Syntax::Toml,
    container: &["mcp_servers"],
    new_file: "",
    source: "https://developers.openai.com/codex/enterprise/managed-configuration#admin-enforced-requirements-requirementstoml",
    checked: "0.169.0",
};

/// Gemini CLI's system settings: `mcp.allowed` and `mcp.excluded` (server names).
pub static GEMINI: Admin = Admin {
    id: "gemini-system",
    client: "gemini",
    description: "Gemini CLI system settings (mcp.allowed, mcp.excluded)",
    scopes: &[Scope::new(
        "system",
        Base::Root,
        "etc/gemini-cli/settings.json",
    )],
    syntax: Syntax::JsonComments,
    container: &["mcp"],
    new_file: "",
    source: "https://github.com/google-gemini/gemini-cli/blob/main/docs/get-started/configuration.md",
    checked: "0.61.0",
};

/// Qwen Code's system settings: `mcp.excluded` (server-name patterns).
pub static QWEN: Admin = Admin {
    id: "qwen-system",
    client: "qwen",
    description: "Qwen Code system settings (mcp.excluded)",
    scopes: &[Scope::new(
        "system",
        Base::Root,
        "etc/qwen-code/settings.json",
    )],
    syntax: Syntax::JsonComments,
    container: &["mcp"],
    new_file: "",
    source: "https://github.com/QwenLM/qwen-code/blob/main/packages/cli/src/config/settings.ts",
    checked: "0.24.4",
};

/// VS Code's policy file on Linux: `ChatMCP` (`none` / `registry` / `all`).
pub static VSCODE: Admin = Admin {
    id: "vscode-policy",
    client: "vscode",
    description: "VS Code policy file (ChatMCP)",
    scopes: &[Scope::new("system", Base::Root, "etc/vscode/policy.json")],
    syntax: Syntax::Json,
    container: &[],
    new_file: "",
    source: "https://code.visualstudio.com/docs/enterprise/policies",
    checked: "2026-12-05 (docs: JSON policies on Linux, VS Code 1.106 and later)",
};

/// Every admin file mcpconf writes, in the order `policy report` lists them.
pub static ADMIN: &[&Admin] = &[&CLAUDE_CODE, &CODEX, &GEMINI, &QWEN, &VSCODE];

/// An admin file by its id.
pub fn lookup(id: &str) -> Option<&'static Admin> {
    ADMIN.iter().copied().find(|a| a.id == id)
}
