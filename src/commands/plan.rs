//! `mcpconf plan`, `apply` (without `--watch`) and `prune`: plan, confirm, write, report.

use std::path::Path;

use super::*;
use crate::console::println;

/// `mcpconf plan [--check] [--out PLAN] [--prune | --adopt]`.
pub(super) fn run_plan(
    cx: &Cx<'_>,
    check: bool,
    out: Option<&Path>,
    (prune, adopt): (bool, bool),
) -> u8 {
    let progress = output::Progress::start("planning", cx.progress_ok);
    let mode = if prune {
        Mode::Prune
    } else {
        Mode::Apply { adopt }
    };
    let mut r = engine::plan(cx.settings, cx.manifest, cx.owner, mode);
    drop(progress);
    if check && r.exit == Exit::Ok && r.has_changes() {
        r.exit = Exit::Found;
    }
    if let (Some(out), Some(m)) = (out, cx.manifest)
        && r.exit != Exit::Refused
        && let Err(code) = save_plan(cx, m, &r, out, adopt)
    {
        return code;
    }
    finish(
        &r,
        &crate::scan::redactor_for(&r, cx.red),
        cx.json,
        cx.style,
        false,
    )
}

/// `plan --out PLAN`: the plan saved for a later `apply PLAN`, through the writer of
/// mcpconf's own files; the exit code of a failure, printed.
fn save_plan(cx: &Cx<'_>, m: &Manifest, r: &Report, out: &Path, adopt: bool) -> Result<(), u8> {
    let s = cx.settings;
    let sp = SavedPlan {
        format_version: 1,
        mode: "apply".into(),
        adopt,
        owner: cx.owner.to_string(),
        manifest: SavedManifest {
            path: s.manifest.clone(),
            digest: m.digest.clone(),
        },
        root: s.root.clone(),
        home: s.home.clone(),
        state_dir: s.state_dir.clone(),
        workspace: s.workspace.clone(),
        take_over: s.take_over.clone(),
        replace: s.replace.clone(),
        files: SavedPlan::files_of(&r.files),
    };
    write_new_file(out, sp.to_json().as_bytes(), s.lock_timeout).map_err(|e| {
        let exit = if e.code == crate::diag::Code::NotAFile {
            Exit::Refused
        } else {
            Exit::Io
        };
        Failure::at(exit, Path::new(""), e.code, e.message).print(cx.json)
    })?;
    Ok(())
}

/// `mcpconf apply [--yes] [--adopt] [PLAN]`: a saved plan must still match the manifest it
/// was made from.
pub(super) fn run_apply_command(
    cx: &Cx<'_>,
    (yes, adopt): (bool, bool),
    saved: Option<(&SavedPlan, &Path)>,
) -> u8 {
    if let (Some((sp, _)), Some(m)) = (saved, cx.manifest)
        && sp.manifest.digest != m.digest
    {
        let r = Report {
            owner: cx.owner.to_string(),
            changed: false,
            files: Vec::new(),
            errors: vec![engine::ErrorEntry {
                path: cx.settings.manifest.display().to_string(),
                code: crate::diag::Code::StalePlan,
                message: "the manifest (or the lock records its registry servers resolve from) changed since the plan was made; nothing was written (make a new plan)".into(),
                line: 1,
                column: 1,
            }],
            exit: Exit::Refused,
            applied: false,
        };
        return finish(&r, cx.red, cx.json, cx.style, false);
    }
    let adopt = adopt || saved.is_some_and(|(s, _)| s.adopt);
    run_apply(
        cx.settings,
        cx.manifest,
        cx.owner,
        Mode::Apply { adopt },
        yes,
        saved,
        cx.red,
        cx.json,
        cx.style,
    )
}

/// `mcpconf prune [--yes]`: with nothing recorded and no legacy shape to look for, says so
/// instead of "No changes.".
pub(super) fn run_prune(cx: &Cx<'_>, yes: bool) -> u8 {
    let legacy = cx
        .manifest
        .is_some_and(|m| m.owner == cx.owner && !m.legacy.is_empty());
    if !cx.json
        && !legacy
        && let Ok(false) = engine::has_records(cx.settings, cx.manifest, cx.owner)
        && !engine::holds_restore_copies(cx.settings, cx.owner)
    {
        println!(
            "Owner `{}` has nothing recorded in `{}`: there is nothing to prune.",
            cx.owner,
            cx.settings.state_dir.display()
        );
        return 0;
    }
    run_apply(
        cx.settings,
        cx.manifest,
        cx.owner,
        Mode::Prune,
        yes,
        None,
        cx.red,
        cx.json,
        cx.style,
    )
}
