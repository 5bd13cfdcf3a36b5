//! `goose`: Block's Goose. One user file, `~/.config/goose/config.yaml` (`$XDG_CONFIG_HOME`
//! honoured; Windows `%APPDATA%\Block\goose\config\config.yaml`; an absolute
//! `GOOSE_PATH_ROOT` moves it to `<root>/config/config.yaml`, goose
//! `crates/goose/src/config/paths.rs`), no project file. Servers are entries of the YAML mapping `extensions`, keyed by
//! Goose's `name_to_key(name)` (the name lower-cased, without whitespace), each
//! `{enabled, type, name, description, …}` (goose `crates/goose/src/config/extensions.rs`,
//! `crates/goose/src/agents/extension.rs`):
//!
//! - stdio: `type: stdio`, `cmd`, `args` (required, written even when empty), `envs`, `env_keys`,
//!   `timeout` (300, Goose's default);
//! - remote: `type: streamable_http`, `uri`, `headers`, `env_keys`, `timeout`. Goose no longer
//!   runs SSE extensions, so SSE is refused.
//!
//! Goose expands nothing in `cmd`, `args` or `envs`. An env value that is exactly
//! `${NAME}` (same name) becomes `env_keys: [NAME]` (Goose takes the value from its secret store
//! or the environment); the `uri` and header values may hold `${VAR}` (Goose substitutes `${VAR}`
//! and `$VAR` there from the extension's envs and env keys: `substitute_env_vars` in
//! `crates/goose/src/agents/extension_manager.rs`), and each such variable is added to
//! `env_keys`. Any other reference is refused, as are literal `$NAME` / `${…}` in the `uri` and
//! header values, env names Goose
//! silently drops (`PATH`, `LD_PRELOAD`, …), a `cwd`, and a server name Goose would key
//! differently. A tool pin is written as `available_tools`. Goose's own `builtin` and
//! `platform` extensions never equal a rendered entry, so they are never adopted or changed.

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::{
    Base, ClientManaged, Ctx, Dialect, ENABLED_FALSE, Hazard, OffForm, PinSupport, RenderError,
    Rendered, Scope, Syntax, expands_literal,
};
use crate::server::{RemoteKind, Server, Transport};
use crate::template::{Part, Template};

/// Goose.
pub struct Goose;

/// The one Goose dialect.
pub static GOOSE: Goose = Goose;

static SCOPES: &[Scope] = &[Scope::new("user", Base::Home, ".config/goose/config.yaml")];

/// Env names Goose drops without a word (`Envs::DISALLOWED_KEYS`, compared ignoring case).
const DROPPED: &[&str] = &[
    "PATH",
    "PATHEXT",
    "SystemRoot",
    "windir",
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
    "LD_AUDIT",
    "LD_DEBUG",
    "LD_BIND_NOW",
    "LD_ASSUME_KERNEL",
    "DYLD_LIBRARY_PATH",
    "DYLD_INSERT_LIBRARIES",
    "DYLD_FRAMEWORK_PATH",
    "PYTHONPATH",
    "PYTHONHOME",
    "NODE_OPTIONS",
    "RUBYOPT",
    "GEM_PATH",
    "GEM_HOME",
    "CLASSPATH",
    "GO111MODULE",
    "GOROOT",
    "APPINIT_DLLS",
    "SESSIONNAME",
    "ComSpec",
    "TEMP",
    "TMP",
    "LOCALAPPDATA",
    "USERPROFILE",
    "HOMEDRIVE",
    "HOMEPATH",
];

fn refuse(server: &Server, field: &str, why: &str) -> RenderError {
    super::refusal("goose", server, field, why)
}

fn literal(t: &Template, server: &Server, field: &str) -> Result<String, RenderError> {
    super::literal_or_refuse(
        "goose",
        t,
        server,
        field,
        "Goose expands no environment references there",
    )
}

/// A field Goose passes through `substitute_env_vars` (the URI and header values): `${VAR}` is
/// written and `VAR` added to `env_keys` (Goose resolves it from the extension's envs and env
/// keys); a literal `$NAME` or `${…}` would be substituted too, so it is refused.
fn substituted(
    t: &Template,
    server: &Server,
    field: &str,
    env_keys: &mut Vec<String>,
) -> Result<String, RenderError> {
    let hit = t.parts.iter().any(|p| match p {
        Part::Lit(l) => Hazard::Dollar.hits(l),
        _ => false,
    });
    if hit {
        return Err(expands_literal(
            "goose",
            &server.name,
            field,
            Hazard::Dollar,
        ));
    }
    for v in t.vars() {
        if !env_keys.iter().any(|e| e == v) {
            env_keys.push(v.to_string());
        }
    }
    Ok(t.render(|v| format!("${{{v}}}")))
}

fn strings(v: Vec<String>) -> Value {
    Value::Array(v.into_iter().map(Value::String).collect())
}

impl Dialect for Goose {
    fn id(&self) -> &'static str {
        "goose"
    }
    fn description(&self) -> &'static str {
        "Goose `config.yaml` (`extensions`)"
    }
    fn scopes(&self) -> &'static [Scope] {
        SCOPES
    }
    fn syntax(&self) -> Syntax {
        Syntax::Yaml
    }
    fn placeholder(&self) -> String {
        "`env_keys` for env values; `${VAR}` in the URI and header values".to_string()
    }
    fn expansion(&self) -> super::Expansion {
        // `${VAR}` and `$VAR` in header values and the URI (`substitute_env_vars`).
        super::Expansion {
            forms: vec![super::RefForm::Brace, super::RefForm::Bare],
            places: super::Places::All,
        }
    }
    fn pin_support(&self) -> PinSupport {
        PinSupport::Field("available_tools")
    }
    /// Goose's own extensions (`builtin`, `platform`, `frontend`, `inline_python`) and the
    /// `sse` ones it no longer starts are not servers mcpconf manages.
    fn not_a_server(&self, name: &str, entry: &Map<String, Value>) -> Option<String> {
        let ty = entry.get("type").and_then(Value::as_str).unwrap_or("");
        (!matches!(ty, "stdio" | "streamable_http")).then(|| not_a_server_why(name, ty))
    }
    /// `cmd`, `envs`, `uri` and `available_tools` under their common names, without the
    /// `type`; `env_keys` (variables Goose takes from its secret store or the environment, by
    /// name) as `${NAME}` references in `env`, unless a header uses the name.
    fn common_entry(&self, _name: &str, e: &Map<String, Value>) -> Map<String, Value> {
        common_goose(e)
    }
    fn common_pin_key(&self) -> Option<&'static str> {
        Some("tools")
    }
    fn client_managed(&self) -> ClientManaged {
        // `enabled`: the extension toggle. `bundled`: set by Goose on the extensions its
        // desktop app ships (`ExtensionConfig::is_bundled`, read for its UI only).
        // `description` and `timeout`: what `goose configure` asks for when it adds an
        // extension (shown in its UI; the seconds a tool call may take, 300 when absent:
        // `DEFAULT_EXTENSION_TIMEOUT`); the client's settings of the entry, not how the server
        // is started, so they stay the user's (issue 45, class 4).
        ClientManaged {
            keys: &["enabled", "bundled", "description", "timeout"],
            source: "https://github.com/block/goose/blob/main/crates/goose/src/config/extensions.rs; crates/goose/src/agents/extension.rs (`ExtensionConfig`: `description` with a serde default, `timeout: Option<u64>`, `bundled: Option<bool>`); crates/goose-cli/src/commands/configure.rs (`configure_extensions_dialog`)",
            checked: "block/goose 0beee6a: `set_extension_enabled` (the extension toggle of `goose configure` and the desktop app)",
        }
    }
    fn off_form(&self) -> Option<OffForm> {
        Some(ENABLED_FALSE)
    }
    /// Goose re-saves the whole `extensions` map through its `ExtensionEntry` serde types,
    /// which skip no field (block/goose `crates/goose/src/agents/extension.rs` d4c86e9,
    /// `crates/goose/src/config/extensions.rs` 1071c82): a stdio entry gains `description: ''`,
    /// `envs: {}`, `env_keys: []`, `timeout: null`, `bundled: null`, `available_tools: []`;
    /// an http one `headers: {}` too (the `null`s and an empty `headers` are every client's
    /// defaults).
    fn defaults(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("description", "\"\""),
            ("timeout", "300"),
            ("envs", "{}"),
            ("env_keys", "[]"),
            ("available_tools", "[]"),
        ]
    }
    fn source(&self) -> &'static str {
        "https://github.com/block/goose crates/goose/src/agents/extension_manager.rs (`substitute_env_vars`, `merge_environments`), crates/goose/src/agents/extension.rs, crates/goose/src/config/extensions.rs"
    }
    fn checked(&self) -> &'static str {
        "goose main (2026-09)"
    }
    fn known_fields(&self) -> &'static [&'static str] {
        &[
            "enabled",
            "type",
            "name",
            "description",
            "display_name",
            "cmd",
            "args",
            "envs",
            "env_keys",
            "timeout",
            "bundled",
            "available_tools",
            "uri",
            "headers",
            "socket",
            "tools",
            "instructions",
            "code",
            "dependencies",
            "version",
        ]
    }
    fn container(&self, _scope: &str, _ctx: &Ctx) -> Vec<String> {
        vec!["extensions".to_string()]
    }
    fn path(&self, scope: &Scope, explicit: Option<&str>, ctx: &Ctx) -> PathBuf {
        let dir = ctx.client_homes.goose_path_root.as_ref();
        super::user_file_under(dir, "config/config.yaml", scope, explicit, ctx)
    }

    fn render(&self, server: &Server) -> Result<Rendered, RenderError> {
        let key: String = server
            .name
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_lowercase();
        if key != server.name {
            return Err(refuse(
                server,
                "name",
                "Goose keys an extension by its name lower-cased and without whitespace, so it would not find the entry under this name (name the server in lower case)",
            ));
        }
        let mut m = Map::new();
        m.insert("enabled".into(), Value::Bool(true));
        let mut env_keys: Vec<String> = Vec::new();
        match &server.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
                ..
            } => {
                if cwd.is_some() {
                    return Err(refuse(
                        server,
                        "cwd",
                        "Goose has no working-directory field (wrap the command)",
                    ));
                }
                m.insert("type".into(), "stdio".into());
                m.insert("name".into(), server.name.clone().into());
                m.insert("description".into(), "".into());
                m.insert("cmd".into(), literal(command, server, "command")?.into());
                let mut out = Vec::new();
                for a in args {
                    out.push(literal(a, server, "args")?);
                }
                m.insert("args".into(), strings(out));
                let mut envs = Map::new();
                for (k, t) in env {
                    let field = format!("env.{k}");
                    if DROPPED.iter().any(|d| d.eq_ignore_ascii_case(k)) {
                        return Err(refuse(
                            server,
                            &field,
                            "Goose drops this variable from an extension's environment without a word",
                        ));
                    }
                    match (t.as_literal(), t.sole_var()) {
                        (Some(l), _) => {
                            envs.insert(k.clone(), l.into());
                        }
                        (None, Some(v)) if v == k => env_keys.push(k.clone()),
                        _ => {
                            return Err(refuse(
                                server,
                                &field,
                                &format!(
                                    "Goose takes a variable from its environment or secret store only under its own name (`env_keys`), and the value is not exactly `${{{k}}}`"
                                ),
                            ));
                        }
                    }
                }
                m.insert("envs".into(), Value::Object(envs));
            }
            Transport::Remote { url, headers, kind } => {
                if *kind == RemoteKind::Sse {
                    return Err(RenderError {
                        field: "transport".into(),
                        message: format!(
                            "client `goose` no longer runs SSE extensions (only streamable HTTP), so server `{}` cannot be written there",
                            server.name
                        ),
                    });
                }
                m.insert("type".into(), "streamable_http".into());
                m.insert("name".into(), server.name.clone().into());
                m.insert("description".into(), "".into());
                m.insert(
                    "uri".into(),
                    substituted(url, server, "url", &mut env_keys)?.into(),
                );
                let mut h = Map::new();
                for (k, t) in headers {
                    let field = format!("headers.{k}");
                    h.insert(
                        k.clone(),
                        substituted(t, server, &field, &mut env_keys)?.into(),
                    );
                }
                if !h.is_empty() {
                    m.insert("headers".into(), Value::Object(h));
                }
            }
        }
        if !env_keys.is_empty() {
            m.insert("env_keys".into(), strings(env_keys));
        }
        m.insert("timeout".into(), 300.into());
        if let Some(tools) = &server.tools {
            m.insert("available_tools".into(), strings(tools.clone()));
        }
        Ok(Rendered {
            value: Value::Object(m),
            notes: Vec::new(),
        })
    }
}

/// Why a Goose extension that is not `stdio` or `streamable_http` is not imported, truthfully
/// for its type: an `sse` extension is an MCP server Goose no longer starts (its
/// `extensions::get_warnings` says "SSE is unsupported, migrate to streamable_http"); the
/// others (`builtin`, `platform`, `frontend`, `inline_python`) are Goose's own, not MCP server
/// entries.
fn not_a_server_why(name: &str, ty: &str) -> String {
    match ty {
        "sse" => format!(
            "server `{name}` is skipped: it is a Goose `sse` extension, which Goose no longer starts (it reports SSE as unsupported); if the server also speaks streamable HTTP, change the entry to `type: streamable_http` and import again"
        ),
        "" => format!("server `{name}` is skipped: its Goose extension has no `type`"),
        _ => format!(
            "server `{name}` is skipped: it is a Goose `{ty}` extension (Goose's own), not an MCP server entry"
        ),
    }
}

/// [`Dialect::common_entry`] of a Goose extension.
fn common_goose(e: &Map<String, Value>) -> Map<String, Value> {
    let mut out = e.clone();
    out.remove("type");
    for (from, to) in [
        ("cmd", "command"),
        ("envs", "env"),
        ("uri", "url"),
        ("available_tools", "tools"),
    ] {
        if let Some(v) = out.remove(from) {
            out.insert(to.to_string(), v);
        }
    }
    if let Some(Value::Array(keys)) = out.remove("env_keys") {
        let headers = out.contains_key("url");
        let env = out
            .entry("env")
            .or_insert_with(|| Value::Object(Map::new()));
        for k in keys.iter().filter_map(Value::as_str) {
            let used_in_header = headers
                && e.get("headers")
                    .and_then(Value::as_object)
                    .is_some_and(|h| {
                        h.values()
                            .any(|v| v.as_str().is_some_and(|v| v.contains(k)))
                    });
            if let (Some(m), false) = (env.as_object_mut(), used_in_header) {
                m.insert(k.to_string(), Value::String(format!("${{{k}}}")));
            }
        }
        if env.as_object().is_some_and(Map::is_empty) {
            out.remove("env");
        }
    }
    out
}
