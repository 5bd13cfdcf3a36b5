//! What import says about adopting each entry it read: computed from the comparison `plan`
//! makes ([`crate::plan::adoption`]) between the entry as the file holds it and the entry
//! `apply` would write for the imported server, so a warning can never promise what plan then
//! refuses, nor warn of a refusal plan does not make.

use serde_json::{Map, Value};
use toml_edit::{DocumentMut, Item, Table, value};

use super::{ADOPT_REFUSED, Notes};
use crate::dialect::Dialect;

/// For each server left in `table`, a warning about the members of its source entry
/// (`servers`) that the manifest does not carry: kept in the file (the client's own keys, the
/// user's settings mcpconf keeps), or not, with adoption refused for the fields that differ.
/// Fields whose values import changed on purpose (a literal secret made a reference, a
/// reference respelled) are warned about where that happened.
pub(super) fn adoption_notes(
    owner: &str,
    servers: &Map<String, Value>,
    table: &Table,
    targets: &toml_edit::ArrayOfTables,
    dialect: &dyn Dialect,
    notes: &mut Notes,
) {
    let auto_approve = targets
        .get(0)
        .and_then(|t| t.get("auto_approve"))
        .and_then(Item::as_bool)
        .unwrap_or(false);
    for (name, item) in table.iter() {
        let Some(found) = servers.get(name) else {
            continue;
        };
        let mut one = DocumentMut::new();
        one["owner"] = value(owner);
        let mut t = Table::new();
        t.set_implicit(true);
        t.insert(name, item.clone());
        one["servers"] = Item::Table(t);
        one["targets"] = Item::ArrayOfTables(targets.clone());
        let Ok(m) = crate::manifest::parse(&one.to_string(), &crate::known::Known) else {
            continue;
        };
        let Some(s) = m.servers.first() else { continue };
        let enabled = s.enabled.unwrap_or(true);
        let Ok(mut r) = crate::dialect::render_target(dialect, s, None, enabled) else {
            continue;
        };
        crate::dialect::with_trust(dialect, auto_approve, &mut r.value);
        let mut state = crate::dialect::entry_client_state(dialect, &r.value, s.enabled.is_some());
        // The fields the client does not read in this entry: the user's, as plan keeps them.
        for k in crate::dialect::unread_keys(dialect, found) {
            if r.value.get(&k).is_none() && !state.contains(&k) {
                state.push(k);
            }
        }
        note_one(name, found, &r.value, &state, dialect, notes);
    }
}

/// Whether an entry is in its client's off form (Crush's `"disabled": true`) where that key is
/// not one the client keeps itself: the manifest says so (`enabled = false`), and `apply`
/// writes the same off form back.
pub(super) fn switched_off(found: &Value, d: &dyn Dialect) -> bool {
    let Some(off) = d.off_form() else {
        return false;
    };
    !crate::dialect::kept_keys(d).contains(&off.key)
        && found.get(off.key) == Some(&Value::Bool(off.off))
}

/// The warning for one entry `found` where `apply` would write `wanted`.
fn note_one(
    name: &str,
    found: &Value,
    wanted: &Value,
    state: &[String],
    dialect: &dyn Dialect,
    notes: &mut Notes,
) {
    let facts = crate::dialect::client_facts(dialect.id());
    let id = dialect.id();
    let differing = match crate::plan::adoption(found, wanted, state, facts) {
        Ok(_) => Vec::new(),
        Err(fields) => fields,
    };
    let (p, q) = (
        crate::plan::normalized_for(found, facts),
        crate::plan::normalized_for(wanted, facts),
    );
    // Changed on purpose, and said so where it was changed: a field that holds a value import
    // rewrote (as the file has it, or as the variable made for it).
    let on_purpose = |f: &str| {
        notes.changed.iter().any(|(server, original, var)| {
            server == name
                && (p.get(f).is_some_and(|x| holds(x, original))
                    || q.get(f).is_some_and(|x| holds(x, var)))
        })
    };
    let unexplained: Vec<&String> = differing.iter().filter(|f| !on_purpose(f)).collect();
    if unexplained.is_empty() {
        kept_note(name, found, state, dialect, notes);
        return;
    }
    let (dropped, other): (Vec<&String>, Vec<&String>) = unexplained
        .into_iter()
        .partition(|f| p.get(f.as_str()).is_some() && q.get(f.as_str()).is_none());
    if !dropped.is_empty() {
        notes.say(format!(
            "server `{name}`: {} not part of the manifest and dropped{ADOPT_REFUSED}",
            listed(&dropped) + if dropped.len() == 1 { " is" } else { " are" }
        ));
    }
    if !other.is_empty() {
        notes.say(format!(
            "server `{name}`: {} as mcpconf writes {} for `{id}` differs from the file's{ADOPT_REFUSED}",
            listed(&other),
            if other.len() == 1 { "it" } else { "them" }
        ));
    }
}

/// Whether a value holds `needle` (not empty) in one of its strings or object keys.
fn holds(v: &Value, needle: &str) -> bool {
    if needle.is_empty() {
        return false;
    }
    match v {
        Value::String(s) => s.contains(needle),
        Value::Array(a) => a.iter().any(|x| holds(x, needle)),
        Value::Object(m) => m
            .iter()
            .any(|(k, x)| k.contains(needle) || holds(x, needle)),
        _ => false,
    }
}

/// `` `a`, `b` ``.
fn listed(keys: &[&String]) -> String {
    keys.iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The members of an entry that adopts as it is which stay in the file outside the manifest:
/// the client's own keys and the user's settings mcpconf keeps (each named, never its value).
fn kept_note(name: &str, found: &Value, state: &[String], d: &dyn Dialect, notes: &mut Notes) {
    let Some(m) = found.as_object() else { return };
    let has_command = m.contains_key("command") || m.contains_key("cmd");
    let present: Vec<&String> = state
        .iter()
        .filter(|k| {
            m.get(k.as_str())
                .is_some_and(|v| !crate::ledger::is_default(k, v, has_command, d.defaults()))
        })
        .collect();
    let unread = crate::dialect::unread_keys(d, found);
    let (unread, present): (Vec<&String>, Vec<&String>) =
        present.into_iter().partition(|k| unread.contains(k));
    let (user, client): (Vec<&String>, Vec<&String>) = present
        .into_iter()
        .partition(|k| !d.client_managed().keys.contains(&k.as_str()));
    let id = d.id();
    let them = |n: usize| {
        if n == 1 {
            ("is", "it")
        } else {
            ("are", "them")
        }
    };
    if !client.is_empty() {
        let (is, it) = them(client.len());
        notes.say(format!(
            "server `{name}`: {} {is} what {id} keeps in its entries itself; left in the file, outside the manifest (`apply --adopt` takes the entry with {it})",
            listed(&client)
        ));
    }
    if !unread.is_empty() {
        let (is, it) = them(unread.len());
        notes.say(format!(
            "server `{name}`: {} {is} not read by {id} in this entry (nothing there uses {it}; `lint` reports a field {id} does not know as `unknown-field`); left in the file as written, outside the manifest (`apply --adopt` takes the entry with {it}, and an update keeps {it})",
            listed(&unread)
        ));
    }
    if !user.is_empty() {
        let (is, it) = them(user.len());
        notes.say(format!(
            "server `{name}`: {} {is} {id}'s own {} that the manifest does not carry; left in the file as written (`apply --adopt` takes the entry with {it}, and an update keeps {it} byte for byte)",
            listed(&user),
            if user.len() == 1 { "setting" } else { "settings" }
        ));
    }
}
