//! `mcpconf import --all` (every client file found under `--root` and `--home`) and `import
//! --client ID` of a client whose default path is a glob (Kiro agents): every file read as
//! `import` reads one, merged into one manifest: each server once, one target per file naming
//! the servers it holds (issue 41).

use super::client_file::file_ctx;
use super::*;
use toml_edit::{DocumentMut, Item, Table};

/// One file to import: its client, scope and path (as a target names it: `None` for the
/// scope's default file, else relative to the scope's base where it lies under it).
pub(super) struct Part {
    pub(super) client: &'static str,
    pub(super) scope: &'static str,
    pub(super) path: Option<String>,
}

/// Every known client file under the root and the home that exists, each scope it serves; a
/// file several clients read (`.mcp.json`: Claude Code's, and the generic `mcp-json`'s) is
/// imported once, as the first of them reads it, since one file holds one entry per name.
pub(super) fn every_file(settings: &Settings) -> Vec<Part> {
    let ctx = file_ctx(settings);
    let mut out = Vec::new();
    let mut seen: std::collections::HashSet<(std::path::PathBuf, Vec<String>)> =
        std::collections::HashSet::new();
    for (path, d, scopes) in crate::lint::client_files(&ctx) {
        if !path.is_file() {
            continue;
        }
        let scopes = if scopes.is_empty() {
            vec![d.default_scope().name]
        } else {
            scopes
        };
        for sc in scopes {
            let place = (path.clone(), d.container(sc, &ctx));
            if !seen.insert(place) {
                continue;
            }
            if let Some(scope) = d.scope(sc) {
                out.push(Part {
                    client: d.id(),
                    scope: scope.name,
                    path: target_path(&ctx, d, scope, &path),
                });
            }
        }
    }
    out
}

/// The files a client's glob path (`.kiro/agents/*.json`) matches, in order.
pub(super) fn glob_files(
    settings: &Settings,
    d: &'static dyn dialect::Dialect,
    scope: &'static dialect::Scope,
    path: Option<&str>,
) -> Vec<Part> {
    let ctx = file_ctx(settings);
    let pattern = d.path(scope, path, &ctx);
    fsio::glob(&pattern)
        .unwrap_or_default()
        .into_iter()
        .map(|p| Part {
            client: d.id(),
            scope: scope.name,
            path: target_path(&ctx, d, scope, &p),
        })
        .collect()
}

/// How a target names `file`: nothing for the scope's default file, else its path relative to
/// the scope's base (the root or the home) when it lies under it, else the absolute path.
fn target_path(
    ctx: &dialect::Ctx,
    d: &dyn dialect::Dialect,
    scope: &dialect::Scope,
    file: &Path,
) -> Option<String> {
    if d.path(scope, None, ctx) == file {
        return None;
    }
    let base = match scope.base {
        Base::Root => &ctx.root,
        Base::Home => &ctx.home,
    };
    Some(match file.strip_prefix(base) {
        Ok(rel) => rel.display().to_string(),
        Err(_) => file.display().to_string(),
    })
}

/// The parts imported and merged: each server once (the first file's entry; a differing entry
/// of the same name in a later file is left out of it, with a warning), one target per file
/// with the servers it holds. `None` when no file holds a server.
pub(super) fn merged(
    settings: &Settings,
    parts: &[Part],
    owner: &str,
    only: &[String],
) -> (Option<crate::import::Imported>, Vec<String>) {
    let mut warnings = Vec::new();
    let mut doc = DocumentMut::new();
    doc["owner"] = toml_edit::value(owner);
    let mut servers = Table::new();
    servers.set_implicit(true);
    let mut targets = toml_edit::ArrayOfTables::new();
    let (mut replaced, mut respelled, mut count) = (Vec::new(), Vec::new(), 0);
    let mut entries = 0;
    for part in parts {
        let read = read_client_only(
            settings,
            (part.client, Some(part.scope), part.path.as_deref()),
            owner,
            (&[], false),
        );
        let (imported, file, _, _) = match read {
            Ok(x) => x,
            Err(f) => {
                warnings.push(format!("{} is left out: {}", part.client, f.error.message));
                continue;
            }
        };
        let shown = file.display().to_string();
        entries += imported.entries;
        warnings.extend(imported.warnings.iter().map(|w| format!("{shown}: {w}")));
        let Ok(one) = imported.manifest.parse::<DocumentMut>() else {
            continue;
        };
        let mut names = Vec::new();
        if let Some(t) = one.get("servers").and_then(Item::as_table) {
            for (name, item) in t.iter() {
                if !only.is_empty() && !only.iter().any(|o| o == name) {
                    continue;
                }
                match servers.get(name) {
                    None => {
                        servers.insert(name, item.clone());
                        count += 1;
                    }
                    Some(have) if have.to_string() == item.to_string() => {}
                    Some(_) => {
                        warnings.push(format!(
                            "{shown}: server `{name}` is left out of this file's target: another file imported first holds a different entry of that name (import this file alone with --client and --path to see it)"
                        ));
                        continue;
                    }
                }
                names.push(name.to_string());
            }
        }
        if names.is_empty() {
            continue;
        }
        if let Some(t) = one
            .get("targets")
            .and_then(Item::as_array_of_tables)
            .and_then(|a| a.get(0))
        {
            let mut t = t.clone();
            let list: toml_edit::Array = names.iter().map(|n| n.as_str()).collect();
            t["servers"] = toml_edit::value(list);
            targets.push(t);
        }
        replaced.extend(imported.replaced);
        respelled.extend(imported.respelled);
    }
    if count == 0 {
        return (None, warnings);
    }
    doc["servers"] = Item::Table(servers);
    doc["targets"] = Item::ArrayOfTables(targets);
    replaced.dedup();
    respelled.sort();
    respelled.dedup();
    let imported = crate::import::Imported {
        manifest: doc.to_string(),
        warnings: Vec::new(),
        servers: count,
        entries,
        replaced,
        respelled,
    };
    (Some(imported), warnings)
}
