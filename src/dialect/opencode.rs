//! `opencode`: project `opencode.json` (at `--root`) and user
//! `~/.config/opencode/opencode.json`; JSON with comments; servers under `mcp`. A local server
//! is `{"type": "local", "command": [command, ...args], "environment": {…}}`, a remote one
//! `{"type": "remote", "url", "headers"}`; nothing else is written (opencode validates entries
//! strictly). A local server's `cwd` is written only for a target that declares
//! `client_version` 1.17.4 or later (the release that added it; older ones reject the file),
//! and refused otherwise. References spelled `{env:VAR}`; opencode substitutes
//! `{env:…}` and `{file:…}` anywhere in its config and has no escape, so a literal holding one
//! is refused.
//!
//! Kilo Code (`kilo`) is a fork of opencode and reads the same shape; [`Opencode`] describes
//! both.

use serde_json::{Map, Value};

use super::{
    BASE, Base, ClientManaged, Ctx, Dialect, ENABLED_FALSE, Gate, Hazard, McpServers, OffForm,
    PinSupport, RenderError, Rendered, Scope, Slot, Syntax, pin_note,
};
use crate::manifest::version_at_least;
use crate::server::{Server, Transport};

/// An opencode-shaped client.
pub struct Opencode {
    /// The spelling rules (id, reference syntax, literal hazard) it shares with the common
    /// shape.
    spell: McpServers,
    description: &'static str,
    scopes: &'static [Scope],
    /// Where the facts were read.
    source: &'static str,
    /// The release they were checked against.
    checked: &'static str,
    /// The scopes whose file the client does not load when it holds a reference, and where
    /// that was found (see [`Dialect::references_unloaded_in`]).
    unloaded: (&'static [&'static str], &'static str),
    /// How it turns a user's server off for one project (`disable`), if it can.
    disable: Option<super::ProjectDisable>,
}

/// opencode.
pub static OPENCODE: Opencode = Opencode {
    spell: McpServers {
        id: "opencode",
        var_syntax: "{env:VAR}",
        hazard: Hazard::Brace,
        client_managed: ClientManaged {
            keys: &["enabled"],
            source: "https://github.com/anomalyco/opencode/blob/dev/packages/app/src/components/settings-v2/connectors.tsx",
            checked: "anomalyco/opencode f2e14f0 (the app's connector switch writes `enabled` into the entry); opencode 1.18.33",
        },
        // Documented (`McpLocal` / `McpRemote`: `timeout` in milliseconds, `oauth` an object
        // or `false`), set by users by hand, and not in the manifest: its unit and meaning
        // differ between clients (Goose's seconds), so mcpconf keeps them as written.
        user_keys: &["timeout", "oauth"],
        off: Some(ENABLED_FALSE),
        // The first release that reads a local server's `cwd` (its config schema is strict,
        // so older ones reject the whole file): written only for a target whose
        // `client_version` is at least this.
        gates: &[Gate {
            since: "1.17.4",
            what: "a local server's `cwd` is written",
            var_places: None,
            pin_field: None,
            cwd: true,
        }],
        ..BASE
    },
    description: "opencode `opencode.json` (`mcp`)",
    scopes: &[
        Scope::new("project", Base::Root, "opencode.json"),
        Scope::new("user", Base::Home, ".config/opencode/opencode.json"),
    ],
    source: "https://github.com/anomalyco/opencode config schema (`McpLocal`, `McpRemote`), docs config.mdx, mcp-servers.mdx",
    checked: "opencode 1.18.33",
    unloaded: (&[], ""),
    // The project's `opencode.json` is deep-merged over the user's config, so an entry of
    // `enabled: false` alone turns the user's server off there.
    disable: Some(super::ProjectDisable {
        form: super::DisableForm::PartialEntry(ENABLED_FALSE),
        source: "https://opencode.ai/docs/config/ (config files are merged, project over global) and https://opencode.ai/docs/mcp-servers/ (`enabled`)",
        checked: "opencode 1.18.33: `opencode mcp list` in the project shows the user's server disabled (tests/it/real_clients/disable.rs)",
        trust: None,
    }),
};

/// Kilo Code (CLI 1.0 and the extension built on it): `kilo.jsonc` files, key `mcp`, opencode's
/// entry shape (kilo.ai/docs/automate/mcp/using-in-kilo-code).
pub static KILO: Opencode = Opencode {
    spell: McpServers {
        id: "kilo",
        var_syntax: "{env:VAR}",
        hazard: Hazard::Brace,
        client_managed: ClientManaged {
            keys: &["enabled"],
            source: "https://kilo.ai/docs/automate/mcp/using-in-kilo-code",
            checked: "Kilo Code docs (Kilo-Org/kilocode 0001496): the settings switch and the CLI's `/mcps` write `enabled`; approvals go to the top-level `permission`, outside the entry",
        },
        // opencode's shape, the same documented settings (`timeout`, `oauth`) kept as written.
        user_keys: &["timeout", "oauth"],
        off: Some(ENABLED_FALSE),
        // Kilo loads `kilo.jsonc`, `kilo.json`, `opencode.jsonc` and `opencode.json` from the
        // project root and from its `.kilo`, `.kilocode` and `.opencode` directories
        // (Kilo-Org/kilocode `packages/opencode/src/config/config.ts`), so opencode's project
        // file is read too: a server written to both shows twice.
        also_reads: &[("opencode", "project")],
        ..BASE
    },
    description: "Kilo Code `kilo.jsonc` (`mcp`, opencode's shape)",
    scopes: &[
        Scope::new("project", Base::Root, ".kilo/kilo.jsonc"),
        Scope::new("user", Base::Home, ".config/kilo/kilo.jsonc"),
    ],
    source: "https://github.com/Kilo-Org/kilocode/blob/main/packages/opencode/src/config/config.ts (`McpLocal`, `McpRemote`, the files loaded), `config/paths.ts`; https://kilo.ai/docs/automate/mcp/using-in-kilo-code",
    checked: "Kilo-Org/kilocode 002186d (config.ts), 3eba2fa (paths.ts); docs 2026-12-05",
    unloaded: (
        &["project"],
        "Kilo CLI 7.7.9 lists no server at all from a project `.kilo/kilo.jsonc` that holds a `{env:…}` reference, while it loads the same entries from the user file (checked with the real CLI: tests/it/real_clients/kilo.rs)",
    ),
    disable: None,
};

impl Dialect for Opencode {
    fn id(&self) -> &'static str {
        self.spell.id
    }
    fn references_unloaded_in(&self) -> (&'static [&'static str], &'static str) {
        self.unloaded
    }
    fn project_disable(&self) -> Option<super::ProjectDisable> {
        self.disable
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
    fn source(&self) -> &'static str {
        self.source
    }
    fn gates(&self) -> &'static [Gate] {
        self.spell.gates
    }
    fn checked(&self) -> &'static str {
        self.checked
    }
    fn pin_support(&self) -> PinSupport {
        PinSupport::None
    }
    fn also_reads(&self) -> &'static [(&'static str, &'static str)] {
        self.spell.also_reads
    }
    fn client_managed(&self) -> ClientManaged {
        self.spell.client_managed
    }
    fn off_form(&self) -> Option<OffForm> {
        self.spell.off
    }
    fn user_keys(&self) -> &'static [&'static str] {
        self.spell.user_keys
    }
    fn known_fields(&self) -> &'static [&'static str] {
        &[
            "type",
            "command",
            "cwd",
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
        self.render_for(server, None)
    }

    fn render_for(
        &self,
        server: &Server,
        client_version: Option<&str>,
    ) -> Result<Rendered, RenderError> {
        let spell = &self.spell;
        let id = spell.id;
        let mut m = Map::new();
        match &server.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
                ..
            } => {
                let cwd_since = self.spell.gates.iter().find(|g| g.cwd).map(|g| g.since);
                let cwd_ok = matches!(
                    (cwd_since, client_version),
                    (Some(since), Some(v)) if version_at_least(v, since)
                );
                if cwd.is_some() && !cwd_ok {
                    let how = match cwd_since {
                        Some(since) => format!(
                            "{id} reads `cwd` from {since} on and older releases reject the whole file, so declare `client_version = \"{since}\"` (or your newer version) on the target to write it"
                        ),
                        None => format!(
                            "client `{id}` has no working-directory field (it rejects unknown fields)"
                        ),
                    };
                    return Err(RenderError {
                        field: "cwd".into(),
                        message: format!(
                            "server `{}` cannot be written with its `cwd` for client `{id}`: {how}",
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
                if let Some(cwd) = cwd {
                    m.insert(
                        "cwd".into(),
                        spell.spell(cwd, server, "cwd", Slot::Plain)?.into(),
                    );
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{KILO, OPENCODE};
    use crate::dialect::Dialect;
    use crate::manifest;

    #[test]
    fn cwd_is_written_only_for_a_declared_version_that_reads_it() {
        let m = manifest::parse(
            "owner = \"o\"\n[servers.s]\ncommand = \"c\"\nargs = [\"a\"]\ncwd = \"tools/srv\"\n[[targets]]\nclient = \"opencode\"\n",
            &crate::known::Known,
        )
        .unwrap();
        let s = &m.servers[0];
        assert_eq!(
            OPENCODE.render_for(s, Some("1.17.4")).unwrap().value,
            json!({"type": "local", "command": ["c", "a"], "cwd": "tools/srv"})
        );
        for v in [None, Some("1.17.3"), Some("1.9")] {
            let e = OPENCODE.render_for(s, v).unwrap_err();
            assert_eq!(e.field, "cwd");
            assert!(
                e.message.contains("client_version = \"1.17.4\""),
                "{}",
                e.message
            );
        }
        assert_eq!(OPENCODE.render(s).unwrap_err().field, "cwd");
        // Kilo Code documents no `cwd`: refused whatever the version.
        assert_eq!(KILO.render_for(s, Some("99")).unwrap_err().field, "cwd");
    }
}
