//! The real clients as oracles: pinned releases of Claude Code, Codex CLI, Gemini CLI, opencode,
//! Qwen Code, GitHub Copilot CLI and Auggie (installed by `scripts/install-clients` into
//! `target/clients`) read what `mcpconf apply` wrote, and must see exactly the declared servers, transports, commands, arguments,
//! URLs and environment references.
//!
//! Every test applies the same manifest: a stdio server whose command is a recorder script
//! (it writes its arguments, working directory and two environment variables to a file and
//! exits) and a remote server whose URL is a recorder HTTP listener on loopback (it keeps each
//! request's head and answers 404). So where a client starts the servers while listing them,
//! the test also proves what the client *did* with the entry: which program it ran with which
//! arguments, what the `${API_KEY}` reference expanded to, and which `Authorization` header
//! it sent for the `Bearer ${REMOTE_TOKEN}` reference.
//!
//! Where a client can rewrite its own file (`claude mcp add`, `codex mcp add`, `opencode mcp
//! add`, opencode adding `$schema`), the test lets it do so and then checks that `mcpconf prune`
//! still finds its entries intact (digests are over canonical values, not bytes) and removes
//! exactly them, leaving the client's own entry. `gemini mcp add` writes the expanded values of
//! references back into the file, so there the entries must be reported as drifted and prune
//! must refuse; in an untrusted folder it drops them, and the next apply must restore them.
//!
//! Each client runs with HOME, XDG directories and CODEX_HOME inside the scratch directory,
//! offline, logged out. The tests skip (saying so) only when `scripts/install-clients` recorded
//! that the npm registry could not be reached; anything else that goes wrong fails.

use std::collections::BTreeSet;
use std::fs;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex, OnceLock, mpsc};
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{mcpconf_cmd, show};

/// The value the stdio server's `${API_KEY}` reference must expand to.
const API_KEY: &str = "sk-oracle-stdio-4711";
/// The value the remote server's `Bearer ${REMOTE_TOKEN}` reference must expand to.
const REMOTE_TOKEN: &str = "tok-oracle-remote-0815";
/// The stdio server's arguments (one with a space, so joining and splitting would show).
const ARGS: [&str; 3] = ["serve", "--label", "two words"];
/// How long one client command may take before it is killed and the test fails.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(90);

// ---------------------------------------------------------------------------------------------
// Installation

enum Clients {
    Ready(PathBuf),
    Unreachable(String),
}

/// Runs `scripts/install-clients` once per test binary (it is idempotent, locked and fast when
/// the pinned versions are already there) and reads its outcome.
fn clients() -> &'static Clients {
    static C: OnceLock<Clients> = OnceLock::new();
    C.get_or_init(|| {
        let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = std::env::var_os("MCPCONF_CLIENTS_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| manifest_dir.join("target/clients"));
        let out = Command::new(manifest_dir.join("scripts/install-clients"))
            .env("MCPCONF_CLIENTS_DIR", &dir)
            .stdin(Stdio::null())
            .output()
            .expect("run scripts/install-clients");
        assert!(
            out.status.success(),
            "scripts/install-clients failed (this is not a registry outage, so the test fails):\n{}",
            show(&out)
        );
        let unreachable = dir.join("unreachable");
        if unreachable.exists() {
            return Clients::Unreachable(fs::read_to_string(unreachable).unwrap_or_default());
        }
        for b in ["claude", "codex", "gemini", "opencode", "qwen", "copilot", "auggie"] {
            assert!(
                dir.join("bin").join(b).exists(),
                "scripts/install-clients succeeded but {b} is missing from {}",
                dir.join("bin").display()
            );
        }
        Clients::Ready(dir.join("bin"))
    })
}

/// The clients' bin directory, or `None` (after saying why) when the registry was unreachable.
fn bin_dir(test: &str) -> Option<PathBuf> {
    match clients() {
        Clients::Ready(p) => Some(p.clone()),
        Clients::Unreachable(why) => {
            // Straight to the process's stderr: the test harness captures `eprintln!` of a
            // passing test, and a skip must be seen.
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED {test}: the real clients could not be installed because the npm registry was unreachable:\n{why}"
            );
            None
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Recorders

/// A loopback HTTP listener that keeps the head of every request and answers 404.
struct HttpRecorder {
    port: u16,
    heads: Arc<Mutex<Vec<String>>>,
}

impl HttpRecorder {
    fn start() -> HttpRecorder {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let heads = Arc::new(Mutex::new(Vec::new()));
        let h = heads.clone();
        // Lives until the test process exits; each connection is bounded by read timeouts.
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let h = h.clone();
                thread::spawn(move || serve_404(stream, &h));
            }
        });
        HttpRecorder { port, heads }
    }
    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
    fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }
    /// The `Authorization` values of every request to `/mcp`.
    fn authorizations(&self) -> Vec<String> {
        self.heads()
            .iter()
            .filter(|h| h.split_whitespace().nth(1) == Some("/mcp"))
            .flat_map(|h| {
                h.lines()
                    .filter_map(|l| l.split_once(':'))
                    .filter(|(k, _)| k.trim().eq_ignore_ascii_case("authorization"))
                    .map(|(_, v)| v.trim().to_string())
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

fn serve_404(mut s: TcpStream, heads: &Mutex<Vec<String>>) {
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") && buf.len() < 65536 {
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let end = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or(buf.len());
    heads
        .lock()
        .unwrap()
        .push(String::from_utf8_lossy(&buf[..end]).into_owned());
    let _ =
        s.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
}

/// What one start of the recorder stdio server saw.
#[derive(Debug, PartialEq)]
struct Call {
    args: Vec<String>,
    api_key: String,
    mode: String,
}

fn calls(dir: &Path) -> Vec<Call> {
    let Ok(rd) = fs::read_dir(dir.join("calls")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in rd.flatten() {
        let text = fs::read_to_string(e.path()).unwrap();
        let mut c = Call {
            args: Vec::new(),
            api_key: String::new(),
            mode: String::new(),
        };
        for line in text.lines() {
            if let Some(a) = line.strip_prefix("arg=") {
                c.args.push(a.to_string());
            } else if let Some(v) = line.strip_prefix("API_KEY=") {
                c.api_key = v.to_string();
            } else if let Some(v) = line.strip_prefix("MODE=") {
                c.mode = v.to_string();
            }
        }
        out.push(c);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Scratch world

struct World {
    _tmp: tempfile::TempDir,
    base: PathBuf,
    bin: PathBuf,
    http: HttpRecorder,
}

impl World {
    fn new(bin: PathBuf) -> World {
        let tmp = tempfile::Builder::new()
            .prefix("mcpconf-oracle-")
            .tempdir()
            .unwrap();
        let base = tmp.path().canonicalize().unwrap();
        for d in ["root", "home", "state", "srv", "managed"] {
            fs::create_dir_all(base.join(d)).unwrap();
        }
        let script = base.join("srv/record-server");
        fs::write(
            &script,
            "#!/bin/sh\n\
             out=\"$(dirname \"$0\")/calls\"\n\
             mkdir -p \"$out\"\n\
             { for a in \"$@\"; do printf 'arg=%s\\n' \"$a\"; done\n\
               printf 'API_KEY=%s\\n' \"${API_KEY-<unset>}\"\n\
               printf 'MODE=%s\\n' \"${MODE-<unset>}\"\n\
               printf 'CWD=%s\\n' \"$PWD\"; } > \"$out/$$.tmp\"\n\
             mv \"$out/$$.tmp\" \"$out/$$\"\n\
             exit 0\n",
        )
        .unwrap();
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
        World {
            _tmp: tmp,
            base,
            bin,
            http: HttpRecorder::start(),
        }
    }
    fn root(&self) -> PathBuf {
        self.base.join("root")
    }
    fn home(&self) -> PathBuf {
        self.base.join("home")
    }
    fn command(&self) -> String {
        self.base.join("srv/record-server").display().to_string()
    }
    fn calls(&self) -> Vec<Call> {
        calls(&self.base.join("srv"))
    }

    /// The manifest: `local-tool` (stdio, args, an env reference and a literal) and
    /// `remote-api` (streamable HTTP, a bearer reference, a tool pin), into `targets`.
    fn manifest(&self, targets: &str) {
        self.manifest_with("", targets)
    }

    /// The same manifest with `extra` server tables.
    fn manifest_with(&self, extra: &str, targets: &str) {
        self.manifest_headers("Authorization = \"Bearer ${REMOTE_TOKEN}\"", extra, targets)
    }

    /// The same manifest with other headers for `remote-api` (inline-table body).
    fn manifest_headers(&self, headers: &str, extra: &str, targets: &str) {
        let args = ARGS
            .iter()
            .map(|a| format!("{a:?}"))
            .collect::<Vec<_>>()
            .join(", ");
        let text = format!(
            "owner = \"oracle\"\n\n\
             [servers.local-tool]\n\
             command = {:?}\n\
             args = [{args}]\n\
             env = {{ API_KEY = \"${{API_KEY}}\", MODE = \"fast\" }}\n\n\
             [servers.remote-api]\n\
             url = {:?}\n\
             headers = {{ {headers} }}\n\
             tools = [\"search\", \"fetch\"]\n\n\
             {extra}\n\n\
             {targets}\n",
            self.command(),
            self.http.url()
        );
        fs::write(self.base.join("mcpconf.toml"), text).unwrap();
    }

    /// The environment every process here runs with: nothing from the real home.
    fn env(&self, c: &mut Command) {
        let home = self.home();
        let path = format!(
            "{}:{}",
            self.bin.display(),
            std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into())
        );
        c.env_clear()
            .env("PATH", path)
            .env("HOME", &home)
            .env("USER", "oracle")
            .env("LANG", "C.UTF-8")
            .env("TERM", "dumb")
            .env("NO_COLOR", "1")
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_DATA_HOME", home.join(".local/share"))
            .env("XDG_STATE_HOME", home.join(".local/state"))
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .env("CODEX_HOME", home.join(".codex"))
            .env("TMPDIR", &self.base)
            // offline, no telemetry, no updates
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
            .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
            .env("OPENCODE_DISABLE_DEFAULT_PLUGINS", "1")
            .env("OPENCODE_DISABLE_LSP_DOWNLOAD", "1")
            .env("OPENCODE_DISABLE_SHARE", "1")
            .env(
                "OPENCODE_TEST_MANAGED_CONFIG_DIR",
                self.base.join("managed"),
            )
            .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
            // the values the references must expand to
            .env("API_KEY", API_KEY)
            .env("REMOTE_TOKEN", REMOTE_TOKEN);
    }

    fn mcpconf(&self, args: &[&str]) -> Output {
        let mut c = mcpconf_cmd();
        self.env(&mut c);
        c.args(args)
            .arg("-m")
            .arg(self.base.join("mcpconf.toml"))
            .arg("--root")
            .arg(self.root())
            .arg("--home")
            .arg(self.home())
            .arg("--state-dir")
            .arg(self.base.join("state"));
        run(c)
    }

    fn mcpconf_ok(&self, args: &[&str]) -> String {
        let out = self.mcpconf(args);
        assert!(out.status.success(), "mcpconf {args:?}:\n{}", show(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// `mcpconf status --format json` as (client, server, state) triples.
    fn status(&self) -> Vec<(String, String, String)> {
        let out = self.mcpconf(&["status", "--format", "json"]);
        assert!(out.status.success(), "status:\n{}", show(&out));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let recs = v["records"]
            .as_array()
            .unwrap_or_else(|| panic!("no records in {v}"));
        let mut s: Vec<_> = recs
            .iter()
            .map(|r| {
                (
                    r["client"].as_str().unwrap_or_default().to_string(),
                    r["server"].as_str().unwrap_or_default().to_string(),
                    r["state"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        s.sort();
        s
    }

    /// Runs a client in the project directory; returns stdout+stderr, without colour codes.
    fn client(&self, prog: &str, args: &[&str]) -> String {
        self.client_env(prog, args, &[])
    }

    /// [`World::client`] with extra environment variables.
    fn client_env(&self, prog: &str, args: &[&str], env: &[(&str, &str)]) -> String {
        let mut c = Command::new(self.bin.join(prog));
        self.env(&mut c);
        c.envs(env.iter().copied())
            .args(args)
            .current_dir(self.root());
        let out = run(c);
        let text = strip_ansi(&format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
        assert!(
            out.status.success(),
            "{prog} {args:?} exited {:?}:\n{text}",
            out.status
        );
        text
    }

    fn read_json(&self, p: &Path) -> Value {
        let text = fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", p.display()))
    }

    /// The stdio server was started, every time with exactly the declared arguments, the
    /// reference expanded from the client's environment and the literal kept.
    fn assert_stdio_started(&self, client: &str) {
        let calls = self.calls();
        assert!(
            !calls.is_empty(),
            "{client} never started the stdio server while listing it"
        );
        for c in &calls {
            assert_eq!(
                c,
                &Call {
                    args: ARGS.iter().map(|s| s.to_string()).collect(),
                    api_key: API_KEY.into(),
                    mode: "fast".into()
                },
                "{client} started the stdio server differently from the manifest"
            );
        }
    }

    /// The remote server was contacted, every time with the bearer reference expanded.
    fn assert_remote_contacted(&self, client: &str) {
        let auth = self.http.authorizations();
        assert!(
            !auth.is_empty(),
            "{client} never sent a request with an Authorization header to {}; requests seen:\n{:#?}",
            self.http.url(),
            self.http.heads()
        );
        for a in &auth {
            assert_eq!(
                a,
                &format!("Bearer {REMOTE_TOKEN}"),
                "{client} sent a different Authorization header"
            );
        }
    }
}

/// Runs a command in its own process group, killing the whole group after `CLIENT_TIMEOUT`.
fn run(mut c: Command) -> Output {
    c.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let desc = format!("{:?}", c.get_program());
    let child = c.spawn().unwrap_or_else(|e| panic!("spawn {desc}: {e}"));
    let pid = child.id() as libc::pid_t;
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(CLIENT_TIMEOUT) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            // SAFETY: kill(2) of the process group that we created for our own child.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
            panic!("{desc} did not finish within {CLIENT_TIMEOUT:?} (killed)");
        }
    }
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

fn ours_intact(client: &str) -> Vec<(String, String, String)> {
    vec![
        (client.into(), "local-tool".into(), "intact".into()),
        (client.into(), "remote-api".into(), "intact".into()),
    ]
}

// ---------------------------------------------------------------------------------------------
// Claude Code

/// The server names in `claude mcp list` (lines `name: what - status`).
fn claude_list_names(out: &str) -> BTreeSet<String> {
    out.lines()
        .filter(|l| l.contains(" - ") && !l.starts_with(' ') && !l.starts_with('['))
        .filter_map(|l| l.split_once(": ").map(|(n, _)| n.to_string()))
        .collect()
}

fn claude_scope(scope: &str, scope_line: &str) {
    let test = format!("claude_code_{scope}");
    let Some(bin) = bin_dir(&test) else { return };
    let w = World::new(bin);
    // Project servers from `.mcp.json` are only started once approved; approve them all in the
    // scratch user settings, as a user who answered the prompt would have.
    fs::create_dir_all(w.home().join(".claude")).unwrap();
    fs::write(
        w.home().join(".claude/settings.json"),
        r#"{"enableAllProjectMcpServers": true}"#,
    )
    .unwrap();
    w.manifest(&format!(
        "[[targets]]\nclient = \"claude-code\"\nscope = \"{scope}\"\n"
    ));
    w.mcpconf_ok(&["apply", "--yes"]);
    let file = if scope == "project" {
        w.root().join(".mcp.json")
    } else {
        w.home().join(".claude.json")
    };

    let list = w.client("claude", &["mcp", "list"]);
    assert_eq!(
        claude_list_names(&list),
        set(&["local-tool", "remote-api"]),
        "{list}"
    );
    assert!(
        list.contains(&format!(
            "local-tool: {} serve --label two words - ",
            w.command()
        )),
        "{list}"
    );
    assert!(
        list.contains(&format!("remote-api: {} (HTTP) - ", w.http.url())),
        "{list}"
    );
    assert!(
        !list.contains("Missing environment variables"),
        "Claude Code did not find the referenced variables:\n{list}"
    );
    w.assert_stdio_started("claude");
    w.assert_remote_contacted("claude");

    let get = w.client("claude", &["mcp", "get", "local-tool"]);
    for want in [
        format!("Scope: {scope_line}"),
        "Type: stdio".to_string(),
        format!("Command: {}", w.command()),
        "Args: serve --label two words".to_string(),
        "API_KEY=${API_KEY}".to_string(),
        "MODE=fast".to_string(),
    ] {
        assert!(get.contains(&want), "missing {want:?} in:\n{get}");
    }
    let get = w.client("claude", &["mcp", "get", "remote-api"]);
    for want in [
        format!("Scope: {scope_line}"),
        "Type: http".to_string(),
        format!("URL: {}", w.http.url()),
        "Authorization: Bearer ${REMOTE_TOKEN}".to_string(),
    ] {
        assert!(get.contains(&want), "missing {want:?} in:\n{get}");
    }
    // The secret itself is in no file: only the reference is.
    let text = fs::read_to_string(&file).unwrap();
    assert!(!text.contains(API_KEY) && !text.contains(REMOTE_TOKEN));

    // Claude Code rewrites the file itself (re-serialises it, adds its own keys) ...
    w.client(
        "claude",
        &[
            "mcp", "add", "--scope", scope, "theirs", "-e", "X=1", "--", "true",
        ],
    );
    let doc = w.read_json(&file);
    let servers = if scope == "local" {
        &doc["projects"][w.root().display().to_string()]["mcpServers"]
    } else {
        &doc["mcpServers"]
    };
    assert!(servers.get("theirs").is_some(), "{doc:#}");
    // ... and ownership survives: our entries are still provably ours,
    assert_eq!(w.status(), ours_intact("claude-code"));
    // so prune removes exactly them and leaves the client's own entry.
    w.mcpconf_ok(&["prune", "--yes"]);
    let list = w.client("claude", &["mcp", "list"]);
    assert_eq!(claude_list_names(&list), set(&["theirs"]), "{list}");
    let get = w.client("claude", &["mcp", "get", "theirs"]);
    assert!(get.contains(&format!("Scope: {scope_line}")), "{get}");
    let doc = w.read_json(&file);
    let servers = if scope == "local" {
        &doc["projects"][w.root().display().to_string()]["mcpServers"]
    } else {
        &doc["mcpServers"]
    };
    assert_eq!(
        servers
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<Vec<_>>(),
        vec!["theirs".to_string()],
        "{doc:#}"
    );
}

#[test]
fn claude_code_project_scope() {
    claude_scope("project", "Project config (shared via .mcp.json)");
}

#[test]
fn claude_code_user_scope() {
    claude_scope("user", "User config (available in all your projects)");
}

#[test]
fn claude_code_local_scope() {
    claude_scope("local", "Local config (private to you in this project)");
}

// ---------------------------------------------------------------------------------------------
// Codex

fn codex_list(w: &World) -> Vec<Value> {
    let out = w.client("codex", &["mcp", "list", "--json"]);
    // Codex may print a warning line before the document.
    let start = out
        .find('[')
        .unwrap_or_else(|| panic!("no JSON in:\n{out}"));
    let end = out.rfind(']').unwrap();
    let v: Value = serde_json::from_str(&out[start..=end]).unwrap_or_else(|e| {
        panic!("codex mcp list --json: {e}\n{out}");
    });
    v.as_array().unwrap().clone()
}

fn codex_names(list: &[Value]) -> BTreeSet<String> {
    list.iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

fn codex_assert_ours(w: &World, list: &[Value]) {
    let by = |n: &str| {
        list.iter()
            .find(|s| s["name"] == n)
            .unwrap_or_else(|| panic!("{n} missing from {list:#?}"))
    };
    let local = by("local-tool");
    assert_eq!(local["enabled"], json!(true));
    assert_eq!(
        local["transport"],
        json!({
            "type": "stdio",
            "command": w.command(),
            "args": ARGS,
            "env": {"MODE": "fast"},
            "env_vars": ["API_KEY"],
            "cwd": null
        })
    );
    let remote = by("remote-api");
    assert_eq!(remote["transport"]["type"], "streamable_http");
    assert_eq!(remote["transport"]["url"], json!(w.http.url()));
    assert_eq!(remote["transport"]["bearer_token_env_var"], "REMOTE_TOKEN");
    assert_eq!(remote["transport"]["http_headers"], Value::Null);
    assert_eq!(remote["transport"]["env_http_headers"], Value::Null);
    assert_eq!(remote["auth_status"], "bearer_token");

    let get = w.client("codex", &["mcp", "get", "remote-api", "--json"]);
    let start = get.find('{').unwrap();
    let v: Value = serde_json::from_str(&get[start..=get.rfind('}').unwrap()]).unwrap();
    assert_eq!(v["enabled_tools"], json!(["search", "fetch"]), "{v:#}");
}

#[test]
fn codex_user_scope_under_codex_home() {
    let Some(bin) = bin_dir("codex_user_scope_under_codex_home") else {
        return;
    };
    let w = World::new(bin);
    // A user config Codex and the user already have: a comment and a setting of their own.
    let cfg = w.home().join(".codex/config.toml");
    fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    fs::write(&cfg, "# mine\nmodel = \"o3\"\n").unwrap();
    w.manifest("[[targets]]\nclient = \"codex\"\n");
    w.mcpconf_ok(&["apply", "--yes"]);

    let list = codex_list(&w);
    assert_eq!(codex_names(&list), set(&["local-tool", "remote-api"]));
    codex_assert_ours(&w, &list);

    // `codex mcp add` rewrites config.toml (our inline `env` table becomes a
    // `[mcp_servers.local-tool.env]` section); ownership survives it.
    w.client(
        "codex",
        &["mcp", "add", "theirs", "--env", "A=1", "--", "true"],
    );
    let text = fs::read_to_string(&cfg).unwrap();
    assert!(text.contains("[mcp_servers.theirs]"), "{text}");
    assert_eq!(w.status(), ours_intact("codex"));
    w.mcpconf_ok(&["prune", "--yes"]);
    let list = codex_list(&w);
    assert_eq!(codex_names(&list), set(&["theirs"]));
    let text = fs::read_to_string(&cfg).unwrap();
    assert!(
        text.starts_with("# mine\nmodel = \"o3\"\n"),
        "the user's own lines changed:\n{text}"
    );
    assert!(!text.contains("local-tool") && !text.contains("remote-api"));
}

/// Codex reads TOML 1.1 (`\xHH` and `\e` escapes, multi-line inline tables), so mcpconf accepts
/// such a file for Codex instead of refusing it, and keeps those bytes as they are.
#[test]
fn codex_reads_toml_1_1_syntax_and_so_does_mcpconf() {
    let Some(bin) = bin_dir("codex_reads_toml_1_1_syntax_and_so_does_mcpconf") else {
        return;
    };
    let w = World::new(bin);
    let cfg = w.home().join(".codex/config.toml");
    fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    let mine = "[mcp_servers.mine]\ncommand = \"m\\x41\\e\"\nenv = {\n  A = \"1\",\n}\n";
    fs::write(&cfg, mine).unwrap();
    let list = codex_list(&w);
    let by = list
        .iter()
        .find(|s| s["name"] == "mine")
        .expect("codex lists it");
    assert_eq!(by["transport"]["command"], json!("mA\u{1b}"), "{list:#?}");
    w.manifest("[[targets]]\nclient = \"codex\"\n");
    w.mcpconf_ok(&["apply", "--yes"]);
    let list = codex_list(&w);
    assert_eq!(
        codex_names(&list),
        set(&["local-tool", "remote-api", "mine"])
    );
    w.mcpconf_ok(&["prune", "--yes"]);
    assert_eq!(
        fs::read_to_string(&cfg).unwrap(),
        mine,
        "the TOML 1.1 bytes changed"
    );
}

#[test]
fn codex_project_scope_in_a_trusted_project() {
    let Some(bin) = bin_dir("codex_project_scope_in_a_trusted_project") else {
        return;
    };
    let w = World::new(bin);
    let cfg = w.home().join(".codex/config.toml");
    fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    fs::write(
        &cfg,
        format!(
            "[projects.{:?}]\ntrust_level = \"trusted\"\n",
            w.root().display().to_string()
        ),
    )
    .unwrap();
    w.manifest("[[targets]]\nclient = \"codex\"\nscope = \"project\"\n");
    w.mcpconf_ok(&["apply", "--yes"]);
    assert!(w.root().join(".codex/config.toml").exists());
    let list = codex_list(&w);
    assert_eq!(codex_names(&list), set(&["local-tool", "remote-api"]));
    codex_assert_ours(&w, &list);
    w.mcpconf_ok(&["prune", "--yes"]);
    assert!(codex_list(&w).is_empty());
}

// ---------------------------------------------------------------------------------------------
// Gemini CLI

/// `gemini mcp list` lines `✗ name: what (transport) - Status` as (name, what, transport).
fn gemini_list(out: &str) -> Vec<(String, String, String)> {
    let mut v = Vec::new();
    for l in out.lines() {
        let Some((head, _status)) = l.rsplit_once(" - ") else {
            continue;
        };
        let Some((_, rest)) = head.split_once(' ') else {
            continue;
        };
        let Some((name, what)) = rest.split_once(": ") else {
            continue;
        };
        let Some(open) = what.rfind(" (") else {
            continue;
        };
        v.push((
            name.to_string(),
            what[..open].trim().to_string(),
            what[open + 2..what.len() - 1].to_string(),
        ));
    }
    v.sort();
    v
}

#[test]
fn gemini_project_scope() {
    let Some(bin) = bin_dir("gemini_project_scope") else {
        return;
    };
    let w = World::new(bin);
    let sse = format!("http://127.0.0.1:{}/sse", w.http.port);
    w.manifest_with(
        &format!("[servers.events]\nurl = {sse:?}\ntransport = \"sse\"\n"),
        "[[targets]]\nclient = \"gemini\"\n",
    );
    w.mcpconf_ok(&["apply", "--yes"]);
    let file = w.root().join(".gemini/settings.json");
    let doc = w.read_json(&file);
    assert_eq!(
        doc["mcpServers"]["remote-api"],
        json!({"type": "http", "url": w.http.url(),
               "headers": {"Authorization": "Bearer ${REMOTE_TOKEN}"},
               "includeTools": ["search", "fetch"]})
    );

    let out = w.client("gemini", &["mcp", "list"]);
    assert_eq!(
        gemini_list(&out),
        vec![
            ("events".to_string(), sse.clone(), "sse".to_string()),
            (
                "local-tool".to_string(),
                format!("{} serve --label two words", w.command()),
                "stdio".to_string()
            ),
            ("remote-api".to_string(), w.http.url(), "http".to_string()),
        ],
        "{out}"
    );
    assert!(!out.contains("deprecated"), "{out}");
    w.assert_stdio_started("gemini");
    w.assert_remote_contacted("gemini");

    // `gemini mcp add` rewrites settings.json from its *loaded* settings, in which every
    // `${VAR}` is already expanded (add.ts: `settings.forScope(scope).settings`): the secrets
    // land in the file in clear text. Our entries then no longer hash to what we wrote, so
    // mcpconf must call them drifted and refuse to prune them, writing nothing.
    w.client("gemini", &["mcp", "add", "theirs", "true"]);
    let doc = w.read_json(&file);
    assert!(doc["mcpServers"].get("theirs").is_some());
    assert_eq!(
        doc["mcpServers"]["local-tool"]["env"]["API_KEY"],
        json!(API_KEY),
        "Gemini CLI no longer writes expanded references back: update docs/clients/gemini.md"
    );
    let before = fs::read(&file).unwrap();
    assert_eq!(
        w.status(),
        vec![
            ("gemini".into(), "events".into(), "intact".into()),
            ("gemini".into(), "local-tool".into(), "drifted".into()),
            ("gemini".into(), "remote-api".into(), "drifted".into()),
        ]
    );
    let out = w.mcpconf(&["prune", "--yes", "--format", "json"]);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let codes: BTreeSet<_> = report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["code"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(codes, set(&["drift"]), "{report:#}");
    assert_eq!(fs::read(&file).unwrap(), before, "a refused prune wrote");
    // Nor does the refusal print the secret Gemini wrote.
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(!printed.contains(API_KEY) && !printed.contains(REMOTE_TOKEN));
}

#[test]
fn gemini_mcp_add_in_an_untrusted_folder_drops_our_entries_and_apply_restores_them() {
    let Some(bin) = bin_dir("gemini_untrusted_folder") else {
        return;
    };
    let w = World::new(bin);
    w.manifest("[[targets]]\nclient = \"gemini\"\n");
    w.mcpconf_ok(&["apply", "--yes"]);
    // In an untrusted folder Gemini CLI loads the project settings as empty, and `mcp add`
    // saves that: every other project server is gone from the file.
    w.client_env(
        "gemini",
        &["mcp", "add", "theirs", "true"],
        &[("GEMINI_CLI_TRUST_WORKSPACE", "false")],
    );
    let file = w.root().join(".gemini/settings.json");
    let names: Vec<String> = w.read_json(&file)["mcpServers"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(
        names,
        vec!["theirs".to_string()],
        "Gemini CLI no longer drops project servers here: update docs/clients/gemini.md"
    );
    assert_eq!(
        w.status(),
        vec![
            ("gemini".into(), "local-tool".into(), "missing".into()),
            ("gemini".into(), "remote-api".into(), "missing".into()),
        ]
    );
    // The next apply converges: both entries back, Gemini's own kept.
    w.mcpconf_ok(&["apply", "--yes"]);
    assert_eq!(w.status(), ours_intact("gemini"));
    let out = w.client("gemini", &["mcp", "list"]);
    let names: Vec<_> = gemini_list(&out).into_iter().map(|e| e.0).collect();
    assert_eq!(names, vec!["local-tool", "remote-api", "theirs"], "{out}");
}

// ---------------------------------------------------------------------------------------------
// opencode

/// Server names in `opencode mcp list` (lines `●  ✗ name status`).
fn opencode_names(out: &str) -> BTreeSet<String> {
    out.lines()
        .filter_map(|l| l.trim_start().strip_prefix('●'))
        .filter_map(|l| l.split_whitespace().nth(1).map(str::to_string))
        .collect()
}

fn opencode_check(w: &World) {
    let out = w.client("opencode", &["mcp", "list"]);
    assert_eq!(
        opencode_names(&out),
        set(&["local-tool", "remote-api"]),
        "{out}"
    );
    assert!(
        out.contains(&format!("{} serve --label two words", w.command())),
        "{out}"
    );
    assert!(out.contains(&w.http.url()), "{out}");
    w.assert_stdio_started("opencode");
    w.assert_remote_contacted("opencode");
}

#[test]
fn opencode_project_scope() {
    let Some(bin) = bin_dir("opencode_project_scope") else {
        return;
    };
    let w = World::new(bin);
    w.manifest("[[targets]]\nclient = \"opencode\"\n");
    w.mcpconf_ok(&["apply", "--yes"]);
    opencode_check(&w);
    // opencode rewrites the project file on start (it adds `$schema`); prune still removes
    // exactly our entries and keeps what opencode added.
    let file = w.root().join("opencode.json");
    let doc = w.read_json(&file);
    assert_eq!(w.status(), ours_intact("opencode"));
    w.mcpconf_ok(&["prune", "--yes"]);
    if doc.get("$schema").is_some() {
        let after = w.read_json(&file);
        assert_eq!(after["$schema"], doc["$schema"]);
        assert!(
            after["mcp"].as_object().is_none_or(|m| m.is_empty()),
            "{after:#}"
        );
    }
    let out = w.client("opencode", &["mcp", "list"]);
    assert!(opencode_names(&out).is_empty(), "{out}");
}

/// opencode reads a local server's `cwd` from 1.17.4 on; a target that declares the pinned
/// release gets it written, and opencode (whose schema rejects unknown fields) loads the file
/// and starts the server in that directory.
#[test]
fn opencode_reads_cwd_for_a_declared_client_version() {
    let Some(bin) = bin_dir("opencode_reads_cwd_for_a_declared_client_version") else {
        return;
    };
    let w = World::new(bin);
    let dir = w.base.join("srv/work");
    fs::create_dir_all(&dir).unwrap();
    w.manifest_with(
        &format!(
            "[servers.in-dir]\ncommand = {:?}\ncwd = {:?}\n",
            w.command(),
            dir.display().to_string()
        ),
        "[[targets]]\nclient = \"opencode\"\nclient_version = \"1.18.33\"\n",
    );
    w.mcpconf_ok(&["apply", "--yes"]);
    let doc = w.read_json(&w.root().join("opencode.json"));
    assert_eq!(
        doc["mcp"]["in-dir"]["cwd"],
        json!(dir.display().to_string())
    );
    let out = w.client("opencode", &["mcp", "list"]);
    assert_eq!(
        opencode_names(&out),
        set(&["in-dir", "local-tool", "remote-api"]),
        "{out}"
    );
    let cwds: BTreeSet<String> = fs::read_dir(w.base.join("srv/calls"))
        .unwrap()
        .flatten()
        .filter_map(|e| fs::read_to_string(e.path()).ok())
        .filter_map(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("CWD=").map(str::to_string))
        })
        .collect();
    assert!(
        cwds.contains(&dir.display().to_string()),
        "opencode did not start `in-dir` in its cwd: {cwds:?}"
    );
}

#[test]
fn opencode_user_scope() {
    let Some(bin) = bin_dir("opencode_user_scope") else {
        return;
    };
    let w = World::new(bin);
    w.manifest("[[targets]]\nclient = \"opencode\"\nscope = \"user\"\n");
    w.mcpconf_ok(&["apply", "--yes"]);
    opencode_check(&w);
    // `opencode mcp add` rewrites the user file; prune removes only our entries.
    let file = w.home().join(".config/opencode/opencode.json");
    w.client(
        "opencode",
        &["mcp", "add", "theirs", "--url", "http://127.0.0.1:1/theirs"],
    );
    assert!(w.read_json(&file)["mcp"].get("theirs").is_some());
    assert_eq!(w.status(), ours_intact("opencode"));
    w.mcpconf_ok(&["prune", "--yes"]);
    let keys: Vec<String> = w.read_json(&file)["mcp"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys, vec!["theirs".to_string()]);
    let out = w.client("opencode", &["mcp", "list"]);
    assert_eq!(opencode_names(&out), set(&["theirs"]), "{out}");
}

// ---------------------------------------------------------------------------------------------
// Qwen Code

/// `qwen mcp list` prints what Qwen Code read: each server's command line (references in
/// `args` expanded) or URL, and the transport it will use (`httpUrl` is streamable HTTP).
fn qwen_check_list(w: &World) -> String {
    let out = w.client("qwen", &["mcp", "list"]);
    assert_eq!(
        gemini_list(&out),
        vec![
            (
                "local-tool".to_string(),
                format!("{} serve --label two words", w.command()),
                "stdio".to_string()
            ),
            ("remote-api".to_string(), w.http.url(), "http".to_string()),
        ],
        "{out}"
    );
    out
}

#[test]
fn qwen_project_scope() {
    let Some(bin) = bin_dir("qwen_project_scope") else {
        return;
    };
    let w = World::new(bin);
    w.manifest("[[targets]]\nclient = \"qwen\"\n");
    w.mcpconf_ok(&["apply", "--yes"]);
    let file = w.root().join(".qwen/settings.json");
    let doc = w.read_json(&file);
    assert_eq!(
        doc["mcpServers"]["remote-api"],
        json!({"httpUrl": w.http.url(),
               "headers": {"Authorization": "Bearer ${REMOTE_TOKEN}"},
               "includeTools": ["search", "fetch"]})
    );
    assert_eq!(
        doc["mcpServers"]["local-tool"]["env"],
        json!({"API_KEY": "${API_KEY}", "MODE": "fast"})
    );
    // Project servers wait for the user's approval, so Qwen Code lists them unstarted.
    let out = qwen_check_list(&w);
    assert!(out.contains("Pending approval"), "{out}");
    assert_eq!(w.status(), ours_intact("qwen"));
    w.mcpconf_ok(&["prune", "--yes"]);
    let out = w.client("qwen", &["mcp", "list"]);
    assert!(gemini_list(&out).is_empty(), "{out}");
}

#[test]
fn qwen_user_scope() {
    let Some(bin) = bin_dir("qwen_user_scope") else {
        return;
    };
    let w = World::new(bin);
    w.manifest("[[targets]]\nclient = \"qwen\"\nscope = \"user\"\n");
    w.mcpconf_ok(&["apply", "--yes"]);
    // User servers are connected while listing: the stdio server is started with the
    // declared arguments and the expanded `${API_KEY}`, the remote one gets the expanded
    // bearer token.
    qwen_check_list(&w);
    w.assert_stdio_started("qwen");
    w.assert_remote_contacted("qwen");
    // `qwen mcp add` (like `gemini mcp add`, which it forks) rewrites the user file from its
    // loaded settings, in which every reference is already expanded: the secrets land in the
    // file in clear text. Our entries no longer hash to what we wrote, so they are drifted
    // and prune refuses, writing nothing and printing neither secret.
    let file = w.home().join(".qwen/settings.json");
    w.client("qwen", &["mcp", "add", "--scope", "user", "theirs", "true"]);
    let doc = w.read_json(&file);
    assert!(doc["mcpServers"].get("theirs").is_some(), "{doc:#}");
    assert_eq!(
        doc["mcpServers"]["local-tool"]["env"]["API_KEY"],
        json!(API_KEY),
        "Qwen Code no longer writes expanded references back: update docs/clients/qwen.md"
    );
    assert_eq!(
        w.status(),
        vec![
            ("qwen".into(), "local-tool".into(), "drifted".into()),
            ("qwen".into(), "remote-api".into(), "drifted".into()),
        ]
    );
    let before = fs::read(&file).unwrap();
    let out = w.mcpconf(&["prune", "--yes", "--format", "json"]);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert_eq!(fs::read(&file).unwrap(), before, "a refused prune wrote");
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(!printed.contains(API_KEY) && !printed.contains(REMOTE_TOKEN));
}

// ---------------------------------------------------------------------------------------------
// GitHub Copilot CLI

/// The manifest for Copilot CLI: it expands references only in `env`, so the remote server
/// carries a literal header here (a header reference is refused, see `client_refusals`).
fn copilot_manifest(w: &World, targets: &str) {
    w.manifest_headers("X-Client = \"oracle\"", "", targets);
}

/// `copilot mcp list --json`: the servers as Copilot CLI loaded them, with their source.
fn copilot_list(w: &World) -> serde_json::Map<String, Value> {
    let out = w.client("copilot", &["mcp", "list", "--json"]);
    let start = out
        .find('{')
        .unwrap_or_else(|| panic!("no JSON in:\n{out}"));
    let end = out
        .rfind('}')
        .unwrap_or_else(|| panic!("no JSON in:\n{out}"));
    let v: Value =
        serde_json::from_str(&out[start..=end]).unwrap_or_else(|e| panic!("{e}:\n{out}"));
    v["mcpServers"].as_object().cloned().unwrap_or_default()
}

fn copilot_check(w: &World, source: &str) {
    let list = copilot_list(w);
    let names: BTreeSet<String> = list.keys().cloned().collect();
    assert_eq!(names, set(&["local-tool", "remote-api"]), "{list:#?}");
    let mut local = list["local-tool"].clone();
    assert_eq!(local["source"], json!(source), "{local:#}");
    for k in ["source", "sourcePath", "enabled"] {
        local.as_object_mut().unwrap().remove(k);
    }
    assert_eq!(
        local,
        json!({"type": "stdio", "command": w.command(), "args": ARGS,
               "env": {"API_KEY": "${API_KEY}", "MODE": "fast"}, "tools": ["*"]})
    );
    let mut remote = list["remote-api"].clone();
    assert_eq!(remote["enabled"], json!(true), "{remote:#}");
    for k in ["source", "sourcePath", "enabled"] {
        remote.as_object_mut().unwrap().remove(k);
    }
    assert_eq!(
        remote,
        json!({"type": "http", "url": w.http.url(), "headers": {"X-Client": "oracle"},
               "tools": ["search", "fetch"]})
    );
    let out = w.client("copilot", &["mcp", "list"]);
    assert!(
        out.contains("local-tool (local)") && out.contains("remote-api (http)"),
        "{out}"
    );
}

#[test]
fn copilot_user_scope() {
    let Some(bin) = bin_dir("copilot_user_scope") else {
        return;
    };
    let w = World::new(bin);
    copilot_manifest(
        &w,
        "[[targets]]\nclient = \"copilot-cli\"\nscope = \"user\"\n",
    );
    w.mcpconf_ok(&["apply", "--yes"]);
    copilot_check(&w, "user");
    // `copilot mcp add` rewrites the user file (adding `tools: ["*"]` to any entry without
    // it, which mcpconf already wrote); our entries stay intact and prune removes only them.
    let file = w.home().join(".copilot/mcp-config.json");
    w.client("copilot", &["mcp", "add", "theirs", "--", "true"]);
    assert!(w.read_json(&file)["mcpServers"].get("theirs").is_some());
    assert_eq!(w.status(), ours_intact("copilot-cli"));
    w.mcpconf_ok(&["prune", "--yes"]);
    let keys: Vec<String> = w.read_json(&file)["mcpServers"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys, vec!["theirs".to_string()]);
    let names: BTreeSet<String> = copilot_list(&w).keys().cloned().collect();
    assert_eq!(names, set(&["theirs"]));
}

#[test]
fn copilot_project_scope_in_a_trusted_folder() {
    let Some(bin) = bin_dir("copilot_project_scope") else {
        return;
    };
    let w = World::new(bin);
    copilot_manifest(
        &w,
        "[[targets]]\nclient = \"copilot-cli\"\nscope = \"project\"\n",
    );
    w.mcpconf_ok(&["apply", "--yes"]);
    assert!(w.root().join(".github/mcp.json").exists());
    // Copilot CLI reads a workspace's `.github/mcp.json` only in a trusted folder.
    assert!(copilot_list(&w).is_empty());
    fs::create_dir_all(w.home().join(".copilot")).unwrap();
    fs::write(
        w.home().join(".copilot/config.json"),
        json!({"trusted_folders": [w.root()]}).to_string(),
    )
    .unwrap();
    copilot_check(&w, "workspace");
    w.mcpconf_ok(&["prune", "--yes"]);
    assert!(copilot_list(&w).is_empty());
}

// ---------------------------------------------------------------------------------------------
// Auggie (Augment Code's CLI)

/// Augment documents no environment references, so its manifest holds literals only (a
/// reference is refused, see `client_refusals`).
fn auggie_manifest(w: &World, targets: &str) {
    let text = format!(
        "owner = \"oracle\"\n\n\
         [servers.local-tool]\n\
         command = {:?}\n\
         args = [\"serve\", \"--label\", \"two words\"]\n\
         env = {{ MODE = \"fast\" }}\n\n\
         [servers.remote-api]\n\
         url = {:?}\n\
         headers = {{ X-Client = \"oracle\" }}\n\n\
         {targets}\n",
        w.command(),
        w.http.url()
    );
    fs::write(w.base.join("mcpconf.toml"), text).unwrap();
}

/// `auggie mcp list --json` as (name, transport, command line or URL), sorted.
fn auggie_list(w: &World) -> Vec<(String, String, String)> {
    let out = w.client("auggie", &["mcp", "list", "--json"]);
    let start = out
        .find('{')
        .unwrap_or_else(|| panic!("no JSON in:\n{out}"));
    let end = out
        .rfind('}')
        .unwrap_or_else(|| panic!("no JSON in:\n{out}"));
    let v: Value =
        serde_json::from_str(&out[start..=end]).unwrap_or_else(|e| panic!("{e}:\n{out}"));
    let mut list: Vec<_> = v["servers"]
        .as_array()
        .unwrap_or_else(|| panic!("no servers in {v}"))
        .iter()
        .map(|s| {
            let what = s["command"].as_str().or(s["url"].as_str()).unwrap_or("");
            (
                s["name"].as_str().unwrap_or_default().to_string(),
                s["transport"].as_str().unwrap_or_default().to_string(),
                what.to_string(),
            )
        })
        .collect();
    list.sort();
    list
}

fn auggie_check(w: &World) {
    assert_eq!(
        auggie_list(w),
        vec![
            (
                "local-tool".to_string(),
                "stdio".to_string(),
                format!("{} serve --label two words", w.command())
            ),
            ("remote-api".to_string(), "http".to_string(), w.http.url()),
        ]
    );
}

#[test]
fn auggie_user_and_project_scope() {
    let Some(bin) = bin_dir("auggie_user_and_project_scope") else {
        return;
    };
    for (scope, file, add) in [
        (
            "user",
            ".augment/settings.json",
            &["mcp", "add", "theirs", "-c", "true"][..],
        ),
        (
            "project",
            ".augment/settings.json",
            &["mcp", "add", "theirs", "--project", "-c", "true"][..],
        ),
    ] {
        let w = World::new(bin.clone());
        auggie_manifest(
            &w,
            &format!("[[targets]]\nclient = \"augment\"\nscope = \"{scope}\"\n"),
        );
        w.mcpconf_ok(&["apply", "--yes"]);
        auggie_check(&w);
        // `auggie mcp add` rewrites the file; our entries stay intact and prune removes only
        // them.
        let path = if scope == "user" {
            w.home().join(file)
        } else {
            w.root().join(file)
        };
        w.client("auggie", add);
        assert!(w.read_json(&path)["mcpServers"].get("theirs").is_some());
        assert_eq!(w.status(), ours_intact("augment"), "{scope}");
        w.mcpconf_ok(&["prune", "--yes"]);
        let keys: Vec<String> = w.read_json(&path)["mcpServers"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys, vec!["theirs".to_string()], "{scope}");
        let names: Vec<String> = auggie_list(&w).into_iter().map(|e| e.0).collect();
        assert_eq!(names, vec!["theirs".to_string()], "{scope}");
    }
}
