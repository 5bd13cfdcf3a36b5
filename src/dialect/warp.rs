//! `warp`: the Warp terminal's agents. File-based MCP servers (docs.warp.dev "Model Context
//! Protocol"; warpdotdev/warp `app/src/ai/mcp`): user `~/.warp/.mcp.json` (under the home
//! directory on every OS; `warp_core::paths::warp_home_mcp_config_file_path`), project
//! `<repo>/.warp/.mcp.json` (project servers start only after the user approves them). Strict
//! JSON under `mcpServers`: stdio `{command, args, env, working_directory}`, remote `{url,
//! headers}` (`parsing.rs`: a Codex `cwd` is "mapped to `working_directory` in Warp JSON").
//!
//! Warp substitutes `${VAR}` from its environment in the whole file text before it parses it
//! (`file_mcp_watcher.rs` `parse_mcp_config_file` → `substitute_env_vars`, for its own files as
//! for the Claude and Codex files it can also read), so references are written `${VAR}` in
//! every field. A variable that is unset or empty fails the whole file (none of its servers
//! start), and Warp has no escape, so a literal `${` is refused.
//!
//! Warp then reads each server as a Handlebars template: env and header values become its
//! variables, and any other `{{…}}` (in command, args, working directory or URL) is a variable
//! with no value, so Warp never installs that server. Such a literal is refused. A bare `url`
//! is streamable HTTP; SSE is refused (no SSE marker is documented).

use serde_json::{Map, Value};

use super::reshaped::{Reshaped, rename};
use super::{BASE, Base, Hazard, McpServers, RenderError, Scope, Syntax, Ty, Types};
use crate::server::{Server, Transport};
use crate::template::Part;

/// Warp.
pub static WARP: Reshaped = Reshaped {
    inner: McpServers {
        id: "warp",
        description: "Warp terminal agents `.warp/.mcp.json`",
        scopes: &[
            Scope::new("user", Base::Home, ".warp/.mcp.json"),
            Scope::new("project", Base::Root, ".warp/.mcp.json"),
        ],
        syntax: Syntax::Json,
        types: Types {
            stdio: Ty::Omit,
            http: Ty::Omit,
            sse: Ty::Unsupported,
        },
        hazard: Hazard::DollarBrace,
        cwd: true,
        known_fields: &[
            "command",
            "args",
            "env",
            "working_directory",
            "url",
            "headers",
            "description",
        ],
        source: "https://github.com/warpdotdev/warp/blob/main/app/src/ai/mcp/file_mcp_watcher.rs (`parse_mcp_config_file`, `substitute_env_vars`); app/src/ai/mcp/parsing.rs; https://docs.warp.dev/agent-platform/capabilities/mcp",
        checked: "warpdotdev/warp 19548ae (2026-08-22)",
        ..BASE
    },
    home_only: false,
    precheck: no_templates,
    reshape: working_directory,
    unshape: cwd_of_working_directory,
};

/// The inverse of [`working_directory`]: `working_directory` read as `cwd`.
fn cwd_of_working_directory(_: &str, m: Map<String, Value>) -> Map<String, Value> {
    if m.contains_key("cwd") {
        return m;
    }
    super::reshaped::rename(m, "working_directory", "cwd")
}

/// `cwd` written as `working_directory`.
fn working_directory(_: &Server, m: Map<String, Value>) -> Map<String, Value> {
    rename(m, "cwd", "working_directory")
}

/// Refuses a literal `{{` outside env and header values: Warp would read it as a template
/// variable and skip the server.
fn no_templates(server: &Server) -> Result<(), RenderError> {
    let fields: Vec<(&str, &crate::template::Template)> = match &server.transport {
        Transport::Stdio {
            command, args, cwd, ..
        } => std::iter::once(("command", command))
            .chain(args.iter().map(|a| ("args", a)))
            .chain(cwd.iter().map(|c| ("cwd", c)))
            .collect(),
        Transport::Remote { url, .. } => vec![("url", url)],
    };
    for (field, t) in fields {
        let hit = t.parts.iter().any(|p| match p {
            Part::Lit(l) => l.contains("{{"),
            _ => false,
        });
        if hit {
            return Err(RenderError {
                field: field.to_string(),
                message: format!(
                    "client `warp` reads `{{{{…}}}}` in `{field}` as a template variable and then does not start server `{}`; mcpconf refuses rather than write it (move the text into a file or wrapper the server reads)",
                    server.name
                ),
            });
        }
    }
    Ok(())
}
