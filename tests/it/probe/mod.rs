//! `mcpconf probe` against scripted servers: a correct stdio server (paging, notifications and
//! a ping in between), every stdio failure path (exits, hangs, garbage, a JSON-RPC error,
//! floods, children that ignore SIGTERM or leave the process group), a loopback streamable HTTP
//! server (JSON and SSE answers, chunked and not, sessions, pagination, 401, silence), and the
//! command line (exit codes, JSON, `--write-pins`, redaction); and, in `tls`, https and servers
//! that require authorization. One module per area; the fake-server fixtures and the loopback
//! request reader are shared here.
//!
//! After every probe that started processes, the test checks that none of them is left: the
//! server's process group holds no live process, and a child it started is gone.

use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use mcpconf::manifest::{self, Manifest};
use mcpconf::probe::{self, FailureCode, Options, Outcome};
use serde_json::{Value, json};

use crate::common::{mcpconf_cmd, probe_manifest};

const FAKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/probe_fake_server.py");

fn options(secs: f64) -> Options {
    Options {
        timeout: Duration::from_secs_f64(secs),
        parallel: 4,
        base_dir: std::env::temp_dir(),
        cacert: None,
        proxy: mcpconf::probe::Proxies::default(),
        smoke: false,
    }
}

fn probe_with(m: &Manifest, secs: f64, env: &[(&str, &str)]) -> Vec<Outcome> {
    let env: HashMap<String, String> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let lookup = move |v: &str| env.get(v).cloned();
    let servers: Vec<_> = m.servers.iter().collect();
    probe::probe_all(&servers, &options(secs), &lookup)
}

/// A scratch directory where fake servers write their pids.
struct Fakes {
    dir: tempfile::TempDir,
}

impl Fakes {
    fn new() -> Fakes {
        Fakes {
            dir: tempfile::Builder::new()
                .prefix("mcpconf-probe-")
                .tempdir()
                .expect("tempdir"),
        }
    }
    fn pid_file(&self, name: &str) -> PathBuf {
        self.dir.path().join(format!("{name}.pid"))
    }
    fn child_file(&self, name: &str) -> PathBuf {
        self.dir.path().join(format!("{name}.child"))
    }
    /// `[servers.NAME]` running the fake server in `mode`, with an optional pin.
    fn server(&self, name: &str, mode: &str, pin: Option<&[&str]>) -> String {
        let mut s = format!(
            "[servers.{name}]\ncommand = 'python3'\nargs = ['{FAKE}', '{mode}', 'mcpconf-probe-marker-{name}-{}']\n\
             env = {{ FAKE_PID_FILE = '{}', FAKE_CHILD_PID_FILE = '{}' }}\n",
            std::process::id(),
            self.pid_file(name).display(),
            self.child_file(name).display()
        );
        if let Some(p) = pin {
            let list: Vec<String> = p.iter().map(|t| format!("'{t}'")).collect();
            s.push_str(&format!("tools = [{}]\n", list.join(", ")));
        }
        s
    }
    fn pid(&self, name: &str) -> Option<i32> {
        read_pid(&self.pid_file(name))
    }
    fn child_pid(&self, name: &str) -> Option<i32> {
        read_pid(&self.child_file(name))
    }
    /// The marker every process of the server `name` carries in its command line.
    fn marker(name: &str) -> String {
        format!("mcpconf-probe-marker-{name}-{}", std::process::id())
    }
    /// Assert that nothing of the server `name` is left: no process carries its marker, and
    /// (when it got as far as writing its pid) its process group is empty.
    fn assert_gone_even_if_unstarted(&self, name: &str) {
        let marker = Fakes::marker(name);
        wait_until(
            || with_marker(&marker).is_empty(),
            "marked processes to end",
        );
        assert_eq!(with_marker(&marker), Vec::<i32>::new(), "`{name}` left");
        if self.pid(name).is_some() {
            self.assert_gone(name);
        }
    }
    /// Assert that the server `name` was started and that nothing of it is left.
    fn assert_gone(&self, name: &str) {
        let pgid = self
            .pid(name)
            .unwrap_or_else(|| panic!("server `{name}` never started (no pid file)"));
        wait_until(|| group_members(pgid).is_empty(), "process group to end");
        assert_eq!(
            group_members(pgid),
            Vec::<i32>::new(),
            "`{name}`: processes left in group {pgid}"
        );
        if let Some(c) = self.child_pid(name) {
            wait_until(|| !alive(c), "child to end");
            assert!(!alive(c), "`{name}`: child {c} survived the probe");
        }
    }
}

fn read_pid(p: &Path) -> Option<i32> {
    fs::read_to_string(p).ok()?.trim().parse().ok()
}

/// `(state, pgrp)` of a process from `/proc/PID/stat`.
fn stat(pid: i32) -> Option<(char, i32)> {
    let s = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &s[s.rfind(')')? + 1..];
    let mut f = rest.split_whitespace();
    let state = f.next()?.chars().next()?;
    let _ppid = f.next()?;
    let pgrp = f.next()?.parse().ok()?;
    Some((state, pgrp))
}

/// A process that exists and is not a zombie (a zombie is dead, only not yet reaped).
fn alive(pid: i32) -> bool {
    matches!(stat(pid), Some((s, _)) if s != 'Z' && s != 'X')
}

fn group_members(pgid: i32) -> Vec<i32> {
    let mut out = Vec::new();
    for e in fs::read_dir("/proc").expect("/proc").flatten() {
        if let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok())
            && let Some((state, pgrp)) = stat(pid)
            && pgrp == pgid
            && state != 'Z'
            && state != 'X'
        {
            out.push(pid);
        }
    }
    out
}

/// Poll for up to five seconds (SIGKILL is delivered asynchronously; a loaded machine is slow).
/// Live processes whose command line holds `marker`.
fn with_marker(marker: &str) -> Vec<i32> {
    let mut out = Vec::new();
    for e in fs::read_dir("/proc").expect("/proc").flatten() {
        if let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok())
            && alive(pid)
            && fs::read(e.path().join("cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(marker))
        {
            out.push(pid);
        }
    }
    out
}

/// Wait (generously: the machine may be busy) until `f` holds; the caller asserts after.
fn wait_until(mut f: impl FnMut() -> bool, _what: &str) {
    let until = Instant::now() + Duration::from_secs(30);
    while !f() && Instant::now() < until {
        thread::sleep(Duration::from_millis(20));
    }
}

fn only(mut v: Vec<Outcome>) -> Outcome {
    assert_eq!(v.len(), 1);
    v.remove(0)
}

fn fails(o: &Outcome, code: &str) {
    assert!(!o.ok, "{o:?}");
    assert_eq!(o.code.map(FailureCode::as_str), Some(code), "{o:?}");
    assert!(o.tools.is_empty() && o.unpinned.is_empty() && o.missing.is_empty());
}

mod cli;
mod http;
mod modern;
pub(crate) mod proxy;
mod stdio;
pub(crate) mod tls;
mod tokens;

/// One HTTP request a loopback server read: method, path, headers, JSON body.
#[derive(Debug, Clone)]
struct Req {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Req {
    fn header(&self, n: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(n))
            .map(|(_, v)| v.as_str())
    }
}

/// Read one request (head and a `Content-Length` body) from `r`.
fn read_request(r: &mut impl BufRead) -> Option<Req> {
    let mut line = String::new();
    r.read_line(&mut line).ok()?;
    let mut parts = line.split(' ');
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        r.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        headers.push((k.trim().to_string(), v.trim().to_string()));
    }
    let len = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    r.read_exact(&mut body).ok()?;
    Some(Req {
        method,
        path,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    })
}
