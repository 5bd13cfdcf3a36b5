//! `mcpconf status`: the ledger's records and whether each is intact, and what `--check`
//! fails on.

use super::*;
use crate::console::{eprint, print, println};
use crate::diag::Code;
use crate::engine::{ErrorEntry, RecordState};

/// `mcpconf status [--check] [--all]`: exit 1 under `--check` when a record is not intact, or
/// when the manifest declares targets and this workspace has no record at all (a runner that
/// never applied is not a configured machine).
pub(super) fn run_status(
    settings: &Settings,
    manifest: Option<&Manifest>,
    owner: &str,
    (check, all): (bool, bool),
    red: &Redactor,
    (json, style): (bool, Style),
) -> u8 {
    let (ws, records) = match engine::status(settings, manifest, owner, all) {
        Ok(x) => x,
        Err(r) => return finish(&r, red, json, style, false),
    };
    let errors: Vec<ErrorEntry> = if check {
        never_applied(manifest, settings, owner, &ws, &records)
            .into_iter()
            .collect()
    } else {
        Vec::new()
    };
    let mut shown = output::status_text(owner, &ws, all, &records, &errors, json);
    // The active profile (issue 43): a line of text, a field of the JSON document.
    if let Some(p) = manifest.and_then(|m| m.profile.as_deref()) {
        if json {
            if let Ok(serde_json::Value::Object(mut doc)) = serde_json::from_str(&shown) {
                doc.insert("profile".into(), p.into());
                shown = serde_json::to_string_pretty(&doc).unwrap_or(shown) + "\n";
            }
        } else {
            shown = format!("profile `{}`\n{shown}", crate::redact::escape_controls(p));
        }
    }
    print!("{shown}");
    if !json {
        eprint!("{}", output::errors_text(&errors, red, style));
    }
    let not_intact = records.iter().any(|r| r.state != RecordState::Intact);
    if check && (not_intact || !errors.is_empty()) {
        Exit::Found as u8
    } else {
        0
    }
}

/// The `no-records` finding: a manifest that declares targets, and no ledger record of this
/// workspace (`status --all`: of any workspace).
fn never_applied(
    manifest: Option<&Manifest>,
    settings: &Settings,
    owner: &str,
    ws: &str,
    records: &[engine::RecordStatus],
) -> Option<ErrorEntry> {
    let m = manifest?;
    if m.targets.is_empty() || !records.is_empty() {
        return None;
    }
    Some(ErrorEntry {
        path: settings.manifest.display().to_string(),
        code: Code::NoRecords,
        message: format!(
            "the manifest declares {} target{} but owner `{owner}` has no ledger records in workspace `{ws}`: nothing was applied here (run `mcpconf apply`; with another --state-dir or --workspace, pass the same one)",
            m.targets.len(),
            if m.targets.len() == 1 { "" } else { "s" }
        ),
        line: 1,
        column: 1,
    })
}

/// `mcpconf release SERVER [--client ID]`: the ledger forgets the records, the entries become
/// the user's.
pub(super) fn run_release(cx: &Cx<'_>, server: &str, client: Option<&str>) -> u8 {
    let removed = match engine::release(cx.settings, cx.manifest, cx.owner, server, client) {
        Ok(removed) => removed,
        Err(r) => return finish(&r, cx.red, cx.json, cx.style, false),
    };
    if cx.json {
        let doc = serde_json::json!({
            "format_version": 1,
            "owner": cx.owner,
            "released": removed.iter().map(|r| serde_json::json!({
                "path": r.file, "client": r.client, "server": r.server,
                "pointer": r.pointer, "kind": r.kind,
            })).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    } else {
        for r in &removed {
            println!("released {} {} ({})", r.server, r.file, r.pointer);
        }
        println!(
            "The ledger of `{}` forgot {} record{}; the entries are now the user's.",
            cx.owner,
            removed.len(),
            if removed.len() == 1 { "" } else { "s" }
        );
    }
    0
}
