//! The one writer of mcpconf's own files: `mcpconf.lock`, saved plans (`plan --out`), and in
//! the state directory the ledgers, intents and restore copies. Client files are written by the
//! engine through [`super::replace`] after [`super::resolve`] (a client file that is a link
//! stays a link and its target is updated, as the contract says); mcpconf's own files never
//! are: a link in their place is refused, never followed, whatever it points at (an existing
//! file outside, nothing, a directory).
//!
//! Every write here:
//! 1. resolves the *directory* once (a state directory or a checkout reached through a link
//!    is followed) and never the file's own name;
//! 2. takes the directory's lock unless the caller holds the lock that serialises every writer
//!    of this file ([`Writers`]), and under it removes the temps a killed run left for this
//!    file (`.<name>.mcpconf-XXXXXX.tmp`, which may hold a secret a restore copy held);
//! 3. reads what is there with [`super::read`]: a symbolic link, a directory, a FIFO or any
//!    other non-regular file is `not-a-file`, and nothing is written;
//! 4. writes nothing when the bytes are already there, else replaces the file atomically
//!    ([`super::replace`]: a 0600 temp for a new file, fsync, rename, directory fsync) with the
//!    stamp read in step 3 as the expectation.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{Expect, FsError, MAX_FILE, lock_dirs, read, resolve};

/// Who keeps the writers of one of mcpconf's own files apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writers {
    /// The caller holds the lock that every writer of this file takes first (an owner's ledger
    /// lock for its ledger, intent and restore copies).
    Held,
    /// Nobody does: the file's directory is locked (`flock`) for the write, waiting at most
    /// this long (`lock-timeout`). `mcpconf lock` and `plan --out` write so.
    Lock(Duration),
}

/// How durable a write of one of mcpconf's own files is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// fsync of the temp and of the directory: the new content survives a power loss.
    Durable,
    /// Atomic against a kill, not durable across a power loss (the ledger commit, which its
    /// durable intent covers).
    AtomicOnly,
}

/// Whether a write changed the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// The file now holds the new bytes.
    Changed,
    /// It held them already: nothing was written (same inode, same mtime).
    Unchanged,
}

/// The path of one of mcpconf's own files with its directory resolved and its own name not:
/// what [`write_own`] and [`remove_own`] act on.
fn own_path(path: &Path) -> Result<PathBuf, FsError> {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let (dir, name) = super::write::split_path(&abs)?;
    Ok(resolve(dir)?.join(name))
}

/// Writes `bytes` as one of mcpconf's own files (see the module docs for the steps). The parent
/// directory must exist. Errors: `not-a-file` for a link or anything but a regular file in the
/// file's place, `lock-timeout`, and those of [`super::replace`].
pub fn write_own(
    path: &Path,
    bytes: &[u8],
    writers: Writers,
    durability: Durability,
) -> Result<Written, FsError> {
    let path = own_path(path)?;
    refuse_link(&path)?;
    let _guard = match writers {
        Writers::Held => None,
        Writers::Lock(timeout) => Some(lock_dirs(&[parent(&path)], timeout)?),
    };
    super::clean_stale_temps(&path)?;
    let current = read(&path, MAX_FILE)?;
    if current.as_ref().is_some_and(|r| r.bytes == bytes) {
        return Ok(Written::Unchanged);
    }
    let (meta, expect) = match &current {
        Some(r) => (Some(r.meta), Expect::Stamp(r.stamp)),
        None => (None, Expect::Missing),
    };
    match durability {
        Durability::Durable => super::replace(&path, bytes, meta, expect)?,
        Durability::AtomicOnly => super::replace_unsynced(&path, bytes, meta, expect)?,
    }
    Ok(Written::Changed)
}

/// Removes one of mcpconf's own files (its directory resolved, its name not), and the temps a
/// killed run left for it. A link or a directory in its place is `not-a-file` and stays; a
/// file already gone is success. The caller holds the lock of its writers.
pub fn remove_own(path: &Path) -> Result<(), FsError> {
    let path = own_path(path)?;
    refuse_link(&path)?;
    super::clean_stale_temps(&path)?;
    match read(&path, MAX_FILE)? {
        Some(_) => super::remove_file(&path),
        None => Ok(()),
    }
}

/// A symbolic link (dangling or not) or a directory in the place of one of mcpconf's own files,
/// refused with a message for that case ([`super::read`] refuses it too, and every other
/// non-regular file, should one be swapped in after this look).
pub fn refuse_link(path: &Path) -> Result<(), FsError> {
    let Ok(m) = std::fs::symlink_metadata(path) else {
        return Ok(());
    };
    let what = if m.file_type().is_symlink() {
        "a symbolic link"
    } else if m.is_dir() {
        "a directory"
    } else {
        return Ok(());
    };
    let message = format!(
        "`{}` is {what}; mcpconf writes its own files (the lock, saved plans, ledgers, intents, \
         restore copies) only as regular files and never through a link: move it away and run \
         the command again",
        path.display()
    );
    Err(FsError::new(
        crate::diag::Code::NotAFile,
        path,
        message,
        None,
    ))
}

/// The directory of a path [`own_path`] made (it always has one).
fn parent(path: &Path) -> PathBuf {
    path.parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}
