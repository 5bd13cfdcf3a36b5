//! `mcpconf probe` over https and against servers that require authorization, on loopback
//! only: a streamable HTTP MCP server behind rustls with a certificate from a CA made here
//! (rcgen), trusted through `SSL_CERT_FILE` or `--cacert` (ok) or not at all, for another
//! name, or expired (`tls`); a plain-HTTP server at an `https://` URL (`tls`, no hang); and a
//! server answering 401 with `resource_metadata` (`needs-auth` naming its authorization server
//! and scopes; with the right bearer token, ok).

use std::fs;
use std::io::{BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use serde_json::{Value, json};

use super::read_request;
use crate::common::mcpconf_cmd;

/// A test CA and a server certificate it signed (the registry's https test uses it too).
pub(crate) struct Pki {
    pub(crate) ca_pem: String,
    pub(crate) leaf: CertificateDer<'static>,
    pub(crate) key: Vec<u8>,
}

pub(crate) fn pki(names: &[&str], expired: bool) -> Pki {
    let ca_key = KeyPair::generate().expect("CA key");
    let mut ca = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "mcpconf test CA");
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca = CertifiedIssuer::self_signed(ca, ca_key).expect("CA certificate");
    let key = KeyPair::generate().expect("server key");
    let mut params =
        CertificateParams::new(names.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            .expect("server params");
    if expired {
        params.not_before = rcgen::date_time_ymd(2000, 1, 1);
        params.not_after = rcgen::date_time_ymd(2001, 1, 1);
    }
    let leaf = params.signed_by(&key, &ca).expect("server certificate");
    Pki {
        ca_pem: ca.pem(),
        leaf: leaf.der().clone(),
        key: key.serialize_der(),
    }
}

fn respond(w: &mut impl Write, status: &str, extra: &str, body: &str) {
    let _ = write!(
        w,
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = w.flush();
}

/// A minimal MCP server over one connection: `initialize`, notifications, one `tools/list`
/// page. With `token`, every MCP request needs `Authorization: Bearer TOKEN` and a 401 points
/// to the protected-resource metadata served here.
fn serve(stream: &mut (impl Read + Write), addr: SocketAddr, token: Option<&str>) {
    let Some(req) = read_request(&mut BufReader::new(&mut *stream)) else {
        return;
    };
    let meta_path = "/.well-known/oauth-protected-resource/mcp";
    if req.method == "GET" && req.path == meta_path {
        let doc = json!({
            "resource": format!("http://{addr}/mcp"),
            "authorization_servers": ["https://auth.example.test/tenant-7"],
            "scopes_supported": ["mcp:tools", "mcp:admin"],
        });
        return respond(stream, "200 OK", "", &doc.to_string());
    }
    if let Some(t) = token
        && req.header("authorization") != Some(&format!("Bearer {t}"))
    {
        let challenge = format!(
            "WWW-Authenticate: Bearer resource_metadata=\"http://{addr}{meta_path}\", scope=\"mcp:tools\"\r\n"
        );
        return respond(stream, "401 Unauthorized", &challenge, "{}");
    }
    if req.method == "DELETE" {
        return respond(stream, "200 OK", "", "");
    }
    let id = req.body.get("id").cloned().unwrap_or(Value::Null);
    let result = match req.body.get("method").and_then(Value::as_str) {
        Some("initialize") => json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "loop-tls", "version": "1.0"}}),
        Some("tools/list") => json!({"tools": [{"name": "alpha"}, {"name": "beta"}]}),
        _ => return respond(stream, "202 Accepted", "", ""),
    };
    let body = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
    respond(stream, "200 OK", "", &body);
}

/// Serve connections on a loopback port: over TLS with `pki`, else plain.
pub(super) fn server(pki: Option<&Pki>, token: Option<&'static str>) -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let addr = l.local_addr().expect("addr");
    let config = pki.map(|p| {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        Arc::new(
            rustls::ServerConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .expect("versions")
                .with_no_client_auth()
                .with_single_cert(
                    vec![p.leaf.clone()],
                    PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(p.key.clone())),
                )
                .expect("server config"),
        )
    });
    thread::spawn(move || {
        for conn in l.incoming().take(100) {
            let Ok(s) = conn else { continue };
            let config = config.clone();
            thread::spawn(move || {
                let _ = s.set_read_timeout(Some(Duration::from_secs(30)));
                match config {
                    Some(c) => {
                        let Ok(tls) = rustls::ServerConnection::new(c) else {
                            return;
                        };
                        let mut s = rustls::StreamOwned::new(tls, s);
                        serve(&mut s, addr, token);
                        s.conn.send_close_notify();
                        let _ = s.flush();
                    }
                    None => {
                        let mut s = s;
                        serve(&mut s, addr, token);
                    }
                }
            });
        }
    });
    addr
}

/// Run `mcpconf probe --format json` over a manifest of `servers`; the parsed outcomes by name.
pub(super) fn probe(
    dir: &Path,
    servers: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> (i32, Vec<Value>, String) {
    let manifest = dir.join("mcpconf.toml");
    fs::write(
        &manifest,
        format!("owner = \"t\"\n\n{servers}\n[[targets]]\nclient = \"cursor\"\n"),
    )
    .expect("write manifest");
    let out = mcpconf_cmd()
        .args(["probe", "--format", "json", "--timeout", "60"])
        .args(args)
        .arg("-m")
        .arg(&manifest)
        .arg("--root")
        .arg(dir)
        .arg("--home")
        .arg(dir)
        .arg("--state-dir")
        .arg(dir.join("state"))
        .env_remove("SSL_CERT_FILE")
        .env_remove("SSL_CERT_DIR")
        .envs(env.iter().copied())
        .output()
        .expect("run mcpconf");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let servers = doc["servers"].as_array().cloned().unwrap_or_default();
    (
        out.status.code().unwrap_or(-1),
        servers,
        format!("{text}{}", String::from_utf8_lossy(&out.stderr)),
    )
}

pub(super) fn named<'a>(servers: &'a [Value], name: &str) -> &'a Value {
    servers
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no outcome for {name}: {servers:?}"))
}

pub(super) fn assert_ok(o: &Value) {
    assert_eq!(o["ok"], true, "{o}");
    assert_eq!(o["transport"], "http", "{o}");
    assert_eq!(o["tools"], json!(["alpha", "beta"]), "{o}");
}

fn assert_tls(o: &Value, says: &str) {
    assert_eq!(o["ok"], false, "{o}");
    assert_eq!(o["code"], "tls", "{o}");
    assert!(o["tools"].as_array().is_some_and(Vec::is_empty), "{o}");
    assert!(
        o["error"].as_str().unwrap_or_default().contains(says),
        "`{says}` not in {o}"
    );
}

fn write_ca(dir: &Path, pki: &Pki) -> PathBuf {
    let p = dir.join("ca.pem");
    fs::write(&p, &pki.ca_pem).expect("write CA");
    p
}

#[test]
fn https_is_verified_against_ssl_cert_file_and_cacert() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = pki(&["localhost"], false);
    let ca = write_ca(dir.path(), &good);
    let ca = ca.to_str().expect("utf-8 path");
    let port = server(Some(&good), None).port();
    let servers = format!(
        "[servers.by-name]\nurl = 'https://localhost:{port}/mcp'\n\
         [servers.wrong-name]\nurl = 'https://127.0.0.1:{port}/mcp'\n"
    );
    // Trusted through SSL_CERT_FILE: ok; the certificate does not name 127.0.0.1: tls.
    let (code, out, all) = probe(dir.path(), &servers, &[], &[("SSL_CERT_FILE", ca)]);
    assert_eq!(code, 1, "{all}");
    assert_ok(named(&out, "by-name"));
    assert_tls(named(&out, "wrong-name"), "not valid for `127.0.0.1`");
    // Trusted through --cacert (no variable set): ok.
    let (code, out, all) = probe(dir.path(), &servers, &["--cacert", ca], &[]);
    assert_eq!(code, 1, "{all}");
    assert_ok(named(&out, "by-name"));
    // Trusted by nothing (the system roots do not hold the test CA): tls, exit 1.
    let (code, out, all) = probe(dir.path(), &servers, &[], &[]);
    assert_eq!(code, 1, "{all}");
    assert_tls(named(&out, "by-name"), "not trusted");
    // A --cacert that holds no certificate: tls, saying so.
    let bogus = dir.path().join("bogus.pem");
    fs::write(&bogus, "not a certificate\n").expect("write");
    let (_, out, _) = probe(
        dir.path(),
        &servers,
        &["--cacert", bogus.to_str().expect("utf-8")],
        &[],
    );
    assert_tls(named(&out, "by-name"), "--cacert");
}

#[test]
fn expired_certificates_and_plain_servers_at_https_urls_fail_with_tls() {
    let dir = tempfile::tempdir().expect("tempdir");
    let old = pki(&["localhost"], true);
    let ca = write_ca(dir.path(), &old);
    let expired = server(Some(&old), None).port();
    let plain = server(None, None).port();
    let servers = format!(
        "[servers.expired]\nurl = 'https://localhost:{expired}/mcp'\n\
         [servers.plain]\nurl = 'https://localhost:{plain}/mcp'\n\
         [servers.plain-http]\nurl = 'http://localhost:{plain}/mcp'\n"
    );
    let (code, out, all) = probe(
        dir.path(),
        &servers,
        &["--cacert", ca.to_str().expect("utf-8")],
        &[],
    );
    assert_eq!(code, 1, "{all}");
    assert_tls(named(&out, "expired"), "expired");
    assert_tls(named(&out, "plain"), "TLS");
    assert_ok(named(&out, "plain-http"));
}

#[test]
fn a_401_reports_needs_auth_with_the_authorization_server_and_a_bearer_passes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let addr = server(None, Some("right-token-5150"));
    let servers = format!(
        "[servers.anonymous]\nurl = 'http://{addr}/mcp'\n\
         [servers.wrong]\nurl = 'http://{addr}/mcp'\nheaders = {{ Authorization = 'Bearer ${{MCPCONF_T_WRONG}}' }}\n\
         [servers.right]\nurl = 'http://{addr}/mcp'\nheaders = {{ Authorization = 'Bearer ${{MCPCONF_T_RIGHT}}' }}\n"
    );
    let (code, out, all) = probe(
        dir.path(),
        &servers,
        &[],
        &[
            ("MCPCONF_T_WRONG", "wrong-token-0000"),
            ("MCPCONF_T_RIGHT", "right-token-5150"),
        ],
    );
    assert_eq!(code, 1, "{all}");
    for name in ["anonymous", "wrong"] {
        let o = named(&out, name);
        assert_eq!(o["ok"], false, "{o}");
        assert_eq!(o["code"], "needs-auth", "{o}");
        assert_eq!(
            o["login"]["issuers"],
            json!(["https://auth.example.test/tenant-7"]),
            "{o}"
        );
        assert_eq!(o["login"]["scopes"], json!(["mcp:tools"]), "{o}");
        assert_eq!(
            o["login"]["metadata"],
            format!("http://{addr}/.well-known/oauth-protected-resource/mcp"),
            "{o}"
        );
        let e = o["error"].as_str().unwrap_or_default();
        assert!(
            e.contains("https://auth.example.test/tenant-7") && e.contains("mcp:tools"),
            "{e}"
        );
    }
    assert_ok(named(&out, "right"));
    assert!(
        !all.contains("right-token-5150") && !all.contains("wrong-token-0000"),
        "{all}"
    );
}
