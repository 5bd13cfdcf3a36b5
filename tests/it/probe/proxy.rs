//! `mcpconf probe` through a forward proxy of our own (a few threads on loopback that record
//! what they are asked): an `http://` server through the proxy in absolute form, an `https://`
//! one through a `CONNECT` tunnel with TLS to the server inside it, `NO_PROXY`, `--proxy` over
//! the environment, the proxy URL's credentials (sent, never printed), a proxy that refuses
//! the tunnel and a proxy scheme we do not speak. The registry's test (`registry.rs`) runs
//! `mcpconf lock` through the same proxy.

use std::fs;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;

use super::tls::{assert_ok, named, pki, probe, server};

/// What the proxy was asked: each request line, with its `Proxy-Authorization` value.
type Seen = Arc<Mutex<Vec<(String, Option<String>)>>>;

/// A forward proxy on 127.0.0.1: `CONNECT host:port` opens a tunnel (or is answered `refuse`),
/// a request in absolute form is passed on to its origin in origin form. Every request line is
/// recorded before it is served.
pub(crate) struct Proxy {
    pub(crate) url: String,
    seen: Seen,
}

impl Proxy {
    pub(crate) fn start(refuse: Option<u16>) -> Proxy {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let url = format!("http://{}", l.local_addr().expect("addr"));
        let seen: Seen = Arc::default();
        let log = seen.clone();
        thread::spawn(move || {
            for conn in l.incoming().take(100) {
                let Ok(s) = conn else { continue };
                let log = log.clone();
                thread::spawn(move || {
                    let _ = serve(s, &log, refuse);
                });
            }
        });
        Proxy { url, seen }
    }

    /// The request lines seen so far.
    pub(crate) fn lines(&self) -> Vec<String> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .map(|(l, _)| l.clone())
            .collect()
    }

    /// The `Proxy-Authorization` values seen so far.
    fn authorizations(&self) -> Vec<Option<String>> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .map(|(_, a)| a.clone())
            .collect()
    }
}

/// Copy `from` to `to` until `from` ends, then end `to`'s writing side.
fn pipe(mut from: TcpStream, mut to: TcpStream) {
    let _ = io::copy(&mut from, &mut to);
    let _ = to.shutdown(Shutdown::Write);
}

fn serve(client: TcpStream, log: &Seen, refuse: Option<u16>) -> io::Result<()> {
    let mut r = BufReader::new(client.try_clone()?);
    let mut line = String::new();
    r.read_line(&mut line)?;
    let line = line.trim_end().to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if r.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        headers.push(h.trim_end().to_string());
    }
    let header = |name: &str| {
        headers.iter().find_map(|h| {
            h.split_once(':')
                .filter(|(k, _)| k.trim().eq_ignore_ascii_case(name))
                .map(|(_, v)| v.trim().to_string())
        })
    };
    log.lock()
        .unwrap()
        .push((line.clone(), header("proxy-authorization")));
    let mut parts = line.split(' ');
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let mut client = client;
    if method == "CONNECT" {
        if let Some(status) = refuse {
            write!(client, "HTTP/1.1 {status} No\r\nContent-Length: 0\r\n\r\n")?;
            return Ok(());
        }
        let upstream = TcpStream::connect(target)?;
        client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")?;
        let (c, u) = (client.try_clone()?, upstream.try_clone()?);
        let t = thread::spawn(move || pipe(c, u));
        pipe(upstream, client);
        let _ = t.join();
        return Ok(());
    }
    // Absolute form: `METHOD http://host:port/path HTTP/1.1`.
    let rest = target.strip_prefix("http://").unwrap_or(target);
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut upstream = TcpStream::connect(authority)?;
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    for h in headers
        .iter()
        .filter(|h| !h.to_ascii_lowercase().starts_with("proxy-authorization:"))
    {
        head.push_str(h);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    upstream.write_all(head.as_bytes())?;
    let len = header("content-length").and_then(|v| v.parse::<u64>().ok());
    io::copy(&mut (&mut r).take(len.unwrap_or(0)), &mut upstream)?;
    pipe(upstream, client);
    Ok(())
}

/// A manifest of one remote server `p` at `url`.
fn one(url: &str) -> String {
    format!("[servers.p]\nurl = '{url}'\n")
}

#[test]
fn an_http_server_is_reached_through_the_proxy_in_absolute_form() {
    let dir = tempfile::tempdir().unwrap();
    let addr = server(None, None);
    let proxy = Proxy::start(None);
    let url = format!("http://{addr}/mcp");
    let (code, out, all) = probe(dir.path(), &one(&url), &[], &[("HTTP_PROXY", &proxy.url)]);
    assert_eq!(code, 0, "{all}");
    assert_ok(named(&out, "p"));
    let lines = proxy.lines();
    assert!(!lines.is_empty(), "the proxy saw nothing: {all}");
    for l in &lines {
        assert!(
            l.starts_with("POST ") || l.starts_with("DELETE "),
            "{lines:?}"
        );
        assert!(l.ends_with(&format!(" {url} HTTP/1.1")), "{lines:?}");
    }
}

#[test]
fn an_https_server_is_reached_through_a_connect_tunnel_with_its_own_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let p = pki(&["localhost"], false);
    let ca = dir.path().join("ca.pem");
    fs::write(&ca, &p.ca_pem).unwrap();
    let port = server(Some(&p), None).port();
    let proxy = Proxy::start(None);
    let servers = one(&format!("https://localhost:{port}/mcp"));
    let cacert = ["--cacert", ca.to_str().unwrap()];
    // Lower case is read too.
    let (code, out, all) = probe(
        dir.path(),
        &servers,
        &cacert,
        &[("https_proxy", &proxy.url)],
    );
    assert_eq!(code, 0, "{all}");
    assert_ok(named(&out, "p"));
    let lines = proxy.lines();
    assert!(!lines.is_empty(), "{all}");
    for l in &lines {
        assert_eq!(
            l,
            &format!("CONNECT localhost:{port} HTTP/1.1"),
            "{lines:?}"
        );
    }
    // The certificate checked is the server's, through the tunnel: without the CA, `tls`.
    let (code, out, all) = probe(dir.path(), &servers, &[], &[("HTTPS_PROXY", &proxy.url)]);
    assert_eq!(code, 1, "{all}");
    assert_eq!(named(&out, "p")["code"], "tls", "{all}");
}

#[test]
fn no_proxy_sends_requests_straight_to_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let addr = server(None, None);
    let proxy = Proxy::start(None);
    let servers = one(&format!("http://{addr}/mcp"));
    for no_proxy in [
        ("NO_PROXY", "127.0.0.1".to_string()),
        ("no_proxy", "example.com, 127.0.0.0/8".to_string()),
        ("NO_PROXY", format!("127.0.0.1:{}", addr.port())),
        ("NO_PROXY", "*".to_string()),
    ] {
        let env = [
            ("HTTP_PROXY", proxy.url.as_str()),
            (no_proxy.0, &no_proxy.1),
        ];
        let (code, out, all) = probe(dir.path(), &servers, &[], &env);
        assert_eq!(code, 0, "{no_proxy:?}: {all}");
        assert_ok(named(&out, "p"));
        assert_eq!(proxy.lines(), Vec::<String>::new(), "{no_proxy:?}");
    }
    // Another port of the same host is not bypassed by a `:port` entry.
    let env = [
        ("HTTP_PROXY", proxy.url.as_str()),
        ("NO_PROXY", "127.0.0.1:1"),
    ];
    let (code, _, all) = probe(dir.path(), &servers, &[], &env);
    assert_eq!(code, 0, "{all}");
    assert!(!proxy.lines().is_empty());
}

#[test]
fn the_proxy_option_overrides_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let addr = server(None, None);
    let (env_proxy, flag_proxy) = (Proxy::start(None), Proxy::start(None));
    let servers = one(&format!("http://{addr}/mcp"));
    let env = [("HTTP_PROXY", env_proxy.url.as_str())];
    let (code, _, all) = probe(dir.path(), &servers, &["--proxy", &flag_proxy.url], &env);
    assert_eq!(code, 0, "{all}");
    assert!(!flag_proxy.lines().is_empty(), "{all}");
    assert_eq!(env_proxy.lines(), Vec::<String>::new());
    let seen = flag_proxy.lines().len();
    // `--proxy none`: straight to the server.
    let (code, _, all) = probe(dir.path(), &servers, &["--proxy", "none"], &env);
    assert_eq!(code, 0, "{all}");
    assert_eq!(env_proxy.lines(), Vec::<String>::new());
    assert_eq!(flag_proxy.lines().len(), seen);
}

#[test]
fn proxy_credentials_are_sent_and_never_printed() {
    let dir = tempfile::tempdir().unwrap();
    let p = pki(&["localhost"], false);
    let ca = dir.path().join("ca.pem");
    fs::write(&ca, &p.ca_pem).unwrap();
    let port = server(Some(&p), None).port();
    let plain = server(None, None);
    let proxy = Proxy::start(None);
    let with_creds = proxy
        .url
        .replace("http://", "http://alice:s3cret-proxy-pw@");
    let servers = format!(
        "{}[servers.q]\nurl = 'http://{plain}/mcp'\n",
        one(&format!("https://localhost:{port}/mcp"))
    );
    let env = [("ALL_PROXY", with_creds.as_str())];
    let args = ["--cacert", ca.to_str().unwrap()];
    let (code, out, all) = probe(dir.path(), &servers, &args, &env);
    assert_eq!(code, 0, "{all}");
    assert_ok(named(&out, "p"));
    assert_ok(named(&out, "q"));
    let basic = "Basic YWxpY2U6czNjcmV0LXByb3h5LXB3"; // alice:s3cret-proxy-pw
    let auths = proxy.authorizations();
    assert!(auths.len() >= 2, "{auths:?}");
    assert!(
        auths.iter().all(|a| a.as_deref() == Some(basic)),
        "{auths:?}"
    );
    // A proxy that refuses: the error names it, without the credentials.
    let refusing = Proxy::start(Some(407));
    let with_creds = refusing
        .url
        .replace("http://", "http://alice:s3cret-proxy-pw@");
    for env in [
        [("HTTPS_PROXY", with_creds.as_str())],
        [("HTTPS_PROXY", "socks5://alice:s3cret-proxy-pw@127.0.0.1:1")],
    ] {
        let (code, _, all) = probe(
            dir.path(),
            &one(&format!("https://localhost:{port}/")),
            &args,
            &env,
        );
        assert_eq!(code, 1, "{all}");
        assert!(!all.contains("s3cret-proxy-pw"), "{all}");
        assert!(!all.contains("YWxpY2U6czNjcmV0LXByb3h5LXB3"), "{all}");
    }
    let (code, all) = probe_status(dir.path(), &["--proxy", &with_creds]);
    assert_eq!(code, 1, "{all}");
    assert!(all.contains(&refusing.url) && all.contains("407"), "{all}");
    assert!(!all.contains("s3cret-proxy-pw"), "{all}");
}

#[test]
fn a_refused_tunnel_and_an_unsupported_scheme_have_their_codes() {
    let dir = tempfile::tempdir().unwrap();
    let proxy = Proxy::start(Some(403));
    let servers = one("https://mcp.example.com/mcp");
    let (code, out, all) = probe(dir.path(), &servers, &[], &[("HTTPS_PROXY", &proxy.url)]);
    assert_eq!(code, 1, "{all}");
    let o = named(&out, "p");
    assert_eq!(o["code"], "proxy-refused", "{o}");
    let error = o["error"].as_str().unwrap_or("");
    assert!(
        error.contains("HTTP 403") && error.contains("CONNECT mcp.example.com:443"),
        "{o}"
    );
    assert_eq!(proxy.lines(), ["CONNECT mcp.example.com:443 HTTP/1.1"]);
    // A SOCKS proxy in the environment fails the servers that need it.
    let env = [("ALL_PROXY", "socks5://127.0.0.1:1080")];
    let (code, out, all) = probe(dir.path(), &servers, &[], &env);
    assert_eq!(code, 1, "{all}");
    assert_eq!(named(&out, "p")["code"], "proxy-unsupported", "{all}");
    // As `--proxy`, it is a usage error.
    let (code, all) = probe_status(dir.path(), &["--proxy", "socks5://127.0.0.1:1080"]);
    assert_eq!(code, 2, "{all}");
    assert!(all.contains("unsupported proxy scheme"), "{all}");
}

/// `mcpconf probe ARGS` (text output) over the manifest the last `probe` wrote: the exit code
/// and all output.
fn probe_status(dir: &std::path::Path, args: &[&str]) -> (i32, String) {
    let out = crate::common::mcpconf_cmd()
        .arg("probe")
        .args(args)
        .arg("-m")
        .arg(dir.join("mcpconf.toml"))
        .arg("--root")
        .arg(dir)
        .arg("--home")
        .arg(dir)
        .arg("--state-dir")
        .arg(dir.join("state"))
        .output()
        .expect("run mcpconf");
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), all)
}
