//! All file-system I/O of mcpconf: resolving config paths, reading them, locking, and
//! replacing them atomically without ever exposing, tearing or silently reverting a user's file.
//!
//! # The replace sequence (Linux)
//!
//! [`replace`] performs, in this order:
//!
//! 1. `open(dir, O_RDONLY|O_DIRECTORY|O_CLOEXEC)` — kept for the final directory `fsync`.
//! 2. `open(dir/.<name>.mcpconf-XXXXXX.tmp, O_RDWR|O_CREAT|O_EXCL|O_CLOEXEC, 0600)` through
//!    `tempfile::Builder`. The temp lives in the *same* directory (a rename cannot cross file
//!    systems: `EXDEV`), is hidden and ends in `.tmp` so `*.json` watchers ignore it. The 0600 is the
//!    `open` mode argument, so umask can only remove bits: the secret is never group/world readable
//!    at any instant. (Measured: crates that create with 0666 and `fchmod` later leaked the content
//!    to an unprivileged racer in 7–10 of 10 runs.)
//! 3. `write` everything, then `fchown` to the original owner when it differs (root editing a
//!    user's file must not leave it `root:root`; done before `fchmod` because chown clears setuid
//!    and setgid) and `fchmod` to the original mode (`& 0o7777`). A new file gets an explicit
//!    `fchmod(0600)`, which also defeats a umask such as 0277 that would otherwise leave 0400.
//! 4. `fsync(temp)` — without it a crash after the rename can leave an empty file.
//! 5. Compare the target with what the caller read ([`Expect`]); if a foreign writer changed it,
//!    drop the temp and report `concurrent-modification` instead of reverting their update.
//! 6. Publish. A new file uses `renameat2(RENAME_NOREPLACE)` so a file created meanwhile is never
//!    clobbered. An existing file uses `renameat2(RENAME_EXCHANGE)`, then checks that the inode it
//!    displaced is the one that was read, and swaps back otherwise: in the reliability study a
//!    foreign read-modify-write loop lost 35–50 updates per 100 applies with a plain rename, 9–16
//!    with a stamp check only, and 0 with exchange + verify. File systems without
//!    `RENAME_EXCHANGE` (`EINVAL`/`ENOSYS`, e.g. NFS) fall back to a plain rename after the check.
//! 7. `fsync(dir)` so the rename itself is durable. If only this fails, the new content is
//!    already visible: the error says so instead of pretending nothing happened.
//!
//! Any failure before publishing removes the temp and leaves the original byte-identical; a
//! `kill -9` at any point leaves either the old or the new file, never a torn one (a leftover temp
//! is possible and is removed by [`clean_stale_temps`] under the directory lock).
//!
//! # Paths
//!
//! [`resolve`] follows symlinks itself (every level; relative targets are resolved against the
//! link's directory) so a dotfile-manager link such as `mcp.json -> dotfiles/mcp.json` survives the
//! edit: the *target* is replaced, the link stays. A plain rename over the link would replace the
//! link with a regular file. Dangling links are refused (we never create a file through one).
//! [`read`] refuses hard-linked files (`st_nlink > 1`), because a rename would split them: the
//! other name would silently keep the old content.
//!
//! # Locking
//!
//! Locks are `flock(2)` through std's `File::lock`/`try_lock` (stable since Rust 1.89). Project
//! files are protected by locking the *directory* that holds them ([`lock_dirs`]): no lock file
//! litters the project tree, a directory's inode is never replaced by our renames (a lock on the
//! config file itself would protect nothing after the first rename), and the kernel releases the
//! lock when the process dies (no stale locks after `kill -9`). `flock` is used rather than
//! `fcntl` locks because closing *any* descriptor of a file drops an `fcntl` lock. Several
//! directories are always taken in one global order under one deadline, so overlapping runs cannot
//! deadlock. The tool's own state uses an ordinary lock file ([`lock_file`]) that is never deleted
//! (deleting a lock file on unlock lets two processes hold "exclusive" locks on different inodes).
//!
//! Limitations: ACLs and extended attributes (SELinux labels, macOS quarantine) are not copied to
//! the new inode; `flock` on NFS is emulated and best effort; a same-size in-place rewrite that
//! lands within one kernel timestamp tick of our read can escape the stamp comparison.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs::{self, DirBuilder, File, Metadata, OpenOptions, Permissions, TryLockError};
use std::io::{self, ErrorKind, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

/// The largest config file mcpconf reads.
pub const MAX_FILE: u64 = 512 * 1024 * 1024;

/// Maximum number of symbolic links followed by [`resolve`] before reporting `symlink-loop`
/// (the Linux kernel's own limit).
pub const MAX_SYMLINK_HOPS: u32 = 40;

/// Environment variable that disables all locking when set to `1`.
///
/// It exists **only** so the tool's concurrency test can prove that the test fails without locks
/// (a test that cannot fail proves nothing). Never set it in normal use.
pub const NO_LOCK_ENV: &str = "MCPCONF_TEST_NO_LOCK";

const TEMP_MARKER: &str = ".mcpconf-";
const TEMP_SUFFIX: &str = ".tmp";
const TEMP_RAND_LEN: usize = 6;
const BACKOFF_START: Duration = Duration::from_millis(1);
const BACKOFF_MAX: Duration = Duration::from_millis(5);

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/// An I/O failure, reported to the user with a stable code.
///
/// `code` is one of `"unreadable"`, `"not-a-file"`, `"symlink-loop"`, `"dangling-symlink"`,
/// `"hard-link"`, `"too-large"`, `"lock-timeout"`, `"io-error"`, `"concurrent-modification"`,
/// `"read-only"`, `"disk-full"`, `"permission-denied"`. `message` is one sentence starting in lower
/// case that names the path in backticks and says what to do; [`Display`](fmt::Display) prints it.
/// `source` carries the OS error when there is one (for `io-error` its text is also in `message`).
#[derive(Debug)]
pub struct FsError {
    /// Stable machine-readable code (see the type docs for the list).
    pub code: &'static str,
    /// The path the error is about.
    pub path: PathBuf,
    /// One human sentence: lower-case start, path in backticks, what to do.
    pub message: String,
    /// The underlying OS error, if any.
    pub source: Option<io::Error>,
    /// The change was published (the new content is in place, or the file is removed) and only
    /// the final directory fsync failed: callers must treat the file as changed.
    pub published: bool,
}

impl FsError {
    fn new(code: &'static str, path: &Path, message: String, source: Option<io::Error>) -> Self {
        FsError {
            code,
            path: path.to_path_buf(),
            message,
            source,
            published: false,
        }
    }
}

impl fmt::Display for FsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// Shorthand for `path.display()` in messages.
fn d(path: &Path) -> std::path::Display<'_> {
    path.display()
}

/// Maps an error from a write-side operation (`action` on `path`) to a code and message.
fn write_error(path: &Path, action: &str, err: io::Error) -> FsError {
    let p = d(path);
    let (code, message) = match err.kind() {
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded => (
            "disk-full",
            format!(
                "cannot {action} `{p}`: no space left on the device or quota exceeded \
                 (an atomic replace needs room for a second copy); free some space and retry"
            ),
        ),
        ErrorKind::ReadOnlyFilesystem => (
            "read-only",
            format!(
                "cannot {action} `{p}`: the file system is read-only; remount it read-write \
                 or edit the file where it is writable"
            ),
        ),
        ErrorKind::PermissionDenied => (
            "permission-denied",
            format!(
                "cannot {action} `{p}`: permission denied (replacing a file needs write access \
                 to its directory); fix the permissions or run as the file's owner"
            ),
        ),
        ErrorKind::ResourceBusy => (
            "io-error",
            format!(
                "cannot {action} `{p}`: it is busy or a mount point (for example a single file \
                 bind-mounted into a container), so it cannot be atomically renamed over; edit it \
                 on the host side of the mount instead"
            ),
        ),
        _ => (
            "io-error",
            format!("cannot {action} `{p}`: {err}; check the file system and retry"),
        ),
    };
    FsError::new(code, path, message, Some(err))
}

/// Maps an error from a read-side operation (stat/open/read of `path`).
fn read_error(path: &Path, err: io::Error) -> FsError {
    let p = d(path);
    if err.kind() == ErrorKind::PermissionDenied {
        let message = format!(
            "cannot read `{p}`: permission denied; fix its permissions or run as its owner \
             (mcpconf never treats an unreadable file as missing)"
        );
        return FsError::new("unreadable", path, message, Some(err));
    }
    if err.raw_os_error() == Some(libc::ELOOP) {
        return loop_error(path, Some(err));
    }
    let message = format!("cannot read `{p}`: {err}; check the file system and retry");
    FsError::new("io-error", path, message, Some(err))
}

fn loop_error(path: &Path, source: Option<io::Error>) -> FsError {
    let message = format!(
        "`{}` goes through a symbolic link loop (or more than {MAX_SYMLINK_HOPS} links); \
         fix the links so they point at a real file",
        d(path)
    );
    FsError::new("symlink-loop", path, message, source)
}

fn concurrent_error(path: &Path) -> FsError {
    let message = format!(
        "`{}` was changed by another program while mcpconf was editing it, so nothing was \
         written; close the program that edits it and run the command again",
        d(path)
    );
    FsError::new("concurrent-modification", path, message, None)
}

/// True for "the path does not exist": `ENOENT`, or `ENOTDIR` (a parent is not a directory).
fn is_missing(err: &io::Error) -> bool {
    err.kind() == ErrorKind::NotFound || err.raw_os_error() == Some(libc::ENOTDIR)
}

// ---------------------------------------------------------------------------------------------
// Stamps and metadata
// ---------------------------------------------------------------------------------------------

/// Identity of a file's content state as observed when read: device, inode, size, and
/// modification and status-change times in nanoseconds.
///
/// Two equal stamps mean "same inode, and nothing visible changed it". A rename over the path
/// changes `ino`; an in-place write changes `mtime`/`ctime` (and usually `size`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i64,
    ctime_ns: i64,
}

fn nanos(secs: i64, nsec: i64) -> i64 {
    secs.saturating_mul(1_000_000_000).saturating_add(nsec)
}

impl Stamp {
    fn of(m: &Metadata) -> Self {
        Stamp {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime_ns: nanos(m.mtime(), m.mtime_nsec()),
            ctime_ns: nanos(m.ctime(), m.ctime_nsec()),
        }
    }

    /// Same inode with the same size and mtime. `ctime` is left out on purpose: renaming an inode
    /// (as `RENAME_EXCHANGE` does to the displaced file) updates its ctime.
    #[cfg(target_os = "linux")]
    fn same_content_as(&self, other: &Stamp) -> bool {
        self.dev == other.dev
            && self.ino == other.ino
            && self.size == other.size
            && self.mtime_ns == other.mtime_ns
    }

    /// Device number.
    pub fn dev(&self) -> u64 {
        self.dev
    }
    /// Inode number.
    pub fn ino(&self) -> u64 {
        self.ino
    }
    /// Size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }
    /// Modification time, nanoseconds since the Unix epoch.
    pub fn mtime_ns(&self) -> i64 {
        self.mtime_ns
    }
    /// Status-change time, nanoseconds since the Unix epoch.
    pub fn ctime_ns(&self) -> i64 {
        self.ctime_ns
    }
}

/// Metadata that [`replace`] preserves on the new inode: permission bits (`mode & 0o7777`) and
/// owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileMeta {
    /// Permission bits, `st_mode & 0o7777`.
    pub mode: u32,
    /// Owner user id.
    pub uid: u32,
    /// Owner group id.
    pub gid: u32,
}

impl FileMeta {
    fn of(m: &Metadata) -> Self {
        FileMeta {
            mode: m.mode() & 0o7777,
            uid: m.uid(),
            gid: m.gid(),
        }
    }
}

/// A file's content together with the stamp and metadata observed on the open descriptor.
#[derive(Debug)]
pub struct ReadFile {
    /// The whole content.
    pub bytes: Vec<u8>,
    /// Stamp taken with `fstat` *before* reading, so any later write shows up as a change.
    pub stamp: Stamp,
    /// Mode and owner to preserve when replacing the file.
    pub meta: FileMeta,
}

// ---------------------------------------------------------------------------------------------
// resolve
// ---------------------------------------------------------------------------------------------

enum Comp {
    Root,
    Parent,
    Name(OsString),
}

fn comps(path: &Path) -> Vec<Comp> {
    path.components()
        .filter_map(|c| match c {
            Component::RootDir => Some(Comp::Root),
            Component::ParentDir => Some(Comp::Parent),
            Component::Normal(n) => Some(Comp::Name(n.to_os_string())),
            Component::CurDir | Component::Prefix(_) => None,
        })
        .collect()
}

/// Resolves `path` to the real file to edit.
///
/// Follows symbolic links at every level (relative link targets are resolved against the link's
/// directory). More than [`MAX_SYMLINK_HOPS`] links or a loop gives `symlink-loop`; a link whose
/// target does not exist gives `dangling-symlink` (mcpconf refuses to create a file through a
/// dangling link). A path through a non-directory gives `not-a-file`.
///
/// If the file (or some of its parent directories) does not exist, the result is the canonical
/// path of the deepest existing ancestor joined with the remaining components, so the result is
/// always absolute and stable (usable as a ledger key). `..` after a missing directory is refused
/// with `io-error`, because its meaning is not defined yet. Never creates anything.
pub fn resolve(path: &Path) -> Result<PathBuf, FsError> {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        let cwd = std::env::current_dir().map_err(|e| {
            let message = format!(
                "cannot resolve `{}`: the current directory is not accessible ({e}); \
                 run mcpconf from an existing directory or pass an absolute path",
                d(path)
            );
            FsError::new("io-error", path, message, Some(e))
        })?;
        cwd.join(path)
    };

    // Each pending component remembers the symlink whose target contributed it, if any.
    let mut queue: VecDeque<(Comp, Option<PathBuf>)> =
        comps(&absolute).into_iter().map(|c| (c, None)).collect();
    let mut resolved = PathBuf::from("/");
    let mut hops = 0u32;

    while let Some((comp, origin)) = queue.pop_front() {
        let name = match comp {
            Comp::Root => {
                resolved = PathBuf::from("/");
                continue;
            }
            Comp::Parent => {
                // `resolved` never contains symlinks, so popping is exact.
                resolved.pop();
                continue;
            }
            Comp::Name(name) => name,
        };
        let candidate = resolved.join(&name);
        match fs::symlink_metadata(&candidate) {
            Ok(m) if m.file_type().is_symlink() => {
                hops += 1;
                if hops > MAX_SYMLINK_HOPS {
                    return Err(loop_error(path, None));
                }
                let target = fs::read_link(&candidate).map_err(|e| read_error(&candidate, e))?;
                for c in comps(&target).into_iter().rev() {
                    queue.push_front((c, Some(candidate.clone())));
                }
            }
            Ok(m) if m.is_dir() => resolved = candidate,
            Ok(_) if queue.is_empty() => return Ok(candidate),
            Ok(_) => {
                let message = format!(
                    "cannot use `{}`: `{}` is not a directory; fix the path",
                    d(path),
                    d(&candidate)
                );
                return Err(FsError::new("not-a-file", path, message, None));
            }
            Err(e) if is_missing(&e) => {
                if let Some(link) = origin {
                    let target = fs::read_link(&link).unwrap_or_default();
                    let message = format!(
                        "`{}` is a symbolic link to `{}`, which does not exist; create the \
                         target or remove the link (mcpconf does not create files through \
                         dangling links)",
                        d(&link),
                        d(&target)
                    );
                    return Err(FsError::new("dangling-symlink", &link, message, Some(e)));
                }
                let mut out = candidate;
                for (c, _) in queue {
                    match c {
                        Comp::Name(n) => out.push(n),
                        Comp::Root | Comp::Parent => {
                            let message = format!(
                                "cannot resolve `{}`: it uses `..` below `{}`, which does not \
                                 exist; pass a path without `..`",
                                d(path),
                                d(&out)
                            );
                            return Err(FsError::new("io-error", path, message, None));
                        }
                    }
                }
                return Ok(out);
            }
            Err(e) if e.kind() == ErrorKind::PermissionDenied => {
                let message = format!(
                    "cannot resolve `{}`: permission denied while looking up `{}`; fix the \
                     directory permissions or run as the file's owner",
                    d(path),
                    d(&candidate)
                );
                return Err(FsError::new("permission-denied", path, message, Some(e)));
            }
            Err(e) => return Err(read_error(&candidate, e)),
        }
    }
    Ok(resolved)
}

// ---------------------------------------------------------------------------------------------
// read / stamp
// ---------------------------------------------------------------------------------------------

/// Refuses anything that is not a regular file, a hard-linked file, or a file over `max_len`.
fn check_regular(path: &Path, m: &Metadata, max_len: u64) -> Result<(), FsError> {
    let ft = m.file_type();
    if !ft.is_file() {
        use std::os::unix::fs::FileTypeExt;
        let what = if ft.is_dir() {
            "a directory"
        } else if ft.is_symlink() {
            "a symbolic link (resolve the path first)"
        } else if ft.is_fifo() {
            "a named pipe (FIFO)"
        } else if ft.is_socket() {
            "a socket"
        } else if ft.is_block_device() || ft.is_char_device() {
            "a device"
        } else {
            "not a regular file"
        };
        let message = format!(
            "`{}` is {what}, not a regular file; point mcpconf at the config file itself",
            d(path)
        );
        return Err(FsError::new("not-a-file", path, message, None));
    }
    if m.nlink() > 1 {
        let message = format!(
            "`{}` has {} hard links and replacing it would split them (the other names would keep \
             the old content); make it a single file (e.g. `cp` it to a new name and move that \
             back) and retry",
            d(path),
            m.nlink()
        );
        return Err(FsError::new("hard-link", path, message, None));
    }
    if m.size() > max_len {
        let message = format!(
            "`{}` is {} bytes, more than the {max_len}-byte limit; check that it is the right \
             file or raise the size limit",
            d(path),
            m.size()
        );
        return Err(FsError::new("too-large", path, message, None));
    }
    Ok(())
}

/// Reads the (already [`resolve`]d) file at `path`.
///
/// Returns `Ok(None)` only if it does not exist (`ENOENT`, or `ENOTDIR` because a parent is
/// missing/not a directory). The type is checked with `lstat` *before* opening, so a FIFO never
/// blocks: directories, FIFOs, sockets, devices and symlinks give `not-a-file`. Permission denied
/// gives `unreadable` (never "missing"); more than `max_len` bytes gives `too-large`; more than
/// one hard link gives `hard-link`. The file is opened with `O_NOFOLLOW|O_CLOEXEC` (plus
/// `O_NONBLOCK` as a second guard against a FIFO swapped in after the check), and the stamp and
/// metadata come from `fstat` on that descriptor, which is re-checked to be a regular file.
pub fn read(path: &Path, max_len: u64) -> Result<Option<ReadFile>, FsError> {
    let pre = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if is_missing(&e) => return Ok(None),
        Err(e) => return Err(read_error(path, e)),
    };
    check_regular(path, &pre, max_len)?;

    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if is_missing(&e) => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            let message = format!(
                "`{}` became a symbolic link while being read; run the command again",
                d(path)
            );
            return Err(FsError::new("not-a-file", path, message, Some(e)));
        }
        Err(e) => return Err(read_error(path, e)),
    };
    let meta = file.metadata().map_err(|e| read_error(path, e))?;
    check_regular(path, &meta, max_len)?;

    read_checked(&file, path, &meta, max_len).map(Some)
}

/// Like [`read`], for files whose absence must be proven (the tool's own state, such as a
/// ledger): `Ok(None)` only when the file or one of its directories does not exist (`ENOENT`).
/// A directory on the way that is not a directory (`ENOTDIR`) is an error (`not-a-file`), never
/// "missing": a state directory that cannot be read must not read as "no records".
pub fn read_existing(path: &Path, max_len: u64) -> Result<Option<ReadFile>, FsError> {
    let found = read(path, max_len)?;
    if found.is_some() {
        return Ok(found);
    }
    // `read` reports ENOTDIR as missing: find out which it was.
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => {
            let message = format!(
                "cannot read `{}`: a directory on its path is not a directory; move that file \
                 away or fix the path",
                d(path)
            );
            Err(FsError::new("not-a-file", path, message, Some(e)))
        }
        Err(e) => Err(read_error(path, e)),
        // Appeared meanwhile: read it.
        Ok(_) => read(path, max_len),
    }
}

/// Reads a file only to inspect it (`mcpconf lint`): like [`read`], but a file with several
/// hard links is accepted, since nothing will replace it. It opens the path directly
/// (`O_NOFOLLOW`, `O_NONBLOCK` and `O_NOCTTY`, so a FIFO or a terminal neither blocks nor becomes
/// the controlling terminal) and checks the type on the descriptor, one system call fewer than
/// [`read`]'s `lstat` first, which matters over thousands of files. Anything but a regular file
/// of acceptable size is handed to [`read`] for its error. Same errors otherwise.
pub fn read_to_inspect(path: &Path, max_len: u64) -> Result<Option<ReadFile>, FsError> {
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if is_missing(&e) => return Ok(None),
        Err(_) => return read(path, max_len),
    };
    let meta = file.metadata().map_err(|e| read_error(path, e))?;
    if !meta.file_type().is_file() || meta.size() > max_len {
        drop(file);
        return read(path, max_len);
    }
    read_checked(&file, path, &meta, max_len).map(Some)
}

/// Read an opened file already checked to be a regular file of at most `max_len` bytes; a file
/// that grows past the limit while being read is `too-large`.
fn read_checked(
    file: &File,
    path: &Path,
    meta: &Metadata,
    max_len: u64,
) -> Result<ReadFile, FsError> {
    let cap = usize::try_from(meta.size().min(max_len)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(cap.saturating_add(1));
    file.take(max_len.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| read_error(path, e))?;
    if bytes.len() as u64 > max_len {
        let message = format!(
            "`{}` grew beyond the {max_len}-byte limit while being read; check that it is the \
             right file or raise the size limit",
            d(path)
        );
        return Err(FsError::new("too-large", path, message, None));
    }
    Ok(ReadFile {
        bytes,
        stamp: Stamp::of(meta),
        meta: FileMeta::of(meta),
    })
}

/// Current [`Stamp`] of `path` (without following a final symlink), or `None` if it is missing.
///
/// Used to detect a foreign writer between [`read`] and the rename in [`replace`].
pub fn stamp(path: &Path) -> Result<Option<Stamp>, FsError> {
    match fs::symlink_metadata(path) {
        Ok(m) => Ok(Some(Stamp::of(&m))),
        Err(e) if is_missing(&e) => Ok(None),
        Err(e) => Err(read_error(path, e)),
    }
}

// ---------------------------------------------------------------------------------------------
// Locks
// ---------------------------------------------------------------------------------------------

fn locking_disabled() -> bool {
    std::env::var_os(NO_LOCK_ENV).is_some_and(|v| v == "1")
}

fn open_dir(path: &Path) -> io::Result<File> {
    // std always adds O_CLOEXEC; O_DIRECTORY makes this fail on anything but a directory.
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
        .open(path)
}

/// Polls `try_lock` with exponential backoff (1 ms doubling up to 5 ms: a short cap wastes little time after a release when many writers queue) until `deadline`.
fn acquire(
    file: &File,
    path: &Path,
    what: &str,
    deadline: Instant,
    timeout: Duration,
) -> Result<(), FsError> {
    let mut backoff = BACKOFF_START;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(e)) => {
                let message = format!(
                    "cannot lock {what} `{}`: {e}; check that the file system supports \
                     flock(2) and retry",
                    d(path)
                );
                return Err(FsError::new("io-error", path, message, Some(e)));
            }
        }
        let now = Instant::now();
        if now >= deadline {
            let message = format!(
                "timed out after {:.1}s waiting for the lock on {what} `{}` (another mcpconf run \
                 is probably editing files there); wait for it to finish or raise --lock-timeout",
                timeout.as_secs_f64(),
                d(path)
            );
            return Err(FsError::new("lock-timeout", path, message, None));
        }
        thread::sleep(backoff.min(deadline - now));
        backoff = (backoff * 2).min(BACKOFF_MAX);
    }
}

fn deadline_after(timeout: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(timeout)
        .unwrap_or_else(|| now + Duration::from_secs(365 * 24 * 3600))
}

/// Exclusive `flock(2)` locks held on directories; dropping the value releases them all.
///
/// Holds one open descriptor per distinct directory. The kernel also releases the locks if the
/// process dies. Note that a forked child shares the descriptors (and so the locks); `exec`
/// closes them (`O_CLOEXEC`).
#[derive(Debug)]
pub struct DirLocks {
    held: Vec<(PathBuf, File)>,
}

impl DirLocks {
    /// The directories locked, in locking order (empty when [`NO_LOCK_ENV`] disabled locking).
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.held.iter().map(|(p, _)| p.as_path())
    }
}

/// Takes an exclusive lock on every distinct directory in `dirs`.
///
/// Directories are opened `O_RDONLY|O_DIRECTORY|O_CLOEXEC`, de-duplicated by `(dev, ino)` (two
/// `flock`s on two descriptors of one directory in one process would block each other) and
/// locked in `(dev, ino)` order, the same in every process, so runs that lock overlapping sets
/// cannot deadlock. Each lock is polled with `try_lock` and exponential backoff (1 ms to 5 ms)
/// until one shared deadline `timeout` from now; on expiry everything already taken is released
/// and `lock-timeout` names the directory that was busy.
///
/// If the environment variable [`NO_LOCK_ENV`] (`MCPCONF_TEST_NO_LOCK`) is `1`, the directories
/// are opened but not locked. That knob exists only to prove the concurrency test can fail.
pub fn lock_dirs(dirs: &[PathBuf], timeout: Duration) -> Result<DirLocks, FsError> {
    lock_dirs_impl(dirs, timeout, locking_disabled())
}

fn lock_dirs_impl(
    dirs: &[PathBuf],
    timeout: Duration,
    disabled: bool,
) -> Result<DirLocks, FsError> {
    let deadline = deadline_after(timeout);
    let mut opened: Vec<((u64, u64), PathBuf, File)> = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let file = open_dir(dir).map_err(|e| dir_open_error(dir, e))?;
        let m = file.metadata().map_err(|e| dir_open_error(dir, e))?;
        let key = (m.dev(), m.ino());
        if !opened.iter().any(|(k, _, _)| *k == key) {
            opened.push((key, dir.clone(), file));
        }
    }
    opened.sort_by_key(|(k, _, _)| *k);
    let mut held = Vec::with_capacity(opened.len());
    for (_, path, file) in opened {
        if !disabled {
            // On error, `held` and the remaining descriptors are dropped, releasing every lock.
            acquire(&file, &path, "directory", deadline, timeout)?;
        }
        held.push((path, file));
    }
    Ok(DirLocks { held })
}

fn dir_open_error(dir: &Path, err: io::Error) -> FsError {
    if err.raw_os_error() == Some(libc::ENOTDIR) {
        let message = format!(
            "cannot lock `{}`: it is not a directory; check the path",
            d(dir)
        );
        return FsError::new("not-a-file", dir, message, Some(err));
    }
    write_error(dir, "lock the directory", err)
}

/// An exclusive `flock(2)` lock on an ordinary lock file; dropping the value releases it.
///
/// The lock file itself is never deleted (see the module docs for why).
#[derive(Debug)]
pub struct FileLock {
    path: PathBuf,
    _file: File,
}

impl FileLock {
    /// Path of the lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Takes an exclusive lock on the lock file `path` (for the tool's own state directory, e.g.
/// `<state>/ledger/openab.lock`), polling with the same backoff and deadline rules as
/// [`lock_dirs`].
///
/// The file is opened `O_RDWR|O_CREAT|O_NOFOLLOW|O_CLOEXEC` with mode 0600 (created if missing,
/// never truncated, never deleted). `O_RDWR` because NFS refuses exclusive locks on read-only
/// descriptors. [`NO_LOCK_ENV`] disables the lock as for [`lock_dirs`].
pub fn lock_file(path: &Path, timeout: Duration) -> Result<FileLock, FsError> {
    let deadline = deadline_after(timeout);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                let message = format!(
                    "lock file `{}` is a symbolic link; remove it so mcpconf can recreate it",
                    d(path)
                );
                return FsError::new("not-a-file", path, message, Some(e));
            }
            write_error(path, "open the lock file", e)
        })?;
    if !locking_disabled() {
        acquire(&file, path, "lock file", deadline, timeout)?;
    }
    Ok(FileLock {
        path: path.to_path_buf(),
        _file: file,
    })
}

/// Expand a glob whose wildcards (`*`, `?`) are in the final path component only (e.g.
/// `.kiro/agents/*.json`): the regular files (or links to them) in that directory whose names
/// match, sorted. A missing directory matches nothing; a path without wildcards is returned
/// as is.
pub fn glob(pattern: &Path) -> Result<Vec<PathBuf>, FsError> {
    let name = pattern
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if !name.contains(['*', '?']) {
        return Ok(vec![pattern.to_path_buf()]);
    }
    let dir = pattern.parent().unwrap_or(Path::new("."));
    if dir.to_string_lossy().contains(['*', '?']) {
        let message = format!(
            "`{}`: wildcards are supported in the file name only, not in directories",
            d(pattern)
        );
        return Err(FsError::new("io-error", pattern, message, None));
    }
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(read_error(dir, e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| read_error(dir, e))?;
        let file_name = entry.file_name().to_string_lossy().into_owned();
        if file_name.starts_with('.') || !wildcard_match(&name, &file_name) {
            continue;
        }
        let path = entry.path();
        if fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

/// `*` matches any run of characters, `?` one character.
fn wildcard_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut pi, mut ni) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ni < n.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == n[ni]) {
            pi += 1;
            ni += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ni;
            pi += 1;
        } else if let Some(sp) = star {
            pi = sp + 1;
            mark += 1;
            ni = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// A client's own lock directory (proper-lockfile style), held while mcpconf writes a file the
/// client also rewrites; dropping the value removes the directory.
#[derive(Debug)]
pub struct ClientLock {
    path: Option<PathBuf>,
}

impl ClientLock {
    /// The lock directory held (`None` when locking is disabled for tests).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }
}

impl Drop for ClientLock {
    fn drop(&mut self) {
        if let Some(p) = &self.path {
            let _ = fs::remove_dir(p);
        }
    }
}

/// Take the lock directory `<file>.lock` that proper-lockfile (Claude Code, Cline) uses for
/// `file`: `mkdir` it; while it exists and is younger than `stale` (proper-lockfile: 10 s; its
/// holder refreshes the mtime every 5 s), wait with backoff until the deadline (then
/// `lock-timeout`). An older one that is proper-lockfile's own shape, an *empty directory* (seen
/// with `lstat`, so never through a symlink), was left by a dead process and is taken over
/// (`rmdir`, which the kernel refuses on a non-empty directory, then `mkdir` again). Anything
/// else at that name (a regular file, a non-empty directory, a symbolic link, …) is never
/// removed: it is treated as held, and the wait ends in `lock-timeout` naming it.
pub fn lock_client(file: &Path, timeout: Duration, stale: Duration) -> Result<ClientLock, FsError> {
    if locking_disabled() {
        return Ok(ClientLock { path: None });
    }
    let mut name = file.as_os_str().to_os_string();
    name.push(".lock");
    let path = PathBuf::from(name);
    let deadline = deadline_after(timeout);
    let mut backoff = BACKOFF_START;
    loop {
        // What is at the lock's name when it is not a lock we may take over (for the message).
        let mut foreign: Option<&'static str> = None;
        match fs::create_dir(&path) {
            Ok(()) => return Ok(ClientLock { path: Some(path) }),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                match fs::symlink_metadata(&path) {
                    Ok(m) if m.file_type().is_dir() => {
                        let age = m.modified().ok().and_then(|t| t.elapsed().ok());
                        // rmdir fails on a non-empty directory: then it is not ours to take.
                        if age.is_some_and(|a| a > stale) {
                            match fs::remove_dir(&path) {
                                Ok(()) => continue,
                                Err(e) if e.kind() == ErrorKind::NotFound => continue,
                                Err(_) => foreign = Some("a directory that is not empty"),
                            }
                        }
                    }
                    Ok(m) if m.file_type().is_symlink() => foreign = Some("a symbolic link"),
                    Ok(m) if m.file_type().is_file() => foreign = Some("a regular file"),
                    Ok(_) => foreign = Some("not a directory"),
                    // Gone meanwhile: try again at once.
                    Err(e) if is_missing(&e) => continue,
                    Err(_) => {}
                }
            }
            Err(e) if e.kind() == ErrorKind::NotFound => {
                // The file's directory does not exist yet: nobody can hold the lock.
                return Ok(ClientLock { path: None });
            }
            Err(e) => return Err(write_error(&path, "create the client lock", e)),
        }
        let now = Instant::now();
        if now >= deadline {
            let message = match foreign {
                Some(what) => format!(
                    "timed out after {:.1}s: the client's lock `{}` is {what}, not the empty \
                     lock directory the client makes, so mcpconf treats it as held and never \
                     removes it; if no client is running, remove it by hand and retry",
                    timeout.as_secs_f64(),
                    d(&path)
                ),
                None => format!(
                    "timed out after {:.1}s waiting for the client's own lock `{}` (the client \
                     is writing this file now); retry when it is done or raise --lock-timeout",
                    timeout.as_secs_f64(),
                    d(&path)
                ),
            };
            return Err(FsError::new("lock-timeout", &path, message, None));
        }
        thread::sleep(backoff.min(deadline - now));
        backoff = (backoff * 2).min(BACKOFF_MAX);
    }
}

// ---------------------------------------------------------------------------------------------
// Directories, temp files, removal
// ---------------------------------------------------------------------------------------------

/// Creates the missing parent directories of `path`, outermost first, with mode `0o755` (minus
/// umask, like `mkdir`), and returns the directories it created (for reporting).
///
/// A parent that exists but is not a directory gives `not-a-file`. A directory created
/// concurrently by someone else is accepted but not reported. The parent of each created
/// directory is fsynced so the new entries are durable.
pub fn create_parent_dirs(path: &Path) -> Result<Vec<PathBuf>, FsError> {
    let mut missing = Vec::new();
    let mut cur = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => return Ok(missing),
    };
    loop {
        match fs::metadata(cur) {
            Ok(m) if m.is_dir() => break,
            Ok(_) => {
                let message = format!(
                    "cannot create `{}`: `{}` exists but is not a directory; move it away or \
                     choose another path",
                    d(path),
                    d(cur)
                );
                return Err(FsError::new("not-a-file", cur, message, None));
            }
            Err(e) if is_missing(&e) => {
                missing.push(cur.to_path_buf());
                match cur.parent() {
                    Some(p) if !p.as_os_str().is_empty() => cur = p,
                    _ => break,
                }
            }
            Err(e) => return Err(write_error(cur, "inspect the directory", e)),
        }
    }
    missing.reverse();
    let mut created = Vec::with_capacity(missing.len());
    for dir in missing {
        match DirBuilder::new().mode(0o755).create(&dir) {
            Ok(()) => {
                if let Some(parent) = dir.parent() {
                    open_dir(parent)
                        .and_then(|f| f.sync_all())
                        .map_err(|e| write_error(parent, "sync the directory", e))?;
                }
                created.push(dir);
            }
            Err(e) if e.kind() == ErrorKind::AlreadyExists && dir.is_dir() => {}
            Err(e) => return Err(write_error(&dir, "create the directory", e)),
        }
    }
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
fn is_our_temp(entry: &OsStr, name: &OsStr) -> bool {
    let prefix = temp_prefix(name);
    let (e, p, s) = (entry.as_bytes(), prefix.as_bytes(), TEMP_SUFFIX.as_bytes());
    if e.len() != p.len() + TEMP_RAND_LEN + s.len() || !e.starts_with(p) || !e.ends_with(s) {
        return false;
    }
    e[p.len()..p.len() + TEMP_RAND_LEN]
        .iter()
        .all(u8::is_ascii_alphanumeric)
}

fn split_path(path: &Path) -> Result<(&Path, &OsStr), FsError> {
    let name = path.file_name().ok_or_else(|| {
        let message = format!(
            "`{}` does not name a file; pass the path of the config file",
            d(path)
        );
        FsError::new("not-a-file", path, message, None)
    })?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Ok((dir, name))
}

/// Removes stale temp files of ours for `path` (`.<filename>.mcpconf-XXXXXX.tmp` in its
/// directory) and returns how many were removed.
///
/// Call it while holding that directory's lock ([`lock_dirs`]): then any such file is a leftover
/// of a killed run, not a live temp of a concurrent one. Only regular files matching the exact
/// pattern are touched; a missing directory counts as zero.
pub fn clean_stale_temps(path: &Path) -> Result<usize, FsError> {
    let (dir, name) = split_path(path)?;
    let entries = match fs::read_dir(dir) {
        Ok(it) => it,
        Err(e) if is_missing(&e) => return Ok(0),
        Err(e) => return Err(read_error(dir, e)),
    };
    let mut removed = 0;
    for entry in entries {
        let entry = entry.map_err(|e| read_error(dir, e))?;
        if !is_our_temp(&entry.file_name(), name) {
            continue;
        }
        let temp = entry.path();
        match fs::symlink_metadata(&temp) {
            Ok(m) if m.file_type().is_file() => {}
            _ => continue,
        }
        match fs::remove_file(&temp) {
            Ok(()) => removed += 1,
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(write_error(&temp, "remove the stale temporary file", e)),
        }
    }
    Ok(removed)
}

/// Removes a file that mcpconf created (used when pruning restores "no file"), then fsyncs its
/// directory. A file that is already gone counts as success. Error codes as for [`replace`].
pub fn remove_file(path: &Path) -> Result<(), FsError> {
    let (dir, _) = split_path(path)?;
    match fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(write_error(path, "remove", e)),
    }
    open_dir(dir).and_then(|f| f.sync_all()).map_err(|e| {
        let message = format!(
            "`{}` was removed but durability is not confirmed (syncing its directory failed: \
             {e}); check the disk",
            d(path)
        );
        FsError {
            published: true,
            ..FsError::new("io-error", path, message, Some(e))
        }
    })
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

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Gives the temp the original owner (when it differs and we may) and mode, or 0600 when new.
fn apply_owner_and_mode(file: &File, meta: Option<FileMeta>) -> io::Result<()> {
    let Some(want) = meta else {
        return file.set_permissions(Permissions::from_mode(0o600));
    };
    let mut mode = want.mode & 0o7777;
    let cur = file.metadata()?;
    if cur.uid() != want.uid || cur.gid() != want.gid {
        // Only root can give a file away; others may still be able to set the group.
        let (uid, gid) = if is_root() {
            (Some(want.uid), Some(want.gid))
        } else {
            (None, Some(want.gid))
        };
        match std::os::unix::fs::fchown(file, uid, gid) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::PermissionDenied && !is_root() => {}
            Err(e) => return Err(e),
        }
        if file.metadata()?.gid() != want.gid {
            // The group could not be kept: never hand the user's group bits to another group.
            mode &= !0o2070; // group bits and setgid
        }
    }
    file.set_permissions(Permissions::from_mode(mode))
}

#[cfg(target_os = "linux")]
fn rename_exchange(dir: &File, a: &OsStr, b: &OsStr) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::fd::AsRawFd;
    let to_c = |s: &OsStr| {
        CString::new(s.as_bytes()).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))
    };
    let (ca, cb) = (to_c(a)?, to_c(b)?);
    let fd = libc::c_long::from(dir.as_raw_fd());
    // SAFETY: both names are valid NUL-terminated strings that outlive the call, and `fd` is an
    // open directory descriptor; renameat2 only reads its arguments. Called through syscall(2)
    // so it does not depend on the libc version exporting a renameat2 wrapper.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            fd,
            ca.as_ptr(),
            fd,
            cb.as_ptr(),
            libc::c_long::from(libc::RENAME_EXCHANGE),
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
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

/// Points in [`replace_impl`] where tests can observe or interfere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// The temp was just created, nothing written or chmod-ed yet.
    TempCreated,
    /// The expectation was checked; the rename comes next.
    BeforePublish,
}

/// [`replace`] with a hook called at each [`Stage`] (tests use it to check the temp's mode at
/// creation and to simulate a foreign writer in the narrowest window).
fn replace_impl(
    path: &Path,
    bytes: &[u8],
    meta: Option<FileMeta>,
    expect: Expect,
    hook: &mut dyn FnMut(Stage),
) -> Result<(), FsError> {
    let (dir, name) = split_path(path)?;
    let fail = |e: io::Error| write_error(path, "replace", e);

    // 1. The directory, for the final fsync (and for dirfd-relative renames).
    let dir_file = open_dir(dir).map_err(fail)?;

    // 2. The temp: same directory, O_EXCL, mode 0600 given to open(2). Dropping it removes it.
    let temp = tempfile::Builder::new()
        .prefix(&temp_prefix(name))
        .suffix(TEMP_SUFFIX)
        .rand_bytes(TEMP_RAND_LEN)
        .permissions(Permissions::from_mode(0o600))
        .tempfile_in(dir)
        .map_err(fail)?;
    hook(Stage::TempCreated);

    // 3. Content, owner, mode. 4. fsync.
    let mut out = temp.as_file();
    out.write_all(bytes).map_err(fail)?;
    apply_owner_and_mode(temp.as_file(), meta).map_err(fail)?;
    temp.as_file().sync_all().map_err(fail)?;

    // 5. Has anyone changed the target since it was read?
    let now = stamp(path)?;
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
        Expect::Missing => match temp.persist_noclobber(path) {
            Ok(_) => {}
            Err(e) if e.error.kind() == ErrorKind::AlreadyExists => {
                return Err(concurrent_error(path));
            }
            Err(e) => return Err(fail(e.error)),
        },
        Expect::Stamp(read_stamp) => {
            #[cfg(target_os = "linux")]
            let fallback = {
                let temp_name = temp.path().file_name().unwrap_or_default().to_os_string();
                match rename_exchange(&dir_file, &temp_name, name) {
                    Ok(()) => {
                        verify_exchange(path, &dir_file, temp, &temp_name, name, &read_stamp)?;
                        None
                    }
                    Err(e)
                        if matches!(e.raw_os_error(), Some(libc::EINVAL) | Some(libc::ENOSYS)) =>
                    {
                        Some(temp)
                    }
                    Err(e) if e.kind() == ErrorKind::NotFound => {
                        return Err(concurrent_error(path));
                    }
                    Err(e) => return Err(fail(e)),
                }
            };
            #[cfg(not(target_os = "linux"))]
            let fallback = {
                let _ = &read_stamp;
                Some(temp)
            };
            if let Some(temp) = fallback {
                temp.persist(path).map_err(|e| fail(e.error))?;
            }
        }
    }

    // 7. Make the rename durable.
    dir_file.sync_all().map_err(|e| {
        let message = format!(
            "the new content of `{}` is in place but durability is not confirmed (syncing its \
             directory failed: {e}); check the disk before relying on it",
            d(path)
        );
        FsError {
            published: true,
            ..FsError::new("io-error", path, message, Some(e))
        }
    })
}

/// After `RENAME_EXCHANGE`, the temp name holds the displaced inode. If it is the one we read,
/// unlink it; otherwise swap back and report a concurrent modification.
#[cfg(target_os = "linux")]
fn verify_exchange(
    path: &Path,
    dir_file: &File,
    temp: tempfile::NamedTempFile,
    temp_name: &OsStr,
    name: &OsStr,
    read_stamp: &Stamp,
) -> Result<(), FsError> {
    let displaced = fs::symlink_metadata(temp.path());
    let same = displaced
        .as_ref()
        .is_ok_and(|m| Stamp::of(m).same_content_as(read_stamp));
    if same {
        // The temp name now holds the old content: closing removes it.
        let temp_path = temp.path().to_path_buf();
        return temp.close().map_err(|e| {
            let message = format!(
                "the new content of `{}` is in place but the old copy `{}` could not be \
                 removed ({e}); delete it by hand",
                d(path),
                d(&temp_path)
            );
            FsError::new("io-error", path, message, Some(e))
        });
    }
    match rename_exchange(dir_file, temp_name, name) {
        // Our new content is back under the temp name; dropping `temp` removes it.
        Ok(()) => Err(concurrent_error(path)),
        Err(e) => {
            // Keep the displaced foreign content where it is so nothing is lost.
            let kept = temp.into_temp_path();
            let kept_path = kept.to_path_buf();
            let _ = kept.keep();
            let message = format!(
                "`{}` was changed by another program during the replace and could not be swapped \
                 back ({e}); its other version is kept in `{}`, compare the two and restore the \
                 right one by hand",
                d(path),
                d(&kept_path)
            );
            Err(FsError::new(
                "concurrent-modification",
                path,
                message,
                Some(e),
            ))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;
    use std::sync::mpsc;
    use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

    /// umask is process-wide: tests that change it run alone (write guard); all others share.
    static UMASK_GUARD: RwLock<()> = RwLock::new(());

    fn shared() -> RwLockReadGuard<'static, ()> {
        UMASK_GUARD.read().unwrap_or_else(|e| e.into_inner())
    }

    fn exclusive() -> RwLockWriteGuard<'static, ()> {
        UMASK_GUARD.write().unwrap_or_else(|e| e.into_inner())
    }

    fn tmp() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    fn mode_of(p: &Path) -> u32 {
        fs::symlink_metadata(p).unwrap().mode() & 0o7777
    }

    fn temps_in(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(TEMP_MARKER))
            .collect()
    }

    fn code<T: fmt::Debug>(r: Result<T, FsError>) -> &'static str {
        r.unwrap_err().code
    }

    const MAX: u64 = 1 << 20;

    #[test]
    fn new_file_is_exactly_0600_under_any_umask() {
        let _g = exclusive();
        for umask in [0o022, 0o277, 0o000] {
            let dir = tmp();
            let p = dir.path().join("mcp.json");
            // SAFETY: umask only swaps the process mask; restored below.
            let old = unsafe { libc::umask(umask) };
            let r = replace(&p, b"{\"a\":1}\n", None, Expect::Missing);
            // SAFETY: as above.
            unsafe { libc::umask(old) };
            r.unwrap();
            assert_eq!(mode_of(&p), 0o600, "umask {umask:o}");
            assert_eq!(fs::read(&p).unwrap(), b"{\"a\":1}\n");
            assert!(temps_in(dir.path()).is_empty());
        }
    }

    #[test]
    fn temp_is_0600_from_creation_hidden_and_named_for_the_target() {
        // umask 000, so only the mode given to open(2) limits the temp's mode.
        let _g = exclusive();
        let dir = tmp();
        let p = dir.path().join("mcp.json");
        fs::write(&p, b"{}").unwrap();
        fs::set_permissions(&p, Permissions::from_mode(0o644)).unwrap();
        let r = read(&p, MAX).unwrap().unwrap();
        let mut seen = Vec::new();
        // SAFETY: umask only swaps the process mask; restored below.
        let old = unsafe { libc::umask(0) };
        let res = replace_impl(
            &p,
            b"x",
            Some(r.meta),
            Expect::Stamp(r.stamp),
            &mut |stage| {
                for n in temps_in(dir.path()) {
                    seen.push((stage, n.clone(), mode_of(&dir.path().join(&n))));
                }
            },
        );
        // SAFETY: as above.
        unsafe { libc::umask(old) };
        res.unwrap();
        assert_eq!(seen.len(), 2, "{seen:?}");
        let (_, name, created_mode) = &seen[0];
        assert!(
            is_our_temp(OsStr::new(name), OsStr::new("mcp.json")),
            "{name}"
        );
        assert_eq!(seen[0].0, Stage::TempCreated);
        assert_eq!(*created_mode, 0o600, "temp must be 0600 at creation");
        assert_eq!(seen[1].0, Stage::BeforePublish);
        assert_eq!(
            seen[1].2, 0o644,
            "the user's mode is applied before publishing"
        );
        assert_eq!(mode_of(&p), 0o644);
    }

    #[test]
    fn existing_file_keeps_its_mode_and_content_is_replaced() {
        let _g = shared();
        let dir = tmp();
        let p = dir.path().join("mcp.json");
        fs::write(&p, b"old").unwrap();
        fs::set_permissions(&p, Permissions::from_mode(0o640)).unwrap();
        let r = read(&p, MAX).unwrap().unwrap();
        assert_eq!(r.bytes, b"old");
        assert_eq!(r.meta.mode, 0o640);
        replace(&p, b"new content", Some(r.meta), Expect::Stamp(r.stamp)).unwrap();
        assert_eq!(mode_of(&p), 0o640);
        assert_eq!(fs::read(&p).unwrap(), b"new content");
        assert!(temps_in(dir.path()).is_empty());
        // The new content is a new inode (atomic rename, not an in-place write).
        assert_ne!(stamp(&p).unwrap().unwrap().ino(), r.stamp.ino());
    }

    #[test]
    fn root_keeps_the_owner_of_a_users_file() {
        let _g = shared();
        if !is_root() {
            eprintln!("note: owner preservation needs root to chown; skipped");
            return;
        }
        let dir = tmp();
        let p = dir.path().join("cfg.json");
        fs::write(&p, b"{}").unwrap();
        std::os::unix::fs::chown(&p, Some(65534), Some(65534)).unwrap();
        let r = read(&p, MAX).unwrap().unwrap();
        replace(&p, b"{\"k\":1}", Some(r.meta), Expect::Stamp(r.stamp)).unwrap();
        let m = fs::metadata(&p).unwrap();
        assert_eq!((m.uid(), m.gid()), (65534, 65534));
    }

    #[test]
    fn symlink_is_followed_and_kept() {
        let _g = shared();
        let dir = tmp();
        fs::create_dir(dir.path().join("real")).unwrap();
        let target = dir.path().join("real/target.json");
        fs::write(&target, b"old").unwrap();
        let link = dir.path().join("link.json");
        symlink("real/target.json", &link).unwrap(); // relative target
        let resolved = resolve(&link).unwrap();
        assert_eq!(resolved, fs::canonicalize(&target).unwrap());
        let r = read(&resolved, MAX).unwrap().unwrap();
        replace(&resolved, b"new", Some(r.meta), Expect::Stamp(r.stamp)).unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_link(&link).unwrap(), Path::new("real/target.json"));
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert!(temps_in(&dir.path().join("real")).is_empty());
    }

    #[test]
    fn relative_link_target_is_resolved_against_the_links_directory() {
        let _g = shared();
        let dir = tmp();
        let base = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir_all(base.join("a/deep")).unwrap();
        fs::create_dir_all(base.join("b")).unwrap();
        fs::write(base.join("b/t.json"), b"{}").unwrap();
        symlink("../../b/t.json", base.join("a/deep/l.json")).unwrap();
        // An intermediate directory link whose target is relative, too.
        symlink("a/deep", base.join("dl")).unwrap();
        assert_eq!(
            resolve(&base.join("a/deep/l.json")).unwrap(),
            base.join("b/t.json")
        );
        assert_eq!(
            resolve(&base.join("dl/l.json")).unwrap(),
            base.join("b/t.json")
        );
        // `..` after a link applies to the link's target, like the kernel does.
        assert_eq!(
            resolve(&base.join("dl/../x.json")).unwrap(),
            base.join("a/x.json")
        );
    }

    #[test]
    fn missing_paths_resolve_to_canonical_ancestor_plus_rest() {
        let _g = shared();
        let dir = tmp();
        let base = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir(base.join("real")).unwrap();
        symlink("real", base.join("alias")).unwrap();
        let got = resolve(&base.join("alias/./new/deeper/mcp.json")).unwrap();
        assert_eq!(got, base.join("real/new/deeper/mcp.json"));
        assert!(
            !base.join("real/new").exists(),
            "resolve must not create anything"
        );
        assert_eq!(code(resolve(&base.join("nope/../x.json"))), "io-error");
    }

    #[test]
    fn symlink_loop_and_dangling_link_are_refused() {
        let _g = shared();
        let dir = tmp();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        symlink("b", &a).unwrap();
        symlink("a", &b).unwrap();
        assert_eq!(code(resolve(&a)), "symlink-loop");
        let selfl = dir.path().join("self");
        symlink("self", &selfl).unwrap();
        assert_eq!(code(resolve(&selfl.join("x.json"))), "symlink-loop");

        let dangling = dir.path().join("d.json");
        symlink("nowhere/target.json", &dangling).unwrap();
        let e = resolve(&dangling).unwrap_err();
        assert_eq!(e.code, "dangling-symlink");
        assert!(e.message.contains("`"), "{}", e.message);
        // Dangling even when only the final component of the target is missing.
        let d2 = dir.path().join("d2.json");
        symlink(".", dir.path().join("here")).unwrap();
        symlink("here/missing.json", &d2).unwrap();
        assert_eq!(code(resolve(&d2)), "dangling-symlink");
        // A path through a regular file is not a file to edit.
        fs::write(dir.path().join("f"), b"").unwrap();
        assert_eq!(code(resolve(&dir.path().join("f/x.json"))), "not-a-file");
    }

    #[test]
    fn at_most_40_symlink_hops() {
        let _g = shared();
        let dir = tmp();
        let base = fs::canonicalize(dir.path()).unwrap();
        fs::write(base.join("file.json"), b"{}").unwrap();
        // l0 -> l1 -> ... -> l{n-1} -> file.json: n hops.
        let chain = |tag: &str, n: usize| {
            for i in 0..n {
                let next = if i + 1 == n {
                    "file.json".to_string()
                } else {
                    format!("{tag}{}", i + 1)
                };
                symlink(next, base.join(format!("{tag}{i}"))).unwrap();
            }
            base.join(format!("{tag}0"))
        };
        assert_eq!(resolve(&chain("ok", 40)).unwrap(), base.join("file.json"));
        assert_eq!(code(resolve(&chain("long", 41))), "symlink-loop");
    }

    #[test]
    fn read_missing_dir_and_limits() {
        let _g = shared();
        let dir = tmp();
        assert!(read(&dir.path().join("none.json"), MAX).unwrap().is_none());
        assert_eq!(code(read(dir.path(), MAX)), "not-a-file");

        let p = dir.path().join("big.json");
        fs::write(&p, vec![b' '; 101]).unwrap();
        assert_eq!(code(read(&p, 100)), "too-large");
        assert_eq!(read(&p, 101).unwrap().unwrap().bytes.len(), 101);

        let l2 = dir.path().join("other-name.json");
        fs::hard_link(&p, &l2).unwrap();
        assert_eq!(code(read(&p, MAX)), "hard-link");

        let link = dir.path().join("link.json");
        symlink("big.json", &link).unwrap();
        assert_eq!(code(read(&link, MAX)), "not-a-file");
    }

    #[test]
    fn read_refuses_a_fifo_without_blocking() {
        let _g = shared();
        let dir = tmp();
        let fifo = dir.path().join("pipe.json");
        let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
        // SAFETY: valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let (tx, rx) = mpsc::channel();
        let f2 = fifo.clone();
        thread::spawn(move || {
            let _ = tx.send(read(&f2, MAX).map(|_| ()).map_err(|e| e.code));
        });
        let got = rx
            .recv_timeout(Duration::from_secs(5))
            .expect("read blocked on a FIFO");
        assert_eq!(got, Err("not-a-file"));
    }

    #[test]
    fn unreadable_is_not_missing() {
        let _g = shared();
        if is_root() {
            eprintln!("note: running as root, chmod 000 does not stop reads; test skipped");
            return;
        }
        let dir = tmp();
        let p = dir.path().join("secret.json");
        fs::write(&p, b"{}").unwrap();
        fs::set_permissions(&p, Permissions::from_mode(0o000)).unwrap();
        assert_eq!(code(read(&p, MAX)), "unreadable");
    }

    #[test]
    fn foreign_change_after_read_is_not_overwritten() {
        let _g = shared();
        let dir = tmp();
        let p = dir.path().join("mcp.json");
        fs::write(&p, b"ours").unwrap();
        let r = read(&p, MAX).unwrap().unwrap();
        fs::write(&p, b"foreign update").unwrap(); // in-place rewrite by another program
        let e = replace(&p, b"mine", Some(r.meta), Expect::Stamp(r.stamp)).unwrap_err();
        assert_eq!(e.code, "concurrent-modification");
        assert_eq!(fs::read(&p).unwrap(), b"foreign update");
        assert!(temps_in(dir.path()).is_empty());
    }

    #[test]
    fn foreign_chmod_after_read_is_detected() {
        // Only the ctime changes: caught by the stamp check before publishing.
        let _g = shared();
        let dir = tmp();
        let p = dir.path().join("mcp.json");
        fs::write(&p, b"ours").unwrap();
        fs::set_permissions(&p, Permissions::from_mode(0o600)).unwrap();
        let r = read(&p, MAX).unwrap().unwrap();
        thread::sleep(Duration::from_millis(20)); // past the kernel's timestamp granularity
        fs::set_permissions(&p, Permissions::from_mode(0o640)).unwrap();
        let e = replace(&p, b"mine", Some(r.meta), Expect::Stamp(r.stamp)).unwrap_err();
        assert_eq!(e.code, "concurrent-modification");
        assert_eq!(fs::read(&p).unwrap(), b"ours");
        assert_eq!(mode_of(&p), 0o640);
        assert!(temps_in(dir.path()).is_empty());
    }

    #[test]
    #[cfg(target_os = "linux")] // needs RENAME_EXCHANGE
    fn foreign_rename_in_the_last_window_is_swapped_back() {
        let _g = shared();
        let dir = tmp();
        let p = dir.path().join("mcp.json");
        fs::write(&p, b"ours").unwrap();
        let r = read(&p, MAX).unwrap().unwrap();
        // The foreign writer replaces the file after our stamp check, just before our rename:
        // only the RENAME_EXCHANGE verification can catch this.
        let e = replace_impl(
            &p,
            b"mine",
            Some(r.meta),
            Expect::Stamp(r.stamp),
            &mut |stage| {
                if stage != Stage::BeforePublish {
                    return;
                }
                let t = dir.path().join("foreign.tmp");
                fs::write(&t, b"foreign update").unwrap();
                fs::rename(&t, &p).unwrap();
            },
        )
        .unwrap_err();
        assert_eq!(e.code, "concurrent-modification");
        assert_eq!(fs::read(&p).unwrap(), b"foreign update");
        assert!(temps_in(dir.path()).is_empty());
    }

    #[test]
    fn file_created_meanwhile_is_never_clobbered() {
        let _g = shared();
        let dir = tmp();
        let p = dir.path().join("mcp.json");
        // Appeared before the check.
        fs::write(&p, b"theirs").unwrap();
        assert_eq!(
            code(replace(&p, b"mine", None, Expect::Missing)),
            "concurrent-modification"
        );
        assert_eq!(fs::read(&p).unwrap(), b"theirs");
        // Appeared after the check, before the rename.
        let q = dir.path().join("other.json");
        let e = replace_impl(&q, b"mine", None, Expect::Missing, &mut |stage| {
            if stage == Stage::BeforePublish {
                fs::write(&q, b"theirs").unwrap();
            }
        })
        .unwrap_err();
        assert_eq!(e.code, "concurrent-modification");
        assert_eq!(fs::read(&q).unwrap(), b"theirs");
        assert!(temps_in(dir.path()).is_empty());
    }

    #[test]
    fn vanished_file_is_a_concurrent_modification() {
        let _g = shared();
        let dir = tmp();
        let p = dir.path().join("mcp.json");
        fs::write(&p, b"x").unwrap();
        let r = read(&p, MAX).unwrap().unwrap();
        fs::remove_file(&p).unwrap();
        assert_eq!(
            code(replace(&p, b"y", Some(r.meta), Expect::Stamp(r.stamp))),
            "concurrent-modification"
        );
        assert!(!p.exists());
    }

    #[test]
    fn failed_replace_leaves_original_and_no_temp() {
        let _g = shared();
        if is_root() {
            eprintln!("note: running as root, a 0555 directory is still writable; test skipped");
            return;
        }
        let dir = tmp();
        let sub = dir.path().join("ro");
        fs::create_dir(&sub).unwrap();
        let p = sub.join("mcp.json");
        fs::write(&p, b"old").unwrap();
        let r = read(&p, MAX).unwrap().unwrap();
        fs::set_permissions(&sub, Permissions::from_mode(0o555)).unwrap();
        let e = replace(&p, b"new", Some(r.meta), Expect::Stamp(r.stamp)).unwrap_err();
        fs::set_permissions(&sub, Permissions::from_mode(0o755)).unwrap();
        assert_eq!(e.code, "permission-denied");
        assert_eq!(fs::read(&p).unwrap(), b"old");
        assert!(temps_in(&sub).is_empty());
    }

    #[test]
    fn errno_mapping() {
        let p = Path::new("/x/mcp.json");
        let c = |errno| write_error(p, "replace", io::Error::from_raw_os_error(errno));
        assert_eq!(c(libc::ENOSPC).code, "disk-full");
        assert_eq!(c(libc::EDQUOT).code, "disk-full");
        assert_eq!(c(libc::EROFS).code, "read-only");
        assert_eq!(c(libc::EACCES).code, "permission-denied");
        assert_eq!(c(libc::EPERM).code, "permission-denied");
        let busy = c(libc::EBUSY);
        assert_eq!(busy.code, "io-error");
        assert!(busy.message.contains("mount"), "{}", busy.message);
        assert_eq!(c(libc::EIO).code, "io-error");
        for e in [c(libc::ENOSPC), c(libc::EIO), busy] {
            assert!(e.message.contains("`/x/mcp.json`"), "{}", e.message);
            assert!(e.message.starts_with(|ch: char| ch.is_lowercase()));
            assert_eq!(e.to_string(), e.message);
        }
        // tempfile wraps errors and drops the raw errno: the kind must still map.
        let wrapped = io::Error::new(ErrorKind::StorageFull, "wrapped");
        assert_eq!(write_error(p, "replace", wrapped).code, "disk-full");
    }

    #[test]
    fn dir_locks_exclude_each_other_across_threads() {
        let _g = shared();
        let dir = tmp();
        let dirs = vec![dir.path().to_path_buf()];
        let held = lock_dirs_impl(&dirs, Duration::from_secs(1), false).unwrap();
        let d2 = dirs.clone();
        let start = Instant::now();
        let r = thread::spawn(move || lock_dirs_impl(&d2, Duration::from_millis(300), false))
            .join()
            .unwrap();
        let waited = start.elapsed();
        let e = r.unwrap_err();
        assert_eq!(e.code, "lock-timeout");
        assert!(e.message.contains("--lock-timeout"), "{}", e.message);
        assert!(waited >= Duration::from_millis(300), "{waited:?}");
        assert!(waited < Duration::from_secs(3), "{waited:?}");
        drop(held);
        // Released on drop.
        lock_dirs_impl(&dirs, Duration::from_millis(100), false).unwrap();
    }

    #[test]
    fn same_dir_twice_does_not_self_deadlock() {
        let _g = shared();
        let dir = tmp();
        let alias = dir.path().join("alias");
        symlink(".", &alias).unwrap();
        let dirs = vec![
            dir.path().to_path_buf(),
            dir.path().join("."),
            alias,
            dir.path().to_path_buf(),
        ];
        let locks = lock_dirs_impl(&dirs, Duration::from_millis(200), false).unwrap();
        assert_eq!(locks.paths().count(), 1);
    }

    #[test]
    fn opposite_orders_do_not_deadlock() {
        let _g = shared();
        let dir = tmp();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        fs::create_dir(&a).unwrap();
        fs::create_dir(&b).unwrap();
        let start = std::sync::Arc::new(std::sync::Barrier::new(2));
        let run = |dirs: Vec<PathBuf>| {
            let start = start.clone();
            thread::spawn(move || {
                start.wait();
                // A tight loop makes the two threads interleave between their two locks; in
                // unsorted order that deadlocks until the timeout.
                for _ in 0..3000 {
                    drop(lock_dirs_impl(&dirs, Duration::from_secs(2), false)?);
                }
                Ok::<(), FsError>(())
            })
        };
        let t1 = run(vec![a.clone(), b.clone()]);
        let t2 = run(vec![b, a]);
        t1.join().unwrap().unwrap();
        t2.join().unwrap().unwrap();
    }

    #[test]
    fn no_lock_knob_takes_no_lock() {
        let _g = shared();
        let dir = tmp();
        let dirs = vec![dir.path().to_path_buf()];
        let _held = lock_dirs_impl(&dirs, Duration::from_secs(1), false).unwrap();
        lock_dirs_impl(&dirs, Duration::from_millis(50), true).unwrap();
    }

    #[test]
    fn lock_file_is_0600_exclusive_and_kept() {
        let _g = shared();
        let dir = tmp();
        let p = dir.path().join("openab.lock");
        let held = lock_file(&p, Duration::from_secs(1)).unwrap();
        assert_eq!(mode_of(&p), 0o600);
        let p2 = p.clone();
        let e = thread::spawn(move || lock_file(&p2, Duration::from_millis(100)))
            .join()
            .unwrap()
            .unwrap_err();
        assert_eq!(e.code, "lock-timeout");
        drop(held);
        assert!(p.exists(), "the lock file must never be deleted");
        lock_file(&p, Duration::from_millis(100)).unwrap();
        let link = dir.path().join("link.lock");
        symlink("openab.lock", &link).unwrap();
        assert_eq!(
            code(lock_file(&link, Duration::from_millis(10))),
            "not-a-file"
        );
    }

    #[test]
    fn create_parent_dirs_reports_what_it_made() {
        let _g = shared();
        let dir = tmp();
        let p = dir.path().join("x/y/mcp.json");
        let made = create_parent_dirs(&p).unwrap();
        assert_eq!(made, vec![dir.path().join("x"), dir.path().join("x/y")]);
        assert!(dir.path().join("x/y").is_dir());
        assert!(create_parent_dirs(&p).unwrap().is_empty());
        fs::write(dir.path().join("file"), b"").unwrap();
        assert_eq!(
            code(create_parent_dirs(&dir.path().join("file/a/b.json"))),
            "not-a-file"
        );
    }

    #[test]
    fn clean_stale_temps_removes_only_ours() {
        let _g = shared();
        let dir = tmp();
        let p = dir.path().join("cfg.json");
        let names = [
            ".cfg.json.mcpconf-abc123.tmp",  // ours
            ".cfg.json.mcpconf-XyZ789.tmp",  // ours
            ".cfg.json.mcpconf-abc123.tmpx", // wrong suffix
            ".cfg.json.mcpconf-ab.tmp",      // wrong length
            ".cfg.json.mcpconf-ab_12.tmp",   // not alphanumeric... wrong length too
            ".cfg.json.mcpconf-ab-123.tmp",  // not alphanumeric
            ".other.json.mcpconf-abc123.tmp",
            ".cfg.json.tmpABCDEF",
            "cfg.json",
        ];
        for n in names {
            fs::write(dir.path().join(n), b"").unwrap();
        }
        fs::create_dir(dir.path().join(".cfg.json.mcpconf-dir123.tmp")).unwrap();
        assert_eq!(clean_stale_temps(&p).unwrap(), 2);
        let mut left = fs::read_dir(dir.path()).unwrap().count();
        left -= 1; // the directory look-alike
        assert_eq!(left, names.len() - 2);
        assert!(!dir.path().join(".cfg.json.mcpconf-abc123.tmp").exists());
        assert_eq!(
            clean_stale_temps(&dir.path().join("gone/x.json")).unwrap(),
            0
        );
    }

    #[test]
    fn remove_file_removes_and_is_idempotent() {
        let _g = shared();
        let dir = tmp();
        let p = dir.path().join("mcp.json");
        fs::write(&p, b"{}").unwrap();
        remove_file(&p).unwrap();
        assert!(!p.exists());
        remove_file(&p).unwrap();
        assert_eq!(code(remove_file(dir.path())), "io-error");
    }

    #[test]
    fn stamp_tracks_changes() {
        let _g = shared();
        let dir = tmp();
        let p = dir.path().join("s.json");
        assert_eq!(stamp(&p).unwrap(), None);
        fs::write(&p, b"1").unwrap();
        let s1 = stamp(&p).unwrap().unwrap();
        assert_eq!(stamp(&p).unwrap(), Some(s1));
        fs::write(&p, b"22").unwrap();
        assert_ne!(stamp(&p).unwrap(), Some(s1));
    }
}
