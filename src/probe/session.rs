//! The MCP conversation, over any transport: `initialize`, `notifications/initialized`,
//! `tools/list` to the last page; JSON-RPC message classification and bounded line reading.

use std::collections::HashSet;
use std::io::{self, BufRead};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::FailureCode;
use super::scrub::Secrets;
use super::{Discovery, Failure, MAX_PAGES, PROTOCOL_VERSION, ServerInfo, fail};

/// One JSON-RPC peer.
pub(super) trait Rpc {
    /// Send a request and return its `result` (a JSON-RPC error is a failure).
    fn request(&mut self, method: &str, params: Value, deadline: Instant)
    -> Result<Value, Failure>;
    /// Send a notification.
    fn notify(&mut self, method: &str, deadline: Instant) -> Result<(), Failure>;
    /// The version the server answered in `initialize`.
    fn negotiated(&mut self, _version: &str) {}
}

pub(super) fn converse(c: &mut dyn Rpc, deadline: Instant) -> Result<Discovery, Failure> {
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
                FailureCode::Protocol,
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
                FailureCode::Protocol,
                format!("page {page} of `tools/list` has no `tools` array"),
            )
        })?;
        for t in list {
            let name = t.get("name").and_then(Value::as_str).ok_or_else(|| {
                fail(
                    FailureCode::Protocol,
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
    Ok(d)
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
        return Err(fail(
            FailureCode::JsonrpcError,
            format!(
                "the server answered `{method}` with JSON-RPC error {code}: {}",
                secrets.snippet(text.as_bytes(), 300)
            ),
        ));
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
