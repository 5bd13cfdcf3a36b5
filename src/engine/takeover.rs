//! The restore copies of `apply --take-over` around a run's writes: which to keep before the
//! files are written, which to drop after the ledger commit (see `ledger::RestoreCopy`).

use crate::ledger::{self, Ledger, Restores};
use crate::plan::{FilePlan, RestoreOp, Status};
use crate::settings::Settings;

/// Whether `owner` has restore copies in the state directory (or a restore file that cannot be
/// read): a run killed after its ledger commit can leave a copy that no record needs, which
/// only a run that goes through the writes drops. `prune` with nothing recorded runs them
/// when this says so, instead of stopping at "nothing to prune".
pub fn holds_restore_copies(settings: &Settings, owner: &str) -> bool {
    ledger::load_restores(&settings.state_dir, owner).map_or(true, |r| !r.copies.is_empty())
}

/// Put the copies the plans keep into `restores`, and drop copies that no record (a pending
/// one included: call this after journaling) needs; whether anything changed.
pub(super) fn keep_copies(restores: &mut Restores, ledger: &Ledger, plans: &[FilePlan]) -> bool {
    let before = restores.copies.len();
    let mut changed = false;
    for fp in plans
        .iter()
        .filter(|p| p.writes() && p.status != Status::Refused)
    {
        for op in &fp.restore {
            if let RestoreOp::Keep(c) = op {
                restores.put((**c).clone());
                changed = true;
            }
        }
    }
    changed | forget_unneeded(restores, ledger, before)
}

/// After the ledger commit: drop the copies no record needs any more (entries given back, entries
/// gone, copies left by a killed run); whether anything changed. `written`: the files written.
pub(super) fn drop_copies(
    restores: &mut Restores,
    ledger: &Ledger,
    ws: &str,
    plans: &[FilePlan],
    written: &[String],
) -> bool {
    let before = restores.copies.len();
    for fp in plans {
        if fp.writes() && !written.contains(&fp.key) {
            continue;
        }
        for op in &fp.restore {
            if let RestoreOp::Drop(pointer) = op
                && ledger.find(ws, &fp.key, pointer).is_none()
            {
                restores.drop_copy(ws, &fp.key, pointer);
            }
        }
    }
    forget_unneeded(restores, ledger, before)
}

/// Drop copies without a record at their place; whether the copies changed since `before`.
fn forget_unneeded(restores: &mut Restores, ledger: &Ledger, before: usize) -> bool {
    restores
        .copies
        .retain(|c| ledger.find(&c.workspace, &c.file, &c.pointer).is_some());
    restores.copies.len() != before
}
