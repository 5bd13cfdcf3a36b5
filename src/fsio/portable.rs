//! The std-only file layer: what Windows builds use, and what the `portable-fs` feature puts in
//! place of the POSIX layer on Unix so that this code is compiled and tested there too.
//!
//! It offers the same operations as the POSIX layer (`at.rs`) with the same promises as far as
//! std allows, and says where it cannot:
//!
//! - No directory descriptors: a [`Dir`] is a path whose every component is checked with
//!   `symlink_metadata` (no symbolic link, junction or other reparse point that std reports as a
//!   link; each a directory) when it is opened and again before each operation in it. A
//!   component swapped for a link between that check and the operation is not seen: the window
//!   is one system call wide instead of none.
//! - A file is opened after a `symlink_metadata` check and checked again after the open (still
//!   not a link, and the same file as the one opened).
//! - The temp file comes from `tempfile` in the target's directory (`O_EXCL`, 0600 on Unix; the
//!   directory's inherited access list on Windows) and is published with `persist` (a rename,
//!   `MoveFileExW` on Windows) or `persist_noclobber` (which never replaces a file created
//!   meanwhile). There is no `RENAME_EXCHANGE`: the target is compared with what was read just
//!   before the rename, as the POSIX layer does on file systems without it.
//! - Directory locks are `File::lock` (`LockFileEx` on Windows) on a lock file per directory,
//!   kept in `mcpconf-locks` under the per-user temporary directory and named by a hash of the
//!   directory's path, instead of a `flock` on the directory itself (Windows cannot lock a
//!   directory handle): runs of one user exclude each other, runs of two users do not.
//! - Directories are not fsynced on Windows (std cannot open one); NTFS journals the rename.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File, OpenOptions};
use std::io::{self, ErrorKind};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use tempfile::TempPath;

use super::Stamp;
use super::meta::{self, Kind};

/// A directory reached without following links: its checked path here.
#[derive(Debug)]
pub(super) struct Dir {
    path: PathBuf,
}

/// A directory entry seen without following it.
pub(super) struct Entry {
    pub(super) kind: Kind,
    pub(super) stamp: Stamp,
}

/// The error for "a symbolic link where none may be followed" (what `ELOOP` says on Unix).
#[derive(Debug)]
struct LinkOnTheWay;

impl std::fmt::Display for LinkOnTheWay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a symbolic link is on the way")
    }
}

impl std::error::Error for LinkOnTheWay {}

fn link_error() -> io::Error {
    io::Error::other(LinkOnTheWay)
}

/// Whether `e` says a symbolic link was met where none may be followed.
pub(super) fn is_loop(e: &io::Error) -> bool {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::ELOOP) {
        return true;
    }
    e.get_ref().is_some_and(|inner| inner.is::<LinkOnTheWay>())
}

/// The directories from the root down to `path` (absolute), each of which must be a directory
/// and not a link. `..` (or a relative path) is invalid: callers pass resolved paths.
fn chain(path: &Path) -> io::Result<Vec<&Path>> {
    if !path.is_absolute()
        || path
            .components()
            .any(|c| c == std::path::Component::ParentDir)
    {
        return Err(ErrorKind::InvalidInput.into());
    }
    let mut out: Vec<&Path> = path
        .ancestors()
        .filter(|a| a.file_name().is_some())
        .collect();
    out.reverse();
    Ok(out)
}

/// Checks that `dir` is an existing directory with no link anywhere on its path: `NotFound`,
/// `NotADirectory` or [`is_loop`] otherwise.
fn check_chain(path: &Path) -> io::Result<()> {
    for p in chain(path)? {
        let m = fs::symlink_metadata(p)?;
        match meta::kind(m.file_type()) {
            Kind::Dir => {}
            Kind::Symlink => return Err(link_error()),
            _ => return Err(ErrorKind::NotADirectory.into()),
        }
    }
    Ok(())
}

/// "Opens" the directory `path` (absolute, no `..`): checks it as [`check_chain`] does.
pub(super) fn open_dir(path: &Path) -> io::Result<Dir> {
    check_chain(path)?;
    Ok(Dir {
        path: path.to_path_buf(),
    })
}

impl Dir {
    /// The path of `name` in this directory, after checking again that no component of the
    /// directory became a link.
    fn join(&self, name: &OsStr) -> io::Result<PathBuf> {
        check_chain(&self.path)?;
        Ok(self.path.join(name))
    }
}

/// Creates each missing directory of `path` (absolute, no `..`), outermost first, checking
/// every existing one (and each created one after creating it) to be a directory and not a
/// link. Calls `made` with each directory it created.
pub(super) fn make_dirs(
    path: &Path,
    made: &mut dyn FnMut(&Path),
) -> Result<(), (PathBuf, io::Error)> {
    let dirs = chain(path).map_err(|e| (path.to_path_buf(), e))?;
    for p in dirs {
        let at = |e: io::Error| (p.to_path_buf(), e);
        match fs::symlink_metadata(p) {
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => {
                #[cfg_attr(not(unix), allow(unused_mut))]
                let mut b = fs::DirBuilder::new();
                #[cfg(unix)]
                std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o755);
                match b.create(p) {
                    Ok(()) => {
                        if let Some(parent) = p.parent() {
                            sync_path(parent).map_err(at)?;
                        }
                        made(p);
                    }
                    // Created concurrently by someone else: accepted, not reported.
                    Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(at(e)),
                }
            }
            Err(e) => return Err(at(e)),
        }
        let m = fs::symlink_metadata(p).map_err(at)?;
        match meta::kind(m.file_type()) {
            Kind::Dir => {}
            Kind::Symlink => return Err(at(link_error())),
            _ => return Err(at(ErrorKind::NotADirectory.into())),
        }
    }
    Ok(())
}

fn sync_path(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        // std cannot open a directory on Windows; NTFS journals its metadata.
        let _ = dir;
        Ok(())
    }
}

/// `symlink_metadata` of `name` in `dir`; `Ok(None)` when it does not exist.
pub(super) fn stat_at(dir: &Dir, name: &OsStr) -> io::Result<Option<Entry>> {
    match fs::symlink_metadata(dir.join(name)?) {
        Ok(m) => Ok(Some(Entry {
            kind: meta::kind(m.file_type()),
            stamp: meta::stamp(&m),
        })),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Opens the file at `path` for reading: refused ([`is_loop`]) when it is a link before the
/// open, or when what was opened is neither the file at the path before the open nor a file
/// (not a link) there after it: it may then have been reached through a link swapped in for
/// the open.
///
/// A file replaced by a rename during the open (a client writing its config the safe way:
/// temp file, rename) is the one before or the one after, and is read as such, as the POSIX
/// layer's `O_NOFOLLOW` open reads either. Replaced twice within the open, it is tried again,
/// up to three times in all.
pub(super) fn open_nofollow(path: &Path) -> io::Result<File> {
    for _ in 0..3 {
        let before = fs::symlink_metadata(path)?;
        if before.file_type().is_symlink() {
            return Err(link_error());
        }
        let file = File::open(path)?;
        let after = fs::symlink_metadata(path)?;
        let opened = meta::stamp(&file.metadata()?);
        if opened == meta::stamp(&before)
            || (!after.file_type().is_symlink() && opened == meta::stamp(&after))
        {
            return Ok(file);
        }
        if after.file_type().is_symlink() {
            return Err(link_error());
        }
    }
    Err(link_error())
}

/// Opens `name` in `dir` for reading, as [`open_nofollow`].
pub(super) fn open_read(dir: &Dir, name: &OsStr) -> io::Result<File> {
    open_nofollow(&dir.join(name)?)
}

/// Reads once from `file` into `buf`'s spare capacity (appending); the number of bytes read.
pub(super) fn read_spare(file: &File, buf: &mut Vec<u8>) -> io::Result<usize> {
    use std::io::Read;
    let len = buf.len();
    if buf.capacity() == len {
        buf.reserve(1);
    }
    buf.resize(buf.capacity(), 0);
    let r = (&mut &*file).read(&mut buf[len..]);
    buf.truncate(len + r.as_ref().map_or(0, |n| *n));
    r
}

/// Opens (creating it if missing, never truncating) the lock file `path` (absolute, no `..`);
/// a link there or in place of a directory above it, before or after the open, is refused
/// ([`is_loop`]; checked by path, as everything in this layer).
pub(super) fn open_lock_file(path: &Path) -> io::Result<File> {
    let dir = path.parent().ok_or(ErrorKind::InvalidInput)?;
    check_chain(dir)?;
    let file = open_lock_at(path)?;
    check_chain(dir)?;
    Ok(file)
}

/// [`open_lock_file`] without the directories' check (the lock files that stand for
/// directories, under the system's temporary directory, which may be reached through a link).
fn open_lock_at(path: &Path) -> io::Result<File> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => return Err(link_error()),
        _ => {}
    }
    let mut o = OpenOptions::new();
    o.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    let file = o.open(path)?;
    if fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(link_error());
    }
    Ok(file)
}

/// Orders and de-duplicates directory locks: the lock file's path.
pub(super) type LockKey = PathBuf;

/// The lock file that stands for the directory `dir` (which is checked as by [`open_dir`]),
/// opened: `<temp>/mcpconf-locks/<hash of the path>.lock`.
pub(super) fn lock_handle(dir: &Path) -> io::Result<(LockKey, File)> {
    check_chain(dir)?;
    let locks = std::env::temp_dir().join("mcpconf-locks");
    match fs::symlink_metadata(&locks) {
        Ok(m) if m.file_type().is_symlink() => return Err(link_error()),
        Ok(_) => {}
        Err(e) if e.kind() == ErrorKind::NotFound => {
            #[cfg_attr(not(unix), allow(unused_mut))]
            let mut b = fs::DirBuilder::new();
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
            match b.create(&locks) {
                Ok(()) => {}
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            }
        }
        Err(e) => return Err(e),
    }
    // `a/./b` and `a/b/` are `a/b`; Windows paths are case-insensitive: one directory, one lock.
    let norm: PathBuf = dir.components().collect();
    #[cfg(unix)]
    let key = norm.as_os_str().as_encoded_bytes().to_vec();
    #[cfg(not(unix))]
    let key = norm
        .as_os_str()
        .to_string_lossy()
        .to_lowercase()
        .into_bytes();
    let hash = Sha256::digest(&key);
    let hex: String = hash[..16].iter().map(|b| format!("{b:02x}")).collect();
    let path = locks.join(format!("{hex}.lock"));
    let file = open_lock_at(&path)?;
    Ok((path, file))
}

/// Removes the file `name` in `dir` (a link is removed itself, never followed).
pub(super) fn unlink(dir: &Dir, name: &OsStr) -> io::Result<()> {
    fs::remove_file(dir.join(name)?)
}

/// Removes the empty directory `name` in `dir`.
pub(super) fn rmdir(dir: &Dir, name: &OsStr) -> io::Result<()> {
    fs::remove_dir(dir.join(name)?)
}

/// There is no atomic exchange here: always `Unsupported`.
pub(super) fn rename_exchange(_dir: &Dir, _a: &OsStr, _b: &OsStr) -> io::Result<()> {
    Err(ErrorKind::Unsupported.into())
}

/// fsync the directory (Unix); nothing on Windows.
pub(super) fn sync(dir: &Dir) -> io::Result<()> {
    sync_path(&dir.path)
}

/// The writeback hint of the POSIX layer: nothing here (std has no such call; the fsync that
/// follows does all the work).
pub(super) fn start_writeback(file: &File, offset: u64, len: u64) {
    let _ = (file, offset, len);
}

/// The names in `dir`.
pub(super) fn list(dir: &Dir) -> io::Result<Vec<OsString>> {
    check_chain(&dir.path)?;
    fs::read_dir(&dir.path)?
        .map(|e| e.map(|e| e.file_name()))
        .collect()
}

/// A temp file made by `tempfile` in a directory; removed on drop unless published or
/// [`Temp::disarm`]ed.
pub(super) struct Temp<'a> {
    dir: &'a Dir,
    name: OsString,
    file: File,
    path: Option<TempPath>,
}

impl<'a> Temp<'a> {
    /// `<prefix><rand_len alphanumerics><suffix>` in `dir`, created exclusively (0600 on Unix).
    pub(super) fn create(
        dir: &'a Dir,
        prefix: &OsStr,
        suffix: &str,
        rand_len: usize,
    ) -> io::Result<Temp<'a>> {
        check_chain(&dir.path)?;
        let named = tempfile::Builder::new()
            .prefix(prefix)
            .suffix(suffix)
            .rand_bytes(rand_len)
            .tempfile_in(&dir.path)?;
        let (file, path) = named.into_parts();
        let name = path
            .file_name()
            .map(OsStr::to_os_string)
            .ok_or_else(|| io::Error::from(ErrorKind::InvalidInput))?;
        Ok(Temp {
            dir,
            name,
            file,
            path: Some(path),
        })
    }

    pub(super) fn file(&self) -> &File {
        &self.file
    }

    pub(super) fn name(&self) -> &OsStr {
        &self.name
    }

    /// Leave the temp where it is.
    pub(super) fn disarm(&mut self) {
        if let Some(p) = self.path.take() {
            let _ = p.keep();
        }
    }

    fn publish(&mut self, to: &OsStr, clobber: bool) -> io::Result<()> {
        let target = self.dir.join(to)?;
        let Some(path) = self.path.take() else {
            return Err(ErrorKind::NotFound.into());
        };
        let done = if clobber {
            path.persist(&target)
        } else {
            path.persist_noclobber(&target)
        };
        done.map_err(|e| {
            self.path = Some(e.path);
            e.error
        })
    }

    /// Publish the temp as `to` unless `to` exists (`AlreadyExists` then, and the temp stays).
    pub(super) fn persist_noclobber(&mut self, to: &OsStr) -> io::Result<()> {
        self.publish(to, false)
    }

    /// Publish the temp as `to`, replacing it.
    pub(super) fn persist(&mut self, to: &OsStr) -> io::Result<()> {
        self.publish(to, true)
    }
}
