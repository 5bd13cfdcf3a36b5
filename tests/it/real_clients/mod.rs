//! The real clients as oracles: pinned releases of Claude Code, Codex CLI, Gemini CLI, opencode,
//! Qwen Code, GitHub Copilot CLI, Auggie, Grok CLI, Qoder CLI, Factory Droid, Kilo CLI and Hermes
//! Agent
//! (installed by `scripts/install-clients` into `target/clients`) read what `mcpconf apply` wrote, and must see exactly the declared servers, transports, commands, arguments,
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

mod auggie;
mod claude;
mod codex;
mod copilot;
mod disable;
mod droid;
mod gemini;
mod grok_cli;
mod hermes;
mod kilo;
mod opencode;
mod policy;
mod qoder;
mod qwen;

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
        for b in [
            "claude", "codex", "gemini", "opencode", "qwen", "copilot", "auggie", "grok-cli",
            "qoder",
        ] {
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

/// The bin directory for a client that `scripts/install-clients` installs best effort (Factory
/// Droid, Kilo CLI, Hermes Agent), or `None` (after saying why) when it could not be installed.
fn optional_bin_dir(test: &str, name: &str) -> Option<PathBuf> {
    let bin = bin_dir(test)?;
    let missing = bin.with_file_name("missing").join(name);
    if let Ok(why) = fs::read_to_string(&missing) {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {test}: {name} could not be installed here:\n{why}"
        );
        return None;
    }
    assert!(
        bin.join(name).exists(),
        "scripts/install-clients neither installed {name} nor said why"
    );
    Some(bin)
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
    /// More environment for mcpconf and the clients alike (e.g. a client home variable).
    extra: Vec<(String, String)>,
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
            extra: Vec::new(),
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
            .env("KILO_DISABLE_AUTOUPDATE", "1")
            .env("KILO_DISABLE_MODELS_FETCH", "1")
            .env("KILO_DISABLE_DEFAULT_PLUGINS", "1")
            .env("KILO_DISABLE_LSP_DOWNLOAD", "1")
            .env("KILO_DISABLE_SHARE", "1")
            .env("KILO_TEST_MANAGED_CONFIG_DIR", self.base.join("managed"))
            .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
            // the values the references must expand to
            .env("API_KEY", API_KEY)
            .env("REMOTE_TOKEN", REMOTE_TOKEN)
            .envs(self.extra.iter().map(|(k, v)| (k, v)));
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
