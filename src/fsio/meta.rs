//! What a platform can say about a file: its [`Stamp`], the [`FileMeta`] to preserve, its
//! [`Kind`], its link count, and how to give a new inode the old one's owner and mode.
//!
//! Unix has all of it (`st_dev`, `st_ino`, `st_ctime`, `st_nlink`, `st_mode`, owners). Other
//! systems go through what std offers everywhere (`generic`): size and modification time for
//! the stamp, the read-only attribute for the mode, no owner, no link count. `generic` is also
//! compiled and unit-tested on Unix (`cfg(test)`), so the code Windows runs is not untested.

use super::{FileMeta, Stamp};
use std::fs::{File, FileType, Metadata};
use std::io;

#[cfg(not(unix))]
pub(super) use generic::{apply_owner_and_mode, file_meta, ids, kind, nlink, stamp};
#[cfg(unix)]
pub(super) use posix::{apply_owner_and_mode, file_meta, ids, kind, nlink, stamp};

/// The type of a directory entry, seen without following it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(unix), allow(dead_code))] // no FIFOs, sockets or devices in std's view there
pub(super) enum Kind {
    File,
    Dir,
    Symlink,
    Fifo,
    Socket,
    Device,
    Other,
}

impl Kind {
    /// "is …" for messages about a path that is not a regular file.
    pub(super) fn describe(self) -> &'static str {
        match self {
            Kind::File => "a regular file",
            Kind::Dir => "a directory",
            Kind::Symlink => "a symbolic link (resolve the path first)",
            Kind::Fifo => "a named pipe (FIFO)",
            Kind::Socket => "a socket",
            Kind::Device => "a device",
            Kind::Other => "not a regular file",
        }
    }
}

fn nanos(secs: i64, nsec: i64) -> i64 {
    secs.saturating_mul(1_000_000_000).saturating_add(nsec)
}

#[cfg(unix)]
mod posix {
    use super::*;
    use std::fs::Permissions;
    use std::io::ErrorKind;
    use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};

    pub(in super::super) fn stamp(m: &Metadata) -> Stamp {
        Stamp {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime_ns: nanos(m.mtime(), m.mtime_nsec()),
            ctime_ns: nanos(m.ctime(), m.ctime_nsec()),
        }
    }

    pub(in super::super) fn file_meta(m: &Metadata) -> FileMeta {
        FileMeta {
            mode: m.mode() & 0o7777,
            uid: m.uid(),
            gid: m.gid(),
        }
    }

    pub(in super::super) fn kind(ft: FileType) -> Kind {
        if ft.is_file() {
            Kind::File
        } else if ft.is_dir() {
            Kind::Dir
        } else if ft.is_symlink() {
            Kind::Symlink
        } else if ft.is_fifo() {
            Kind::Fifo
        } else if ft.is_socket() {
            Kind::Socket
        } else if ft.is_block_device() || ft.is_char_device() {
            Kind::Device
        } else {
            Kind::Other
        }
    }

    pub(in super::super) fn nlink(m: &Metadata) -> u64 {
        m.nlink()
    }

    /// This process's effective user and group: the owner of a file it creates.
    pub(in super::super) fn ids() -> (u32, u32) {
        // SAFETY: geteuid and getegid have no preconditions and cannot fail.
        unsafe { (libc::geteuid(), libc::getegid()) }
    }

    fn is_root() -> bool {
        // SAFETY: geteuid has no preconditions and cannot fail.
        unsafe { libc::geteuid() == 0 }
    }

    /// Gives the temp the original owner (when it differs and we may) and mode, or 0600 when
    /// new.
    pub(in super::super) fn apply_owner_and_mode(
        file: &File,
        meta: Option<FileMeta>,
    ) -> io::Result<()> {
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
                // The group could not be kept: never hand the user's group bits to another
                // group.
                mode &= !0o2070; // group bits and setgid
            }
        }
        file.set_permissions(Permissions::from_mode(mode))
    }
}

/// What std offers on every platform. Windows uses it; Unix compiles and tests it.
#[cfg(any(not(unix), test))]
pub(super) mod generic {
    use super::*;
    use std::time::UNIX_EPOCH;

    /// Size and modification time (100 ns resolution on NTFS). No device, inode or change time:
    /// std has them on Windows only behind unstable APIs, so a rename of a same-size file with
    /// the same modification time over the path is not seen.
    pub(in super::super) fn stamp(m: &Metadata) -> Stamp {
        let mtime_ns = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| {
                nanos(d.as_secs() as i64, i64::from(d.subsec_nanos()))
            });
        Stamp {
            dev: 0,
            ino: 0,
            size: m.len(),
            mtime_ns,
            ctime_ns: 0,
        }
    }

    /// No POSIX mode or owner: a read-only file reads as 0400, any other as 0600 (a file in a
    /// user's profile is the user's), so that lint's "readable by others" rule stays quiet.
    pub(in super::super) fn file_meta(m: &Metadata) -> FileMeta {
        FileMeta {
            mode: if m.permissions().readonly() {
                0o400
            } else {
                0o600
            },
            uid: 0,
            gid: 0,
        }
    }

    /// Files, directories and links; nothing else is told apart.
    pub(in super::super) fn kind(ft: FileType) -> Kind {
        if ft.is_symlink() {
            Kind::Symlink
        } else if ft.is_file() {
            Kind::File
        } else if ft.is_dir() {
            Kind::Dir
        } else {
            Kind::Other
        }
    }

    /// No POSIX owner: nothing to compare.
    #[cfg_attr(unix, allow(dead_code))]
    pub(in super::super) fn ids() -> (u32, u32) {
        (0, 0)
    }

    /// std cannot count links here: hard-linked files are not refused.
    pub(in super::super) fn nlink(_m: &Metadata) -> u64 {
        1
    }

    /// A new file keeps what the directory gives it (its inherited access list). The read-only
    /// attribute is copied, though on Windows a read-only target cannot be renamed over, and
    /// `tempfile`'s persist resets the temp's attributes: there a read-only file ends in
    /// `permission-denied` before this matters.
    pub(in super::super) fn apply_owner_and_mode(
        file: &File,
        meta: Option<FileMeta>,
    ) -> io::Result<()> {
        let Some(want) = meta else {
            return Ok(());
        };
        let mut perms = file.metadata()?.permissions();
        let readonly = want.mode & 0o222 == 0;
        if perms.readonly() != readonly {
            #[allow(clippy::permissions_set_readonly_false)] // Windows: clears the attribute
            perms.set_readonly(readonly);
            file.set_permissions(perms)?;
        }
        Ok(())
    }
}

/// The `generic` functions (what Windows runs), exercised on Unix.
#[cfg(test)]
mod tests {
    use super::generic;
    use super::*;
    use std::time::{Duration, SystemTime};

    #[test]
    fn generic_stamp_sees_size_and_mtime_only() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.json");
        std::fs::write(&p, b"{}").unwrap();
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(t)
            .unwrap();
        let a = generic::stamp(&std::fs::metadata(&p).unwrap());
        assert_eq!((a.dev, a.ino, a.ctime_ns), (0, 0, 0));
        assert_eq!(a.size, 2);
        assert_eq!(a.mtime_ns, 1_700_000_000_000_000_000);
        // Same size, other mtime: a change.
        std::fs::write(&p, b"[]").unwrap();
        let b = generic::stamp(&std::fs::metadata(&p).unwrap());
        assert_ne!(a, b);
        // Other size, mtime set back: still a change.
        std::fs::write(&p, b"{ }").unwrap();
        File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(t)
            .unwrap();
        let c = generic::stamp(&std::fs::metadata(&p).unwrap());
        assert_ne!(a, c);
        assert_eq!(c, generic::stamp(&std::fs::metadata(&p).unwrap()));
    }

    #[test]
    fn generic_kinds_links_and_meta() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, b"x").unwrap();
        let l = dir.path().join("l");
        std::os::unix::fs::symlink(&f, &l).unwrap();
        let kind =
            |p: &std::path::Path| generic::kind(std::fs::symlink_metadata(p).unwrap().file_type());
        assert_eq!(kind(&f), Kind::File);
        assert_eq!(kind(dir.path()), Kind::Dir);
        assert_eq!(kind(&l), Kind::Symlink);
        // std cannot count links everywhere: the generic layer says 1 even for a hard link.
        std::fs::hard_link(&f, dir.path().join("h")).unwrap();
        assert_eq!(generic::nlink(&std::fs::metadata(&f).unwrap()), 1);

        let m = generic::file_meta(&std::fs::metadata(&f).unwrap());
        assert_eq!((m.mode, m.uid, m.gid), (0o600, 0, 0));
        // A read-only original makes the new file read-only; a writable one leaves it alone.
        let new = dir.path().join("new");
        std::fs::write(&new, b"y").unwrap();
        let file = File::options().write(true).open(&new).unwrap();
        generic::apply_owner_and_mode(&file, Some(m)).unwrap();
        generic::apply_owner_and_mode(&file, None).unwrap();
        assert!(!std::fs::metadata(&new).unwrap().permissions().readonly());
        let ro = FileMeta {
            mode: 0o400,
            uid: 0,
            gid: 0,
        };
        generic::apply_owner_and_mode(&file, Some(ro)).unwrap();
        let after = std::fs::metadata(&new).unwrap();
        assert!(after.permissions().readonly());
        assert_eq!(generic::file_meta(&after).mode, 0o400);
    }
}
