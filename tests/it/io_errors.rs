//! I/O failures while applying (contract §3 exit 4: "an I/O failure while applying (lock
//! timeout, permission denied, disk full, read-only file system). Every file is either entirely
//! old or entirely new, and the ledger matches the files"; §6 error codes; reliability notes §1.2
//! error matrix and §3 fault injection).
//!
//! Failures are injected into the real binary with `strace -e inject=SYSCALL:error=ERRNO:when=N`
//! (N found by a traced dry run, and checked afterwards in the injected run's own trace), so they
//! work as root and need no special file systems. A real read-only directory is used when an
//! unprivileged user is available, and the lock timeout is tested by holding the directory lock
//! from the test process.

use std::fs::{self, File};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::*;
use serde_json::json;

const OWNER: &str = "iofail";
const SERVER: &str = "newsrv";
const TARGET: &str = "conf/mcp.json";

fn old_file() -> Vec<u8> {
    let v = json!({
        "mcpServers": { "users-own": { "command": "npx", "args": ["-y", "@example/server"] } },
        "editor.fontSize": 14
    });
    (serde_json::to_string_pretty(&v).unwrap() + "\n").into_bytes()
}

struct Setup {
    scratch: Scratch,
    manifest: PathBuf,
    target: PathBuf,
    dir: PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let scratch = Scratch::new();
        let manifest = scratch.manifest("m.toml", &simple_manifest(OWNER, SERVER, TARGET));
        let target = scratch.root().join(TARGET);
        let dir = target.parent().unwrap().to_path_buf();
        fs::create_dir_all(&dir).unwrap();
        let s = Setup {
            scratch,
            manifest,
            target,
            dir,
        };
        s.reset();
        s
    }

    /// Old file (mode 0644), no ledger, no temp files.
    fn reset(&self) {
        let _ = fs::remove_dir_all(self.scratch.state());
        for t in temps_in(&self.dir) {
            fs::remove_file(self.dir.join(t)).unwrap();
        }
        fs::write(&self.target, old_file()).unwrap();
        fs::set_permissions(&self.target, fs::Permissions::from_mode(0o644)).unwrap();
    }

    fn apply_argv(&self) -> Vec<String> {
        let mut a = mcpconf_args(
            "apply",
            &self.manifest,
            &self.scratch.root(),
            &self.scratch.state(),
        );
        a.extend(["--yes", "--format", "json"].map(String::from));
        a
    }

    fn records(&self) -> Vec<(String, String)> {
        status_records(&self.scratch, &self.manifest, &self.scratch.state())
    }

    fn ledger_dir(&self) -> PathBuf {
        self.scratch.state().join("ledger")
    }

    /// Checks the state after a failed apply that must not have touched the target, then
    /// checks that a clean rerun converges.
    fn assert_untouched_then_converges(&self, ctx: &str) {
        assert_eq!(
            fs::read(&self.target).unwrap(),
            old_file(),
            "{ctx}: the file was modified"
        );
        assert_eq!(
            fs::metadata(&self.target).unwrap().mode() & 0o7777,
            0o644,
            "{ctx}: the file's mode changed"
        );
        let t = temps_in(&self.dir);
        assert!(
            t.is_empty(),
            "{ctx}: temp files left next to the target: {t:?}"
        );
        let t = temps_in(&self.ledger_dir());
        assert!(
            t.is_empty(),
            "{ctx}: temp files left in the ledger dir: {t:?}"
        );
        // The ledger matches the files: it must not claim an entry that was never written.
        assert_eq!(
            self.records(),
            vec![],
            "{ctx}: the ledger claims an entry the failed apply did not write"
        );
        self.assert_rerun_converges(ctx);
    }

    fn assert_rerun_converges(&self, ctx: &str) {
        let out = run_bounded(
            self.scratch
                .cmd("apply", &self.manifest, &["--yes", "--format", "json"]),
            PROCESS_TIMEOUT,
        );
        assert_eq!(
            code(&out.status, "rerun"),
            0,
            "{ctx}: the rerun failed:\n{}",
            show(&out)
        );
        let v = parse_json_file(&self.target);
        assert_eq!(
            v["mcpServers"][SERVER]["command"],
            json!(format!("{SERVER}-bin"))
        );
        assert!(v["mcpServers"]["users-own"].is_object());
        assert_eq!(
            self.records(),
            vec![(SERVER.to_string(), "intact".to_string())],
            "{ctx}: ledger after the rerun"
        );
    }
}

/// Asserts the report of a failed apply: exit 4, one JSON document with the expected code.
fn assert_io_failure(out: &std::process::Output, want_code: &str, path: &Path, ctx: &str) {
    assert_eq!(
        code(&out.status, ctx),
        4,
        "{ctx}: expected exit 4:\n{}",
        show(out)
    );
    let rep = report(out);
    let codes = codes(&rep);
    assert!(
        codes.iter().any(|c| c == want_code),
        "{ctx}: expected error code {want_code}, got {codes:?}:\n{}",
        show(out)
    );
    let e = rep["errors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["code"] == json!(want_code))
        .unwrap();
    let msg = e["message"].as_str().unwrap_or_default();
    assert!(!msg.is_empty(), "{ctx}: empty error message");
    let p = e["path"].as_str().unwrap_or_default();
    assert!(
        Path::new(p) == path || msg.contains(&path.display().to_string()),
        "{ctx}: the error names neither path nor message the file {}: {e}",
        path.display()
    );
}

/// What an injected failure hits, found in a traced dry run.
struct Point {
    label: &'static str,
    sys: &'static str,
    errno: &'static str,
    want_code: &'static str,
    /// Predicate on the strace line (with `-y`, so descriptors show their paths).
    pred: Box<dyn Fn(&Sys) -> bool>,
    /// Whether the target is expected to hold the new content afterwards.
    file_new: bool,
    /// The path the error must name.
    about_target: bool,
    /// (When not about the target:) the error names the ledger's intent, not the ledger.
    intent: bool,
}

#[test]
#[cfg_attr(
    feature = "portable-fs",
    ignore = "injects faults into the POSIX layer's system calls"
)]
fn injected_write_side_errors_exit_4_and_leave_the_file_old() {
    if !strace_or_skip("injected_write_side_errors_exit_4_and_leave_the_file_old") {
        return;
    }
    let s = Setup::new();
    let target_temp = ".mcp.json.mcpconf-".to_string();
    let ledger_temp = format!(".{OWNER}.json.mcpconf-");
    let intent_temp = format!(".{OWNER}.intent.mcpconf-");

    let tt = target_temp.clone();
    let tt2 = target_temp.clone();
    let tt3 = target_temp.clone();
    let tt4 = target_temp.clone();
    let lt = ledger_temp.clone();
    let it = intent_temp.clone();
    let temp_of = move |t: String| move |s: &Sys| s.args.contains(&t);
    let points: Vec<Point> = vec![
        Point {
            label: "write ENOSPC on the target's temp",
            sys: "write",
            errno: "ENOSPC",
            want_code: "disk-full",
            pred: Box::new(temp_of(tt.clone())),
            file_new: false,
            about_target: true,
            intent: false,
        },
        Point {
            label: "write EIO on the target's temp",
            sys: "write",
            errno: "EIO",
            want_code: "io-error",
            pred: Box::new(temp_of(tt)),
            file_new: false,
            about_target: true,
            intent: false,
        },
        Point {
            label: "fchmod EPERM on the target's temp",
            sys: "fchmod",
            errno: "EPERM",
            want_code: "permission-denied",
            pred: Box::new(temp_of(tt2)),
            file_new: false,
            about_target: true,
            intent: false,
        },
        Point {
            label: "fsync EIO on the target's temp",
            sys: "fsync",
            errno: "EIO",
            want_code: "io-error",
            pred: Box::new(temp_of(tt3)),
            file_new: false,
            about_target: true,
            intent: false,
        },
        Point {
            label: "rename EROFS over the target",
            sys: "renameat2",
            errno: "EROFS",
            want_code: "read-only",
            pred: Box::new(temp_of(tt4.clone())),
            file_new: false,
            about_target: true,
            intent: false,
        },
        Point {
            label: "rename EXDEV over the target",
            sys: "renameat2",
            errno: "EXDEV",
            want_code: "io-error",
            pred: Box::new(temp_of(tt4.clone())),
            file_new: false,
            about_target: true,
            intent: false,
        },
        Point {
            label: "rename EBUSY over the target (bind-mounted file)",
            sys: "renameat2",
            errno: "EBUSY",
            want_code: "io-error",
            pred: Box::new(temp_of(tt4)),
            file_new: false,
            about_target: true,
            intent: false,
        },
        Point {
            label: "write ENOSPC on the ledger's intent (before the target is touched)",
            sys: "write",
            errno: "ENOSPC",
            want_code: "disk-full",
            pred: Box::new(temp_of(it)),
            file_new: false,
            about_target: false,
            intent: true,
        },
        Point {
            label: "write ENOSPC on the ledger commit (after the target is written)",
            sys: "write",
            errno: "ENOSPC",
            want_code: "disk-full",
            pred: Box::new(temp_of(lt)),
            file_new: true,
            about_target: false,
            intent: false,
        },
    ];

    run_points(&s, &points);
}

/// Runs every injection point against a fresh copy of the setup's start state.
fn run_points(s: &Setup, points: &[Point]) {
    // Dry run: which call of each syscall does what.
    let log = s.scratch.path().join("discover.log");
    let (out, calls) = strace_run(
        &[
            "-y",
            "-e",
            "trace=write,fchmod,fsync,rename,renameat,renameat2",
        ],
        &s.apply_argv(),
        &log,
        &[],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "dry run failed:\n{}",
        show(&out)
    );
    let renames: Vec<&Sys> = calls
        .iter()
        .filter(|c| c.name.starts_with("rename"))
        .collect();
    assert!(
        renames.iter().all(|c| c.name == "renameat2"),
        "mcpconf publishes with another rename call than renameat2; adjust the test: {renames:#?}"
    );

    let started = Instant::now();
    for p in points {
        s.reset();
        let (n, hit) = ordinal_of(&calls, p.sys, |c| (p.pred)(c)).unwrap_or_else(|| {
            panic!(
                "{}: no matching {} call in the dry run:\n{}",
                p.label,
                p.sys,
                read_lossy(&log)
            )
        });
        let ilog = s.scratch.path().join("inject.log");
        let (out, icalls) = strace_run(
            &[
                "-y",
                "-e",
                &format!("trace={}", p.sys),
                "-e",
                &format!("inject={}:error={}:when={n}", p.sys, p.errno),
            ],
            &s.apply_argv(),
            &ilog,
            &[],
        );
        // The injection hit the intended call (not, say, a write to stdout).
        let injected: Vec<&Sys> = icalls
            .iter()
            .filter(|c| c.ret.contains("(INJECTED)"))
            .collect();
        assert_eq!(
            injected.len(),
            1,
            "{}: injected calls: {injected:#?}",
            p.label
        );
        assert!(
            (p.pred)(injected[0]),
            "{}: the injection hit {} instead of the dry run's {}",
            p.label,
            injected[0].line,
            hit.line
        );
        let path = if p.about_target {
            s.target.clone()
        } else if p.intent {
            s.ledger_dir().join(format!("{OWNER}.intent"))
        } else {
            engine_ledger_path(s)
        };
        assert_io_failure(&out, p.want_code, &path, p.label);
        if p.file_new {
            // Published, durability not confirmed: the file is new, so the ledger must say
            // it is ours (otherwise the entry is orphaned: prune would never remove it).
            let v = parse_json_file(&s.target);
            assert!(
                v["mcpServers"][SERVER].is_object(),
                "{}: file not new",
                p.label
            );
            let t = temps_in(&s.dir);
            assert!(t.is_empty(), "{}: temp files left: {t:?}", p.label);
            assert_eq!(
                s.records(),
                vec![(SERVER.to_string(), "intact".to_string())],
                "{}: the file holds the new entry but the ledger does not own it",
                p.label
            );
            s.assert_rerun_converges(p.label);
        } else {
            s.assert_untouched_then_converges(p.label);
        }
    }
    eprintln!(
        "{} injected failures checked in {:?}",
        points.len(),
        started.elapsed()
    );
}

/// The ledger's path as the error names it (`<state>/ledger/<owner>.json`), canonicalized the
/// way mcpconf reports paths.
fn engine_ledger_path(s: &Setup) -> PathBuf {
    s.ledger_dir().join(format!("{OWNER}.json"))
}

#[test]
fn text_mode_io_error_goes_to_stderr() {
    if !strace_or_skip("text_mode_io_error_goes_to_stderr") {
        return;
    }
    let s = Setup::new();
    let mut argv = mcpconf_args("apply", &s.manifest, &s.scratch.root(), &s.scratch.state());
    argv.push("--yes".into());
    // Every renameat2 fails: the first one (whatever it publishes) aborts the run.
    let log = s.scratch.path().join("t.log");
    let (out, _) = strace_run(
        &[
            "-e",
            "trace=renameat2",
            "-e",
            "inject=renameat2:error=EROFS",
        ],
        &argv,
        &log,
        &[],
    );
    assert_eq!(out.status.code(), Some(4), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("read-only"),
        "stderr does not explain the failure:\n{}",
        show(&out)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !stdout.contains("read-only"),
        "text mode printed the error on stdout"
    );
    // The summary says what happened, not what was planned (issue: `Applied: 1 file` was
    // printed before a failed write that left the file unchanged).
    assert!(
        !stdout.contains("Applied:"),
        "the summary claims a write that failed:\n{}",
        show(&out)
    );
    assert!(
        stdout.contains("Failed: nothing was written.") && stdout.contains("(not written)"),
        "the summary does not say that nothing was written:\n{}",
        show(&out)
    );
    s.assert_untouched_then_converges("EROFS on every rename");
}

#[test]
#[cfg_attr(
    feature = "portable-fs",
    ignore = "holds the POSIX layer's directory flock"
)]
fn lock_timeout_while_another_process_holds_the_directory_lock() {
    let s = Setup::new();
    let before = fs::metadata(&s.target).unwrap();
    let holder = File::open(&s.dir).expect("open target directory");
    holder.lock().expect("flock the target directory");

    let t = Instant::now();
    let out = run_bounded(
        s.scratch.cmd(
            "apply",
            &s.manifest,
            &["--yes", "--format", "json", "--lock-timeout", "0.2"],
        ),
        Duration::from_secs(30),
    );
    let waited = t.elapsed();
    assert_io_failure(&out, "lock-timeout", &s.dir, "lock held");
    assert!(
        waited >= Duration::from_millis(200),
        "gave up after {waited:?}, before --lock-timeout 0.2 expired"
    );
    assert!(
        waited < Duration::from_secs(8),
        "--lock-timeout 0.2 ignored: waited {waited:?} (default is 10 s)"
    );
    let after = fs::metadata(&s.target).unwrap();
    assert_eq!(
        (after.ino(), after.mtime(), after.mtime_nsec()),
        (before.ino(), before.mtime(), before.mtime_nsec()),
        "the file was replaced or touched while the lock was held"
    );
    drop(holder);
    s.assert_untouched_then_converges("after the lock was released");
}

#[test]
#[cfg_attr(
    feature = "portable-fs",
    ignore = "holds the POSIX layer's directory flock"
)]
fn lock_timeout_text_mode_names_the_option() {
    let s = Setup::new();
    let holder = File::open(&s.dir).expect("open target directory");
    holder.lock().expect("flock the target directory");
    let out = run_bounded(
        s.scratch
            .cmd("apply", &s.manifest, &["--yes", "--lock-timeout", "0.1"]),
        Duration::from_secs(30),
    );
    assert_eq!(out.status.code(), Some(4), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("lock"),
        "stderr does not mention the lock:\n{}",
        show(&out)
    );
    drop(holder);
    assert_eq!(fs::read(&s.target).unwrap(), old_file());
}

/// Runs `argv` as the unprivileged user `nobody` (65534) when the tests run as root.
fn as_unprivileged(argv: &[String]) -> Option<Command> {
    if !is_root() {
        let mut c = Command::new(bin());
        c.args(argv);
        return Some(c);
    }
    if !have("setpriv") {
        return None;
    }
    let mut c = Command::new("setpriv");
    c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(bin())
        .args(argv);
    Some(c)
}

#[test]
#[cfg_attr(
    feature = "portable-fs",
    ignore = "the portable layer keeps its lock files in the shared temp directory, which another user cannot use"
)]
fn read_only_directory_exit_4_permission_denied() {
    let s = Setup::new();
    let mut argv = s.apply_argv();
    argv.push("--lock-timeout".into());
    argv.push("5".into());
    let Some(cmd) = as_unprivileged(&argv) else {
        eprintln!(
            "SKIPPED read_only_directory_exit_4_permission_denied: running as root without \
             setpriv, so a 0555 directory does not stop writes"
        );
        return;
    };
    if is_root() {
        // The whole scratch tree belongs to the unprivileged user, as a real project would.
        chown_tree(s.scratch.path(), 65534, 65534);
    }
    fs::set_permissions(&s.dir, fs::Permissions::from_mode(0o555)).unwrap();
    let out = run_bounded(cmd, PROCESS_TIMEOUT);
    fs::set_permissions(&s.dir, fs::Permissions::from_mode(0o755)).unwrap();
    assert_io_failure(&out, "permission-denied", &s.target, "0555 directory");
    assert_eq!(fs::read(&s.target).unwrap(), old_file());
    assert!(temps_in(&s.dir).is_empty());
    // (Convergence is checked as the same user: as root the rerun would create root-owned
    // ledger files, which is a different scenario.)
    let mut rerun = s.apply_argv();
    rerun.push("--lock-timeout".into());
    rerun.push("5".into());
    let out = run_bounded(as_unprivileged(&rerun).unwrap(), PROCESS_TIMEOUT);
    assert_eq!(out.status.code(), Some(0), "rerun failed:\n{}", show(&out));
    assert!(parse_json_file(&s.target)["mcpServers"][SERVER].is_object());
}

fn chown_tree(p: &Path, uid: u32, gid: u32) {
    std::os::unix::fs::lchown(p, Some(uid), Some(gid)).unwrap();
    if p.is_dir() && !p.is_symlink() {
        for e in fs::read_dir(p).unwrap() {
            chown_tree(&e.unwrap().path(), uid, gid);
        }
    }
}

#[test]
#[cfg_attr(
    feature = "portable-fs",
    ignore = "injects faults into the POSIX layer's system calls"
)]
fn failed_directory_fsync_after_rename_keeps_the_ledger_in_step() {
    // Contract §3 exit 4: "Every file is either entirely old or entirely new, and the ledger
    // matches the files". When only the final fsync of the directory fails, the rename already
    // happened: the file is new. The engine rolls the ledger back anyway, so the entry it wrote
    // is not owned: the next apply reports it as `unowned-match` and `prune` never removes it
    // (for an update of an owned entry the ledger keeps the old digest and `prune` refuses
    // with `drift`, exit 3).
    if !strace_or_skip("failed_directory_fsync_after_rename_keeps_the_ledger_in_step") {
        return;
    }
    let s = Setup::new();
    let dir_fd = format!("{}>", fs::canonicalize(&s.dir).unwrap().display());
    let points = vec![Point {
        label: "fsync EIO on the target's directory after the rename",
        sys: "fsync",
        errno: "EIO",
        want_code: "io-error",
        pred: Box::new(move |c: &Sys| c.args.ends_with(&dir_fd)),
        file_new: true,
        about_target: true,
        intent: false,
    }];
    run_points(&s, &points);
}
