//! `mcpconf import`: describe what a client file holds today as a manifest.
//!
//! Each entry is translated back to the neutral form: the client's field names and transport
//! markers, its reference spelling (`${env:VAR}`, `{env:VAR}`, Codex's `env_vars` /
//! `bearer_token_env_var` / `env_http_headers`) becomes `${VAR}`. A literal secret (a
//! credential-like env or header value that is not a reference) is replaced by a reference to a
//! variable named after it, with a warning saying which variable to set — the manifest never
//! holds the secret. Fields the manifest cannot express are dropped with a warning (adopting
//! such an entry would then be a conflict). Pure: the caller reads the file and prints.
//!
//! Here: the whole import (`import_in`) and what it says (`Notes`); one entry read into a
//! server table in `entry`, its references in `refs`, its secrets in `secrets`, the client
//! shapes before that in `shapes`, prompted inputs in `inputs`, agent grants in `agent`, and
//! what adopting each entry does in `adopt`.

use serde_json::{Map, Value};
use toml_edit::{DocumentMut, Item, Table, value};

use crate::dialect::Dialect;

mod adopt;
mod agent;
mod entry;
mod inputs;
mod refs;
mod secrets;
mod shapes;

use entry::server_table;
use inputs::{input_tables, inputs_in, inputs_used};
use shapes::{common_entry, unread_untyped};

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
        let Some(obj) = common_entry(
            target.dialect,
            name,
            canonical.as_ref().unwrap_or(obj),
            &mut notes,
        ) else {
            continue;
        };
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

#[cfg(test)]
mod tests;
