//! The MCP conversation, over any transport: the stateless 2026-07-28 revision first
//! (`server/discover`, then `tools/list` with the `_meta` envelope on every request), the
//! `initialize` handshake for servers that do not answer it; `tools/list` to the last page;
//! the `--smoke` checks; JSON-RPC message classification and bounded line reading.

use std::collections::HashSet;
use std::io::{self, BufRead};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::FailureCode;
use super::budget::MAX_TOOLS;
use super::jcs;
use super::scrub::Secrets;
use super::tokens;
use super::{Discovery, Failure, MAX_PAGES, PROTOCOL_VERSION, ServerInfo, fail};

/// The stateless revision the probe speaks first.
pub const MODERN_VERSION: &str = "2026-07-28";
/// The request `_meta` key of the protocol version (2026-07-28).
pub(super) const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// The result `_meta` key of the server's name and version (2026-07-28).
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";
/// JSON-RPC error: unsupported protocol version (its data names the supported ones).
const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
/// JSON-RPC error: method not found.
pub(super) const METHOD_NOT_FOUND: i64 = -32601;
/// The revisions reached through the `initialize` handshake.
const HANDSHAKE_VERSIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// Longest wait for an answer to `server/discover` before falling back (as the official
/// Python SDK's client does), and at most a third of the whole deadline.
const DISCOVER_WAIT: Duration = Duration::from_secs(10);
/// The method `--smoke` calls, which no server has.
pub(super) const SMOKE_METHOD: &str = "mcpconf/no-such-method";
/// The tool `--smoke` calls, which no server has.
const SMOKE_TOOL: &str = "mcpconf-no-such-tool";

/// One JSON-RPC peer.
pub(super) trait Rpc {
    /// Send a request and return its `result` (a JSON-RPC error is a failure).
    fn request(&mut self, method: &str, params: Value, deadline: Instant)
    -> Result<Value, Failure>;
    /// Send a notification.
    fn notify(&mut self, method: &str, deadline: Instant) -> Result<(), Failure>;
    /// The version the server answered in `initialize`.
    fn negotiated(&mut self, _version: &str) {}
    /// Whether the transport can carry the stateless revision (legacy SSE cannot).
    fn stateless(&self) -> bool {
        true
    }
}

/// How to talk.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Talk {
    /// Skip `server/discover`: the handshake only (a server that exited on it, respawned).
    pub(super) handshake_only: bool,
    /// Also run the smoke checks.
    pub(super) smoke: bool,
}

/// The `_meta` envelope every 2026-07-28 request carries.
fn envelope() -> Value {
    json!({
        PROTOCOL_VERSION_KEY: MODERN_VERSION,
        CLIENT_CAPABILITIES_KEY: {},
        CLIENT_INFO_KEY: {"name": "mcpconf", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// `params` with the envelope, in the stateless era.
fn params(modern: bool, mut p: Map<String, Value>) -> Value {
    if modern {
        p.insert("_meta".into(), envelope());
    }
    Value::Object(p)
}

fn server_info(v: Option<&Value>) -> Option<ServerInfo> {
    let si = v?;
    Some(ServerInfo {
        name: si.get("name")?.as_str()?.to_string(),
        version: si
            .get("version")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
    })
}

/// What `server/discover` said: `Some(result)` for a server of the stateless revision, `None`
/// for one to talk to through the handshake.
fn discover(c: &mut dyn Rpc, deadline: Instant) -> Result<Option<Value>, Failure> {
    let now = Instant::now();
    let wait = (deadline.saturating_duration_since(now) / 3).min(DISCOVER_WAIT);
    let params = params(true, Map::new());
    match c.request("server/discover", params, now + wait) {
        Ok(r) => {
            let modern = r
                .get("supportedVersions")
                .and_then(Value::as_array)
                .is_some_and(|a| a.iter().any(|v| v.as_str() == Some(MODERN_VERSION)));
            // A server that answers but offers no stateless revision is a handshake server.
            Ok(modern.then_some(r))
        }
        Err(f) => match (&f.code, &f.rpc, f.http_status) {
            (FailureCode::JsonrpcError, Some((UNSUPPORTED_PROTOCOL_VERSION, supported)), _)
                if !supported.is_empty()
                    && !supported
                        .iter()
                        .any(|v| HANDSHAKE_VERSIONS.contains(&v.as_str())) =>
            {
                Err(fail(
                    FailureCode::Protocol,
                    format!(
                        "the server speaks only protocol versions {}, none of which mcpconf speaks ({MODERN_VERSION}, or {PROTOCOL_VERSION} through `initialize`)",
                        supported.join(", ")
                    ),
                ))
            }
            // Any other JSON-RPC error, an HTTP 4xx (but 401) or no answer in time: a
            // handshake server (the official SDKs' clients fall back the same way).
            (FailureCode::JsonrpcError, _, _) => Ok(None),
            (FailureCode::HttpError, _, Some(400..=499)) => Ok(None),
            // Accepted without an answer: a server that took it for a notification.
            (FailureCode::Protocol, _, Some(202 | 204)) => Ok(None),
            (FailureCode::Timeout, _, _) if Instant::now() < deadline => Ok(None),
            (FailureCode::Exited, _, _) => Err(Failure {
                retry_handshake: true,
                ..f
            }),
            _ => Err(f),
        },
    }
}

pub(super) fn converse(
    c: &mut dyn Rpc,
    deadline: Instant,
    talk: Talk,
) -> Result<Discovery, Failure> {
    let mut found = if c.stateless() && !talk.handshake_only {
        discover(c, deadline)?
    } else {
        None
    };
    let mut d = Discovery::default();
    let caps = if let Some(r) = &found {
        d.protocol_version = MODERN_VERSION.into();
        d.server = server_info(r.pointer("/_meta").and_then(|m| m.get(SERVER_INFO_KEY)));
        r.get("capabilities").cloned()
    } else {
        match handshake(c, deadline, &mut d) {
            Ok(caps) => caps,
            // A server locked into the stateless revision by a late answer to the first
            // `server/discover` names it in -32022: ask once more.
            Err(f)
                if c.stateless()
                    && !talk.handshake_only
                    && f.rpc.as_ref().is_some_and(|(code, v)| {
                        *code == UNSUPPORTED_PROTOCOL_VERSION
                            && v.iter().any(|v| v == MODERN_VERSION)
                    }) =>
            {
                let r = discover(c, deadline)?.ok_or(f)?;
                d.protocol_version = MODERN_VERSION.into();
                d.server = server_info(r.pointer("/_meta").and_then(|m| m.get(SERVER_INFO_KEY)));
                let caps = r.get("capabilities").cloned();
                found = Some(r);
                caps
            }
            Err(f) => return Err(f),
        }
    };
    let modern = found.is_some();
    // A server that does not declare the tools capability has no tools to list.
    let has_tools = caps
        .as_ref()
        .and_then(Value::as_object)
        .is_none_or(|caps| caps.contains_key("tools"));
    if has_tools {
        list_tools(c, modern, deadline, &mut d)?;
    }
    if talk.smoke {
        d.smoke = smoke(c, modern, deadline, &d.tools).err();
    }
    Ok(d)
}

/// `initialize` and `notifications/initialized`; the server's capabilities.
fn handshake(
    c: &mut dyn Rpc,
    deadline: Instant,
    d: &mut Discovery,
) -> Result<Option<Value>, Failure> {
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
                FailureCode::Protocol,
                "the `initialize` result has no `protocolVersion` string",
            )
        })?
        .to_string();
    c.negotiated(&pv);
    d.protocol_version = pv;
    d.server = server_info(init.get("serverInfo"));
    c.notify("notifications/initialized", deadline)?;
    Ok(init.get("capabilities").cloned())
}

/// The parts of a tool object a digest covers (contract: the tool "as listed").
const DIGESTED: &[&str] = &[
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
];

/// `sha256:` of the RFC 8785 form of the tool's definition (see [`DIGESTED`]).
pub(super) fn tool_digest(tool: &Value) -> String {
    let mut m = Map::new();
    for k in DIGESTED {
        if let Some(v) = tool.get(*k) {
            m.insert((*k).to_string(), v.clone());
        }
    }
    jcs::digest(&Value::Object(m))
}

fn list_tools(
    c: &mut dyn Rpc,
    modern: bool,
    deadline: Instant,
    d: &mut Discovery,
) -> Result<(), Failure> {
    let mut seen_tools = HashSet::new();
    let mut seen_cursors = HashSet::new();
    let mut listed = 0usize;
    let mut cursor: Option<String> = None;
    for page in 1.. {
        if page > MAX_PAGES {
            return Err(fail(
                FailureCode::Protocol,
                format!("`tools/list` did not end after {MAX_PAGES} pages"),
            ));
        }
        let mut p = Map::new();
        if let Some(c) = &cursor {
            p.insert("cursor".into(), json!(c));
        }
        let r = c.request("tools/list", params(modern, p), deadline)?;
        if d.server.is_none() && modern {
            d.server = server_info(r.pointer("/_meta").and_then(|m| m.get(SERVER_INFO_KEY)));
        }
        let list = r.get("tools").and_then(Value::as_array).ok_or_else(|| {
            fail(
                FailureCode::Protocol,
                format!("page {page} of `tools/list` has no `tools` array"),
            )
        })?;
        listed = listed.saturating_add(list.len());
        if listed > MAX_TOOLS {
            return Err(fail(
                FailureCode::OutputTooLarge,
                format!(
                    "the server lists more than {MAX_TOOLS} tools (by page {page} of `tools/list`; the probe's memory budget)"
                ),
            ));
        }
        for t in list {
            let name = t.get("name").and_then(Value::as_str).ok_or_else(|| {
                fail(
                    FailureCode::Protocol,
                    format!("page {page} of `tools/list` has a tool without a `name` string"),
                )
            })?;
            if seen_tools.insert(name.to_string()) {
                d.tools.push(name.to_string());
                d.digests.push(tool_digest(t));
                d.tokens.push(tokens::tool_tokens(t));
            }
        }
        match r.get("nextCursor") {
            Some(Value::String(s)) if !s.is_empty() => {
                if !seen_cursors.insert(s.clone()) {
                    return Err(fail(
                        FailureCode::Protocol,
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
    Ok(())
}

/// `--smoke`: an unknown method must get JSON-RPC error -32601; a call of an unknown tool a
/// JSON-RPC error or a result with `isError: true`.
fn smoke(
    c: &mut dyn Rpc,
    modern: bool,
    deadline: Instant,
    tools: &[String],
) -> Result<(), Failure> {
    let failed = |m: String| fail(FailureCode::Smoke, m);
    match c.request(SMOKE_METHOD, params(modern, Map::new()), deadline) {
        Ok(_) => {
            return Err(failed(format!(
                "smoke check: the server answered the unknown method `{SMOKE_METHOD}` with a result; JSON-RPC error {METHOD_NOT_FOUND} (method not found) was expected"
            )));
        }
        Err(f) => match f.rpc {
            Some((METHOD_NOT_FOUND, _)) => {}
            Some((code, _)) => {
                return Err(failed(format!(
                    "smoke check: the server answered the unknown method `{SMOKE_METHOD}` with JSON-RPC error {code}, not {METHOD_NOT_FOUND} (method not found)"
                )));
            }
            None => {
                return Err(failed(format!(
                    "smoke check: no JSON-RPC error for the unknown method `{SMOKE_METHOD}`: {}",
                    f.message
                )));
            }
        },
    }
    let mut name = SMOKE_TOOL.to_string();
    while tools.contains(&name) {
        name.push('_');
    }
    let mut p = Map::new();
    p.insert("name".into(), json!(name));
    p.insert("arguments".into(), json!({}));
    match c.request("tools/call", params(modern, p), deadline) {
        Ok(r) if r.get("isError") == Some(&Value::Bool(true)) => Ok(()),
        Ok(_) => Err(failed(format!(
            "smoke check: the server answered a call of the unknown tool `{name}` with a result that is not an error (no `isError: true`)"
        ))),
        Err(f) if f.rpc.is_some() => Ok(()),
        Err(f) => Err(failed(format!(
            "smoke check: no error for a call of the unknown tool `{name}`: {}",
            f.message
        ))),
    }
}

/// What one incoming JSON-RPC message is.
pub(super) enum Incoming<'a> {
    /// A response (result or error) to the request with this id.
    Response(&'a Value),
    /// A request from the server (it expects an answer).
    Request { id: &'a Value, method: &'a str },
    /// A notification, or something we ignore.
    Other,
}

pub(super) fn classify(v: &Value) -> Incoming<'_> {
    match (v.get("id"), v.get("method").and_then(Value::as_str)) {
        (Some(id), Some(method)) if !id.is_null() => Incoming::Request { id, method },
        (Some(id), None) if v.get("result").is_some() || v.get("error").is_some() => {
            Incoming::Response(id)
        }
        _ => Incoming::Other,
    }
}

/// The answer the probe gives a server's request: `ping` succeeds, anything else is unknown.
pub(super) fn answer_server_request(id: &Value, method: &str) -> Value {
    if method == "ping" {
        json!({"jsonrpc": "2.0", "id": id, "result": {}})
    } else {
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "method not supported by mcpconf probe"}})
    }
}

/// The `result` of a response, or a failure naming the JSON-RPC error.
pub(super) fn take_result(msg: &Value, method: &str, secrets: &Secrets) -> Result<Value, Failure> {
    if let Some(e) = msg.get("error") {
        let code = e
            .get("code")
            .map(|c| c.to_string())
            .unwrap_or_else(|| "?".into());
        let text = e.get("message").and_then(Value::as_str).unwrap_or("");
        let supported = e
            .pointer("/data/supported")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .take(16)
                    .map(|v| secrets.snippet(v.as_bytes(), 40))
                    .collect()
            })
            .unwrap_or_default();
        return Err(Failure {
            rpc: e
                .get("code")
                .and_then(Value::as_i64)
                .map(|c| (c, supported)),
            ..fail(
                FailureCode::JsonrpcError,
                format!(
                    "the server answered `{method}` with JSON-RPC error {code}: {}",
                    secrets.snippet(text.as_bytes(), 300)
                ),
            )
        });
    }
    match msg.get("result") {
        Some(r) if r.is_object() => Ok(r.clone()),
        _ => Err(fail(
            FailureCode::Protocol,
            format!("the answer to `{method}` has no `result` object"),
        )),
    }
}

/// Printable, one-line, bounded excerpt of bytes from a server.
pub(super) fn snippet(bytes: &[u8], max: usize) -> String {
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

pub(super) fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}s")
    } else {
        format!("{s}s")
    }
}

/// Read one `\n`-terminated line (without the `\n`) of at most `cap` bytes.
pub(super) fn read_line_capped(
    r: &mut impl BufRead,
    cap: usize,
) -> Result<Option<Vec<u8>>, LineError> {
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
pub(super) enum LineError {
    TooLong,
    Io(io::Error),
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

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
}
