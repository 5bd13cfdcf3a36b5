//! `mcpconf inventory`: print every MCP server configured on this machine (see
//! [`crate::lint::inventory`]).

use super::*;
use crate::console::println;

/// `mcpconf inventory [DIR…] [--discover DIR…] [--format json]`: the root's, the home's and
/// each more project root's servers; exit 0, or 1 when a file or ledger could not be read (it
/// is named; the rows of the others are printed), 2 when a directory given is none.
pub(super) fn run_inventory(
    settings: &Settings,
    (dirs, discover): (&[std::path::PathBuf], &[std::path::PathBuf]),
    json: bool,
) -> u8 {
    let mut roots: Vec<std::path::PathBuf> = Vec::new();
    for d in dirs {
        if !d.is_dir() {
            return usage_error(json, format!("`{}` is not a directory", d.display()));
        }
        roots.push(d.clone());
    }
    for d in discover {
        match fsio::repositories(d, 6) {
            Ok(found) => roots.extend(found),
            Err(e) => return usage_error(json, format!("--discover: {}", e.message)),
        }
    }
    let req = crate::lint::Request {
        client_homes: settings.client_homes.clone(),
        xdg_config_home: settings.xdg_config_home.clone(),
        state_dir: Some(settings.state_dir.clone()),
        paths: roots,
        ..crate::lint::Request::new(settings.root.clone(), settings.home.clone())
    };
    let (rows, unread) = crate::lint::inventory::inventory(&req);
    let code = if unread.is_empty() {
        0
    } else {
        Exit::Found as u8
    };
    if json {
        let doc = serde_json::json!({"format_version": 1, "servers": rows, "unread": unread});
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        return code;
    }
    let esc = |s: &str| crate::redact::escape_controls(s).into_owned();
    let mut table = vec![[
        "CLIENT".to_string(),
        "SCOPE".into(),
        "NAME".into(),
        "TRANSPORT".into(),
        "ENABLED".into(),
        "OWNER".into(),
        "STATE".into(),
        "COMMAND OR URL".into(),
        "FILE".into(),
    ]];
    for r in &rows {
        table.push([
            r.client.to_string(),
            r.scope.to_string(),
            esc(&r.name),
            r.transport.to_string(),
            if r.enabled { "yes" } else { "no" }.to_string(),
            r.owner.as_deref().map_or("-".to_string(), esc),
            r.state.to_string(),
            esc(&r.target),
            esc(&r.path),
        ]);
    }
    let mut widths = [0usize; 9];
    for row in &table {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    for row in &table {
        let line: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        println!("{}", line.join("  ").trim_end());
    }
    println!(
        "\n{} server{} in {} file{}",
        rows.len(),
        if rows.len() == 1 { "" } else { "s" },
        {
            let mut files: Vec<&str> = rows.iter().map(|r| r.path.as_str()).collect();
            files.sort_unstable();
            files.dedup();
            files.len()
        },
        if rows
            .iter()
            .map(|r| &r.path)
            .collect::<std::collections::BTreeSet<_>>()
            .len()
            == 1
        {
            ""
        } else {
            "s"
        }
    );
    for u in &unread {
        crate::console::eprintln!(
            "error: `{}` could not be read: {}",
            esc(&u.path),
            esc(&u.message)
        );
    }
    code
}
