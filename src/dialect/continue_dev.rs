//! `continue`: Continue (VS Code / JetBrains extension and `cn` CLI). User
//! `~/.continue/config.yaml` (Windows `%USERPROFILE%\.continue\config.yaml`;
//! `$CONTINUE_GLOBAL_DIR/config.yaml` when set, `core/util/paths.ts`; the default scope),
//! project block files `.continue/mcpServers/*.yaml` (scope `project`, default file
//! `.continue/mcpServers/mcpconf.yaml`; any other block file there is a target's `path`).
//! Servers are a YAML **list** `mcpServers`, each item identified by its `name` (the keyed
//! list `mcpServers[name]`, see [`crate::keyed`])
//! (continuedev/continue `packages/config-yaml/src/schemas/mcp/index.ts`): stdio
//! `{name, command, args, env, cwd}`, remote `{name, type: streamable-http | sse, url,
//! requestOptions: {headers}}`. Both files must name themselves (`name`, `version`,
//! `schema: v1`), so a file mcpconf creates starts with that header.
//!
//! References are Continue's secret templates: `${VAR}` is written `${{ secrets.VAR }}`, which
//! Continue resolves from `~/.continue/.env`, the workspace's `.env`, its hub, then the process
//! environment (`core/config/yaml/LocalPlatformClient.ts`), in every string field. A literal
//! `${{` would be read as a template, so it is refused. Continue has no tool filter: a pin is a
//! note.

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::{
    Base, ClientManaged, Ctx, Dialect, PinSupport, RenderError, Rendered, Scope, Syntax, pin_note,
};
use crate::server::{RemoteKind, Server, Transport};
use crate::template::{Part, Template};

/// Continue.
pub struct Continue;

/// The one Continue dialect.
pub static CONTINUE: Continue = Continue;

static SCOPES: &[Scope] = &[
    Scope::new("user", Base::Home, ".continue/config.yaml"),
    Scope::new("project", Base::Root, ".continue/mcpServers/mcpconf.yaml"),
];

fn spell(t: &Template, server: &Server, field: &str) -> Result<String, RenderError> {
    let literal_hit = t.parts.iter().any(|p| match p {
        Part::Lit(l) => l.contains("${{"),
        _ => false,
    });
    if literal_hit {
        return Err(RenderError {
            field: field.to_string(),
            message: format!(
                "client `continue` renders `${{{{ … }}}}` templates in every field and has no escape for them, so the literal text in `{field}` of server `{}` would be read as one; mcpconf refuses rather than write it (move the text into a file or wrapper the server reads)",
                server.name
            ),
        });
    }
    Ok(t.render(|v| format!("${{{{ secrets.{v} }}}}")))
}

fn map(pairs: &[(String, Template)], server: &Server, what: &str) -> Result<Value, RenderError> {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(k.clone(), spell(v, server, &format!("{what}.{k}"))?.into());
    }
    Ok(Value::Object(m))
}

impl Dialect for Continue {
    fn id(&self) -> &'static str {
        "continue"
    }
    fn description(&self) -> &'static str {
        "Continue `config.yaml` and `.continue/mcpServers/*.yaml` (`mcpServers` list)"
    }
    fn scopes(&self) -> &'static [Scope] {
        SCOPES
    }
    fn syntax(&self) -> Syntax {
        Syntax::Yaml
    }
    fn new_file(&self) -> &'static str {
        "name: mcpconf\nversion: 0.0.1\nschema: v1\n"
    }
    fn placeholder(&self) -> String {
        "${{ secrets.VAR }}".to_string()
    }
    fn source(&self) -> &'static str {
        "https://github.com/continuedev/continue/blob/main/packages/config-yaml/src/schemas/mcp/index.ts; core/config/yaml/LocalPlatformClient.ts"
    }
    fn checked(&self) -> &'static str {
        "continue d0a3c0b (2026-06-18)"
    }
    fn pin_support(&self) -> PinSupport {
        PinSupport::None
    }
    /// Headers out of `requestOptions` (the rest of it stays), and no `type` but `sse`.
    fn common_entry(&self, _name: &str, e: &Map<String, Value>) -> Map<String, Value> {
        let mut out = e.clone();
        if let Some(Value::Object(ro)) = out.remove("requestOptions") {
            if let Some(h) = ro.get("headers") {
                out.insert("headers".into(), h.clone());
            }
            if ro.keys().any(|k| k != "headers") {
                out.insert("requestOptions".into(), Value::Object(ro));
            }
        }
        if out.get("type").and_then(Value::as_str) != Some("sse") {
            out.remove("type");
        }
        out
    }
    fn client_managed(&self) -> ClientManaged {
        ClientManaged {
            keys: &[],
            source: "https://docs.continue.dev/reference",
            checked: "Continue config.yaml reference, checked 2026-12: `mcpServers` blocks are written by hand or by the Hub; the extension writes no key into them",
        }
    }
    fn known_fields(&self) -> &'static [&'static str] {
        &[
            "name",
            "serverName",
            "faviconUrl",
            "sourceFile",
            "sourceSlug",
            "connectionTimeout",
            "type",
            "command",
            "args",
            "env",
            "cwd",
            "url",
            "apiKey",
            "requestOptions",
        ]
    }
    // Continue loads every YAML block in the workspace's `.continue/mcpServers/`
    // (docs.continue.dev/customize/deep-dives/mcp: "Create a folder called
    // `.continue/mcpServers` … Add a file called `playwright-mcp.yaml`"); its JSON files there
    // are other clients' formats, not these blocks.
    fn block_files(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("project", ".continue/mcpServers/*.yaml"),
            ("project", ".continue/mcpServers/*.yml"),
        ]
    }
    fn container(&self, _scope: &str, _ctx: &Ctx) -> Vec<String> {
        vec!["mcpServers[name]".to_string()]
    }
    fn path(&self, scope: &Scope, explicit: Option<&str>, ctx: &Ctx) -> PathBuf {
        // Only the user file moves: project blocks stay under the workspace's `.continue/`.
        let dir = ctx.client_homes.continue_global_dir.as_ref();
        super::user_file_under(dir, "config.yaml", scope, explicit, ctx)
    }

    fn render(&self, server: &Server) -> Result<Rendered, RenderError> {
        let mut m = Map::new();
        // The item's `name` is the entry's name (the container is the keyed list
        // `mcpServers[name]`); Continue renders templates in it too.
        spell(&Template::literal(&server.name), server, "name")?;
        match &server.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
                ..
            } => {
                m.insert("command".into(), spell(command, server, "command")?.into());
                if !args.is_empty() {
                    let mut out = Vec::new();
                    for a in args {
                        out.push(Value::String(spell(a, server, "args")?));
                    }
                    m.insert("args".into(), Value::Array(out));
                }
                if !env.is_empty() {
                    m.insert("env".into(), map(env, server, "env")?);
                }
                if let Some(cwd) = cwd {
                    m.insert("cwd".into(), spell(cwd, server, "cwd")?.into());
                }
            }
            Transport::Remote { url, headers, kind } => {
                let ty = match kind {
                    RemoteKind::Http => "streamable-http",
                    RemoteKind::Sse => "sse",
                };
                m.insert("type".into(), ty.into());
                m.insert("url".into(), spell(url, server, "url")?.into());
                if !headers.is_empty() {
                    let mut ro = Map::new();
                    ro.insert("headers".into(), map(headers, server, "headers")?);
                    m.insert("requestOptions".into(), Value::Object(ro));
                }
            }
        }
        let notes = match &server.tools {
            Some(_) => vec![pin_note("continue", &server.name)],
            None => Vec::new(),
        };
        Ok(Rendered {
            value: Value::Object(m),
            notes,
        })
    }
}
