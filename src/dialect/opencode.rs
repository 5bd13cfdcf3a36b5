//! `opencode`: project `opencode.json` (at `--root`) and user
//! `~/.config/opencode/opencode.json`; JSON with comments; servers under `mcp`. A local server
//! is `{"type": "local", "command": [command, ...args], "environment": {…}}`, a remote one
//! `{"type": "remote", "url", "headers"}`; nothing else is written (older opencode versions
//! validated entries strictly). References spelled `{env:VAR}`.

use serde_json::{Map, Value};

use super::{
    BASE, Base, Ctx, Dialect, McpServers, PinSupport, RenderError, Rendered, Scope, Syntax,
    pin_note,
};
use crate::server::{Server, Transport};

/// The spelling rules opencode shares with the common shape.
static SPELL: McpServers = McpServers {
    id: "opencode",
    var_syntax: "{env:VAR}",
    ..BASE
};

/// opencode.
pub struct Opencode;

/// The one opencode dialect.
pub static OPENCODE: Opencode = Opencode;

static SCOPES: &[Scope] = &[
    Scope::new("project", Base::Root, "opencode.json"),
    Scope::new("user", Base::Home, ".config/opencode/opencode.json"),
];

impl Dialect for Opencode {
    fn id(&self) -> &'static str {
        "opencode"
    }
    fn description(&self) -> &'static str {
        "opencode `opencode.json` (`mcp`)"
    }
    fn scopes(&self) -> &'static [Scope] {
        SCOPES
    }
    fn syntax(&self) -> Syntax {
        Syntax::Jsonc
    }
    fn placeholder(&self) -> String {
        "{env:VAR}".to_string()
    }
    fn pin_support(&self) -> PinSupport {
        PinSupport::None
    }
    fn known_fields(&self) -> &'static [&'static str] {
        &[
            "type",
            "command",
            "environment",
            "enabled",
            "timeout",
            "url",
            "headers",
            "oauth",
        ]
    }
    fn container(&self, _scope: &str, _ctx: &Ctx) -> Vec<String> {
        vec!["mcp".to_string()]
    }

    fn render(&self, server: &Server) -> Result<Rendered, RenderError> {
        let mut m = Map::new();
        match &server.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                if cwd.is_some() {
                    return Err(RenderError {
                        field: "cwd".into(),
                        message: format!(
                            "client `opencode` has no working-directory field in the versions mcpconf supports (older ones reject unknown fields), so server `{}` cannot be written with its `cwd`",
                            server.name
                        ),
                    });
                }
                m.insert("type".into(), "local".into());
                let mut cmd = vec![Value::String(
                    SPELL.spell(command, server, "command", false)?,
                )];
                for a in args {
                    cmd.push(Value::String(SPELL.spell(a, server, "args", false)?));
                }
                m.insert("command".into(), Value::Array(cmd));
                if !env.is_empty() {
                    let mut e = Map::new();
                    for (k, t) in env {
                        e.insert(
                            k.clone(),
                            SPELL.spell(t, server, &format!("env.{k}"), true)?.into(),
                        );
                    }
                    m.insert("environment".into(), Value::Object(e));
                }
            }
            Transport::Remote { url, headers, .. } => {
                m.insert("type".into(), "remote".into());
                m.insert("url".into(), SPELL.spell(url, server, "url", false)?.into());
                if !headers.is_empty() {
                    let mut h = Map::new();
                    for (k, t) in headers {
                        h.insert(
                            k.clone(),
                            SPELL
                                .spell(t, server, &format!("headers.{k}"), true)?
                                .into(),
                        );
                    }
                    m.insert("headers".into(), Value::Object(h));
                }
            }
        }
        let notes = match server.tools {
            Some(_) => vec![pin_note("opencode", &server.name)],
            None => Vec::new(),
        };
        Ok(Rendered {
            value: Value::Object(m),
            notes,
        })
    }
}
