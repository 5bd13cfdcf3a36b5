//! `mcpconf probe` against scripted servers: a correct stdio server (paging, notifications and
//! a ping in between), every stdio failure path (exits, hangs, garbage, a JSON-RPC error,
//! floods, children that ignore SIGTERM or leave the process group), a loopback streamable HTTP
//! server (JSON and SSE answers, chunked and not, sessions, pagination, 401, silence), and the
//! command line (exit codes, JSON, `--write-pins`, redaction).
//!
//! After every probe that started processes, the test checks that none of them is left: the
//! server's process group holds no live process, and a child it started is gone.

use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use mcpconf::manifest::{self, Manifest};
use mcpconf::probe::{self, FailureCode, Options, Outcome};
use serde_json::{Value, json};

use crate::common::{mcpconf_cmd, probe_manifest};

const FAKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/probe_fake_server.py");

fn options(secs: f64) -> Options {
    Options {
        timeout: Duration::from_secs_f64(secs),
        parallel: 4,
        base_dir: std::env::temp_dir(),
        cacert: None,
    }
}

fn probe_with(m: &Manifest, secs: f64, env: &[(&str, &str)]) -> Vec<Outcome> {
    let env: HashMap<String, String> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let lookup = move |v: &str| env.get(v).cloned();
    let servers: Vec<_> = m.servers.iter().collect();
    probe::probe_all(&servers, &options(secs), &lookup)
}

/// A scratch directory where fake servers write their pids.
struct Fakes {
    dir: tempfile::TempDir,
}

impl Fakes {
    fn new() -> Fakes {
        Fakes {
            dir: tempfile::Builder::new()
                .prefix("mcpconf-probe-")
                .tempdir()
                .expect("tempdir"),
        }
    }
    fn pid_file(&self, name: &str) -> PathBuf {
        self.dir.path().join(format!("{name}.pid"))
    }
    fn child_file(&self, name: &str) -> PathBuf {
        self.dir.path().join(format!("{name}.child"))
    }
    /// `[servers.NAME]` running the fake server in `mode`, with an optional pin.
    fn server(&self, name: &str, mode: &str, pin: Option<&[&str]>) -> String {
        let mut s = format!(
            "[servers.{name}]\ncommand = 'python3'\nargs = ['{FAKE}', '{mode}', 'mcpconf-probe-marker-{name}-{}']\n\
             env = {{ FAKE_PID_FILE = '{}', FAKE_CHILD_PID_FILE = '{}' }}\n",
            std::process::id(),
            self.pid_file(name).display(),
            self.child_file(name).display()
        );
        if let Some(p) = pin {
            let list: Vec<String> = p.iter().map(|t| format!("'{t}'")).collect();
            s.push_str(&format!("tools = [{}]\n", list.join(", ")));
        }
        s
    }
    fn pid(&self, name: &str) -> Option<i32> {
        read_pid(&self.pid_file(name))
    }
    fn child_pid(&self, name: &str) -> Option<i32> {
        read_pid(&self.child_file(name))
    }
    /// The marker every process of the server `name` carries in its command line.
    fn marker(name: &str) -> String {
        format!("mcpconf-probe-marker-{name}-{}", std::process::id())
    }
    /// Assert that nothing of the server `name` is left: no process carries its marker, and
    /// (when it got as far as writing its pid) its process group is empty.
    fn assert_gone_even_if_unstarted(&self, name: &str) {
        let marker = Fakes::marker(name);
        wait_until(
            || with_marker(&marker).is_empty(),
            "marked processes to end",
        );
        assert_eq!(with_marker(&marker), Vec::<i32>::new(), "`{name}` left");
        if self.pid(name).is_some() {
            self.assert_gone(name);
        }
    }
    /// Assert that the server `name` was started and that nothing of it is left.
    fn assert_gone(&self, name: &str) {
        let pgid = self
            .pid(name)
            .unwrap_or_else(|| panic!("server `{name}` never started (no pid file)"));
        wait_until(|| group_members(pgid).is_empty(), "process group to end");
        assert_eq!(
            group_members(pgid),
            Vec::<i32>::new(),
            "`{name}`: processes left in group {pgid}"
        );
        if let Some(c) = self.child_pid(name) {
            wait_until(|| !alive(c), "child to end");
            assert!(!alive(c), "`{name}`: child {c} survived the probe");
        }
    }
}

fn read_pid(p: &Path) -> Option<i32> {
    fs::read_to_string(p).ok()?.trim().parse().ok()
}

/// `(state, pgrp)` of a process from `/proc/PID/stat`.
fn stat(pid: i32) -> Option<(char, i32)> {
    let s = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &s[s.rfind(')')? + 1..];
    let mut f = rest.split_whitespace();
    let state = f.next()?.chars().next()?;
    let _ppid = f.next()?;
    let pgrp = f.next()?.parse().ok()?;
    Some((state, pgrp))
}

/// A process that exists and is not a zombie (a zombie is dead, only not yet reaped).
fn alive(pid: i32) -> bool {
    matches!(stat(pid), Some((s, _)) if s != 'Z' && s != 'X')
}

fn group_members(pgid: i32) -> Vec<i32> {
    let mut out = Vec::new();
    for e in fs::read_dir("/proc").expect("/proc").flatten() {
        if let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok())
            && let Some((state, pgrp)) = stat(pid)
            && pgrp == pgid
            && state != 'Z'
            && state != 'X'
        {
            out.push(pid);
        }
    }
    out
}

/// Poll for up to five seconds (SIGKILL is delivered asynchronously; a loaded machine is slow).
/// Live processes whose command line holds `marker`.
fn with_marker(marker: &str) -> Vec<i32> {
    let mut out = Vec::new();
    for e in fs::read_dir("/proc").expect("/proc").flatten() {
        if let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok())
            && alive(pid)
            && fs::read(e.path().join("cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(marker))
        {
            out.push(pid);
        }
    }
    out
}

/// Wait (generously: the machine may be busy) until `f` holds; the caller asserts after.
fn wait_until(mut f: impl FnMut() -> bool, _what: &str) {
    let until = Instant::now() + Duration::from_secs(30);
    while !f() && Instant::now() < until {
        thread::sleep(Duration::from_millis(20));
    }
}

fn only(mut v: Vec<Outcome>) -> Outcome {
    assert_eq!(v.len(), 1);
    v.remove(0)
}

fn fails(o: &Outcome, code: &str) {
    assert!(!o.ok, "{o:?}");
    assert_eq!(o.code.map(FailureCode::as_str), Some(code), "{o:?}");
    assert!(o.tools.is_empty() && o.unpinned.is_empty() && o.missing.is_empty());
}

// ---------------------------------------------------------------------------------------------
// stdio

#[test]
fn stdio_handshake_paging_notifications_ping_and_pins() {
    let f = Fakes::new();
    let m = probe_manifest(&format!(
        "{}{}",
        f.server("pinned", "ok", Some(&["alpha", "gamma", "omega"])),
        f.server("open", "ok", None)
    ));
    let out = probe_with(&m, 20.0, &[]);
    assert_eq!(out.len(), 2);
    let (p, o) = (&out[0], &out[1]);
    assert_eq!(p.name, "pinned");
    assert_eq!(o.name, "open");
    for x in [p, o] {
        assert!(x.ok, "{x:?}");
        assert_eq!(x.error, None);
        // The server answered an older version than the one asked: accepted as it is.
        assert_eq!(x.protocol_version.as_deref(), Some("2025-06-18"));
        let si = x.server.as_ref().expect("server info");
        assert_eq!((si.name.as_str(), si.version.as_str()), ("fake", "1.2.3"));
        // Three pages, in order, `beta` listed twice but reported once.
        assert_eq!(x.tools, ["alpha", "beta", "gamma", "delta"]);
        assert_eq!(x.transport, "stdio");
    }
    assert!(p.pinned);
    assert_eq!(p.unpinned, ["beta", "delta"]);
    assert_eq!(p.missing, ["omega"]);
    assert!(!p.passes());
    assert!(!o.pinned);
    assert!(o.unpinned.is_empty() && o.missing.is_empty());
    assert!(o.passes());
    f.assert_gone("pinned");
    f.assert_gone("open");
}

#[test]
fn a_server_that_exits_reports_status_and_stderr() {
    let f = Fakes::new();
    let o = only(probe_with(
        &probe_manifest(&f.server("dies", "exit", None)),
        120.0,
        &[],
    ));
    fails(&o, "exited");
    let e = o.error.as_deref().unwrap_or_default();
    assert!(e.contains("exit status 3"), "{e}");
    let tail = o.stderr.as_deref().unwrap_or_default();
    assert!(tail.contains("fatal: cannot open the database"), "{tail:?}");
    // Ended by the exit, not by the (generous, load-proof) timeout.
    assert!(o.elapsed_ms < 60_000, "{o:?}");
    f.assert_gone("dies");
}

#[test]
fn a_hanging_server_times_out_and_is_killed() {
    let f = Fakes::new();
    let t0 = Instant::now();
    // 5 s, not 1 s: on a loaded machine python may need over a second to start and write its
    // pid file, and the test must see that the server did start. The upper bound only says
    // that the deadline ended the wait (the server never answers).
    let o = only(probe_with(
        &probe_manifest(&f.server("hangs", "hang", None)),
        5.0,
        &[],
    ));
    let took = t0.elapsed();
    fails(&o, "timeout");
    let e = o.error.as_deref().unwrap_or_default();
    assert!(e.contains("`initialize`") && e.contains("5s"), "{e}");
    // The deadline is honoured (a lower bound holds on any machine); the upper bound only
    // catches a probe that waits for the server instead of its deadline.
    assert!(took >= Duration::from_millis(4950), "{took:?}");
    assert!(took < Duration::from_secs(60), "{took:?}");
    // On a very busy machine the server may not have got as far as writing its pid: what
    // matters is that nothing of it is left.
    f.assert_gone_even_if_unstarted("hangs");
}

#[test]
fn garbage_on_stdout_is_invalid_output() {
    let f = Fakes::new();
    let o = only(probe_with(
        &probe_manifest(&f.server("noisy", "garbage", None)),
        120.0,
        &[],
    ));
    fails(&o, "invalid-output");
    assert!(
        o.error
            .as_deref()
            .unwrap_or_default()
            .contains("Welcome to my server!"),
        "{o:?}"
    );
    assert!(
        o.elapsed_ms < 60_000,
        "failed fast, not by the 120 s timeout: {o:?}"
    );
    f.assert_gone("noisy");
}

#[test]
fn a_jsonrpc_error_to_initialize_is_reported() {
    let f = Fakes::new();
    let o = only(probe_with(
        &probe_manifest(&f.server("refuses", "init-error", None)),
        20.0,
        &[],
    ));
    fails(&o, "jsonrpc-error");
    let e = o.error.as_deref().unwrap_or_default();
    assert!(
        e.contains("`initialize`") && e.contains("-32602") && e.contains("Unsupported protocol"),
        "{e}"
    );
    f.assert_gone("refuses");
}

#[test]
fn floods_are_cut_off_by_the_byte_caps() {
    let f = Fakes::new();
    let m = probe_manifest(&format!(
        "{}{}",
        f.server("oneline", "flood-line", None),
        f.server("many", "flood-messages", None)
    ));
    let t0 = Instant::now();
    let out = probe_with(&m, 60.0, &[]);
    for o in &out {
        fails(o, "output-too-large");
    }
    assert!(
        out[0]
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("line longer than")
    );
    assert!(
        out[1]
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("more than")
    );
    assert!(t0.elapsed() < Duration::from_secs(40), "{:?}", t0.elapsed());
    f.assert_gone("oneline");
    f.assert_gone("many");
}

#[test]
fn children_that_ignore_sigterm_or_leave_the_group_are_killed() {
    // Each server answers the handshake only once its child is set up (the escaper's child has
    // left the group), then ignores EOF and SIGTERM: only the group kill and the descendant
    // scan can end them. No clock is involved; the timeout only bounds a broken run.
    let f = Fakes::new();
    let m = probe_manifest(&format!(
        "{}{}",
        f.server("stubborn", "sigterm-child-then-ok", None),
        f.server("escaper", "setsid-child-then-ok", None)
    ));
    let out = probe_with(&m, 60.0, &[]);
    for (o, name) in out.iter().zip(["stubborn", "escaper"]) {
        assert!(o.ok, "{name}: {o:?}");
        assert!(f.child_pid(name).is_some(), "`{name}` started no child");
        f.assert_gone(name);
    }
    let pgrp_of = |name: &str| {
        let p = f.child_file(name);
        read_pid(&PathBuf::from(format!("{}.pgrp", p.display())))
    };
    // The escaper's child really left the group (it leads a group of its own), the
    // stubborn one's did not.
    assert_eq!(pgrp_of("escaper"), f.child_pid("escaper"));
    assert_eq!(pgrp_of("stubborn"), f.pid("stubborn"));
}

#[test]
fn a_repeated_cursor_ends_the_listing() {
    let f = Fakes::new();
    let o = only(probe_with(
        &probe_manifest(&f.server("loops", "repeat-cursor", None)),
        120.0,
        &[],
    ));
    fails(&o, "protocol");
    assert!(o.error.as_deref().unwrap_or_default().contains("repeats"));
    assert!(
        o.elapsed_ms < 60_000,
        "ended by the loop check, not the timeout: {o:?}"
    );
    f.assert_gone("loops");
}

#[test]
fn unset_variables_and_missing_commands_fail_before_anything_runs() {
    let f = Fakes::new();
    let unset = f.server("unset", "ok", None).replace(
        "env = { ",
        "env = { API_KEY = '${MCPCONF_PROBE_NEVER_SET}', ",
    );
    let m = probe_manifest(&format!(
        "{unset}[servers.nocmd]\ncommand = '/nonexistent/mcpconf-probe/server'\n\
         [servers.nodir]\ncommand = 'true'\ncwd = '/nonexistent/mcpconf-probe'\n"
    ));
    let out = probe_with(&m, 20.0, &[]);
    fails(&out[0], "unset-variable");
    assert!(
        out[0]
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("`${MCPCONF_PROBE_NEVER_SET}` (in `env.API_KEY`)"),
        "{:?}",
        out[0]
    );
    assert_eq!(f.pid("unset"), None, "nothing was spawned");
    fails(&out[1], "spawn-failed");
    assert!(
        out[1]
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("not found")
    );
    fails(&out[2], "spawn-failed");
    assert!(
        out[2]
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("working directory")
    );
}

#[test]
fn resolved_env_values_never_appear_in_stderr_or_errors() {
    let f = Fakes::new();
    let server = f
        .server("leaky", "leak-env", None)
        .replace("env = { ", "env = { API_TOKEN = '${MCPCONF_PROBE_TOKEN}', ");
    let secret = "tok-supersecret-4711";
    let o = only(probe_with(
        &probe_manifest(&server),
        20.0,
        &[("MCPCONF_PROBE_TOKEN", secret)],
    ));
    fails(&o, "exited");
    let tail = o.stderr.clone().unwrap_or_default();
    assert!(tail.contains("token is <redacted>"), "{tail:?}");
    let all = serde_json::to_string(&o).unwrap_or_default();
    assert!(!all.contains(secret), "{all}");
}

#[test]
fn secrets_are_scrubbed_before_the_stderr_and_banner_cuts() {
    let secret = "tok-cutsecret-0123456789-abcdefghij-XYZ";
    let literal = "sk-live-abcdefghijklmnopqrstuvwx0123456789";
    let cli = Cli::new(|f| {
        f.server("leaky", "leak-cut", None)
            .replace(
                "env = { ",
                "env = { API_TOKEN = '${MCPCONF_PROBE_CUT_TOKEN}', ",
            )
            .replace(
                "'leak-cut', ",
                &format!("'leak-cut', '--api-key={literal}', "),
            )
    });
    for fmt in ["text", "json"] {
        let (code, out, err) = cli.run_env(
            &["--format", fmt, "--timeout", "30"],
            &[("MCPCONF_PROBE_CUT_TOKEN", secret)],
        );
        assert_eq!(code, 1, "{out}{err}");
        assert!(out.contains("invalid-output"), "{out}");
        // The tail and the banner are there, scrubbed.
        assert!(out.contains("args: --api-key=<redacted>"), "{out}");
        assert!(out.contains("ZZZZ"), "{out}");
        let all = format!("{out}{err}");
        for s in [secret, literal] {
            for w in s.as_bytes().windows(8) {
                let w = std::str::from_utf8(w).unwrap_or_default();
                assert!(!all.contains(w), "{fmt}: `{w}` of a secret shown:\n{all}");
            }
        }
    }
    cli.fakes.assert_gone("leaky");
}

#[test]
fn servers_are_probed_in_parallel() {
    // Each server answers only when all four run at once, so a serial probe fails the first
    // one (timeout) whatever the machine's speed; a parallel one passes all four. No clock is
    // read: the timeout is only a bound for the broken case.
    let f = Fakes::new();
    let names = ["h1", "h2", "h3", "h4"];
    let m = probe_manifest(
        &names
            .iter()
            .map(|n| f.server(n, "rendezvous", None))
            .collect::<String>(),
    );
    let out = probe_with(&m, 60.0, &[]);
    assert_eq!(
        out.iter().map(|o| o.name.as_str()).collect::<Vec<_>>(),
        names
    );
    for o in &out {
        assert!(o.ok, "{}: {:?} {:?}", o.name, o.code, o.error);
    }
    for n in names {
        f.assert_gone(n);
    }
}

// ---------------------------------------------------------------------------------------------
// Streamable HTTP, against a loopback server written here

#[derive(Debug, Clone)]
struct Req {
    method: String,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Req {
    fn header(&self, n: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(n))
            .map(|(_, v)| v.as_str())
    }
}

type Log = Arc<Mutex<Vec<Req>>>;

struct Loopback {
    addr: SocketAddr,
    log: Log,
    stop: Arc<AtomicBool>,
}

impl Loopback {
    fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }
    fn log(&self) -> Vec<Req> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

impl Drop for Loopback {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

/// A loopback HTTP server: one thread per connection, each handed to `handler`.
fn loopback(
    handler: impl Fn(Req, TcpStream, &Log, &AtomicBool) + Send + Sync + 'static,
) -> Loopback {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let addr = l.local_addr().expect("addr");
    let log: Log = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let handler = Arc::new(handler);
    let (log2, stop2) = (Arc::clone(&log), Arc::clone(&stop));
    thread::spawn(move || {
        for conn in l.incoming().take(200) {
            if stop2.load(Ordering::SeqCst) {
                break;
            }
            let Ok(s) = conn else { continue };
            let (h, log, stop) = (Arc::clone(&handler), Arc::clone(&log2), Arc::clone(&stop2));
            thread::spawn(move || {
                let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
                let Some(req) = read_request(&s) else { return };
                if let Ok(mut l) = log.lock() {
                    l.push(req.clone());
                }
                h(req, s, &log, &stop);
            });
        }
    });
    Loopback { addr, log, stop }
}

fn read_request(s: &TcpStream) -> Option<Req> {
    let mut r = BufReader::new(s.try_clone().ok()?);
    let mut line = String::new();
    r.read_line(&mut line).ok()?;
    let method = line.split(' ').next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        r.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        headers.push((k.trim().to_string(), v.trim().to_string()));
    }
    let len = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    r.read_exact(&mut body).ok()?;
    Some(Req {
        method,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    })
}

fn respond_json(mut s: TcpStream, status: &str, extra: &str, v: &Value) {
    let b = v.to_string();
    let _ = write!(
        s,
        "HTTP/1.1 {status}\r\nContent-Type: application/json; charset=utf-8\r\n{extra}Content-Length: {}\r\n\r\n{b}",
        b.len()
    );
}

fn respond_empty(mut s: TcpStream, status: &str) {
    let _ = write!(s, "HTTP/1.1 {status}\r\nContent-Length: 0\r\n\r\n");
}

fn chunk(s: &mut TcpStream, bytes: &str) {
    let _ = write!(s, "{:x}\r\n{bytes}\r\n", bytes.len());
    let _ = s.flush();
}

fn tools_page(names: &[&str], next: Option<&str>) -> Value {
    let mut r = json!({"tools": names.iter().map(|n| json!({"name": n, "inputSchema": {"type": "object"}})).collect::<Vec<_>>()});
    if let Some(n) = next {
        r["nextCursor"] = json!(n);
    }
    r
}

/// A well-behaved streamable HTTP server: JSON for `initialize` (with a session), then three
/// `tools/list` pages as a chunked event stream (split events, a notification and a ping
/// request the client must answer), a close-delimited event stream, and plain JSON.
fn good_server() -> Loopback {
    loopback(|req, mut s, log, stop| {
        let id = req.body.get("id").cloned().unwrap_or(Value::Null);
        let method = req.body.get("method").and_then(Value::as_str).unwrap_or("");
        if req.method == "DELETE" {
            return respond_empty(s, "200 OK");
        }
        if method == "initialize" {
            let accept = req.header("accept").unwrap_or("");
            if !(accept.contains("application/json") && accept.contains("text/event-stream")) {
                return respond_empty(s, "406 Not Acceptable");
            }
            return respond_json(
                s,
                "200 OK",
                "Mcp-Session-Id: sess-42\r\n",
                &json!({"jsonrpc": "2.0", "id": id, "result": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "loop", "version": "0.1"}}}),
            );
        }
        if req.header("mcp-session-id") != Some("sess-42")
            || req.header("mcp-protocol-version") != Some("2025-06-18")
        {
            return respond_json(
                s,
                "400 Bad Request",
                "",
                &json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32000, "message": "missing session or version header"}}),
            );
        }
        if method == "notifications/initialized" || req.body.get("result").is_some() {
            return respond_empty(s, "202 Accepted");
        }
        let cursor = req.body.pointer("/params/cursor").and_then(Value::as_str);
        match cursor {
            None => {
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                );
                chunk(&mut s, ": keep-alive comment\n\n");
                chunk(
                    &mut s,
                    "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n",
                );
                let resp =
                    json!({"jsonrpc": "2.0", "id": id, "result": tools_page(&["one", "two"], Some("p2"))})
                        .to_string();
                // One event split over two `data:` lines and two chunks.
                let (a, b) = resp.split_at(resp.len() / 2);
                chunk(&mut s, &format!("id: 1\r\ndata: {a}\r\n"));
                chunk(&mut s, &format!("data: {b}\r\n\r\n"));
                chunk(&mut s, "");
            }
            Some("p2") => {
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
                );
                let ping = json!({"jsonrpc": "2.0", "id": "srv-ping", "method": "ping"});
                let _ = write!(s, "data: {ping}\n\n");
                let _ = s.flush();
                // Wait for the client's answer to the ping before going on.
                let until = Instant::now() + Duration::from_secs(5);
                let answered = || {
                    log.lock().is_ok_and(|l| {
                        l.iter().any(|r| {
                            r.body.get("id") == Some(&json!("srv-ping"))
                                && r.body.get("result").is_some()
                        })
                    })
                };
                while !answered() && Instant::now() < until && !stop.load(Ordering::SeqCst) {
                    thread::sleep(Duration::from_millis(10));
                }
                if answered() {
                    let r = json!({"jsonrpc": "2.0", "id": id, "result": tools_page(&["three"], Some("p3"))});
                    let _ = write!(s, "event: message\ndata: {r}\n\n");
                }
            }
            Some("p3") => respond_json(
                s,
                "200 OK",
                "",
                &json!([{"jsonrpc": "2.0", "method": "notifications/x"},
                        {"jsonrpc": "2.0", "id": id, "result": tools_page(&["four"], None)}]),
            ),
            Some(_) => respond_empty(s, "400 Bad Request"),
        }
    })
}

#[test]
fn streamable_http_json_sse_chunked_sessions_ping_and_paging() {
    let srv = good_server();
    let m = probe_manifest(&format!(
        "[servers.web]\nurl = '{}'\nheaders = {{ Authorization = 'Bearer ${{LOOP_TOKEN}}', X-Team = 'blue' }}\ntools = ['one', 'two', 'three']\n",
        srv.url()
    ));
    let o = only(probe_with(&m, 20.0, &[("LOOP_TOKEN", "loop-secret-99")]));
    assert!(o.ok, "{o:?}");
    assert_eq!(o.transport, "http");
    assert_eq!(o.protocol_version.as_deref(), Some("2025-06-18"));
    assert_eq!(o.server.as_ref().map(|s| s.name.as_str()), Some("loop"));
    assert_eq!(o.tools, ["one", "two", "three", "four"]);
    assert_eq!(o.unpinned, ["four"]);
    assert!(o.missing.is_empty());
    let log = srv.log();
    // Every request carried the resolved headers.
    for r in log.iter().filter(|r| r.method == "POST") {
        assert_eq!(r.header("authorization"), Some("Bearer loop-secret-99"));
        assert_eq!(r.header("x-team"), Some("blue"));
    }
    // The ping was answered, and the session was ended politely.
    assert!(
        log.iter()
            .any(|r| r.body.get("id") == Some(&json!("srv-ping")) && r.body["result"] == json!({}))
    );
    let del = log
        .iter()
        .find(|r| r.method == "DELETE")
        .expect("DELETE sent");
    assert_eq!(del.header("mcp-session-id"), Some("sess-42"));
    let methods: Vec<&str> = log
        .iter()
        .filter_map(|r| r.body.get("method").and_then(Value::as_str))
        .collect();
    assert_eq!(
        methods,
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/list",
            "tools/list"
        ]
    );
}

#[test]
fn http_errors_are_redacted_and_silence_times_out() {
    // 401 whose body echoes the credential back.
    let rude = loopback(|req, s, _, _| {
        let auth = req.header("authorization").unwrap_or("").to_string();
        respond_json(
            s,
            "401 Unauthorized",
            "",
            &json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32001, "message": format!("bad credentials: {auth}")}}),
        );
    });
    // Accepts, reads, never answers (until the test ends it, or two minutes pass).
    let silent = loopback(|_, s, _, stop| {
        let until = Instant::now() + Duration::from_secs(120);
        while Instant::now() < until && !stop.load(Ordering::SeqCst) {
            thread::sleep(Duration::from_millis(20));
        }
        drop(s);
    });
    let m = probe_manifest(&format!(
        "[servers.rude]\nurl = '{}'\nheaders = {{ Authorization = 'Bearer ${{RUDE_TOKEN}}' }}\n\
         [servers.silent]\nurl = '{}'\n\
         [servers.legacy]\nurl = 'http://127.0.0.1:9/sse'\ntransport = 'sse'\n\
         [servers.tls]\nurl = 'https://127.0.0.1:9/mcp'\n",
        rude.url(),
        silent.url()
    ));
    let t0 = Instant::now();
    let out = probe_with(&m, 1.0, &[("RUDE_TOKEN", "rude-secret-123")]);
    // The silent server holds on for two minutes: well under that means the 1 s deadline
    // ended the wait (a bound that holds on a loaded machine).
    assert!(t0.elapsed() < Duration::from_secs(60), "{:?}", t0.elapsed());
    fails(&out[0], "needs-auth");
    let e = out[0].error.clone().unwrap_or_default();
    assert!(
        e.contains("HTTP 401") && e.contains("bad credentials"),
        "{e}"
    );
    assert!(
        !e.contains("rude-secret-123") && e.contains("<redacted>"),
        "{e}"
    );
    fails(&out[1], "timeout");
    // Nothing listens on port 9: both transports say so (no longer "unsupported").
    assert_eq!(out[2].transport, "sse");
    assert_eq!(out[3].transport, "http");
    for o in &out[2..] {
        assert!(
            matches!(
                o.code,
                Some(FailureCode::ConnectFailed | FailureCode::Timeout)
            ),
            "{o:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The command line

struct Cli {
    fakes: Fakes,
    manifest: PathBuf,
}

impl Cli {
    fn new(servers: impl FnOnce(&Fakes) -> String) -> Cli {
        let fakes = Fakes::new();
        let text = format!(
            "owner = \"t\"\n\n{}\n[[targets]]\nclient = \"cursor\"\n",
            servers(&fakes)
        );
        let manifest = fakes.dir.path().join("mcpconf.toml");
        fs::write(&manifest, text).expect("write manifest");
        Cli { fakes, manifest }
    }
    fn run(&self, args: &[&str]) -> (i32, String, String) {
        self.run_env(args, &[])
    }
    fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
        let base = self.fakes.dir.path();
        let out = mcpconf_cmd()
            .envs(env.iter().copied())
            .arg("probe")
            .args(args)
            .arg("-m")
            .arg(&self.manifest)
            .arg("--root")
            .arg(base)
            .arg("--home")
            .arg(base)
            .arg("--state-dir")
            .arg(base.join("state"))
            .output()
            .expect("run mcpconf");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

#[test]
fn cli_exit_codes_json_and_text() {
    let cli = Cli::new(|f| {
        format!(
            "{}{}{}",
            f.server("exact", "ok", Some(&["alpha", "beta", "gamma", "delta"])),
            f.server("wide", "ok", Some(&["alpha", "omega"])),
            f.server("broken", "exit", None)
        )
    });
    // All pass: the exact pin.
    let (code, out, err) = cli.run(&["exact"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("SERVER") && out.contains("exact") && out.contains("ok"),
        "{out}"
    );
    // Missing pinned tools alone do not fail; unpinned tools do.
    let (code, out, _) = cli.run(&["wide", "--format", "json"]);
    assert_eq!(code, 1, "{out}");
    let v: Value = serde_json::from_str(&out).expect("json");
    let s = &v["servers"][0];
    assert_eq!(s["ok"], true);
    assert_eq!(s["unpinned"], json!(["beta", "gamma", "delta"]));
    assert_eq!(s["missing"], json!(["omega"]));
    // Every server, in manifest order, with the contract's fields.
    let (code, out, _) = cli.run(&["--format", "json"]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).expect("json");
    let names: Vec<&str> = v["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["exact", "wide", "broken"]);
    for s in v["servers"].as_array().expect("servers") {
        for k in [
            "name",
            "ok",
            "protocol_version",
            "server",
            "tools",
            "unpinned",
            "missing",
            "error",
        ] {
            assert!(s.get(k).is_some(), "{k} missing in {s}");
        }
    }
    assert_eq!(v["servers"][2]["ok"], false);
    assert_eq!(v["servers"][2]["code"], "exited");
    assert!(
        v["servers"][2]["stderr"]
            .as_str()
            .unwrap_or_default()
            .contains("fatal")
    );
    // Text: the failure with its stderr tail.
    let (code, out, _) = cli.run(&["broken"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("FAIL (exited)") && out.contains("| fatal: cannot open the database"),
        "{out}"
    );
    for name in ["exact", "wide", "broken"] {
        cli.fakes.assert_gone(name);
    }
}

#[test]
fn cli_usage_errors_exit_2() {
    let cli = Cli::new(|f| f.server("browser", "ok", None));
    let (code, _, err) = cli.run(&["brwser"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no server `brwser`") && err.contains("did you mean `browser`?"),
        "{err}"
    );
    for bad in ["0", "-1", "nan", "100000"] {
        let (code, _, err) = cli.run(&["--timeout", bad]);
        assert_eq!(code, 2, "--timeout {bad}: {err}");
    }
    assert_eq!(
        cli.fakes.pid("browser"),
        None,
        "nothing started on a usage error"
    );
}

#[test]
fn cli_write_pins_prints_a_diff_and_writes_nothing() {
    let cli = Cli::new(|f| {
        format!(
            "{}{}{}",
            f.server("fresh", "ok", None),
            f.server("stale", "ok", Some(&["alpha"])),
            f.server("broken", "exit", None)
        )
    });
    let before = fs::read(&cli.manifest).expect("manifest");
    let (code, out, err) = cli.run(&["--write-pins"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(
        fs::read(&cli.manifest).expect("manifest"),
        before,
        "manifest untouched"
    );
    let diff = &out[out.find("--- ").expect("a diff")..];
    assert!(diff.contains("-tools = ['alpha']"), "{diff}");
    assert_eq!(diff.matches("+tools = [").count(), 2, "{diff}");
    for t in ["alpha", "beta", "gamma", "delta"] {
        assert_eq!(
            diff.matches(&format!("+    \"{t}\",")).count(),
            2,
            "{t}: {diff}"
        );
    }
    // The proposed manifest is valid and, probed again, passes for the servers that answered.
    let proposed = apply_diff(&String::from_utf8_lossy(&before), diff);
    manifest::parse(&proposed, &mcpconf::known::Known).expect("the proposal parses");
    fs::write(&cli.manifest, &proposed).expect("write");
    let (code, out, _) = cli.run(&["fresh", "stale", "--write-pins", "--format", "json"]);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["pins_diff"], "", "nothing left to propose");
}

/// Apply a unified diff of one file made by `similar` (context lines, `-` and `+`).
fn apply_diff(old: &str, diff: &str) -> String {
    let old: Vec<&str> = old.lines().collect();
    let mut out = Vec::new();
    let mut at = 0;
    for line in diff.lines() {
        if line.starts_with("---") || line.starts_with("+++") {
            continue;
        }
        if let Some(h) = line.strip_prefix("@@ -") {
            let start: usize = h
                .split([',', ' '])
                .next()
                .and_then(|n| n.parse().ok())
                .expect("hunk start");
            while at + 1 < start {
                out.push(old[at].to_string());
                at += 1;
            }
        } else if let Some(l) = line.strip_prefix('+') {
            out.push(l.to_string());
        } else if line.starts_with('-') {
            at += 1;
        } else if let Some(l) = line.strip_prefix(' ') {
            out.push(l.to_string());
            at += 1;
        }
    }
    out.extend(old[at..].iter().map(|s| s.to_string()));
    out.join("\n") + "\n"
}

#[test]
fn cli_never_prints_a_literal_credential() {
    let rude = loopback(|req, s, _, _| {
        let auth = req.header("authorization").unwrap_or("").to_string();
        respond_json(
            s,
            "403 Forbidden",
            "",
            &json!({"error": {"message": format!("no entry for {auth}")}}),
        );
    });
    let url = rude.url();
    let cli = Cli::new(move |_| {
        format!(
            "[servers.api]\nurl = '{url}'\nheaders = {{ Authorization = 'Bearer lit-cred-8765' }}\n"
        )
    });
    for fmt in ["text", "json"] {
        let (code, out, err) = cli.run(&["--format", fmt]);
        assert_eq!(code, 1);
        assert!(out.contains("403"), "{out}");
        assert!(
            !out.contains("lit-cred-8765") && !err.contains("lit-cred-8765"),
            "{out}{err}"
        );
    }
}

#[test]
fn probe_client_reads_a_cursor_file_and_expands_its_references() {
    let f = Fakes::new();
    let root = f.dir.path().join("project");
    fs::create_dir_all(root.join(".cursor")).expect("mkdir");
    // Cursor spells references `${env:VAR}`: the pid file path comes from the environment.
    let doc = json!({"mcpServers": {
        "works": {
            "command": "python3",
            "args": [FAKE, "ok", Fakes::marker("works")],
            "env": {"FAKE_PID_FILE": "${env:MCPCONF_T_CURSOR_PID}"}
        },
        "broken": {"command": "mcpconf-no-such-command-4711", "args": []}
    }});
    fs::write(root.join(".cursor/mcp.json"), doc.to_string()).expect("write");
    let pid_file = f.pid_file("works");
    let run = |fmt: &str| {
        mcpconf_cmd()
            .args([
                "probe",
                "--client",
                "cursor",
                "--format",
                fmt,
                "--timeout",
                "60",
            ])
            .arg("--root")
            .arg(&root)
            .arg("--home")
            .arg(f.dir.path())
            .arg("--state-dir")
            .arg(f.dir.path().join("state"))
            .env("MCPCONF_T_CURSOR_PID", &pid_file)
            .output()
            .expect("run mcpconf")
    };
    let out = run("json");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    let servers = doc["servers"].as_array().cloned().unwrap_or_default();
    let by = |n: &str| {
        servers
            .iter()
            .find(|s| s["name"] == n)
            .cloned()
            .unwrap_or_else(|| panic!("{n} missing: {text}"))
    };
    let works = by("works");
    assert_eq!(works["ok"], true, "{works}");
    assert_eq!(works["tools"], json!(["alpha", "beta", "gamma", "delta"]));
    let broken = by("broken");
    assert_eq!(broken["ok"], false, "{broken}");
    assert_eq!(broken["code"], "spawn-failed", "{broken}");
    // The reference was expanded from the environment: the server wrote its pid there.
    assert!(
        f.pid("works").is_some(),
        "the expanded FAKE_PID_FILE was not used"
    );
    f.assert_gone("works");
    let out = run("text");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("FAIL (spawn-failed)"), "{text}");
    // --all-clients finds the same file under --root and names each outcome CLIENT/SERVER.
    let _ = fs::remove_file(&pid_file);
    let out = mcpconf_cmd()
        .args([
            "probe",
            "--all-clients",
            "--format",
            "json",
            "--timeout",
            "60",
        ])
        .arg("--root")
        .arg(&root)
        .arg("--home")
        .arg(f.dir.path())
        .arg("--state-dir")
        .arg(f.dir.path().join("state"))
        .env("MCPCONF_T_CURSOR_PID", &pid_file)
        .output()
        .expect("run mcpconf");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    let got: Vec<(String, bool)> = doc["servers"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap_or("").to_string(),
                s["ok"] == true,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("cursor/works".to_string(), true),
            ("cursor/broken".to_string(), false)
        ],
        "{text}"
    );
    f.assert_gone("works");
    // A manifest is not needed; --write-pins needs one.
    let st = mcpconf_cmd()
        .args(["probe", "--client", "cursor", "--write-pins"])
        .arg("--root")
        .arg(&root)
        .output()
        .expect("run mcpconf");
    assert_eq!(st.status.code(), Some(2));
}

#[test]
fn an_interrupted_probe_kills_its_servers() {
    for (sig, name) in [(libc::SIGTERM, "term"), (libc::SIGINT, "int")] {
        let cli = Cli::new(|f| f.server(name, "sigterm-child", None));
        let base = cli.fakes.dir.path();
        let mut child = mcpconf_cmd()
            .args(["probe", "--timeout", "60", "-m"])
            .arg(&cli.manifest)
            .arg("--home")
            .arg(base)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start mcpconf");
        wait_until(
            || cli.fakes.child_pid(name).is_some_and(alive),
            "the server's child to start",
        );
        assert!(
            cli.fakes.child_pid(name).is_some(),
            "{name}: child never started"
        );
        // SAFETY: signalling the mcpconf process this test started.
        unsafe { libc::kill(child.id() as i32, sig) };
        let status = child.wait().expect("mcpconf ends");
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(sig), "{name}: dies of the signal");
        cli.fakes.assert_gone(name);
    }
}
