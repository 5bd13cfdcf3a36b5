//! `drift`: entries a ledger says mcpconf wrote, edited since.

use std::collections::BTreeMap;

use crate::fsio;
use crate::ledger::{self, Kind, Ownership};
use crate::lint::Request;
use crate::lint::run::{Raw, Run};

/// The ledgers' entry records by file, in owner then record order (for `drift`).
pub(in crate::lint) type Ledgers = BTreeMap<String, Vec<(String, ledger::Record)>>;

/// The entry records of the ledgers `drift` checks, by file (none without a state directory),
/// and the ledgers that could not be read: where, and why (an I/O message, never a value).
pub(in crate::lint) fn ledgers(req: &Request) -> (Ledgers, Vec<(std::path::PathBuf, String)>) {
    let mut out = Ledgers::new();
    let mut unread = Vec::new();
    let Some(state) = req.state_dir.as_deref() else {
        return (out, unread);
    };
    let owners = if req.owners.is_empty() {
        match fsio::glob(&state.join("ledger").join("*.json")) {
            // `<owner>.json` only: an owner's restore copies (`<owner>.restore.json`) sit
            // beside its ledger and are no ledger of their own.
            Ok(found) => found
                .iter()
                .filter(|p| !p.to_string_lossy().ends_with(".restore.json"))
                .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
                .collect(),
            Err(e) => {
                unread.push((e.path.clone(), e.message.clone()));
                Vec::new()
            }
        }
    } else {
        req.owners.clone()
    };
    for owner in owners {
        let (ledger, _) = match ledger::load(state, &owner) {
            Ok(l) => l,
            Err(e) => {
                unread.push((ledger::path(state, &owner), e.message));
                continue;
            }
        };
        for rec in ledger.records {
            if rec.kind == Kind::Entry {
                out.entry(rec.file.clone())
                    .or_default()
                    .push((owner.clone(), rec));
            }
        }
    }
    (out, unread)
}

impl Run<'_> {
    /// `drift` in one file as it is checked (into `self.drift`); returns its canonical path,
    /// the one ledgers name files by.
    pub(in crate::lint) fn drift_in(&mut self, file: usize, ledgers: &Ledgers) -> String {
        let real = self.real(file);
        let canonical = fsio::resolve(real)
            .unwrap_or_else(|_| real.to_path_buf())
            .display()
            .to_string();
        let Some(records) = ledgers.get(&canonical) else {
            return canonical;
        };
        // Where an entry is the owner's current one (recorded, intact): a legacy shape there is
        // what `apply` wrote and keeps (a client whose own syntax spells the entry as the old
        // writer did), not a stale leftover, so `stale-legacy` does not apply to it.
        let mut current = Vec::new();
        for (owner, rec) in records {
            let Some((mut path, name)) = ledger::split_pointer(&rec.pointer) else {
                continue;
            };
            path.push(name.clone());
            let Some(src) = self.src(file) else { continue };
            // An entry whose only changes are the client's own keys is not drifted.
            let entry = src.get(&path);
            let ownership = rec.ownership_in(entry, crate::dialect::client_facts(&rec.client));
            if ownership == Ownership::Intact {
                current.push(src.locate(&path));
            }
            if ownership != Ownership::Drifted {
                continue;
            }
            let (line, column) = src.locate(&path);
            self.drift.push(Raw {
                rule: "drift",
                file,
                line,
                column,
                message: format!(
                    "server `{name}` was written by mcpconf for owner `{owner}` and edited since{}, so `mcpconf apply` and `prune` refuse to touch it; undo the edit, or keep it and make the entry yours with `mcpconf release {name}`",
                    entry
                        .and_then(|v| rec.differing_member(v))
                        .map(|d| format!(" ({d})"))
                        .unwrap_or_default()
                ),
            });
        }
        self.raw.retain(|r| {
            !(r.rule == "stale-legacy" && r.file == file && current.contains(&(r.line, r.column)))
        });
        canonical
    }

    /// Entries a ledger says mcpconf wrote, edited since: the findings of the files checked,
    /// for the last file of each canonical path (`any`: whether a ledger has entry records).
    pub(in crate::lint) fn drift(&mut self, any: bool) {
        if !any {
            return;
        }
        let canonical: BTreeMap<String, usize> = self
            .files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.report)
            .map(|(i, f)| {
                let real = f.canonical().cloned().unwrap_or_else(|| {
                    let real = self.real(i);
                    let real = fsio::resolve(real).unwrap_or_else(|_| real.to_path_buf());
                    real.display().to_string()
                });
                (real, i)
            })
            .collect();
        for r in std::mem::take(&mut self.drift) {
            if let Some(c) = self.files[r.file].canonical()
                && canonical.get(c) == Some(&r.file)
            {
                self.raw.push(r);
            }
        }
    }
}
