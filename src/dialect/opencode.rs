//! `opencode`: project `opencode.json` (at `--root`) and user
//! `~/.config/opencode/opencode.json`; JSON with comments; servers under `mcp`. A local server
//! is `{"type": "local", "command": [command, ...args], "environment": {…}}`, a remote one
//! `{"type": "remote", "url", "headers"}`; nothing else is written (older opencode versions
//! validated entries strictly). References spelled `{env:VAR}`; opencode substitutes
//! `{env:…}` and `{file:…}` anywhere in its config and has no escape, so a literal holding one
//! is refused.
//!
//! Kilo Code (`kilo`) is a fork of opencode and reads the same shape; [`Opencode`] describes
//! both.

use serde_json::{Map, Value};

use super::{
    BASE, Base, Ctx, Dialect, Hazard, McpServers, PinSupport, RenderError, Rendered, Scope, Slot,
    Syntax, pin_note,
};
use crate::server::{Server, Transport};

/// An opencode-shaped client.
pub struct Opencode {
    /// The spelling rules (id, reference syntax, literal hazard) it shares with the common
    /// shape.
    spell: McpServers,
    description: &'static str,
    scopes: &'static [Scope],
}

/// opencode.
pub static OPENCODE: Opencode = Opencode {
    spell: McpServers {
        id: "opencode",
        var_syntax: "{env:VAR}",
        hazard: Hazard::Brace,
        ..BASE
    },
    description: "opencode `opencode.json` (`mcp`)",
    scopes: &[
        Scope::new("project", Base::Root, "opencode.json"),
        Scope::new("user", Base::Home, ".config/opencode/opencode.json"),
    ],
};

/// Kilo Code (CLI 1.0 and the extension built on it): `kilo.jsonc` files, key `mcp`, opencode's
/// entry shape (kilo.ai/docs/automate/mcp/using-in-kilo-code).
pub static KILO: Opencode = Opencode {
    spell: McpServers {
        id: "kilo",
        var_syntax: "{env:VAR}",
        hazard: Hazard::Brace,
        ..BASE
    },
    description: "Kilo Code `kilo.jsonc` (`mcp`, opencode's shape)",
    scopes: &[
        Scope::new("project", Base::Root, ".kilo/kilo.jsonc"),
        Scope::new("user", Base::Home, ".config/kilo/kilo.jsonc"),
    ],
};

impl Dialect for Opencode {
    fn id(&self) -> &'static str {
        self.spell.id
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn scopes(&self) -> &'static [Scope] {
        self.scopes
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
        let spell = &self.spell;
        let id = spell.id;
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
                            "client `{id}` has no working-directory field in the versions mcpconf supports (older ones reject unknown fields), so server `{}` cannot be written with its `cwd`",
                            server.name
                        ),
                    });
                }
                m.insert("type".into(), "local".into());
                let mut cmd = vec![Value::String(spell.spell(
                    command,
                    server,
                    "command",
                    Slot::Command,
                )?)];
                for a in args {
                    cmd.push(Value::String(spell.spell(
                        a,
                        server,
                        "args",
                        Slot::Plain,
                    )?));
                }
                m.insert("command".into(), Value::Array(cmd));
                if !env.is_empty() {
                    let mut e = Map::new();
                    for (k, t) in env {
                        e.insert(
                            k.clone(),
                            spell
                                .spell(t, server, &format!("env.{k}"), Slot::Env)?
                                .into(),
                        );
                    }
                    m.insert("environment".into(), Value::Object(e));
                }
            }
            Transport::Remote { url, headers, .. } => {
                m.insert("type".into(), "remote".into());
                m.insert(
                    "url".into(),
                    spell.spell(url, server, "url", Slot::Plain)?.into(),
                );
                if !headers.is_empty() {
                    let mut h = Map::new();
                    for (k, t) in headers {
                        h.insert(
                            k.clone(),
                            spell
                                .spell(t, server, &format!("headers.{k}"), Slot::Header)?
                                .into(),
                        );
                    }
                    m.insert("headers".into(), Value::Object(h));
                }
            }
        }
        let notes = match server.tools {
            Some(_) => vec![pin_note(id, &server.name)],
            None => Vec::new(),
        };
        Ok(Rendered {
            value: Value::Object(m),
            notes,
        })
    }
}
