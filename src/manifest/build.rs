//! A manifest built in code: the embedder's way to a [`Manifest`] without writing a file.
//!
//! [`ManifestBuilder::build`] writes what it was given as manifest TOML
//! ([`ManifestBuilder::to_toml`]) and parses that with [`parse`], so a built manifest passes
//! exactly the checks of a manifest file and fails with exactly its errors (an unknown client,
//! a server name that is not a name, a duplicate). Lines and columns in those errors count in the
//! TOML form; its SHA-256 is the manifest's digest.

use std::fmt::Write;

use super::{
    LintSettings, Manifest, ManifestError, RemoteKind, Server, Target, Transport, Vocabulary, parse,
};
use crate::template::Template;

/// Builds a validated [`Manifest`]; see [`Manifest::builder`].
///
/// ```
/// use mcpconf::known::Known;
/// use mcpconf::manifest::{Manifest, Server, Target, Transport};
/// use mcpconf::template::Template;
///
/// let browser = Server {
///     name: "browser".into(),
///     transport: Transport::Stdio {
///         command: Template::literal("agent-browser"),
///         args: vec![Template::literal("mcp")],
///         env: vec![("TOKEN".into(), Template::parse("${BROWSER_TOKEN}").unwrap())],
///         cwd: None,
///         env_file: None,
///     },
///     tools: None,
///     enabled: None,
///     checks: Default::default(),
/// };
/// let m = Manifest::builder("openab")
///     .server(browser.clone())
///     .target(Target::new("cursor"))
///     .build(&Known)
///     .unwrap();
/// assert_eq!(m.servers, vec![browser]);
///
/// // The same checks as a manifest file, with the same errors.
/// let e = Manifest::builder("openab")
///     .server(Server { name: "bad\u{1}name".into(), ..m.servers[0].clone() })
///     .target(Target::new("cursr"))
///     .build(&Known)
///     .unwrap_err();
/// assert!(e.message.starts_with("server name ") && e.message.contains("is not valid"), "{e}");
/// ```
#[derive(Debug, Clone)]
pub struct ManifestBuilder {
    owner: String,
    servers: Vec<Server>,
    targets: Vec<Target>,
    legacy: Vec<super::Legacy>,
    lint: LintSettings,
}

impl Manifest {
    /// A builder for the manifest of `owner`; see [`ManifestBuilder`].
    pub fn builder(owner: impl Into<String>) -> ManifestBuilder {
        ManifestBuilder {
            owner: owner.into(),
            servers: Vec::new(),
            targets: Vec::new(),
            legacy: Vec::new(),
            lint: LintSettings::default(),
        }
    }
}

impl Target {
    /// A target for `client` at its default scope and path, every server, created when
    /// missing.
    pub fn new(client: impl Into<String>) -> Target {
        Target {
            client: client.into(),
            scope: None,
            path: None,
            servers: None,
            create: true,
            auto_approve: false,
            client_version: None,
            enabled: None,
            exclude: Vec::new(),
            disable: Vec::new(),
            at: (1, 1),
        }
    }
}

impl ManifestBuilder {
    /// Add a server (declaration order is kept).
    pub fn server(mut self, server: Server) -> Self {
        self.servers.push(server);
        self
    }
    /// Add a target (its `at` is ignored: the built manifest says where it is).
    pub fn target(mut self, target: Target) -> Self {
        self.targets.push(target);
        self
    }
    /// Add a legacy shape.
    pub fn legacy(mut self, legacy: super::Legacy) -> Self {
        self.legacy.push(legacy);
        self
    }
    /// Set the `[lint]` table.
    pub fn lint(mut self, lint: LintSettings) -> Self {
        self.lint = lint;
        self
    }

    /// The manifest as TOML, exactly what [`ManifestBuilder::build`] parses. Fails only for a
    /// legacy entry TOML cannot hold (a JSON `null`).
    pub fn to_toml(&self) -> Result<String, ManifestError> {
        let mut out = String::new();
        let _ = writeln!(out, "owner = {}", string(&self.owner));
        for s in &self.servers {
            let _ = writeln!(out, "\n[servers.{}]", string(&s.name));
            match &s.transport {
                Transport::Stdio {
                    command,
                    args,
                    env,
                    cwd,
                    env_file,
                } => {
                    let _ = writeln!(out, "command = {}", template(command));
                    if !args.is_empty() {
                        let list: Vec<String> = args.iter().map(template).collect();
                        let _ = writeln!(out, "args = [{}]", list.join(", "));
                    }
                    if !env.is_empty() {
                        let _ = writeln!(out, "env = {}", template_map(env));
                    }
                    if let Some(c) = cwd {
                        let _ = writeln!(out, "cwd = {}", template(c));
                    }
                    if let Some(f) = env_file {
                        let _ = writeln!(out, "env_file = {}", template(f));
                    }
                }
                Transport::Remote { url, headers, kind } => {
                    let _ = writeln!(out, "url = {}", template(url));
                    if !headers.is_empty() {
                        let _ = writeln!(out, "headers = {}", template_map(headers));
                    }
                    if *kind == RemoteKind::Sse {
                        out.push_str("transport = \"sse\"\n");
                    }
                }
            }
            if let Some(tools) = &s.tools {
                let _ = writeln!(out, "tools = {}", strings(tools));
            }
            if let Some(e) = s.enabled {
                let _ = writeln!(out, "enabled = {e}");
            }
            if let Some(d) = &s.checks.tool_digests {
                let pairs: Vec<String> = d
                    .iter()
                    .map(|(k, v)| format!("{} = {}", string(k), string(v)))
                    .collect();
                let _ = writeln!(out, "tool_digests = {{ {} }}", pairs.join(", "));
            }
            if let Some(v) = &s.checks.min_version {
                let _ = writeln!(out, "min_version = {}", string(v));
            }
        }
        for t in &self.targets {
            out.push_str("\n[[targets]]\n");
            let _ = writeln!(out, "client = {}", string(&t.client));
            if let Some(s) = &t.scope {
                let _ = writeln!(out, "scope = {}", string(s));
            }
            if let Some(p) = &t.path {
                let _ = writeln!(out, "path = {}", string(p));
            }
            if let Some(s) = &t.servers {
                let _ = writeln!(out, "servers = {}", strings(s));
            }
            if !t.create {
                out.push_str("create = false\n");
            }
            if t.auto_approve {
                out.push_str("auto_approve = true\n");
            }
            if let Some(v) = &t.client_version {
                let _ = writeln!(out, "client_version = {}", string(v));
            }
            if let Some(e) = t.enabled {
                let _ = writeln!(out, "enabled = {e}");
            }
            if !t.exclude.is_empty() {
                let _ = writeln!(out, "exclude = {}", strings(&t.exclude));
            }
            if !t.disable.is_empty() {
                let _ = writeln!(out, "disable = {}", strings(&t.disable));
            }
        }
        for l in &self.legacy {
            out.push_str("\n[[legacy]]\n");
            let _ = writeln!(out, "name = {}", string(&l.name));
            let entry = json(&l.entry).ok_or_else(|| ManifestError {
                message: format!(
                    "legacy shape `{}`: `entry` holds a JSON null, which a manifest cannot express",
                    l.name
                ),
                line: 1,
                column: 1,
            })?;
            let _ = writeln!(out, "entry = {entry}");
            if !l.grants.is_empty() {
                let _ = writeln!(out, "grants = {}", strings(&l.grants));
            }
        }
        let lint = &self.lint;
        if !(lint.deny.is_empty() && lint.warn.is_empty() && lint.allow.is_empty()) {
            out.push_str("\n[lint]\n");
            for (key, list) in [
                ("deny", &lint.deny),
                ("warn", &lint.warn),
                ("allow", &lint.allow),
            ] {
                if !list.is_empty() {
                    let _ = writeln!(out, "{key} = {}", strings(list));
                }
            }
        }
        Ok(out)
    }

    /// Validate and build: the checks and errors of a manifest file (see the module docs);
    /// clients and lint rules are checked against `names` (usually
    /// [`crate::known::Known`]).
    pub fn build(&self, names: &dyn Vocabulary) -> Result<Manifest, ManifestError> {
        parse(&self.to_toml()?, names)
    }
}

/// A TOML basic string (also a quoted key).
fn string(s: &str) -> String {
    toml_edit::Value::from(s).to_string()
}

fn template(t: &Template) -> String {
    string(&t.raw)
}

fn strings(list: &[String]) -> String {
    let items: Vec<String> = list.iter().map(|s| string(s)).collect();
    format!("[{}]", items.join(", "))
}

/// An inline table; a name given twice stays twice, so the parser refuses it.
fn template_map(map: &[(String, Template)]) -> String {
    let items: Vec<String> = map
        .iter()
        .map(|(k, v)| format!("{} = {}", string(k), template(v)))
        .collect();
    format!("{{ {} }}", items.join(", "))
}

/// A JSON value as a TOML inline value; `None` for a null (TOML has none).
fn json(v: &serde_json::Value) -> Option<String> {
    use serde_json::Value as J;
    Some(match v {
        J::Null => return None,
        J::Bool(b) => b.to_string(),
        J::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(f)) => toml_edit::Value::from(f).to_string(),
            (None, None) => return None,
        },
        J::String(s) => string(s),
        J::Array(a) => format!(
            "[{}]",
            a.iter().map(json).collect::<Option<Vec<_>>>()?.join(", ")
        ),
        J::Object(m) => format!(
            "{{ {} }}",
            m.iter()
                .map(|(k, v)| Some(format!("{} = {}", string(k), json(v)?)))
                .collect::<Option<Vec<_>>>()?
                .join(", ")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::super::Legacy;
    use super::*;
    use crate::known::Known;

    fn stdio(name: &str) -> Server {
        Server {
            name: name.into(),
            transport: Transport::Stdio {
                command: Template::literal("agent-browser"),
                args: vec![
                    Template::literal("mcp"),
                    Template::literal("a \"quoted\" ${x}"),
                ],
                env: vec![(
                    "TOKEN".into(),
                    Template::parse("Bearer ${BROWSER_TOKEN}").unwrap(),
                )],
                cwd: Some(Template::literal("/srv")),
                env_file: None,
            },
            tools: Some(vec!["navigate".into()]),
            enabled: None,
            checks: Default::default(),
        }
    }

    fn remote(name: &str) -> Server {
        Server {
            name: name.into(),
            transport: Transport::Remote {
                url: Template::parse("https://h/${PATH_PART}").unwrap(),
                headers: vec![("Authorization".into(), Template::literal("x\u{7f}y\n"))],
                kind: RemoteKind::Sse,
            },
            tools: None,
            enabled: None,
            checks: Default::default(),
        }
    }

    /// What the builder is given is what the manifest holds: every field survives the TOML
    /// form, including quotes, `${`, control characters and a legacy entry's float.
    #[test]
    fn a_built_manifest_holds_what_it_was_given() {
        let legacy = Legacy {
            name: "old".into(),
            entry: serde_json::json!({"command": "x", "n": 1.5, "i": 2, "a": [true, "s"]}),
            grants: vec!["@old".into()],
        };
        let mut target = Target::new("kiro-agent");
        target.path = Some(".kiro/agents/a.json".into());
        target.servers = Some(vec!["b".into()]);
        target.create = false;
        target.auto_approve = true;
        let lint = LintSettings {
            deny: vec!["drift".into()],
            warn: Vec::new(),
            allow: vec!["unknown-field".into()],
        };
        let m = Manifest::builder("openab")
            .server(stdio("b"))
            .server(remote("r"))
            .target(target.clone())
            .legacy(legacy.clone())
            .lint(lint.clone())
            .build(&Known)
            .unwrap();
        assert_eq!(m.owner, "openab");
        assert_eq!(m.servers, vec![stdio("b"), remote("r")]);
        assert_eq!(m.targets.len(), 1);
        let got = &m.targets[0];
        assert_eq!(
            (
                &got.client,
                &got.path,
                &got.servers,
                got.create,
                got.auto_approve
            ),
            (
                &target.client,
                &target.path,
                &target.servers,
                target.create,
                target.auto_approve
            )
        );
        assert_eq!(m.legacy, vec![legacy]);
        assert_eq!(m.lint, lint);
        assert!(m.digest.starts_with("sha256:"));
    }

    /// The errors are those of the same manifest written as TOML by hand.
    #[test]
    fn a_built_manifest_fails_as_its_toml_does() {
        let cases: Vec<(ManifestBuilder, &str)> = vec![
            (
                Manifest::builder("o")
                    .server(stdio("a"))
                    .target(Target::new("cursr")),
                "owner = \"o\"\n[servers.a]\ncommand = \"x\"\n[[targets]]\nclient = \"cursr\"\n",
            ),
            (
                Manifest::builder("o")
                    .server(stdio("bad\u{7}name"))
                    .target(Target::new("cursor")),
                "owner = \"o\"\n[servers.\"bad\\u0007name\"]\ncommand = \"x\"\n[[targets]]\nclient = \"cursor\"\n",
            ),
            (
                Manifest::builder("O!").server(stdio("a")),
                "owner = \"O!\"\n",
            ),
            (
                Manifest::builder("o").target(Target::new("cursor")),
                "owner = \"o\"\n[[targets]]\nclient = \"cursor\"\n",
            ),
            (
                Manifest::builder("o").server(stdio("a")),
                "owner = \"o\"\n[servers.a]\ncommand = \"x\"\n",
            ),
        ];
        for (b, toml) in cases {
            let built = b.build(&Known).unwrap_err();
            let parsed = parse(toml, &Known).unwrap_err();
            assert_eq!(built.message, parsed.message, "{toml}");
        }
    }

    /// What TOML refuses as a duplicate key, the builder refuses too (never last-one-wins).
    #[test]
    fn duplicates_are_refused() {
        let twice = Manifest::builder("o")
            .server(stdio("a"))
            .server(stdio("a"))
            .target(Target::new("cursor"))
            .build(&Known)
            .unwrap_err();
        assert!(twice.message.contains("duplicate key"), "{}", twice.message);
        let mut s = stdio("a");
        if let Transport::Stdio { env, .. } = &mut s.transport {
            env.push(("TOKEN".into(), Template::literal("again")));
        }
        let e = Manifest::builder("o")
            .server(s)
            .target(Target::new("cursor"))
            .build(&Known)
            .unwrap_err();
        assert!(e.message.contains("duplicate key"), "{}", e.message);
    }

    #[test]
    fn a_null_in_a_legacy_entry_is_refused() {
        let e = Manifest::builder("o")
            .server(stdio("a"))
            .target(Target::new("cursor"))
            .legacy(Legacy {
                name: "old".into(),
                entry: serde_json::json!({"x": null}),
                grants: Vec::new(),
            })
            .build(&Known)
            .unwrap_err();
        assert!(e.message.contains("null"), "{}", e.message);
    }
}
