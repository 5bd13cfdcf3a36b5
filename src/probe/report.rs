//! Rendering probe outcomes (strings only; the command layer prints) and the pins diff.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use super::FailureCode;
use super::Outcome;
use crate::redact::Redactor;

/// Set the server's `tool_digests` to what the probe found; whether anything changed. Under
/// a `[servers.NAME]` table it becomes a `[servers.NAME.tool_digests]` table (one line per
/// tool), in an inline server an inline table.
fn set_digests(
    table: &mut dyn toml_edit::TableLike,
    standard: Option<Option<isize>>,
    o: &Outcome,
) -> bool {
    let current: Option<BTreeMap<String, String>> = table
        .get("tool_digests")
        .and_then(toml_edit::Item::as_table_like)
        .map(|t| {
            t.iter()
                .filter_map(|(k, v)| Some((k.to_string(), v.as_str()?.to_string())))
                .collect()
        });
    let found: BTreeMap<String, String> = o
        .tools
        .iter()
        .filter_map(|t| Some((t.clone(), o.tool_digests.get(t)?.clone())))
        .collect();
    if current.as_ref() == Some(&found) {
        return false;
    }
    let Some(position) = standard else {
        let mut t = toml_edit::InlineTable::new();
        for (k, v) in &found {
            t.insert(k, v.as_str().into());
        }
        let mut value = toml_edit::Value::InlineTable(t);
        value.decor_mut().set_prefix(" ");
        table.insert("tool_digests", toml_edit::Item::Value(value));
        return true;
    };
    {
        let mut t = toml_edit::Table::new();
        // Right after the server's own section (tables are written in position order).
        t.set_position(position);
        for (k, v) in &found {
            t.insert(k, toml_edit::value(v.as_str()));
        }
        table.insert("tool_digests", toml_edit::Item::Table(t));
    }
    true
}

/// The sum of the servers' `context_tokens`, over the servers whose tools were listed.
pub fn context_total(outcomes: &[Outcome]) -> u64 {
    outcomes
        .iter()
        .filter_map(|o| o.context_tokens)
        .fold(0, u64::saturating_add)
}

/// `{"servers":[…]}` (contract §8), with the encoding tokens are counted in and the servers' total context cost,
/// the active profile (`--profile`, or the manifest's `profile`) when there is one, and
/// `pins_diff` when pins were asked for.
pub fn report_json(
    outcomes: &[Outcome],
    pins_diff: Option<&str>,
    profile: Option<&str>,
    red: &Redactor,
) -> String {
    #[derive(Serialize)]
    struct Doc<'a> {
        format_version: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        profile: Option<&'a str>,
        encoding: &'static str,
        context_tokens_total: u64,
        servers: &'a [Outcome],
        #[serde(skip_serializing_if = "Option::is_none")]
        pins_diff: Option<&'a str>,
    }
    let mut s = serde_json::to_string_pretty(&Doc {
        format_version: 1,
        profile,
        encoding: super::TOKENIZER,
        context_tokens_total: context_total(outcomes),
        servers: outcomes,
        pins_diff,
    })
    .unwrap_or_default();
    s.push('\n');
    red.redact_json(&s)
}

/// The table: one row per server.
fn table(outcomes: &[Outcome]) -> String {
    let mut rows = vec![[
        "SERVER".to_string(),
        "RESULT".to_string(),
        "PROTOCOL".to_string(),
        "IMPLEMENTATION".to_string(),
        "TOOLS".to_string(),
        "TOKENS".to_string(),
        "UNPINNED".to_string(),
        "MISSING".to_string(),
        "CHANGED".to_string(),
    ]];
    for o in outcomes {
        let pin_col = |v: &Vec<String>| {
            if !o.ok {
                "-".to_string()
            } else if !o.pinned {
                "no pin".to_string()
            } else {
                v.len().to_string()
            }
        };
        rows.push([
            o.name.clone(),
            if o.ok {
                "ok".into()
            } else {
                format!("FAIL ({})", o.code.map_or("error", FailureCode::as_str))
            },
            o.protocol_version.clone().unwrap_or_else(|| "-".into()),
            o.server
                .as_ref()
                .map(|s| format!("{} {}", s.name, s.version).trim().to_string())
                .unwrap_or_else(|| "-".into()),
            if o.ok {
                o.tools.len().to_string()
            } else {
                "-".into()
            },
            o.context_tokens
                .map_or_else(|| "-".into(), |n| n.to_string()),
            pin_col(&o.unpinned),
            pin_col(&o.missing),
            pin_col(&o.changed),
        ]);
    }
    let mut widths = [0usize; 9];
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    for r in &rows {
        let mut line = String::new();
        for (i, (c, w)) in r.iter().zip(widths).enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            let _ = write!(line, "{c:<w$}");
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

/// A table of the outcomes, then the details of each failure and pin mismatch, the summary,
/// and what the tool definitions cost an agent's context (for `profile`, when one is active).
pub fn report_text(outcomes: &[Outcome], profile: Option<&str>, red: &Redactor) -> String {
    let mut out = table(outcomes);
    for o in outcomes {
        if let Some(e) = &o.error {
            let _ = writeln!(out, "\n{}: {e}", o.name);
            if let Some(tail) = &o.stderr {
                let _ = writeln!(out, "  stderr (last lines):");
                let lines: Vec<&str> = tail.lines().collect();
                for l in &lines[lines.len().saturating_sub(20)..] {
                    let _ = writeln!(out, "  | {l}");
                }
            }
            continue;
        }
        if !o.unpinned.is_empty() {
            let _ = writeln!(
                out,
                "\n{}: {} tool{} exposed outside the pin: {}",
                o.name,
                o.unpinned.len(),
                if o.unpinned.len() == 1 { "" } else { "s" },
                o.unpinned.join(", ")
            );
        }
        if !o.missing.is_empty() {
            let _ = writeln!(
                out,
                "\n{}: {} pinned tool{} the server does not have: {}",
                o.name,
                o.missing.len(),
                if o.missing.len() == 1 { "" } else { "s" },
                o.missing.join(", ")
            );
        }
        if !o.changed.is_empty() {
            let _ = writeln!(
                out,
                "\n{}: {} pinned tool{} changed (the definition no longer matches `tool_digests`): {}",
                o.name,
                o.changed.len(),
                if o.changed.len() == 1 { "" } else { "s" },
                o.changed.join(", ")
            );
        }
    }
    let failed = outcomes.iter().filter(|o| !o.ok).count();
    let wide = outcomes
        .iter()
        .filter(|o| o.ok && !o.unpinned.is_empty())
        .count();
    let short = outcomes
        .iter()
        .filter(|o| o.ok && !o.missing.is_empty())
        .count();
    let smoked = outcomes
        .iter()
        .filter(|o| o.smoke == Some("passed"))
        .count();
    let changed = outcomes
        .iter()
        .filter(|o| o.ok && !o.changed.is_empty())
        .count();
    let _ = write!(
        out,
        "\n{} server{} probed: {} ok, {} failed, {} with unpinned tools",
        outcomes.len(),
        if outcomes.len() == 1 { "" } else { "s" },
        outcomes.len() - failed,
        failed,
        wide
    );
    if short > 0 {
        let _ = write!(out, ", {short} missing pinned tools");
    }
    if changed > 0 {
        let _ = write!(out, ", {changed} with changed tools");
    }
    if outcomes.iter().any(|o| o.smoke.is_some()) {
        let _ = write!(
            out,
            "; smoke checks passed by {smoked} of {}",
            outcomes.len()
        );
    }
    out.push('\n');
    context_line(&mut out, outcomes, profile);
    red.redact(&out)
}

/// `Tool definitions: N tokens of an agent's context (o200k_base) …`, after the summary.
fn context_line(out: &mut String, outcomes: &[Outcome], profile: Option<&str>) {
    let counted = outcomes
        .iter()
        .filter(|o| o.context_tokens.is_some())
        .count();
    let total = context_total(outcomes);
    let _ = write!(
        out,
        "Tool definitions: {total} token{} of an agent's context ({}), ",
        if total == 1 { "" } else { "s" },
        super::TOKENIZER
    );
    if counted == 1 && outcomes.len() == 1 {
        out.push_str("the server");
    } else if counted == outcomes.len() {
        let _ = write!(out, "all {counted} servers");
    } else {
        let _ = write!(
            out,
            "{counted} of {} servers (the others failed before listing their tools)",
            outcomes.len()
        );
    }
    if let Some(p) = profile {
        let _ = write!(out, ", profile `{p}`");
    }
    out.push('\n');
}

/// The manifest with `tools = [...]` set to what each reachable server exposes, as a unified
/// diff (empty when every pin already matches). The manifest is never written; the proposal
/// must pass [`crate::manifest::parse`] against `names`; a manifest that does not, or has no
/// `[servers]`, is a `manifest-error`.
pub fn pins_diff(
    manifest_text: &str,
    manifest_path: &Path,
    outcomes: &[Outcome],
    names: &dyn crate::manifest::Vocabulary,
) -> Result<String, crate::diag::Error> {
    let invalid = |m: String| crate::diag::Error::new(crate::diag::Code::ManifestError, m);
    let mut doc: toml_edit::DocumentMut = manifest_text
        .parse()
        .map_err(|e: toml_edit::TomlError| invalid(format!("the manifest does not parse: {e}")))?;
    let Some(servers) = doc
        .get_mut("servers")
        .and_then(toml_edit::Item::as_table_like_mut)
    else {
        return Err(invalid("the manifest has no `servers` table".into()));
    };
    let mut changed = false;
    for o in outcomes.iter().filter(|o| o.ok) {
        let standard = servers
            .get(&o.name)
            .and_then(toml_edit::Item::as_table)
            .map(toml_edit::Table::position);
        let Some(table) = servers
            .get_mut(&o.name)
            .and_then(toml_edit::Item::as_table_like_mut)
        else {
            continue;
        };
        let current: Option<BTreeSet<String>> = table.get("tools").and_then(|i| {
            i.as_array().map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
        });
        let found: BTreeSet<String> = o.tools.iter().cloned().collect();
        if set_digests(table, standard, o) {
            changed = true;
        }
        if current.as_ref() == Some(&found) {
            continue;
        }
        let mut arr = toml_edit::Array::new();
        for t in &o.tools {
            arr.push(t.as_str());
        }
        if o.tools.len() > 3 {
            for v in arr.iter_mut() {
                v.decor_mut().set_prefix("\n    ");
                v.decor_mut().set_suffix("");
            }
            arr.set_trailing("\n");
            arr.set_trailing_comma(true);
        }
        let mut value = toml_edit::Value::Array(arr);
        match table.get_mut("tools") {
            Some(item) => {
                if let Some(old) = item.as_value() {
                    *value.decor_mut() = old.decor().clone();
                }
                *item = toml_edit::Item::Value(value);
            }
            None => {
                value.decor_mut().set_prefix(" ");
                table.insert("tools", toml_edit::Item::Value(value));
            }
        }
        changed = true;
    }
    if !changed {
        return Ok(String::new());
    }
    let new = doc.to_string();
    crate::manifest::parse(&new, names).map_err(|e| {
        invalid(format!(
            "the proposed manifest would not be valid ({e}); not shown"
        ))
    })?;
    let path = manifest_path.display().to_string();
    Ok(similar::TextDiff::from_lines(manifest_text, &new)
        .unified_diff()
        .context_radius(3)
        .header(&path, &path)
        .to_string())
}
