//! Restore copies: the exact text of entries `apply --take-over` replaced, kept so that `prune`
//! gives them back byte for byte. One file per owner beside the ledger,
//! `<state>/ledger/<owner>.restore.json`, mode 0600 (it may hold a literal secret of the entry
//! replaced; the ledger itself still holds only digests). Nothing here is ever printed.
//!
//! Crash order (the engine's): a copy is saved durably before the file that loses the entry is
//! written, and dropped only after the ledger no longer has a record that needs it; a copy
//! without a record is left over from a killed run and is dropped by the next save.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::fsio::{self, FsError, MAX_FILE};

/// One replaced entry: where it was, its value, and the text around it before and after the
/// take-over (whole lines), so the restore is a splice of the very bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RestoreCopy {
    /// The workspace that took the entry over.
    pub workspace: String,
    /// Canonical path of the file (the ledger's key).
    pub file: String,
    /// JSON pointer of the entry.
    pub pointer: String,
    /// The server name.
    pub server: String,
    /// `sha256:<hex>` of the replaced value's canonical form (see [`super::digest`]).
    pub original_digest: String,
    /// The replaced value (restored by value when the text around it changed since).
    pub original: Value,
    /// The lines of the file that held the replaced entry, exactly.
    pub old_text: String,
    /// The same lines as the take-over wrote them.
    pub new_text: String,
}

/// An owner's restore copies.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Restores {
    /// 1.
    pub format_version: u32,
    /// The copies, in the order they were taken.
    pub copies: Vec<RestoreCopy>,
}

impl Restores {
    /// The copy of a workspace's entry at a file and pointer.
    pub fn find(&self, workspace: &str, file: &str, pointer: &str) -> Option<&RestoreCopy> {
        self.copies
            .iter()
            .find(|c| c.workspace == workspace && c.file == file && c.pointer == pointer)
    }

    /// Add or replace a copy (same workspace, file and pointer).
    pub fn put(&mut self, copy: RestoreCopy) {
        self.drop_copy(&copy.workspace, &copy.file, &copy.pointer);
        self.copies.push(copy);
    }

    /// Forget a copy.
    pub fn drop_copy(&mut self, workspace: &str, file: &str, pointer: &str) {
        self.copies
            .retain(|c| !(c.workspace == workspace && c.file == file && c.pointer == pointer));
    }
}

/// Where an owner's restore copies live.
pub fn restore_path(state_dir: &Path, owner: &str) -> PathBuf {
    state_dir
        .join("ledger")
        .join(format!("{owner}.restore.json"))
}

/// Load an owner's restore copies (none when there is no file). A file that cannot be read or
/// is not restore copies is an error, never "no copies": a copy must not be lost silently.
pub fn load_restores(state_dir: &Path, owner: &str) -> Result<Restores, FsError> {
    let path = restore_path(state_dir, owner);
    let Some(r) = fsio::read_existing(&path, MAX_FILE)? else {
        return Ok(Restores::default());
    };
    let corrupt = |why: String| FsError {
        code: crate::diag::Code::LedgerCorrupt,
        path: path.clone(),
        message: format!(
            "the restore copies `{}` {why}; nothing was changed: restore the file from a backup or move it away",
            path.display()
        ),
        source: None,
        published: false,
    };
    // serde's message may quote a value (a replaced entry's secret): only the place is said.
    let restores: Restores = serde_json::from_slice(&r.bytes).map_err(|e| {
        corrupt(format!(
            "cannot be read (not restore copies at line {} column {})",
            e.line(),
            e.column()
        ))
    })?;
    // A copy is given back only as it was taken: its value must still hash to the digest
    // recorded with it (a copy edited or swapped since would put foreign text in a user's file).
    if let Some(c) = restores
        .copies
        .iter()
        .find(|c| super::digest(&c.original) != c.original_digest)
    {
        return Err(corrupt(format!(
            "hold a copy of `{}` in `{}` that does not match its recorded digest (edited or damaged since it was taken)",
            c.server, c.file
        )));
    }
    Ok(restores)
}

/// Save an owner's restore copies atomically and durably (a new file is created 0600); no
/// copies: the file is removed. Unchanged copies are not rewritten.
pub fn save_restores(state_dir: &Path, owner: &str, restores: &Restores) -> Result<(), FsError> {
    let path = restore_path(&super::store::state_dir(state_dir), owner);
    if restores.copies.is_empty() {
        return fsio::remove_own(&path);
    }
    let mut out = restores.clone();
    out.format_version = 1;
    let mut text = serde_json::to_string_pretty(&out).unwrap_or_default();
    text.push('\n');
    fsio::create_parent_dirs(&path)?;
    // The caller holds the owner's ledger lock; a temp a killed save left (it may hold the
    // replaced entry's secret) is removed under it.
    super::store::write_held(&path, &text, fsio::Durability::Durable)
}
