//! Locks: the directory `flock` that serialises writers of one directory, the owner's ledger
//! lock, and cooperation with a client's own lock (Claude Code's proper-lockfile directory).
//! Split out of `fsio` along its existing section; everything here goes through the same
//! helpers and error types.

use super::*;

fn locking_disabled() -> bool {
    std::env::var_os(NO_LOCK_ENV).is_some_and(|v| v == "1")
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
                return Err(FsError::new(Code::IoError, path, message, Some(e)));
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
            return Err(FsError::new(Code::LockTimeout, path, message, None));
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
/// Each directory must be a resolved path: it is opened `O_RDONLY|O_DIRECTORY|O_CLOEXEC` without
/// following any symbolic link on the way (a link gives `concurrent-modification`), de-duplicated by `(dev, ino)` (two
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

pub(super) fn lock_dirs_impl(
    dirs: &[PathBuf],
    timeout: Duration,
    disabled: bool,
) -> Result<DirLocks, FsError> {
    let deadline = deadline_after(timeout);
    let mut opened: Vec<(at::LockKey, PathBuf, File)> = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let (key, file) = at::lock_handle(dir).map_err(|e| dir_open_error(dir, e))?;
        if !opened.iter().any(|(k, _, _)| *k == key) {
            opened.push((key, dir.clone(), file));
        }
    }
    #[allow(clippy::unnecessary_sort_by)] // the portable layer's key is a path, not `Copy`
    opened.sort_by(|a, b| a.0.cmp(&b.0));
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
    if (err.kind() == ErrorKind::NotADirectory || at::is_loop(&err)) && link_on_the_way(dir) {
        return dir_error(dir, dir, "lock the directory", err);
    }
    if err.kind() == ErrorKind::NotADirectory {
        let message = format!(
            "cannot lock `{}`: it is not a directory; check the path",
            d(dir)
        );
        return FsError::new(Code::NotAFile, dir, message, Some(err));
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
/// never truncated, never deleted), relative to its directory, which is opened without
/// following a symbolic link anywhere on `path` (`path` is absolute: a resolved path).
/// `O_RDWR` because NFS refuses exclusive locks on read-only descriptors. [`NO_LOCK_ENV`]
/// disables the lock as for [`lock_dirs`].
pub fn lock_file(path: &Path, timeout: Duration) -> Result<FileLock, FsError> {
    let deadline = deadline_after(timeout);
    let file = at::open_lock_file(path).map_err(|e| {
        if at::is_loop(&e) {
            let message = format!(
                "lock file `{}` or a directory above it is a symbolic link (mcpconf follows none \
                 in its state directory); remove the link so mcpconf can recreate it",
                d(path)
            );
            return FsError::new(Code::NotAFile, path, message, Some(e));
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
        return Err(FsError::new(Code::IoError, pattern, message, None));
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

/// The names in directory `dir` (one `readdir`), or `None` when it cannot be listed: what
/// discovery checks a candidate file's first step against instead of opening every client's
/// default file in every project.
pub fn entry_names(dir: &Path) -> Option<std::collections::HashSet<std::ffi::OsString>> {
    let entries = fs::read_dir(dir).ok()?;
    Some(entries.flatten().map(|e| e.file_name()).collect())
}

/// The directories under `dir` (itself included) that hold a `.git` (a repository or a
/// worktree), at most `depth` levels down, sorted: the project roots `inventory --discover`
/// reads. Hidden directories, `node_modules` and `target` are not entered, nor is a
/// repository's inside (its nested repositories are found only when given themselves); links
/// are not followed. A directory that cannot be read is skipped.
pub fn repositories(dir: &Path, depth: usize) -> Result<Vec<PathBuf>, FsError> {
    if !dir.is_dir() {
        let message = format!("`{}` is not a directory", d(dir));
        return Err(FsError::new(Code::NotFound, dir, message, None));
    }
    let mut out = Vec::new();
    let mut todo = vec![(dir.to_path_buf(), 0usize)];
    while let Some((at, level)) = todo.pop() {
        if at.join(".git").symlink_metadata().is_ok() {
            out.push(at);
            continue;
        }
        if level >= depth {
            continue;
        }
        let Ok(entries) = fs::read_dir(&at) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let skip = name.starts_with('.') || name == "node_modules" || name == "target";
            if !skip && entry.file_type().is_ok_and(|t| t.is_dir()) {
                todo.push((entry.path(), level + 1));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Whether [`glob`]`(pattern)` would list `path` if it were a regular file: same directory, a
/// name that is not hidden and matches the pattern's wildcards. A pattern without wildcards
/// matches only itself.
pub fn glob_matches(pattern: &Path, path: &Path) -> bool {
    let (Some(pat), Some(name)) = (pattern.file_name(), path.file_name()) else {
        return false;
    };
    let (pat, name) = (pat.to_string_lossy(), name.to_string_lossy());
    if !pat.contains(['*', '?']) {
        return pattern == path;
    }
    pattern.parent() == path.parent() && !name.starts_with('.') && wildcard_match(&pat, &name)
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
            return Err(FsError::new(Code::LockTimeout, &path, message, None));
        }
        thread::sleep(backoff.min(deadline - now));
        backoff = (backoff * 2).min(BACKOFF_MAX);
    }
}
