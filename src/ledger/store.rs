//! Loading and saving an owner's ledger, through [`crate::fsio`]: `<state>/ledger/<owner>.json`.

use std::path::{Path, PathBuf};

use super::Ledger;
use crate::diag::Code;
use crate::fsio::{self, Expect, FsError, MAX_FILE};

/// Where an owner's ledger lives.
pub fn path(state_dir: &Path, owner: &str) -> PathBuf {
    state_dir.join("ledger").join(format!("{owner}.json"))
}

/// The lock that serialises the writers of an owner's ledger.
pub fn lock_path(state_dir: &Path, owner: &str) -> PathBuf {
    state_dir.join("ledger").join(format!("{owner}.lock"))
}

/// Load an owner's ledger (empty if there is none), with the stamp of the file read. A ledger
/// that exists but cannot be read (`unreadable`), that is not a ledger or belongs to another
/// owner (`ledger-corrupt`), or an owner that is not a valid name (`invalid-owner`) is an error,
/// never an empty ledger.
pub fn load(state_dir: &Path, owner: &str) -> Result<(Ledger, Option<fsio::Stamp>), FsError> {
    let path = path(state_dir, owner);
    let fail = |code: Code, path: &Path, message: String| FsError {
        code,
        path: path.to_path_buf(),
        message,
        source: None,
        published: false,
    };
    if !crate::manifest::valid_owner(owner) {
        return Err(fail(
            Code::InvalidOwner,
            state_dir,
            crate::manifest::owner_error(owner),
        ));
    }
    let corrupt = |message: String| fail(Code::LedgerCorrupt, &path, message);
    let read = fsio::read_existing(&path, MAX_FILE).map_err(|e| {
        fail(
            Code::Unreadable,
            &e.path,
            format!(
                "the ledger `{}` exists but cannot be read ({}); nothing was changed: fix it or move it away to start over",
                path.display(),
                e.message
            ),
        )
    })?;
    match read {
        None => Ok((Ledger::new(owner), None)),
        Some(r) => {
            let text = String::from_utf8_lossy(&r.bytes);
            match Ledger::from_json(&text) {
                Ok(l) if l.owner == owner => Ok((l, Some(r.stamp))),
                Ok(_) => Err(corrupt(format!(
                    "the ledger `{}` belongs to another owner",
                    path.display()
                ))),
                Err(m) => Err(corrupt(format!(
                    "the ledger `{}` cannot be read ({m}); nothing was changed: restore it from a backup or move it away to start over",
                    path.display()
                ))),
            }
        }
    }
}

/// Save an owner's ledger atomically; an empty ledger that was never saved stays unsaved, and
/// identical bytes are not rewritten.
pub fn save(state_dir: &Path, ledger: &Ledger) -> Result<(), FsError> {
    // Resolved once: the write-side calls of `fsio` never follow a link on the way, so a state
    // directory reached through one (a dotfile manager's) is resolved here.
    let path = path(state_dir, &ledger.owner);
    let path = fsio::resolve(&path).unwrap_or(path);
    fsio::create_parent_dirs(&path)?;
    let current = fsio::read(&path, MAX_FILE)?;
    let (meta, expect) = match &current {
        Some(r) => (Some(r.meta), Expect::Stamp(r.stamp)),
        None => (None, Expect::Missing),
    };
    if ledger.records.is_empty() && current.is_none() {
        return Ok(());
    }
    let text = ledger.to_json();
    if current.as_ref().is_some_and(|r| r.bytes == text.as_bytes()) {
        return Ok(());
    }
    fsio::replace(&path, text.as_bytes(), meta, expect)
}
