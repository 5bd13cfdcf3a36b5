//! Agent files whose grants live beside the entries (Kiro agents' `tools` and `allowedTools`):
//! what the agent may use of each server is part of what import reads, so that adopting the
//! import never widens the agent's access.
//!
//! In `tools`, `*` and `@server` (or `@server/*`) grant every tool of a server, `@server/tool`
//! one tool: those are the server's `tools` pin. `allowedTools` approves tools without a
//! prompt: a target's `auto_approve` (every server wholly approved) where the file says so.

use serde_json::Value;
use toml_edit::{Array, Item, Table, value};

use super::Notes;

/// What one array grants one server: all of it, some tools (by name), or nothing.
enum Granted {
    All,
    Tools(Vec<String>),
    Nothing,
}

/// The strings of a top-level array of the file (`None` when it has no such array).
fn array_of<'a>(file: &'a Value, key: &str) -> Option<Vec<&'a str>> {
    file.get(key)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
}

fn granted(items: &[&str], server: &str, star_too: bool) -> Granted {
    let whole = format!("@{server}");
    let prefix = format!("{whole}/");
    if items
        .iter()
        .any(|x| *x == whole || (star_too && *x == "*") || x.strip_prefix(&prefix) == Some("*"))
    {
        return Granted::All;
    }
    let tools: Vec<String> = items
        .iter()
        .filter_map(|x| x.strip_prefix(&prefix))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect();
    if tools.is_empty() {
        Granted::Nothing
    } else {
        Granted::Tools(tools)
    }
}

/// Reads the grants of an agent file (`file`, the whole document) into the servers of
/// `table` (their `tools` pins) and into `target` (`auto_approve`), with a warning for what
/// the manifest cannot carry (a partial auto-approval stays in the file as the user's).
pub(super) fn read_grants(file: &Value, table: &mut Table, target: &mut Table, notes: &mut Notes) {
    let names: Vec<String> = table.iter().map(|(k, _)| k.to_string()).collect();
    if let Some(tools) = array_of(file, "tools") {
        for name in &names {
            let pin = match granted(&tools, name, true) {
                Granted::All => continue,
                Granted::Tools(t) => t,
                Granted::Nothing => {
                    notes.say(format!(
                        "server `{name}`: the agent's `tools` grants none of its tools, so the agent cannot use it; imported with `tools = []` (mcpconf grants none either)"
                    ));
                    Vec::new()
                }
            };
            if let Some(t) = table.get_mut(name).and_then(Item::as_table_mut) {
                let mut a = Array::new();
                for tool in &pin {
                    a.push(tool.as_str());
                }
                t["tools"] = value(a);
            }
        }
    }
    let Some(allowed) = array_of(file, "allowedTools") else {
        return;
    };
    let each: Vec<(&String, Granted)> = names
        .iter()
        .map(|n| (n, granted(&allowed, n, false)))
        .collect();
    if !each.is_empty() && each.iter().all(|(_, g)| matches!(g, Granted::All)) {
        target["auto_approve"] = value(true);
        return;
    }
    for (name, g) in each {
        let what = match g {
            Granted::All => "all of its tools".to_string(),
            Granted::Tools(t) => t
                .iter()
                .map(|x| format!("`{x}`"))
                .collect::<Vec<_>>()
                .join(", "),
            Granted::Nothing => continue,
        };
        notes.say(format!(
            "server `{name}`: the agent's `allowedTools` approves {what} without a prompt; the manifest's `auto_approve` approves every tool of every server of a target, so it is not set: those approvals stay in the file as the user's (mcpconf neither widens nor removes them)"
        ));
    }
}
