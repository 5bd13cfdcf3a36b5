//! `codex`: OpenAI Codex CLI `config.toml`: user `$CODEX_HOME/config.toml` (default
//! `~/.codex/config.toml`; the default scope, the file `codex mcp add` writes) and project
//! `.codex/config.toml` (honoured only in trusted projects). Entries are
//! `[mcp_servers.<name>]` tables.
//!
//! Codex expands no `${VAR}`. A reference becomes Codex's own mechanism or is refused:
//! - env `K = "${K}"` (same name) → `env_vars = ["K"]` (passed through from Codex's
//!   environment); a different name cannot be expressed;
//! - header `Authorization = "Bearer ${T}"` → `bearer_token_env_var = "T"`;
//! - any other header that is exactly `${V}` → `env_http_headers = { Header = "V" }`;
//! - references in `command`, `args`, `cwd` or `url` are refused.
//!
//! A tool pin is written as `enabled_tools`. Codex has no SSE transport.

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::{
    Base, ClientManaged, Ctx, Dialect, ENABLED_FALSE, OffForm, PinSupport, RenderError, Rendered,
    Scope, Syntax,
};
use crate::server::{RemoteKind, Server, Transport};
use crate::template::{Part, Template};

/// Codex.
pub struct Codex;

/// The one Codex dialect.
pub static CODEX: Codex = Codex;

static SCOPES: &[Scope] = &[
    Scope::new("user", Base::Home, ".codex/config.toml"),
    Scope::new("project", Base::Root, ".codex/config.toml"),
];

fn refuse(server: &Server, field: &str, why: &str) -> RenderError {
    super::refusal("codex", server, field, why)
}

fn literal(t: &Template, server: &Server, field: &str) -> Result<String, RenderError> {
    super::literal_or_refuse(
        "codex",
        t,
        server,
        field,
        "Codex expands no environment references there",
    )
}

impl Dialect for Codex {
    fn id(&self) -> &'static str {
        "codex"
    }
    fn description(&self) -> &'static str {
        "OpenAI Codex CLI `config.toml` (`[mcp_servers.*]`)"
    }
    fn scopes(&self) -> &'static [Scope] {
        SCOPES
    }
    fn syntax(&self) -> Syntax {
        Syntax::Toml
    }
    fn placeholder(&self) -> String {
        "none: `env_vars`, `bearer_token_env_var`, `env_http_headers`".to_string()
    }
    fn source(&self) -> &'static str {
        "https://github.com/openai/codex codex-rs MCP config types (`mcp_types.rs`)"
    }
    fn checked(&self) -> &'static str {
        "Codex 0.171.0"
    }
    fn pin_support(&self) -> PinSupport {
        PinSupport::Field("enabled_tools")
    }
    fn client_managed(&self) -> ClientManaged {
        ClientManaged {
            // `[mcp_servers.<name>.tools.<tool>] approval_mode = "approve"`: "always allow".
            keys: &["tools"],
            source: "https://github.com/openai/codex/pull/23778",
            checked: "Codex CLI 0.171.0: a persistent \"always allow\" writes a per-tool `approval_mode = \"approve\"` under `tools`; `codex mcp` has no enable/disable command",
        }
    }
    fn off_form(&self) -> Option<OffForm> {
        Some(ENABLED_FALSE)
    }
    fn project_disable(&self) -> Option<super::ProjectDisable> {
        // The project layer's `[mcp_servers.NAME]` is merged over the user's key by key, so
        // `enabled = false` alone turns the user's server off; Codex reads the project's
        // `.codex/config.toml` only for a project the user trusted.
        Some(super::ProjectDisable {
            form: super::DisableForm::PartialEntry(ENABLED_FALSE),
            source: "https://github.com/openai/codex/blob/main/docs/config.md (project `.codex/config.toml` layers, trusted projects)",
            checked: "Codex CLI 0.171.0: `codex mcp list` in a trusted project shows the user's server disabled, outside it enabled (tests/it/real_clients/disable.rs)",
            trust: Some(("trust_level", "trusted")),
        })
    }
    fn known_fields(&self) -> &'static [&'static str] {
        &[
            "command",
            "args",
            "env",
            "env_vars",
            "cwd",
            "url",
            "bearer_token_env_var",
            "http_headers",
            "env_http_headers",
            "enabled",
            "required",
            "supports_parallel_tool_calls",
            "startup_timeout_sec",
            "startup_timeout_ms",
            "tool_timeout_sec",
            "enabled_tools",
            "disabled_tools",
            "default_tools_approval_mode",
            "tools",
            "scopes",
            "oauth",
            "oauth_resource",
            "experimental_environment",
            "name",
        ]
    }
    fn container(&self, _scope: &str, _ctx: &Ctx) -> Vec<String> {
        vec!["mcp_servers".to_string()]
    }
    fn path(&self, scope: &Scope, explicit: Option<&str>, ctx: &Ctx) -> PathBuf {
        let dir = ctx.client_homes.codex_home.as_ref();
        super::user_file_under(dir, "config.toml", scope, explicit, ctx)
    }

    fn render(&self, server: &Server) -> Result<Rendered, RenderError> {
        let mut m = Map::new();
        match &server.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
                ..
            } => {
                m.insert(
                    "command".into(),
                    literal(command, server, "command")?.into(),
                );
                if !args.is_empty() {
                    let mut out = Vec::new();
                    for a in args {
                        out.push(Value::String(literal(a, server, "args")?));
                    }
                    m.insert("args".into(), Value::Array(out));
                }
                let mut lit = Map::new();
                let mut pass = Vec::new();
                for (k, t) in env {
                    match (t.as_literal(), t.sole_var()) {
                        (Some(l), _) => {
                            lit.insert(k.clone(), l.into());
                        }
                        (None, Some(v)) if v == k => pass.push(Value::String(k.clone())),
                        _ => {
                            return Err(refuse(
                                server,
                                &format!("env.{k}"),
                                &format!(
                                    "Codex passes a variable through only under its own name (`env_vars`), and the value is not exactly `${{{k}}}`"
                                ),
                            ));
                        }
                    }
                }
                if !lit.is_empty() {
                    m.insert("env".into(), Value::Object(lit));
                }
                if !pass.is_empty() {
                    m.insert("env_vars".into(), Value::Array(pass));
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
                            "client `codex` has no SSE transport, so server `{}` cannot be written there",
                            server.name
                        ),
                    });
                }
                m.insert("url".into(), literal(url, server, "url")?.into());
                let mut bearer = None;
                let mut lit = Map::new();
                let mut env_headers = Map::new();
                for (k, t) in headers {
                    if let Some(l) = t.as_literal() {
                        lit.insert(k.clone(), l.into());
                        continue;
                    }
                    match t.parts.as_slice() {
                        [Part::Lit(p), Part::Var(v)]
                            if k.eq_ignore_ascii_case("authorization")
                                && p == "Bearer "
                                && bearer.is_none() =>
                        {
                            bearer = Some(v.clone());
                        }
                        [Part::Var(v)] => {
                            env_headers.insert(k.clone(), Value::String(v.clone()));
                        }
                        _ => {
                            return Err(refuse(
                                server,
                                &format!("headers.{k}"),
                                "Codex reads a header from the environment only whole (`env_http_headers`) or as `Authorization: Bearer ${VAR}` (`bearer_token_env_var`), and the value is neither",
                            ));
                        }
                    }
                }
                if let Some(b) = bearer {
                    m.insert("bearer_token_env_var".into(), b.into());
                }
                if !lit.is_empty() {
                    m.insert("http_headers".into(), Value::Object(lit));
                }
                if !env_headers.is_empty() {
                    m.insert("env_http_headers".into(), Value::Object(env_headers));
                }
            }
        }
        if let Some(tools) = &server.tools {
            m.insert(
                "enabled_tools".into(),
                Value::Array(tools.iter().map(|t| Value::String(t.clone())).collect()),
            );
        }
        Ok(Rendered {
            value: Value::Object(m),
            notes: Vec::new(),
        })
    }
}
