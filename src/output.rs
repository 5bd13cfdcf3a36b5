//! Rendering reports as text for people or as the JSON document of contract §6. Returns
//! strings; the command layer prints them. Everything passes through the [`Redactor`].

use std::borrow::Cow;
use std::fmt::Write;

use serde::Serialize;

use crate::diag::Code;
use crate::document::Doc;
use crate::engine::{ErrorEntry, RecordStatus, Report};
use crate::plan::{Action, FilePlan, Op, Status};
use crate::redact::{
    Redactor, escape_controls,
    mask::{self, Lang},
};

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

/// A unified diff of one file (paths as headers; `/dev/null` for a missing side), with every
/// string and comment credential masked on decoded values by the shared detector: the diff is
/// computed on the real text and shown with masked lines. Above [`MASK_WHOLE_FILE`] only the
/// window around the change is read, line by line, and a line the detector cannot clear on
/// its own is shown as `<redacted>`.
pub fn diff(fp: &FilePlan) -> String {
    if !fp.writes() {
        return String::new();
    }
    let old_b: &[u8] = fp.old.as_ref().map(|d| d.bytes()).unwrap_or_default();
    let new_c = fp.new.as_ref().filter(|_| !fp.delete);
    let new_len = new_c.map_or(0, crate::text::Content::len);
    let whole = old_b.len().max(new_len) <= MASK_WHOLE_FILE;
    let big = old_b.len().max(new_len) > WINDOW_ABOVE;
    // A big file changed in one place: diff only that place (plus context), and shift the
    // hunk headers by the lines before it. Bytes outside the window are identical. The change
    // is found from the edit's position (`diff_window_of`), not by comparing the whole files.
    let local = match new_c {
        Some(c) if big && (!whole || c.change_from(old_b).is_some()) => {
            Some(crate::text::diff_windows_of(old_b, c))
        }
        _ => None,
    };
    // The whole new text is built only where the window is not found from the edit (a small
    // file, or new text not made from the old buffer); a big file's diff reads the windows and,
    // to mask them, the text around them (`Side::masked`).
    let spliced = local.is_some();
    let new_full: std::borrow::Cow<'_, [u8]> = match new_c {
        // (Borrowed when the new text is one piece: a TOML or YAML edit's text.)
        Some(c) if !spliced => c.slice(0, c.len()),
        _ => std::borrow::Cow::Borrowed(&[]),
    };
    let windows: Vec<Window<'_>> = match local {
        Some(ws) => ws.into_iter().map(|(o, n, s)| (o, n.into(), s)).collect(),
        None if big => {
            let (o, n, shift) = crate::text::diff_window(old_b, &new_full);
            vec![(o, n.into(), shift)]
        }
        None => vec![(old_b, new_full.as_ref().into(), 0)],
    };
    let lang = match &fp.old {
        Some(Doc::Toml(_)) => Lang::Toml,
        Some(Doc::Json(_)) => Lang::Json,
        Some(Doc::Yaml(_)) => Lang::Yaml,
        None if fp.path.extension().is_some_and(|e| e == "toml") => Lang::Toml,
        None if fp
            .path
            .extension()
            .is_some_and(|e| e == "yaml" || e == "yml") =>
        {
            Lang::Yaml
        }
        None => Lang::Json,
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
    let new_prefix = |n: usize| match new_c {
        Some(c) if spliced => c.slice(0, n),
        _ => Cow::Borrowed(&new_full[..n.min(new_full.len())]),
    };
    let mut out = String::new();
    // Lines the windows before this one added to the new text.
    let mut grown = 0isize;
    for (k, (old_w, new_w, shift)) in windows.iter().enumerate() {
        // The old window's offset; the new one's is moved by what the windows before added.
        let from = old_w.as_ptr() as usize - old_b.as_ptr() as usize;
        let new_from = from.saturating_add_signed(grown);
        let new_shift = shift.saturating_add_signed(
            windows
                .iter()
                .take(k)
                .map(|(o, n, _)| lines(n) as isize - lines(o) as isize)
                .sum::<isize>(),
        );
        grown += new_w.len() as isize - old_w.len() as isize;
        let old = String::from_utf8_lossy(old_w).into_owned();
        let new = String::from_utf8_lossy(new_w).into_owned();
        // The masked lines of each window: those of the whole file masked (judging only what
        // reaches into the window), or, above [`MASK_WHOLE_FILE`], the window cleared line by
        // line.
        let side = Side {
            lang,
            whole,
            from,
            shift: *shift,
        };
        let old_m = side.masked(
            old_b.len(),
            &|n| Cow::Borrowed(&old_b[..n.min(old_b.len())]),
            old_w.len(),
            &old,
        );
        let new_side = Side {
            from: new_from,
            shift: new_shift,
            ..side
        };
        let new_m = new_side.masked(new_len, &new_prefix, new_w.len(), &new);
        let text = mask::unified_diff(&old, &new, &old_m, &new_m, (a, b));
        for line in text.split_inclusive('\n') {
            if k > 0 && (line.starts_with("--- ") || line.starts_with("+++ ")) {
                continue;
            }
            match shift_hunk_header(line, *shift, new_shift) {
                Some(h) if *shift > 0 || new_shift > 0 => out.push_str(&h),
                _ => out.push_str(line),
            }
        }
    }
    out
}

/// A window of a diff: the old bytes, the new bytes, the lines before it.
type Window<'a> = (&'a [u8], Cow<'a, [u8]>, usize);

/// How many line breaks `b` holds.
fn lines(b: &[u8]) -> usize {
    b.iter().filter(|&&c| c == b'\n').count()
}

/// How far past a window [`Side::masked`] first reads: the text it lexes for the window's
/// last token (the token that crosses the window's end, a comment or string spanning lines).
const MASK_READ_PAST: usize = 64 * 1024;

/// How a side of a diff is masked: the language, whether the file is masked whole (at most
/// [`MASK_WHOLE_FILE`]) or line by line, and where the windows start (a byte offset, the same
/// in both texts, and the lines before it).
struct Side {
    lang: Lang,
    whole: bool,
    from: usize,
    shift: usize,
}

impl Side {
    /// The masked lines of the window of `len` bytes shown as `shown`, of a text of `total` bytes whose first `n`
    /// bytes `prefix(n)` gives. Masked whole, the window's lines are [`mask::mask_window`]'s,
    /// computed from a prefix ending [`MASK_READ_PAST`] bytes past the window when that
    /// prefix decides them ([`mask::mask_window_prefix`]), else from the whole text.
    fn masked<'a>(
        &self,
        total: usize,
        prefix: &dyn Fn(usize) -> Cow<'a, [u8]>,
        len: usize,
        shown: &str,
    ) -> String {
        let (lang, from) = (self.lang, self.from);
        if !self.whole {
            return mask::mask_lines(shown, lang);
        }
        if len == total {
            return mask::mask(shown, lang);
        }
        let to = from + len;
        let bound = to.saturating_add(MASK_READ_PAST);
        if bound < total {
            let head = prefix(bound);
            // Cut after a line end: a line is lexed whole or not at all (and no character is
            // cut in two).
            if let Some(cut) = head.iter().rposition(|&c| c == b'\n').map(|k| k + 1)
                && cut > to
                && let Ok(text) = simdutf8::basic::from_utf8(&head[..cut])
                && let Some(m) = mask::mask_window_prefix(text, lang, from, to)
            {
                return m;
            }
        }
        let full = prefix(total);
        match simdutf8::basic::from_utf8(&full) {
            Ok(text) => mask::mask_window(text, lang, from, to),
            Err(_) => {
                let m = mask::mask(&String::from_utf8_lossy(&full), lang);
                let n = shown.split_inclusive('\n').count();
                m.split_inclusive('\n').skip(self.shift).take(n).collect()
            }
        }
    }
}

/// Files up to this size are lexed whole to mask credentials in their diffs; above it only
/// the window around the change is read, and cleared line by line.
pub const MASK_WHOLE_FILE: usize = 8 << 20;

/// `@@ -a,b +c,d @@` with `shift` added to `a` and `c`; `None` for any other line.
fn shift_hunk_header(line: &str, shift: usize, new_shift: usize) -> Option<String> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, tail) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let bump = |r: &str, shift: usize| -> Option<String> {
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
    Some(format!(
        "@@ -{} +{} @@{tail}",
        bump(old, shift)?,
        bump(new, new_shift)?
    ))
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
            let line = &*escape_controls(line);
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
    let mut tally = Tally::default();
    let any_refusal = r.exit == crate::engine::Exit::Refused
        || r.errors
            .iter()
            .any(|e| matches!(e.code, Code::Conflict | Code::Drift))
        || r.files.iter().any(|f| f.status == Status::Refused);
    // `--keep-going` wrote every file it could: each file says what happened to it, and the
    // summary says both what was written and what was refused.
    let partial = verb_done && r.applied && r.changed && any_refusal;
    // A refused run writes nothing: no file is labelled with what would have happened to it.
    let refused = any_refusal && !partial;
    for f in &r.files {
        if f.actions.is_empty() && f.notes.is_empty() && f.status == Status::Unchanged {
            continue;
        }
        // After a failed apply, a file that was to change but was not written is `unchanged`
        // with its planned bytes still attached: it is labelled and counted as not written.
        let not_written = verb_done && f.writes() && f.status == Status::Unchanged;
        if f.writes() && !not_written {
            tally.files_changing += 1;
        }
        let status = file_status(f, style, not_written, refused);
        let _ = writeln!(
            out,
            "{} {} ({status})",
            f.client,
            escape_controls(&f.path.display().to_string())
        );
        for a in &f.actions {
            if !not_written {
                tally.count(a);
            }
            action_line(&mut out, r, a, red, style);
        }
        for n in &f.notes {
            let _ = writeln!(out, "  note: {}", escape_controls(&red.redact(n)));
        }
    }
    let failed = verb_done && r.exit == crate::engine::Exit::Io;
    let (files_changing, adopt, unowned) = (tally.files_changing, tally.adopt, tally.unowned);
    if refused {
        let _ = writeln!(out, "Refused: nothing was written.");
    } else if failed && files_changing == 0 {
        let _ = writeln!(out, "Failed: nothing was written.");
    } else if files_changing == 0 && adopt == 0 {
        // Nothing is written: only what stays as it is is worth a word (updates and removals
        // that write nothing are records refreshed, not changes).
        if unowned == 0 {
            let _ = writeln!(out, "No changes.");
        } else {
            let _ = writeln!(
                out,
                "No changes ({unowned} unowned match{}).",
                if unowned == 1 { "" } else { "es" }
            );
        }
    } else {
        let verb = if verb_done { "Applied" } else { "Plan" };
        let mut line = format!("{verb}: {files_changing} file{}", plural(files_changing));
        for p in &tally.parts() {
            line.push_str(", ");
            line.push_str(p);
        }
        if failed {
            line.push_str("; then a write failed, and the rest was not written");
        }
        if partial {
            let refused_files = r
                .files
                .iter()
                .filter(|f| f.status == Status::Refused)
                .count();
            let _ = write!(
                line,
                "; refused: {refused_files} file{}, left unchanged",
                plural(refused_files)
            );
        }
        let _ = writeln!(out, "{line}");
    }
    out
}

/// What a plan or run does, counted for its summary line.
#[derive(Default)]
struct Tally {
    add: usize,
    upd: usize,
    rem: usize,
    unowned: usize,
    adopt: usize,
    grants_added: usize,
    grants_removed: usize,
    took: usize,
    files_changing: usize,
}

impl Tally {
    fn count(&mut self, a: &Action) {
        let grant = a.detail.starts_with("grant `") || a.detail.starts_with("legacy grant `");
        match a.op {
            Op::Add if grant => self.grants_added += 1,
            Op::Remove | Op::LegacyRemove if grant => self.grants_removed += 1,
            Op::Add => self.add += 1,
            Op::Update => self.upd += 1,
            Op::TakeOver => self.took += 1,
            Op::Remove | Op::LegacyRemove => self.rem += 1,
            Op::UnownedMatch => self.unowned += 1,
            Op::Adopt => self.adopt += 1,
            Op::Keep | Op::Conflict | Op::Drift => {}
        }
    }

    /// The counts that are not zero, as the summary line shows them.
    fn parts(&self) -> Vec<String> {
        let mut parts = Vec::new();
        if self.add > 0 {
            parts.push(format!("+{} server{}", self.add, plural(self.add)));
        }
        if self.upd > 0 {
            parts.push(format!("~{} updated", self.upd));
        }
        if self.rem > 0 {
            parts.push(format!("-{} server{}", self.rem, plural(self.rem)));
        }
        if self.grants_added > 0 {
            let n = self.grants_added;
            parts.push(format!("+{n} grant{}", plural(n)));
        }
        if self.grants_removed > 0 {
            let n = self.grants_removed;
            parts.push(format!("-{n} grant{}", plural(n)));
        }
        if self.took > 0 {
            parts.push(format!("{} taken over", self.took));
        }
        if self.adopt > 0 {
            parts.push(format!("{} adopted", self.adopt));
        }
        if self.unowned > 0 {
            parts.push(format!(
                "{} unowned match{}",
                self.unowned,
                if self.unowned == 1 { "" } else { "es" }
            ));
        }
        parts
    }
}

/// What happened (or would happen) to a file, painted, for its line in the summary.
fn file_status(f: &FilePlan, style: Style, not_written: bool, refused: bool) -> String {
    match f.status {
        Status::Unchanged if not_written => style.paint("2", "not written"),
        Status::Unchanged => style.paint("2", "unchanged"),
        Status::Changed if refused => style.paint(
            "2",
            if f.delete {
                "not removed"
            } else {
                "not changed"
            },
        ),
        Status::Created if refused => style.paint("2", "not created"),
        Status::Changed => style.paint("33", if f.delete { "removed" } else { "changed" }),
        Status::Created => style.paint("32", "created"),
        Status::Refused => style.paint("31", "refused"),
        Status::Skipped => style.paint("2", "skipped"),
    }
}

/// One action's line under its file.
fn action_line(out: &mut String, r: &Report, a: &Action, red: &Redactor, style: Style) {
    let sign = match a.op {
        Op::Add => style.paint("32", "+"),
        Op::Remove | Op::LegacyRemove => style.paint("31", "-"),
        Op::Update | Op::Adopt | Op::TakeOver => style.paint("33", "~"),
        Op::Conflict | Op::Drift => style.paint("31", "!"),
        Op::Keep | Op::UnownedMatch => " ".to_string(),
    };
    // A refusal's reason is printed once, as its `error[…]` line (with the location).
    let reported = a.op.refusal().is_some_and(|code| {
        r.errors
            .iter()
            .any(|e| e.code == code && e.message == a.detail)
    });
    let detail = if a.detail.is_empty() || reported {
        String::new()
    } else {
        format!(": {}", escape_controls(&red.redact(&a.detail)))
    };
    let _ = writeln!(
        out,
        "  {sign} {} {}{detail}",
        a.op,
        escape_controls(&a.server)
    );
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Errors for stderr: `error[code]: path:line:column: message` (`error[code]: message` for an
/// error with no path); an error repeated word for word is printed once.
pub fn errors_text(errors: &[ErrorEntry], red: &Redactor, style: Style) -> String {
    let mut out = String::new();
    for (i, e) in errors.iter().enumerate() {
        if errors[..i].contains(e) {
            continue;
        }
        let head = style.paint("1;31", &format!("error[{}]", e.code));
        let message = escape_controls(&red.redact(&e.message)).into_owned();
        if e.path.is_empty() {
            // About the run, not about a place in a file (a refused confirmation).
            let _ = writeln!(out, "{head}: {message}");
        } else {
            let _ = writeln!(
                out,
                "{head}: {}:{}:{}: {message}",
                escape_controls(&e.path),
                e.line,
                e.column,
            );
        }
    }
    out
}

/// `mcpconf status` as text or JSON.
/// `errors`: what `status --check` found besides the records (JSON only; the text form goes to
/// stderr through [`errors_text`]).
pub fn status_text(
    owner: &str,
    workspace: &str,
    all: bool,
    records: &[RecordStatus],
    errors: &[ErrorEntry],
    json: bool,
) -> String {
    if json {
        #[derive(Serialize)]
        struct S<'a> {
            format_version: u32,
            owner: &'a str,
            workspace: &'a str,
            workspaces: Vec<Option<&'a str>>,
            records: &'a [RecordStatus],
            #[serde(skip_serializing_if = "<[_]>::is_empty")]
            errors: &'a [ErrorEntry],
        }
        let mut workspaces: Vec<Option<&str>> =
            records.iter().map(|r| r.workspace.as_deref()).collect();
        workspaces.dedup();
        let mut s = serde_json::to_string_pretty(&S {
            format_version: 1,
            owner,
            workspace,
            workspaces,
            records,
            errors,
        })
        .unwrap_or_default();
        s.push('\n');
        return s;
    }
    let mut out = String::new();
    if records.is_empty() {
        if all {
            let _ = writeln!(out, "owner `{owner}` has no ledger records");
        } else {
            let _ = writeln!(
                out,
                "owner `{owner}` has no ledger records in workspace `{workspace}` (`status --all` lists every workspace)"
            );
        }
    }
    let mut last: Option<Option<&str>> = None;
    for r in records {
        if last != Some(r.workspace.as_deref()) {
            let name = match r.workspace.as_deref() {
                Some(w) if w == workspace => format!("workspace `{w}` (this one)"),
                Some(w) => format!("workspace `{w}`"),
                None => "records from before workspaces, not claimed yet (the first workspace that uses their file claims them)".to_string(),
            };
            let _ = writeln!(out, "{name}:");
            last = Some(r.workspace.as_deref());
        }
        // A grant named by where it stands (`allowedTools` › `@openab`), not only as "a grant".
        let kind = match r.kind {
            crate::ledger::Kind::Entry => String::new(),
            crate::ledger::Kind::Grant => format!(
                " (grant {})",
                escape_controls(
                    &r.pointer
                        .trim_start_matches('/')
                        .split('/')
                        .map(|p| p.replace("~1", "/").replace("~0", "~"))
                        .collect::<Vec<_>>()
                        .join(" › ")
                )
            ),
        };
        let state = if r.client_state.is_empty() {
            r.state.to_string()
        } else {
            format!("{} (client state: {})", r.state, r.client_state.join(", "))
        };
        let _ = writeln!(
            out,
            "  {:<10} {:<12} {:<20} {}{kind}",
            state, r.client, r.server, r.path
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::Syntax;

    fn plan(old: &[u8], new: &[u8]) -> FilePlan {
        FilePlan {
            path: "/x/f.json".into(),
            key: "/x/f.json".into(),
            client: "json",
            status: Status::Changed,
            actions: Vec::new(),
            errors: Vec::new(),
            notes: Vec::new(),
            old: Some(Doc::parse(old, Syntax::Json).unwrap()),
            new: Some(new.to_vec().into()),
            delete: false,
            file_digest: None,
            ledger: Vec::new(),
            restore: Vec::new(),
        }
    }

    /// Edits far apart in a big file are diffed in a window each (not one window holding
    /// everything between them), with the same result as the diff of the whole file.
    #[test]
    fn edits_far_apart_are_diffed_in_a_window_each() {
        let mut old = String::from("{\n  \"a\": {\n");
        for i in 0..3000 {
            old.push_str(&format!("    \"k{i}\": {i},\n"));
        }
        old.push_str("    \"end\": 0\n  },\n  \"b\": {\n");
        for i in 0..3000 {
            old.push_str(&format!("    \"k{i}\": {i},\n"));
        }
        old.push_str("    \"end\": 0\n  }\n}\n");
        let Doc::Json(read) = Doc::parse(old.as_bytes(), Syntax::Json).unwrap() else {
            panic!("json")
        };
        let mut doc = read.clone();
        let key = |k: &str| vec![k.to_string()];
        doc.upsert(&key("a"), "k10", &serde_json::json!("ten"))
            .unwrap();
        doc.upsert(&key("b"), "new", &serde_json::json!({"command": "npx"}))
            .unwrap();
        let content = doc.content();
        let changes = content
            .changes_from(read.bytes())
            .expect("made from the bytes read");
        assert_eq!(changes.len(), 2);
        let windows = crate::text::diff_windows_of(read.bytes(), &content);
        assert_eq!(windows.len(), 2);
        assert!(
            windows
                .iter()
                .all(|(o, n, _)| o.len() < 1000 && n.len() < 1000)
        );
        let mut fp = plan(old.as_bytes(), old.as_bytes());
        fp.old = Some(Doc::Json(read));
        fp.new = Some(content.clone());
        let new = String::from_utf8(content.to_vec()).unwrap();
        let whole = similar::TextDiff::from_lines(&old, &new)
            .unified_diff()
            .context_radius(3)
            .header("/x/f.json", "/x/f.json")
            .to_string();
        assert!(old.len() > WINDOW_ABOVE);
        assert_eq!(diff(&fp), whole);
    }

    /// A big file's diff is computed on a window around the change, with the same result as
    /// the diff of the whole file.
    #[test]
    fn windowed_diff_equals_whole_diff() {
        let mut old = String::from("{\n  \"a\": [\n");
        for i in 0..6000 {
            old.push_str(&format!("    \"line {i}\",\n"));
        }
        old.push_str("    \"end\"\n  ]\n}");
        for (at, with) in [
            (0, "{ \"z\": 1,\n"),
            (50_000, "    \"new\",\n"),
            (old.len() - 1, "\n}"),
        ] {
            let at = old[..at].rfind('\n').map_or(0, |i| i + 1);
            let mut new = old.clone();
            new.insert_str(at, with);
            if Doc::parse(new.as_bytes(), Syntax::Json).is_err() {
                new = old.replacen("\"line 7\"", "\"line seven\"", 1);
            }
            let fp = plan(old.as_bytes(), new.as_bytes());
            let whole = similar::TextDiff::from_lines(&old, &new)
                .unified_diff()
                .context_radius(3)
                .header("/x/f.json", "/x/f.json")
                .to_string();
            assert!(old.len() > WINDOW_ABOVE);
            assert_eq!(diff(&fp), whole);
        }
    }
}
