//! The client facts as one JSON record per client, for `mcpconf clients --format json` and the
//! test that holds docs/clients/ to them. Everything here is read from the dialects (the one
//! table of client facts); nothing is restated.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::{Base, Ctx, Dialect, PinSupport, Places};

/// Where references stand, in words (`all`, `env-and-headers`, `env`, `none`).
pub fn places_name(p: Places) -> &'static str {
    match p {
        Places::All => "all",
        Places::EnvAndHeaders => "env-and-headers",
        Places::Env => "env",
        Places::Nowhere => "none",
    }
}

fn pin(p: PinSupport) -> Value {
    match p {
        PinSupport::None => Value::Null,
        PinSupport::Field(f) => f.into(),
    }
}

/// One client's facts.
pub fn facts_json(d: &dyn Dialect) -> Value {
    let ctx = Ctx {
        root: PathBuf::from("<root>"),
        home: PathBuf::from("~"),
        client_homes: Default::default(),
        xdg_config_home: None,
        project: None,
    };
    let scopes: Vec<Value> = d
        .scopes()
        .iter()
        .map(|s| {
            json!({
                "name": s.name,
                "base": match s.base { Base::Root => "root", Base::Home => "home" },
                "path": s.default_path(),
                "paths": {
                    "linux": s.path,
                    "macos": if s.macos.is_empty() { s.path } else { s.macos },
                },
                "container": d.container(s.name, &ctx),
                "client_lock": d.client_lock(s.name),
            })
        })
        .collect();
    let e = d.expansion();
    let gates: Vec<Value> = d
        .gates()
        .iter()
        .map(|g| {
            json!({
                "since": g.since,
                "what": g.what,
                "references_in": g.var_places.map(places_name),
                "cwd": g.cwd,
                "tool_pin": g.pin_field,
            })
        })
        .collect();
    json!({
        "id": d.id(),
        "description": d.description(),
        "default_scope": d.default_scope().name,
        "scopes": scopes,
        "syntax": d.syntax().describe(),
        "placeholder": d.placeholder(),
        "references": {
            "forms": e.forms.iter().map(|f| f.spelling()).collect::<Vec<_>>(),
            "in": places_name(e.places),
            "file_unloaded_in": d.references_unloaded_in().0,
            "grammar": d.grammar().id(),
            "grammar_expands": d.grammar().describe(),
            "defaults": d.grammar().defaults(),
        },
        "client_lock": d.scopes().iter().filter(|s| d.client_lock(s.name)).map(|s| s.name).collect::<Vec<_>>(),
        "tool_pin": match d.pin_support() { PinSupport::None => "not expressible".to_string(), PinSupport::Field(f) => f.to_string() },
        "tool_pin_latest": pin(d.pin_support_latest()),
        "known_fields": d.known_fields(),
        "version_gates": gates,
        "also_reads": d.also_reads().iter().map(|(c, s)| json!({"client": c, "scope": s})).collect::<Vec<_>>(),
        "client_managed": {
            "keys": d.client_managed().keys,
            "source": d.client_managed().source,
            "checked": d.client_managed().checked,
        },
        "off_form": d.off_form().map(|o| json!({o.key: o.off})),
        "defaults": d.defaults().iter().map(|(k, v)| (k.to_string(), serde_json::from_str::<serde_json::Value>(v).unwrap_or(serde_json::Value::Null))).collect::<serde_json::Map<_, _>>(),
        "builtin_variables": d.builtins(),
        "project_disable": d.project_disable().map(|p| json!({
            "form": p.describe(),
            "trusted_only": p.trust.map(|(k, v)| json!({k: v})),
            "source": p.source,
            "checked": p.checked,
        })),
        "trust_form": d.trust_form().map(|(k, v)| json!({k: serde_json::from_str::<serde_json::Value>(v).unwrap_or(serde_json::Value::Null)})),
        "source": d.source(),
        "checked": d.checked(),
    })
}

/// Where references stand, as a phrase for the docs.
fn places_phrase(p: Places) -> &'static str {
    match p {
        Places::All => "in every string field of an entry",
        Places::EnvAndHeaders => "in env values and header values only",
        Places::Env => "in env values only",
        Places::Nowhere => "nowhere",
    }
}

/// The first line of a client page's generated facts section.
pub const FACTS_BEGIN: &str = "<!-- facts:begin (generated from the client table, `mcpconf clients --format json`; do not edit by hand) -->";
/// Its last line.
pub const FACTS_END: &str = "<!-- facts:end -->";

/// The facts section of a client's page in docs/clients/, from the table: what the test
/// `client_docs` holds each page to.
pub fn facts_markdown(d: &dyn Dialect) -> String {
    use std::fmt::Write;
    let ctx = Ctx {
        root: PathBuf::from("<root>"),
        home: PathBuf::from("~"),
        client_homes: Default::default(),
        xdg_config_home: None,
        project: None,
    };
    let mut s = String::new();
    let _ = writeln!(s, "{FACTS_BEGIN}");
    let _ = writeln!(s, "## Facts\n");
    let _ = writeln!(
        s,
        "| scope | file | file on macOS | container |\n|---|---|---|---|"
    );
    for sc in d.scopes() {
        let base = match sc.base {
            Base::Root => "<root>/",
            Base::Home => "~/",
        };
        let file = |p: &str| {
            if p.is_empty() {
                "explicit `path`".to_string()
            } else {
                format!("`{base}{p}`")
            }
        };
        let macos = if sc.macos.is_empty() {
            "same".to_string()
        } else {
            file(sc.macos)
        };
        let default = if sc.name == d.default_scope().name {
            " (default)"
        } else {
            ""
        };
        let container = d.container(sc.name, &ctx).join(".");
        let _ = writeln!(
            s,
            "| `{}`{default} | {} | {macos} | `{container}` |",
            sc.name,
            file(sc.path)
        );
    }
    let e = d.expansion();
    let forms: Vec<String> = e
        .forms
        .iter()
        .map(|f| format!("`{}`", f.spelling()))
        .collect();
    let _ = writeln!(s);
    let _ = writeln!(s, "- Syntax: {}.", d.syntax().describe());
    let (unloaded, why) = d.references_unloaded_in();
    if !unloaded.is_empty() {
        let scopes: Vec<String> = unloaded.iter().map(|n| format!("`{n}`")).collect();
        let _ = writeln!(
            s,
            "- A server with a reference is refused for the {} scope (`cannot-express`): {why}.",
            scopes.join(", ")
        );
    }
    let _ = writeln!(
        s,
        "- mcpconf writes references (for a target without `client_version`): {}.",
        d.placeholder()
    );
    if e.forms.is_empty() || e.places == Places::Nowhere {
        let _ = writeln!(
            s,
            "- The current release expands no environment references."
        );
    } else {
        let _ = writeln!(
            s,
            "- The current release expands {} {}.",
            forms.join(", "),
            places_phrase(e.places)
        );
    }
    let g = d.grammar();
    if g != crate::template::Grammar::Plain {
        let _ = writeln!(
            s,
            "- Expansion grammar: `{}`, {} where it expands references ({}); the manifest's verbatim form for it is `${{verbatim:{}:TEXT}}`.",
            g.id(),
            g.describe(),
            if g.defaults() {
                "`${VAR:-default}` is written"
            } else {
                "`${VAR:-default}` is refused"
            },
            g.id()
        );
    }
    let pin = |p: PinSupport| match p {
        PinSupport::None => "not expressible".to_string(),
        PinSupport::Field(f) => format!("`{f}`"),
    };
    let _ = writeln!(s, "- Tool pin: {}.", pin(d.pin_support()));
    for g in d.gates() {
        let _ = writeln!(
            s,
            "- From {} on (a target's `client_version`): {}.",
            g.since, g.what
        );
    }
    for (c, sc) in d.also_reads() {
        let _ = writeln!(
            s,
            "- Also reads the `{sc}` file of `{c}`: a server written to both shows twice (the plan says so)."
        );
    }
    match d.project_disable() {
        Some(p) => {
            let _ = writeln!(
                s,
                "- `disable` (a user's server off in this project): {}; read at {} ({}).",
                p.describe(),
                p.source,
                p.checked
            );
        }
        None => {
            let _ = writeln!(
                s,
                "- `disable` (a user's server off in this project): not expressible (`cannot-express`)."
            );
        }
    }
    if !d.source().is_empty() {
        let _ = writeln!(s, "- Source: {}.", d.source());
        let _ = writeln!(s, "- Checked against: {}.", d.checked());
    }
    let _ = writeln!(s, "{FACTS_END}");
    s
}
