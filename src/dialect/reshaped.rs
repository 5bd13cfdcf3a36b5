//! A client of the common shape whose entry differs from the shared rendering only in where a
//! few keys stand (Rovo Dev and OpenHands name the transport `transport`, Copilot for Xcode
//! nests headers under `requestInit`, Grok CLI nests the whole stdio launch under `transport`,
//! Warp names the working directory `working_directory`), and that may refuse one more thing
//! first (Warp's `{{…}}` templates). Everything else (paths, references, refusals) is the inner
//! [`McpServers`]'s.

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::{
    ClientManaged, Ctx, Dialect, Expansion, Gate, McpServers, OffForm, PinSupport, RenderError,
    Rendered, Scope, Syntax,
};
use crate::server::Server;

/// A common-shape client with its entry reshaped after rendering.
pub struct Reshaped {
    /// The shared rules (paths, fields, references).
    pub inner: McpServers,
    /// Moves keys of the rendered entry into the client's places.
    pub reshape: fn(&Server, Map<String, Value>) -> Map<String, Value>,
    /// Whether the user file is always under the home directory, even a `.config/` path that
    /// `$XDG_CONFIG_HOME` would otherwise move (Copilot for Xcode asks the OS for the home).
    pub home_only: bool,
    /// A refusal the shared rules do not make (Warp's `{{…}}` templates), checked first.
    pub precheck: fn(&Server) -> Result<(), RenderError>,
    /// The inverse of `reshape`, for import: an entry of the client's file (the server's name
    /// given) with its keys back in the common places.
    pub unshape: fn(&str, Map<String, Value>) -> Map<String, Value>,
}

/// No refusal beyond the shared rules.
pub fn no_precheck(_: &Server) -> Result<(), RenderError> {
    Ok(())
}

impl Dialect for Reshaped {
    fn id(&self) -> &'static str {
        self.inner.id
    }
    fn description(&self) -> &'static str {
        self.inner.description
    }
    fn scopes(&self) -> &'static [Scope] {
        self.inner.scopes
    }
    fn syntax(&self) -> Syntax {
        self.inner.syntax
    }
    fn placeholder(&self) -> String {
        self.inner.placeholder()
    }
    fn pin_support(&self) -> PinSupport {
        self.inner.pin_support()
    }
    fn known_fields(&self) -> &'static [&'static str] {
        self.inner.known_fields
    }
    fn container(&self, scope: &str, ctx: &Ctx) -> Vec<String> {
        self.inner.container(scope, ctx)
    }
    fn client_lock(&self, scope: &str) -> bool {
        self.inner.client_lock(scope)
    }
    fn path(&self, scope: &Scope, explicit: Option<&str>, ctx: &Ctx) -> PathBuf {
        if self.home_only && scope.base == super::Base::Home {
            return ctx.home.join(explicit.unwrap_or(scope.default_path()));
        }
        Dialect::path(&self.inner, scope, explicit, ctx)
    }
    fn render(&self, server: &Server) -> Result<Rendered, RenderError> {
        self.render_for(server, None)
    }
    fn render_for(
        &self,
        server: &Server,
        client_version: Option<&str>,
    ) -> Result<Rendered, RenderError> {
        (self.precheck)(server)?;
        let mut r = self.inner.render_for(server, client_version)?;
        if let Value::Object(m) = std::mem::take(&mut r.value) {
            r.value = Value::Object((self.reshape)(server, m));
        }
        Ok(r)
    }
    // The facts of the table are the inner description's.
    fn client_managed(&self) -> ClientManaged {
        self.inner.client_managed()
    }
    fn off_form(&self) -> Option<OffForm> {
        self.inner.off_form()
    }
    fn expansion(&self) -> Expansion {
        self.inner.expansion()
    }
    fn grammar(&self) -> crate::template::Grammar {
        self.inner.grammar()
    }
    fn pin_support_latest(&self) -> PinSupport {
        self.inner.pin_support_latest()
    }
    fn source(&self) -> &'static str {
        self.inner.source()
    }
    fn checked(&self) -> &'static str {
        self.inner.checked()
    }
    fn gates(&self) -> &'static [Gate] {
        self.inner.gates()
    }
    fn also_reads(&self) -> &'static [(&'static str, &'static str)] {
        self.inner.also_reads()
    }
    fn canonical(&self) -> Option<fn(&Value) -> Value> {
        self.inner.canonical
    }
    fn common_entry(&self, name: &str, entry: &Map<String, Value>) -> Map<String, Value> {
        (self.unshape)(name, entry.clone())
    }
}

/// The entry with its key `from` renamed to `to`, in the same place.
pub fn rename(m: Map<String, Value>, from: &str, to: &str) -> Map<String, Value> {
    m.into_iter()
        .map(|(k, v)| {
            if k == from {
                (to.to_string(), v)
            } else {
                (k, v)
            }
        })
        .collect()
}

/// The entry with its `type` key renamed to `transport`, in the same place.
pub fn type_as_transport(_: &Server, m: Map<String, Value>) -> Map<String, Value> {
    rename(m, "type", "transport")
}

/// The inverse of [`type_as_transport`]: a `transport` name read as `type` (an entry that
/// also has a `type` is left as it is, for the warning about fields import drops).
pub fn transport_as_type(_: &str, m: Map<String, Value>) -> Map<String, Value> {
    if m.contains_key("type") || !m.get("transport").is_some_and(Value::is_string) {
        return m;
    }
    rename(m, "transport", "type")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_becomes_transport_in_place() {
        let m: Map<String, Value> =
            serde_json::from_str(r#"{"type":"sse","url":"u","headers":{}}"#).unwrap();
        let s = Server {
            name: "s".into(),
            transport: crate::server::Transport::Stdio {
                command: crate::template::Template::literal("run"),
                args: Vec::new(),
                env: Vec::new(),
                cwd: None,
                env_file: None,
            },
            tools: None,
            enabled: None,
            checks: Default::default(),
        };
        let out = type_as_transport(&s, m);
        assert_eq!(
            serde_json::to_string(&out).unwrap(),
            r#"{"transport":"sse","url":"u","headers":{}}"#
        );
    }
}
