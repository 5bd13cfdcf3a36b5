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

mod auth;
mod budget;
mod code;
pub mod fetch;
mod http;
mod jcs;
mod proxy;
mod reap;
mod report;
mod resolve;
mod scrub;
mod session;
mod sse;
mod stdio;
mod tls;
mod tokens;
mod url;

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::manifest::{RemoteKind, Server, Transport};

pub use auth::AuthInfo;
pub use code::FailureCode;
pub use proxy::Proxies;
pub use reap::{kill_running, kill_servers_on_signal};
pub use report::{context_total, pins_diff, report_json, report_text};
pub use scrub::printable;
pub use session::MODERN_VERSION;
pub use tokens::{TOKENIZER, count_tokens, counted_text};

use http::{Ctx, run_http};
use resolve::{resolve_remote, resolve_stdio, unset_references};
use scrub::Secrets;
use session::Talk;
use sse::run_sse;
use stdio::run_stdio;
use tls::Tls;

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
    /// A PEM file of CA certificates trusted for `https://` servers, on top of the system's
    /// roots and `SSL_CERT_FILE` / `SSL_CERT_DIR` (`--cacert`).
    pub cacert: Option<PathBuf>,
    /// Also run the smoke checks (`--smoke`): an unknown method and an unknown tool.
    pub smoke: bool,
    /// The proxies remote servers are reached through (`--proxy`, `HTTPS_PROXY`, …;
    /// [`Proxies::default`]: none).
    pub proxy: Proxies,
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
    /// Whether the conversation and `tools/list` succeeded (and, when asked for, the smoke
    /// checks and the version floor).
    pub ok: bool,
    /// `stdio`, `http` or `sse`.
    pub transport: &'static str,
    /// The protocol version spoken: `2026-07-28` (stateless), or what the server answered to
    /// `initialize`.
    pub protocol_version: Option<String>,
    /// The server's name and version.
    pub server: Option<ServerInfo>,
    /// Tool names, in the server's order, duplicates dropped.
    pub tools: Vec<String>,
    /// Tools the server exposes that the pin does not list (empty without a pin).
    pub unpinned: Vec<String>,
    /// Pinned tools the server does not expose (empty without a pin).
    pub missing: Vec<String>,
    /// Tools whose definition no longer matches their `tool_digests` pin (server order).
    pub changed: Vec<String>,
    /// The digest of each tool (`sha256:` of its RFC 8785 canonical JSON), by name.
    pub tool_digests: BTreeMap<String, String>,
    /// Whether the manifest pins this server's tools (`tools` or `tool_digests`).
    pub pinned: bool,
    /// What the tool definitions that reach the agent cost its context, in `o200k_base`
    /// tokens: every listed tool, or, with a pin, the pinned ones (see `docs/probe.md`,
    /// *Context cost*). `None` when the tools could not be listed.
    pub context_tokens: Option<u64>,
    /// What every listed tool's definition costs, pinned or not (a client that cannot
    /// express the pin gives the agent all of them).
    pub context_tokens_all: Option<u64>,
    /// What each tool's definition costs, by name.
    pub context_by_tool: BTreeMap<String, u64>,
    /// Why the probe failed (redacted).
    pub error: Option<String>,
    /// Why it failed, as a stable id (`timeout`, `exited`, `invalid-output`, …).
    pub code: Option<FailureCode>,
    /// For `needs-auth`: where to log in (the protected-resource metadata's authorization
    /// servers) and the scopes asked for.
    #[serde(rename = "login", skip_serializing_if = "Option::is_none")]
    pub auth: Option<AuthInfo>,
    /// The last bytes the server wrote to stderr (stdio servers; redacted).
    pub stderr: Option<String>,
    /// How long the probe took, in milliseconds.
    pub elapsed_ms: u64,
    /// The `--smoke` checks: `passed`, `failed`, or absent when they were not asked for (or
    /// the server failed before them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub smoke: Option<&'static str>,
}

impl Outcome {
    /// Reachable, exposes exactly its pin (nothing outside it, every pinned tool there: a
    /// missing tool is a job the agent cannot do), and no pinned tool changed.
    pub fn passes(&self) -> bool {
        self.ok && self.unpinned.is_empty() && self.missing.is_empty() && self.changed.is_empty()
    }
}

/// Why a probe failed: a stable code and one sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Failure {
    code: FailureCode,
    message: String,
    /// For `needs-auth`.
    auth: Option<Box<AuthInfo>>,
    /// For `jsonrpc-error`: the JSON-RPC error code, and the versions a -32022 error's data
    /// says the server supports.
    rpc: Option<(i64, Vec<String>)>,
    /// For `http-error`: the status.
    http_status: Option<u16>,
    /// The server exited on `server/discover`: try again with the handshake only.
    retry_handshake: bool,
}

fn fail(code: FailureCode, message: impl Into<String>) -> Failure {
    Failure {
        code,
        message: message.into(),
        auth: None,
        rpc: None,
        http_status: None,
        retry_handshake: false,
    }
}

/// What the conversation found.
#[derive(Debug, Default)]
struct Discovery {
    protocol_version: String,
    server: Option<ServerInfo>,
    /// Tool names, in the server's order, duplicates dropped.
    tools: Vec<String>,
    /// The digest of each tool in `tools` (its first listing), see [`jcs::digest`].
    digests: Vec<String>,
    /// What each tool in `tools` costs an agent's context, see [`tokens`].
    tokens: Vec<usize>,
    /// A smoke check the server failed (`--smoke`).
    smoke: Option<Failure>,
}

/// Probe every server, at most `opts.parallel` at once; results in the order given.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use std::time::Duration;
/// use mcpconf::probe::{self, FailureCode, Options};
///
/// let manifest = mcpconf::manifest::parse(
///     "owner = \"o\"\n\
///      [servers.gone]\ncommand = \"/nonexistent/mcpconf-doc-server\"\n\
///      [servers.unset]\ncommand = \"x\"\nenv = { T = \"${MCPCONF_DOC_UNSET_VARIABLE}\" }\n\
///      [[targets]]\nclient = \"cursor\"\n",
///     &mcpconf::known::Known,
/// )?;
/// let opts = Options {
///     timeout: Duration::from_secs(30),
///     parallel: 4,
///     base_dir: std::env::temp_dir(),
///     cacert: None,
///     smoke: false,
///     proxy: probe::Proxies::default(),
/// };
/// let servers: Vec<_> = manifest.servers.iter().collect();
/// let lookup = |name: &str| std::env::var(name).ok();
/// let outcomes = probe::probe_all(&servers, &opts, &lookup);
/// assert_eq!(outcomes[0].code, Some(FailureCode::SpawnFailed));
/// assert_eq!(outcomes[1].code, Some(FailureCode::NeedsConfig));
/// assert!(outcomes.iter().all(|o| !o.passes()));
/// # Ok(())
/// # }
/// ```
pub fn probe_all(servers: &[&Server], opts: &Options, lookup: Lookup<'_>) -> Vec<Outcome> {
    let n = servers.len();
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Outcome>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let workers = opts.parallel.max(1).min(n);
    let tls = Tls::new(opts.cacert.clone());
    let run = run_secrets(servers, opts, lookup);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(server) = servers.get(i) else { break };
                    let o = probe_one(server, opts, lookup, &tls, &run);
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
                    code: Some(FailureCode::Internal),
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
        changed: Vec::new(),
        tool_digests: BTreeMap::new(),
        pinned: server.tools.is_some() || server.checks.tool_digests.is_some(),
        context_tokens: None,
        context_tokens_all: None,
        context_by_tool: BTreeMap::new(),
        error: None,
        code: None,
        auth: None,
        stderr: None,
        elapsed_ms: 0,
        smoke: None,
    }
}

/// Every secret the run knows: the values every server's references expand to, its env and
/// header values, the literal credentials in its arguments and URL. Each server's output is
/// scrubbed of all of them (server B may print the environment it inherited, in which server
/// A's token is).
fn run_secrets(servers: &[&Server], opts: &Options, lookup: Lookup<'_>) -> Secrets {
    let mut red = Secrets::default();
    for s in servers {
        match &s.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
                ..
            } => {
                let _ = resolve_stdio(command, args, env, cwd.as_ref(), lookup, &mut red, opts);
            }
            Transport::Remote { url, headers, .. } => {
                let _ = resolve_remote(url, headers, lookup, &mut red);
            }
        }
        // Values of references that a failing field kept from being reached.
        for t in templates(s) {
            for p in &t.parts {
                if let crate::template::Part::Var(v) = p
                    && let Some(val) = lookup(v)
                {
                    red.add(&val);
                }
            }
        }
    }
    red
}

/// Every template of a server's declaration.
fn templates(s: &Server) -> Vec<&crate::template::Template> {
    s.fields().into_iter().map(|(_, t)| t).collect()
}

/// Probe one server. Never takes much longer than `opts.timeout`, and every process it started
/// is gone when it returns. See [`probe_all`] for an example.
pub fn probe(server: &Server, opts: &Options, lookup: Lookup<'_>) -> Outcome {
    let run = run_secrets(&[server], opts, lookup);
    probe_one(server, opts, lookup, &Tls::new(opts.cacert.clone()), &run)
}

fn probe_one(
    server: &Server,
    opts: &Options,
    lookup: Lookup<'_>,
    tls: &Tls,
    run: &Secrets,
) -> Outcome {
    let start = Instant::now();
    let deadline = start + opts.timeout;
    let mut red = run.clone();
    let talk = Talk {
        handshake_only: false,
        smoke: opts.smoke,
    };
    let unset = unset_references(server, lookup);
    let (transport, result, stderr) = if !unset.is_empty() {
        let transport = match &server.transport {
            Transport::Stdio { .. } => "stdio",
            Transport::Remote {
                kind: RemoteKind::Sse,
                ..
            } => "sse",
            Transport::Remote { .. } => "http",
        };
        let mut vars: Vec<String> = Vec::new();
        let mut fields: Vec<String> = Vec::new();
        for (v, f) in &unset {
            if !vars.contains(v) {
                vars.push(v.clone());
            }
            if !fields.contains(f) {
                fields.push(f.clone());
            }
        }
        let list = |v: &[String]| {
            v.iter()
                .map(|x| format!("`{x}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let message = format!(
            "needs configuration: {} {} not set in the environment (used in {}); nothing was started",
            list(&vars),
            if vars.len() == 1 { "is" } else { "are" },
            list(&fields)
        );
        (
            transport,
            Err(fail(FailureCode::NeedsConfig, message)),
            None,
        )
    } else {
        match &server.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
                ..
            } => {
                let spec = resolve_stdio(command, args, env, cwd.as_ref(), lookup, &mut red, opts);
                let (r, tail) = match spec {
                    Ok(spec) => {
                        let (r, tail) = run_stdio(&spec, &red, deadline, opts.timeout, talk);
                        match r {
                            // A server that exits on `server/discover`: start it again and
                            // talk to it through the handshake only.
                            Err(f) if f.retry_handshake && Instant::now() < deadline => {
                                let talk = Talk {
                                    handshake_only: true,
                                    ..talk
                                };
                                run_stdio(&spec, &red, deadline, opts.timeout, talk)
                            }
                            r => (r, tail),
                        }
                    }
                    Err(f) => (Err(f), None),
                };
                ("stdio", r, tail)
            }
            Transport::Remote { url, headers, kind } => {
                let sse = matches!(kind, RemoteKind::Sse);
                let r =
                    resolve_remote(url, headers, lookup, &mut red).and_then(|(url, headers)| {
                        for c in opts.proxy.credentials() {
                            red.add(c);
                        }
                        let ctx = Ctx {
                            secrets: &red,
                            tls,
                            proxy: &opts.proxy,
                            timeout: opts.timeout,
                            talk,
                        };
                        if sse {
                            run_sse(url, headers, ctx, deadline)
                        } else {
                            run_http(url, headers, ctx, deadline)
                        }
                    });
                (if sse { "sse" } else { "http" }, r, None)
            }
        }
    };
    let mut out = empty_outcome(server, transport);
    // Already scrubbed, then cut (see `scrub`).
    out.stderr = stderr.filter(|s| !s.trim().is_empty());
    match result {
        Ok(d) => {
            out.ok = true;
            out.protocol_version = Some(d.protocol_version);
            out.server = d.server;
            compare_pins(server, &d.tools, &d.digests, &mut out);
            count_context(&d.tools, &d.tokens, &mut out);
            out.tools = d.tools;
            if opts.smoke {
                out.smoke = Some(if d.smoke.is_some() {
                    "failed"
                } else {
                    "passed"
                });
            }
            let failure = d
                .smoke
                .or_else(|| version_floor(server, out.server.as_ref()));
            if let Some(f) = failure {
                out.ok = false;
                out.error = Some(f.message);
                out.code = Some(f.code);
            }
        }
        Err(f) => {
            out.error = Some(f.message);
            out.code = Some(f.code);
            out.auth = f.auth.map(|a| AuthInfo {
                resource_metadata: a.resource_metadata,
                authorization_servers: a.authorization_servers,
                scopes: a.scopes,
            });
        }
    }
    red.scrub_outcome(&mut out);
    out.elapsed_ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
    out
}

/// `unpinned`, `missing` and `changed` against the server's `tools` and `tool_digests` pins,
/// and the digest of every tool.
fn compare_pins(server: &Server, tools: &[String], digests: &[String], out: &mut Outcome) {
    out.tool_digests = tools.iter().cloned().zip(digests.iter().cloned()).collect();
    let pinned_digests = server.checks.tool_digests.as_ref();
    let pin: Option<Vec<&str>> = match (&server.tools, pinned_digests) {
        (Some(p), _) => Some(p.iter().map(String::as_str).collect()),
        (None, Some(d)) => Some(d.keys().map(String::as_str).collect()),
        (None, None) => None,
    };
    if let Some(pin) = pin {
        let have: HashSet<&str> = tools.iter().map(String::as_str).collect();
        let want: HashSet<&str> = pin.iter().copied().collect();
        out.unpinned = tools
            .iter()
            .filter(|t| !want.contains(t.as_str()))
            .cloned()
            .collect();
        out.missing = pin
            .iter()
            .filter(|t| !have.contains(*t))
            .map(|t| (*t).to_string())
            .collect();
    }
    if let Some(pinned) = pinned_digests {
        out.changed = tools
            .iter()
            .zip(digests)
            .filter(|(t, d)| pinned.get(t.as_str()).is_some_and(|p| p != *d))
            .map(|(t, _)| t.clone())
            .collect();
        for t in pinned.keys() {
            if !tools.contains(t) && !out.missing.contains(t) {
                out.missing.push(t.clone());
            }
        }
    }
}

/// `context_by_tool`, `context_tokens_all`, and `context_tokens`: the tools an agent gets, which
/// with a pin are the listed tools outside `unpinned` (what [`compare_pins`] found).
fn count_context(tools: &[String], tokens: &[usize], out: &mut Outcome) {
    let as_u64 = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
    out.context_by_tool = tools
        .iter()
        .cloned()
        .zip(tokens.iter().map(|&n| as_u64(n)))
        .collect();
    let outside: HashSet<&str> = out.unpinned.iter().map(String::as_str).collect();
    let (mut all, mut reach) = (0u64, 0u64);
    for (t, &n) in tools.iter().zip(tokens) {
        all = all.saturating_add(as_u64(n));
        if !outside.contains(t.as_str()) {
            reach = reach.saturating_add(as_u64(n));
        }
    }
    out.context_tokens_all = Some(all);
    out.context_tokens = Some(reach);
}

/// The `version` failure when the server's version is below `min_version` or not comparable.
fn version_floor(server: &Server, info: Option<&ServerInfo>) -> Option<Failure> {
    use crate::text::semver::SemVer;
    let min = server.checks.min_version.as_deref()?;
    let floor = SemVer::parse(min)?;
    let version = info.map(|i| i.version.as_str()).unwrap_or("");
    if version.is_empty() {
        return Some(fail(
            FailureCode::Version,
            format!(
                "the server reports no version (`serverInfo.version`), so `min_version = \"{min}\"` cannot be checked"
            ),
        ));
    }
    match SemVer::parse(version) {
        None => Some(fail(
            FailureCode::Version,
            format!(
                "the server reports version `{version}`, which is not a semantic version; it is not compared with `min_version = \"{min}\"`"
            ),
        )),
        Some(v) if v < floor => Some(fail(
            FailureCode::Version,
            format!("the server's version {version} is lower than `min_version = \"{min}\"`"),
        )),
        Some(_) => None,
    }
}
