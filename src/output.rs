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

/// Files above this size are diffed only around the bytes that differ.
const WINDOW_ABOVE: usize = 64 * 1024;

/// A unified diff of one file (paths as headers; `/dev/null` for a missing side).
pub fn diff(fp: &FilePlan) -> String {
    if !fp.writes() {
        return String::new();
    }
    let old_b: &[u8] = fp.old.as_ref().map(|d| d.bytes()).unwrap_or_default();
    let new_b: &[u8] = if fp.delete {
        &[]
    } else {
        fp.new.as_deref().unwrap_or_default()
    };
    // A big file changed in one place: diff only that place (plus context), and shift the
    // hunk headers by the lines before it. Bytes outside the window are identical.
    let (old_w, new_w, shift) = if old_b.len().max(new_b.len()) > WINDOW_ABOVE {
        window(old_b, new_b)
    } else {
        (old_b, new_b, 0)
    };
    let old = String::from_utf8_lossy(old_w).into_owned();
    let new = String::from_utf8_lossy(new_w).into_owned();
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
    let text = similar::TextDiff::from_lines(&old, &new)
        .unified_diff()
        .context_radius(3)
        .header(a, b)
        .to_string();
    if shift == 0 {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        match shift_hunk_header(line, shift) {
            Some(h) => out.push_str(&h),
            None => out.push_str(line),
        }
    }
    out
}

/// The parts of `old` and `new` that differ, widened to whole lines plus four lines of context
/// on each side, and the number of lines before them.
fn window<'a>(old: &'a [u8], new: &'a [u8]) -> (&'a [u8], &'a [u8], usize) {
    let p = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let max_q = old.len().min(new.len()) - p;
    let q = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(max_q)
        .take_while(|(a, b)| a == b)
        .count();
    // Back to the start of p's line, then four more lines.
    let mut s = p;
    for i in 0..5 {
        if i > 0 {
            if s == 0 {
                break;
            }
            s -= 1;
        }
        while s > 0 && old[s - 1] != b'\n' {
            s -= 1;
        }
    }
    // Forward past the end of the last differing line, then four more lines (in the common
    // suffix, so by the same number of bytes in both).
    let oe = old.len() - q;
    let mut e = oe;
    for _ in 0..5 {
        while e < old.len() && old[e] != b'\n' {
            e += 1;
        }
        if e < old.len() {
            e += 1;
        }
    }
    let k = e - oe;
    let ne = (new.len() - q + k).min(new.len());
    let shift = old[..s].iter().filter(|&&c| c == b'\n').count();
    (&old[s..e], &new[s..ne], shift)
}

/// `@@ -a,b +c,d @@` with `shift` added to `a` and `c`; `None` for any other line.
fn shift_hunk_header(line: &str, shift: usize) -> Option<String> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, tail) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let bump = |r: &str| -> Option<String> {
        let (start, len) = match r.split_once(',') {
            Some((s, l)) => (s, Some(l)),
            None => (r, None),
        };
        let start: usize = start.parse().ok()?;
        Some(match len {
            Some(l) => format!("{},{l}", start + shift),
            None => format!("{}", start + shift),
        })
    };
    Some(format!("@@ -{} +{} @@{tail}", bump(old)?, bump(new)?))
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
            match a.op {
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
    if parts.is_empty() {
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
