//! `mcpconf probe` against real MCP servers from the npm registry, at the versions that
//! `scripts/test` pins and installs into `target/npm` (`$MCPCONF_NPM_BIN` names the bin
//! directory): `@modelcontextprotocol/server-everything` over stdio and over streamable HTTP,
//! and `agent-browser mcp` with its `core` profile (one `tools/list` page) and its `all`
//! profile (several pages).
//!
//! When the servers are not installed, the tests print SKIPPED only if `scripts/test` recorded
//! that the registry could not be reached; otherwise they fail.

use std::fs;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use mcpconf::manifest::Manifest;
use mcpconf::probe::{self, Options, Outcome};
use serde_json::Value;

use crate::common::{mcpconf_cmd, probe_manifest};

fn npm_bin() -> Option<PathBuf> {
    let bin = std::env::var_os("MCPCONF_NPM_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("target/npm/node_modules/.bin")
        });
    if bin.join("mcp-server-everything").exists() && bin.join("agent-browser").exists() {
        return Some(bin);
    }
    let marker = bin.join("../../.unreachable");
    match fs::read_to_string(&marker) {
        Ok(why) => {
            eprintln!(
                "SKIPPED: the real MCP servers are not installed: {}",
                why.trim()
            );
            None
        }
        Err(_) => panic!(
            "the real MCP servers are not in {}: run scripts/test, which installs them (or set MCPCONF_NPM_BIN)",
            bin.display()
        ),
    }
}

fn probe_all(m: &Manifest) -> Vec<Outcome> {
    let opts = Options {
        timeout: Duration::from_secs(60),
        parallel: 4,
        base_dir: std::env::temp_dir(),
        cacert: None,
        proxy: mcpconf::probe::Proxies::default(),
        smoke: false,
    };
    let servers: Vec<_> = m.servers.iter().collect();
    probe::probe_all(&servers, &opts, &|v: &str| std::env::var(v).ok())
}

/// A server process in its own group, killed with the group when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        // SAFETY: kill(2) on the process group of a child this test started.
        unsafe { libc::kill(-(self.0.id() as i32), libc::SIGKILL) };
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

#[test]
fn server_everything_over_stdio_and_streamable_http() {
    let Some(bin) = npm_bin() else { return };
    let exe = bin.join("mcp-server-everything");
    let m = probe_manifest(&format!(
        "[servers.everything]\ncommand = '{}'\nargs = ['stdio']\ntools = ['echo', 'get-sum', 'not-a-tool']\n",
        exe.display()
    ));
    let stdio = probe_all(&m).remove(0);
    assert!(stdio.ok, "{stdio:?}");
    // A handshake-era release, or one that speaks the stateless revision too.
    assert!(
        matches!(
            stdio.protocol_version.as_deref(),
            Some("2025-11-25" | "2026-07-28")
        ),
        "{stdio:?}"
    );
    assert_eq!(
        stdio.server.as_ref().map(|s| s.name.as_str()),
        Some("mcp-servers/everything")
    );
    for t in ["echo", "get-sum", "get-env"] {
        assert!(stdio.tools.iter().any(|x| x == t), "{t}: {stdio:?}");
    }
    assert!(stdio.tools.len() >= 10, "{:?}", stdio.tools);
    let expected_unpinned: Vec<&String> = stdio
        .tools
        .iter()
        .filter(|t| *t != "echo" && *t != "get-sum")
        .collect();
    assert_eq!(stdio.unpinned.iter().collect::<Vec<_>>(), expected_unpinned);
    assert_eq!(stdio.missing, ["not-a-tool"]);
    // Context cost (issue 43): every tool costs something; only the pinned ones reach the
    // agent; the parts add up.
    let cost = |t: &str| stdio.context_by_tool.get(t).copied().unwrap_or(0);
    assert!(stdio.tools.iter().all(|t| cost(t) > 0), "{stdio:?}");
    let all: u64 = stdio.context_by_tool.values().sum();
    assert_eq!(stdio.context_tokens_all, Some(all));
    assert_eq!(stdio.context_tokens, Some(cost("echo") + cost("get-sum")));
    assert!(all > stdio.context_tokens.unwrap_or(0) + 100, "{stdio:?}");

    // The same package as a streamable HTTP server on a loopback port.
    let port = free_port();
    let mut child = Command::new(&exe)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("start the streamable HTTP server");
    let stderr = child.stderr.take().expect("stderr");
    let server = Running(child);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains("listening on port") {
                let _ = tx.send(());
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(30))
        .expect("the HTTP server says it listens");
    let m = probe_manifest(&format!(
        "[servers.everything-http]\nurl = 'http://127.0.0.1:{port}/mcp'\n"
    ));
    let http = probe_all(&m).remove(0);
    drop(server);
    assert!(http.ok, "{http:?}");
    assert_eq!(http.transport, "http");
    // A handshake-era release, or one that speaks the stateless revision too.
    assert!(
        matches!(
            http.protocol_version.as_deref(),
            Some("2025-11-25" | "2026-07-28")
        ),
        "{http:?}"
    );
    let mut a = stdio.tools.clone();
    let mut b = http.tools.clone();
    a.sort();
    b.sort();
    assert_eq!(a, b, "the same tools over both transports");
    // Without a pin, every tool reaches the agent; the same definitions cost the same.
    assert_eq!(http.context_tokens, http.context_tokens_all);
    assert_eq!(http.context_by_tool, stdio.context_by_tool);
    assert!(http.unpinned.is_empty() && http.missing.is_empty());
}

/// Start `mcp-server-everything MODE` on a free loopback port; wait until it says it listens.
fn start_everything(exe: &Path, mode: &str, ready: &'static str) -> (Running, u16) {
    let port = free_port();
    let mut child = Command::new(exe)
        .arg(mode)
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("start the server");
    let stderr = child.stderr.take().expect("stderr");
    let server = Running(child);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains(ready) {
                let _ = tx.send(());
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("the server says it listens");
    (server, port)
}

#[test]
fn server_everything_over_legacy_sse() {
    let Some(bin) = npm_bin() else { return };
    let exe = bin.join("mcp-server-everything");
    let (server, port) = start_everything(&exe, "sse", "Server is running on port");
    let m = probe_manifest(&format!(
        "[servers.everything-sse]\nurl = 'http://127.0.0.1:{port}/sse'\ntransport = 'sse'\ntools = ['echo']\n\
         [servers.wrong-transport]\nurl = 'http://127.0.0.1:{port}/sse'\n"
    ));
    let out = probe_all(&m);
    drop(server);
    let sse = &out[0];
    assert!(sse.ok, "{sse:?}");
    assert_eq!(sse.transport, "sse");
    assert_eq!(
        sse.server.as_ref().map(|s| s.name.as_str()),
        Some("mcp-servers/everything")
    );
    for t in ["echo", "get-sum", "get-env"] {
        assert!(sse.tools.iter().any(|x| x == t), "{t}: {sse:?}");
    }
    assert!(sse.tools.len() >= 10, "{:?}", sse.tools);
    assert!(sse.unpinned.iter().any(|t| t == "get-sum") && sse.missing.is_empty());
    // The same endpoint declared as streamable HTTP fails, and says what to declare.
    let wrong = &out[1];
    assert!(!wrong.ok, "{wrong:?}");
    assert_eq!(wrong.transport, "http");
    assert!(
        wrong
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("transport = \"sse\""),
        "{wrong:?}"
    );
}

#[test]
fn agent_browser_core_and_all_profiles() {
    let Some(bin) = npm_bin() else { return };
    let home = tempfile::tempdir().expect("tempdir");
    let exe = bin.join("agent-browser");
    let server = |name: &str, profile: &str| {
        format!(
            "[servers.{name}]\ncommand = '{}'\nargs = ['mcp', '--tools', '{profile}']\nenv = {{ HOME = '{}' }}\n",
            exe.display(),
            home.path().display()
        )
    };
    // The release floor of examples/openab/browser.toml passes; a floor above it fails.
    let m = probe_manifest(&format!(
        "{}min_version = '0.35.1'\n{}{}min_version = '99.0.0'\n",
        server("core", "core"),
        server("all", "all"),
        server("future", "core")
    ));
    let out = probe_all(&m);
    let (core, all) = (&out[0], &out[1]);
    assert_eq!(
        out[2].code.map(probe::FailureCode::as_str),
        Some("version"),
        "{:?}",
        out[2]
    );
    for o in [core, all] {
        assert!(o.ok, "{o:?}");
        let si = o.server.as_ref().expect("server info");
        assert_eq!(
            (si.name.as_str(), si.version.as_str()),
            ("agent-browser", "0.41.2")
        );
    }
    for t in [
        "agent_browser_open",
        "agent_browser_snapshot",
        "agent_browser_click",
    ] {
        assert!(core.tools.iter().any(|x| x == t), "{t}: {:?}", core.tools);
    }
    // agent-browser serves 64 tools a page: `core` fits one page, `all` spans at least three.
    assert!(core.tools.len() < 64, "{}", core.tools.len());
    assert!(all.tools.len() > 128, "{}", all.tools.len());
    for t in &core.tools {
        assert!(all.tools.contains(t), "{t} in core but not in all");
    }
}

#[test]
fn cli_against_real_servers() {
    let Some(bin) = npm_bin() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |pin: &str| {
        let p = dir.path().join("mcpconf.toml");
        fs::write(
            &p,
            format!(
                "owner = \"t\"\n\n[servers.browser]\ncommand = '{}'\nargs = ['mcp', '--tools', 'core']\nenv = {{ HOME = '{}' }}\n{pin}\n\
                 [servers.everything]\ncommand = '{}'\n\n[[targets]]\nclient = \"cursor\"\n",
                bin.join("agent-browser").display(),
                dir.path().display(),
                bin.join("mcp-server-everything").display()
            ),
        )
        .expect("manifest");
        p
    };
    let run = |m: &Path, extra: &[&str]| {
        let out = mcpconf_cmd()
            .arg("probe")
            .args(extra)
            .arg("--format")
            .arg("json")
            .arg("-m")
            .arg(m)
            .arg("--root")
            .arg(dir.path())
            .arg("--home")
            .arg(dir.path())
            .output()
            .expect("run mcpconf");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (out.status.code(), v)
    };
    // No pins: everything passes, and --write-pins proposes both lists.
    let m = write("");
    let (code, v) = run(&m, &["--write-pins"]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["servers"][0]["ok"], true, "{v}");
    assert_eq!(v["servers"][1]["ok"], true, "{v}");
    let diff = v["pins_diff"].as_str().unwrap_or_default();
    assert_eq!(diff.matches("+tools = [").count(), 2, "{diff}");
    assert!(diff.contains("\"agent_browser_open\"") && diff.contains("\"get-sum\""));
    // A pin narrower than what the server exposes: exit 1, the rest is unpinned.
    let m = write("tools = ['agent_browser_open', 'agent_browser_gone']");
    let (code, v) = run(&m, &["browser"]);
    assert_eq!(code, Some(1), "{v}");
    let s = &v["servers"][0];
    assert_eq!(s["ok"], true);
    assert_eq!(s["missing"], serde_json::json!(["agent_browser_gone"]));
    let unpinned: Vec<&str> = s["unpinned"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    assert!(unpinned.contains(&"agent_browser_snapshot"), "{s}");
    assert!(!unpinned.contains(&"agent_browser_open"), "{s}");
}

/// The official MCP Python SDK (`mcp`, pinned in `scripts/test`, in `target/mcp-sdk`), or
/// `None` (SKIPPED) when scripts/test recorded that PyPI could not be reached.
fn mcp_sdk_python() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/mcp-sdk");
    let python = dir.join("bin/python");
    if python.exists() && dir.join(".installed").exists() {
        return Some(python);
    }
    match fs::read_to_string(dir.with_extension("unavailable")) {
        Ok(why) => {
            eprintln!(
                "SKIPPED: the MCP Python SDK is not installed: {}",
                why.trim()
            );
            None
        }
        Err(_) => panic!(
            "the MCP Python SDK is not in {}: run scripts/test, which installs it",
            dir.display()
        ),
    }
}

/// The SDK's dual-era server is probed in the stateless revision (2026-07-28), over stdio and
/// over streamable HTTP (`Mcp-Method` headers, no session), and passes `--smoke`.
#[test]
fn mcp_python_sdk_server_is_probed_as_2026_07_28_over_stdio_and_http() {
    let Some(python) = mcp_sdk_python() else {
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_sdk_server.py");
    let dir = tempfile::tempdir().unwrap();
    let port_file = dir.path().join("port");
    let mut cmd = Command::new(&python);
    cmd.arg(&script)
        .arg("http")
        .arg(&port_file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    let _server = Running(cmd.spawn().expect("start the SDK server"));
    let until = std::time::Instant::now() + Duration::from_secs(60);
    let port = loop {
        if let Ok(p) = fs::read_to_string(&port_file) {
            break p.trim().to_string();
        }
        assert!(
            std::time::Instant::now() < until,
            "the SDK server wrote no port"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let url = format!("http://127.0.0.1:{port}/mcp");
    // Wait until it listens.
    while std::net::TcpStream::connect(format!("127.0.0.1:{port}")).is_err() {
        assert!(
            std::time::Instant::now() < until,
            "the SDK server never listened"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let m = probe_manifest(&format!(
        "[servers.stdio]\ncommand = '{}'\nargs = ['{}', 'stdio']\ntools = ['add', 'echo']\n\
         [servers.http]\nurl = '{url}'\ntools = ['add', 'echo']\n",
        python.display(),
        script.display()
    ));
    let servers: Vec<_> = m.servers.iter().collect();
    let opts = Options {
        timeout: Duration::from_secs(60),
        parallel: 2,
        base_dir: std::env::temp_dir(),
        cacert: None,
        proxy: mcpconf::probe::Proxies::default(),
        smoke: true,
    };
    for o in probe::probe_all(&servers, &opts, &|_: &str| None) {
        assert!(o.passes(), "{o:?}");
        assert_eq!(o.protocol_version.as_deref(), Some("2026-07-28"), "{o:?}");
        assert_eq!(o.tools, ["add", "echo"]);
        let info = o.server.as_ref().expect("serverInfo in the results' _meta");
        assert_eq!(info.name, "mcpconf-sdk-test");
    }
}
