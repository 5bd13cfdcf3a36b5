//! `mcpconf import`: describe what a client file holds today as a manifest.
//!
//! Each entry is translated back to the neutral form: the client's field names and transport
//! markers, its reference spelling (`${env:VAR}`, `{env:VAR}`, Codex's `env_vars` /
//! `bearer_token_env_var` / `env_http_headers`) becomes `${VAR}`. A literal secret (a
//! credential-like env or header value that is not a reference) is replaced by a reference to a
//! variable named after it, with a warning saying which variable to set — the manifest never
//! holds the secret. Fields the manifest cannot express are dropped with a warning (adopting
//! such an entry would then be a conflict). Pure: the caller reads the file and prints.

use serde_json::{Map, Value};
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, value};

use crate::dialect::{Dialect, Slot};
use crate::redact::{classify, credential_name};
use crate::server::RemoteKind;
use crate::template::{Grammar, Part, Template};

mod adopt;
mod agent;

/// A manifest text and what the operator must know about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// The manifest (TOML).
    pub manifest: String,
    /// Sentences about secrets replaced and fields dropped.
    pub warnings: Vec<String>,
    /// How many servers were imported.
    pub servers: usize,
    /// How many entries the file held (of those asked for with `only`): the ones not among
    /// [`Imported::servers`] were skipped or left out, each with a warning.
    pub entries: usize,
    /// The variables import made up to replace literal secrets (each named in a warning), in
    /// the order they were made; references the entries already held are not among them.
    pub replaced: Vec<String>,
    /// Servers whose file spelled a reference in a form the client does not expand there
    /// (Claude Code's `${VAR}` in a Cursor file): import read the reference that was meant, so
    /// the entry differs from what `apply` writes and is taken over, not adopted.
    pub respelled: Vec<String>,
}

/// The end of a "dropped" warning that is about `apply --adopt` (`probe` leaves it out).
pub const ADOPT_REFUSED: &str = "; adopting this entry as it is will be refused as a conflict";

/// What an import says besides the manifest: warnings, and the variables it made up.
#[derive(Default)]
struct Notes {
    warnings: Vec<String>,
    replaced: Vec<String>,
    respelled: Vec<String>,
    /// The variable made up for each value replaced inside a string (kept in memory only):
    /// the same value gets the same variable, another value another one.
    inline_vars: Vec<(String, String)>,
    /// [`TargetSpec::as_client`].
    as_client: bool,
    /// The values import changed on purpose, each said where it happened (kept in memory
    /// only): server, the text the file holds (a literal secret, a reference in a foreign
    /// spelling, an env name dropped) and the variable made for it (or `""`). The fields that
    /// hold either differ from what `apply` writes for a reason already given.
    changed: Vec<(String, String, String)>,
}

impl Notes {
    /// A warning, with any terminal control character in it (a server or field name from the
    /// file) made visible ([`crate::redact::escape_controls`]).
    fn say(&mut self, warning: String) {
        self.warnings
            .push(crate::redact::escape_controls(&warning).into_owned());
    }
    /// The variable that stands for `value` found inside a string: the one made up for it
    /// before, else one named after `parts` that no other value took.
    fn var_for(&mut self, value: &str, parts: &[&str]) -> String {
        if let Some((_, var)) = self.inline_vars.iter().find(|(v, _)| v == value) {
            return var.clone();
        }
        let base = var_name(parts);
        let mut var = base.clone();
        let mut n = 2;
        while self.inline_vars.iter().any(|(_, x)| *x == var) || self.replaced.contains(&var) {
            var = format!("{base}_{n}");
            n += 1;
        }
        self.inline_vars.push((value.to_string(), var.clone()));
        var
    }

    fn replaced(&mut self, var: &str) {
        if !self.replaced.iter().any(|v| v == var) {
            self.replaced.push(var.to_string());
        }
    }

    /// In server `server`'s entry, `original` was changed on purpose into `var` (see
    /// [`Notes::changed`]).
    fn changed(&mut self, server: &str, original: &str, var: &str) {
        let one = (
            server.to_string(),
            as_written(original).into_owned(),
            var.to_string(),
        );
        if !self.changed.contains(&one) {
            self.changed.push(one);
        }
    }
}

/// Where the target points.
#[derive(Clone)]
pub struct TargetSpec<'a> {
    /// The client.
    pub dialect: &'a dyn Dialect,
    /// Its scope.
    pub scope: &'a str,
    /// An explicit `path`, if one was used.
    pub path: Option<&'a str>,
    /// `import --server NAME`: only these entries (empty: every entry).
    pub only: &'a [String],
    /// Read the entries as the client reads them (`probe --client`): a reference spelled in a
    /// form the client does not expand is the literal text the client passes on, not the
    /// reference the operator meant (what `import` reads, for a migration).
    pub as_client: bool,
}

/// Translate the entries of a container (`servers`: name → entry) into a manifest.
pub fn import(servers: &Map<String, Value>, target: &TargetSpec<'_>, owner: &str) -> Imported {
    import_in(&Value::Null, servers, target, owner)
}

/// [`import`] with the whole file the entries are in (`file`; `Null` when not needed), for
/// clients whose files say more about a server beside its entry: a Kiro agent's `tools` and
/// `allowedTools` grants are read as the servers' pins and the target's `auto_approve`; VS
/// Code's top-level `inputs` ([`Dialect::inputs_array`]): each input an imported server uses
/// (`${input:ID}`, kept as such) becomes an `[inputs.ID]` table.
pub fn import_in(
    file: &Value,
    servers: &Map<String, Value>,
    target: &TargetSpec<'_>,
    owner: &str,
) -> Imported {
    let mut notes = Notes {
        as_client: target.as_client,
        ..Notes::default()
    };
    let mut doc = DocumentMut::new();
    doc["owner"] = value(owner);
    let mut table = Table::new();
    table.set_implicit(true);
    let mut count = 0;
    for (name, entry) in servers {
        if !target.only.is_empty() && !target.only.contains(name) {
            continue;
        }
        // One rule for names (the manifest's): any name a client accepts is one mcpconf can
        // own; one outside the portable characters is kept, with a warning.
        if !crate::manifest::valid_server_name(name) {
            notes.say(format!(
                "server `{name}` is skipped: {}",
                crate::manifest::server_name_error(name)
            ));
            continue;
        }
        if !crate::manifest::portable_server_name(name) {
            notes.say(format!(
                "server `{name}`: its name holds characters beyond `A-Z a-z 0-9 . _ -` (or does not start with a letter or digit); it is kept as the client spells it, but another client may not take it"
            ));
        }
        let Some(obj) = entry.as_object() else {
            notes.say(format!(
                "server `{name}` is skipped: its entry is not an object"
            ));
            continue;
        };
        // The client's canonical reading first (Zed's legacy `command` object), then the
        // common shape of a reshaped client.
        let canonical = target
            .dialect
            .canonical()
            .map(|f| f(entry))
            .and_then(|v| v.as_object().cloned());
        let obj = target
            .dialect
            .common_entry(name, canonical.as_ref().unwrap_or(obj));
        let Some(obj) = yaml_client_entry(target.dialect.id(), name, &obj, &mut notes) else {
            continue;
        };
        if target.dialect.extension_entry(&obj) {
            notes.say(format!(
                "server `{name}` is skipped: an extension of {} provides it (the entry holds only its settings), so there is no launch entry to manage",
                target.dialect.id()
            ));
            continue;
        }
        if let Some(why) = unread_untyped(name, &obj, target.dialect) {
            notes.say(why);
            continue;
        }
        match server_table(name, &obj, target.dialect, &mut notes) {
            Some(mut t) => {
                if adopt::switched_off(entry, target.dialect) {
                    t["enabled"] = value(false);
                }
                table.insert(name, Item::Table(t));
                count += 1;
            }
            None => notes.say(format!(
                "server `{name}` is skipped: it has neither a command nor a URL mcpconf understands"
            )),
        }
    }
    let mut t = Table::new();
    t["client"] = value(target.dialect.id());
    t["scope"] = value(target.scope);
    if let Some(p) = target.path {
        t["path"] = value(p);
    }
    if !target.dialect.grant_arrays().is_empty() {
        agent::read_grants(file, &mut table, &mut t, &mut notes);
    }
    let mut targets = toml_edit::ArrayOfTables::new();
    targets.push(t);
    // What import prints must plan: a server the manifest refuses, or the client's dialect
    // cannot write back, is left out with the reason instead of making the whole manifest fail.
    // (A probe only starts what the file says: nothing is written back, so only what the
    // manifest itself refuses is left out.)
    let writes = (!target.as_client).then_some(target.dialect);
    let inputs = target.dialect.inputs_array().and_then(|a| file.get(a));
    let declared = input_tables(&table, inputs, &mut notes);
    count -= keep_what_plans(owner, &mut table, &declared, &targets, writes, &mut notes);
    adopt::adoption_notes(owner, servers, &table, &targets, target.dialect, &mut notes);
    let used = inputs_used(&table);
    let mut kept = Table::new();
    kept.set_implicit(true);
    for (id, t) in declared
        .iter()
        .filter(|(id, _)| used.contains(&id.to_string()))
    {
        kept.insert(id, t.clone());
    }
    if !kept.is_empty() {
        doc["inputs"] = Item::Table(kept);
    }
    doc["servers"] = Item::Table(table);
    doc["targets"] = Item::ArrayOfTables(targets);
    Imported {
        manifest: doc.to_string(),
        warnings: notes.warnings,
        replaced: notes.replaced,
        respelled: notes.respelled,
        servers: count,
        entries: servers
            .keys()
            .filter(|n| target.only.is_empty() || target.only.contains(n))
            .count(),
    }
}

/// Removes from `table` each server that a manifest of it alone would not plan for
/// `dialect` (the manifest refuses it, or the dialect, when given, cannot render it), with a warning naming
/// the reason (the manifest's and the dialect's messages never quote a value); returns how
/// many were removed.
fn keep_what_plans(
    owner: &str,
    table: &mut Table,
    inputs: &Table,
    targets: &toml_edit::ArrayOfTables,
    dialect: Option<&dyn Dialect>,
    notes: &mut Notes,
) -> usize {
    let names: Vec<String> = table.iter().map(|(k, _)| k.to_string()).collect();
    let mut removed = 0;
    for name in names {
        let mut one = DocumentMut::new();
        one["owner"] = value(owner);
        let mut servers = Table::new();
        servers.set_implicit(true);
        if let Some(item) = table.get(&name) {
            servers.insert(&name, item.clone());
            let mut own = Table::new();
            own.set_implicit(true);
            for id in inputs_in(item) {
                if let Some(t) = inputs.get(&id) {
                    own.insert(&id, t.clone());
                }
            }
            if !own.is_empty() {
                one["inputs"] = Item::Table(own);
            }
        }
        one["servers"] = Item::Table(servers);
        one["targets"] = Item::ArrayOfTables(targets.clone());
        let why = match crate::manifest::parse(&one.to_string(), &crate::known::Known) {
            Err(e) => Some(e.message),
            Ok(m) => m.servers.first().zip(dialect).and_then(|(s, dialect)| {
                crate::dialect::render_target(dialect, s, None, true)
                    .err()
                    .map(|e| e.message)
            }),
        };
        if let Some(why) = why {
            table.remove(&name);
            removed += 1;
            notes.say(format!(
                "server `{name}` is left out: mcpconf could not manage it as written ({why})"
            ));
        }
    }
    removed
}

/// The ids of the inputs (`${input:ID}`) the strings of a manifest item use.
fn inputs_in(item: &Item) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |s: &str| {
        if let Ok(t) = crate::template::Template::parse(s) {
            for id in t.inputs() {
                if !out.iter().any(|o| o == id) {
                    out.push(id.to_string());
                }
            }
        }
    };
    fn walk(v: &toml_edit::Value, add: &mut dyn FnMut(&str)) {
        match v {
            toml_edit::Value::String(s) => add(s.value()),
            toml_edit::Value::Array(a) => a.iter().for_each(|x| walk(x, add)),
            toml_edit::Value::InlineTable(t) => t.iter().for_each(|(_, x)| walk(x, add)),
            _ => {}
        }
    }
    if let Some(t) = item.as_table_like() {
        for (_, i) in t.iter() {
            if let Some(v) = i.as_value() {
                walk(v, &mut add);
            }
        }
    }
    out
}

/// The ids of the inputs the servers of `table` use.
fn inputs_used(table: &Table) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, item) in table.iter() {
        for id in inputs_in(item) {
            if !out.contains(&id) {
                out.push(id);
            }
        }
    }
    out
}

/// The `[inputs.ID]` table of each input the servers use that the file's list declares: its
/// `description`, `password` and `default` as written (a `type` other than `promptString` is
/// kept, so the manifest refuses the servers that use it, with the reason). A default the
/// shared detector flags is left out with a warning.
fn input_tables(table: &Table, inputs: Option<&Value>, notes: &mut Notes) -> Table {
    let mut out = Table::new();
    let list = inputs
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    for id in inputs_used(table) {
        let Some(entry) = list
            .iter()
            .filter_map(Value::as_object)
            .find(|e| e.get("id").and_then(Value::as_str) == Some(id.as_str()))
        else {
            continue;
        };
        let mut t = Table::new();
        if let Some(ty) = entry.get("type").and_then(Value::as_str)
            && ty != "promptString"
        {
            t["type"] = value(ty);
        }
        if let Some(d) = entry.get("description").and_then(Value::as_str) {
            t["description"] = value(d);
        }
        if let Some(p) = entry.get("password").and_then(Value::as_bool) {
            t["password"] = value(p);
        }
        if let Some(d) = entry.get("default").and_then(Value::as_str) {
            if crate::redact::must_hide(&id, d) || classify("default", d).is_some() {
                notes.say(format!(
                    "input `{id}`: its `default` looks like a secret and was left out; the client prompts without one"
                ));
            } else {
                t["default"] = value(d);
            }
        }
        out.insert(&id, Item::Table(t));
    }
    out
}

/// The fields a YAML client's entries carry that mcpconf also writes (so adopting them is
/// not refused for them).
const WRITTEN_TOO: &[&str] = &["enabled", "name", "description", "timeout"];

/// A Goose, Continue or Hermes entry in the common shape `server_table` reads (`command`,
/// `args`, `env`, `url`, `headers`, `type`, `tools`); other clients' entries as they are.
/// `None`: an entry that is not a server mcpconf manages (Goose's own extensions).
fn yaml_client_entry(
    id: &str,
    name: &str,
    e: &Map<String, Value>,
    notes: &mut Notes,
) -> Option<Map<String, Value>> {
    let mut out = e.clone();
    let rename = |out: &mut Map<String, Value>, from: &str, to: &str| {
        if let Some(v) = out.remove(from) {
            out.insert(to.to_string(), v);
        }
    };
    match id {
        "goose" => {
            let ty = e.get("type").and_then(Value::as_str).unwrap_or("");
            if !matches!(ty, "stdio" | "streamable_http") {
                notes.say(goose_skip(name, ty));
                return None;
            }
            out.remove("type");
            rename(&mut out, "cmd", "command");
            rename(&mut out, "envs", "env");
            rename(&mut out, "uri", "url");
            rename(&mut out, "available_tools", "tools");
            // Variables Goose takes from its secret store or the environment, by name.
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
        }
        "continue" => {
            if let Some(Value::Object(ro)) = out.remove("requestOptions") {
                if let Some(h) = ro.get("headers") {
                    out.insert("headers".into(), h.clone());
                }
                if ro.keys().any(|k| k != "headers") {
                    out.insert("requestOptions".into(), Value::Object(ro));
                }
            }
            if out.get("type").and_then(Value::as_str) != Some("sse") {
                out.remove("type");
            }
        }
        "hermes" => {
            if out.get("transport").and_then(Value::as_str) == Some("sse") {
                out.remove("transport");
                out.insert("type".into(), "sse".into());
            }
            if let Some(include) = e
                .get("tools")
                .and_then(Value::as_object)
                .and_then(|t| t.get("include"))
            {
                out.insert("tools".into(), include.clone());
            }
        }
        _ => return Some(out),
    }
    // What mcpconf writes itself goes, as long as it says what mcpconf would write; anything
    // else stays, so the warning about dropped fields names it.
    for k in WRITTEN_TOO {
        let same = match (*k, out.get(*k)) {
            ("enabled", Some(v)) => v == &Value::Bool(true),
            ("name", Some(v)) => v.as_str() == Some(name),
            ("description", Some(v)) => v.as_str() == Some(""),
            ("timeout", Some(v)) => id == "goose" && v.as_u64() == Some(300),
            _ => false,
        };
        if same {
            out.remove(*k);
        }
    }
    Some(out)
}

/// Why a Goose extension that is not `stdio` or `streamable_http` is not imported, truthfully
/// for its type: an `sse` extension is an MCP server Goose no longer starts (its
/// `extensions::get_warnings` says "SSE is unsupported, migrate to streamable_http"); the
/// others (`builtin`, `platform`, `frontend`, `inline_python`) are Goose's own, not MCP server
/// entries.
fn goose_skip(name: &str, ty: &str) -> String {
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

/// [`neutral`] of a field's value, with a note when the value spells a reference in a form its
/// client does not expand (`${VAR}` in a Cursor file: Claude Code's spelling): the operator
/// meant that reference, so import reads it as one, and `apply` writes the client's own form.
fn read_field(server: &str, field: &str, s: &str, dialect: &str, notes: &mut Notes) -> String {
    // Where the client expands no reference (Kiro's args, say), nothing is one: the text is
    // the literal it reads, `${` escaped (issue 27 item 15).
    let slot = match field.split('.').next() {
        Some("command") => Slot::Command,
        Some("env") => Slot::Env,
        Some("headers") => Slot::Header,
        _ => Slot::Plain,
    };
    if crate::dialect::lookup(dialect).is_some_and(|d| !d.expands_in(slot)) {
        return s.replace("${", "$${");
    }
    // A client with a grammar of its own (defaults, `$VAR`, command substitution): its text
    // read by that grammar, the same construct the same way in every field.
    if let Some(g) = crate::dialect::lookup(dialect)
        .map(|d| d.grammar())
        .filter(|g| *g != Grammar::Plain)
    {
        return in_grammar(g, s);
    }
    let foreign = foreign_references(s, dialect);
    if !foreign.is_empty() && notes.as_client {
        notes.say(format!(
            "server `{server}`: `{field}` spells {} as `${{VAR}}`, which `{dialect}` does not expand there: it passes the text on as it is, and so does this probe",
            quoted_refs(&foreign)
        ));
        return neutral_as(s, dialect, false);
    }
    if !foreign.is_empty() {
        let own = match spelling(dialect) {
            ("${env:", _) => "`${env:VAR}`",
            ("{env:", _) => "`{env:VAR}`",
            _ => "its own form",
        };
        notes.say(format!(
            "server `{server}`: `{field}` spells {} as `${{VAR}}`, which `{dialect}` does not expand there (it expands {own}); import reads the reference that was meant, and `apply` writes it in {own}",
            quoted_refs(&foreign)
        ));
        if !notes.respelled.iter().any(|r| r == server) {
            notes.respelled.push(server.to_string());
        }
        notes.changed(server, s, "");
    }
    neutral(s, dialect)
}

/// A client's text in grammar `g` as the manifest writes it: references (with their defaults)
/// as `${VAR}` / `${VAR:-default}`, literal `${` escaped, or, when it holds an expansion the
/// manifest cannot say (`$(cmd)`, `$1`, …), the whole text verbatim for that grammar
/// (`${verbatim:shell:…}`).
fn in_grammar(g: Grammar, s: &str) -> String {
    match g.read(s) {
        Some(parts) => parts
            .iter()
            .map(|p| match p {
                Part::Lit(l) => l.replace("${", "$${"),
                Part::Var(v) => format!("${{{v}}}"),
                Part::VarOr(v, d) => format!("${{{v}:-{d}}}"),
                Part::Verbatim(_, t) => t.clone(),
                Part::Input(id) => format!("${{input:{id}}}"),
            })
            .collect(),
        None => Template::verbatim(g, s).raw,
    }
}

/// `protect` for a value the manifest keeps verbatim: `f` on its text (a credential in it
/// replaced by `${VAR}`, which every grammar reads as a reference), the result read again in
/// the grammar; `None` for any other value.
fn in_verbatim(v: &str, f: impl FnOnce(String) -> String) -> Option<String> {
    let t = Template::parse(v).ok()?;
    let (g, text) = t.as_verbatim()?;
    Some(in_grammar(g, &f(text.to_string())))
}

/// `` `${A}`, `${B}` ``: the references named, for a message.
fn quoted_refs(vars: &[String]) -> String {
    vars.iter()
        .map(|v| format!("`${{{v}}}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why the client reads nothing from this entry, when it is a remote entry without `type` and
/// its client starts no server from one ([`Dialect::untyped_url_unread`]: Roo Code rejects it,
/// Amazon Q takes it for a local command): the entry does nothing, so there is nothing to
/// import.
fn unread_untyped(name: &str, e: &Map<String, Value>, dialect: &dyn Dialect) -> Option<String> {
    dialect.untyped_url_unread()?;
    if e.contains_key("type") || e.contains_key("command") || !e.contains_key("url") {
        return None;
    }
    let id = dialect.id();
    Some(format!(
        "server `{name}` is left out: client `{id}` starts no server from a `url` entry without `type` (it rejects the entry or takes it for a local command), so the entry does nothing there; add the `type` the client wants (see `mcpconf clients {id}`) and import again"
    ))
}

/// What a remote entry without a transport marker (`type`) whose URL stands under `key` means
/// to its client, read from how the dialect writes each kind: the kind it writes with its URL
/// under `key` and no marker (or a marker its client assumes when absent, one of its
/// [`Dialect::defaults`]). Streamable HTTP when both or neither are (Cursor's `url` is either).
/// Qwen Code's `url` is SSE (`httpUrl` is streamable HTTP).
fn untyped_url(dialect: &dyn Dialect, key: &str) -> Option<RemoteKind> {
    let untyped = |kind: RemoteKind| {
        let server = crate::server::Server {
            name: "probe".into(),
            transport: crate::server::Transport::Remote {
                url: crate::template::Template::literal("https://example.invalid/mcp"),
                headers: Vec::new(),
                kind,
            },
            tools: None,
            enabled: None,
            checks: Default::default(),
        };
        let Ok(r) = dialect.render(&server) else {
            return false;
        };
        let marker = ["type", "transport"]
            .into_iter()
            .filter_map(|m| r.value.get(m).map(|v| (m, v)))
            .all(|(m, v)| {
                let json = serde_json::to_string(v).unwrap_or_default();
                dialect
                    .defaults()
                    .iter()
                    .any(|(k, d)| *k == m && *d == json)
            });
        r.value.get(key).is_some() && marker
    };
    match (untyped(RemoteKind::Http), untyped(RemoteKind::Sse)) {
        (false, true) => Some(RemoteKind::Sse),
        (true, _) => Some(RemoteKind::Http),
        (false, false) => None,
    }
}

/// How a client spells a reference: its opening and closing text (`("\0", "\0")`: it has no
/// reference syntax in these fields, so every `${` is literal).
fn spelling(dialect: &str) -> (&'static str, &'static str) {
    use crate::dialect::{Places, RefForm};
    // The spelling the client's dialect writes (one table: `Dialect::expansion`); Continue's
    // `${{ secrets.VAR }}` is not an environment reference form of its own.
    if dialect == "continue" {
        return ("${{ secrets.", " }}");
    }
    match crate::dialect::lookup(dialect).map(|d| d.expansion()) {
        Some(e) if e.places == Places::Nowhere => ("\u{0}", "\u{0}"),
        Some(e) => match e.forms.first() {
            Some(RefForm::Env) => ("${env:", "}"),
            Some(RefForm::Opencode) => ("{env:", "}"),
            _ => ("${", "}"),
        },
        None => ("${", "}"),
    }
}

/// The variables of the bare `${VAR}` references in `s` when its client spells references
/// another way (then `${VAR}` is the spelling of Claude Code and the `${…}` clients, a
/// reference the operator meant, not text). Clients without a reference syntax, and the
/// `${…}` clients themselves, have none.
fn foreign_references(s: &str, dialect: &str) -> Vec<String> {
    let (open, _) = spelling(dialect);
    if open == "${" || open == "\u{0}" {
        return Vec::new();
    }
    // The client's own variables (`${workspaceFolder}`) are no environment references: they
    // stay as written (a literal the client fills in).
    let builtins = crate::dialect::lookup(dialect).map_or(&[][..], |d| d.builtins());
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        let after = &rest[i + 2..];
        if !rest[..i].ends_with('$')
            && !rest[i..].starts_with(open)
            && let Some(j) = after.find('}')
            && valid_var(&after[..j])
            && !builtins.contains(&&after[..j])
        {
            out.push(after[..j].to_string());
        }
        rest = after;
    }
    out
}

/// The client's reference spelling turned back into `${VAR}`; a bare `${VAR}` in a client
/// that spells references another way is read as the reference it was meant to be
/// ([`foreign_references`]); any other `${` is escaped.
fn neutral(s: &str, dialect: &str) -> String {
    neutral_as(s, dialect, true)
}

/// [`neutral`]; `meant`: whether a reference spelled in a form the client does not expand is
/// read as the reference meant (import) or as the literal text the client passes on (probe).
fn neutral_as(s: &str, dialect: &str, meant: bool) -> String {
    let (open, close) = spelling(dialect);
    let mut out = String::new();
    let mut rest = s;
    loop {
        let next_dollar = rest.find("${");
        let next_ref = rest
            .find(open)
            .filter(|i| next_dollar.is_none_or(|d| *i <= d));
        if let Some(i) = next_ref {
            let after = &rest[i + open.len()..];
            match after.find(close) {
                Some(j) if valid_var(&after[..j]) => {
                    out.push_str(&rest[..i].replace("${", "$${"));
                    out.push_str("${");
                    out.push_str(&after[..j]);
                    out.push('}');
                    rest = &after[j + close.len()..];
                }
                _ => {
                    let step = i + open.len();
                    out.push_str(&rest[..step].replace("${", "$${"));
                    rest = &rest[step..];
                }
            }
        } else if let Some(d) = next_dollar {
            out.push_str(&rest[..d]);
            let after = &rest[d + 2..];
            // A client-prompted input, where the client prompts: the manifest's `${input:ID}`.
            if let Some(n) = input_at(after, dialect)
                && !rest[..d].ends_with('$')
            {
                out.push_str(&rest[d..d + 2 + n]);
                rest = &after[n..];
                continue;
            }
            match after.find('}') {
                Some(j)
                    if meant
                        && !foreign_references(&rest[d..d + 3 + j], dialect).is_empty()
                        && !rest[..d].ends_with('$') =>
                {
                    out.push_str("${");
                    out.push_str(&after[..=j]);
                    rest = &after[j + 1..];
                }
                _ => {
                    out.push_str("$${");
                    rest = after;
                }
            }
        } else {
            out.push_str(rest);
            return out;
        }
    }
}

/// The length of `input:ID}` at the start of `after` (the text after a `${`) when the
/// client prompts for inputs ([`Dialect::inputs_array`]).
fn input_at(after: &str, dialect: &str) -> Option<usize> {
    crate::dialect::lookup(dialect)?.inputs_array()?;
    let id_and_rest = after.strip_prefix("input:")?;
    let end = id_and_rest.find('}')?;
    crate::template::valid_input_id(&id_and_rest[..end]).then_some(6 + end + 1)
}

fn valid_var(name: &str) -> bool {
    let mut c = name.chars();
    matches!(c.next(), Some(f) if f == '_' || f.is_ascii_alphabetic())
        && c.all(|ch| ch == '_' || ch.is_ascii_alphanumeric())
}

/// The variable named after `parts` (a server, a field), each said once: a part that already
/// begins with what comes before it (header `CONTEXT7_API_KEY` of server `context7`) stands
/// for both, and one the name so far already ends with adds nothing.
fn var_name(parts: &[&str]) -> String {
    let mut kept: Vec<&str> = Vec::new();
    for p in parts {
        let norm = crate::text::env_var_name(p);
        let head = crate::text::env_var_name(&kept.join("_"));
        if kept.is_empty() {
            kept.push(p);
        } else if norm == head || norm.starts_with(&format!("{head}_")) {
            kept = vec![p];
        } else if !head.ends_with(&format!("_{norm}")) {
            kept.push(p);
        }
    }
    crate::text::env_var_name(&kept.join("_"))
}

/// A value read into the manifest's form as the detector sees text in a file: `$${` is the
/// literal `${` the file holds (the detector judges every file's text alike, so what `lint`
/// passes, import keeps, and the reverse).
fn as_written(v: &str) -> std::borrow::Cow<'_, str> {
    if v.contains("$${") {
        std::borrow::Cow::Owned(v.replace("$${", "${"))
    } else {
        std::borrow::Cow::Borrowed(v)
    }
}

/// Replace a literal secret by a reference, with a warning: a value under a credential-like
/// name, or any value the shared detector flags (the test `lint`'s `literal-secret` applies).
fn protect(server: &str, key: &str, v: String, is_header: bool, notes: &mut Notes) -> String {
    if v.starts_with(crate::template::VERBATIM_OPEN)
        && let Some(out) = in_verbatim(&v, |t| {
            // Only the credential inside is replaced: the rest is the client's text.
            let field = format!("{}.{key}", if is_header { "headers" } else { "env" });
            protect_inline_text(server, &field, t, notes)
        })
    {
        return out;
    }
    protect_text(server, key, v, is_header, notes)
}

/// [`protect`] of a value's text.
fn protect_text(server: &str, key: &str, v: String, is_header: bool, notes: &mut Notes) -> String {
    // The same decision as the diff's mask and lint's `literal-secret` (`must_hide`), on the
    // text as the file holds it ([`as_written`]): a placeholder or a plain word under a
    // credential-like name stays as it is.
    let written = as_written(&v);
    let by_name = credential_name(key) && crate::redact::must_hide(key, &written);
    if !by_name && classify(key, &written).is_none() {
        return v;
    }
    // Under a plain name (`DB_URL`, `CONFIG`), only what lies inside becomes a reference
    // (`Server=db;Password=${…};`), so the rest of the value stays what the server reads.
    let t = v.trim();
    let whole_token = crate::redact::detect::tokens(t)
        .iter()
        .any(|(r, _)| r.start == 0 && r.end == t.len());
    if !by_name && !whole_token {
        let field = format!("{}.{key}", if is_header { "headers" } else { "env" });
        return protect_inline(server, &field, v, notes);
    }
    let var = if is_header {
        var_name(&[
            server,
            if key.eq_ignore_ascii_case("authorization") {
                "token"
            } else {
                key
            },
        ])
    } else {
        var_name(&[key])
    };
    notes.say(format!(
        "server `{server}`: the literal secret in {} `{key}` was replaced by `${{{var}}}`; set {var} in the environment before applying",
        if is_header { "header" } else { "env" }
    ));
    notes.replaced(&var);
    notes.changed(server, &v, &var);
    let scheme = v
        .split_once(' ')
        .filter(|(s, _)| ["bearer", "basic", "token"].contains(&s.to_ascii_lowercase().as_str()))
        .map(|(s, _)| format!("{s} "));
    format!("{}${{{var}}}", scheme.unwrap_or_default())
}

/// Replace the secrets inside a string that is not a name/value pair (`command`, an `args`
/// element, `url`, `cwd`) by references: the value of a credential-named option
/// (`--api-key=…`), a URL's password and credential-named query values, and every token the
/// detector recognises; if the detector still flags what is left, the whole string. Each
/// replacement is a warning naming the variable.
fn protect_inline(server: &str, field: &str, v: String, notes: &mut Notes) -> String {
    if v.starts_with(crate::template::VERBATIM_OPEN)
        && let Some(out) = in_verbatim(&v, |t| protect_inline_text(server, field, t, notes))
    {
        return out;
    }
    protect_inline_text(server, field, v, notes)
}

/// [`protect_inline`] of a value's text.
fn protect_inline_text(server: &str, field: &str, v: String, notes: &mut Notes) -> String {
    if classify(field, &as_written(&v)).is_none() {
        return v;
    }
    let mut out = v.clone();
    let mut replace = |out: &mut String, range: std::ops::Range<usize>, parts: &[&str]| {
        let original = out[range.clone()].to_string();
        let var = notes.var_for(&original, parts);
        out.replace_range(range, &format!("${{{var}}}"));
        notes.say(format!(
            "server `{server}`: the literal secret in `{field}` was replaced by `${{{var}}}`; set {var} in the environment before applying"
        ));
        notes.replaced(&var);
        notes.changed(server, &original, &var);
    };
    // Every credential inside the string, found by the one reading every output shares
    // (`redact::spans`: tokens, credential pairs and options, URL passwords and query values,
    // literal `Bearer` tokens), outermost first; replaced right to left so that earlier
    // offsets stay valid.
    let mut spans: Vec<(std::ops::Range<usize>, String)> = crate::redact::spans::secret_spans(&out)
        .into_iter()
        .map(|s| (s.range, s.name.trim_start_matches('-').to_string()))
        .collect();
    // Of two spans over the same bytes, the one named by its key or option names the variable.
    spans.sort_by_key(|(r, n)| (r.start, std::cmp::Reverse(r.end), n == "token"));
    let mut kept: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    for (r, name) in spans {
        if kept.last().is_none_or(|(k, _)| r.start >= k.end) && r.end > r.start {
            kept.push((r, name));
        }
    }
    for (r, name) in kept.into_iter().rev() {
        replace(&mut out, r, &[server, &name]);
    }
    if classify(field, &as_written(&out)).is_some() {
        out = String::new();
        replace(&mut out, 0..0, &[server, field]);
    }
    out
}

fn string_map(
    server: &str,
    v: Option<&Value>,
    dialect: &str,
    is_header: bool,
    notes: &mut Notes,
) -> Vec<(String, String)> {
    v.and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| {
                    let s = v.as_str()?;
                    if crate::redact::detect::known_prefix(k).is_some() {
                        notes.say(format!(
                            "server `{server}`: an {} entry whose name has the shape of a credential was dropped (its name is not shown); move the credential into a value read from the environment",
                            if is_header { "header" } else { "env" }
                        ));
                        notes.changed(server, k, "");
                        return None;
                    }
                    let field = format!("{}.{k}", if is_header { "headers" } else { "env" });
                    let read = read_field(server, &field, s, dialect, notes);
                    Some((k.clone(), protect(server, k, read, is_header, notes)))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn strings(v: Option<&Value>, dialect: &str) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(|s| neutral(s, dialect))
                .collect()
        })
        .unwrap_or_default()
}

/// [`strings`] with the secrets in each replaced ([`protect_inline`]).
fn protected_strings(
    server: &str,
    field: &str,
    v: Option<&Value>,
    dialect: &str,
    notes: &mut Notes,
) -> Vec<String> {
    // Each element read as its client spells references (a foreign spelling noted), then the
    // secrets: the element after a credential option that ends the one before is its value
    // (`["--token", "V"]`), replaced whole.
    let read: Vec<String> = v
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(|s| read_field(server, field, s, dialect, notes))
                .collect()
        })
        .unwrap_or_default();
    let mut after: Option<String> = None;
    read.into_iter()
        .map(|s| {
            let flag = after.take();
            let out = match flag {
                Some(flag) if crate::redact::argv::value_after(&s) => {
                    let var = notes.var_for(&s, &[server, &flag]);
                    notes.say(format!(
                        "server `{server}`: the literal secret after the option `{flag}` in `{field}` was replaced by `${{{var}}}`; set {var} in the environment before applying"
                    ));
                    notes.replaced(&var);
                    notes.changed(server, &s, &var);
                    format!("${{{var}}}")
                }
                _ => protect_inline(server, field, s, notes),
            };
            after = crate::redact::argv::trailing_flag(&out).map(str::to_string);
            out
        })
        .collect()
}

fn inline(pairs: &[(String, String)]) -> InlineTable {
    let mut t = InlineTable::new();
    for (k, v) in pairs {
        t.insert(k, v.as_str().into());
    }
    t
}

fn array(items: &[String]) -> Array {
    let mut a = Array::new();
    for i in items {
        a.push(i.as_str());
    }
    a
}

fn server_table(
    name: &str,
    e: &Map<String, Value>,
    dialect: &dyn Dialect,
    notes: &mut Notes,
) -> Option<Table> {
    let id = dialect.id();
    let mut t = Table::new();
    let ty = e.get("type").and_then(Value::as_str).unwrap_or("");
    // opencode's shape (Kilo's too): the command line as one array, `environment` for env.
    let argv_shape = e.get("command").is_some_and(Value::is_array) || e.contains_key("environment");
    let (command, args, mut env) = if argv_shape {
        let cmd = protected_strings(name, "command", e.get("command"), id, notes);
        let (c, rest) = match cmd.split_first() {
            Some((c, rest)) => (Some(c.clone()), rest.to_vec()),
            None => (None, Vec::new()),
        };
        (
            c,
            rest,
            string_map(name, e.get("environment"), id, false, notes),
        )
    } else {
        (
            e.get("command").and_then(Value::as_str).map(|s| {
                let read = read_field(name, "command", s, id, notes);
                protect_inline(name, "command", read, notes)
            }),
            protected_strings(name, "args", e.get("args"), id, notes),
            string_map(name, e.get("env"), id, false, notes),
        )
    };
    if id == "codex" {
        for v in strings(e.get("env_vars"), id) {
            env.push((v.clone(), format!("${{{v}}}")));
        }
    }
    let url_key = ["url", "serverUrl", "httpUrl"]
        .into_iter()
        .find(|k| e.get(*k).and_then(Value::as_str).is_some());
    if let Some(c) = command {
        t["command"] = value(c);
        if !args.is_empty() {
            t["args"] = value(array(&args));
        }
        if !env.is_empty() {
            t["env"] = value(inline(&env));
        }
        if let Some(cwd) = e.get("cwd").and_then(Value::as_str) {
            let read = read_field(name, "cwd", cwd, id, notes);
            t["cwd"] = value(protect_inline(name, "cwd", read, notes));
        }
        if let Some(f) = e.get("envFile").and_then(Value::as_str) {
            let read = read_field(name, "env_file", f, id, notes);
            t["env_file"] = value(protect_inline(name, "env_file", read, notes));
        }
    } else if let Some(k) = url_key {
        let url = e.get(k).and_then(Value::as_str).unwrap_or_default();
        let read = read_field(name, "url", url, id, notes);
        t["url"] = value(protect_inline(name, "url", read, notes));
        let mut headers = string_map(
            name,
            e.get(if id == "codex" {
                "http_headers"
            } else {
                "headers"
            }),
            id,
            true,
            notes,
        );
        if id == "codex" {
            if let Some(b) = e.get("bearer_token_env_var").and_then(Value::as_str) {
                headers.insert(0, ("Authorization".into(), format!("Bearer ${{{b}}}")));
            }
            if let Some(m) = e.get("env_http_headers").and_then(Value::as_object) {
                for (h, v) in m {
                    if let Some(v) = v.as_str() {
                        headers.push((h.clone(), format!("${{{v}}}")));
                    }
                }
            }
        }
        if !headers.is_empty() {
            t["headers"] = value(inline(&headers));
        }
        if ty == "sse" || (ty.is_empty() && untyped_url(dialect, k) == Some(RemoteKind::Sse)) {
            t["transport"] = value("sse");
        }
    } else {
        return None;
    }
    // The pin field from the dialects' table (the current release's).
    let pin_key = match id {
        // Normalised by `yaml_client_entry`.
        "goose" | "hermes" => Some("tools"),
        _ => match crate::dialect::lookup(id).map(|d| d.pin_support_latest()) {
            Some(crate::dialect::PinSupport::Field(f)) => Some(f),
            _ => None,
        },
    };
    if let Some(k) = pin_key {
        let tools = strings(e.get(k), id);
        // `["*"]` is every tool (Copilot CLI's own form for no pin).
        if !tools.is_empty() && tools != ["*"] {
            t["tools"] = value(array(&tools));
        }
    }
    Some(t)
}

#[cfg(test)]
mod tests;
