//! Streamable HTTP over `std::net::TcpStream` (with rustls for `https://`, see `tls`):
//! JSON-RPC POSTed to the URL, answered as `application/json` or a `text/event-stream`,
//! `Mcp-Session-Id` carried along. Also the small HTTP/1.1 client the legacy SSE transport and
//! the authorization discovery use.

use std::fmt::Write as _;
use std::io::{self, BufReader, Read, Write};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::FailureCode;
use super::auth::needs_auth;
use super::budget::Budget;
use super::proxy::{self, Proxies, ProxyUrl};
use super::resolve::Headers;
use super::scrub::Secrets;
use super::session::{
    Incoming, LineError, PROTOCOL_VERSION_KEY, Rpc, Talk, answer_server_request, classify,
    converse, read_line_capped, secs, take_result,
};
use super::sse::{EventError, next_event};
use super::tls::{Stream, Tls};
pub(super) use super::url::{Url, parse_url};
use super::{Discovery, Failure, MAX_LINE, MAX_SERVER_REQUESTS, MAX_TOTAL, fail};

/// A connection whose every read is bounded by one deadline.
struct DeadlineStream {
    s: Stream,
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
        self.s.tcp().set_read_timeout(Some(left))?;
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
pub(super) struct Body {
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
            // A TLS peer that closes without `close_notify` ends such a body too.
            Framing::UntilClose => match self.r.read(out) {
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => 0,
                r => r?,
            },
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

pub(super) struct Response {
    pub(super) status: u16,
    reason: String,
    headers: Vec<(String, String)>,
    pub(super) body: Body,
}

impl Response {
    /// Every value of a header, joined with `, ` (as HTTP allows).
    pub(super) fn header_all(&self, name: &str) -> String {
        self.headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    pub(super) fn header(&self, name: &str) -> Option<&str> {
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
    "proxy-authorization",
];

/// What every HTTP exchange of one probe shares.
#[derive(Clone, Copy)]
pub(super) struct Ctx<'a> {
    pub(super) secrets: &'a Secrets,
    pub(super) tls: &'a Tls,
    pub(super) proxy: &'a Proxies,
    pub(super) timeout: Duration,
    pub(super) talk: Talk,
}

/// A streamable HTTP session (and the request side of a legacy SSE one).
pub(super) struct HttpConn<'a> {
    /// Where requests are POSTed.
    pub(super) url: Url,
    /// The server's URL as declared: declared headers go to its origin only.
    origin: Url,
    headers: Headers,
    session: Option<String>,
    protocol: Option<String>,
    next_id: i64,
    answered: usize,
    timeout: Duration,
    secrets: &'a Secrets,
    tls: &'a Tls,
    proxy: &'a Proxies,
    /// A legacy SSE session (no hint to declare `transport = "sse"`).
    pub(super) legacy: bool,
    /// The parsed size of every answer, charged to this exchange.
    pub(super) budget: Budget,
    /// The 2026-07-28 routing headers of the request being sent: its protocol version, its
    /// method, and the name it is about (`Mcp-Name`, for `tools/call`).
    routing: Option<(String, String, Option<String>)>,
}

pub(super) fn run_http(
    url: String,
    headers: Headers,
    ctx: Ctx<'_>,
    deadline: Instant,
) -> Result<Discovery, Failure> {
    let url = parse_url(&url)?;
    let mut conn = HttpConn::new(url, headers, ctx);
    let r = converse(&mut conn, deadline, ctx.talk);
    conn.close(deadline);
    r
}

impl<'a> HttpConn<'a> {
    pub(super) fn secrets(&self) -> &'a Secrets {
        self.secrets
    }

    pub(super) fn new(url: Url, headers: Headers, ctx: Ctx<'a>) -> HttpConn<'a> {
        HttpConn {
            origin: url.clone(),
            url,
            headers,
            session: None,
            protocol: None,
            next_id: 0,
            answered: 0,
            timeout: ctx.timeout,
            secrets: ctx.secrets,
            tls: ctx.tls,
            proxy: ctx.proxy,
            legacy: false,
            budget: Budget::default(),
            routing: None,
        }
    }

    fn io_failure(&self, e: &io::Error, what: &str) -> Failure {
        if matches!(
            e.kind(),
            io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
        ) {
            fail(
                FailureCode::Timeout,
                format!(
                    "no answer to {what} within the {} timeout",
                    secs(self.timeout)
                ),
            )
        } else {
            fail(FailureCode::IoError, format!("{what}: {e}"))
        }
    }

    /// Send one HTTP request to the session's URL and read the status line and headers.
    fn exchange(
        &self,
        method: &str,
        body: Option<&[u8]>,
        deadline: Instant,
        what: &str,
    ) -> Result<Response, Failure> {
        self.exchange_at(&self.url, method, body, deadline, what)
    }

    /// Send one HTTP request to `url` and read the status line and headers. The declared
    /// headers and the session's go only to the server's own origin.
    pub(super) fn exchange_at(
        &self,
        url: &Url,
        method: &str,
        body: Option<&[u8]>,
        deadline: Instant,
        what: &str,
    ) -> Result<Response, Failure> {
        let (s, via) = proxy::open(url, self.proxy, self.tls, self.timeout, deadline)?;
        let mut bytes = self.request_head(url, method, body, via).into_bytes();
        if let Some(b) = body {
            bytes.extend_from_slice(b);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(self.io_failure(&timed_out(), what));
        }
        let mut s2 = s;
        s2.tcp()
            .set_write_timeout(Some(left))
            .and_then(|_| s2.write_all(&bytes))
            .and_then(|_| s2.flush())
            .map_err(|e| self.io_failure(&e, &format!("sending {what}")))?;
        let mut r = BufReader::new(DeadlineStream { s: s2, deadline });
        let (status, reason, headers) = self.read_head(&mut r, what)?;
        let framing = framing(status, method, &headers, what)?;
        Ok(Response {
            status,
            reason,
            headers,
            body: Body {
                r,
                framing,
                total: 0,
                too_large: false,
            },
        })
    }

    /// The request line and headers of a request to `url` (through the proxy `via`, if any),
    /// ending with the blank line.
    fn request_head(
        &self,
        url: &Url,
        method: &str,
        body: Option<&[u8]>,
        via: Option<&ProxyUrl>,
    ) -> String {
        let mut req = String::new();
        // Through a proxy, an `http://` request names its whole URL (absolute form).
        let _ = write!(
            req,
            "{method} {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: mcpconf/{}\r\n\
             Accept: application/json, text/event-stream\r\nConnection: close\r\n",
            if via.is_some() {
                url.to_string()
            } else {
                url.target.clone()
            },
            url.authority,
            env!("CARGO_PKG_VERSION")
        );
        if let Some(a) = via.and_then(ProxyUrl::authorization) {
            let _ = write!(req, "Proxy-Authorization: {a}\r\n");
        }
        if let Some(b) = body {
            let _ = write!(
                req,
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                b.len()
            );
        }
        if url.same_origin(&self.origin) {
            self.own_headers(&mut req);
        }
        req.push_str("\r\n");
        req
    }

    /// The session's headers and the declared ones (for the server's own origin only).
    fn own_headers(&self, req: &mut String) {
        if let Some(sid) = &self.session {
            let _ = write!(req, "Mcp-Session-Id: {sid}\r\n");
        }
        match &self.routing {
            // A 2026-07-28 request: its own version, and the routing headers (SEP-2243).
            Some((v, m, name)) => {
                let _ = write!(req, "MCP-Protocol-Version: {v}\r\nMcp-Method: {m}\r\n");
                if let Some(n) = name {
                    let _ = write!(req, "Mcp-Name: {n}\r\n");
                }
            }
            None => {
                if let Some(v) = &self.protocol {
                    let _ = write!(req, "MCP-Protocol-Version: {v}\r\n");
                }
            }
        }
        for (k, v) in &self.headers {
            if !OWN_HEADERS.iter().any(|o| k.eq_ignore_ascii_case(o)) {
                let _ = write!(req, "{k}: {v}\r\n");
            }
        }
    }

    /// The final status line and headers of the answer to `what` (past any 1xx).
    fn read_head(&self, r: &mut BufReader<DeadlineStream>, what: &str) -> Result<Head, Failure> {
        let bad = |m: &str| {
            fail(
                FailureCode::Protocol,
                format!("{m} in the HTTP response to {what}"),
            )
        };
        loop {
            let status_line = match read_line_capped(r, 8192) {
                Ok(Some(l)) => l,
                Ok(None) => {
                    return Err(fail(
                        FailureCode::Protocol,
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
                    FailureCode::Protocol,
                    format!(
                        "the answer to {what} is not HTTP/1.x: `{}`",
                        self.secrets.snippet(&status_line, 80)
                    ),
                ));
            };
            let mut headers = Vec::new();
            loop {
                let line = match read_line_capped(r, 16 * 1024) {
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
            return Ok((status, reason, headers));
        }
    }

    /// A failure for a non-2xx response, with the server's JSON-RPC message or first line.
    pub(super) fn status_failure(
        &self,
        mut resp: Response,
        what: &str,
        deadline: Instant,
    ) -> Failure {
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
                self.secrets.snippet(first, 200)
            });
        if resp.status == 401 {
            return needs_auth(self, &self.origin, &resp, what, &detail, deadline);
        }
        self.http_error(resp.status, &resp.reason, &detail, what)
    }

    /// The `http-error` failure for a status, with the server's own words.
    fn http_error(&self, status: u16, reason: &str, detail: &str, what: &str) -> Failure {
        let mut msg = format!("HTTP {status} {} in answer to {what}", reason.trim());
        if !detail.is_empty() {
            let _ = write!(msg, ": {detail}");
        }
        if self.session.is_some() && status == 404 {
            msg.push_str(" (the server no longer knows the session)");
        } else if self.session.is_none() && !self.legacy && matches!(status, 404 | 405) {
            msg.push_str("; if this is a legacy HTTP+SSE server, declare `transport = \"sse\"`");
        }
        Failure {
            http_status: Some(status),
            ..fail(FailureCode::HttpError, msg)
        }
    }

    pub(super) fn body_failure(&self, body: &Body, e: &io::Error, what: &str) -> Failure {
        if body.too_large {
            fail(
                FailureCode::OutputTooLarge,
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
    pub(super) fn post(
        &mut self,
        msg: &Value,
        want: Option<&Value>,
        method: &str,
        deadline: Instant,
    ) -> Result<Option<Value>, Failure> {
        let what = format!("`{method}`");
        let body = msg.to_string();
        self.routing = msg
            .pointer("/params/_meta")
            .and_then(|m| m.get(PROTOCOL_VERSION_KEY))
            .and_then(Value::as_str)
            .map(|v| {
                let name = (method == "tools/call")
                    .then(|| msg.pointer("/params/name").and_then(Value::as_str))
                    .flatten()
                    .filter(|n| !n.is_empty() && n.bytes().all(|b| (0x21..=0x7e).contains(&b)))
                    .map(str::to_string);
                (v.to_string(), method.to_string(), name)
            });
        let sent = self.exchange("POST", Some(body.as_bytes()), deadline, &what);
        self.routing = None;
        let mut resp = sent?;
        if !(200..300).contains(&resp.status) {
            if resp.status == 401 || want.is_none() {
                return Err(self.status_failure(resp, &what, deadline));
            }
            // A 2026-07-28 server answers a JSON-RPC error with a 4xx status and the error as
            // the body (-32601 with 404, -32022 with 400): read it as the error it is.
            let mut buf = Vec::new();
            let _ = (&mut resp.body).take(64 * 1024).read_to_end(&mut buf);
            let rpc = self.budget.parse(&buf).ok().filter(|v| {
                v.get("error").is_some_and(Value::is_object)
                    && v.get("id")
                        .is_none_or(|id| id.is_null() || Some(id) == want)
            });
            if let Some(v) = rpc {
                let mut f = match take_result(&v, method, self.secrets) {
                    Err(f) => f,
                    Ok(_) => fail(FailureCode::Protocol, "unreachable"),
                };
                let _ = write!(f.message, " (HTTP {})", resp.status);
                f.http_status = Some(resp.status);
                return Err(f);
            }
            let first = buf.split(|&b| b == b'\n').next().unwrap_or(&[]);
            let detail = self.secrets.snippet(first, 200);
            return Err(self.http_error(resp.status, &resp.reason, &detail, &what));
        }
        if method == "initialize"
            && let Some(sid) = resp.header("mcp-session-id")
        {
            if sid.is_empty() || !sid.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
                return Err(fail(
                    FailureCode::Protocol,
                    "the server sent an invalid Mcp-Session-Id",
                ));
            }
            self.session = Some(sid.to_string());
        }
        let Some(want) = want else {
            return Ok(None);
        };
        if resp.status == 202 || resp.status == 204 {
            return Err(Failure {
                http_status: Some(resp.status),
                ..fail(
                    FailureCode::Protocol,
                    format!(
                        "the server accepted {what} (HTTP {}) but sent no answer",
                        resp.status
                    ),
                )
            });
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
                let v: Value = self.budget.parse(&buf).map_err(|e| {
                    e.over().unwrap_or_else(|| {
                        fail(
                            FailureCode::InvalidOutput,
                            format!(
                                "the answer to {what} is not JSON: `{}`",
                                self.secrets.snippet(&buf, 120)
                            ),
                        )
                    })
                })?;
                let items: Vec<&Value> = match &v {
                    Value::Array(a) => a.iter().collect(),
                    v => vec![v],
                };
                for m in items {
                    if let Incoming::Response(id) = classify(m)
                        && id == want
                    {
                        return take_result(m, method, self.secrets).map(Some);
                    }
                }
                Err(fail(
                    FailureCode::Protocol,
                    format!("the JSON answer to {what} holds no response with its id"),
                ))
            }
            "text/event-stream" => self.read_events(resp, want, method, deadline),
            other => Err(fail(
                FailureCode::Protocol,
                format!(
                    "the answer to {what} has Content-Type `{}`, neither application/json nor text/event-stream",
                    self.secrets.snippet(other.as_bytes(), 60)
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
        loop {
            let ev = match next_event(&mut r) {
                Ok(Some(ev)) => ev,
                Ok(None) => {
                    return Err(fail(
                        FailureCode::Protocol,
                        format!("the event stream ended without an answer to {what}"),
                    ));
                }
                Err(EventError::TooLong) => {
                    return Err(fail(
                        FailureCode::OutputTooLarge,
                        format!(
                            "an event in the answer to {what} is longer than {} MiB",
                            MAX_LINE >> 20
                        ),
                    ));
                }
                Err(EventError::Io(e)) => return Err(self.body_failure(r.get_ref(), &e, &what)),
            };
            if ev.data.trim_ascii().is_empty() {
                continue;
            }
            let v: Value = self.budget.parse(&ev.data).map_err(|e| {
                e.over().unwrap_or_else(|| {
                    fail(
                        FailureCode::InvalidOutput,
                        format!(
                            "an event in the answer to {what} is not JSON: `{}`",
                            self.secrets.snippet(&ev.data, 120)
                        ),
                    )
                })
            })?;
            let items: Vec<Value> = match v {
                Value::Array(a) => a,
                v => vec![v],
            };
            for m in &items {
                match classify(m) {
                    Incoming::Response(id) if id == want => {
                        return take_result(m, method, self.secrets).map(Some);
                    }
                    Incoming::Request { id, method: sm } if self.answered < MAX_SERVER_REQUESTS => {
                        self.answered += 1;
                        let answer = answer_server_request(id, sm);
                        self.post(&answer, None, sm, deadline)?;
                    }
                    _ => {}
                }
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

impl Rpc for HttpConn<'_> {
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
            None => Err(fail(
                FailureCode::Protocol,
                format!("no answer to `{method}`"),
            )),
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

/// The head of an answer: its status code, its reason phrase and its headers.
type Head = (u16, String, Vec<(String, String)>);

/// How the body of a response with `status` and `headers` to a `method` request ends.
fn framing(
    status: u16,
    method: &str,
    headers: &[(String, String)],
    what: &str,
) -> Result<Framing, Failure> {
    let get = |n: &str| {
        headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(n))
            .map(|(_, v)| v.clone())
    };
    Ok(if status == 204 || status == 304 || method == "HEAD" {
        Framing::Length(0)
    } else if get("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked")) {
        Framing::Chunked {
            left: 0,
            need_crlf: false,
            done: false,
        }
    } else if let Some(len) = get("content-length") {
        let n = len.trim().parse::<usize>().map_err(|_| {
            fail(
                FailureCode::Protocol,
                format!("a bad Content-Length in the HTTP response to {what}"),
            )
        })?;
        if n > MAX_TOTAL {
            return Err(fail(
                FailureCode::OutputTooLarge,
                format!(
                    "the response to {what} is larger than {} MiB",
                    MAX_TOTAL >> 20
                ),
            ));
        }
        Framing::Length(n)
    } else {
        Framing::UntilClose
    })
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
        let u = parse_url("HTTPS://h.example/a/b?q").unwrap();
        assert_eq!(
            (u.tls, u.port, u.origin()),
            (true, 443, "https://h.example".into())
        );
        assert_eq!(
            u.join("/m?s=1").unwrap().to_string(),
            "https://h.example/m?s=1"
        );
        assert_eq!(u.join("c").unwrap().to_string(), "https://h.example/a/c");
        assert_eq!(
            u.join("http://o:81/x").unwrap().to_string(),
            "http://o:81/x"
        );
        assert!(!u.same_origin(&u.join("http://h.example/").unwrap()));
        for bad in [
            "ftp://x",
            "http://",
            "http://u:p@h/",
            "http://h:99999/",
            "http://h/a b",
        ] {
            assert_eq!(
                parse_url(bad).err().map(|f| f.code),
                Some(FailureCode::InvalidConfig),
                "{bad}"
            );
        }
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
        let s = Stream::Plain(std::net::TcpStream::connect(addr).unwrap());
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
