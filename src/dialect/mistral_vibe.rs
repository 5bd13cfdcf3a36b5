//! `mistral-vibe`: Mistral Vibe's `config.toml`, project `.vibe/config.toml` (read in trusted
//! folders) and user `$VIBE_HOME/config.toml` (default `~/.vibe/config.toml`, on every OS). Servers are a TOML **array of tables** `[[mcp_servers]]`, each identified by its
//! `name` (a keyed list, see [`crate::keyed`]): mcpconf adds, updates and removes only the
//! tables whose `name` it wrote, and keeps every other table and byte.
//!
//! Vibe (mistralai/mistral-vibe `vibe/core/config/models.py`) reads stdio servers as
//! `{name, transport = "stdio", command, args, env, cwd}` and remote ones as
//! `{name, transport = "streamable-http", url, headers, api_key_env, api_key_header,
//! api_key_format}`; it has no SSE transport (`http` and `streamable-http` both speak
//! streamable HTTP). It expands no references anywhere, so:
//! - one header holding one `${VAR}` becomes `api_key_env = "VAR"` with `api_key_header` and
//!   `api_key_format` (the text around the reference, `{token}` standing for it);
//! - any other reference is refused.
//!
//! A string `command` is split with `shlex.split`, so a command that shell syntax would split
//! or unquote is written as a one-element list instead. A name Vibe would normalise (anything
//! but `[A-Za-z0-9_-]`, or a leading or trailing `_`/`-`) is refused: Vibe would list the
//! server under another name. Tool pins cannot be enforced (Vibe has only `disabled_tools`).

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::{Base, Ctx, Dialect, PinSupport, RenderError, Rendered, Scope, Syntax, pin_note};
use crate::server::{RemoteKind, Server, Transport};
use crate::template::{Part, Template};

/// Mistral Vibe.
pub struct MistralVibe;

/// The one Mistral Vibe dialect.
pub static MISTRAL_VIBE: MistralVibe = MistralVibe;

static SCOPES: &[Scope] = &[
    Scope::new("project", Base::Root, ".vibe/config.toml"),
    Scope::new("user", Base::Home, ".vibe/config.toml"),
];

const ID: &str = "mistral-vibe";

fn refuse(server: &Server, field: &str, why: &str) -> RenderError {
    super::refusal(ID, server, field, why)
}

fn literal(t: &Template, server: &Server, field: &str) -> Result<String, RenderError> {
    super::literal_or_refuse(
        ID,
        t,
        server,
        field,
        "Mistral Vibe expands no environment references",
    )
}

/// Whether `shlex.split(s) == [s]`: no whitespace, quote, backslash or other character that
/// POSIX shell syntax treats specially.
fn shlex_plain(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:@%+=,~#".contains(&b))
}

/// Whether Vibe keeps the name as it is (`normalize_name` in its config model).
fn vibe_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 256
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && !name.starts_with(['_', '-'])
        && !name.ends_with(['_', '-'])
}

/// The name Vibe files a server under (`normalize_name`): every character but A-Z, a-z, 0-9,
/// `_` and `-` becomes `_`, then leading and trailing `_`/`-` are stripped, then the first 256
/// characters are kept.
fn normalized_name(name: &str) -> String {
    let n: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    n.trim_matches(['_', '-']).chars().take(256).collect()
}

/// Python `str.format` text standing for itself: braces doubled.
fn format_literal(s: &str) -> String {
    s.replace('{', "{{").replace('}', "}}")
}

impl Dialect for MistralVibe {
    fn id(&self) -> &'static str {
        ID
    }
    fn description(&self) -> &'static str {
        "Mistral Vibe `config.toml` (`[[mcp_servers]]` by `name`)"
    }
    fn scopes(&self) -> &'static [Scope] {
        SCOPES
    }
    fn syntax(&self) -> Syntax {
        Syntax::Toml
    }
    fn placeholder(&self) -> String {
        "none: one header as `api_key_env`".to_string()
    }
    fn pin_support(&self) -> PinSupport {
        PinSupport::None
    }
    fn known_fields(&self) -> &'static [&'static str] {
        &[
            "transport",
            "command",
            "args",
            "env",
            "cwd",
            "url",
            "headers",
            "api_key_env",
            "api_key_header",
            "api_key_format",
            "auth",
            "prompt",
            "startup_timeout_sec",
            "tool_timeout_sec",
            "sampling_enabled",
            "disabled",
            "disabled_tools",
        ]
    }
    fn container(&self, _scope: &str, _ctx: &Ctx) -> Vec<String> {
        vec!["mcp_servers[name]".to_string()]
    }
    fn refuse_file(&self, bytes: &[u8]) -> Option<crate::diag::ReadError> {
        let text = std::str::from_utf8(bytes).ok()?;
        let (line, column, what) = crate::toml10::first_violation(text)?;
        Some(crate::diag::ReadError {
            code: crate::diag::Code::ParseError,
            message: format!(
                "invalid TOML 1.0: {what} is TOML 1.1 syntax, and Vibe reads TOML 1.0 (Python's `tomllib`)"
            ),
            line,
            column,
        })
    }
    fn name_key(&self, name: &str) -> Option<String> {
        Some(normalized_name(name))
    }
    fn source(&self) -> &'static str {
        "https://github.com/mistralai/mistral-vibe vibe/core/config/models.py (`MCPServer`, `normalize_name`), vibe/core/config/_settings.py (`tomllib`, `_validate_mcp_server_uniqueness`)"
    }
    fn checked(&self) -> &'static str {
        "mistral-vibe ac8f1a0 (2026-07-01)"
    }
    fn path(&self, scope: &Scope, explicit: Option<&str>, ctx: &Ctx) -> PathBuf {
        let dir = ctx.client_homes.vibe_home.as_ref();
        super::user_file_under(dir, "config.toml", scope, explicit, ctx)
    }

    fn render(&self, server: &Server) -> Result<Rendered, RenderError> {
        if !vibe_name(&server.name) {
            return Err(refuse(
                server,
                "name",
                "Mistral Vibe renames a server whose name has characters other than A-Z, a-z, 0-9, `_` and `-` (or starts or ends with `_` or `-`), so it would not be found under this name",
            ));
        }
        let mut m = Map::new();
        match &server.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
                ..
            } => {
                m.insert("transport".into(), "stdio".into());
                let c = literal(command, server, "command")?;
                let c = if shlex_plain(&c) {
                    Value::String(c)
                } else {
                    Value::Array(vec![Value::String(c)])
                };
                m.insert("command".into(), c);
                if !args.is_empty() {
                    let mut out = Vec::new();
                    for a in args {
                        out.push(Value::String(literal(a, server, "args")?));
                    }
                    m.insert("args".into(), Value::Array(out));
                }
                if !env.is_empty() {
                    let mut out = Map::new();
                    for (k, t) in env {
                        out.insert(k.clone(), literal(t, server, &format!("env.{k}"))?.into());
                    }
                    m.insert("env".into(), Value::Object(out));
                }
                if let Some(cwd) = cwd {
                    m.insert("cwd".into(), literal(cwd, server, "cwd")?.into());
                }
            }
            Transport::Remote { url, headers, kind } => {
                if *kind == RemoteKind::Sse {
                    return Err(RenderError {
                        field: "transport".into(),
                        message: format!(
                            "client `{ID}` has no SSE transport, so server `{}` cannot be written there",
                            server.name
                        ),
                    });
                }
                m.insert("transport".into(), "streamable-http".into());
                m.insert("url".into(), literal(url, server, "url")?.into());
                let mut lit = Map::new();
                let mut key = None;
                for (k, t) in headers {
                    if let Some(l) = t.as_literal() {
                        lit.insert(k.clone(), l.into());
                        continue;
                    }
                    let (prefix, var, suffix) = match t.parts.as_slice() {
                        [Part::Var(v)] => ("", v, ""),
                        [Part::Lit(p), Part::Var(v)] => (p.as_str(), v, ""),
                        [Part::Var(v), Part::Lit(s)] => ("", v, s.as_str()),
                        [Part::Lit(p), Part::Var(v), Part::Lit(s)] => (p.as_str(), v, s.as_str()),
                        _ => {
                            return Err(refuse(
                                server,
                                &format!("headers.{k}"),
                                "Mistral Vibe reads one header from one environment variable (`api_key_env`), and this value holds several references",
                            ));
                        }
                    };
                    if key.is_some() {
                        return Err(refuse(
                            server,
                            &format!("headers.{k}"),
                            "Mistral Vibe reads only one header from the environment (`api_key_env`), and another header already does",
                        ));
                    }
                    key = Some((
                        k.clone(),
                        var.clone(),
                        format!(
                            "{}{{token}}{}",
                            format_literal(prefix),
                            format_literal(suffix)
                        ),
                    ));
                }
                if !lit.is_empty() {
                    m.insert("headers".into(), Value::Object(lit));
                }
                if let Some((header, var, format)) = key {
                    m.insert("api_key_env".into(), var.into());
                    m.insert("api_key_header".into(), header.into());
                    m.insert("api_key_format".into(), format.into());
                }
            }
        }
        let mut notes = Vec::new();
        if server.tools.is_some() {
            notes.push(pin_note(ID, &server.name));
        }
        Ok(Rendered {
            value: Value::Object(m),
            notes,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::MISTRAL_VIBE;
    use crate::dialect::Dialect;
    use crate::manifest;

    fn render(name: &str, server: &str) -> Result<serde_json::Value, String> {
        let m = manifest::parse(
            &format!(
                "owner = \"o\"\n[servers.\"{name}\"]\n{server}\n[[targets]]\nclient = \"mistral-vibe\"\n"
            ),
            &crate::known::Known,
        )
        .unwrap();
        MISTRAL_VIBE
            .render(&m.servers[0])
            .map(|r| r.value)
            .map_err(|e| e.field)
    }

    #[test]
    fn entries_as_vibe_reads_them() {
        assert_eq!(
            render(
                "fetch",
                "command = \"uvx\"\nargs = [\"mcp-server-fetch\"]\nenv = { DEBUG = \"1\" }\ncwd = \"/w\""
            ),
            Ok(
                json!({"transport": "stdio", "command": "uvx", "args": ["mcp-server-fetch"],
                      "env": {"DEBUG": "1"}, "cwd": "/w"})
            )
        );
        // shlex.split would cut this at the space: a one-element list is taken whole.
        assert_eq!(
            render("s", "command = \"/opt/my tools/srv\""),
            Ok(json!({"transport": "stdio", "command": ["/opt/my tools/srv"]}))
        );
        assert_eq!(
            render(
                "web",
                "url = \"https://x/mcp\"\nheaders = { Authorization = \"Bearer ${T}\", X-A = \"b\" }"
            ),
            Ok(
                json!({"transport": "streamable-http", "url": "https://x/mcp",
                      "headers": {"X-A": "b"}, "api_key_env": "T",
                      "api_key_header": "Authorization", "api_key_format": "Bearer {token}"})
            )
        );
        assert_eq!(
            render(
                "web",
                "url = \"https://x/mcp\"\nheaders = { X-Key = \"{${K}}\" }"
            ),
            Ok(
                json!({"transport": "streamable-http", "url": "https://x/mcp",
                      "api_key_env": "K", "api_key_header": "X-Key",
                      "api_key_format": "{{{token}}}"})
            )
        );
    }

    #[test]
    fn the_user_file_follows_vibe_home() {
        use crate::dialect::{Ctx, Dialect};
        use std::path::PathBuf;
        let mut ctx = Ctx {
            root: PathBuf::from("/r"),
            home: PathBuf::from("/h"),
            client_homes: Default::default(),
            xdg_config_home: None,
            project: None,
        };
        let user = MISTRAL_VIBE.scope("user").unwrap();
        let project = MISTRAL_VIBE.scope("project").unwrap();
        assert_eq!(
            MISTRAL_VIBE.path(user, None, &ctx),
            PathBuf::from("/h/.vibe/config.toml")
        );
        ctx.client_homes.vibe_home = Some(PathBuf::from("/v"));
        assert_eq!(
            MISTRAL_VIBE.path(user, None, &ctx),
            PathBuf::from("/v/config.toml")
        );
        assert_eq!(
            MISTRAL_VIBE.path(user, Some("x.toml"), &ctx),
            PathBuf::from("/h/x.toml")
        );
        assert_eq!(
            MISTRAL_VIBE.path(project, None, &ctx),
            PathBuf::from("/r/.vibe/config.toml")
        );
    }

    #[test]
    fn refusals_name_the_field() {
        for (name, server, field) in [
            ("s", "command = \"c\"\nenv = { K = \"${K}\" }", "env.K"),
            ("s", "command = \"${C}\"", "command"),
            ("s", "command = \"c\"\nargs = [\"${A}\"]", "args"),
            ("s", "url = \"https://x/${P}\"", "url"),
            ("s", "url = \"https://x\"\ntransport = \"sse\"", "transport"),
            (
                "s",
                "url = \"https://x\"\nheaders = { A = \"${A}\", B = \"${B}\" }",
                "headers.B",
            ),
            (
                "s",
                "url = \"https://x\"\nheaders = { A = \"${A}${B}\" }",
                "headers.A",
            ),
            ("my.server", "command = \"c\"", "name"),
            ("s-", "command = \"c\"", "name"),
        ] {
            assert_eq!(render(name, server), Err(field.to_string()), "{server}");
        }
    }
}
