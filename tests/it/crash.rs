//! Crash consistency (contract §3 exit 4 and §5 "Every write is atomic … A kill at any instant
//! leaves each file entirely old or entirely new, and the next run converges (a temp file of
//! ours found while holding the lock is removed)"; reliability notes §3).
//!
//! `apply --yes` and `prune --yes` on a multi-megabyte client file are SIGKILLed at random
//! instants. After every kill the file must parse and be byte-identical to the version before
//! or after that command (computed once by uninterrupted runs on a copy). Between and after the
//! kills, an uninterrupted `apply` must converge: exit 0, the file equal to the new version, the
//! ledger holding the record, no temp file left, and `plan --check` clean.
//!
//! A deterministic companion (needs `strace`) kills `apply` and `prune` exactly at every call of
//! `write`, `fchmod`, `fsync`, `renameat2`/`rename`/`renameat` and `unlink` they make, and checks
//! the same old-or-new invariant and convergence after each. Two regression tests pin down bugs
//! found this way: stale temp files (next to a target, and in the ledger directory) must be
//! removed by the next run, even one that has nothing to write.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::thread;
use std::time::{Duration, Instant};

use crate::common::*;
use serde_json::{Value, json};

const TARGET: &str = "cfg/big.json"; // relative to --root; its directory holds nothing else
const MAX_ITERATIONS: usize = 40;
const LOOP_BUDGET: Duration = Duration::from_secs(32); // at least; see `budget`

fn manifest() -> String {
    "owner = \"crashy\"\n\n[servers.bigsrv]\ncommand = \"big-tool\"\nargs = [\"serve\", \"--port\", \"0\"]\nenv = { BIG_LEVEL = \"9\" }\n\n[[targets]]\nclient = \"json\"\npath = \"cfg/big.json\"\n".to_string()
}

/// A ~3 MB valid JSON object shaped like a busy `~/.claude.json`: an `mcpServers` object with
/// the user's entries and a large `projects` map. Pretty-printed with two-space indentation,
/// so an editor that keeps formatting and one that re-serializes produce similar sizes.
fn big_file() -> Vec<u8> {
    let mut rng = Lcg::new(0x5eed);
    let mut projects = serde_json::Map::new();
    for i in 0..5800 {
        let history: Vec<Value> = (0..3)
            .map(|_| {
                let n = rng.below(1_000_000);
                json!({ "display": format!("run the tests for module {n} and fix what fails"), "pastedContents": {} })
            })
            .collect();
        projects.insert(
            format!("/home/user/src/project-{i:05}"),
            json!({ "allowedTools": [], "hasTrustDialogAccepted": i % 3 == 0, "history": history, "cost": 1.5 }),
        );
    }
    let v = json!({
        "numStartups": 412,
        "mcpServers": {
            "users-own": { "command": "npx", "args": ["-y", "@example/server"], "env": { "X": "1" } }
        },
        "projects": Value::Object(projects),
        "tipsHistory": { "a": 1, "b": 2 }
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap();
    s.push('\n');
    s.into_bytes()
}

/// Runs an uninterrupted command in `scratch` and returns (exit code, elapsed).
fn run_clean(scratch: &Scratch, sub: &str, m: &Path, extra: &[&str]) -> (i32, Duration) {
    let t = Instant::now();
    let out = run_bounded(scratch.cmd(sub, m, extra), PROCESS_TIMEOUT);
    let elapsed = t.elapsed();
    let rc = code(&out.status, sub);
    if rc != 0 {
        eprintln!("{sub} {extra:?} exited {rc}:\n{}", show(&out));
    }
    (rc, elapsed)
}

/// When to deliver the SIGKILL.
#[derive(Clone, Copy, Debug)]
enum KillAt {
    /// This long after spawning: anywhere in the run (reading, planning, writing, printing).
    AfterSpawn(Duration),
    /// This long after the first file appears in the target's directory (our temp file):
    /// inside the short window between creating the temp and renaming it, which a uniform
    /// delay over a run of hundreds of milliseconds would rarely hit.
    AfterTempCreated(Duration),
}

use KillAt::*;

/// An inotify watch for file creations in one directory (bounded, non-blocking reads).
struct CreateWatch {
    fd: libc::c_int,
}

impl CreateWatch {
    fn new(dir: &Path) -> CreateWatch {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).unwrap();
        // SAFETY: plain syscalls with a valid NUL-terminated path; the fd is closed in Drop.
        unsafe {
            let fd = libc::inotify_init1(libc::IN_CLOEXEC | libc::IN_NONBLOCK);
            assert!(
                fd >= 0,
                "inotify_init1: {}",
                std::io::Error::last_os_error()
            );
            let wd = libc::inotify_add_watch(fd, c.as_ptr(), libc::IN_CREATE);
            assert!(
                wd >= 0,
                "inotify_add_watch: {}",
                std::io::Error::last_os_error()
            );
            CreateWatch { fd }
        }
    }

    /// Waits up to `timeout` for an event; true if one arrived. The names are not needed: the
    /// watched directory holds only the target, so any creation there is a temp file.
    fn wait(&self, timeout: Duration) -> bool {
        let mut pfd = libc::pollfd {
            fd: self.fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let n = unsafe { libc::poll(&mut pfd, 1, timeout.as_millis() as libc::c_int) };
        if n <= 0 {
            return false;
        }
        let mut buf = [0u8; 4096];
        // SAFETY: reading into a local buffer of the given size.
        let r = unsafe { libc::read(self.fd, buf.as_mut_ptr().cast(), buf.len()) };
        r > 0
    }
}

impl Drop for CreateWatch {
    fn drop(&mut self) {
        // SAFETY: closing the fd we opened.
        unsafe {
            libc::close(self.fd);
        }
    }
}

/// Spawns `sub --yes`, SIGKILLs it at `at`, reaps it. Returns whether it had already exited
/// on its own (the kill came too late to matter).
fn run_and_kill(scratch: &Scratch, sub: &str, m: &Path, at: KillAt) -> bool {
    let dir = scratch.root().join(TARGET);
    let watch = CreateWatch::new(dir.parent().unwrap());
    let mut c = scratch.cmd(sub, m, &["--yes"]);
    c.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = c.spawn().expect("spawn mcpconf");
    match at {
        AfterSpawn(d) => thread::sleep(d), // the kill instant, not an assertion about speed
        AfterTempCreated(d) => {
            let deadline = Instant::now() + PROCESS_TIMEOUT;
            loop {
                if watch.wait(Duration::from_millis(20)) {
                    thread::sleep(d);
                    break;
                }
                if matches!(child.try_wait(), Ok(Some(_))) || Instant::now() > deadline {
                    break; // it finished without creating a temp, or hangs (caught below)
                }
            }
        }
    }
    let finished = matches!(child.try_wait(), Ok(Some(_)));
    if !finished {
        child.kill().expect("SIGKILL"); // std sends SIGKILL on Unix
    }
    let deadline = Instant::now() + PROCESS_TIMEOUT;
    while child.try_wait().expect("try_wait").is_none() {
        assert!(Instant::now() < deadline, "a killed child did not exit");
        thread::sleep(Duration::from_millis(2));
    }
    finished
}

fn describe(bytes: &[u8]) -> String {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(80)]).into_owned();
    format!("{} bytes, starts with {head:?}", bytes.len())
}

fn assert_no_temps(dir: &Path, ctx: &str) {
    let t = temps_in(dir);
    assert!(
        t.is_empty(),
        "{ctx}: temp files left in {}: {t:?}",
        dir.display()
    );
}

/// Runs `sub --yes --format json` uninterrupted and checks it converged: exit 0, the target
/// equal to `want`, no temp file left next to it.
fn rerun_converges(scratch: &Scratch, sub: &str, m: &Path, target: &Path, want: &[u8], ctx: &str) {
    let out = run_bounded(
        scratch.cmd(sub, m, &["--yes", "--format", "json"]),
        PROCESS_TIMEOUT,
    );
    assert_eq!(
        code(&out.status, sub),
        0,
        "{ctx}: {sub} after a kill did not converge:\n{}",
        show(&out)
    );
    let now = fs::read(target).unwrap();
    assert!(
        now == want,
        "{ctx}: converged file differs from the uninterrupted result ({})",
        describe(&now)
    );
    assert_no_temps(target.parent().unwrap(), ctx);
}

/// Converges from whatever a kill left and checks the converged state.
fn converge(scratch: &Scratch, m: &Path, new: &[u8], ctx: &str) {
    let target = scratch.root().join(TARGET);
    rerun_converges(scratch, "apply", m, &target, new, ctx);
    assert_eq!(
        status_records(scratch, m, &scratch.state()),
        vec![("bigsrv".to_string(), "intact".to_string())],
        "{ctx}: ledger does not record the entry as ours and intact"
    );
}

#[test]
fn sigkill_during_apply_or_prune_leaves_old_or_new_and_next_run_converges() {
    let old = big_file();
    assert!(old.len() > 2_900_000, "fixture too small: {}", old.len());

    // Reference versions from uninterrupted runs on a copy (same relative layout).
    let reference = Scratch::new();
    let rm = reference.manifest("m.toml", &manifest());
    let rtarget = reference.root().join(TARGET);
    fs::create_dir_all(rtarget.parent().unwrap()).unwrap();
    fs::write(&rtarget, &old).unwrap();
    let (rc, t_apply) = run_clean(&reference, "apply", &rm, &["--yes"]);
    assert_eq!(rc, 0, "reference apply failed");
    let new = fs::read(&rtarget).unwrap();
    let (rc, t_prune) = run_clean(&reference, "prune", &rm, &["--yes"]);
    assert_eq!(rc, 0, "reference prune failed");
    let pruned = fs::read(&rtarget).unwrap();
    assert_ne!(old, new, "apply changed nothing");
    let nv: Value = serde_json::from_slice(&new).expect("new version parses");
    assert_eq!(nv["mcpServers"]["bigsrv"]["command"], json!("big-tool"));
    assert!(nv["mcpServers"]["users-own"].is_object());
    let pv: Value = serde_json::from_slice(&pruned).expect("pruned version parses");
    assert!(pv["mcpServers"].get("bigsrv").is_none());
    assert!(pv["mcpServers"]["users-own"].is_object());
    eprintln!(
        "file {} bytes; uninterrupted apply {t_apply:?}, prune {t_prune:?}",
        old.len()
    );

    let scratch = Scratch::new();
    let m = scratch.manifest("m.toml", &manifest());
    let target = scratch.root().join(TARGET);
    let dir = target.parent().unwrap().to_path_buf();
    fs::create_dir_all(&dir).unwrap();
    fs::write(&target, &old).unwrap();

    let mut rng = Lcg::from_env_or_time("crash");
    let (mut saw_old, mut saw_new, mut exited, mut temps_seen) = (0, 0, 0, 0);
    // On a loaded machine one run can take seconds: the budget grows with the measured cost
    // of an uninterrupted apply and prune, so at least ten kills still fit.
    let budget = LOOP_BUDGET.max((t_apply + t_prune) * 12);
    let started = Instant::now();
    let mut iterations = 0;
    for i in 0..MAX_ITERATIONS {
        if started.elapsed() > budget {
            break;
        }
        iterations += 1;
        let prune = i % 3 == 2;
        let (sub, before, after, span) = if prune {
            // Converge first (this also checks convergence after the previous apply kills),
            // so the prune has something of ours to remove.
            converge(&scratch, &m, &new, &format!("iteration {i} (before prune)"));
            ("prune", &new, &pruned, t_prune)
        } else {
            // Start from the old content; the ledger keeps whatever the last kill left in it
            // (nothing, a pending journal, or a committed record of a now missing entry).
            fs::write(&target, &old).unwrap();
            ("apply", &old, &new, t_apply)
        };
        // Odd iterations: anywhere from the start to a little past the expected end of the
        // run. Even iterations: 0–15 ms after the temp file appears (the write/fsync/rename
        // window).
        let at = if i % 2 == 1 {
            AfterSpawn(Duration::from_micros(
                rng.below(span.as_micros() as u64 * 11 / 10 + 1),
            ))
        } else {
            AfterTempCreated(Duration::from_micros(rng.below(15_000)))
        };
        if run_and_kill(&scratch, sub, &m, at) {
            exited += 1;
        }
        let now = fs::read(&target)
            .unwrap_or_else(|e| panic!("iteration {i}: {sub} killed at {at:?}: {e}"));
        let parsed: Result<Value, _> = serde_json::from_slice(&now);
        assert!(
            parsed.is_ok(),
            "iteration {i}: {sub} killed at {at:?} left an unparsable file ({})",
            describe(&now)
        );
        if &now == before {
            saw_old += 1;
        } else if &now == after {
            saw_new += 1;
        } else {
            panic!(
                "iteration {i}: {sub} killed at {at:?} left a file that is neither the old \
                 nor the new version ({})",
                describe(&now)
            );
        }
        if !temps_in(&dir).is_empty() {
            temps_seen += 1;
        }
    }
    eprintln!(
        "{iterations} kills in {:?}: old={saw_old} new={saw_new} (finished before the kill: \
         {exited}); a temp file was left after {temps_seen} kills",
        started.elapsed()
    );
    assert!(iterations >= 10, "only {iterations} iterations ran");

    // The last kill's leftovers (possibly a temp file, a pending ledger journal) must not stop
    // the next run.
    fs::write(&target, &old).unwrap();
    converge(&scratch, &m, &new, "final apply");
    let (rc, _) = run_clean(&scratch, "plan", &m, &["--check"]);
    assert_eq!(
        rc, 0,
        "plan --check after convergence reports pending changes"
    );
    // (Temp files a kill leaves in the *ledger* directory are not checked here: see
    // `stale_temp_in_the_ledger_directory_is_removed_by_the_next_run`.)
}

// ---------------------------------------------------------------------------------------------
// Deterministic crash points: SIGKILL delivered exactly at the Nth call of a write-side syscall
// (`strace -e inject=SYSCALL:signal=KILL:when=N`), for every N the run makes.
// ---------------------------------------------------------------------------------------------

const SMALL_TARGET: &str = "cfg/mcp.json";

fn small_manifest() -> String {
    simple_manifest("crashy", "smallsrv", SMALL_TARGET)
}

fn small_file() -> Vec<u8> {
    let v = json!({
        "mcpServers": { "users-own": { "command": "npx", "args": ["-y", "@example/server"] } },
        "other": { "keep": [1, 2, 3] }
    });
    (serde_json::to_string_pretty(&v).unwrap() + "\n").into_bytes()
}

/// The small fixture's three versions from uninterrupted runs on a scratch copy: as it was,
/// after `apply`, after the `prune` that follows.
fn small_versions() -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let old = small_file();
    let reference = Scratch::new();
    let rm = reference.manifest("m.toml", &small_manifest());
    let rt = reference.root().join(SMALL_TARGET);
    fs::create_dir_all(rt.parent().unwrap()).unwrap();
    fs::write(&rt, &old).unwrap();
    assert_eq!(run_clean(&reference, "apply", &rm, &["--yes"]).0, 0);
    let new = fs::read(&rt).unwrap();
    assert_eq!(run_clean(&reference, "prune", &rm, &["--yes"]).0, 0);
    let pruned = fs::read(&rt).unwrap();
    assert_ne!(old, new);
    (old, new, pruned)
}

/// A scratch directory with the small manifest and the target's directory made: the scratch,
/// the manifest, the target and its directory.
fn small_scratch() -> (Scratch, PathBuf, PathBuf, PathBuf) {
    let scratch = Scratch::new();
    let m = scratch.manifest("m.toml", &small_manifest());
    let target = scratch.root().join(SMALL_TARGET);
    let dir = target.parent().unwrap().to_path_buf();
    fs::create_dir_all(&dir).unwrap();
    (scratch, m, target, dir)
}

/// Two applies killed in a row before any commit landed (the first one's intent is all the
/// ledger there is; the second is made from it), at every pair of write-side points: the third
/// run converges and the entry is still ours. (A second intent once read as one made from a
/// ledger moved away, and the owner's records were dropped.)
#[test]
fn two_applies_killed_in_a_row_keep_the_entry_ours() {
    if !strace_or_skip("two_applies_killed_in_a_row") {
        return;
    }
    let (old, new, _) = small_versions();
    let (scratch, m, target, dir) = small_scratch();
    let mut pairs = 0;
    for sys in ["renameat2", "rename", "fsync"] {
        for first in 1..=4u32 {
            for second in 1..=4u32 {
                let _ = fs::remove_dir_all(scratch.state());
                fs::write(&target, &old).unwrap();
                for t in temps_in(&dir) {
                    fs::remove_file(dir.join(t)).unwrap();
                }
                if !kill_at_syscall(&scratch, "apply", &m, sys, first) {
                    break;
                }
                // The second run starts from the old file again, as a setup script that
                // rewrites the file would leave it, and from whatever the first kill left in
                // the ledger.
                fs::write(&target, &old).unwrap();
                let killed = kill_at_syscall(&scratch, "apply", &m, sys, second);
                pairs += usize::from(killed);
                let ctx = format!("apply killed at {sys} #{first}, then at {sys} #{second}");
                rerun_converges(&scratch, "apply", &m, &target, &new, &ctx);
                assert_eq!(
                    status_records(&scratch, &m, &scratch.state()),
                    vec![("smallsrv".to_string(), "intact".to_string())],
                    "{ctx}: ledger after the rerun"
                );
            }
        }
    }
    assert!(
        pairs >= 4,
        "only {pairs} pairs of kills were reached: is strace injection working?"
    );
}

/// Runs `sub --yes` under strace, killed at the `n`th `sys` call. Returns false when the run
/// made fewer than `n` such calls (it completed normally).
fn kill_at_syscall(scratch: &Scratch, sub: &str, m: &Path, sys: &str, n: u32) -> bool {
    kill_at_syscall_with(scratch, sub, m, &[], sys, n)
}

/// [`kill_at_syscall`] with more arguments.
fn kill_at_syscall_with(
    scratch: &Scratch,
    sub: &str,
    m: &Path,
    extra: &[&str],
    sys: &str,
    n: u32,
) -> bool {
    let mut argv = mcpconf_args(sub, m, &scratch.root(), &scratch.state());
    argv.push("--yes".into());
    argv.extend(extra.iter().map(|a| a.to_string()));
    let inject = format!("inject={sys}:signal=KILL:when={n}");
    let log = scratch.path().join("strace.log");
    let (out, _) = strace_run(
        &["-e", &format!("trace={sys}"), "-e", &inject],
        &argv,
        &log,
        &[],
    );
    match out.status.code() {
        Some(0) => false,
        // strace reports a tracee killed by SIGKILL as 128 + 9 (or dies by the same signal).
        Some(137) | None => true,
        Some(other) => panic!(
            "{sub} killed at {sys} #{n}: unexpected exit {other}:\n{}",
            show(&out)
        ),
    }
}

#[test]
fn sigkill_at_every_write_side_syscall_leaves_old_or_new_and_converges() {
    if !strace_or_skip("sigkill_at_every_write_side_syscall") {
        return;
    }
    let (old, new, pruned) = small_versions();
    let (scratch, m, target, dir) = small_scratch();
    let started = Instant::now();
    let mut kills = 0;
    let mut reached: Vec<String> = Vec::new();
    for sub in ["apply", "prune"] {
        for sys in [
            "write",
            "fchmod",
            "fsync",
            "renameat2",
            "rename",
            "renameat",
            "unlink",
        ] {
            for n in 1..=40u32 {
                // Start state: before apply, the old file and no ledger; before prune, the
                // applied state.
                let _ = fs::remove_dir_all(scratch.state());
                fs::write(&target, &old).unwrap();
                for t in temps_in(&dir) {
                    fs::remove_file(dir.join(t)).unwrap();
                }
                let (before, after) = if sub == "apply" {
                    (&old, &new)
                } else {
                    assert_eq!(run_clean(&scratch, "apply", &m, &["--yes"]).0, 0);
                    (&new, &pruned)
                };
                if !kill_at_syscall(&scratch, sub, &m, sys, n) {
                    break;
                }
                kills += 1;
                let ctx = format!("{sub} killed at {sys} #{n}");
                reached.push(format!("{sub}:{sys}#{n}"));
                let now = fs::read(&target).unwrap_or_else(|e| panic!("{ctx}: {e}"));
                assert!(
                    &now == before || &now == after,
                    "{ctx}: the file is neither old nor new ({})",
                    describe(&now)
                );
                // The next run converges to the same end state as an uninterrupted run.
                rerun_converges(&scratch, sub, &m, &target, after, &ctx);
                let recs = status_records(&scratch, &m, &scratch.state());
                let want = if sub == "apply" {
                    vec![("smallsrv".to_string(), "intact".to_string())]
                } else {
                    vec![]
                };
                assert_eq!(recs, want, "{ctx}: ledger after the rerun");
            }
        }
    }
    eprintln!(
        "{kills} syscall-level kills checked in {:?}: {reached:?}",
        started.elapsed()
    );
    assert!(
        kills >= 10,
        "only {kills} kill points were reached: is strace injection working?"
    );
}

#[test]
fn stale_temp_in_the_ledger_directory_is_removed_by_the_next_run() {
    // Contract §5: "the next run converges (a temp file of ours found while holding the lock
    // is removed)". A kill while the ledger is being replaced leaves
    // `<state>/ledger/.<owner>.json.mcpconf-XXXXXX.tmp`; the next run holds the owner's lock
    // but only cleans the target files' directories.
    if !strace_or_skip("stale_temp_in_the_ledger_directory_is_removed_by_the_next_run") {
        return;
    }
    let scratch = Scratch::new();
    let m = scratch.manifest("m.toml", &small_manifest());
    let target = scratch.root().join(SMALL_TARGET);
    fs::create_dir_all(target.parent().unwrap()).unwrap();
    fs::write(&target, small_file()).unwrap();
    let ledger_dir = scratch.state().join("ledger");

    // Find which renameat2 publishes the ledger, then kill the process exactly there.
    let mut argv = mcpconf_args("apply", &m, &scratch.root(), &scratch.state());
    argv.push("--yes".into());
    let log = scratch.path().join("discover.log");
    let (out, calls) = strace_run(&["-e", "trace=renameat2,rename,renameat"], &argv, &log, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let (sys, n) = ["renameat2", "rename", "renameat"]
        .iter()
        .find_map(|sys| {
            ordinal_of(&calls, sys, |s| s.args.contains(".crashy.json.mcpconf-"))
                .map(|(n, _)| (*sys, n))
        })
        .expect("no rename of a ledger temp file in the trace");
    let _ = fs::remove_dir_all(scratch.state());
    fs::write(&target, small_file()).unwrap();
    assert!(kill_at_syscall(&scratch, "apply", &m, sys, n));
    assert!(
        !temps_in(&ledger_dir).is_empty(),
        "the kill left no ledger temp file"
    );

    assert_eq!(run_clean(&scratch, "apply", &m, &["--yes"]).0, 0);
    assert_no_temps(&ledger_dir, "ledger directory after the next apply");
}

#[test]
#[cfg_attr(
    feature = "portable-fs",
    ignore = "needs RENAME_EXCHANGE's displaced temp"
)]
fn stale_temp_in_the_target_directory_is_removed_by_a_noop_run() {
    // A kill right after RENAME_EXCHANGE, before the displaced old inode (now named
    // `.mcp.json.mcpconf-XXXXXX.tmp`) is unlinked, leaves that file in the project directory.
    // The file itself is already new, so the next run has nothing to write, and it never
    // removes the temp: contract §5 "Locks and temp files never leave new files in the project
    // tree" and "a temp file of ours found while holding the lock is removed".
    if !strace_or_skip("stale_temp_in_the_target_directory_is_removed_by_a_noop_run") {
        return;
    }
    let scratch = Scratch::new();
    let m = scratch.manifest("m.toml", &small_manifest());
    let target = scratch.root().join(SMALL_TARGET);
    let dir = target.parent().unwrap().to_path_buf();
    fs::create_dir_all(&dir).unwrap();
    fs::write(&target, small_file()).unwrap();
    let mut argv = mcpconf_args("apply", &m, &scratch.root(), &scratch.state());
    argv.push("--yes".into());
    let log = scratch.path().join("discover.log");
    let (out, calls) = strace_run(&["-e", "trace=unlink,unlinkat"], &argv, &log, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let (sys, n) = ["unlink", "unlinkat"]
        .iter()
        .find_map(|sys| {
            ordinal_of(&calls, sys, |s| s.args.contains(".mcp.json.mcpconf-"))
                .map(|(n, _)| (*sys, n))
        })
        .expect("no unlink of a target temp file in the trace");
    let _ = fs::remove_dir_all(scratch.state());
    fs::write(&target, small_file()).unwrap();
    assert!(kill_at_syscall(&scratch, "apply", &m, sys, n));
    assert!(!temps_in(&dir).is_empty(), "the kill left no temp file");

    assert_eq!(run_clean(&scratch, "apply", &m, &["--yes"]).0, 0);
    assert_no_temps(&dir, "project directory after the next apply");
}

/// A power loss can lose the ledger commit, which is published without fsync after the files
/// (its durable intent, saved before them, stands for it): the ledger is then the one from
/// before the run, or an empty file. Either way the next run proves the file ours, converges,
/// and `status` finds the entry intact; a prune then restores the file.
#[test]
fn a_lost_ledger_commit_is_recovered_from_the_intent() {
    for lost in ["previous ledger", "empty ledger"] {
        let scratch = Scratch::new();
        let m = scratch.manifest("m.toml", &small_manifest());
        let target = scratch.root().join(SMALL_TARGET);
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        fs::write(&target, small_file()).unwrap();
        let ledger = scratch.state().join("ledger/crashy.json");
        // A first apply with another value, so there is a previous ledger.
        let m0 = scratch.manifest(
            "m0.toml",
            &small_manifest().replace("\"serve\"", "\"serve-old\""),
        );
        assert_eq!(run_clean(&scratch, "apply", &m0, &["--yes"]).0, 0);
        let previous = fs::read(&ledger).unwrap();
        assert_eq!(run_clean(&scratch, "apply", &m, &["--yes"]).0, 0);
        let applied = fs::read(&target).unwrap();
        // The commit is lost.
        match lost {
            "previous ledger" => fs::write(&ledger, &previous).unwrap(),
            _ => fs::write(&ledger, b"").unwrap(),
        }
        let ctx = format!("after a lost commit ({lost})");
        assert_eq!(run_clean(&scratch, "apply", &m, &["--yes"]).0, 0, "{ctx}");
        assert_eq!(fs::read(&target).unwrap(), applied, "{ctx}");
        assert_eq!(
            status_records(&scratch, &m, &scratch.state()),
            vec![("smallsrv".to_string(), "intact".to_string())],
            "{ctx}"
        );
        assert_eq!(run_clean(&scratch, "prune", &m, &["--yes"]).0, 0, "{ctx}");
        assert_eq!(fs::read(&target).unwrap(), small_file(), "{ctx}");
    }
}

/// The user's own `smallsrv` (another command, a literal token) in the small fixture: what
/// `apply --take-over smallsrv` replaces and `prune` gives back.
fn user_owned_file() -> Vec<u8> {
    b"{\n  \"mcpServers\": {\n    \"smallsrv\": { \"command\": \"users-bin\", \"args\": [\"--token\", \"sk-live-TAKEOVERSECRET42\"] },\n    \"users-own\": {\"command\": \"npx\"}\n  },\n  \"other\": [1, 2]\n}\n".to_vec()
}

/// Whether the owner's restore file holds a copy of `smallsrv`.
fn has_copy(scratch: &Scratch) -> bool {
    let p = scratch.state().join("ledger/crashy.restore.json");
    let Ok(text) = fs::read_to_string(&p) else {
        return false;
    };
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    v["copies"]
        .as_array()
        .is_some_and(|c| c.iter().any(|c| c["server"] == "smallsrv"))
}

/// Take-over under kills (contract, third round): `apply --take-over` and the `prune` that gives
/// the entry back, each SIGKILLed at every write-side call: the file is old or new, the restore
/// copy exists whenever the file holds the taken-over entry, and the next run converges; the
/// prune after it gives back the original bytes.
#[test]
fn sigkill_during_take_over_and_give_back_keeps_the_copy_until_the_file_is_back() {
    if !strace_or_skip("sigkill_during_take_over") {
        return;
    }
    let take = ["--take-over", "smallsrv"];
    let (scratch, m, target, dir) = small_scratch();
    let original = user_owned_file();
    let reset = |state: bool| {
        if state {
            let _ = fs::remove_dir_all(scratch.state());
        }
        fs::write(&target, &original).unwrap();
        for t in temps_in(&dir) {
            fs::remove_file(dir.join(t)).unwrap();
        }
    };
    reset(true);
    assert_eq!(
        run_clean(&scratch, "apply", &m, &["--yes"]).0,
        3,
        "a conflict"
    );
    assert_eq!(
        run_clean(&scratch, "apply", &m, &["--yes", take[0], take[1]]).0,
        0
    );
    let taken = fs::read(&target).unwrap();
    assert_ne!(taken, original);
    assert!(has_copy(&scratch));
    assert_eq!(run_clean(&scratch, "prune", &m, &["--yes"]).0, 0);
    assert_eq!(
        fs::read(&target).unwrap(),
        original,
        "given back byte for byte"
    );
    assert!(!has_copy(&scratch));

    let mut kills = 0;
    for sub in ["apply", "prune"] {
        for sys in ["write", "fsync", "renameat2", "rename", "unlink"] {
            for n in 1..=30u32 {
                reset(true);
                let (before, after, extra): (&[u8], &[u8], &[&str]) = if sub == "apply" {
                    (&original, &taken, &take)
                } else {
                    let out = run_clean(&scratch, "apply", &m, &["--yes", take[0], take[1]]);
                    assert_eq!(out.0, 0);
                    (&taken, &original, &[])
                };
                if !kill_at_syscall_with(&scratch, sub, &m, extra, sys, n) {
                    break;
                }
                kills += 1;
                let ctx = format!("{sub} killed at {sys} #{n}");
                let now = fs::read(&target).unwrap_or_else(|e| panic!("{ctx}: {e}"));
                assert!(
                    now == before || now == after,
                    "{ctx}: neither old nor new ({})",
                    describe(&now)
                );
                if now == taken {
                    assert!(
                        has_copy(&scratch),
                        "{ctx}: the taken-over entry has no copy"
                    );
                }
                // The next run converges; then the give-back is byte for byte.
                let mut args = vec!["--yes", "--format", "json"];
                args.extend_from_slice(extra);
                let out = run_bounded(scratch.cmd(sub, &m, &args), PROCESS_TIMEOUT);
                assert_eq!(code(&out.status, sub), 0, "{ctx}: rerun:\n{}", show(&out));
                assert_eq!(fs::read(&target).unwrap(), after, "{ctx}: rerun result");
                if sub == "apply" {
                    assert!(has_copy(&scratch), "{ctx}: copy after the rerun");
                    assert_eq!(run_clean(&scratch, "prune", &m, &["--yes"]).0, 0, "{ctx}");
                }
                assert_eq!(fs::read(&target).unwrap(), original, "{ctx}: given back");
                assert!(
                    !has_copy(&scratch),
                    "{ctx}: the copy outlived the give-back"
                );
                assert_no_temps(&dir, &ctx);
            }
        }
    }
    assert!(kills >= 10, "only {kills} kill points were reached");
}

/// The same promises under SIGKILL at random instants (no strace needed): `apply --take-over`
/// and the `prune` that gives the entry back, each killed anywhere in its run.
#[test]
fn sigkill_at_random_instants_during_take_over_and_give_back() {
    let take = ["--take-over", "smallsrv"];
    let (scratch, m, target, dir) = small_scratch();
    let original = user_owned_file();
    fs::write(&target, &original).unwrap();
    let (rc, took) = run_clean(&scratch, "apply", &m, &["--yes", take[0], take[1]]);
    assert_eq!(rc, 0);
    let taken = fs::read(&target).unwrap();
    let mut rng = Lcg::from_env_or_time("take-over kills");
    // Kill instants spread over about one uninterrupted run (measured: no speed assumption).
    let span = took.as_micros().max(2_000) as u64;
    for i in 0..16 {
        let _ = fs::remove_dir_all(scratch.state());
        fs::write(&target, &original).unwrap();
        for t in temps_in(&dir) {
            fs::remove_file(dir.join(t)).unwrap();
        }
        let (sub, extra, before, after): (&str, &[&str], &[u8], &[u8]) = if i % 2 == 0 {
            ("apply", &take, &original, &taken)
        } else {
            let rc = run_clean(&scratch, "apply", &m, &["--yes", take[0], take[1]]).0;
            assert_eq!(rc, 0);
            ("prune", &[], &taken, &original)
        };
        let mut c = scratch.cmd(sub, &m, &["--yes"]);
        c.args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut child = c.spawn().unwrap();
        thread::sleep(Duration::from_micros(rng.below(span * 3 / 2)));
        let _ = child.kill();
        let _ = child.wait();
        let ctx = format!("{sub} killed at random (#{i})");
        let now = fs::read(&target).unwrap();
        assert!(
            now == before || now == after,
            "{ctx}: neither old nor new ({})",
            describe(&now)
        );
        if now == taken {
            assert!(
                has_copy(&scratch),
                "{ctx}: the taken-over entry has no copy"
            );
        }
        let mut args = vec!["--yes"];
        args.extend_from_slice(extra);
        assert_eq!(run_clean(&scratch, sub, &m, &args).0, 0, "{ctx}: rerun");
        assert_eq!(fs::read(&target).unwrap(), after, "{ctx}: rerun result");
        if sub == "apply" {
            assert_eq!(run_clean(&scratch, "prune", &m, &["--yes"]).0, 0, "{ctx}");
        }
        assert_eq!(fs::read(&target).unwrap(), original, "{ctx}: given back");
        assert!(
            !has_copy(&scratch),
            "{ctx}: the copy outlived the give-back"
        );
        assert_no_temps(&dir, &ctx);
    }
}

/// A prune killed after its ledger commit and before it dropped the restore copy leaves a copy
/// (holding the user's original entry, secrets and all) that no record needs; with nothing
/// recorded, the next `prune` must still drop it, not stop at "nothing to prune" (found by
/// the random-instant kills above, about one run in eighty).
#[test]
fn a_copy_left_by_a_prune_killed_after_its_commit_is_dropped_by_the_next_prune() {
    let take = ["--take-over", "smallsrv"];
    let (scratch, m, target, _dir) = small_scratch();
    let original = user_owned_file();
    fs::write(&target, &original).unwrap();
    assert_eq!(
        run_clean(&scratch, "apply", &m, &["--yes", take[0], take[1]]).0,
        0
    );
    assert!(has_copy(&scratch));
    // The state such a kill leaves: the file given back, the ledger committed without the
    // record, the copy still there.
    fs::write(&target, &original).unwrap();
    let ledger = scratch.state().join("ledger/crashy.json");
    let mut v: Value = serde_json::from_str(&fs::read_to_string(&ledger).unwrap()).unwrap();
    v["records"] = Value::Array(Vec::new());
    fs::write(&ledger, serde_json::to_string(&v).unwrap()).unwrap();
    assert!(has_copy(&scratch));
    let (rc, _) = run_clean(&scratch, "prune", &m, &["--yes"]);
    assert_eq!(rc, 0);
    assert!(!has_copy(&scratch), "the copy outlived the give-back");
    assert_eq!(fs::read(&target).unwrap(), original);
    // Nothing recorded and no copy: the next prune says there is nothing to prune.
    let out = run_bounded(scratch.cmd("prune", &m, &["--yes"]), PROCESS_TIMEOUT);
    assert_eq!(code(&out.status, "prune"), 0);
    assert!(show(&out).contains("nothing to prune"), "{}", show(&out));
}
