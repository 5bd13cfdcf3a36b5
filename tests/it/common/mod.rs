//! What the integration tests share: the binary under test ([`mcpconf_cmd`], started with an
//! environment that does not leak the tester's settings), scratch environments ([`Env`] for
//! CLI tests, [`Scratch`] for the process-level reliability tests), bounded process runs,
//! strace helpers, file-tree helpers and the one snapshot helper ([`snapshot`]).
//!
//! The tests drive the real binary (`CARGO_BIN_EXE_mcpconf`) as a separate process, so they
//! exercise exactly the contract surface: command line, exit codes, `--format json`.
#![allow(dead_code)] // not every helper is used by every area

pub mod snapshot;

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

/// Path of the binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_mcpconf")
}

/// Environment variables through which the tester's own settings would reach `mcpconf`; every
/// command [`mcpconf_cmd`] builds starts without them (a test that wants one sets it explicitly).
pub const LEAKY_ENV: &[&str] = &[
    "MCPCONF_MANIFEST",
    "MCPCONF_STATE_DIR",
    NO_LOCK_ENV,
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_DATA_HOME",
    "CODEX_HOME",
    "VIBE_HOME",
    "GOOSE_PATH_ROOT",
    "HERMES_HOME",
    "CONTINUE_GLOBAL_DIR",
    "COPILOT_HOME",
    "KIMI_CODE_HOME",
    "OPENHANDS_PERSISTENCE_DIR",
    "MCPCONF_REGISTRY",
    // A proxy of the tester's machine would take the tests' loopback requests.
    "HTTP_PROXY",
    "http_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
    "NO_PROXY",
    "no_proxy",
];

/// `mcpconf` (no arguments yet) with a hermetic environment: [`LEAKY_ENV`] unset and
/// `NO_COLOR=1`. Every test that runs the binary starts here.
pub fn mcpconf_cmd() -> Command {
    let mut c = Command::new(bin());
    for k in LEAKY_ENV {
        c.env_remove(k);
    }
    c.env("NO_COLOR", "1");
    c
}

/// Extra headroom for any single child process; a hang becomes a test failure, not a stuck CI.
pub const PROCESS_TIMEOUT: Duration = Duration::from_secs(60);

/// A scratch project: `<tmp>/proj` is `--root` and `--home`, `<tmp>/state` is `--state-dir`.
pub struct Scratch {
    pub tmp: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Scratch {
        let tmp = tempfile::Builder::new()
            .prefix("mcpconf-relia-")
            .tempdir()
            .expect("tempdir");
        fs::create_dir_all(tmp.path().join("proj")).unwrap();
        Scratch { tmp }
    }
    pub fn path(&self) -> &Path {
        self.tmp.path()
    }
    pub fn root(&self) -> PathBuf {
        self.tmp.path().join("proj")
    }
    pub fn state(&self) -> PathBuf {
        self.tmp.path().join("state")
    }
    /// Writes a manifest file named `name` in the scratch dir and returns its path.
    pub fn manifest(&self, name: &str, text: &str) -> PathBuf {
        let p = self.tmp.path().join(name);
        fs::write(&p, text).unwrap();
        p
    }
    /// `mcpconf <sub> -m manifest --root R --home R --state-dir S <extra…>` (not yet run).
    pub fn cmd(&self, sub: &str, manifest: &Path, extra: &[&str]) -> Command {
        self.cmd_with_state(sub, manifest, &self.state(), extra)
    }
    pub fn cmd_with_state(
        &self,
        sub: &str,
        manifest: &Path,
        state: &Path,
        extra: &[&str],
    ) -> Command {
        let mut c = mcpconf_cmd();
        c.args(mcpconf_args(sub, manifest, &self.root(), state));
        c.args(extra);
        c
    }
}

pub const NO_LOCK_ENV: &str = "MCPCONF_TEST_NO_LOCK";

/// The argument vector (without the program) for one mcpconf subcommand.
pub fn mcpconf_args(sub: &str, manifest: &Path, root: &Path, state: &Path) -> Vec<String> {
    vec![
        sub.to_string(),
        "-m".into(),
        manifest.display().to_string(),
        "--root".into(),
        root.display().to_string(),
        "--home".into(),
        root.display().to_string(),
        "--state-dir".into(),
        state.display().to_string(),
    ]
}

/// Manifest text: one owner, one stdio server, one `json`-client target at `path`
/// (relative to `--root`).
pub fn simple_manifest(owner: &str, server: &str, path: &str) -> String {
    format!(
        "owner = \"{owner}\"\n\n[servers.{server}]\ncommand = \"{server}-bin\"\nargs = [\"serve\", \"--owner\", \"{owner}\"]\n\n[[targets]]\nclient = \"json\"\npath = \"{path}\"\n"
    )
}

/// Runs `cmd` to completion with stdout/stderr captured, killing it (SIGKILL) if it is still
/// running after `timeout`. Panics on timeout, naming the command.
pub fn run_bounded(mut cmd: Command, timeout: Duration) -> Output {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let desc = format!("{cmd:?}");
    let child = cmd.spawn().unwrap_or_else(|e| panic!("spawn {desc}: {e}"));
    wait_bounded(child, timeout, &desc)
}

/// Waits for a spawned child (stdout/stderr should be piped or null), killing it after
/// `timeout`.
pub fn wait_bounded(child: Child, timeout: Duration, desc: &str) -> Output {
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(timeout) {
        Ok(out) => out.unwrap_or_else(|e| panic!("wait {desc}: {e}")),
        Err(_) => {
            // The child is ours and has not been reaped (the waiting thread still owns it),
            // so the pid cannot have been reused.
            // SAFETY: plain kill(2) on our own child's pid.
            unsafe {
                libc::kill(pid as libc::pid_t, libc::SIGKILL);
            }
            let _ = rx.recv_timeout(Duration::from_secs(10));
            panic!("timed out after {timeout:?} (killed): {desc}");
        }
    }
}

/// Exit code, panicking (with context) if the process died from a signal.
pub fn code(status: &ExitStatus, ctx: &str) -> i32 {
    status
        .code()
        .unwrap_or_else(|| panic!("{ctx}: terminated by a signal: {status:?}"))
}

/// Formats an output for assertion messages.
pub fn show(out: &Output) -> String {
    format!(
        "status: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Parses the `--format json` report on stdout (the contract says there is exactly one
/// document for every exit code).
pub fn report(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}):\n{}", show(out)))
}

/// The `errors[].code` values of a JSON report (every report has an `errors` array whose
/// entries have a `code`; a report without them fails the test).
pub fn codes(report: &Value) -> Vec<String> {
    report["errors"]
        .as_array()
        .unwrap_or_else(|| panic!("report has no `errors` array: {report}"))
        .iter()
        .map(|e| {
            e["code"]
                .as_str()
                .unwrap_or_else(|| panic!("error without a code: {e}"))
                .to_string()
        })
        .collect()
}

/// Whether `strace` can run here; if not, says the test `test` is skipped and why.
pub fn strace_or_skip(test: &str) -> bool {
    if have("strace") {
        return true;
    }
    eprintln!("SKIPPED {test}: strace is not installed (install it to run this test)");
    false
}

/// Copies the directory tree `from` to `to` (created), regular files with their modes.
pub fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Every regular file under `dir` (recursively) as (path relative to `dir`, bytes), sorted.
pub fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        let Ok(rd) = fs::read_dir(dir) else { return };
        for entry in rd {
            let p = entry.unwrap().path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                out.push((
                    p.strip_prefix(base).unwrap().to_path_buf(),
                    fs::read(&p).unwrap(),
                ));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// A manifest for the probe tests: owner `t`, the given `[servers.…]` text, one cursor target.
pub fn probe_manifest(servers: &str) -> mcpconf::manifest::Manifest {
    mcpconf::manifest::parse(
        &format!("owner = \"t\"\n{servers}\n[[targets]]\nclient = \"cursor\"\n"),
        &mcpconf::known::Known,
    )
    .expect("test manifest parses")
}

/// Parses a client file as strict JSON, panicking with the file's size if it does not parse.
pub fn parse_json_file(path: &Path) -> Value {
    let bytes = fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| {
        panic!(
            "{} does not parse as JSON ({e}); size {} bytes",
            path.display(),
            bytes.len()
        )
    })
}

/// Names of mcpconf temp files (`.<name>.mcpconf-XXXXXX.tmp`) in `dir`.
pub fn temps_in(dir: &Path) -> Vec<String> {
    match fs::read_dir(dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".mcpconf-") && n.ends_with(".tmp"))
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// `mcpconf status --format json` for `manifest`'s owner with `state`: (server, state) pairs for
/// records of the file `file` (absolute path as mcpconf prints it).
pub fn status_records(scratch: &Scratch, manifest: &Path, state: &Path) -> Vec<(String, String)> {
    let out = run_bounded(
        scratch.cmd_with_state("status", manifest, state, &["--format", "json"]),
        PROCESS_TIMEOUT,
    );
    assert_eq!(
        code(&out.status, "status"),
        0,
        "status failed:\n{}",
        show(&out)
    );
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("status output is not JSON ({e}):\n{}", show(&out)));
    v["records"]
        .as_array()
        .unwrap_or_else(|| panic!("status JSON has no records array:\n{}", show(&out)))
        .iter()
        .map(|r| {
            (
                r["server"].as_str().unwrap_or_default().to_string(),
                r["state"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// Whether `prog` can be executed (found on PATH and runs `--version`/`-V`).
pub fn have(prog: &str) -> bool {
    Command::new(prog)
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

/// True when the tests run as root (permission checks do not apply to root).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A tiny deterministic PRNG (64-bit LCG, high bits out), so no extra dev-dependency is needed.
pub struct Lcg(u64);

impl Lcg {
    /// Seeded from `MCPCONF_TEST_SEED` if set, else from the clock; the seed is printed so a
    /// failure can be replayed.
    pub fn from_env_or_time(label: &str) -> Lcg {
        let seed = std::env::var("MCPCONF_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(1)
            });
        eprintln!("{label}: random seed {seed} (set MCPCONF_TEST_SEED={seed} to replay)");
        Lcg(seed)
    }
    pub fn new(seed: u64) -> Lcg {
        Lcg(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 11
    }
    /// Uniform-ish in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// Reads all of a pipe-less file into a string (lossy), for logs.
pub fn read_lossy(path: &Path) -> String {
    let mut s = Vec::new();
    if let Ok(mut f) = fs::File::open(path) {
        let _ = f.read_to_end(&mut s);
    }
    String::from_utf8_lossy(&s).into_owned()
}

/// Waits for every child, all under one overall deadline; on timeout kills the ones still
/// running (by pid; only our own children) and panics.
pub fn wait_all(children: Vec<(String, Child)>, overall: Duration) -> Vec<(String, Output)> {
    let deadline = Instant::now() + overall;
    let (tx, rx) = mpsc::channel();
    let mut running: Vec<(String, u32)> = Vec::new();
    let n = children.len();
    for (label, child) in children {
        running.push((label.clone(), child.id()));
        let tx = tx.clone();
        thread::spawn(move || {
            let out = child.wait_with_output();
            let _ = tx.send((label, out));
        });
    }
    let mut outs = Vec::new();
    while outs.len() < n {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok((label, out)) => {
                running.retain(|(l, _)| *l != label);
                outs.push((label, out.expect("wait")));
            }
            Err(_) => {
                while let Ok((label, _)) = rx.try_recv() {
                    running.retain(|(l, _)| *l != label);
                }
                for (_, pid) in &running {
                    // SAFETY: kill(2) on our own child that has not been reported as reaped.
                    unsafe {
                        libc::kill(*pid as libc::pid_t, libc::SIGKILL);
                    }
                }
                let stuck: Vec<&String> = running.iter().map(|(l, _)| l).collect();
                panic!(
                    "{} of {n} processes still running after {overall:?} (deadlock or hang?): {stuck:?}",
                    running.len()
                );
            }
        }
    }
    outs
}

/// One system call from an `strace -f -o LOG` log (`PID name(args) = ret`).
#[derive(Clone, Debug)]
pub struct Sys {
    pub pid: u32,
    pub name: String,
    pub args: String,
    pub ret: String,
    pub line: String,
}

/// Parses an strace log written with `-f -o`. Lines that are not a complete call (signals,
/// exits, `<unfinished ...>`) are skipped.
pub fn parse_strace(log: &str) -> Vec<Sys> {
    let mut out = Vec::new();
    for line in log.lines() {
        let (pid, rest) = match line.split_once(' ') {
            Some((p, r)) if p.chars().all(|c| c.is_ascii_digit()) => {
                (p.parse().unwrap_or(0), r.trim_start())
            }
            _ => (0, line),
        };
        if rest.starts_with("---") || rest.starts_with("+++") || rest.contains("<unfinished") {
            continue;
        }
        let Some(open) = rest.find('(') else { continue };
        let Some(close) = rest.rfind(") = ") else {
            continue;
        };
        if close < open {
            continue;
        }
        out.push(Sys {
            pid,
            name: rest[..open].to_string(),
            args: rest[open + 1..close].to_string(),
            ret: rest[close + 4..].to_string(),
            line: line.to_string(),
        });
    }
    out
}

/// Runs `argv` under `strace -f -qq -o LOG <strace_args…>` and returns (output, parsed log).
pub fn strace_run(
    strace_args: &[&str],
    argv: &[String],
    log: &Path,
    extra_env: &[(&str, &str)],
) -> (Output, Vec<Sys>) {
    let mut c = Command::new("strace");
    c.arg("-f").arg("-qq").arg("-o").arg(log).args(strace_args);
    c.arg(bin()).args(argv);
    c.env_remove(NO_LOCK_ENV);
    for (k, v) in extra_env {
        c.env(k, v);
    }
    let out = run_bounded(c, PROCESS_TIMEOUT);
    let text = read_lossy(log);
    (out, parse_strace(&text))
}

/// The 1-based ordinal, among the calls named `name` made by the same process, of the first
/// call named `name` whose line satisfies `pred` (for `strace -e inject=NAME:…:when=N`).
pub fn ordinal_of(calls: &[Sys], name: &str, pred: impl Fn(&Sys) -> bool) -> Option<(u32, Sys)> {
    let hit = calls.iter().find(|s| s.name == name && pred(s))?;
    let n = calls
        .iter()
        .take_while(|s| !std::ptr::eq(*s, hit))
        .filter(|s| s.name == name && s.pid == hit.pid)
        .count() as u32
        + 1;
    Some((n, hit.clone()))
}

/// A scratch `root/`, `home/` and `state/` with a manifest beside them, for CLI tests.
pub struct Env {
    _dir: tempfile::TempDir,
    /// The scratch directory.
    pub base: PathBuf,
}

impl Env {
    pub fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().to_path_buf();
        for d in ["root", "home", "state"] {
            fs::create_dir_all(base.join(d)).unwrap();
        }
        Env { _dir: dir, base }
    }
    pub fn root(&self) -> PathBuf {
        self.base.join("root")
    }
    pub fn state(&self) -> PathBuf {
        self.base.join("state")
    }
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, content).unwrap();
        p
    }
    pub fn read(&self, rel: &str) -> Vec<u8> {
        fs::read(self.path(rel)).unwrap()
    }
    pub fn text(&self, rel: &str) -> String {
        String::from_utf8(self.read(rel)).unwrap()
    }
    pub fn manifest(&self, text: &str) {
        fs::write(self.base.join("mcpconf.toml"), text).unwrap();
    }
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = mcpconf_cmd();
        c.args(args)
            .arg("-m")
            .arg(self.base.join("mcpconf.toml"))
            .arg("--root")
            .arg(self.root())
            .arg("--home")
            .arg(self.base.join("home"))
            .arg("--state-dir")
            .arg(self.state())
            .stdin(Stdio::null());
        c
    }
    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().unwrap()
    }
    /// Run with `--format json`; returns (exit code, document).
    pub fn json(&self, args: &[&str]) -> (i32, Value) {
        let mut a = args.to_vec();
        a.extend(["--format", "json"]);
        let out = self.run(&a);
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}): {}\nstderr: {}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out.status.code().unwrap_or(-1), doc)
    }
}
