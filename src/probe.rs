//! `mcpconf probe`: start each declared server, speak MCP, and check its tool pin.
//!
//! A small hand-written MCP client for the two transports a manifest can declare:
//! - **stdio**: the command is spawned in a process group of its own, with newline-delimited
//!   JSON-RPC on stdin/stdout; stderr is drained into a bounded tail that failures report;
//! - **streamable HTTP**: JSON-RPC POSTed to the URL over a plain `std::net::TcpStream`
//!   (`http://` only; see `docs/probe.md` for why), answered as `application/json` or as a
//!   `text/event-stream`, with `Mcp-Session-Id` carried between requests.
//!
//! The conversation is `initialize`, `notifications/initialized`, then `tools/list` following
//! `nextCursor` to the last page. Every read is bounded by one deadline per server (the whole
//! exchange), every line and every response by a byte cap, and every process started is killed
//! with its whole process group (and any descendant that left it) before [`probe`] returns.
//!
//! Nothing here prints. Header and env values, and every value substituted for a `${VAR}`, are
//! redacted from the error messages and stderr tails this module returns.

use std::collections::{BTreeSet, HashSet};
use std::fmt::Write as _;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};

use crate::manifest::{RemoteKind, Server, Transport};
use crate::redact::Redactor;
use crate::template::{Part, Template};

/// The MCP protocol version the probe asks for; the server's answer is accepted as it is.
pub const PROTOCOL_VERSION: &str = "2025-11-25";
/// Longest stdout line (one JSON-RPC message), SSE event or HTTP body accepted from a server.
pub const MAX_LINE: usize = 8 << 20;
/// Most bytes read from one server's stdout, or one HTTP response, in a whole probe.
pub const MAX_TOTAL: usize = 32 << 20;
/// How much of a server's stderr is kept (the last bytes).
pub const STDERR_TAIL: usize = 4096;
/// Default number of servers probed at once.
pub const DEFAULT_PARALLEL: usize = 4;
/// Most `tools/list` pages followed.
const MAX_PAGES: usize = 1000;
/// Most server-to-client requests answered in one probe (each answer is a small write).
const MAX_SERVER_REQUESTS: usize = 100;
/// How long a server that got EOF on stdin may take to exit by itself before it is killed.
const GRACE: Duration = Duration::from_millis(200);
/// How long to wait for the stderr drain after the processes are gone.
const DRAIN_WAIT: Duration = Duration::from_millis(500);

/// How to probe.
#[derive(Debug, Clone)]
pub struct Options {
    /// Bound on the whole exchange with one server (spawn or connect to last page).
    pub timeout: Duration,
    /// How many servers are probed at once (at least 1).
    pub parallel: usize,
    /// Base of a relative `cwd` (the project root).
    pub base_dir: PathBuf,
}

/// An environment lookup for `${VAR}` references (`None` = unset).
pub type Lookup<'a> = &'a (dyn Fn(&str) -> Option<String> + Sync);

/// What the server said about itself in `initialize`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServerInfo {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version` (empty when absent).
    pub version: String,
}

/// The result of probing one server.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    /// The server's name in the manifest.
    pub name: String,
    /// Whether the handshake and `tools/list` succeeded.
    pub ok: bool,
    /// `stdio`, `http` or `sse`.
    pub transport: &'static str,
    /// The protocol version the server answered.
    pub protocol_version: Option<String>,
    /// The server's name and version.
    pub server: Option<ServerInfo>,
    /// Tool names, in the server's order, duplicates dropped.
    pub tools: Vec<String>,
    /// Tools the server exposes that the pin does not list (empty without a pin).
    pub unpinned: Vec<String>,
    /// Pinned tools the server does not expose (empty without a pin).
    pub missing: Vec<String>,
    /// Whether the manifest pins this server's tools.
    pub pinned: bool,
    /// Why the probe failed (redacted).
    pub error: Option<String>,
    /// A stable kebab-case id for the failure (`timeout`, `exited`, `invalid-output`, …).
    pub code: Option<&'static str>,
    /// The last bytes the server wrote to stderr (stdio servers; redacted).
    pub stderr: Option<String>,
    /// How long the probe took, in milliseconds.
    pub elapsed_ms: u64,
}

impl Outcome {
    /// Reachable, and exposes nothing outside its pin.
    pub fn passes(&self) -> bool {
        self.ok && self.unpinned.is_empty()
    }
}

/// Why a probe failed: a stable code and one sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Failure {
    code: &'static str,
    message: String,
}

fn fail(code: &'static str, message: impl Into<String>) -> Failure {
    Failure {
        code,
        message: message.into(),
    }
}

/// What the conversation found.
#[derive(Debug, Default)]
struct Discovery {
    protocol_version: String,
    server: Option<ServerInfo>,
    tools: Vec<String>,
}

/// Probe every server, at most `opts.parallel` at once; results in the order given.
pub fn probe_all(servers: &[&Server], opts: &Options, lookup: Lookup<'_>) -> Vec<Outcome> {
    let n = servers.len();
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Outcome>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let workers = opts.parallel.max(1).min(n);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(server) = servers.get(i) else { break };
                    let o = probe(server, opts, lookup);
                    if let Some(slot) = slots.get(i) {
                        *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(o);
                    }
                }
            });
        }
    });
    slots
        .into_iter()
        .zip(servers)
        .map(|(slot, s)| {
            slot.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .unwrap_or_else(|| Outcome {
                    error: Some("the probe did not run".into()),
                    code: Some("internal"),
                    ..empty_outcome(s, "stdio")
                })
        })
        .collect()
}

fn empty_outcome(server: &Server, transport: &'static str) -> Outcome {
    Outcome {
        name: server.name.clone(),
        ok: false,
        transport,
        protocol_version: None,
        server: None,
        tools: Vec::new(),
        unpinned: Vec::new(),
        missing: Vec::new(),
        pinned: server.tools.is_some(),
        error: None,
        code: None,
        stderr: None,
        elapsed_ms: 0,
    }
}

/// Probe one server. Never takes much longer than `opts.timeout`, and every process it started
/// is gone when it returns.
pub fn probe(server: &Server, opts: &Options, lookup: Lookup<'_>) -> Outcome {
    let start = Instant::now();
    let deadline = start + opts.timeout;
    let mut red = Redactor::default();
    let (transport, result, stderr) = match &server.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let spec = resolve_stdio(command, args, env, cwd.as_ref(), lookup, &mut red, opts);
            let (r, tail) = match spec {
                Ok(spec) => run_stdio(&spec, deadline, opts.timeout),
                Err(f) => (Err(f), None),
            };
            ("stdio", r, tail)
        }
        Transport::Remote {
            kind: RemoteKind::Sse,
            ..
        } => (
            "sse",
            Err(fail(
                "unsupported",
                "legacy HTTP+SSE servers (`transport = \"sse\"`) are not supported by probe; \
                 only stdio and streamable HTTP are",
            )),
            None,
        ),
        Transport::Remote {
            url,
            headers,
            kind: RemoteKind::Http,
        } => {
            let r = resolve_remote(url, headers, lookup, &mut red)
                .and_then(|(url, headers)| run_http(url, headers, deadline, opts.timeout));
            ("http", r, None)
        }
    };
    let mut out = empty_outcome(server, transport);
    out.stderr = stderr
        .map(|s| red.redact(&s))
        .filter(|s| !s.trim().is_empty());
    match result {
        Ok(d) => {
            out.ok = true;
            out.protocol_version = Some(d.protocol_version);
            out.server = d.server;
            if let Some(pin) = &server.tools {
                let have: HashSet<&str> = d.tools.iter().map(String::as_str).collect();
                let want: HashSet<&str> = pin.iter().map(String::as_str).collect();
                out.unpinned = d
                    .tools
                    .iter()
                    .filter(|t| !want.contains(t.as_str()))
                    .cloned()
                    .collect();
                out.missing = pin
                    .iter()
                    .filter(|t| !have.contains(t.as_str()))
                    .cloned()
                    .collect();
            }
            out.tools = d.tools;
        }
        Err(f) => {
            out.error = Some(red.redact(&f.message));
            out.code = Some(f.code);
        }
    }
    out.elapsed_ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
    out
}

// ---------------------------------------------------------------------------------------------
// Resolving `${VAR}` references.

/// Substitute references; every substituted value becomes a secret to redact.
fn resolve(
    t: &Template,
    field: &str,
    lookup: Lookup<'_>,
    red: &mut Redactor,
) -> Result<String, Failure> {
    for p in &t.parts {
        if let Part::Var(v) = p {
            match lookup(v) {
                Some(val) => remember(red, &val),
                None => {
                    return Err(fail(
                        "unset-variable",
                        format!("`${{{v}}}` (in `{field}`) is not set in the environment"),
                    ));
                }
            }
        }
    }
    t.resolve(lookup).map_err(|v| {
        fail(
            "unset-variable",
            format!("`${{{v}}}` (in `{field}`) is not set in the environment"),
        )
    })
}

fn remember(red: &mut Redactor, value: &str) {
    if value.trim().len() >= 4 {
        red.add(value);
    }
}

struct StdioSpec {
    command: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    cwd: Option<PathBuf>,
}

fn resolve_stdio(
    command: &Template,
    args: &[Template],
    env: &[(String, Template)],
    cwd: Option<&Template>,
    lookup: Lookup<'_>,
    red: &mut Redactor,
    opts: &Options,
) -> Result<StdioSpec, Failure> {
    // Env values first, so that a later error message never shows one.
    let mut env_out = Vec::new();
    for (k, v) in env {
        let val = resolve(v, &format!("env.{k}"), lookup, red)?;
        remember(red, &val);
        env_out.push((k.clone(), val));
    }
    let command = resolve(command, "command", lookup, red)?;
    let args = args
        .iter()
        .map(|a| resolve(a, "args", lookup, red))
        .collect::<Result<Vec<_>, _>>()?;
    let cwd = match cwd {
        Some(c) => {
            let p = PathBuf::from(resolve(c, "cwd", lookup, red)?);
            Some(if p.is_absolute() {
                p
            } else {
                opts.base_dir.join(p)
            })
        }
        None => None,
    };
    Ok(StdioSpec {
        command,
        args,
        env: env_out,
        cwd,
    })
}

type Headers = Vec<(String, String)>;

fn resolve_remote(
    url: &Template,
    headers: &[(String, Template)],
    lookup: Lookup<'_>,
    red: &mut Redactor,
) -> Result<(String, Headers), Failure> {
    let mut out = Vec::new();
    for (k, v) in headers {
        let val = resolve(v, &format!("headers.{k}"), lookup, red)?;
        remember(red, &val);
        if let Some((scheme, token)) = val.split_once(' ')
            && !scheme.is_empty()
        {
            remember(red, token.trim());
        }
        if k.is_empty() || !k.bytes().all(is_token_byte) {
            return Err(fail(
                "invalid-config",
                format!("header name `{k}` is not a valid HTTP header name"),
            ));
        }
        if val.bytes().any(|b| b == b'\r' || b == b'\n' || b == 0) {
            return Err(fail(
                "invalid-config",
                format!("the value of header `{k}` contains a line break or NUL"),
            ));
        }
        out.push((k.clone(), val));
    }
    let url = resolve(url, "url", lookup, red)?;
    Ok((url, out))
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

// ---------------------------------------------------------------------------------------------
// The conversation, over either transport.

/// One JSON-RPC peer.
trait Rpc {
    /// Send a request and return its `result` (a JSON-RPC error is a failure).
    fn request(&mut self, method: &str, params: Value, deadline: Instant)
    -> Result<Value, Failure>;
    /// Send a notification.
    fn notify(&mut self, method: &str, deadline: Instant) -> Result<(), Failure>;
    /// The version the server answered in `initialize`.
    fn negotiated(&mut self, _version: &str) {}
}

fn converse(c: &mut dyn Rpc, deadline: Instant) -> Result<Discovery, Failure> {
    let init = c.request(
        "initialize",
        json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "mcpconf", "version": env!("CARGO_PKG_VERSION")},
        }),
        deadline,
    )?;
    let pv = init
        .get("protocolVersion")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            fail(
                "protocol-error",
                "the `initialize` result has no `protocolVersion` string",
            )
        })?
        .to_string();
    c.negotiated(&pv);
    let server = init.get("serverInfo").and_then(|si| {
        Some(ServerInfo {
            name: si.get("name")?.as_str()?.to_string(),
            version: si
                .get("version")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        })
    });
    c.notify("notifications/initialized", deadline)?;
    let mut d = Discovery {
        protocol_version: pv,
        server,
        tools: Vec::new(),
    };
    // A server that does not declare the tools capability has no tools to list.
    if init
        .get("capabilities")
        .and_then(Value::as_object)
        .is_some_and(|caps| !caps.contains_key("tools"))
    {
        return Ok(d);
    }
    let mut seen_tools = HashSet::new();
    let mut seen_cursors = HashSet::new();
    let mut cursor: Option<String> = None;
    for page in 1.. {
        if page > MAX_PAGES {
            return Err(fail(
                "protocol-error",
                format!("`tools/list` did not end after {MAX_PAGES} pages"),
            ));
        }
        let params = match &cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let r = c.request("tools/list", params, deadline)?;
        let list = r.get("tools").and_then(Value::as_array).ok_or_else(|| {
            fail(
                "protocol-error",
                format!("page {page} of `tools/list` has no `tools` array"),
            )
        })?;
        for t in list {
            let name = t.get("name").and_then(Value::as_str).ok_or_else(|| {
                fail(
                    "protocol-error",
                    format!("page {page} of `tools/list` has a tool without a `name` string"),
                )
            })?;
            if seen_tools.insert(name.to_string()) {
                d.tools.push(name.to_string());
            }
        }
        match r.get("nextCursor") {
            Some(Value::String(s)) if !s.is_empty() => {
                if !seen_cursors.insert(s.clone()) {
                    return Err(fail(
                        "protocol-error",
                        format!(
                            "`tools/list` page {page} repeats an earlier `nextCursor`; the listing would never end"
                        ),
                    ));
                }
                cursor = Some(s.clone());
            }
            _ => break,
        }
    }
    Ok(d)
}

/// What one incoming JSON-RPC message is.
enum Incoming<'a> {
    /// A response (result or error) to the request with this id.
    Response(&'a Value),
    /// A request from the server (it expects an answer).
    Request { id: &'a Value, method: &'a str },
    /// A notification, or something we ignore.
    Other,
}

fn classify(v: &Value) -> Incoming<'_> {
    match (v.get("id"), v.get("method").and_then(Value::as_str)) {
        (Some(id), Some(method)) if !id.is_null() => Incoming::Request { id, method },
        (Some(id), None) if v.get("result").is_some() || v.get("error").is_some() => {
            Incoming::Response(id)
        }
        _ => Incoming::Other,
    }
}

/// The answer the probe gives a server's request: `ping` succeeds, anything else is unknown.
fn answer_server_request(id: &Value, method: &str) -> Value {
    if method == "ping" {
        json!({"jsonrpc": "2.0", "id": id, "result": {}})
    } else {
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "method not supported by mcpconf probe"}})
    }
}

/// The `result` of a response, or a failure naming the JSON-RPC error.
fn take_result(msg: &Value, method: &str) -> Result<Value, Failure> {
    if let Some(e) = msg.get("error") {
        let code = e
            .get("code")
            .map(|c| c.to_string())
            .unwrap_or_else(|| "?".into());
        let text = e.get("message").and_then(Value::as_str).unwrap_or("");
        return Err(fail(
            "jsonrpc-error",
            format!(
                "the server answered `{method}` with JSON-RPC error {code}: {}",
                snippet(text.as_bytes(), 300)
            ),
        ));
    }
    match msg.get("result") {
        Some(r) if r.is_object() => Ok(r.clone()),
        _ => Err(fail(
            "protocol-error",
            format!("the answer to `{method}` has no `result` object"),
        )),
    }
}

/// Printable, one-line, bounded excerpt of bytes from a server.
fn snippet(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::new();
    for c in text.chars() {
        if out.len() >= max {
            out.push('…');
            break;
        }
        out.push(if c.is_control() { ' ' } else { c });
    }
    out.trim().to_string()
}

fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}s")
    } else {
        format!("{s}s")
    }
}

/// Read one `\n`-terminated line (without the `\n`) of at most `cap` bytes.
fn read_line_capped(r: &mut impl BufRead, cap: usize) -> Result<Option<Vec<u8>>, LineError> {
    let mut line = Vec::new();
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(LineError::Io(e)),
        };
        if buf.is_empty() {
            return Ok(if line.is_empty() { None } else { Some(line) });
        }
        if let Some(i) = buf.iter().position(|&b| b == b'\n') {
            if line.len() + i > cap {
                return Err(LineError::TooLong);
            }
            line.extend_from_slice(&buf[..i]);
            r.consume(i + 1);
            return Ok(Some(line));
        }
        let n = buf.len();
        if line.len() + n > cap {
            return Err(LineError::TooLong);
        }
        line.extend_from_slice(buf);
        r.consume(n);
    }
}

#[derive(Debug)]
enum LineError {
    TooLong,
    Io(io::Error),
}

// ---------------------------------------------------------------------------------------------
// stdio

/// What the stdout reader thread saw.
enum OutEvent {
    Msg(Value),
    Garbage(String),
    TooLong,
    TooMuch,
    Eof,
    Error(String),
}

fn run_stdio(
    spec: &StdioSpec,
    deadline: Instant,
    timeout: Duration,
) -> (Result<Discovery, Failure>, Option<String>) {
    if let Some(dir) = &spec.cwd
        && !dir.is_dir()
    {
        return (
            Err(fail(
                "spawn-failed",
                format!("the working directory `{}` does not exist", dir.display()),
            )),
            None,
        );
    }
    let mut cmd = Command::new(&spec.command);
    cmd.args(&spec.args)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(dir) = &spec.cwd {
        cmd.current_dir(dir);
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            let why = if e.kind() == io::ErrorKind::NotFound {
                "not found (not on PATH, or no such file)".to_string()
            } else {
                e.to_string()
            };
            return (
                Err(fail(
                    "spawn-failed",
                    format!("cannot start `{}`: {why}", spec.command),
                )),
                None,
            );
        }
    };
    let slot = register(child.id() as i32);
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let tail = Arc::new(Mutex::new(Vec::new()));
    let (err_done_tx, err_done_rx) = mpsc::channel::<()>();
    if let Some(mut e) = stderr {
        let tail = Arc::clone(&tail);
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                match e.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        let mut t = tail.lock().unwrap_or_else(|p| p.into_inner());
                        t.extend_from_slice(&buf[..n]);
                        if t.len() > STDERR_TAIL {
                            let cut = t.len() - STDERR_TAIL;
                            t.drain(..cut);
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            let _ = err_done_tx.send(());
        });
    }
    let (tx, rx) = mpsc::sync_channel::<OutEvent>(16);
    if let Some(out) = stdout {
        std::thread::spawn(move || read_stdout(out, tx));
    }
    let mut conn = StdioConn {
        child,
        stdin,
        rx,
        next_id: 0,
        answered: 0,
        status: None,
        timeout,
        done: false,
        slot,
    };
    let result = converse(&mut conn, deadline);
    conn.terminate(result.is_ok());
    // The processes are gone; their stderr pipe closes unless an escaped process holds it.
    let _ = err_done_rx.recv_timeout(DRAIN_WAIT);
    let tail = tail.lock().map(|t| t.clone()).unwrap_or_default();
    (result, Some(String::from_utf8_lossy(&tail).into_owned()))
}

fn read_stdout(out: std::process::ChildStdout, tx: SyncSender<OutEvent>) {
    let mut r = BufReader::with_capacity(64 * 1024, out);
    let mut total = 0usize;
    let last = loop {
        match read_line_capped(&mut r, MAX_LINE) {
            Ok(None) => break OutEvent::Eof,
            Ok(Some(line)) => {
                total = total.saturating_add(line.len() + 1);
                if total > MAX_TOTAL {
                    break OutEvent::TooMuch;
                }
                let trimmed = line.trim_ascii();
                if trimmed.is_empty() {
                    continue;
                }
                match serde_json::from_slice::<Value>(trimmed) {
                    Ok(v) => {
                        if tx.send(OutEvent::Msg(v)).is_err() {
                            return;
                        }
                    }
                    Err(_) => break OutEvent::Garbage(snippet(trimmed, 120)),
                }
            }
            Err(LineError::TooLong) => break OutEvent::TooLong,
            Err(LineError::Io(e)) => break OutEvent::Error(e.to_string()),
        }
    };
    let _ = tx.send(last);
}

struct StdioConn {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<OutEvent>,
    next_id: i64,
    answered: usize,
    status: Option<ExitStatus>,
    timeout: Duration,
    done: bool,
    /// Where the process group is registered for [`kill_running`].
    slot: Option<usize>,
}

impl StdioConn {
    fn send(&mut self, msg: &Value, what: &str) -> Result<(), Failure> {
        let mut line = msg.to_string();
        line.push('\n');
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(fail(
                "exited",
                format!("stdin is closed; cannot send {what}"),
            ));
        };
        if stdin
            .write_all(line.as_bytes())
            .and_then(|_| stdin.flush())
            .is_err()
        {
            return Err(self.gone(&format!("before reading {what}")));
        }
        Ok(())
    }

    /// The failure for a server whose stdout or stdin closed.
    fn gone(&mut self, when: &str) -> Failure {
        // Give it a moment to finish exiting so that the status can be reported.
        let until = Instant::now() + Duration::from_millis(300);
        while self.status.is_none() && Instant::now() < until {
            match self.child.try_wait() {
                Ok(Some(s)) => self.status = Some(s),
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                Err(_) => break,
            }
        }
        match self.status {
            Some(s) => fail(
                "exited",
                format!("the server exited ({}) {when}", describe(s)),
            ),
            None => fail("exited", format!("the server closed its stdout {when}")),
        }
    }

    /// End the conversation and every process it started. Idempotent.
    fn terminate(&mut self, graceful: bool) {
        if self.done {
            return;
        }
        self.done = true;
        // EOF on stdin is the MCP way to ask a stdio server to exit.
        drop(self.stdin.take());
        let pid = self.child.id() as i32;
        if graceful {
            let until = Instant::now() + GRACE;
            while self.status.is_none() && Instant::now() < until {
                match self.child.try_wait() {
                    Ok(Some(s)) => self.status = Some(s),
                    Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                    Err(_) => break,
                }
            }
        }
        kill_tree(pid);
        if let Some(slot) = self.slot.take() {
            unregister(slot);
        }
        // SIGKILL ends it at once; a bounded wait still, so that a process we may not signal
        // (it changed its user) cannot hang the probe.
        let until = Instant::now() + Duration::from_secs(2);
        while self.status.is_none() && Instant::now() < until {
            match self.child.try_wait() {
                Ok(Some(s)) => self.status = Some(s),
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(_) => break,
            }
        }
        if self.status.is_none() {
            // Not ours to kill: let it run again rather than leave it stopped.
            // SAFETY: kill(2) on our own child's process group; no memory is involved.
            unsafe { libc::kill(-pid, libc::SIGCONT) };
        }
    }
}

impl Drop for StdioConn {
    fn drop(&mut self) {
        self.terminate(false);
    }
}

fn describe(s: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (s.code(), s.signal()) {
        (Some(c), _) => format!("exit status {c}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        _ => "exit status unknown".into(),
    }
}

impl Rpc for StdioConn {
    fn request(
        &mut self,
        method: &str,
        params: Value,
        deadline: Instant,
    ) -> Result<Value, Failure> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
            &format!("`{method}`"),
        )?;
        let want = json!(id);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let ev = match self.rx.recv_timeout(left) {
                Ok(ev) => ev,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(fail(
                        "timeout",
                        format!(
                            "no answer to `{method}` within the {} timeout",
                            secs(self.timeout)
                        ),
                    ));
                }
                Err(RecvTimeoutError::Disconnected) => OutEvent::Eof,
            };
            let msg = match ev {
                OutEvent::Msg(v) => v,
                OutEvent::Eof => return Err(self.gone(&format!("before answering `{method}`"))),
                OutEvent::Garbage(s) => {
                    return Err(fail(
                        "invalid-output",
                        format!("the server wrote something that is not JSON-RPC to stdout: `{s}`"),
                    ));
                }
                OutEvent::TooLong => {
                    return Err(fail(
                        "output-too-large",
                        format!(
                            "the server wrote a stdout line longer than {} MiB",
                            MAX_LINE >> 20
                        ),
                    ));
                }
                OutEvent::TooMuch => {
                    return Err(fail(
                        "output-too-large",
                        format!(
                            "the server wrote more than {} MiB to stdout",
                            MAX_TOTAL >> 20
                        ),
                    ));
                }
                OutEvent::Error(e) => {
                    return Err(fail(
                        "io-error",
                        format!("reading the server's stdout: {e}"),
                    ));
                }
            };
            let items: Vec<&Value> = match &msg {
                Value::Array(a) => a.iter().collect(),
                v => vec![v],
            };
            for m in items {
                match classify(m) {
                    Incoming::Response(rid) if *rid == want => return take_result(m, method),
                    Incoming::Request { id, method: sm } if self.answered < MAX_SERVER_REQUESTS => {
                        self.answered += 1;
                        let answer = answer_server_request(id, sm);
                        self.send(&answer, &format!("the answer to the server's `{sm}`"))?;
                    }
                    _ => {}
                }
            }
        }
    }

    fn notify(&mut self, method: &str, _deadline: Instant) -> Result<(), Failure> {
        self.send(
            &json!({"jsonrpc": "2.0", "method": method}),
            &format!("`{method}`"),
        )
    }
}

/// Process groups of the servers running now, for [`kill_running`] (0 = free slot).
static RUNNING: [AtomicI32; 64] = [const { AtomicI32::new(0) }; 64];

fn register(pgid: i32) -> Option<usize> {
    RUNNING.iter().position(|s| {
        s.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    })
}

fn unregister(slot: usize) {
    if let Some(s) = RUNNING.get(slot) {
        s.store(0, Ordering::SeqCst);
    }
}

/// SIGKILL the process group of every server being probed now. Async-signal-safe (atomic loads
/// and kill(2) only), so a signal handler may call it.
pub fn kill_running() {
    for s in &RUNNING {
        let pgid = s.load(Ordering::SeqCst);
        if pgid > 1 {
            // SAFETY: kill(2) on a process group this module started; no memory is involved.
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
        }
    }
}

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
pub fn kill_servers_on_signal() {
    let handler: extern "C" fn(libc::c_int) = on_fatal_signal;
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: installs a handler that only calls async-signal-safe functions.
        unsafe { libc::signal(sig, handler as libc::sighandler_t) };
    }
}

/// Kill a process group and every descendant of its leader (also those that left the group):
/// stop them all first so that none can fork away, then SIGKILL.
fn kill_tree(pgid: i32) {
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

// ---------------------------------------------------------------------------------------------
// Streamable HTTP

struct Url {
    /// Host for connecting (no brackets).
    host: String,
    /// `Host` header value.
    authority: String,
    port: u16,
    /// Path and query.
    target: String,
}

fn parse_url(url: &str) -> Result<Url, Failure> {
    let url = url.trim();
    if url.len() >= 8 && url[..8].eq_ignore_ascii_case("https://") {
        return Err(fail(
            "unsupported",
            "https:// URLs are not supported by probe (mcpconf carries no TLS stack); \
             probe the server through a local http:// endpoint",
        ));
    }
    let rest = match url.get(..7) {
        Some(p) if p.eq_ignore_ascii_case("http://") => &url[7..],
        _ => {
            return Err(fail(
                "invalid-config",
                "the url does not start with `http://`",
            ));
        }
    };
    let (authority, target) = match rest.find(['/', '?', '#']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let target = target.split('#').next().unwrap_or("/");
    let target = if target.starts_with('?') {
        format!("/{target}")
    } else if target.is_empty() {
        "/".to_string()
    } else {
        target.to_string()
    };
    if authority.contains('@') {
        return Err(fail(
            "invalid-config",
            "credentials in the url are not supported; use `headers`",
        ));
    }
    let (host, port) = if let Some(h) = authority.strip_prefix('[') {
        let Some((h, after)) = h.split_once(']') else {
            return Err(fail("invalid-config", "the url's IPv6 host has no `]`"));
        };
        (h.to_string(), after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (authority.to_string(), None),
        }
    };
    let port = match port {
        None | Some("") => 80,
        Some(p) => p
            .parse::<u16>()
            .map_err(|_| fail("invalid-config", "the url's port is not a number"))?,
    };
    if host.is_empty() || target.bytes().any(|b| b <= b' ' || b == 0x7f) {
        return Err(fail(
            "invalid-config",
            "the url has no host, or has spaces or control characters",
        ));
    }
    Ok(Url {
        host,
        authority: authority.to_string(),
        port,
        target,
    })
}

/// A TCP stream whose every read and write is bounded by one deadline.
struct DeadlineStream {
    s: TcpStream,
    deadline: Instant,
}

fn timed_out() -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, "deadline reached")
}

impl Read for DeadlineStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(timed_out());
        }
        self.s.set_read_timeout(Some(left))?;
        self.s.read(buf)
    }
}

/// Response body framing.
enum Framing {
    Length(usize),
    Chunked {
        left: usize,
        need_crlf: bool,
        done: bool,
    },
    UntilClose,
}

/// A response body, de-chunked, capped at [`MAX_TOTAL`] bytes.
struct Body {
    r: BufReader<DeadlineStream>,
    framing: Framing,
    total: usize,
    too_large: bool,
}

impl Read for Body {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let n = match &mut self.framing {
            Framing::Length(0) => 0,
            Framing::Length(left) => {
                let k = (*left).min(out.len());
                let got = self.r.read(&mut out[..k])?;
                if got == 0 {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the response body ended early",
                    ));
                }
                *left -= got;
                got
            }
            Framing::UntilClose => self.r.read(out)?,
            Framing::Chunked {
                left,
                need_crlf,
                done,
            } => {
                if *done {
                    return Ok(0);
                }
                if *need_crlf {
                    let _ = read_line_capped(&mut self.r, 2).map_err(line_io)?;
                    *need_crlf = false;
                }
                if *left == 0 {
                    let line = read_line_capped(&mut self.r, 1024)
                        .map_err(line_io)?
                        .ok_or_else(|| {
                            io::Error::new(io::ErrorKind::UnexpectedEof, "chunked body ended early")
                        })?;
                    let text = String::from_utf8_lossy(&line);
                    let size = text.split(';').next().unwrap_or("").trim();
                    let size = usize::from_str_radix(size, 16).map_err(|_| {
                        io::Error::new(io::ErrorKind::InvalidData, "bad chunk size")
                    })?;
                    if size == 0 {
                        // Trailers, up to the empty line.
                        for _ in 0..64 {
                            match read_line_capped(&mut self.r, 8192).map_err(line_io)? {
                                Some(l) if !l.trim_ascii().is_empty() => {}
                                _ => break,
                            }
                        }
                        *done = true;
                        return Ok(0);
                    }
                    *left = size;
                }
                let k = (*left).min(out.len());
                let got = self.r.read(&mut out[..k])?;
                if got == 0 {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "chunked body ended early",
                    ));
                }
                *left -= got;
                if *left == 0 {
                    *need_crlf = true;
                }
                got
            }
        };
        self.total = self.total.saturating_add(n);
        if self.total > MAX_TOTAL {
            self.too_large = true;
            return Err(io::Error::other("response too large"));
        }
        Ok(n)
    }
}

fn line_io(e: LineError) -> io::Error {
    match e {
        LineError::TooLong => io::Error::new(io::ErrorKind::InvalidData, "line too long"),
        LineError::Io(e) => e,
    }
}

struct Response {
    status: u16,
    reason: String,
    headers: Vec<(String, String)>,
    body: Body,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Headers the probe sets itself; declared headers of these names are not sent.
const OWN_HEADERS: &[&str] = &[
    "host",
    "accept",
    "content-type",
    "content-length",
    "connection",
    "transfer-encoding",
    "mcp-session-id",
    "mcp-protocol-version",
];

struct HttpConn {
    url: Url,
    headers: Headers,
    session: Option<String>,
    protocol: Option<String>,
    next_id: i64,
    answered: usize,
    timeout: Duration,
}

fn run_http(
    url: String,
    headers: Headers,
    deadline: Instant,
    timeout: Duration,
) -> Result<Discovery, Failure> {
    let url = parse_url(&url)?;
    let mut conn = HttpConn {
        url,
        headers,
        session: None,
        protocol: None,
        next_id: 0,
        answered: 0,
        timeout,
    };
    let r = converse(&mut conn, deadline);
    conn.close(deadline);
    r
}

impl HttpConn {
    fn io_failure(&self, e: &io::Error, what: &str) -> Failure {
        if matches!(
            e.kind(),
            io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
        ) {
            fail(
                "timeout",
                format!(
                    "no answer to {what} within the {} timeout",
                    secs(self.timeout)
                ),
            )
        } else {
            fail("io-error", format!("{what}: {e}"))
        }
    }

    fn connect(&self, deadline: Instant) -> Result<TcpStream, Failure> {
        let addrs = (self.url.host.as_str(), self.url.port)
            .to_socket_addrs()
            .map_err(|e| {
                fail(
                    "connect-failed",
                    format!("cannot resolve `{}`: {e}", self.url.host),
                )
            })?;
        let mut last = None;
        for a in addrs {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(fail(
                    "timeout",
                    format!(
                        "could not connect within the {} timeout",
                        secs(self.timeout)
                    ),
                ));
            }
            match TcpStream::connect_timeout(&a, left) {
                Ok(s) => return Ok(s),
                Err(e) => last = Some(e),
            }
        }
        Err(fail(
            "connect-failed",
            match last {
                Some(e) if e.kind() == io::ErrorKind::TimedOut => format!(
                    "could not connect to {}:{} within the {} timeout",
                    self.url.host,
                    self.url.port,
                    secs(self.timeout)
                ),
                Some(e) => format!("cannot connect to {}:{}: {e}", self.url.host, self.url.port),
                None => format!("`{}` resolves to no address", self.url.host),
            },
        ))
    }

    /// Send one HTTP request and read the status line and headers.
    fn exchange(
        &self,
        method: &str,
        body: Option<&[u8]>,
        deadline: Instant,
        what: &str,
    ) -> Result<Response, Failure> {
        let s = self.connect(deadline)?;
        let mut req = String::new();
        let _ = write!(
            req,
            "{method} {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: mcpconf/{}\r\n\
             Accept: application/json, text/event-stream\r\nConnection: close\r\n",
            self.url.target,
            self.url.authority,
            env!("CARGO_PKG_VERSION")
        );
        if let Some(b) = body {
            let _ = write!(
                req,
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                b.len()
            );
        }
        if let Some(sid) = &self.session {
            let _ = write!(req, "Mcp-Session-Id: {sid}\r\n");
        }
        if let Some(v) = &self.protocol {
            let _ = write!(req, "MCP-Protocol-Version: {v}\r\n");
        }
        for (k, v) in &self.headers {
            if !OWN_HEADERS.iter().any(|o| k.eq_ignore_ascii_case(o)) {
                let _ = write!(req, "{k}: {v}\r\n");
            }
        }
        req.push_str("\r\n");
        let mut bytes = req.into_bytes();
        if let Some(b) = body {
            bytes.extend_from_slice(b);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(self.io_failure(&timed_out(), what));
        }
        let mut s2 = s;
        s2.set_write_timeout(Some(left))
            .and_then(|_| s2.write_all(&bytes))
            .and_then(|_| s2.flush())
            .map_err(|e| self.io_failure(&e, &format!("sending {what}")))?;
        let mut r = BufReader::new(DeadlineStream { s: s2, deadline });
        let bad = |m: &str| {
            fail(
                "protocol-error",
                format!("{m} in the HTTP response to {what}"),
            )
        };
        loop {
            let status_line = match read_line_capped(&mut r, 8192) {
                Ok(Some(l)) => l,
                Ok(None) => {
                    return Err(fail(
                        "protocol-error",
                        format!("the server closed the connection without answering {what}"),
                    ));
                }
                Err(LineError::TooLong) => return Err(bad("an overlong status line")),
                Err(LineError::Io(e)) => return Err(self.io_failure(&e, what)),
            };
            let text = String::from_utf8_lossy(&status_line).trim_end().to_string();
            let mut parts = text.splitn(3, ' ');
            let proto = parts.next().unwrap_or("");
            let status = parts.next().and_then(|c| c.parse::<u16>().ok());
            let reason = parts.next().unwrap_or("").to_string();
            let Some(status) = status.filter(|_| proto.starts_with("HTTP/1.")) else {
                return Err(fail(
                    "protocol-error",
                    format!(
                        "the answer to {what} is not HTTP/1.x: `{}`",
                        snippet(&status_line, 80)
                    ),
                ));
            };
            let mut headers = Vec::new();
            loop {
                let line = match read_line_capped(&mut r, 16 * 1024) {
                    Ok(Some(l)) => l,
                    Ok(None) => return Err(bad("truncated headers")),
                    Err(LineError::TooLong) => return Err(bad("an overlong header")),
                    Err(LineError::Io(e)) => return Err(self.io_failure(&e, what)),
                };
                let line = line.trim_ascii_end();
                if line.is_empty() {
                    break;
                }
                if headers.len() >= 200 {
                    return Err(bad("too many headers"));
                }
                let l = String::from_utf8_lossy(line);
                if let Some((k, v)) = l.split_once(':') {
                    headers.push((k.trim().to_string(), v.trim().to_string()));
                }
            }
            if (100..200).contains(&status) {
                continue; // 100 Continue and friends: the real answer follows.
            }
            let get = |n: &str| {
                headers
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(n))
                    .map(|(_, v)| v.clone())
            };
            let framing = if status == 204 || status == 304 || method == "HEAD" {
                Framing::Length(0)
            } else if get("transfer-encoding")
                .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"))
            {
                Framing::Chunked {
                    left: 0,
                    need_crlf: false,
                    done: false,
                }
            } else if let Some(len) = get("content-length") {
                let n = len
                    .trim()
                    .parse::<usize>()
                    .map_err(|_| bad("a bad Content-Length"))?;
                if n > MAX_TOTAL {
                    return Err(fail(
                        "output-too-large",
                        format!(
                            "the response to {what} is larger than {} MiB",
                            MAX_TOTAL >> 20
                        ),
                    ));
                }
                Framing::Length(n)
            } else {
                Framing::UntilClose
            };
            return Ok(Response {
                status,
                reason,
                headers,
                body: Body {
                    r,
                    framing,
                    total: 0,
                    too_large: false,
                },
            });
        }
    }

    /// A failure for a non-2xx response, with the server's JSON-RPC message or first line.
    fn status_failure(&self, mut resp: Response, what: &str) -> Failure {
        let mut buf = Vec::new();
        let _ = (&mut resp.body).take(4096).read_to_end(&mut buf);
        let detail = serde_json::from_slice::<Value>(&buf)
            .ok()
            .and_then(|v| {
                v.pointer("/error/message")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .unwrap_or_else(|| {
                let first = buf.split(|&b| b == b'\n').next().unwrap_or(&[]);
                snippet(first, 200)
            });
        let mut msg = format!(
            "HTTP {} {} in answer to {what}",
            resp.status,
            resp.reason.trim()
        );
        if !detail.is_empty() {
            let _ = write!(msg, ": {detail}");
        }
        if self.session.is_some() && resp.status == 404 {
            msg.push_str(" (the server no longer knows the session)");
        } else if self.session.is_none() && matches!(resp.status, 404 | 405) {
            msg.push_str(
                "; if this is a legacy HTTP+SSE server, declare `transport = \"sse\"` (not probed)",
            );
        }
        fail("http-error", msg)
    }

    fn body_failure(&self, body: &Body, e: &io::Error, what: &str) -> Failure {
        if body.too_large {
            fail(
                "output-too-large",
                format!(
                    "the response to {what} is larger than {} MiB",
                    MAX_TOTAL >> 20
                ),
            )
        } else {
            self.io_failure(e, &format!("reading the response to {what}"))
        }
    }

    /// POST one message; for a request, return the matching response.
    fn post(
        &mut self,
        msg: &Value,
        want: Option<&Value>,
        method: &str,
        deadline: Instant,
    ) -> Result<Option<Value>, Failure> {
        let what = format!("`{method}`");
        let body = msg.to_string();
        let mut resp = self.exchange("POST", Some(body.as_bytes()), deadline, &what)?;
        if !(200..300).contains(&resp.status) {
            return Err(self.status_failure(resp, &what));
        }
        if method == "initialize"
            && let Some(sid) = resp.header("mcp-session-id")
        {
            if sid.is_empty() || !sid.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
                return Err(fail(
                    "protocol-error",
                    "the server sent an invalid Mcp-Session-Id",
                ));
            }
            self.session = Some(sid.to_string());
        }
        let Some(want) = want else {
            return Ok(None);
        };
        if resp.status == 202 || resp.status == 204 {
            return Err(fail(
                "protocol-error",
                format!(
                    "the server accepted {what} (HTTP {}) but sent no answer",
                    resp.status
                ),
            ));
        }
        let ctype = resp
            .header("content-type")
            .unwrap_or("")
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        match ctype.as_str() {
            "application/json" => {
                let mut buf = Vec::new();
                if let Err(e) = resp.body.read_to_end(&mut buf) {
                    return Err(self.body_failure(&resp.body, &e, &what));
                }
                let v: Value = serde_json::from_slice(&buf).map_err(|_| {
                    fail(
                        "invalid-output",
                        format!("the answer to {what} is not JSON: `{}`", snippet(&buf, 120)),
                    )
                })?;
                let items: Vec<&Value> = match &v {
                    Value::Array(a) => a.iter().collect(),
                    v => vec![v],
                };
                for m in items {
                    if let Incoming::Response(id) = classify(m)
                        && id == want
                    {
                        return take_result(m, method).map(Some);
                    }
                }
                Err(fail(
                    "protocol-error",
                    format!("the JSON answer to {what} holds no response with its id"),
                ))
            }
            "text/event-stream" => self.read_events(resp, want, method, deadline),
            other => Err(fail(
                "protocol-error",
                format!(
                    "the answer to {what} has Content-Type `{}`, neither application/json nor text/event-stream",
                    snippet(other.as_bytes(), 60)
                ),
            )),
        }
    }

    fn read_events(
        &mut self,
        resp: Response,
        want: &Value,
        method: &str,
        deadline: Instant,
    ) -> Result<Option<Value>, Failure> {
        let what = format!("`{method}`");
        let mut r = BufReader::new(resp.body);
        let mut data: Vec<u8> = Vec::new();
        let mut has_data = false;
        loop {
            let line = match read_line_capped(&mut r, MAX_LINE) {
                Ok(Some(l)) => l,
                Ok(None) => {
                    return Err(fail(
                        "protocol-error",
                        format!("the event stream ended without an answer to {what}"),
                    ));
                }
                Err(LineError::TooLong) => {
                    return Err(fail(
                        "output-too-large",
                        format!(
                            "an event in the answer to {what} is longer than {} MiB",
                            MAX_LINE >> 20
                        ),
                    ));
                }
                Err(LineError::Io(e)) => return Err(self.body_failure(r.get_ref(), &e, &what)),
            };
            let line = line.strip_suffix(b"\r").unwrap_or(&line);
            if line.is_empty() {
                // Dispatch the event.
                if has_data && !data.trim_ascii().is_empty() {
                    let v: Value = serde_json::from_slice(&data).map_err(|_| {
                        fail(
                            "invalid-output",
                            format!(
                                "an event in the answer to {what} is not JSON: `{}`",
                                snippet(&data, 120)
                            ),
                        )
                    })?;
                    let items: Vec<Value> = match v {
                        Value::Array(a) => a,
                        v => vec![v],
                    };
                    for m in &items {
                        match classify(m) {
                            Incoming::Response(id) if id == want => {
                                return take_result(m, method).map(Some);
                            }
                            Incoming::Request { id, method: sm }
                                if self.answered < MAX_SERVER_REQUESTS =>
                            {
                                self.answered += 1;
                                let answer = answer_server_request(id, sm);
                                self.post(&answer, None, sm, deadline)?;
                            }
                            _ => {}
                        }
                    }
                }
                data.clear();
                has_data = false;
                continue;
            }
            if line.starts_with(b":") {
                continue;
            }
            let (field, value) = match line.iter().position(|&b| b == b':') {
                Some(i) => {
                    let v = &line[i + 1..];
                    (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
                }
                None => (line, &[][..]),
            };
            if field == b"data" {
                if has_data {
                    data.push(b'\n');
                }
                if data.len() + value.len() > MAX_LINE {
                    return Err(fail(
                        "output-too-large",
                        format!(
                            "an event in the answer to {what} is longer than {} MiB",
                            MAX_LINE >> 20
                        ),
                    ));
                }
                data.extend_from_slice(value);
                has_data = true;
            }
        }
    }

    /// Politely end the session (best effort, bounded by the deadline and one second).
    fn close(&mut self, deadline: Instant) {
        if self.session.is_none() {
            return;
        }
        let d = deadline.min(Instant::now() + Duration::from_secs(1));
        if let Ok(mut resp) = self.exchange("DELETE", None, d, "the session's end") {
            let _ = (&mut resp.body).take(4096).read_to_end(&mut Vec::new());
        }
    }
}

impl Rpc for HttpConn {
    fn request(
        &mut self,
        method: &str,
        params: Value,
        deadline: Instant,
    ) -> Result<Value, Failure> {
        self.next_id += 1;
        let id = json!(self.next_id);
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        match self.post(&msg, Some(&id), method, deadline)? {
            Some(v) => Ok(v),
            None => Err(fail("protocol-error", format!("no answer to `{method}`"))),
        }
    }

    fn notify(&mut self, method: &str, deadline: Instant) -> Result<(), Failure> {
        self.post(
            &json!({"jsonrpc": "2.0", "method": method}),
            None,
            method,
            deadline,
        )
        .map(|_| ())
    }

    fn negotiated(&mut self, version: &str) {
        if !version.is_empty() && version.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
            self.protocol = Some(version.to_string());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Rendering (strings only; the command layer prints).

/// `{"servers":[…]}` (contract §8), with `pins_diff` when pins were asked for.
pub fn report_json(outcomes: &[Outcome], pins_diff: Option<&str>, red: &Redactor) -> String {
    #[derive(Serialize)]
    struct Doc<'a> {
        format_version: u32,
        servers: &'a [Outcome],
        #[serde(skip_serializing_if = "Option::is_none")]
        pins_diff: Option<&'a str>,
    }
    let mut s = serde_json::to_string_pretty(&Doc {
        format_version: 1,
        servers: outcomes,
        pins_diff,
    })
    .unwrap_or_default();
    s.push('\n');
    red.redact(&s)
}

/// A table of the outcomes, then the details of each failure and pin mismatch.
pub fn report_text(outcomes: &[Outcome], red: &Redactor) -> String {
    let mut rows = vec![[
        "SERVER".to_string(),
        "RESULT".to_string(),
        "PROTOCOL".to_string(),
        "IMPLEMENTATION".to_string(),
        "TOOLS".to_string(),
        "UNPINNED".to_string(),
        "MISSING".to_string(),
    ]];
    for o in outcomes {
        let pin_col = |v: &Vec<String>| {
            if !o.ok {
                "-".to_string()
            } else if !o.pinned {
                "no pin".to_string()
            } else {
                v.len().to_string()
            }
        };
        rows.push([
            o.name.clone(),
            if o.ok {
                "ok".into()
            } else {
                format!("FAIL ({})", o.code.unwrap_or("error"))
            },
            o.protocol_version.clone().unwrap_or_else(|| "-".into()),
            o.server
                .as_ref()
                .map(|s| format!("{} {}", s.name, s.version).trim().to_string())
                .unwrap_or_else(|| "-".into()),
            if o.ok {
                o.tools.len().to_string()
            } else {
                "-".into()
            },
            pin_col(&o.unpinned),
            pin_col(&o.missing),
        ]);
    }
    let mut widths = [0usize; 7];
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    for r in &rows {
        let mut line = String::new();
        for (i, (c, w)) in r.iter().zip(widths).enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            let _ = write!(line, "{c:<w$}");
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    for o in outcomes {
        if let Some(e) = &o.error {
            let _ = writeln!(out, "\n{}: {e}", o.name);
            if let Some(tail) = &o.stderr {
                let _ = writeln!(out, "  stderr (last lines):");
                let lines: Vec<&str> = tail.lines().collect();
                for l in &lines[lines.len().saturating_sub(20)..] {
                    let _ = writeln!(out, "  | {l}");
                }
            }
            continue;
        }
        if !o.unpinned.is_empty() {
            let _ = writeln!(
                out,
                "\n{}: {} tool{} exposed outside the pin: {}",
                o.name,
                o.unpinned.len(),
                if o.unpinned.len() == 1 { "" } else { "s" },
                o.unpinned.join(", ")
            );
        }
        if !o.missing.is_empty() {
            let _ = writeln!(
                out,
                "\n{}: {} pinned tool{} the server does not have: {}",
                o.name,
                o.missing.len(),
                if o.missing.len() == 1 { "" } else { "s" },
                o.missing.join(", ")
            );
        }
    }
    let failed = outcomes.iter().filter(|o| !o.ok).count();
    let wide = outcomes
        .iter()
        .filter(|o| o.ok && !o.unpinned.is_empty())
        .count();
    let _ = writeln!(
        out,
        "\n{} server{} probed: {} ok, {} failed, {} with unpinned tools",
        outcomes.len(),
        if outcomes.len() == 1 { "" } else { "s" },
        outcomes.len() - failed,
        failed,
        wide
    );
    red.redact(&out)
}

/// The manifest with `tools = [...]` set to what each reachable server exposes, as a unified
/// diff (empty when every pin already matches). The manifest is never written.
pub fn pins_diff(
    manifest_text: &str,
    manifest_path: &Path,
    outcomes: &[Outcome],
) -> Result<String, String> {
    let mut doc: toml_edit::DocumentMut = manifest_text
        .parse()
        .map_err(|e: toml_edit::TomlError| format!("the manifest does not parse: {e}"))?;
    let Some(servers) = doc
        .get_mut("servers")
        .and_then(toml_edit::Item::as_table_like_mut)
    else {
        return Err("the manifest has no `servers` table".into());
    };
    let mut changed = false;
    for o in outcomes.iter().filter(|o| o.ok) {
        let Some(table) = servers
            .get_mut(&o.name)
            .and_then(toml_edit::Item::as_table_like_mut)
        else {
            continue;
        };
        let current: Option<BTreeSet<String>> = table.get("tools").and_then(|i| {
            i.as_array().map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
        });
        let found: BTreeSet<String> = o.tools.iter().cloned().collect();
        if current.as_ref() == Some(&found) {
            continue;
        }
        let mut arr = toml_edit::Array::new();
        for t in &o.tools {
            arr.push(t.as_str());
        }
        if o.tools.len() > 3 {
            for v in arr.iter_mut() {
                v.decor_mut().set_prefix("\n    ");
                v.decor_mut().set_suffix("");
            }
            arr.set_trailing("\n");
            arr.set_trailing_comma(true);
        }
        let mut value = toml_edit::Value::Array(arr);
        match table.get_mut("tools") {
            Some(item) => {
                if let Some(old) = item.as_value() {
                    *value.decor_mut() = old.decor().clone();
                }
                *item = toml_edit::Item::Value(value);
            }
            None => {
                value.decor_mut().set_prefix(" ");
                table.insert("tools", toml_edit::Item::Value(value));
            }
        }
        changed = true;
    }
    if !changed {
        return Ok(String::new());
    }
    let new = doc.to_string();
    crate::manifest::parse(&new)
        .map_err(|e| format!("the proposed manifest would not be valid ({e}); not shown"))?;
    let path = manifest_path.display().to_string();
    Ok(similar::TextDiff::from_lines(manifest_text, &new)
        .unified_diff()
        .context_radius(3)
        .header(&path, &path)
        .to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let u = parse_url("http://127.0.0.1:8848/mcp?x=1#frag").unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.target.as_str()),
            ("127.0.0.1", 8848, "/mcp?x=1")
        );
        let u = parse_url("http://[::1]:9/").unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.authority.as_str()),
            ("::1", 9, "[::1]:9")
        );
        let u = parse_url("HTTP://localhost").unwrap();
        assert_eq!((u.port, u.target.as_str()), (80, "/"));
        assert_eq!(
            parse_url("https://x/").err().map(|f| f.code),
            Some("unsupported")
        );
        for bad in [
            "ftp://x",
            "http://",
            "http://u:p@h/",
            "http://h:99999/",
            "http://h/a b",
        ] {
            assert_eq!(
                parse_url(bad).err().map(|f| f.code),
                Some("invalid-config"),
                "{bad}"
            );
        }
    }

    #[test]
    fn capped_lines() {
        let mut r = io::Cursor::new(b"ab\ncdef\n\nxyz".to_vec());
        assert_eq!(read_line_capped(&mut r, 3).unwrap(), Some(b"ab".to_vec()));
        assert!(matches!(
            read_line_capped(&mut r, 3),
            Err(LineError::TooLong)
        ));
        let mut r = BufReader::with_capacity(2, io::Cursor::new(b"abcdef\nx".to_vec()));
        assert_eq!(
            read_line_capped(&mut r, 6).unwrap(),
            Some(b"abcdef".to_vec())
        );
        assert_eq!(read_line_capped(&mut r, 6).unwrap(), Some(b"x".to_vec()));
        assert_eq!(read_line_capped(&mut r, 6).unwrap(), None);
    }

    #[test]
    fn classify_messages() {
        assert!(matches!(
            classify(&json!({"jsonrpc":"2.0","id":1,"result":{}})),
            Incoming::Response(_)
        ));
        assert!(matches!(
            classify(&json!({"jsonrpc":"2.0","id":"a","method":"ping"})),
            Incoming::Request { method: "ping", .. }
        ));
        assert!(matches!(
            classify(&json!({"jsonrpc":"2.0","method":"notifications/x"})),
            Incoming::Other
        ));
        let a = answer_server_request(&json!(7), "ping");
        assert_eq!(a, json!({"jsonrpc":"2.0","id":7,"result":{}}));
        let a = answer_server_request(&json!(8), "roots/list");
        assert_eq!(a["error"]["code"], -32601);
    }

    #[test]
    fn unset_variable_names_the_field_and_no_value() {
        let t = Template::parse("Bearer ${MCPCONF_PROBE_UNSET_X}").unwrap();
        let mut red = Redactor::default();
        let lookup = |_: &str| None;
        let e = resolve(&t, "headers.Authorization", &lookup, &mut red).unwrap_err();
        assert_eq!(e.code, "unset-variable");
        assert!(
            e.message
                .contains("`${MCPCONF_PROBE_UNSET_X}` (in `headers.Authorization`)")
        );
        let lookup = |v: &str| (v == "MCPCONF_PROBE_UNSET_X").then(|| "s3cr3t-value".to_string());
        assert_eq!(
            resolve(&t, "h", &lookup, &mut red).unwrap(),
            "Bearer s3cr3t-value"
        );
        assert_eq!(red.redact("x s3cr3t-value y"), "x <redacted> y");
    }

    #[test]
    fn chunked_bodies_are_decoded() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let t = std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            s.write_all(b"4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\nX-T: 1\r\n\r\n")
                .unwrap();
        });
        let s = TcpStream::connect(addr).unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut body = Body {
            r: BufReader::new(DeadlineStream { s, deadline }),
            framing: Framing::Chunked {
                left: 0,
                need_crlf: false,
                done: false,
            },
            total: 0,
            too_large: false,
        };
        let mut out = String::new();
        body.read_to_string(&mut out).unwrap();
        assert_eq!(out, "Wikipedia");
        t.join().unwrap();
    }
}
