//! `mcpconf lock` and registry servers against a local registry of our own: a small HTTP
//! server that serves `server.json` documents at `/v0.1/servers/{name}/versions/{version}` (each
//! package type, secrets, required variables, remotes with headers), a 404, an oversized and a
//! malformed answer. The lock is written, then used with the registry gone.

use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread;

use serde_json::{Value, json};

use crate::common::{Scratch, code, report, run_bounded, show};

const SECRET: &str = "sk-live-planted-0123456789abcdef";

/// A registry on 127.0.0.1: path → (status, body). Each request is counted.
struct Registry {
    url: String,
    hits: Arc<Mutex<Vec<String>>>,
}

type Routes = HashMap<String, (u16, Vec<u8>)>;

/// Answer one request on `s` from `routes` (a 404 for any other path); the path asked for.
fn answer(s: &mut (impl Read + Write), routes: &Routes) -> Option<String> {
    let mut r = BufReader::new(&mut *s);
    let mut line = String::new();
    r.read_line(&mut line).ok()?;
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
            break;
        }
    }
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let (status, body) = routes
        .get(&path)
        .cloned()
        .unwrap_or((404, b"{\"error\":\"not found\"}".to_vec()));
    // A body that starts with `LIE:` claims 40 MiB in its Content-Length (an oversized answer
    // caught before it is read).
    let claimed = if body.starts_with(b"LIE:") {
        40 << 20
    } else {
        body.len()
    };
    let _ = write!(
        s,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {claimed}\r\nConnection: close\r\n\r\n",
    );
    let _ = s.write_all(&body);
    let _ = s.flush();
    Some(path)
}

fn registry(routes: Routes) -> Registry {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let hits = Arc::new(Mutex::new(Vec::new()));
    let seen = hits.clone();
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            if let Some(path) = answer(&mut s, &routes) {
                seen.lock().unwrap().push(path);
            }
        }
    });
    Registry { url, hits }
}

/// The same registry behind rustls, with a certificate for `localhost` from a CA made here.
fn https_registry(routes: Routes) -> (String, String) {
    use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
    let pki = crate::probe::tls::pki(&["localhost"], false);
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = Arc::new(
        rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![pki.leaf.clone()],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(pki.key.clone())),
            )
            .unwrap(),
    );
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    thread::spawn(move || {
        for stream in listener.incoming().take(20) {
            let Ok(s) = stream else { continue };
            let Ok(conn) = rustls::ServerConnection::new(config.clone()) else {
                continue;
            };
            let mut tls = rustls::StreamOwned::new(conn, s);
            answer(&mut tls, &routes);
            tls.conn.send_close_notify();
            let _ = tls.flush();
        }
    });
    (format!("https://localhost:{port}"), pki.ca_pem)
}

fn route(name: &str, version: &str) -> String {
    format!(
        "/v0.1/servers/{}/versions/{version}",
        name.replace('/', "%2F")
    )
}

fn served(server: Value) -> (u16, Vec<u8>) {
    (
        200,
        serde_json::to_vec(&json!({"server": server, "_meta": {}})).unwrap(),
    )
}

fn routes() -> Routes {
    let env = json!([
        {"name": "ACME_TOKEN", "isSecret": true, "isRequired": true, "value": SECRET},
        {"name": "LOG_LEVEL", "default": "info"},
    ]);
    let pkg = |kind: &str, id: &str| {
        json!({"registryType": kind, "identifier": id, "version": "1.2.3",
               "transport": {"type": "stdio"}, "environmentVariables": env})
    };
    let mut m = HashMap::new();
    m.insert(
        route("io.github.acme/files", "1.2.3"),
        served(
            json!({"name": "io.github.acme/files", "version": "1.2.3", "description": "files",
            "packages": [pkg("npm", "@acme/files"), pkg("pypi", "acme-files"),
                         pkg("oci", "ghcr.io/acme/files"), pkg("nuget", "Acme.Files")]}),
        ),
    );
    m.insert(
        route("io.github.acme/db", "3.1.0"),
        served(
            json!({"name": "io.github.acme/db", "version": "3.1.0", "description": "db",
            "packages": [{"registryType": "npm", "identifier": "@acme/db", "version": "3.1.0",
                "transport": {"type": "stdio"},
                "environmentVariables": [{"name": "DB_USER", "isRequired": true}]}]}),
        ),
    );
    m.insert(
        route("io.github.acme/remote", "2.0.0"),
        served(json!({"name": "io.github.acme/remote", "version": "2.0.0", "description": "r",
            "remotes": [{"type": "streamable-http", "url": "https://mcp.acme.example/mcp",
                "headers": [{"name": "Authorization", "value": format!("Bearer {SECRET}"), "isSecret": true}]}]})),
    );
    m.insert(
        route("io.github.acme/mcpb", "1.0.0"),
        served(
            json!({"name": "io.github.acme/mcpb", "version": "1.0.0", "description": "b",
            "packages": [{"registryType": "mcpb", "identifier": "https://x.example/a.mcpb",
                          "fileSha256": "00", "transport": {"type": "stdio"}}]}),
        ),
    );
    m.insert(
        route("io.github.acme/huge", "1.0.0"),
        (200, vec![b' '; 5 << 20]),
    );
    m.insert(
        route("io.github.acme/huger", "1.0.0"),
        (200, b"LIE:{}".to_vec()),
    );
    m.insert(
        route("io.github.acme/bad", "1.0.0"),
        (200, b"{\"server\": [".to_vec()),
    );
    m.insert(
        route("io.github.acme/down", "1.0.0"),
        (503, b"busy".to_vec()),
    );
    m
}

fn manifest(s: &Scratch, servers: &str) -> std::path::PathBuf {
    s.manifest(
        "mcpconf.toml",
        &format!("owner = \"o\"\n{servers}\n[[targets]]\nclient = \"cursor\"\n"),
    )
}

/// One registry server, npm's `@acme/files` 1.2.3 of the local registry.
const FILES: &str = "[servers.f]\nregistry = \"io.github.acme/files\"\nversion = \"1.2.3\"\n";

/// A scratch project whose manifest declares `servers`, locked against `reg`.
fn locked(reg: &Registry, servers: &str) -> (Scratch, std::path::PathBuf) {
    let s = Scratch::new();
    let m = manifest(&s, servers);
    assert_eq!(code(&lock(&s, &m, &reg.url).status, "lock"), 0);
    (s, m)
}

fn lock(s: &Scratch, m: &Path, reg: &str) -> std::process::Output {
    let mut c = crate::common::mcpconf_cmd();
    c.args([
        "lock",
        "-m",
        &m.display().to_string(),
        "--registry",
        reg,
        "--timeout",
        "20",
    ]);
    let _ = s;
    run_bounded(c, crate::common::PROCESS_TIMEOUT)
}

fn cursor(s: &Scratch) -> Value {
    serde_json::from_slice(&fs::read(s.root().join(".cursor/mcp.json")).unwrap()).unwrap()
}

#[test]
fn lock_resolves_each_package_type_and_plan_then_needs_no_registry() {
    let reg = registry(routes());
    let s = Scratch::new();
    let m = manifest(
        &s,
        "[servers.npm]\nregistry = \"io.github.acme/files\"\nversion = \"1.2.3\"\n\
         [servers.py]\nregistry = \"io.github.acme/files\"\nversion = \"1.2.3\"\npackage = \"pypi\"\n\
         [servers.oci]\nregistry = \"io.github.acme/files\"\nversion = \"1.2.3\"\npackage = \"oci\"\n\
         [servers.net]\nregistry = \"io.github.acme/files\"\nversion = \"1.2.3\"\npackage = \"nuget\"\n\
         [servers.web]\nregistry = \"io.github.acme/remote\"\nversion = \"2.0.0\"\nremote = true\n\
         [servers.db]\nregistry = \"io.github.acme/db\"\nversion = \"3.1.0\"\nenv = { DB_USER = \"app\" }\n",
    );
    let out = lock(&s, &m, &reg.url);
    assert_eq!(code(&out.status, "lock"), 0, "{}", show(&out));
    let lock_text = fs::read_to_string(s.path().join("mcpconf.lock")).unwrap();
    assert!(!lock_text.contains(SECRET), "{lock_text}");
    assert!(lock_text.contains("digest = \"sha256:"), "{lock_text}");
    assert_eq!(reg.hits.lock().unwrap().len(), 6);

    // The registry is not asked again: plan and apply read the lock.
    let asked = reg.hits.lock().unwrap().len();
    let apply = run_bounded(
        s.cmd("apply", &m, &["--yes"]),
        crate::common::PROCESS_TIMEOUT,
    );
    assert_eq!(code(&apply.status, "apply"), 0, "{}", show(&apply));
    assert!(!String::from_utf8_lossy(&apply.stdout).contains(SECRET));
    let c = cursor(&s);
    let servers = &c["mcpServers"];
    assert_eq!(servers["npm"]["command"], "npx");
    assert_eq!(servers["npm"]["args"], json!(["-y", "@acme/files@1.2.3"]));
    assert_eq!(servers["npm"]["env"]["ACME_TOKEN"], "${env:ACME_TOKEN}");
    assert_eq!(servers["npm"]["env"]["LOG_LEVEL"], "info");
    assert_eq!(servers["py"]["command"], "uvx");
    assert_eq!(servers["py"]["args"], json!(["acme-files==1.2.3"]));
    assert_eq!(servers["oci"]["command"], "docker");
    assert_eq!(
        servers["oci"]["args"],
        json!([
            "run",
            "-i",
            "--rm",
            "-e",
            "ACME_TOKEN",
            "-e",
            "LOG_LEVEL",
            "ghcr.io/acme/files:1.2.3"
        ])
    );
    assert_eq!(servers["net"]["command"], "dnx");
    assert_eq!(servers["web"]["url"], "https://mcp.acme.example/mcp");
    assert_eq!(
        servers["web"]["headers"]["Authorization"],
        "${env:AUTHORIZATION}"
    );
    assert_eq!(servers["db"]["env"]["DB_USER"], "app");
    assert!(
        !fs::read_to_string(s.root().join(".cursor/mcp.json"))
            .unwrap()
            .contains(SECRET)
    );
    assert_eq!(
        reg.hits.lock().unwrap().len(),
        asked,
        "plan and apply asked the registry"
    );
}

#[test]
fn a_saved_plan_records_what_the_lock_resolved() {
    let reg = registry(routes());
    let (s, m) = locked(&reg, FILES);
    let saved = s.path().join("plan.json");
    let out = run_bounded(
        s.cmd("plan", &m, &["--out", &saved.display().to_string()]),
        crate::common::PROCESS_TIMEOUT,
    );
    assert_eq!(code(&out.status, "plan --out"), 0, "{}", show(&out));
    // The lock changes under the same manifest (only the digest of the document it was
    // resolved from: the files would come out the same): the saved plan is stale.
    let lock_path = s.path().join("mcpconf.lock");
    let text = fs::read_to_string(&lock_path).unwrap();
    fs::write(
        &lock_path,
        text.replace("digest = \"sha256:", "digest = \"sha256:0"),
    )
    .unwrap();
    let out = run_bounded(
        s.cmd(
            "apply",
            &m,
            &["--yes", "--format", "json", &saved.display().to_string()],
        ),
        crate::common::PROCESS_TIMEOUT,
    );
    assert_eq!(code(&out.status, "apply PLAN"), 3, "{}", show(&out));
    assert_eq!(
        report(&out)["errors"][0]["code"],
        "stale-plan",
        "{}",
        show(&out)
    );
    let message = report(&out)["errors"][0]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains("lock"), "{message}");
    assert!(!s.root().join(".cursor/mcp.json").exists());
}

#[test]
fn a_manifest_change_is_caught_against_the_lock_and_lock_fixes_it() {
    let reg = registry(routes());
    let (s, m) = locked(&reg, FILES);
    let before = fs::read(s.path().join("mcpconf.lock")).unwrap();
    // Locking again changes nothing.
    let again = lock(&s, &m, &reg.url);
    assert_eq!(code(&again.status, "lock"), 0);
    assert!(
        String::from_utf8_lossy(&again.stdout).contains("Unchanged"),
        "{}",
        show(&again)
    );
    assert_eq!(fs::read(s.path().join("mcpconf.lock")).unwrap(), before);

    let m = manifest(
        &s,
        "[servers.f]\nregistry = \"io.github.acme/files\"\nversion = \"1.2.3\"\npackage = \"pypi\"\n",
    );
    let plan = run_bounded(
        s.cmd("plan", &m, &["--format", "json"]),
        crate::common::PROCESS_TIMEOUT,
    );
    assert_eq!(code(&plan.status, "plan"), 2, "{}", show(&plan));
    let r = report(&plan);
    assert_eq!(r["errors"][0]["code"], "manifest-error");
    let msg = r["errors"][0]["message"].as_str().unwrap();
    assert!(
        msg.contains("(pypi)") && msg.contains("run `mcpconf lock`"),
        "{msg}"
    );
    assert_eq!(
        (
            r["errors"][0]["line"].as_u64(),
            r["errors"][0]["column"].as_u64()
        ),
        (Some(3), Some(12))
    );
    assert_eq!(code(&lock(&s, &m, &reg.url).status, "lock"), 0);
    let plan = run_bounded(s.cmd("plan", &m, &[]), crate::common::PROCESS_TIMEOUT);
    assert_eq!(code(&plan.status, "plan"), 0, "{}", show(&plan));
    assert!(String::from_utf8_lossy(&plan.stdout).contains("acme-files==1.2.3"));
    // Without a lock, plan says to run `mcpconf lock`.
    fs::remove_file(s.path().join("mcpconf.lock")).unwrap();
    let plan = run_bounded(s.cmd("plan", &m, &[]), crate::common::PROCESS_TIMEOUT);
    assert_eq!(code(&plan.status, "plan"), 2);
    assert!(
        String::from_utf8_lossy(&plan.stderr).contains("mcpconf.lock has no record"),
        "{}",
        show(&plan)
    );
}

#[test]
fn errors_have_their_codes() {
    let reg = registry(routes());
    for (server, want, exit) in [
        (
            "registry = \"io.github.acme/nope\"\nversion = \"1.0.0\"",
            "not-found",
            2,
        ),
        (
            "registry = \"io.github.acme/mcpb\"\nversion = \"1.0.0\"",
            "unsupported-package",
            2,
        ),
        (
            "registry = \"io.github.acme/huge\"\nversion = \"1.0.0\"",
            "registry-error",
            4,
        ),
        (
            "registry = \"io.github.acme/huger\"\nversion = \"1.0.0\"",
            "registry-error",
            4,
        ),
        (
            "registry = \"io.github.acme/bad\"\nversion = \"1.0.0\"",
            "registry-error",
            4,
        ),
        (
            "registry = \"io.github.acme/down\"\nversion = \"1.0.0\"",
            "registry-error",
            4,
        ),
        (
            "registry = \"io.github.acme/db\"\nversion = \"3.1.0\"",
            "manifest-error",
            2,
        ),
    ] {
        let s = Scratch::new();
        let m = manifest(&s, &format!("[servers.x]\n{server}\n"));
        let mut c = crate::common::mcpconf_cmd();
        c.args([
            "lock",
            "-m",
            &m.display().to_string(),
            "--format",
            "json",
            "--timeout",
            "20",
        ]);
        c.env("MCPCONF_REGISTRY", &reg.url);
        let out = run_bounded(c, crate::common::PROCESS_TIMEOUT);
        assert_eq!(code(&out.status, server), exit, "{server}: {}", show(&out));
        let r = report(&out);
        assert_eq!(r["errors"][0]["code"], want, "{server}: {r}");
        if server.contains("huge") {
            // The registry's cap is 4 MiB, however the answer is oversized (it said 32 MiB, the
            // probe's cap, for one whose Content-Length was over that).
            let m = r["errors"][0]["message"].as_str().unwrap();
            assert!(m.contains("larger than 4 MiB"), "{server}: {m}");
        }
        if want == "manifest-error" {
            assert!(
                r["errors"][0]["message"]
                    .as_str()
                    .unwrap()
                    .contains("`env.DB_USER`"),
                "{r}"
            );
        }
        assert!(
            !s.path().join("mcpconf.lock").exists(),
            "{server}: no lock on failure"
        );
    }
    // A registry that is not a URL is a usage error, in JSON too.
    let s = Scratch::new();
    let m = manifest(
        &s,
        "[servers.x]\nregistry = \"io.github.acme/files\"\nversion = \"1.2.3\"\n",
    );
    let mut c = crate::common::mcpconf_cmd();
    c.args([
        "lock",
        "-m",
        &m.display().to_string(),
        "--format",
        "json",
        "--registry",
        "ftp://x",
    ]);
    let out = run_bounded(c, crate::common::PROCESS_TIMEOUT);
    assert_eq!(code(&out.status, "ftp registry"), 2, "{}", show(&out));
    assert_eq!(
        report(&out)["errors"][0]["code"],
        "usage-error",
        "{}",
        show(&out)
    );
    // Nothing listens: a registry error, not a hang.
    let s = Scratch::new();
    let m = manifest(
        &s,
        "[servers.x]\nregistry = \"io.github.acme/files\"\nversion = \"1.2.3\"\n",
    );
    let dead = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", dead.local_addr().unwrap());
    drop(dead);
    let out = lock(&s, &m, &url);
    assert_eq!(code(&out.status, "dead registry"), 4, "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("registry-error"),
        "{}",
        show(&out)
    );
}

/// SEP-2633's `mcp.json`: apply writes its form (a `type` on every entry, `${env:VAR}`), and
/// import gives the manifest's servers back.
#[test]
fn mcp_json_round_trips() {
    let s = Scratch::new();
    let servers = "[servers.files]\ncommand = \"npx\"\nargs = [\"-y\", \"@acme/files@1.2.3\", \"${ROOT_DIR}\"]\nenv = { API_KEY = \"${API_KEY}\" }\n\n\
                   [servers.web]\nurl = \"https://mcp.acme.example/mcp\"\nheaders = { X-Api-Key = \"${API_TOKEN}\", Authorization = \"Bearer ${TOKEN}\" }\n\n\
                   [servers.old]\nurl = \"https://old.acme.example/sse\"\ntransport = \"sse\"\n";
    let m = s.manifest(
        "mcpconf.toml",
        &format!(
            "owner = \"o\"\n{servers}\n[[targets]]\nclient = \"mcp-json\"\npath = \"mcp.json\"\n"
        ),
    );
    let out = run_bounded(
        s.cmd("apply", &m, &["--yes"]),
        crate::common::PROCESS_TIMEOUT,
    );
    assert_eq!(code(&out.status, "apply"), 0, "{}", show(&out));
    let file: Value =
        serde_json::from_slice(&fs::read(s.root().join("mcp.json")).unwrap()).unwrap();
    assert_eq!(
        file,
        json!({"mcpServers": {
            "files": {"type": "stdio", "command": "npx", "args": ["-y", "@acme/files@1.2.3", "${env:ROOT_DIR}"],
                      "env": {"API_KEY": "${env:API_KEY}"}},
            "web": {"type": "streamable-http", "url": "https://mcp.acme.example/mcp",
                    "headers": {"X-Api-Key": "${env:API_TOKEN}", "Authorization": "Bearer ${env:TOKEN}"}},
            "old": {"type": "sse", "url": "https://old.acme.example/sse"},
        }})
    );
    let mut c = crate::common::mcpconf_cmd();
    c.args([
        "import", "--client", "mcp-json", "--path", "mcp.json", "--owner", "o", "--root",
    ])
    .arg(s.root());
    let out = run_bounded(c, crate::common::PROCESS_TIMEOUT);
    assert_eq!(code(&out.status, "import"), 0, "{}", show(&out));
    let imported = String::from_utf8_lossy(&out.stdout).into_owned();
    let back = mcpconf::manifest::parse(&imported, &mcpconf::known::Known).unwrap();
    let want =
        mcpconf::manifest::parse(&fs::read_to_string(&m).unwrap(), &mcpconf::known::Known).unwrap();
    let mut a = back.servers.clone();
    let mut b = want.servers.clone();
    a.sort_by(|x, y| x.name.cmp(&y.name));
    b.sort_by(|x, y| x.name.cmp(&y.name));
    assert_eq!(a, b, "{imported}");
}

/// An https registry is trusted through `--cacert` (the probe's TLS stack), and refused without.
#[test]
fn an_https_registry_is_trusted_through_cacert() {
    let (url, ca) = https_registry(routes());
    let s = Scratch::new();
    let m = manifest(&s, FILES);
    let ca_file = s.path().join("ca.pem");
    fs::write(&ca_file, ca).unwrap();
    let run = |extra: &[&str]| {
        let mut c = crate::common::mcpconf_cmd();
        c.args([
            "lock",
            "-m",
            &m.display().to_string(),
            "--registry",
            &url,
            "--timeout",
            "20",
        ]);
        c.args(extra)
            .env_remove("SSL_CERT_FILE")
            .env_remove("SSL_CERT_DIR");
        run_bounded(c, crate::common::PROCESS_TIMEOUT)
    };
    let out = run(&[]);
    assert_eq!(code(&out.status, "untrusted"), 4, "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("registry-error"),
        "{}",
        show(&out)
    );
    assert!(!s.path().join("mcpconf.lock").exists());
    let out = run(&["--cacert", &ca_file.display().to_string()]);
    assert_eq!(code(&out.status, "--cacert"), 0, "{}", show(&out));
    assert!(
        fs::read_to_string(s.path().join("mcpconf.lock"))
            .unwrap()
            .contains("@acme/files@1.2.3")
    );
}

/// `mcpconf lock` goes through the proxy of the environment or of `--proxy` (its request in
/// absolute form), and straight to the registry when `NO_PROXY` names it.
#[test]
fn lock_goes_through_the_proxy() {
    let reg = registry(routes());
    let proxy = crate::probe::proxy::Proxy::start(None);
    let s = Scratch::new();
    let m = manifest(&s, FILES);
    let run = |extra: &[&str], env: &[(&str, &str)]| {
        let mut c = crate::common::mcpconf_cmd();
        c.args([
            "lock",
            "-m",
            &m.display().to_string(),
            "--registry",
            &reg.url,
        ]);
        c.args(extra).envs(env.iter().copied());
        run_bounded(c, crate::common::PROCESS_TIMEOUT)
    };
    let path = route("io.github.acme/files", "1.2.3");
    let out = run(&[], &[("HTTP_PROXY", &proxy.url)]);
    assert_eq!(code(&out.status, "env proxy"), 0, "{}", show(&out));
    assert_eq!(proxy.lines(), [format!("GET {}{path} HTTP/1.1", reg.url)]);
    assert!(
        fs::read_to_string(s.path().join("mcpconf.lock"))
            .unwrap()
            .contains("@acme/files@1.2.3")
    );
    let out = run(&["--proxy", &proxy.url], &[]);
    assert_eq!(code(&out.status, "--proxy"), 0, "{}", show(&out));
    assert_eq!(proxy.lines().len(), 2);
    let out = run(
        &[],
        &[("HTTP_PROXY", &proxy.url), ("NO_PROXY", "127.0.0.1")],
    );
    assert_eq!(code(&out.status, "NO_PROXY"), 0, "{}", show(&out));
    assert_eq!(proxy.lines().len(), 2);
    assert_eq!(reg.hits.lock().unwrap().len(), 3);
    // A proxy that cannot be reached is the registry error it is, naming the proxy.
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead_url = format!("http://u:pr0xy-secret@{}", dead.local_addr().unwrap());
    drop(dead);
    let out = run(&["--proxy", &dead_url, "--timeout", "5"], &[]);
    assert_eq!(code(&out.status, "dead proxy"), 4, "{}", show(&out));
    let all = show(&out);
    assert!(
        all.contains("registry-error") && all.contains("the proxy"),
        "{all}"
    );
    assert!(!all.contains("pr0xy-secret"), "{all}");
}
