//! `apply --watch` against real file events: an entry of ours removed by someone else is
//! re-added, an entry edited by hand is reported as drift and not written, SIGTERM stops the
//! watcher cleanly, and an idle watcher uses no CPU. Every wait is for an event (a line from
//! the watcher or the file's content) with a generous deadline; no sleep synchronises.
#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{Env, mcpconf_cmd};

const DEADLINE: Duration = Duration::from_secs(60);
/// Interval between two looks at a file or a process while polling (not a synchronisation).
const POLL: Duration = Duration::from_millis(20);

const MANIFEST: &str = r#"owner = "me"

[servers.github]
command = "npx"
args = ["-y", "gh-mcp"]

[[targets]]
client = "cursor"
"#;

/// The watcher, killed if the test fails before it stops; its stdout, line by line.
struct Watcher {
    child: Child,
    lines: Receiver<String>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Watcher {
    fn start(e: &Env, extra: &[&str]) -> Watcher {
        let mut args = vec!["apply", "--watch"];
        args.extend(extra);
        let mut child = e.cmd(&args).stdout(Stdio::piped()).spawn().unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Watcher { child, lines }
    }

    /// The next line for which `pred` holds, and the lines before it.
    fn line(&self, what: &str, pred: impl Fn(&str) -> bool) -> (String, Vec<String>) {
        let end = Instant::now() + DEADLINE;
        let mut seen = Vec::new();
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if pred(&l) => return (l, seen),
                Ok(l) => seen.push(l),
                Err(_) => panic!("no {what} within {DEADLINE:?}; lines: {seen:?}"),
            }
        }
    }

    /// The next JSON line for which `pred` holds, and the lines before it.
    fn until(&self, what: &str, pred: impl Fn(&Value) -> bool) -> (Value, Vec<Value>) {
        let parse = |l: &str| -> Value {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}"))
        };
        let (l, seen) = self.line(what, |l| pred(&parse(l)));
        (parse(&l), seen.iter().map(|l| parse(l)).collect())
    }

    /// Exit status, within the deadline.
    fn exit(&mut self) -> std::process::ExitStatus {
        let end = Instant::now() + DEADLINE;
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s;
            }
            assert!(Instant::now() < end, "the watcher did not exit");
            std::thread::sleep(POLL);
        }
    }
}

fn event(v: &Value, name: &str) -> bool {
    v["event"] == name
}

/// CPU time (user + system, clock ticks) of a process, from /proc.
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

#[test]
fn watch_re_adds_reports_drift_and_stops_on_sigterm() {
    let e = Env::new();
    e.manifest(MANIFEST);
    e.write(".cursor/mcp.json", "{\n  \"mcpServers\": {}\n}\n");
    let mut w = Watcher::start(&e, &["--format", "json"]);
    let (_, before) = w.until("watching", |v| event(v, "watching"));
    assert!(
        before
            .iter()
            .any(|v| event(v, "applied") && v["actions"][0]["op"] == "add"),
        "the first apply: {before:?}"
    );
    assert!(e.text(".cursor/mcp.json").contains("\"github\""));

    // Idle: no busy loop (a measurement window, not a synchronisation).
    if let Some(t0) = cpu_ticks(w.child.id()) {
        std::thread::sleep(Duration::from_millis(1500));
        let t1 = cpu_ticks(w.child.id()).unwrap();
        assert!(t1 - t0 < 30, "an idle watcher used {} ticks", t1 - t0);
    }

    // Someone removes our entry: it is re-added.
    e.write(".cursor/mcp.json", "{\n  \"mcpServers\": {}\n}\n");
    let (v, _) = w.until("re-add", |v| event(v, "applied"));
    assert_eq!(v["actions"][0]["op"], "add", "{v}");
    assert_eq!(v["actions"][0]["server"], "github", "{v}");
    let end = Instant::now() + DEADLINE;
    while !e.text(".cursor/mcp.json").contains("\"github\"") {
        assert!(Instant::now() < end, "the entry was not re-added");
        std::thread::sleep(POLL);
    }
    let readded = e.text(".cursor/mcp.json");
    assert!(readded.contains("gh-mcp"), "{readded}");

    // Someone edits it: drift, reported, nothing written.
    let edited = readded.replace("gh-mcp", "gh-mcp@2");
    e.write(".cursor/mcp.json", &edited);
    let (v, _) = w.until("drift", |v| event(v, "refused"));
    assert_eq!(v["code"], "drift", "{v}");
    assert_eq!(v["written"], false, "{v}");
    assert_eq!(
        e.text(".cursor/mcp.json"),
        edited,
        "a drifted file is not written"
    );

    // A file that no longer parses: reported, left alone.
    e.write(".cursor/mcp.json", "{ \"mcpServers\": ");
    let (v, _) = w.until("parse error", |v| {
        event(v, "refused") && v["code"] != "drift"
    });
    assert_eq!(v["code"], "parse-error", "{v}");
    assert_eq!(e.text(".cursor/mcp.json"), "{ \"mcpServers\": ");

    // SIGTERM: a last line and exit 0.
    // SAFETY: kill(2) on our own child.
    assert_eq!(unsafe { libc::kill(w.child.id() as i32, libc::SIGTERM) }, 0);
    let (v, _) = w.until("stopped", |v| event(v, "stopped"));
    assert_eq!(v["signal"], "SIGTERM");
    let status = w.exit();
    assert_eq!(status.code(), Some(0), "{status:?}");
    assert_eq!(e.text(".cursor/mcp.json"), "{ \"mcpServers\": ");
}

#[test]
fn watch_text_output_is_one_line_per_event_and_sigint_stops_it() {
    let e = Env::new();
    e.manifest(MANIFEST);
    let mut w = Watcher::start(&e, &[]);
    let (_, before) = w.line("watching", |l| l.starts_with("watching "));
    assert_eq!(before.len(), 1, "{before:?}");
    assert!(
        before[0].starts_with("applied ") && before[0].contains("add github"),
        "{before:?}"
    );
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(w.child.id() as i32, libc::SIGINT) };
    let (last, between) = w.line("stopped", |l| l.starts_with("stopped"));
    assert!(between.is_empty(), "{between:?}");
    assert_eq!(last, "stopped (SIGINT)");
    assert_eq!(w.exit().code(), Some(0));
}

#[test]
fn watch_refuses_a_saved_plan() {
    let e = Env::new();
    e.manifest(MANIFEST);
    let out = mcpconf_cmd()
        .args(["apply", "--watch", "plan.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
