//! Proxies for the probe's HTTP client (and so for `mcpconf lock`): which proxy a request goes
//! through (`--proxy`, or `HTTPS_PROXY` / `HTTP_PROXY` / `ALL_PROXY` less `NO_PROXY`, in either
//! case, read as curl reads them), and the connection itself: straight to the server; to an
//! HTTP proxy that takes an `http://` request in absolute form; or, for `https://`, through a
//! `CONNECT` tunnel with TLS to the server inside it (the server's name and certificate, never
//! the proxy's). The decision is made for every request, so each URL the probe visits (a
//! legacy SSE endpoint, authorization metadata) gets its own.
//!
//! A proxy's credentials (its URL's userinfo) become a `Proxy-Authorization: Basic` header
//! and are never shown: a proxy is named `http://host:port`, and a proxy URL that cannot be
//! used is described without its text.

use std::fmt;
use std::io::{self, Read, Write};
use std::net::{IpAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use super::http::Url;
use super::session::secs;
use super::tls::{Stream, Tls};
use super::{Failure, FailureCode, fail};

/// The port of a proxy URL that names none (curl's default).
const DEFAULT_PORT: u16 = 1080;

/// An `http://` proxy: where to connect, and the `Proxy-Authorization` value built from its
/// URL's userinfo. `Display` and `Debug` show `http://host:port`, never the credentials.
#[derive(Clone, PartialEq, Eq)]
pub struct ProxyUrl {
    host: String,
    port: u16,
    authorization: Option<String>,
    /// The decoded user name and password (for the probe's scrubbing of server text).
    credentials: Vec<String>,
}

impl fmt::Display for ProxyUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "http://{}", host_port(&self.host, self.port))
    }
}

impl fmt::Debug for ProxyUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ProxyUrl({self})")
    }
}

impl ProxyUrl {
    /// The `Proxy-Authorization` header value (`Basic …`), when the URL had userinfo.
    pub(super) fn authorization(&self) -> Option<&str> {
        self.authorization.as_deref()
    }
}

/// A proxy setting: a usable proxy, or why the one configured cannot be used (reported by
/// every request that would go through it, not before: an unusable `ALL_PROXY` does not stop
/// the probe of a stdio server).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Setting {
    Use(ProxyUrl),
    Broken(FailureCode, String),
}

/// One `NO_PROXY` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Bypass {
    /// `*`.
    All,
    /// A host name and its subdomains (lower case, no leading or trailing dot).
    Name(String, Option<u16>),
    /// One address.
    Ip(IpAddr, Option<u16>),
    /// A CIDR block (`10.0.0.0/8`).
    Net(IpAddr, u8),
}

/// Which proxy, if any, each request goes through. [`Proxies::default`] is none at all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Proxies {
    http: Option<Setting>,
    https: Option<Setting>,
    no_proxy: Vec<Bypass>,
}

/// The value of the lower-case variable `name`, else of its upper-case form (curl's order);
/// an empty value counts as unset. With the name it was read from.
fn pick(get: &dyn Fn(&str) -> Option<String>, name: &str) -> Option<(String, String)> {
    [name.to_string(), name.to_ascii_uppercase()]
        .into_iter()
        .find_map(|n| get(&n).filter(|v| !v.trim().is_empty()).map(|v| (n, v)))
}

impl Proxies {
    /// The proxies of a run: `flag` (`--proxy URL`) for every request when given (`none` or
    /// an empty value: no proxy, whatever the environment says), else the environment through
    /// `get`: `https://` requests through `https_proxy` / `HTTPS_PROXY`, `http://` ones through
    /// `http_proxy` / `HTTP_PROXY`, either through `all_proxy` / `ALL_PROXY` when its own is
    /// unset (the lower-case variable wins when both are set). `no_proxy` / `NO_PROXY` applies
    /// in every case. Only a bad `flag` is an error here (a sentence without its text); a bad
    /// variable fails the requests that would use it.
    pub fn new(
        get: &dyn Fn(&str) -> Option<String>,
        flag: Option<&str>,
    ) -> Result<Proxies, String> {
        let no_proxy = pick(get, "no_proxy")
            .map(|(_, v)| parse_no_proxy(&v))
            .unwrap_or_default();
        if let Some(f) = flag.map(str::trim) {
            if f.is_empty() || f.eq_ignore_ascii_case("none") {
                return Ok(Proxies::default());
            }
            let p = parse_proxy(f).map_err(|(code, m)| format!("--proxy: {m} ({code})"))?;
            return Ok(Proxies {
                http: Some(Setting::Use(p.clone())),
                https: Some(Setting::Use(p)),
                no_proxy,
            });
        }
        let setting = |names: [&str; 2]| {
            let (var, value) = names.into_iter().find_map(|n| pick(get, n))?;
            Some(match parse_proxy(&value) {
                Ok(p) => Setting::Use(p),
                Err((code, m)) => Setting::Broken(code, format!("{var}: {m}")),
            })
        };
        Ok(Proxies {
            http: setting(["http_proxy", "all_proxy"]),
            https: setting(["https_proxy", "all_proxy"]),
            no_proxy,
        })
    }

    /// The proxy a request to `url` goes through (`None`: straight to the server), or the
    /// failure of the unusable proxy it would go through.
    pub(super) fn route(&self, url: &Url) -> Result<Option<&ProxyUrl>, Failure> {
        let setting = if url.tls { &self.https } else { &self.http };
        match setting {
            None => Ok(None),
            Some(_) if self.bypassed(&url.host, url.port) => Ok(None),
            Some(Setting::Use(p)) => Ok(Some(p)),
            Some(Setting::Broken(code, m)) => Err(fail(*code, m.clone())),
        }
    }

    /// The decoded user names and passwords of the proxies (values the probe hides from any
    /// text a server or proxy sends back).
    pub(super) fn credentials(&self) -> impl Iterator<Item = &str> {
        [&self.http, &self.https]
            .into_iter()
            .flatten()
            .filter_map(|s| match s {
                Setting::Use(p) => Some(p.credentials.iter().map(String::as_str)),
                Setting::Broken(..) => None,
            })
            .flatten()
    }

    /// Whether `NO_PROXY` sends requests to `host:port` straight to the server.
    fn bypassed(&self, host: &str, port: u16) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let ip = host.parse::<IpAddr>().ok();
        let port_ok = |p: &Option<u16>| p.is_none_or(|p| p == port);
        self.no_proxy.iter().any(|b| match b {
            Bypass::All => true,
            Bypass::Name(name, p) => {
                ip.is_none()
                    && port_ok(p)
                    && (host == *name
                        || host
                            .strip_suffix(name.as_str())
                            .is_some_and(|h| h.ends_with('.')))
            }
            Bypass::Ip(a, p) => port_ok(p) && ip == Some(*a),
            Bypass::Net(net, bits) => ip.is_some_and(|ip| in_net(ip, *net, *bits)),
        })
    }
}

/// Whether `ip` is in `net/bits` (same address family only).
fn in_net(ip: IpAddr, net: IpAddr, bits: u8) -> bool {
    let (a, b, width) = match (ip, net) {
        (IpAddr::V4(a), IpAddr::V4(b)) => (u32::from(a) as u128, u32::from(b) as u128, 32),
        (IpAddr::V6(a), IpAddr::V6(b)) => (u128::from(a), u128::from(b), 128),
        _ => return false,
    };
    let shift = width - u32::from(bits.min(width as u8));
    shift >= width || (a >> shift) == (b >> shift)
}

/// `NO_PROXY`: comma-separated entries; `*` (every host); a host name, with or without a
/// leading `.` or `*.`, matching itself and its subdomains; an IP address (`::1` or `[::1]`);
/// a CIDR block; a name or address with `:port` matching that port only. Entries that are
/// none of these are ignored.
fn parse_no_proxy(value: &str) -> Vec<Bypass> {
    let mut out = Vec::new();
    for e in value
        .split([',', ' '])
        .map(str::trim)
        .filter(|e| !e.is_empty())
    {
        if e == "*" {
            out.push(Bypass::All);
        } else if let Some((addr, bits)) = e.split_once('/') {
            let addr = addr.trim_start_matches('[').trim_end_matches(']');
            if let (Ok(ip), Ok(bits)) = (addr.parse::<IpAddr>(), bits.parse::<u8>()) {
                out.push(Bypass::Net(ip, bits));
            }
        } else if let Ok(ip) = e.parse::<IpAddr>() {
            out.push(Bypass::Ip(ip, None));
        } else if let Some(inner) = e.strip_prefix('[') {
            let (addr, port) = inner.split_once(']').unwrap_or((inner, ""));
            let port = port.strip_prefix(':').and_then(|p| p.parse().ok());
            if let Ok(ip) = addr.parse::<IpAddr>() {
                out.push(Bypass::Ip(ip, port));
            }
        } else {
            let (host, port) = match e.rsplit_once(':') {
                Some((h, p)) => match p.parse::<u16>() {
                    Ok(p) => (h, Some(p)),
                    Err(_) => continue,
                },
                None => (e, None),
            };
            if let Ok(ip) = host.parse::<IpAddr>() {
                out.push(Bypass::Ip(ip, port));
                continue;
            }
            let name = host
                .trim_start_matches("*.")
                .trim_start_matches('.')
                .trim_end_matches('.')
                .to_ascii_lowercase();
            if !name.is_empty() {
                out.push(Bypass::Name(name, port));
            }
        }
    }
    out
}

/// Parse a proxy URL: `[http://][user[:password]@]host[:port][/]` (port 1080 when absent, as
/// curl). Another scheme is `proxy-unsupported`; a malformed URL is `invalid-config`. The
/// sentence never quotes the URL (it may hold a password).
fn parse_proxy(text: &str) -> Result<ProxyUrl, (FailureCode, String)> {
    let text = text.trim();
    let (scheme, rest) = match text.split_once("://") {
        Some((s, rest)) => (s.to_ascii_lowercase(), rest),
        None => ("http".to_string(), text),
    };
    if scheme != "http" {
        let shown = if !scheme.is_empty()
            && scheme.len() <= 10
            && scheme.bytes().all(|b| b.is_ascii_alphanumeric())
        {
            format!("`{scheme}://`")
        } else {
            "this".to_string()
        };
        return Err((
            FailureCode::ProxyUnsupported,
            format!(
                "unsupported proxy scheme {shown}: only `http://` proxies are supported \
                 (https to the server still goes through them, in a CONNECT tunnel)"
            ),
        ));
    }
    let invalid = |m: &str| (FailureCode::InvalidConfig, format!("the proxy URL {m}"));
    // The userinfo ends at the last `@` (a password may hold `/`, `?` or `#`).
    let (userinfo, hostpart) = match rest.rfind('@') {
        Some(i) => (Some(&rest[..i]), &rest[i + 1..]),
        None => (None, rest),
    };
    let authority = hostpart.split(['/', '?', '#']).next().unwrap_or("");
    let (host, port) = if let Some(h) = authority.strip_prefix('[') {
        let (h, after) = h
            .split_once(']')
            .ok_or_else(|| invalid("has an IPv6 host without `]`"))?;
        (h, after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    let port = match port {
        None | Some("") => DEFAULT_PORT,
        Some(p) => p
            .parse::<u16>()
            .map_err(|_| invalid("has a port that is not a number"))?,
    };
    if host.is_empty() || host.bytes().any(|b| b <= b' ' || b == 0x7f || b == b'@') {
        return Err(invalid(
            "has no host, or spaces or control characters in it",
        ));
    }
    let (authorization, credentials) = match userinfo {
        None => (None, Vec::new()),
        Some(u) => {
            let (user, pass) = u.split_once(':').unwrap_or((u, ""));
            let (user, pass) = (percent_decode(user), percent_decode(pass));
            let basic = format!("Basic {}", base64(format!("{user}:{pass}").as_bytes()));
            (Some(basic), vec![user, pass])
        }
    };
    Ok(ProxyUrl {
        host: host.to_string(),
        port,
        authorization,
        credentials,
    })
}

/// `%XX` sequences decoded (others kept as they are).
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%'
            && let (Some(h), Some(l)) = (
                b.get(i + 1).copied().and_then(hex),
                b.get(i + 2).copied().and_then(hex),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Standard base64 with padding (RFC 4648 §4), for `Basic` credentials.
fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for (k, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if k <= c.len() {
                out.push(A[(n >> shift) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `host:port`, an IPv6 host in brackets.
fn host_port(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// A connection for a request to `url`, and the proxy it goes through when that request is
/// sent to the proxy in absolute form (an `http://` URL through a proxy). For `https://`
/// through a proxy, the tunnel is opened and TLS runs to the server inside it. Every step
/// (connect, `CONNECT`, handshake) is bounded by `deadline`.
pub(super) fn open<'p>(
    url: &Url,
    proxies: &'p Proxies,
    tls: &Tls,
    timeout: Duration,
    deadline: Instant,
) -> Result<(Stream, Option<&'p ProxyUrl>), Failure> {
    let Some(p) = proxies.route(url)? else {
        let s = dial(&url.host, url.port, "", timeout, deadline)?;
        return if url.tls {
            Ok((tls.handshake(s, &url.host, deadline)?, None))
        } else {
            Ok((Stream::Plain(s), None))
        };
    };
    let s = dial(&p.host, p.port, "the proxy ", timeout, deadline)?;
    if !url.tls {
        return Ok((Stream::Plain(s), Some(p)));
    }
    let s = tunnel(s, p, url, timeout, deadline)?;
    Ok((tls.handshake(s, &url.host, deadline)?, None))
}

/// A TCP connection to `host:port` (`who` names a proxy in the failure), within the deadline.
fn dial(
    host: &str,
    port: u16,
    who: &str,
    timeout: Duration,
    deadline: Instant,
) -> Result<TcpStream, Failure> {
    let addrs = (host, port).to_socket_addrs().map_err(|e| {
        fail(
            FailureCode::ConnectFailed,
            format!("cannot resolve {who}`{host}`: {e}"),
        )
    })?;
    let mut last = None;
    for a in addrs {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(fail(
                FailureCode::Timeout,
                format!("could not connect within the {} timeout", secs(timeout)),
            ));
        }
        match TcpStream::connect_timeout(&a, left) {
            Ok(s) => return Ok(s),
            Err(e) => last = Some(e),
        }
    }
    let at = host_port(host, port);
    Err(fail(
        FailureCode::ConnectFailed,
        match last {
            Some(e) if e.kind() == io::ErrorKind::TimedOut => format!(
                "could not connect to {who}{at} within the {} timeout",
                secs(timeout)
            ),
            Some(e) => format!("cannot connect to {who}{at}: {e}"),
            None => format!("{who}`{host}` resolves to no address"),
        },
    ))
}

/// Ask the proxy for a tunnel to `url`'s host and port (`CONNECT host:port`); the socket,
/// positioned just after the proxy's answer, once it answers 2xx. Any other status is
/// `proxy-refused` (its reason phrase is not repeated: the proxy's text is not ours to show).
fn tunnel(
    mut s: TcpStream,
    p: &ProxyUrl,
    url: &Url,
    timeout: Duration,
    deadline: Instant,
) -> Result<TcpStream, Failure> {
    let target = host_port(&url.host, url.port);
    let mut req = format!(
        "CONNECT {target} HTTP/1.1\r\nHost: {target}\r\nUser-Agent: mcpconf/{}\r\n",
        env!("CARGO_PKG_VERSION")
    );
    if let Some(a) = p.authorization() {
        req.push_str(&format!("Proxy-Authorization: {a}\r\n"));
    }
    req.push_str("\r\n");
    let io_failure = |e: io::Error| {
        if matches!(
            e.kind(),
            io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
        ) {
            fail(
                FailureCode::Timeout,
                format!(
                    "the proxy {p} did not open the tunnel to {target} within the {} timeout",
                    secs(timeout)
                ),
            )
        } else {
            fail(
                FailureCode::IoError,
                format!("asking the proxy {p} for a tunnel to {target}: {e}"),
            )
        }
    };
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(io_failure(io::ErrorKind::TimedOut.into()));
    }
    s.set_write_timeout(Some(left))
        .and_then(|_| s.write_all(req.as_bytes()))
        .map_err(io_failure)?;
    let head = read_head(&mut s, deadline).map_err(io_failure)?;
    let text = String::from_utf8_lossy(&head);
    let status_line = text.lines().next().unwrap_or("");
    let mut parts = status_line.split(' ');
    let status = match (parts.next(), parts.next()) {
        (Some(v), Some(code)) if v.starts_with("HTTP/1.") => code.parse::<u16>().ok(),
        _ => None,
    };
    let Some(status) = status else {
        return Err(fail(
            FailureCode::Protocol,
            format!("the proxy {p} did not answer `CONNECT {target}` in HTTP/1.x"),
        ));
    };
    if !(200..300).contains(&status) {
        let hint = match status {
            407 if p.authorization.is_some() => " (it did not accept the proxy URL's credentials)",
            407 => " (it wants credentials: user and password in the proxy URL)",
            _ => "",
        };
        return Err(Failure {
            http_status: Some(status),
            ..fail(
                FailureCode::ProxyRefused,
                format!("the proxy {p} refused `CONNECT {target}` with HTTP {status}{hint}"),
            )
        });
    }
    Ok(s)
}

/// The proxy's answer up to and including its empty line, read a byte at a time so that not a
/// byte of the tunnel is taken (at most 16 KiB).
fn read_head(s: &mut TcpStream, deadline: Instant) -> io::Result<Vec<u8>> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && !head.ends_with(b"\n\n") {
        if head.len() >= 16 * 1024 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "its answer's head is over 16 KiB",
            ));
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        s.set_read_timeout(Some(left))?;
        if s.read(&mut byte)? == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "it closed the connection",
            ));
        }
        head.push(byte[0]);
    }
    Ok(head)
}

#[cfg(test)]
mod tests;
