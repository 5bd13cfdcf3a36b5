//! Directory-descriptor primitives: a directory is reached once, without following any symbolic
//! link, and every later step (stat, open, temp create, rename, unlink, mkdir, fsync, flock) is
//! done relative to that descriptor, so a path component swapped for a link in between can never
//! lead an operation somewhere else.
//!
//! On Linux the directory is opened with `openat2(RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)`;
//! where that is unavailable (kernels before 5.6, seccomp filters, other systems) the path is
//! walked one component at a time with `openat(O_NOFOLLOW | O_DIRECTORY)`, intermediate
//! directories opened `O_PATH` on Linux (search permission is enough, as for a path lookup).

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{self as rfs, AtFlags, Mode, OFlags};

use super::Stamp;
use super::meta::Kind;

/// A directory reached without following links: a descriptor here.
pub(super) type Dir = File;

/// A directory entry seen without following it.
pub(super) struct Entry {
    pub(super) kind: Kind,
    pub(super) stamp: Stamp,
}

/// Opens intermediate directories of a walk: `O_PATH` where it exists (only search permission
/// is needed), else read-only.
#[cfg(any(target_os = "linux", target_os = "android"))]
const SEARCH: OFlags = OFlags::PATH;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const SEARCH: OFlags = OFlags::RDONLY;

pub(super) fn io_err(e: rustix::io::Errno) -> io::Error {
    io::Error::from_raw_os_error(e.raw_os_error())
}

/// The normal components of an absolute path; `..` (or a relative path) is `EINVAL`: callers
/// pass resolved paths.
fn names(path: &Path) -> io::Result<Vec<&OsStr>> {
    if !path.is_absolute() {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    let mut out = Vec::new();
    for c in path.components() {
        match c {
            Component::RootDir | Component::CurDir => {}
            Component::Normal(n) => out.push(n),
            Component::ParentDir | Component::Prefix(_) => {
                return Err(io::Error::from_raw_os_error(libc::EINVAL));
            }
        }
    }
    Ok(out)
}

/// Opens the directory `path` (absolute, no `..`) read-only without following any symbolic
/// link on the way. A link anywhere gives `ELOOP` (openat2) or `ENOTDIR` (walk); a missing
/// component `ENOENT`.
pub(super) fn open_dir(path: &Path) -> io::Result<File> {
    let names = names(path)?;
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::fs::ResolveFlags;
        use rustix::io::Errno;
        match rfs::openat2(
            rfs::CWD,
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
            ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
        ) {
            Ok(fd) => return Ok(File::from(fd)),
            // Not available here (old kernel, seccomp filter): walk instead.
            Err(Errno::NOSYS | Errno::PERM | Errno::INVAL | Errno::TOOBIG) => {}
            Err(e) => return Err(io_err(e)),
        }
    }
    walk(&names)
}

fn walk(names: &[&OsStr]) -> io::Result<File> {
    let root = rfs::open(
        "/",
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(io_err)?;
    let mut fd: OwnedFd = root;
    for (i, n) in names.iter().enumerate() {
        let last = i + 1 == names.len();
        let how = if last { OFlags::RDONLY } else { SEARCH };
        fd = rfs::openat(
            &fd,
            *n,
            how | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(io_err)?;
    }
    Ok(File::from(fd))
}

/// Walks `path` (absolute, no `..`) from `/` without following links, creating each missing
/// directory with `mkdirat(0755)` (minus umask) and fsyncing its parent. Calls `made` with each
/// prefix it created. Errors carry the prefix they are about.
pub(super) fn make_dirs(
    path: &Path,
    made: &mut dyn FnMut(&Path),
) -> Result<(), (std::path::PathBuf, io::Error)> {
    let names = names(path).map_err(|e| (path.to_path_buf(), e))?;
    let mut cur = std::path::PathBuf::from("/");
    let mut fd: OwnedFd = rfs::open(
        "/",
        SEARCH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| (cur.clone(), io_err(e)))?;
    for n in names {
        cur.push(n);
        let flags = SEARCH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let next = match rfs::openat(&fd, n, flags, Mode::empty()) {
            Ok(f) => f,
            Err(rustix::io::Errno::NOENT) => {
                match rfs::mkdirat(&fd, n, Mode::from_raw_mode(0o755)) {
                    Ok(()) => {
                        sync_dir_of(&fd).map_err(|e| (cur.clone(), e))?;
                        made(&cur);
                    }
                    // Created concurrently by someone else: accepted, not reported.
                    Err(rustix::io::Errno::EXIST) => {}
                    Err(e) => return Err((cur, io_err(e))),
                }
                rfs::openat(&fd, n, flags, Mode::empty()).map_err(|e| (cur.clone(), io_err(e)))?
            }
            Err(e) => return Err((cur, io_err(e))),
        };
        fd = next;
    }
    Ok(())
}

/// fsync the directory behind `fd` (which may be an `O_PATH` descriptor).
fn sync_dir_of(fd: &OwnedFd) -> io::Result<()> {
    let d = rfs::openat(
        fd,
        ".",
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(io_err)?;
    rfs::fsync(&d).map_err(io_err)
}

/// `fstatat(dir, name, AT_SYMLINK_NOFOLLOW)`; `Ok(None)` when it does not exist.
pub(super) fn stat_at(dir: &Dir, name: &OsStr) -> io::Result<Option<Entry>> {
    match rfs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(s) => Ok(Some(entry_of(&s))),
        Err(rustix::io::Errno::NOENT) => Ok(None),
        Err(e) => Err(io_err(e)),
    }
}

#[allow(clippy::unnecessary_cast)] // field widths differ between platforms
fn entry_of(s: &rfs::Stat) -> Entry {
    let kind = match (s.st_mode as u32) & (libc::S_IFMT as u32) {
        t if t == libc::S_IFREG as u32 => Kind::File,
        t if t == libc::S_IFDIR as u32 => Kind::Dir,
        t if t == libc::S_IFLNK as u32 => Kind::Symlink,
        t if t == libc::S_IFIFO as u32 => Kind::Fifo,
        t if t == libc::S_IFSOCK as u32 => Kind::Socket,
        t if t == libc::S_IFBLK as u32 || t == libc::S_IFCHR as u32 => Kind::Device,
        _ => Kind::Other,
    };
    let stamp = Stamp {
        dev: s.st_dev as u64,
        ino: s.st_ino as u64,
        size: s.st_size as u64,
        mtime_ns: nanos(s.st_mtime as i64, s.st_mtime_nsec as i64),
        ctime_ns: nanos(s.st_ctime as i64, s.st_ctime_nsec as i64),
    };
    Entry { kind, stamp }
}

fn nanos(secs: i64, nsec: i64) -> i64 {
    secs.saturating_mul(1_000_000_000).saturating_add(nsec)
}

/// Opens the resolved file `path` for reading without following a final symbolic link
/// (`O_NOFOLLOW`: a link gives `ELOOP`), without blocking on a FIFO (`O_NONBLOCK`) and without
/// making a terminal the controlling one (`O_NOCTTY`).
pub(super) fn open_nofollow(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)
}

/// Reads once from `file` into `buf`'s spare capacity (appending, never zeroing it first);
/// the number of bytes read.
pub(super) fn read_spare(file: &File, buf: &mut Vec<u8>) -> io::Result<usize> {
    if buf.capacity() == buf.len() {
        buf.reserve(1);
    }
    rustix::io::read(file, rustix::buffer::spare_capacity(buf)).map_err(io_err)
}

/// Opens (creating it 0600 if missing, never truncating) the lock file `path` (absolute, no
/// `..`), `O_RDWR|O_CREAT|O_NOFOLLOW|O_CLOEXEC`, relative to its directory opened with
/// [`open_dir`]: the path is not resolved again after the caller checked it, and a link
/// anywhere on it, the file's own name included, gives `ELOOP` (or `ENOTDIR` where
/// `openat2` is not available).
pub(super) fn open_lock_file(path: &Path) -> io::Result<File> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    };
    let dir = open_dir(dir)?;
    rfs::openat(
        &dir,
        name,
        OFlags::RDWR | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    )
    .map(File::from)
    .map_err(io_err)
}

/// Whether `e` says a symbolic link was met where none may be followed.
pub(super) fn is_loop(e: &io::Error) -> bool {
    e.raw_os_error() == Some(libc::ELOOP)
}

/// The directory `dir` opened for its `flock`, with the key that orders all lock takers the
/// same way (`(st_dev, st_ino)`, so two paths of one directory are one lock).
pub(super) fn lock_handle(dir: &Path) -> io::Result<(LockKey, File)> {
    let file = open_dir(dir)?;
    let m = file.metadata()?;
    use std::os::unix::fs::MetadataExt;
    Ok(((m.dev(), m.ino()), file))
}

/// Orders and de-duplicates directory locks.
pub(super) type LockKey = (u64, u64);

/// Opens `name` in `dir` for reading: never follows a link, never blocks on a FIFO, never makes
/// a terminal the controlling one.
pub(super) fn open_read(dir: &File, name: &OsStr) -> io::Result<File> {
    rfs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map(File::from)
    .map_err(io_err)
}

/// `unlinkat(dir, name, 0)`.
pub(super) fn unlink(dir: &File, name: &OsStr) -> io::Result<()> {
    rfs::unlinkat(dir, name, AtFlags::empty()).map_err(io_err)
}

/// `rmdir` of `name` in `dir` (the kernel refuses a directory that is not empty).
pub(super) fn rmdir(dir: &File, name: &OsStr) -> io::Result<()> {
    rfs::unlinkat(dir, name, AtFlags::REMOVEDIR).map_err(io_err)
}

/// `renameat(dir, from, dir, to)`.
pub(super) fn rename(dir: &File, from: &OsStr, to: &OsStr) -> io::Result<()> {
    rfs::renameat(dir, from, dir, to).map_err(io_err)
}

/// Rename `from` to `to` in `dir` only if `to` does not exist (`EEXIST` otherwise).
pub(super) fn rename_noreplace(dir: &File, from: &OsStr, to: &OsStr) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
    {
        use rustix::io::Errno;
        match rfs::renameat_with(dir, from, dir, to, rfs::RenameFlags::NOREPLACE) {
            Ok(()) => return Ok(()),
            Err(Errno::INVAL | Errno::NOSYS | Errno::NOTSUP) => {}
            Err(e) => return Err(io_err(e)),
        }
    }
    // A hard link fails with EEXIST when the name is taken; then drop the temp name.
    rfs::linkat(dir, from, dir, to, AtFlags::empty()).map_err(io_err)?;
    let _ = unlink(dir, from);
    Ok(())
}

/// Atomically swap `a` and `b` in `dir`; an error of kind `Unsupported` where the file system
/// or system cannot (`EINVAL`/`ENOSYS`).
pub(super) fn rename_exchange(dir: &File, a: &OsStr, b: &OsStr) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
    {
        use rustix::io::Errno;
        match rfs::renameat_with(dir, a, dir, b, rfs::RenameFlags::EXCHANGE) {
            Ok(()) => Ok(()),
            Err(e @ (Errno::INVAL | Errno::NOSYS)) => {
                Err(io::Error::new(io::ErrorKind::Unsupported, io_err(e)))
            }
            Err(e) => Err(io_err(e)),
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
    {
        let _ = (dir, a, b);
        Err(io::ErrorKind::Unsupported.into())
    }
}

/// `fsync(dir)`.
pub(super) fn sync(dir: &File) -> io::Result<()> {
    rfs::fsync(dir.as_fd()).map_err(io_err)
}

/// Asks the kernel to start writing `len` bytes of `file` from `offset` to the disk now, without
/// waiting (`sync_file_range(SYNC_FILE_RANGE_WRITE)` on Linux; nothing elsewhere). A hint only:
/// it makes nothing durable and its failure is no error, the caller's fsync does both. It lets
/// the disk work while the rest of a big file is still being written.
pub(super) fn start_writeback(file: &File, offset: u64, len: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
            return;
        };
        // SAFETY: `sync_file_range` reads no memory of ours; the descriptor is open for as long
        // as `file` is borrowed, and any error (EBADF, ESPIPE, EINVAL) is only returned.
        let _ = unsafe {
            libc::sync_file_range(file.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE)
        };
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (file, offset, len);
    }
}

/// The names in `dir` (without `.` and `..`).
pub(super) fn list(dir: &File) -> io::Result<Vec<OsString>> {
    let it = rfs::Dir::read_from(dir).map_err(io_err)?;
    let mut out = Vec::new();
    for entry in it {
        let entry = entry.map_err(io_err)?;
        let name = OsStr::from_bytes(entry.file_name().to_bytes());
        if name != "." && name != ".." {
            out.push(name.to_os_string());
        }
    }
    Ok(out)
}

/// A temp file created in a directory descriptor; removed on drop unless [`Temp::disarm`]ed.
pub(super) struct Temp<'a> {
    dir: &'a File,
    name: OsString,
    file: File,
    armed: bool,
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

fn random_suffix(len: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    let mut x = h.finish();
    (0..len)
        .map(|_| {
            let c = ALPHABET[(x % ALPHABET.len() as u64) as usize];
            x /= ALPHABET.len() as u64;
            char::from(c)
        })
        .collect()
}

impl<'a> Temp<'a> {
    /// `openat(dir, <prefix>XXXXXX<suffix>, O_RDWR|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0600)`:
    /// the mode is given to `open`, so umask can only remove bits.
    pub(super) fn create(
        dir: &'a File,
        prefix: &OsStr,
        suffix: &str,
        rand_len: usize,
    ) -> io::Result<Temp<'a>> {
        let mut last = io::Error::from_raw_os_error(libc::EEXIST);
        for _ in 0..128 {
            let mut name = prefix.to_os_string();
            name.push(random_suffix(rand_len));
            name.push(suffix);
            match rfs::openat(
                dir,
                name.as_os_str(),
                OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::from_raw_mode(0o600),
            ) {
                Ok(fd) => {
                    return Ok(Temp {
                        dir,
                        name,
                        file: File::from(fd),
                        armed: true,
                    });
                }
                Err(rustix::io::Errno::EXIST) => last = io_err(rustix::io::Errno::EXIST),
                Err(e) => return Err(io_err(e)),
            }
        }
        Err(last)
    }

    pub(super) fn file(&self) -> &File {
        &self.file
    }

    pub(super) fn name(&self) -> &OsStr {
        &self.name
    }

    /// Leave the name in place (it was renamed away, or must be kept).
    pub(super) fn disarm(&mut self) {
        self.armed = false;
    }

    /// Publish the temp as `to` unless `to` exists (`AlreadyExists` then, and the temp stays).
    pub(super) fn persist_noclobber(&mut self, to: &OsStr) -> io::Result<()> {
        rename_noreplace(self.dir, &self.name, to)?;
        self.armed = false;
        Ok(())
    }

    /// Publish the temp as `to`, replacing it.
    pub(super) fn persist(&mut self, to: &OsStr) -> io::Result<()> {
        rename(self.dir, &self.name, to)?;
        self.armed = false;
        Ok(())
    }
}

impl Drop for Temp<'_> {
    fn drop(&mut self) {
        if self.armed {
            let _ = unlink(self.dir, &self.name);
        }
    }
}
