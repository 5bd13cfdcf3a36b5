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

/// Read system calls made so far by a process, from /proc (`syscr` in `/proc/PID/io`).
fn read_syscalls(pid: u32) -> Option<u64> {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
    io.lines()
        .find_map(|l| l.strip_prefix("syscr:"))
        .and_then(|v| v.trim().parse().ok())
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

    // After an event it settles: its own apply (which reads the files it watches, and writes
    // one) does not set off the next one. Wait until a window passes without a read system
    // call (the windows are measurements, not synchronisation).
    if read_syscalls(w.child.id()).is_some() {
        let end = Instant::now() + DEADLINE;
        loop {
            let r0 = read_syscalls(w.child.id()).unwrap();
            std::thread::sleep(Duration::from_millis(1500));
            let r1 = read_syscalls(w.child.id()).unwrap();
            if r1 == r0 {
                break;
            }
            assert!(
                Instant::now() < end,
                "the watcher keeps reading ({} reads in the last window): a re-apply loop",
                r1 - r0
            );
        }
    }

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

/// Polls `path` (relative to the project) until `pred` holds for its text, within the deadline.
fn wait_for_text(e: &Env, path: &str, what: &str, pred: impl Fn(&str) -> bool) -> String {
    let end = Instant::now() + DEADLINE;
    loop {
        let text = std::fs::read_to_string(e.root().join(path)).unwrap_or_default();
        if pred(&text) {
            return text;
        }
        assert!(Instant::now() < end, "{what} within {DEADLINE:?}: {text}");
        std::thread::sleep(POLL);
    }
}

const TWO_FILES: &str = r#"owner = "me"

[servers.github]
command = "npx"
args = ["-y", "gh-mcp"]

[[targets]]
client = "cursor"

[[targets]]
client = "vscode"
"#;

#[test]
fn watch_is_per_file_a_drifted_or_unparsable_file_does_not_stop_the_others() {
    let e = Env::new();
    e.manifest(TWO_FILES);
    let w = Watcher::start(&e, &["--format", "json"]);
    let (_, before) = w.until("watching", |v| event(v, "watching"));
    let applied: Vec<&Value> = before.iter().filter(|v| event(v, "applied")).collect();
    assert_eq!(applied.len(), 2, "both files applied first: {before:?}");

    // The Cursor entry is edited by hand (drift) and the VS Code entry is removed by its
    // client: the drift is reported and its file left alone, the other file is re-applied.
    let drifted = e.text(".cursor/mcp.json").replace("gh-mcp", "gh-mcp@2");
    e.write(".cursor/mcp.json", &drifted);
    e.write(".vscode/mcp.json", "{\n  \"servers\": {}\n}\n");
    let (v, _) = w.until("the VS Code entry re-added", |v| {
        event(v, "applied")
            && v["path"]
                .as_str()
                .unwrap_or("")
                .ends_with(".vscode/mcp.json")
    });
    assert_eq!(v["actions"][0]["op"], "add", "{v}");
    wait_for_text(&e, ".vscode/mcp.json", "the entry back", |t| {
        t.contains("gh-mcp")
    });
    assert_eq!(
        e.text(".cursor/mcp.json"),
        drifted,
        "a drifted file is not written"
    );
    // The drift is reported (before or after the re-add: one apply reports both).
    let drift_seen = |lines: &[Value]| {
        lines
            .iter()
            .any(|v| event(v, "refused") && v["code"] == "drift" && v["written"] == false)
    };
    let mut lines: Vec<Value> = before.clone();
    lines.push(v.clone());
    if !drift_seen(&lines) {
        let (v, _) = w.until("drift", |v| event(v, "refused") && v["code"] == "drift");
        assert!(
            v["path"].as_str().unwrap().ends_with(".cursor/mcp.json"),
            "{v}"
        );
    }

    // The Cursor file stops parsing and the VS Code entry is removed again: the same.
    e.write(".cursor/mcp.json", "{ \"mcpServers\": ");
    e.write(".vscode/mcp.json", "{\n  \"servers\": {}\n}\n");
    wait_for_text(&e, ".vscode/mcp.json", "the entry back again", |t| {
        t.contains("gh-mcp")
    });
    let (v, _) = w.until("parse error", |v| {
        event(v, "refused") && v["code"] == "parse-error"
    });
    assert!(
        v["path"].as_str().unwrap().ends_with(".cursor/mcp.json"),
        "{v}"
    );
    assert_eq!(e.text(".cursor/mcp.json"), "{ \"mcpServers\": ");
}

const AGENTS: &str = r#"owner = "me"

[servers.github]
command = "npx"
args = ["-y", "gh-mcp"]

[[targets]]
client = "kiro-agent"
"#;

#[test]
fn watch_picks_up_a_file_that_newly_matches_a_glob_target() {
    let e = Env::new();
    e.manifest(AGENTS);
    e.write(
        ".kiro/agents/dev.json",
        "{\"name\": \"dev\", \"tools\": [\"read\"]}\n",
    );
    let w = Watcher::start(&e, &["--format", "json"]);
    // `watching` comes after the first apply's own writes, so nothing is pending then: the
    // next apply can only come from the new file.
    let (_, before) = w.until("watching", |v| event(v, "watching"));
    assert!(
        before.iter().any(|v| event(v, "applied")),
        "dev.json applied first: {before:?}"
    );
    assert!(e.text(".kiro/agents/dev.json").contains("gh-mcp"));

    e.write(".kiro/agents/ops.json", "{\"name\": \"ops\"}\n");
    let (v, _) = w.until("the new agent file applied", |v| {
        event(v, "applied")
            && v["path"]
                .as_str()
                .unwrap_or("")
                .ends_with("agents/ops.json")
    });
    assert_eq!(v["actions"][0]["op"], "add", "{v}");
    let ops = wait_for_text(&e, ".kiro/agents/ops.json", "the entry in ops.json", |t| {
        t.contains("gh-mcp")
    });
    assert!(ops.contains("\"name\": \"ops\""), "{ops}");
}

#[test]
fn watch_picks_up_a_glob_directory_created_later() {
    let e = Env::new();
    e.manifest(AGENTS);
    // No agent directory at all when the watcher starts.
    let w = Watcher::start(&e, &["--format", "json"]);
    w.until("watching", |v| event(v, "watching"));
    e.write(".kiro/agents/dev.json", "{\"name\": \"dev\"}\n");
    w.until("the agent file applied", |v| {
        event(v, "applied")
            && v["path"]
                .as_str()
                .unwrap_or("")
                .ends_with("agents/dev.json")
    });
    wait_for_text(&e, ".kiro/agents/dev.json", "the entry in dev.json", |t| {
        t.contains("gh-mcp")
    });
    // A file the glob does not match is left alone.
    e.write(".kiro/agents/notes.txt", "hello\n");
    e.write(".kiro/agents/later.json", "{\"name\": \"later\"}\n");
    w.until("the second agent file applied", |v| {
        event(v, "applied")
            && v["path"]
                .as_str()
                .unwrap_or("")
                .ends_with("agents/later.json")
    });
    assert_eq!(e.text(".kiro/agents/notes.txt"), "hello\n");
}

/// An invalid manifest is said once while it stays invalid, whatever else happens; the fix is
/// said too (issue 41).
#[test]
fn watch_says_a_lasting_manifest_error_once_and_the_reload() {
    let e = Env::new();
    e.manifest(MANIFEST);
    e.write(".cursor/mcp.json", "{\n  \"mcpServers\": {}\n}\n");
    let mut w = Watcher::start(&e, &["--format", "json"]);
    w.until("watching", |v| event(v, "watching"));
    e.manifest("owner = \"o\"\n[servers.github]\ncomand = \"x\"\n");
    let (v, _) = w.until("manifest error", |v| event(v, "refused"));
    assert_eq!(v["code"], "manifest-error", "{v}");
    // Another event while it stays broken: the file is re-applied with the last good manifest,
    // and the manifest's error is not said again.
    e.write(".cursor/mcp.json", "{\n  \"mcpServers\": {}\n}\n");
    let (_, between) = w.until("re-add", |v| event(v, "applied"));
    assert!(
        !between.iter().any(|v| v["code"] == "manifest-error"),
        "{between:?}"
    );
    e.manifest(&MANIFEST.replace("gh-mcp", "gh-mcp-2"));
    let (_, between) = w.until("reloaded", |v| event(v, "manifest-reloaded"));
    assert!(
        !between.iter().any(|v| v["code"] == "manifest-error"),
        "{between:?}"
    );
    // SAFETY: kill(2) on our own child.
    assert_eq!(unsafe { libc::kill(w.child.id() as i32, libc::SIGTERM) }, 0);
    w.until("stopped", |v| event(v, "stopped"));
    assert_eq!(w.exit().code(), Some(0));
}
