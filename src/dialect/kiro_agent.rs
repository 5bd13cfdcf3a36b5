//! `kiro-agent`: Kiro custom agent files, `.kiro/agents/<name>.json` (project) and
//! `~/.kiro/agents/<name>.json` (user); a target's `path` may be a glob over them (the default
//! is every `*.json` agent). The entry goes into the agent's own `mcpServers` (same shape as
//! Kiro's `mcp.json`); agent files are never created.
//!
//! Grants: if the agent has a `tools` list that does not already cover the server (`*` or
//! `@server`), mcpconf adds `@server` — or `@server/tool` per pinned tool, which is how a pin is
//! expressed here. A narrower grant the user wrote (`@server/tool`, `@server/*`) counts as the
//! grant: mcpconf never widens an agent's access (nor its auto-approval) beyond what the user
//! narrowed it to. `import` reads the `@server/tool` grants of `tools` back as the server's pin. With `auto_approve = true` it also grants in `allowedTools` (created if
//! absent; `*` is not valid there). Each grant added is recorded in the ledger and removed with
//! the entry; a grant the user wrote is never removed. Markdown agent files (`*.md`, YAML front
//! matter) are left alone and reported as skipped.

use super::{
    BASE, Base, ClientManaged, Ctx, Dialect, GrantSpec, McpServers, OffForm, PinSupport, Places,
    RenderError, Rendered, Scope, Syntax,
};
use crate::server::Server;

static ENTRY: McpServers = McpServers {
    id: "kiro-agent",
    var_places: Places::EnvAndHeaders,
    types: super::kiro::NO_SSE,
    extra_forms: &[super::RefForm::Env],
    ..BASE
};

/// Kiro agent files.
pub struct KiroAgent;

/// The one Kiro agent dialect.
pub static KIRO_AGENT: KiroAgent = KiroAgent;

static SCOPES: &[Scope] = &[
    Scope::new("project", Base::Root, ".kiro/agents/*.json"),
    Scope::new("user", Base::Home, ".kiro/agents/*.json"),
];

impl Dialect for KiroAgent {
    fn id(&self) -> &'static str {
        "kiro-agent"
    }
    fn description(&self) -> &'static str {
        "Kiro custom agent files (entry plus `tools` / `allowedTools` grants)"
    }
    fn scopes(&self) -> &'static [Scope] {
        SCOPES
    }
    fn syntax(&self) -> Syntax {
        Syntax::Json
    }
    fn placeholder(&self) -> String {
        "${VAR} (env values and headers only)".to_string()
    }
    fn expansion(&self) -> super::Expansion {
        ENTRY.expansion()
    }
    fn source(&self) -> &'static str {
        "https://kiro.dev/docs/cli/custom-agents/configuration-reference; https://kiro.dev/docs/custom-agents/"
    }
    fn checked(&self) -> &'static str {
        "docs (2026-12-05)"
    }
    fn pin_support(&self) -> PinSupport {
        PinSupport::Field("tools: @server/tool grants")
    }
    fn client_managed(&self) -> ClientManaged {
        ClientManaged {
            keys: &[],
            source: "https://kiro.dev/docs/cli/custom-agents/configuration-reference",
            checked: "Kiro CLI agent reference, checked 2026-12: trusting a tool writes the agent's `allowedTools` (a grant array mcpconf manages), not the entry",
        }
    }
    fn off_form(&self) -> Option<OffForm> {
        Some(super::DISABLED_TRUE)
    }
    fn known_fields(&self) -> &'static [&'static str] {
        // The same entry shape as Kiro's `mcp.json`.
        super::kiro::KIRO.known_fields
    }
    fn container(&self, _scope: &str, _ctx: &Ctx) -> Vec<String> {
        vec!["mcpServers".to_string()]
    }
    fn render(&self, server: &Server) -> Result<Rendered, RenderError> {
        let mut r = ENTRY.render_entry(server)?;
        // The pin is expressed by the grants, not by a note.
        r.notes.clear();
        Ok(r)
    }
    fn supports_auto_approve(&self) -> bool {
        true
    }
    fn multi_file(&self) -> bool {
        true
    }
    fn grant_arrays(&self) -> &'static [&'static str] {
        &["tools", "allowedTools"]
    }
    fn inherited_settings(&self) -> &'static [(&'static str, &'static str)] {
        &[("kiro", "project"), ("kiro", "user")]
    }
    fn grants(&self, server: &Server, auto_approve: bool) -> Vec<GrantSpec> {
        let whole = format!("@{}", server.name);
        let values = match &server.tools {
            Some(tools) => tools
                .iter()
                .map(|t| format!("@{}/{t}", server.name))
                .collect(),
            None => vec![whole.clone()],
        };
        let mut out = vec![GrantSpec {
            array: vec!["tools".to_string()],
            values: values.clone(),
            covering: vec!["*".to_string(), whole.clone()],
            narrower: Some(format!("{whole}/")),
            create_array: false,
            disable: false,
        }];
        if auto_approve {
            out.push(GrantSpec {
                array: vec!["allowedTools".to_string()],
                values,
                covering: vec![whole.clone(), format!("{whole}/*")],
                narrower: Some(format!("{whole}/")),
                create_array: true,
                disable: false,
            });
        }
        out
    }
}
