//! `claude-code`: scope `project` is `.mcp.json` at the repository root; `user` is the
//! top-level `mcpServers` of `~/.claude.json`; `local` is `projects["<project>"].mcpServers` in
//! the same file, the project being the main worktree's root of the git repository `--root`
//! lies in (Claude Code keys it so from any subdirectory or linked worktree), else `--root`. Strict JSON; entries carry `type` (`stdio`, `http`, `sse`);
//! references spelled `${VAR}` in command, args, env, url and headers, and `${VAR:-default}`
//! with a default (code.claude.com/docs/en/mcp, "Environment variable expansion in
//! `.mcp.json`"; the expander takes `\$\{([A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?)\}`, Claude Code
//! 2.1.332): its grammar is `brace-default`.
//!
//! `~/.claude.json` can be tens of megabytes and Claude Code rewrites it itself under a
//! `~/.claude.json.lock` directory (proper-lockfile); mcpconf holds that lock too while it
//! writes, so the two never interleave.

use super::{BASE, Base, ClientManaged, McpServers, Scope, Syntax, Ty, Types};

/// Claude Code.
pub static CLAUDE_CODE: McpServers = McpServers {
    id: "claude-code",
    description: "Claude Code (`.mcp.json`, `~/.claude.json` user and local scopes)",
    scopes: &[
        Scope::new("project", Base::Root, ".mcp.json"),
        Scope::new("user", Base::Home, ".claude.json"),
        Scope::new("local", Base::Home, ".claude.json"),
    ],
    syntax: Syntax::Json,
    types: Types {
        stdio: Ty::Name("stdio"),
        http: Ty::Name("http"),
        sse: Ty::Name("sse"),
    },
    known_fields: &[
        "type",
        "command",
        "args",
        "env",
        "url",
        "headers",
        "headersHelper",
        "oauth",
        "timeout",
        "alwaysLoad",
    ],
    lock_scopes: &["user", "local"],
    per_project_scopes: &["local"],
    client_managed: ClientManaged {
        keys: &[],
        source: "https://docs.anthropic.com/en/docs/claude-code/mcp",
        checked: "Claude Code 2.1.332: approvals and on/off live in `enabledMcpjsonServers` / `disabledMcpjsonServers` and `permissions`, outside the entry",
    },
    // `/mcp`'s "disable" writes the server's name into the current project's
    // `disabledMcpServers`; the project is keyed by the main worktree's root of its git
    // repository, so a subdirectory or another worktree of it reads the same entry.
    disable: Some(super::ProjectDisable {
        form: super::DisableForm::UserProjectsList {
            scope: "local",
            key: "disabledMcpServers",
        },
        source: "https://code.claude.com/docs/en/settings (`~/.claude.json` per-project state; `/mcp` enable/disable)",
        checked: "Claude Code 2.1.332: `claude mcp list` in the repository, a subdirectory and a worktree of it shows the user's server \"Disabled for this project\", elsewhere not (tests/it/real_clients/disable.rs)",
        trust: None,
    }),
    source: "https://code.claude.com/docs/en/mcp",
    checked: "Claude Code 2.1.332",
    grammar: crate::template::Grammar::BraceDefault,
    ..BASE
};
