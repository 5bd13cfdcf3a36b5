//! Killing what the probe started: every `unsafe` of the probe lives here (kill(2), signal(2)).
//!
//! Unix only: a server runs in a process group of its own, which is stopped and killed whole.
//! Elsewhere (Windows) there are no process groups or signals here: the probe kills the server
//! process itself (`Child::kill`), and a process it started may outlive it.

#[cfg(unix)]
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicI32, Ordering};

/// Process groups of the servers running now, for [`kill_running`] (0 = free slot).
static RUNNING: [AtomicI32; 64] = [const { AtomicI32::new(0) }; 64];

pub(super) fn register(pgid: i32) -> Option<usize> {
    RUNNING.iter().position(|s| {
        s.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    })
}

pub(super) fn unregister(slot: usize) {
    if let Some(s) = RUNNING.get(slot) {
        s.store(0, Ordering::SeqCst);
    }
}

/// SIGKILL the process group of every server being probed now. Async-signal-safe (atomic loads
/// and kill(2) only), so a signal handler may call it. Does nothing on systems without process
/// groups.
#[cfg(not(unix))]
pub fn kill_running() {}

/// SIGKILL the process group of every server being probed now. Async-signal-safe (atomic loads
/// and kill(2) only), so a signal handler may call it.
#[cfg(unix)]
pub fn kill_running() {
    for s in &RUNNING {
        let pgid = s.load(Ordering::SeqCst);
        if pgid > 1 {
            // SAFETY: kill(2) on a process group this module started; no memory is involved.
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
        }
    }
}

#[cfg(unix)]
extern "C" fn on_fatal_signal(sig: libc::c_int) {
    kill_running();
    // SAFETY: signal(2) and raise(3) are async-signal-safe; the default action then ends the
    // process as the signal would have.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

/// For programs (the `mcpconf` binary): on SIGINT, SIGTERM or SIGHUP, kill the servers being
/// probed before dying of the signal, so that an interrupted probe leaves no process behind
/// (they run in process groups of their own, which a terminal's Ctrl-C does not reach).
/// Does nothing on systems without signals.
pub fn kill_servers_on_signal() {
    #[cfg(unix)]
    install_handlers();
}

#[cfg(unix)]
fn install_handlers() {
    let handler: extern "C" fn(libc::c_int) = on_fatal_signal;
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: installs a handler that only calls async-signal-safe functions.
        unsafe { libc::signal(sig, handler as libc::sighandler_t) };
    }
}

/// SIGCONT a process group that [`kill_tree`] stopped but could not kill (it changed its
/// user), so that it is not left stopped.
pub(super) fn resume(pgid: i32) {
    #[cfg(not(unix))]
    let _ = pgid;
    #[cfg(unix)]
    if pgid > 1 {
        // SAFETY: kill(2) on our own child's process group; no memory is involved.
        unsafe { libc::kill(-pgid, libc::SIGCONT) };
    }
}

/// Kill a process group and every descendant of its leader (also those that left the group):
/// stop them all first so that none can fork away, then SIGKILL. Nothing on systems without
/// process groups (the caller kills its child).
#[cfg(not(unix))]
pub(super) fn kill_tree(_pgid: i32) {}

/// Kill a process group and every descendant of its leader (also those that left the group):
/// stop them all first so that none can fork away, then SIGKILL.
#[cfg(unix)]
pub(super) fn kill_tree(pgid: i32) {
    if pgid <= 1 {
        return;
    }
    // SAFETY: kill(2) with a negative pid signals a process group; no memory is involved.
    unsafe { libc::kill(-pgid, libc::SIGSTOP) };
    let mut all: BTreeSet<i32> = BTreeSet::new();
    for _ in 0..8 {
        let before = all.len();
        for p in descendants(pgid) {
            if all.insert(p) {
                // SAFETY: as above, for one process.
                unsafe { libc::kill(p, libc::SIGSTOP) };
            }
        }
        if all.len() == before {
            break;
        }
    }
    // SAFETY: as above.
    unsafe { libc::kill(-pgid, libc::SIGKILL) };
    for p in &all {
        // SAFETY: as above.
        unsafe { libc::kill(*p, libc::SIGKILL) };
    }
}

/// Every process below `root` in the parent tree (Linux `/proc`; elsewhere none).
#[cfg(unix)]
fn descendants(root: i32) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut parent_of = Vec::new();
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`; comm may contain spaces and parentheses.
        let Some(rest) = stat.rfind(')').and_then(|i| stat.get(i + 1..)) else {
            continue;
        };
        let mut f = rest.split_whitespace();
        let _state = f.next();
        if let Some(ppid) = f.next().and_then(|s| s.parse::<i32>().ok()) {
            parent_of.push((pid, ppid));
        }
    }
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        for (c, pp) in &parent_of {
            if *pp == p && !found.contains(c) {
                found.push(*c);
            }
        }
        i += 1;
    }
    found.remove(0);
    found
}
