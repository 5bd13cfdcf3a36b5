//! All file-system I/O of mcpconf: resolving config paths, reading them, locking, and
//! replacing them atomically without ever exposing, tearing or silently reverting a user's file.
//!
//! This describes the POSIX layer (`at.rs`). Windows (and Unix with the `portable-fs` feature)
//! uses the std-only layer in `portable.rs` instead, with the same functions and the
//! differences its module docs and docs/safety.md ("Windows") list.
//!
//! # The replace sequence (Linux)
//!
//! [`replace`] performs, in this order:
//!
//! 1. Open the directory `O_RDONLY|O_DIRECTORY|O_CLOEXEC` without following any symbolic link on
//!    the way (`at`: `openat2(RESOLVE_NO_SYMLINKS)`, else an `O_NOFOLLOW` walk from `/`). Every
//!    later step is relative to this descriptor, so a directory swapped for a link meanwhile is
//!    never followed (the path was resolved and checked once, before).
//! 2. `openat(dir, .<name>.mcpconf-XXXXXX.tmp, O_RDWR|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0600)`.
//!    The temp lives in the *same* directory (a rename cannot cross file
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
//!    already visible: the error says so instead of pretending nothing happened. A run that
//!    writes several files into one directory uses [`replace_dir_later`] and one [`sync_dir`]
//!    per directory after all of them.
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

#[cfg(all(unix, not(feature = "portable-fs")))]
mod at;
#[cfg(any(not(unix), feature = "portable-fs"))]
#[path = "portable.rs"]
mod at;
mod git;
mod lock;
mod meta;
mod own;
mod write;
pub use git::git_main_root;
pub use lock::*;
pub use own::*;
pub use write::*;

use crate::diag::Code;
use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs::{self, File, Metadata, TryLockError};
use std::io::{self, ErrorKind, Read, Write};
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
/// `code` is one of `"invalid-path"`, `"unreadable"`, `"not-a-file"`, `"symlink-loop"`, `"dangling-symlink"`,
/// `"hard-link"`, `"too-large"`, `"lock-timeout"`, `"io-error"`, `"concurrent-modification"`,
/// `"read-only"`, `"disk-full"`, `"permission-denied"`. `message` is one sentence starting in lower
/// case that names the path in backticks and says what to do; [`Display`](fmt::Display) prints it.
/// `source` carries the OS error when there is one (for `io-error` its text is also in `message`).
///
/// ```
/// use mcpconf::diag::Code;
///
/// let dir = tempfile::tempdir().unwrap();
/// assert!(mcpconf::fsio::read(&dir.path().join("absent.json"), 1024).unwrap().is_none());
/// let e = mcpconf::fsio::read(dir.path(), 1024).unwrap_err(); // a directory
/// assert_eq!(e.code, Code::NotAFile);
/// assert!(e.to_string().contains(&format!("`{}`", dir.path().display())), "{e}");
/// ```
#[derive(Debug)]
pub struct FsError {
    /// Stable machine-readable code (see the type docs for the list).
    pub code: Code,
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
    fn new(code: Code, path: &Path, message: String, source: Option<io::Error>) -> Self {
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
            Code::DiskFull,
            format!(
                "cannot {action} `{p}`: no space left on the device or quota exceeded \
                 (an atomic replace needs room for a second copy); free some space and retry"
            ),
        ),
        ErrorKind::ReadOnlyFilesystem => (
            Code::ReadOnly,
            format!(
                "cannot {action} `{p}`: the file system is read-only; remount it read-write \
                 or edit the file where it is writable"
            ),
        ),
        ErrorKind::PermissionDenied => (
            Code::PermissionDenied,
            format!(
                "cannot {action} `{p}`: permission denied (replacing a file needs write access \
                 to its directory); fix the permissions or run as the file's owner"
            ),
        ),
        ErrorKind::ResourceBusy => (
            Code::IoError,
            format!(
                "cannot {action} `{p}`: it is busy or a mount point (for example a single file \
                 bind-mounted into a container), so it cannot be atomically renamed over; edit it \
                 on the host side of the mount instead"
            ),
        ),
        _ => (
            Code::IoError,
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
        return FsError::new(Code::Unreadable, path, message, Some(err));
    }
    if at::is_loop(&err) {
        return loop_error(path, Some(err));
    }
    let message = format!("cannot read `{p}`: {err}; check the file system and retry");
    FsError::new(Code::IoError, path, message, Some(err))
}

fn loop_error(path: &Path, source: Option<io::Error>) -> FsError {
    let message = format!(
        "`{}` goes through a symbolic link loop (or more than {MAX_SYMLINK_HOPS} links); \
         fix the links so they point at a real file",
        d(path)
    );
    FsError::new(Code::SymlinkLoop, path, message, source)
}

fn concurrent_error(path: &Path) -> FsError {
    let message = format!(
        "`{}` was changed by another program while mcpconf was editing it, so nothing was \
         written; close the program that edits it and run the command again",
        d(path)
    );
    FsError::new(Code::ConcurrentModification, path, message, None)
}

/// Whether some directory on the way to `path` is a symbolic link now.
fn link_on_the_way(path: &Path) -> bool {
    let mut cur = PathBuf::new();
    for c in path.components() {
        cur.push(c);
        if fs::symlink_metadata(&cur).is_ok_and(|m| m.file_type().is_symlink()) {
            return true;
        }
    }
    false
}

/// Maps a failure to reach the directory `dir` (of `path`) without following links.
fn dir_error(path: &Path, dir: &Path, action: &str, err: io::Error) -> FsError {
    let loop_or_notdir = at::is_loop(&err) || err.kind() == ErrorKind::NotADirectory;
    if loop_or_notdir && link_on_the_way(dir) {
        let message = format!(
            "a directory on the way to `{}` is a symbolic link now (it was not when mcpconf \
             resolved the path), so nothing was written through it; check who changes that \
             directory and run the command again",
            d(path)
        );
        return FsError::new(Code::ConcurrentModification, path, message, Some(err));
    }
    if loop_or_notdir {
        let message = format!(
            "cannot {action} `{}`: a component of `{}` is not a directory; fix the path",
            d(path),
            d(dir)
        );
        return FsError::new(Code::NotAFile, path, message, Some(err));
    }
    write_error(path, action, err)
}

/// True for "the path does not exist": `ENOENT`, or `ENOTDIR` (a parent is not a directory).
fn is_missing(err: &io::Error) -> bool {
    err.kind() == ErrorKind::NotFound || err.kind() == ErrorKind::NotADirectory
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

impl Stamp {
    fn of(m: &Metadata) -> Self {
        meta::stamp(m)
    }

    /// Same inode with the same size and mtime. `ctime` is left out on purpose: renaming an inode
    /// (as `RENAME_EXCHANGE` does to the displaced file) updates its ctime.
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
        meta::file_meta(m)
    }

    /// Whether this process runs as the superuser (root on Unix; never elsewhere).
    pub fn superuser() -> bool {
        meta::ids().0 == 0 && cfg!(unix)
    }

    /// What a new file of `mode` gets: this process's user and group (no owner change), and
    /// `mode` instead of the default 0600 (an admin file every user's client reads is 0644).
    pub fn new_file(mode: u32) -> Self {
        let (uid, gid) = meta::ids();
        FileMeta { mode, uid, gid }
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
    /// `/`, or on Windows a drive or share with its root (`C:\`, `\\server\share\`).
    Root(PathBuf),
    Parent,
    Name(OsString),
}

fn comps(path: &Path) -> Vec<Comp> {
    let mut out = Vec::new();
    for c in path.components() {
        match c {
            Component::Prefix(p) => out.push(Comp::Root(PathBuf::from(p.as_os_str()))),
            Component::RootDir => match out.last_mut() {
                Some(Comp::Root(prefix)) => prefix.push(Component::RootDir),
                _ => out.push(Comp::Root(PathBuf::from(Component::RootDir.as_os_str()))),
            },
            Component::ParentDir => out.push(Comp::Parent),
            Component::Normal(n) => out.push(Comp::Name(n.to_os_string())),
            Component::CurDir => {}
        }
    }
    out
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
/// with `invalid-path`, because its meaning is not defined yet. Never creates anything.
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
            FsError::new(Code::IoError, path, message, Some(e))
        })?;
        cwd.join(path)
    };

    // Each pending component remembers the symlink whose target contributed it, if any.
    let mut queue: VecDeque<(Comp, Option<PathBuf>)> =
        comps(&absolute).into_iter().map(|c| (c, None)).collect();
    let mut resolved = PathBuf::from(Component::RootDir.as_os_str());
    let mut hops = 0u32;

    while let Some((comp, origin)) = queue.pop_front() {
        let name = match comp {
            Comp::Root(root) => {
                resolved = root;
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
                return Err(FsError::new(Code::NotAFile, path, message, None));
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
                    return Err(FsError::new(Code::DanglingSymlink, &link, message, Some(e)));
                }
                let mut out = candidate;
                for (c, _) in queue {
                    match c {
                        Comp::Name(n) => out.push(n),
                        Comp::Root(_) | Comp::Parent => {
                            let message = format!(
                                "cannot resolve `{}`: it uses `..` below `{}`, which does not \
                                 exist; pass a path without `..`",
                                d(path),
                                d(&out)
                            );
                            return Err(FsError::new(Code::InvalidPath, path, message, None));
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
                return Err(FsError::new(Code::PermissionDenied, path, message, Some(e)));
            }
            Err(e) => return Err(read_error(&candidate, e)),
        }
    }
    Ok(resolved)
}

/// [`resolve`] for many paths in one pass (the files of one glob, say): each directory is
/// resolved once, then each path costs one `lstat` of its last step instead of one per step.
/// The answers are exactly [`resolve`]'s (a test compares them); a path whose last step is a
/// symbolic link, or that is not a plain absolute path, goes the whole way. Use one per pass:
/// a directory created or replaced after it was resolved is not noticed.
#[derive(Debug, Default)]
pub struct Resolver {
    dirs: std::collections::HashMap<PathBuf, PathBuf>,
}

impl Resolver {
    /// A resolver that remembers nothing yet.
    pub fn new() -> Resolver {
        Resolver::default()
    }

    /// What [`resolve`] gives for `path`.
    pub fn resolve(&mut self, path: &Path) -> Result<PathBuf, FsError> {
        let plain = path.is_absolute()
            && path
                .components()
                .all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return resolve(path);
        };
        if !plain || parent.as_os_str().is_empty() {
            return resolve(path);
        }
        let dir = match self.dirs.get(parent) {
            Some(dir) => dir.clone(),
            None => {
                let dir = resolve(parent)?;
                // Only an existing directory is remembered: one this run creates later must be
                // looked at again.
                if !fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
                    return resolve(path);
                }
                self.dirs.insert(parent.to_path_buf(), dir.clone());
                dir
            }
        };
        let candidate = dir.join(name);
        match fs::symlink_metadata(&candidate) {
            Ok(m) if !m.file_type().is_symlink() => Ok(candidate),
            Err(e) if is_missing(&e) => Ok(candidate),
            // A link, or an error that `resolve` words with the whole path.
            _ => resolve(path),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// read / stamp
// ---------------------------------------------------------------------------------------------

fn not_regular(path: &Path, kind: meta::Kind) -> FsError {
    let message = format!(
        "`{}` is {}, not a regular file; point mcpconf at the config file itself",
        d(path),
        kind.describe()
    );
    FsError::new(Code::NotAFile, path, message, None)
}

/// Refuses anything that is not a regular file, a hard-linked file, or a file over `max_len`.
fn check_regular(path: &Path, m: &Metadata, max_len: u64) -> Result<(), FsError> {
    let kind = meta::kind(m.file_type());
    if kind != meta::Kind::File {
        return Err(not_regular(path, kind));
    }
    if meta::nlink(m) > 1 {
        let message = format!(
            "`{}` has {} hard links and replacing it would split them (the other names would keep \
             the old content); make it a single file (e.g. `cp` it to a new name and move that \
             back) and retry",
            d(path),
            meta::nlink(m)
        );
        return Err(FsError::new(Code::HardLink, path, message, None));
    }
    if m.len() > max_len {
        let message = format!(
            "`{}` is {} bytes, more than the {max_len}-byte limit; check that it is the right \
             file or raise the size limit",
            d(path),
            m.len()
        );
        return Err(FsError::new(Code::TooLarge, path, message, None));
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

    let file = match at::open_nofollow(path) {
        Ok(f) => f,
        Err(e) if is_missing(&e) => return Ok(None),
        Err(e) if at::is_loop(&e) => {
            let message = format!(
                "`{}` became a symbolic link while being read; run the command again",
                d(path)
            );
            return Err(FsError::new(Code::NotAFile, path, message, Some(e)));
        }
        Err(e) => return Err(read_error(path, e)),
    };
    let meta = file.metadata().map_err(|e| read_error(path, e))?;
    check_regular(path, &meta, max_len)?;

    read_checked(&file, path, &meta, max_len).map(Some)
}

/// Whether `path` itself is a symbolic link (or, on Windows, another link-like entry).
pub fn is_link(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// The target of `path` when `path` is a symbolic link that leads nowhere (a dangling link).
pub fn dangling_link(path: &Path) -> Option<PathBuf> {
    let meta = fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_symlink() || fs::metadata(path).is_ok() {
        return None;
    }
    fs::read_link(path).ok()
}

/// Whether `path` is an existing directory (following links).
pub fn is_dir(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_dir())
}

/// Reads the file at `path`, a path [`resolve`]d before (absolute, no symbolic link on the way):
/// like [`read`], but its directory is opened without following any link
/// (`openat2(RESOLVE_NO_SYMLINKS)` or an `O_NOFOLLOW` walk) and the file is checked (`fstatat`)
/// and opened relative to that descriptor. A directory on the way that has become a symbolic
/// link since the path was resolved gives `concurrent-modification`, never a read through it.
/// A missing directory, or a file where a directory should be, reads as missing (as for
/// [`read`]; creating the file will refuse it).
pub fn read_beneath(path: &Path, max_len: u64) -> Result<Option<ReadFile>, FsError> {
    let (dir, name) = split_path(path)?;
    let dir_file = match at::open_dir(dir) {
        Ok(f) => f,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) if e.kind() == ErrorKind::NotADirectory && !link_on_the_way(dir) => {
            return Ok(None);
        }
        Err(e) if e.kind() == ErrorKind::PermissionDenied => return Err(read_error(path, e)),
        Err(e) => return Err(dir_error(path, dir, "read", e)),
    };
    let st = match at::stat_at(&dir_file, name) {
        Ok(Some(st)) => st,
        Ok(None) => return Ok(None),
        Err(e) => return Err(read_error(path, e)),
    };
    if st.kind != meta::Kind::File {
        return Err(not_regular(path, st.kind));
    }
    let file = match at::open_read(&dir_file, name) {
        Ok(f) => f,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) if at::is_loop(&e) => {
            let message = format!(
                "`{}` became a symbolic link while being read; run the command again",
                d(path)
            );
            return Err(FsError::new(Code::NotAFile, path, message, Some(e)));
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
        Err(e) if e.kind() == ErrorKind::NotADirectory => {
            let message = format!(
                "cannot read `{}`: a directory on its path is not a directory; move that file \
                 away or fix the path",
                d(path)
            );
            Err(FsError::new(Code::NotAFile, path, message, Some(e)))
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
    let file = match at::open_nofollow(path) {
        Ok(f) => f,
        Err(e) if is_missing(&e) => return Ok(None),
        Err(_) => return read(path, max_len),
    };
    let meta = file.metadata().map_err(|e| read_error(path, e))?;
    if !meta.file_type().is_file() || meta.len() > max_len {
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
    let cap = usize::try_from(meta.len().min(max_len)).unwrap_or(0);
    // Read into the buffer's spare capacity: zeroing it first (`vec![0; n]`) costs a pass over
    // the whole buffer that the read overwrites anyway.
    let mut bytes = Vec::with_capacity(cap.saturating_add(1));
    huge_pages(bytes.spare_capacity_mut());
    // One read call for a file read whole: a regular file that gives fewer bytes than asked
    // is at its end, so the size it had when checked is the whole of it. Anything else (it
    // grew or shrank since, or the call was cut short) is read on to the end.
    let first = loop {
        match at::read_spare(file, &mut bytes) {
            Ok(n) => break n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(read_error(path, e)),
        }
    };
    if first != cap {
        let rest = max_len.saturating_add(1).saturating_sub(first as u64);
        file.take(rest)
            .read_to_end(&mut bytes)
            .map_err(|e| read_error(path, e))?;
    }
    if bytes.len() as u64 > max_len {
        let message = format!(
            "`{}` grew beyond the {max_len}-byte limit while being read; check that it is the \
             right file or raise the size limit",
            d(path)
        );
        return Err(FsError::new(Code::TooLarge, path, message, None));
    }
    Ok(ReadFile {
        bytes,
        stamp: Stamp::of(meta),
        meta: FileMeta::of(meta),
    })
}

/// Asks the kernel to back a big read buffer with transparent huge pages, when it does so only
/// on request (`madvise` mode, the common default): the read then takes one page fault per
/// 2 MiB instead of one per 4 KiB (a 72 MB file: about 36 faults instead of 17 600, roughly a
/// tenth of a no-op `plan`'s time). Advice only: nothing changes if it is refused.
#[cfg(target_os = "linux")]
fn huge_pages(buf: &mut [std::mem::MaybeUninit<u8>]) {
    const HUGE: usize = 2 << 20;
    if buf.len() < 4 * HUGE {
        return;
    }
    let start = buf.as_mut_ptr() as usize;
    let from = start.next_multiple_of(HUGE);
    let to = (start + buf.len()) / HUGE * HUGE;
    if to > from {
        // SAFETY: `madvise` reads no memory and changes no contents; the range lies inside
        // `buf` (aligned inwards), which is allocated and exclusively borrowed here.
        unsafe {
            libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn huge_pages(_buf: &mut [std::mem::MaybeUninit<u8>]) {}

/// Give the pages of freed memory back to the system (glibc's `malloc_trim`): after a big
/// file is parsed, what proving it took (a filter, the windows' trees) would otherwise stay
/// resident in the heap for the rest of the run (docs/benchmarks.md, "Memory of an update of a
/// big file"). Nothing elsewhere: mimalloc (the static binary) and other systems return memory
/// on their own terms.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only returns free pages of the allocator's heaps to the system.
    unsafe {
        libc::malloc_trim(0);
    }
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
// Tests
// ---------------------------------------------------------------------------------------------

#[cfg(all(test, unix))]
mod tests;
