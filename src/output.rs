//! Rendering reports as text for people or as the JSON document of contract §6. Returns
//! strings; the command layer prints them. Everything passes through the [`Redactor`].

use std::fmt::Write;

use serde::Serialize;

use crate::engine::{ErrorEntry, RecordStatus, Report};
use crate::plan::{Action, FilePlan, Status};
use crate::redact::Redactor;

/// ANSI colours, or none.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    /// Whether to emit escape codes.
    pub color: bool,
}

impl Style {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
}

/// A unified diff of one file (paths as headers; `/dev/null` for a missing side).
pub fn diff(fp: &FilePlan) -> String {
    if !fp.writes() {
        return String::new();
    }
    let old = fp
        .old
        .as_deref()
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default();
    let new = if fp.delete {
        String::new()
    } else {
        fp.new
            .as_deref()
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default()
    };
    let path = fp.path.display().to_string();
    let a = if fp.old.is_some() {
        path.as_str()
    } else {
        "/dev/null"
    };
    let b = if fp.delete {
        "/dev/null"
    } else {
        path.as_str()
    };
    similar::TextDiff::from_lines(&old, &new)
        .unified_diff()
        .context_radius(3)
        .header(a, b)
        .to_string()
}

#[derive(Serialize)]
struct JsonReport<'a> {
    format_version: u32,
    owner: &'a str,
    changed: bool,
    files: Vec<JsonFile<'a>>,
    errors: Vec<ErrorEntry>,
}

#[derive(Serialize)]
struct JsonFile<'a> {
    path: String,
    client: &'a str,
    status: Status,
    actions: Vec<Action>,
    diff: String,
    notes: Vec<String>,
}

/// The JSON document for plan / apply / prune.
pub fn report_json(r: &Report, red: &Redactor) -> String {
    let doc = JsonReport {
        format_version: 1,
        owner: &r.owner,
        changed: r.changed,
        files: r
            .files
            .iter()
            .map(|f| JsonFile {
                path: f.path.display().to_string(),
                client: f.client,
                status: f.status,
                actions: f
                    .actions
                    .iter()
                    .map(|a| Action {
                        op: a.op,
                        server: a.server.clone(),
                        detail: red.redact(&a.detail),
                    })
                    .collect(),
                diff: red.redact(&diff(f)),
                notes: f.notes.iter().map(|n| red.redact(n)).collect(),
            })
            .collect(),
        errors: r
            .errors
            .iter()
            .map(|e| ErrorEntry {
                message: red.redact(&e.message),
                ..e.clone()
            })
            .collect(),
    };
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

/// The diffs, coloured when asked.
pub fn diffs_text(r: &Report, red: &Redactor, style: Style) -> String {
    let mut out = String::new();
    for f in &r.files {
        let d = red.redact(&diff(f));
        for line in d.lines() {
            let painted = if line.starts_with("+++") || line.starts_with("---") {
                style.paint("1", line)
            } else if line.starts_with('+') {
                style.paint("32", line)
            } else if line.starts_with('-') {
                style.paint("31", line)
            } else if line.starts_with("@@") {
                style.paint("36", line)
            } else {
                line.to_string()
            };
            out.push_str(&painted);
            out.push('\n');
        }
    }
    out
}

/// One line per file and a summary.
pub fn summary_text(r: &Report, red: &Redactor, style: Style, verb_done: bool) -> String {
    let mut out = String::new();
    let (mut add, mut upd, mut rem, mut unowned, mut adopt) = (0, 0, 0, 0, 0);
    let (mut grants_added, mut grants_removed) = (0, 0);
    let mut files_changing = 0;
    for f in &r.files {
        if f.actions.is_empty() && f.notes.is_empty() && f.status == Status::Unchanged {
            continue;
        }
        if f.writes() {
            files_changing += 1;
        }
        let status = match f.status {
            Status::Unchanged => style.paint("2", "unchanged"),
            Status::Changed => style.paint("33", if f.delete { "removed" } else { "changed" }),
            Status::Created => style.paint("32", "created"),
            Status::Refused => style.paint("31", "refused"),
            Status::Skipped => style.paint("2", "skipped"),
        };
        let _ = writeln!(out, "{} {} ({status})", f.client, f.path.display());
        for a in &f.actions {
            let grant = a.detail.starts_with("grant `") || a.detail.starts_with("legacy grant `");
            match a.op {
                "add" if grant => grants_added += 1,
                "remove" | "legacy-remove" if grant => grants_removed += 1,
                "add" => add += 1,
                "update" => upd += 1,
                "remove" | "legacy-remove" => rem += 1,
                "unowned-match" => unowned += 1,
                "adopt" => adopt += 1,
                _ => {}
            }
            let sign = match a.op {
                "add" => style.paint("32", "+"),
                "remove" | "legacy-remove" => style.paint("31", "-"),
                "update" | "adopt" => style.paint("33", "~"),
                "conflict" | "drift" => style.paint("31", "!"),
                _ => " ".to_string(),
            };
            let detail = if a.detail.is_empty() {
                String::new()
            } else {
                format!(": {}", red.redact(&a.detail))
            };
            let _ = writeln!(out, "  {sign} {} {}{detail}", a.op, a.server);
        }
        for n in &f.notes {
            let _ = writeln!(out, "  note: {}", red.redact(n));
        }
    }
    let mut parts = Vec::new();
    if add > 0 {
        parts.push(format!("+{add} server{}", plural(add)));
    }
    if upd > 0 {
        parts.push(format!("~{upd} updated"));
    }
    if rem > 0 {
        parts.push(format!("-{rem} server{}", plural(rem)));
    }
    if grants_added > 0 {
        parts.push(format!("+{grants_added} grant{}", plural(grants_added)));
    }
    if grants_removed > 0 {
        parts.push(format!("-{grants_removed} grant{}", plural(grants_removed)));
    }
    if adopt > 0 {
        parts.push(format!("{adopt} adopted"));
    }
    if unowned > 0 {
        parts.push(format!(
            "{unowned} unowned match{}",
            if unowned == 1 { "" } else { "es" }
        ));
    }
    let head = if r
        .errors
        .iter()
        .any(|e| e.code == "conflict" || e.code == "drift")
        || r.files.iter().any(|f| f.status == Status::Refused)
    {
        "Refused: nothing was written.".to_string()
    } else if files_changing == 0 && adopt == 0 {
        "No changes.".to_string()
    } else if verb_done {
        format!("Applied: {files_changing} file{}", plural(files_changing))
    } else {
        format!("Plan: {files_changing} file{}", plural(files_changing))
    };
    if parts.is_empty() || head.starts_with("Refused") {
        let _ = writeln!(out, "{head}");
    } else {
        let _ = writeln!(out, "{head}, {}", parts.join(", "));
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Errors for stderr: `error[code]: path:line:column: message`.
pub fn errors_text(errors: &[ErrorEntry], red: &Redactor, style: Style) -> String {
    let mut out = String::new();
    for e in errors {
        let _ = writeln!(
            out,
            "{}: {}:{}:{}: {}",
            style.paint("1;31", &format!("error[{}]", e.code)),
            e.path,
            e.line,
            e.column,
            red.redact(&e.message)
        );
    }
    out
}

/// `mcpconf status` as text or JSON.
pub fn status_text(owner: &str, records: &[RecordStatus], json: bool) -> String {
    if json {
        #[derive(Serialize)]
        struct S<'a> {
            format_version: u32,
            owner: &'a str,
            records: &'a [RecordStatus],
        }
        let mut s = serde_json::to_string_pretty(&S {
            format_version: 1,
            owner,
            records,
        })
        .unwrap_or_default();
        s.push('\n');
        return s;
    }
    let mut out = String::new();
    if records.is_empty() {
        let _ = writeln!(out, "owner `{owner}` has no ledger records");
    }
    for r in records {
        let _ = writeln!(
            out,
            "{:<10} {:<12} {:<20} {}",
            r.state, r.client, r.server, r.path
        );
    }
    out
}

/// A progress indicator for long work on a terminal: after a short delay (so quick runs show
/// nothing) it draws a spinner and the elapsed time on stderr, and erases it when dropped. It
/// draws nothing when stderr is not a terminal or when machine output was asked for.
pub struct Progress {
    stop: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    /// Start; `enabled` is false under `--format json` or without a terminal.
    pub fn start(label: &str, enabled: bool) -> Progress {
        if !enabled {
            return Progress {
                stop: None,
                thread: None,
            };
        }
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let label = label.to_string();
        let thread = std::thread::spawn(move || {
            use std::io::Write;
            use std::time::{Duration, Instant};
            let start = Instant::now();
            if rx.recv_timeout(Duration::from_millis(400)).is_ok() {
                return;
            }
            let frames = ['|', '/', '-', '\\'];
            let mut i = 0;
            loop {
                let mut err = std::io::stderr().lock();
                let _ = write!(
                    err,
                    "\r{} {label} ({:.1}s)",
                    frames[i % frames.len()],
                    start.elapsed().as_secs_f64()
                );
                let _ = err.flush();
                drop(err);
                i += 1;
                if rx.recv_timeout(Duration::from_millis(120)).is_ok() {
                    let mut err = std::io::stderr().lock();
                    let _ = write!(err, "\r\x1b[2K");
                    let _ = err.flush();
                    return;
                }
            }
        });
        Progress {
            stop: Some(tx),
            thread: Some(thread),
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
