//! `hermes`: Nous Research's Hermes Agent. One user file, `~/.hermes/config.yaml`
//! (`$HERMES_HOME` moves it to `$HERMES_HOME/config.yaml`, `hermes_constants.py`
//! `get_hermes_home`). Servers are entries of the YAML mapping `mcp_servers`
//! (NousResearch/hermes-agent `website/docs/reference/mcp-config-reference.md`,
//! `tools/mcp_tool.py`): stdio
//! `{command, args, env}`, streamable HTTP `{url, headers}`, SSE the same with
//! `transport: sse`. A tool pin is `tools: {include: [...]}`. `auto_approve = true` writes
//! `trust: full`, Hermes' trust tier under which a server's tool calls need no approval (the
//! reference's `trust` key: `full`, the default, or `untrusted`); `auto_approve = false` writes
//! no tier, so Hermes' default applies.
//!
//! Hermes resolves `${VAR}` (and `${env:VAR}`, and Cursor-style names such as
//! `${workspaceFolder}`) in every string of an entry, so references are written `${VAR}`
//! anywhere and a literal `${name…}` is refused. It has no working-directory field. Hermes reads
//! YAML with PyYAML (YAML 1.1), so `yes`, `no`, `on` and `off` are quoted when written as
//! strings (as `yamldoc` does for every string).

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::{
    BASE, Base, ClientManaged, Ctx, Dialect, ENABLED_FALSE, Hazard, McpServers, OffForm,
    PinSupport, RenderError, Rendered, Scope, Syntax, Ty, Types,
};
use crate::server::{RemoteKind, Server, Transport};

/// Hermes Agent.
pub struct Hermes;

/// The one Hermes dialect.
pub static HERMES: Hermes = Hermes;

/// The shared rules; `transport` and `tools` are added after.
static INNER: McpServers = McpServers {
    id: "hermes",
    description: "Hermes Agent `config.yaml` (`mcp_servers`)",
    scopes: &[Scope::new("user", Base::Home, ".hermes/config.yaml")],
    syntax: Syntax::Yaml,
    container_key: "mcp_servers",
    types: Types {
        stdio: Ty::Omit,
        http: Ty::Omit,
        sse: Ty::Omit,
    },
    hazard: Hazard::DollarBrace,
    known_fields: &[
        "command",
        "args",
        "env",
        "url",
        "headers",
        "transport",
        "ssl_verify",
        "client_cert",
        "client_key",
        "enabled",
        "timeout",
        "connect_timeout",
        "protocol",
        "supports_parallel_tool_calls",
        "skip_preflight",
        "keepalive_interval",
        "idle_timeout_seconds",
        "max_lifetime_seconds",
        "lifecycle",
        "tools",
        "auth",
        "oauth",
        "sampling",
        "elicitation",
        "trust",
    ],
    ..BASE
};

impl Dialect for Hermes {
    fn id(&self) -> &'static str {
        INNER.id
    }
    fn description(&self) -> &'static str {
        INNER.description
    }
    fn scopes(&self) -> &'static [Scope] {
        INNER.scopes
    }
    fn syntax(&self) -> Syntax {
        INNER.syntax
    }
    fn placeholder(&self) -> String {
        INNER.placeholder()
    }
    fn expansion(&self) -> super::Expansion {
        INNER.expansion()
    }
    fn source(&self) -> &'static str {
        "https://github.com/NousResearch/hermes-agent/blob/main/website/docs/reference/mcp-config-reference.md; tools/mcp_tool.py"
    }
    fn checked(&self) -> &'static str {
        "hermes-agent 0.21.3 (reference 0059a79, checked 2026-12-05; `trust` is not in 0.19.0, which ignores it)"
    }
    fn pin_support(&self) -> PinSupport {
        PinSupport::Field("tools.include")
    }
    /// `transport: sse` as `type: sse`, and the pinned `tools.include` as `tools`.
    fn common_entry(&self, _name: &str, e: &Map<String, Value>) -> Map<String, Value> {
        let mut out = e.clone();
        if out.get("transport").and_then(Value::as_str) == Some("sse") {
            out.remove("transport");
            out.insert("type".into(), "sse".into());
        }
        if let Some(include) = e
            .get("tools")
            .and_then(Value::as_object)
            .and_then(|t| t.get("include"))
        {
            out.insert("tools".into(), include.clone());
        }
        out
    }
    fn common_pin_key(&self) -> Option<&'static str> {
        Some("tools")
    }
    /// `hermes tools disable SERVER:TOOL` edits `tools.exclude` (or `tools.include`) and keeps
    /// the key when it empties (`tools: {exclude: []}`); `hermes mcp add` / `configure` write
    /// `tools.include` and `enabled`. The runtime reads a missing `enabled` as true. When the
    /// manifest pins tools (`tools.include` is ours), `tools.exclude` is still the client's:
    /// `hermes tools disable SERVER:TOOL` adds it beside our `include` (Hermes 0.19.0, seen in
    /// tests/it/real_clients/hermes.rs).
    fn client_managed(&self) -> ClientManaged {
        ClientManaged {
            keys: &["enabled", "tools", "tools.exclude"],
            source: "https://github.com/NousResearch/hermes-agent/blob/main/hermes_cli/tools_config_mcp.py",
            checked: "hermes-agent 1c9798c (`_apply_mcp_change`, `_apply_mcp_checklist`), hermes_cli/mcp_config.py 6e11d81 (`cmd_mcp_add`, `cmd_mcp_configure`)",
        }
    }
    fn off_form(&self) -> Option<OffForm> {
        Some(ENABLED_FALSE)
    }
    /// `trust: full` (mcp-config-reference.md, "Server keys": `trust`).
    fn trust_form(&self) -> Option<(&'static str, &'static str)> {
        Some(("trust", "\"full\""))
    }
    fn known_fields(&self) -> &'static [&'static str] {
        INNER.known_fields
    }
    fn container(&self, scope: &str, ctx: &Ctx) -> Vec<String> {
        INNER.container(scope, ctx)
    }
    fn path(&self, scope: &Scope, explicit: Option<&str>, ctx: &Ctx) -> PathBuf {
        let dir = ctx.client_homes.hermes_home.as_ref();
        super::user_file_under(dir, "config.yaml", scope, explicit, ctx)
    }

    fn render(&self, server: &Server) -> Result<Rendered, RenderError> {
        let unpinned = Server {
            tools: None,
            checks: Default::default(),
            ..server.clone()
        };
        let mut r = INNER.render_entry(&unpinned)?;
        let Value::Object(m) = &mut r.value else {
            return Ok(r);
        };
        if let Transport::Remote {
            kind: RemoteKind::Sse,
            ..
        } = &server.transport
        {
            m.insert("transport".into(), "sse".into());
        }
        if let Some(tools) = &server.tools {
            let mut t = Map::new();
            t.insert(
                "include".into(),
                Value::Array(tools.iter().map(|s| Value::String(s.clone())).collect()),
            );
            m.insert("tools".into(), Value::Object(t));
        }
        Ok(r)
    }
}
