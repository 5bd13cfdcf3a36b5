//! Unit tests of `fsio`.

use super::*;
use std::fs::Permissions;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
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
    r.unwrap_err().code.as_str()
}

const MAX: u64 = 1 << 20;

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

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
fn replace_dir_later_publishes_like_replace_and_sync_dir_confirms_the_directory() {
    let _g = shared();
    let dir = tmp();
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    fs::write(&a, b"old a").unwrap();
    fs::set_permissions(&a, Permissions::from_mode(0o640)).unwrap();
    let r = read(&a, MAX).unwrap().unwrap();
    replace_dir_later(&a, &[b"new a"], Some(r.meta), Expect::Stamp(r.stamp)).unwrap();
    replace_dir_later(&b, &[b"new b"], None, Expect::Missing).unwrap();
    assert_eq!(fs::read(&a).unwrap(), b"new a");
    assert_eq!(mode_of(&a), 0o640);
    assert_eq!(fs::read(&b).unwrap(), b"new b");
    assert_eq!(mode_of(&b), 0o600);
    assert!(temps_in(dir.path()).is_empty());
    // The same checks as `replace`: a file changed since it was read is not overwritten.
    let r = read(&a, MAX).unwrap().unwrap();
    fs::write(&a, b"theirs, longer").unwrap();
    let e = replace_dir_later(&a, &[b"stale"], Some(r.meta), Expect::Stamp(r.stamp));
    assert_eq!(code(e), "concurrent-modification");
    assert_eq!(fs::read(&a).unwrap(), b"theirs, longer");
    sync_dir(dir.path(), &a).unwrap();
    // A directory that is not there (or reached through a link) is an error naming the file.
    let gone = dir.path().join("gone");
    let e = sync_dir(&gone, &gone.join("x.json")).unwrap_err();
    assert!(e.message.contains("x.json"), "{}", e.message);
    symlink(dir.path(), dir.path().join("link")).unwrap();
    assert!(sync_dir(&dir.path().join("link"), &a).is_err());
}

/// A content over one writeback piece is written in pieces whose writeback is asked for as they
/// go: the bytes are the parts joined whatever their sizes (pieces cut across parts, parts
/// shorter than a piece, empty parts), and the ranges handed to the kernel follow each other
/// from 0 to the end, each a piece or more but the last.
#[test]
fn a_big_content_is_written_whole_with_its_writeback_asked_for_piece_by_piece() {
    const P: usize = WRITEBACK_PIECE;
    let byte = |i: usize| (i % 251) as u8;
    let bytes: Vec<u8> = (0..3 * P + 12345).map(byte).collect();
    let cuts: [&[usize]; 4] = [
        &[3, P + 5, 1, 2 * P - 9],
        &[0, P, 0, P, P],
        &[1],
        &[P / 3, P / 3, P / 3, P / 3, P / 3, P / 3, P / 3, P / 3],
    ];
    for cut in cuts {
        let mut parts: Vec<&[u8]> = Vec::new();
        let mut at = 0;
        for &n in cut {
            parts.push(&bytes[at..at + n]);
            at += n;
        }
        parts.push(&bytes[at..]);
        let mut out = Vec::new();
        let mut asked: Vec<(u64, u64)> = Vec::new();
        write_parts(&mut out, &parts, true, |o, n| asked.push((o, n))).unwrap();
        assert!(out == bytes, "content differs for cuts {cut:?}");
        let mut next = 0;
        for (i, &(o, n)) in asked.iter().enumerate() {
            assert_eq!(o, next, "ranges {asked:?}");
            assert!(n >= P as u64 || i == asked.len() - 1, "ranges {asked:?}");
            next = o + n;
        }
        assert_eq!(next, bytes.len() as u64, "ranges {asked:?}");
        assert!(asked.len() >= 3, "ranges {asked:?}");
    }
    // One piece or less, or no fsync to come: one write per part, no writeback asked for.
    for (content, early) in [(&bytes[..P], true), (&bytes[..], false)] {
        let mut out = Vec::new();
        let mut asked = 0;
        write_parts(&mut out, &[content], early, |_, _| asked += 1).unwrap();
        assert!(out == content);
        assert_eq!(asked, 0);
    }
    // Through the real sequence, a big file is published whole.
    let _g = shared();
    let dir = tmp();
    let a = dir.path().join("a.json");
    replace_dir_later(&a, &[&bytes[..7], &bytes[7..]], None, Expect::Missing).unwrap();
    assert!(fs::read(&a).unwrap() == bytes);
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

/// `a/deep/l.json` -> `../../b/t.json` (a file), and `dl` -> `a/deep`: a file link and an
/// intermediate directory link, both with relative targets. Returns the canonical base.
fn link_tree(dir: &tempfile::TempDir) -> PathBuf {
    let base = fs::canonicalize(dir.path()).unwrap();
    fs::create_dir_all(base.join("a/deep")).unwrap();
    fs::create_dir_all(base.join("b")).unwrap();
    fs::write(base.join("b/t.json"), b"{}").unwrap();
    symlink("../../b/t.json", base.join("a/deep/l.json")).unwrap();
    symlink("a/deep", base.join("dl")).unwrap();
    base
}

#[test]
fn relative_link_target_is_resolved_against_the_links_directory() {
    let _g = shared();
    let dir = tmp();
    let base = link_tree(&dir);
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
    assert_eq!(code(resolve(&base.join("nope/../x.json"))), "invalid-path");
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
fn a_resolver_answers_as_resolve_does() {
    let _g = shared();
    let dir = tmp();
    let base = link_tree(&dir);
    fs::write(base.join("f"), b"").unwrap();
    symlink("nowhere/x.json", base.join("b/dangling.json")).unwrap();
    symlink("loop", base.join("loop")).unwrap();
    let paths = [
        "a/deep/l.json",
        "dl/l.json",
        "dl/missing.json",
        "dl/../x.json",
        "b/t.json",
        "b/new.json",
        "b/dangling.json",
        "b",
        "a/deep",
        "dl",
        "loop/x.json",
        "loop",
        "f/x.json",
        "nope/x.json",
        "nope/../x.json",
        "b/./t.json",
    ];
    let mut r = Resolver::new();
    for round in 0..2 {
        for p in paths {
            let path = base.join(p);
            let want = resolve(&path).map_err(|e| e.code);
            assert_eq!(
                r.resolve(&path).map_err(|e| e.code),
                want,
                "{p} (round {round})"
            );
        }
    }
    // Resolved directories are remembered, and a relative path goes the whole way.
    assert!(r.dirs.contains_key(&base.join("dl")));
    assert_eq!(
        r.resolve(Path::new("x.json")).unwrap(),
        resolve(Path::new("x.json")).unwrap()
    );
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
        let _ = tx.send(read(&f2, MAX).map(|_| ()).map_err(|e| e.code.as_str()));
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
#[cfg(all(target_os = "linux", not(feature = "portable-fs")))] // needs RENAME_EXCHANGE
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
    let dirs = vec![
        dir.path().to_path_buf(),
        dir.path().join("."),
        dir.path().to_path_buf(),
    ];
    let locks = lock_dirs_impl(&dirs, Duration::from_millis(200), false).unwrap();
    assert_eq!(locks.paths().count(), 1);
    // Paths are resolved before locking: a link on the way is never followed.
    let alias = dir.path().join("alias");
    symlink(".", &alias).unwrap();
    let e = lock_dirs_impl(&[alias], Duration::from_millis(200), false).unwrap_err();
    assert_eq!(e.code, "concurrent-modification");
}

#[test]
fn write_side_calls_never_follow_a_link_on_the_way() {
    let _g = shared();
    let dir = tmp();
    let outside = dir.path().join("outside");
    fs::create_dir(&outside).unwrap();
    fs::write(outside.join("mcp.json"), b"{}").unwrap();
    let root = dir.path().join("root");
    fs::create_dir(&root).unwrap();
    symlink(&outside, root.join(".cursor")).unwrap();
    let p = root.join(".cursor/mcp.json");
    let code_of = |r: Result<(), FsError>| r.unwrap_err().code;
    assert_eq!(
        code_of(replace(&p, b"x", None, Expect::Missing)),
        "concurrent-modification"
    );
    assert_eq!(code_of(remove_file(&p)), "concurrent-modification");
    assert_eq!(
        create_parent_dirs(&root.join(".cursor/sub/mcp.json"))
            .unwrap_err()
            .code,
        "concurrent-modification"
    );
    assert_eq!(
        read_beneath(&p, MAX).unwrap_err().code,
        "concurrent-modification"
    );
    assert_eq!(
        clean_stale_temps(&p).unwrap_err().code,
        "concurrent-modification"
    );
    assert_eq!(fs::read(outside.join("mcp.json")).unwrap(), b"{}");
    assert_eq!(fs::read_dir(&outside).unwrap().count(), 1);
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
fn lock_file_follows_no_link_in_its_directories() {
    let _g = shared();
    let dir = tmp();
    // The state directory's `ledger` swapped for a link to a directory elsewhere: the lock file
    // is not created through it (it was opened by path, re-resolving the directories).
    let elsewhere = dir.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    fs::create_dir(dir.path().join("state")).unwrap();
    symlink(&elsewhere, dir.path().join("state/ledger")).unwrap();
    let p = dir.path().join("state/ledger/openab.lock");
    // `not-a-file` (openat2's ELOOP), or the walk's ENOTDIR where openat2 is not available.
    let c = code(lock_file(&p, Duration::from_millis(10)));
    assert!(["not-a-file", "io-error"].contains(&c), "{c}");
    assert!(
        !elsewhere.join("openab.lock").exists(),
        "the lock file was created through the link"
    );
    // The same path through real directories works.
    fs::remove_file(dir.path().join("state/ledger")).unwrap();
    fs::create_dir(dir.path().join("state/ledger")).unwrap();
    lock_file(&p, Duration::from_millis(10)).unwrap();
    assert_eq!(mode_of(&p), 0o600);
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
