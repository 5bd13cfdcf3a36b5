//! The write side of `fsio`: creating parent directories, sweeping stale temp files, removing
//! files, and the atomic replace sequence the module docs describe.

use super::*;

// ---------------------------------------------------------------------------------------------
// Directories, temp files, removal
// ---------------------------------------------------------------------------------------------

/// Creates the missing parent directories of `path` (a resolved path), outermost first, with mode
/// `0o755` (minus umask, like `mkdir`), and returns the directories it created (for reporting).
/// The path is walked from `/` one directory descriptor at a time without following any symbolic
/// link, and each directory is made with `mkdirat` in the descriptor of its parent; a component
/// that is (or becomes) a link gives `concurrent-modification`.
///
/// A parent that exists but is not a directory gives `not-a-file`. A directory created
/// concurrently by someone else is accepted but not reported. The parent of each created
/// directory is fsynced so the new entries are durable.
pub fn create_parent_dirs(path: &Path) -> Result<Vec<PathBuf>, FsError> {
    let mut created = Vec::new();
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => return Ok(created),
    };
    let abs;
    let parent = if parent.is_absolute() {
        parent
    } else {
        abs = std::path::absolute(parent).map_err(|e| write_error(path, "create", e))?;
        &abs
    };
    at::make_dirs(parent, &mut |p| created.push(p.to_path_buf())).map_err(|(at, e)| {
        if e.kind() == ErrorKind::NotADirectory && !link_on_the_way(&at) {
            let message = format!(
                "cannot create `{}`: `{}` exists but is not a directory; move it away or \
                 choose another path",
                d(path),
                d(&at)
            );
            return FsError::new(Code::NotAFile, &at, message, Some(e));
        }
        if e.kind() == ErrorKind::NotADirectory || at::is_loop(&e) {
            return dir_error(path, &at, "create", e);
        }
        write_error(&at, "create the directory", e)
    })?;
    Ok(created)
}

fn temp_prefix(name: &OsStr) -> OsString {
    let mut prefix = OsString::from(".");
    prefix.push(name);
    prefix.push(TEMP_MARKER);
    prefix
}

/// True if `entry` is one of our temp names for the file `name`: `.<name>.mcpconf-XXXXXX.tmp`
/// with exactly six ASCII alphanumerics in place of the X.
pub(super) fn is_our_temp(entry: &OsStr, name: &OsStr) -> bool {
    let prefix = temp_prefix(name);
    let (e, p, s) = (
        entry.as_encoded_bytes(),
        prefix.as_encoded_bytes(),
        TEMP_SUFFIX.as_bytes(),
    );
    if e.len() != p.len() + TEMP_RAND_LEN + s.len() || !e.starts_with(p) || !e.ends_with(s) {
        return false;
    }
    e[p.len()..p.len() + TEMP_RAND_LEN]
        .iter()
        .all(u8::is_ascii_alphanumeric)
}

pub(super) fn split_path(path: &Path) -> Result<(&Path, &OsStr), FsError> {
    let name = path.file_name().ok_or_else(|| {
        let message = format!(
            "`{}` does not name a file; pass the path of the config file",
            d(path)
        );
        FsError::new(Code::NotAFile, path, message, None)
    })?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Ok((dir, name))
}

/// Removes stale temp files of ours for `path` (`.<filename>.mcpconf-XXXXXX.tmp` in its
/// directory) and returns how many were removed. The directory is opened without following
/// links and listed, checked and unlinked through its descriptor.
///
/// Call it while holding that directory's lock ([`lock_dirs`]): then any such file is a leftover
/// of a killed run, not a live temp of a concurrent one. Only regular files matching the exact
/// pattern are touched; a missing directory counts as zero.
pub fn clean_stale_temps(path: &Path) -> Result<usize, FsError> {
    let (dir, _) = split_path(path)?;
    clean_stale_temps_of(dir, &[path])
}

/// [`clean_stale_temps`] for several files of one directory `dir` with one listing of it, so a
/// run over n files of a directory lists it once, not n times. Paths not directly in `dir` are
/// ignored.
pub fn clean_stale_temps_of(dir: &Path, paths: &[&Path]) -> Result<usize, FsError> {
    let names: std::collections::HashMap<&[u8], &OsStr> = paths
        .iter()
        .filter_map(|p| split_path(p).ok().filter(|(d, _)| *d == dir))
        .map(|(_, n)| (n.as_encoded_bytes(), n))
        .collect();
    let Some(first) = paths.first() else {
        return Ok(0);
    };
    if names.is_empty() {
        return Ok(0);
    }
    let dir_file = match at::open_dir(dir) {
        Ok(f) => f,
        Err(e) if is_missing(&e) => return Ok(0),
        Err(e) => return Err(dir_error(first, dir, "clean temporary files next to", e)),
    };
    let entries = at::list(&dir_file).map_err(|e| read_error(dir, e))?;
    let mut removed = 0;
    for entry in entries {
        // `.<name>.mcpconf-XXXXXX.tmp`: the name is what lies between the dot and the marker.
        let e = entry.as_encoded_bytes();
        let tail = TEMP_MARKER.len() + TEMP_RAND_LEN + TEMP_SUFFIX.len();
        let Some(name) = e
            .get(1..e.len().saturating_sub(tail))
            .filter(|_| e.len() > tail)
        else {
            continue;
        };
        let Some(name) = names.get(name) else {
            continue;
        };
        if !is_our_temp(&entry, name) {
            continue;
        }
        match at::stat_at(&dir_file, &entry) {
            Ok(Some(st)) if st.kind == meta::Kind::File => {}
            _ => continue,
        }
        match at::unlink(&dir_file, &entry) {
            Ok(()) => removed += 1,
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => {
                return Err(write_error(
                    &dir.join(&entry),
                    "remove the stale temporary file",
                    e,
                ));
            }
        }
    }
    Ok(removed)
}

/// Removes a file that mcpconf created (used when pruning restores "no file"), then fsyncs its
/// directory. `path` is a resolved path: the directory is opened without following links and the
/// file is unlinked relative to it (`unlinkat`). A file that is already gone counts as success. Error codes as for [`replace`].
pub fn remove_file(path: &Path) -> Result<(), FsError> {
    let (dir, name) = split_path(path)?;
    let dir_file = match at::open_dir(dir) {
        Ok(f) => f,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(dir_error(path, dir, "remove", e)),
    };
    match at::unlink(&dir_file, name) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(write_error(path, "remove", e)),
    }
    at::sync(&dir_file).map_err(|e| {
        let message = format!(
            "`{}` was removed but durability is not confirmed (syncing its directory failed: \
             {e}); check the disk",
            d(path)
        );
        FsError {
            published: true,
            ..FsError::new(Code::IoError, path, message, Some(e))
        }
    })
}

/// After `file` was removed, removes those of `dirs` (directories mcpconf created for it) that
/// are now empty, deepest first, stopping at the first that is not empty or not there. Only an
/// ancestor of `file` that lies strictly below one of `bases` is considered, so a forged record
/// can never make it touch a base or anything above one. Best effort: a directory left behind
/// is harmless, so failures only stop the walk.
pub fn remove_created_dirs(file: &Path, dirs: &[PathBuf], bases: &[PathBuf]) {
    let mut dirs: Vec<&PathBuf> = dirs
        .iter()
        .filter(|d| file.starts_with(d) && file != d.as_path())
        .filter(|d| bases.iter().any(|b| d.starts_with(b) && d != &b))
        .collect();
    dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
    dirs.dedup();
    for d in dirs {
        let (Some(parent), Some(name)) = (d.parent(), d.file_name()) else {
            return;
        };
        let Ok(parent_dir) = at::open_dir(parent) else {
            return;
        };
        if at::rmdir(&parent_dir, name).is_err() || at::sync(&parent_dir).is_err() {
            return;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// replace
// ---------------------------------------------------------------------------------------------

/// What the caller observed at `path` when it read it; [`replace`] publishes only if this still
/// holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// The file did not exist; it is created and never clobbers a file created meanwhile.
    Missing,
    /// The file existed with this stamp (from [`read`]).
    Stamp(Stamp),
}

/// Atomically replaces (or creates) the resolved file `path` with `bytes`.
///
/// `meta` is the metadata of the existing file (from [`read`]) or `None` for a new file, which
/// then gets mode 0600 exactly. `expect` is what the caller read; if the file changed since,
/// nothing is published and the error is `concurrent-modification` (re-read and retry). See the
/// module docs for the exact syscall sequence.
///
/// On any failure before publishing, the temp is removed and the original is left
/// byte-identical. Errors: `disk-full` (`ENOSPC`/`EDQUOT`), `read-only` (`EROFS`),
/// `permission-denied` (`EACCES`/`EPERM`), `io-error` (everything else, including `EBUSY` on a
/// bind-mounted single file, which cannot be renamed over). If only the final directory fsync
/// fails, the error is `io-error` and says the new content is in place but not confirmed durable.
pub fn replace(
    path: &Path,
    bytes: &[u8],
    meta: Option<FileMeta>,
    expect: Expect,
) -> Result<(), FsError> {
    replace_impl(path, bytes, meta, expect, &mut |_| {})
}

/// [`replace`] without the directory fsync (step 7): the new content is durable before it is
/// published, and the caller makes the rename durable with one [`sync_dir`] of the directory
/// after all its writes there (a run writing n files into one directory costs n + 1 fsyncs,
/// not 2n). Until then a power loss may bring back the old file, never a torn or empty one.
/// The content is the bytes `parts` hold one after the other, written piece by piece (a big
/// file's edit is written from the bytes read and the edited range, never joined).
pub fn replace_dir_later(
    path: &Path,
    parts: &[&[u8]],
    meta: Option<FileMeta>,
    expect: Expect,
) -> Result<(), FsError> {
    replace_with(path, parts, meta, expect, Fsyncs::FileOnly, &mut |_| {})
}

/// Makes the renames done in the directory `dir` (a resolved path) durable: opens it without
/// following any link and fsyncs it. `path` is the file named in an error (one of those
/// written). A failure is `io-error` with `published` set: the content is in place, only its
/// durability is not confirmed.
pub fn sync_dir(dir: &Path, path: &Path) -> Result<(), FsError> {
    let dir_file = at::open_dir(dir).map_err(|e| dir_error(path, dir, "replace", e))?;
    at::sync(&dir_file).map_err(|e| unconfirmed(path, e))
}

/// The error of a directory fsync that failed after the rename.
fn unconfirmed(path: &Path, e: io::Error) -> FsError {
    let message = format!(
        "the new content of `{}` is in place but durability is not confirmed (syncing its \
         directory failed: {e}); check the disk before relying on it",
        d(path)
    );
    FsError {
        published: true,
        ..FsError::new(Code::IoError, path, message, Some(e))
    }
}

/// Which fsyncs a replace makes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fsyncs {
    /// The temp and the directory (steps 4 and 7).
    Both,
    /// The temp only; the caller syncs the directory ([`replace_dir_later`]).
    FileOnly,
    /// Neither ([`replace_unsynced`]).
    None,
}

/// [`replace`] without its two fsyncs (steps 4 and 7): atomic against a killed process (the
/// rename publishes the whole new content or nothing) but not durable across a power loss, where
/// the old name, the new one, or an empty file may be found. Only for a file whose content is
/// also kept durably elsewhere until it is (the ledger commit, which its durable intent covers).
pub fn replace_unsynced(
    path: &Path,
    bytes: &[u8],
    meta: Option<FileMeta>,
    expect: Expect,
) -> Result<(), FsError> {
    replace_with(path, &[bytes], meta, expect, Fsyncs::None, &mut |_| {})
}

/// A content bigger than this is written in pieces of this size, and the kernel is asked to
/// start writing each piece to the disk as soon as it is written (`at::start_writeback`), so
/// that the disk works while the rest is copied and the fsync that follows waits for less (the
/// 72 MB `apply` of docs/benchmarks.md: write + fsync 40 ms → 27 ms on a quiet disk; more on a
/// slow one, where the fsync is most of the run). Smaller files are one `write` as before.
pub(super) const WRITEBACK_PIECE: usize = 4 << 20;

/// Writes `parts` one after the other into `out` (a new temp file, at offset 0); with `early`,
/// in pieces of [`WRITEBACK_PIECE`], calling `writeback(offset, len)` for the bytes written
/// since the last call as soon as they are a piece or more, and for the rest at the end, when
/// the whole is bigger than one piece.
pub(super) fn write_parts(
    mut out: impl Write,
    parts: &[&[u8]],
    early: bool,
    mut writeback: impl FnMut(u64, u64),
) -> io::Result<()> {
    let total: usize = parts.iter().map(|p| p.len()).sum();
    if !early || total <= WRITEBACK_PIECE {
        for p in parts {
            out.write_all(p)?;
        }
        return Ok(());
    }
    // Offsets of what is written and of what the kernel was asked to write back.
    let (mut written, mut flushed) = (0u64, 0u64);
    for p in parts {
        for piece in p.chunks(WRITEBACK_PIECE) {
            out.write_all(piece)?;
            written += piece.len() as u64;
            if written - flushed >= WRITEBACK_PIECE as u64 {
                writeback(flushed, written - flushed);
                flushed = written;
            }
        }
    }
    if written > flushed {
        writeback(flushed, written - flushed);
    }
    Ok(())
}

/// Points in [`replace_impl`] where tests can observe or interfere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stage {
    /// The temp was just created, nothing written or chmod-ed yet.
    TempCreated,
    /// The expectation was checked; the rename comes next.
    BeforePublish,
}

/// [`replace`] with a hook called at each [`Stage`] (tests use it to check the temp's mode at
/// creation and to simulate a foreign writer in the narrowest window).
pub(super) fn replace_impl(
    path: &Path,
    bytes: &[u8],
    meta: Option<FileMeta>,
    expect: Expect,
    hook: &mut dyn FnMut(Stage),
) -> Result<(), FsError> {
    replace_with(path, &[bytes], meta, expect, Fsyncs::Both, hook)
}

/// [`replace_impl`], with the fsyncs `sync` names.
fn replace_with(
    path: &Path,
    parts: &[&[u8]],
    meta: Option<FileMeta>,
    expect: Expect,
    sync: Fsyncs,
    hook: &mut dyn FnMut(Stage),
) -> Result<(), FsError> {
    let (dir, name) = split_path(path)?;
    let fail = |e: io::Error| write_error(path, "replace", e);

    // 1. The directory, reached without following any link; every later step is relative to it.
    let dir_file = at::open_dir(dir).map_err(|e| match e.kind() {
        ErrorKind::NotFound => fail(e),
        _ => dir_error(path, dir, "replace", e),
    })?;

    // 2. The temp: same directory, O_EXCL|O_NOFOLLOW, mode 0600 given to openat(2). Dropping it
    //    removes it.
    let mut temp = at::Temp::create(&dir_file, &temp_prefix(name), TEMP_SUFFIX, TEMP_RAND_LEN)
        .map_err(fail)?;
    hook(Stage::TempCreated);

    // 3. Content, owner, mode. 4. fsync.
    let file = temp.file();
    let early = sync != Fsyncs::None;
    write_parts(file, parts, early, |at, len| {
        at::start_writeback(file, at, len)
    })
    .map_err(fail)?;
    meta::apply_owner_and_mode(temp.file(), meta).map_err(fail)?;
    if sync != Fsyncs::None {
        temp.file().sync_all().map_err(fail)?;
    }

    // 5. Has anyone changed the target since it was read?
    let now = at::stat_at(&dir_file, name)
        .map_err(|e| read_error(path, e))?
        .map(|st| st.stamp);
    let unchanged = match expect {
        Expect::Missing => now.is_none(),
        Expect::Stamp(s) => now == Some(s),
    };
    if !unchanged {
        return Err(concurrent_error(path));
    }
    hook(Stage::BeforePublish);

    // 6. Publish.
    match expect {
        Expect::Missing => match temp.persist_noclobber(name) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                return Err(concurrent_error(path));
            }
            Err(e) => return Err(fail(e)),
        },
        Expect::Stamp(read_stamp) => match at::rename_exchange(&dir_file, temp.name(), name) {
            Ok(()) => verify_exchange(path, &dir_file, temp, name, &read_stamp)?,
            Err(e) if e.kind() == ErrorKind::Unsupported => {
                temp.persist(name).map_err(fail)?;
            }
            Err(e) if e.kind() == ErrorKind::NotFound => return Err(concurrent_error(path)),
            Err(e) => return Err(fail(e)),
        },
    }

    // 7. Make the rename durable.
    if sync != Fsyncs::Both {
        return Ok(());
    }
    at::sync(&dir_file).map_err(|e| unconfirmed(path, e))
}

/// After `RENAME_EXCHANGE`, the temp name holds the displaced inode. If it is the one we read,
/// unlink it; otherwise swap back and report a concurrent modification.
fn verify_exchange(
    path: &Path,
    dir_file: &at::Dir,
    mut temp: at::Temp<'_>,
    name: &OsStr,
    read_stamp: &Stamp,
) -> Result<(), FsError> {
    let displaced = at::stat_at(dir_file, temp.name());
    let same = displaced.as_ref().is_ok_and(|m| {
        m.as_ref()
            .is_some_and(|st| st.stamp.same_content_as(read_stamp))
    });
    if same {
        // The temp name now holds the old content: remove it.
        temp.disarm();
        return at::unlink(dir_file, temp.name()).map_err(|e| {
            let message = format!(
                "the new content of `{}` is in place but the old copy `{}` could not be \
                 removed ({e}); delete it by hand",
                d(path),
                d(&path.with_file_name(temp.name()))
            );
            FsError::new(Code::IoError, path, message, Some(e))
        });
    }
    match at::rename_exchange(dir_file, temp.name(), name) {
        // Our new content is back under the temp name; dropping `temp` removes it.
        Ok(()) => Err(concurrent_error(path)),
        Err(e) => {
            // Keep the displaced foreign content where it is so nothing is lost.
            temp.disarm();
            let kept_path = path.with_file_name(temp.name());
            let message = format!(
                "`{}` was changed by another program during the replace and could not be swapped \
                 back ({e}); its other version is kept in `{}`, compare the two and restore the \
                 right one by hand",
                d(path),
                d(&kept_path)
            );
            Err(FsError::new(
                Code::ConcurrentModification,
                path,
                message,
                Some(e),
            ))
        }
    }
}
