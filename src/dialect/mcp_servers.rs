//! The common shape most clients share: a JSON object of entries under a container key, each
//! entry `{command, args, env}` or `{url, headers}`, with small per-client variations described
//! as data.

use serde_json::{Map, Value};

use super::{Ctx, Dialect, PinSupport, RenderError, Rendered, Scope, Syntax};
use crate::manifest::{RemoteKind, Server, Transport};
use crate::template::Template;

/// Whether and how a client wants a `type` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeField {
    /// Never written (transport inferred from `command` / `url`); SSE servers get `"type": "sse"`.
    OnlySse,
    /// Always written: `stdio`, `http`, `sse`.
    Always,
}

/// A client of the common `mcpServers` shape, described as data.
pub struct McpServers {
    /// Client id.
    pub id: &'static str,
    /// One line for `mcpconf clients`.
    pub description: &'static str,
    /// Scopes, default first.
    pub scopes: &'static [Scope],
    /// File syntax.
    pub syntax: Syntax,
    /// The container key at the file's root.
    pub container_key: &'static str,
    /// `type` field policy.
    pub type_field: TypeField,
    /// Reference spelling, `VAR` standing for the variable name (e.g. `${env:VAR}`).
    pub var_syntax: &'static str,
    /// Whether the client reads a `cwd` field.
    pub cwd: bool,
    /// Entry fields the client documents.
    pub known_fields: &'static [&'static str],
}

impl McpServers {
    fn spell(&self, t: &Template) -> String {
        t.render(|v| self.var_syntax.replace("VAR", v))
    }

    fn map(&self, pairs: &[(String, Template)]) -> Value {
        Value::Object(
            pairs
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(self.spell(v))))
                .collect::<Map<_, _>>(),
        )
    }
}

impl Dialect for McpServers {
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
    fn placeholder(&self) -> &'static str {
        self.var_syntax
    }
    fn pin_support(&self) -> PinSupport {
        PinSupport::None
    }
    fn known_fields(&self) -> &'static [&'static str] {
        self.known_fields
    }
    fn container(&self, _scope: &str, _ctx: &Ctx) -> Vec<String> {
        vec![self.container_key.to_string()]
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
                if self.type_field == TypeField::Always {
                    m.insert("type".into(), "stdio".into());
                }
                m.insert("command".into(), self.spell(command).into());
                if !args.is_empty() {
                    m.insert(
                        "args".into(),
                        Value::Array(args.iter().map(|a| self.spell(a).into()).collect()),
                    );
                }
                if !env.is_empty() {
                    m.insert("env".into(), self.map(env));
                }
                if let Some(cwd) = cwd {
                    if !self.cwd {
                        return Err(RenderError {
                            field: "cwd".into(),
                            message: format!(
                                "client `{}` has no working-directory field, so server `{}` cannot be written with its `cwd`; remove `cwd` or wrap the command",
                                self.id, server.name
                            ),
                        });
                    }
                    m.insert("cwd".into(), self.spell(cwd).into());
                }
            }
            Transport::Remote { url, headers, kind } => {
                match (self.type_field, kind) {
                    (TypeField::Always, RemoteKind::Http) => {
                        m.insert("type".into(), "http".into());
                    }
                    (_, RemoteKind::Sse) => {
                        m.insert("type".into(), "sse".into());
                    }
                    (TypeField::OnlySse, RemoteKind::Http) => {}
                }
                m.insert("url".into(), self.spell(url).into());
                if !headers.is_empty() {
                    m.insert("headers".into(), self.map(headers));
                }
            }
        }
        let mut notes = Vec::new();
        if server.tools.is_some() {
            notes.push(format!(
                "client `{}` cannot enforce the tool pin of server `{}`: every tool the server offers will be exposed",
                self.id, server.name
            ));
        }
        Ok(Rendered {
            value: Value::Object(m),
            notes,
        })
    }
}
