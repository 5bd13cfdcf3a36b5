//! `mcpconf apply --watch`: keep a manifest applied while agents and IDEs rewrite their own
//! config files.
//!
//! It applies once, then watches every target file's directory (and the manifest's) through the
//! `notify` crate (inotify, FSEvents, kqueue), waits until the events stop for a moment
//! (debounce), and applies again under the rules of `apply --yes --keep-going`: an entry of ours
//! that was removed is re-added; one that was edited is drift, reported, and its file left alone;
//! a file that no longer parses is reported and left alone; every other file is still applied.
//! The directory of each glob target (`.kiro/agents/*.json`) is watched too, so a file that
//! starts to match is applied without a restart.
//! Each outcome is one line on stdout (one JSON object per line with `--format json`); a
//! refusal that persists is reported once, not at every event. SIGINT and SIGTERM stop it
//! cleanly: the signals are blocked in every thread and taken by one thread with `sigwait`, so
//! a signal never interrupts a write, and the main loop blocks on one channel (no polling).
//!
//! CLI layer: it prints.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};

use crate::console::println;
use crate::engine::{self, ErrorEntry, Exit, Mode, Report, Settings};
use crate::fsio;
use crate::manifest::Manifest;
use crate::redact::Redactor;

/// Quiet time after the last relevant event before applying (editors and clients write a file
/// in several steps: temp file, rename, chmod).
const DEBOUNCE: Duration = Duration::from_millis(300);
/// The longest a burst of events may postpone an apply.
const MAX_DELAY: Duration = Duration::from_secs(3);

#[cfg_attr(not(unix), allow(dead_code))] // no signals there
enum Event {
    Fs(Vec<PathBuf>),
    FsError(String),
    Stop(i32),
}

/// Run `apply --watch` until SIGINT or SIGTERM; returns the exit code (0 after a signal).
pub fn run(
    settings: &Settings,
    manifest: Manifest,
    owner: &str,
    redactor: impl Fn(&Report) -> Redactor,
    json: bool,
) -> u8 {
    let (tx, rx) = mpsc::channel::<Event>();
    // Before any thread exists, so that every thread (notify's too) inherits the mask.
    if let Err(e) = stop_on_signals(tx.clone()) {
        println!("{}", line_error(json, "watch-error", "", &e));
        return Exit::Io as u8;
    }
    let fs_tx = tx.clone();
    let watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        let _ = fs_tx.send(match res {
            // Opening or reading a file changes nothing; and every apply reads the files it
            // watches, so counting reads would re-apply forever.
            Ok(ev) if ev.kind.is_access() => return,
            Ok(ev) => Event::Fs(ev.paths),
            Err(e) => Event::FsError(e.to_string()),
        });
    });
    let mut watcher = match watcher {
        Ok(w) => w,
        Err(e) => {
            println!(
                "{}",
                line_error(json, "watch-error", "", &format!("cannot watch files: {e}"))
            );
            return Exit::Io as u8;
        }
    };
    let mut w = Watch {
        // Per file, like `apply --keep-going`: a drifted or unparsable file never stops the
        // others from being re-applied.
        settings: Settings {
            keep_going: true,
            ..settings.clone()
        },
        manifest,
        owner,
        json,
        targets: BTreeSet::new(),
        globs: Vec::new(),
        watched: BTreeSet::new(),
        last_errors: Vec::new(),
        manifest_errors: Vec::new(),
    };
    w.apply_and_watch(&redactor, &mut watcher);
    if w.json {
        let files: Vec<String> = w.targets.iter().map(|p| p.display().to_string()).collect();
        println!(
            "{}",
            serde_json::json!({"event": "watching", "files": files})
        );
    } else {
        println!(
            "watching {} file{} (SIGINT or SIGTERM stops)",
            w.targets.len(),
            if w.targets.len() == 1 { "" } else { "s" }
        );
    }
    loop {
        // Block until something happens: no timeout, no polling.
        let Ok(first) = rx.recv() else {
            return Exit::Io as u8;
        };
        let mut due = match w.handle(first) {
            Step::Stop(sig) => return w.stopped(sig),
            Step::Relevant => true,
            Step::Ignore => false,
        };
        if !due {
            continue;
        }
        // Debounce: wait for DEBOUNCE of quiet, at most MAX_DELAY in all.
        let start = Instant::now();
        while due {
            let left = MAX_DELAY.saturating_sub(start.elapsed());
            if left.is_zero() {
                break;
            }
            match rx.recv_timeout(DEBOUNCE.min(left)) {
                Ok(ev) => match w.handle(ev) {
                    Step::Stop(sig) => return w.stopped(sig),
                    Step::Relevant | Step::Ignore => {}
                },
                Err(RecvTimeoutError::Timeout) => due = false,
                Err(RecvTimeoutError::Disconnected) => return Exit::Io as u8,
            }
        }
        w.reload_manifest_if_changed();
        w.apply_and_watch(&redactor, &mut watcher);
    }
}

enum Step {
    Stop(i32),
    Relevant,
    Ignore,
}

struct Watch<'a> {
    settings: Settings,
    manifest: Manifest,
    owner: &'a str,
    json: bool,
    /// The target files of the last plan (and the manifest).
    targets: BTreeSet<PathBuf>,
    /// The file patterns of the manifest's glob targets.
    globs: Vec<PathBuf>,
    /// Directories being watched.
    watched: BTreeSet<PathBuf>,
    /// The refusals last reported, so that a lasting one is said once.
    last_errors: Vec<ErrorEntry>,
    /// The manifest's errors last reported (an invalid manifest is said once, not at every
    /// event, until it changes or is fixed).
    manifest_errors: Vec<ErrorEntry>,
}

impl Watch<'_> {
    fn handle(&mut self, ev: Event) -> Step {
        match ev {
            Event::Stop(sig) => Step::Stop(sig),
            Event::FsError(e) => {
                println!("{}", line_error(self.json, "watch-error", "", &e));
                Step::Relevant
            }
            Event::Fs(paths) => {
                // A target file, or a directory on the way to one (created, removed, renamed).
                // Or a file that a glob target matches (a new agent file), or a directory on the
                // way to a glob's directory.
                let hit = paths.iter().any(|p| {
                    self.targets.contains(p)
                        || p == &self.settings.manifest
                        || self.targets.iter().any(|t| t.starts_with(p))
                        || self
                            .globs
                            .iter()
                            .any(|g| fsio::glob_matches(g, p) || g.starts_with(p))
                });
                if hit { Step::Relevant } else { Step::Ignore }
            }
        }
    }

    fn stopped(&self, sig: i32) -> u8 {
        let name = signal_name(sig);
        if self.json {
            println!(
                "{}",
                serde_json::json!({"event": "stopped", "signal": name})
            );
        } else {
            println!("stopped ({name})");
        }
        0
    }

    /// A changed manifest is used from the next apply on; an invalid one is reported and the
    /// last valid one kept.
    fn reload_manifest_if_changed(&mut self) {
        match engine::load_manifest_profile(
            &self.settings.manifest,
            self.settings.profile.as_deref(),
        ) {
            Ok(m) if m.digest != self.manifest.digest => {
                self.manifest = m;
                self.manifest_errors.clear();
                if self.json {
                    println!(
                        "{}",
                        serde_json::json!({"event": "manifest-reloaded",
                            "path": self.settings.manifest.display().to_string()})
                    );
                } else {
                    println!("manifest reloaded {}", self.settings.manifest.display());
                }
            }
            Ok(_) => self.manifest_errors.clear(),
            Err(r) => {
                if r.errors != self.manifest_errors {
                    self.print_errors(&r.errors, &Redactor::default());
                    self.manifest_errors = r.errors;
                }
            }
        }
    }

    /// Apply, then watch the directories the result names. A directory watched for the first
    /// time may have received a file before its watch began: apply again until no new
    /// directory is added (a bounded number of times).
    fn apply_and_watch(
        &mut self,
        redactor: &impl Fn(&Report) -> Redactor,
        watcher: &mut impl Watcher,
    ) {
        for _ in 0..8 {
            self.apply(redactor);
            if !self.watch_dirs(watcher) {
                break;
            }
        }
    }

    fn apply(&mut self, redactor: &impl Fn(&Report) -> Redactor) {
        self.globs = engine::glob_patterns(&self.settings, &self.manifest);
        let report = engine::apply(
            &self.settings,
            engine::ApplyOptions::new(self.owner, Mode::Apply { adopt: false })
                .manifest(&self.manifest),
        );
        let red = redactor(&report);
        self.targets = report.files.iter().map(|f| f.path.clone()).collect();
        self.targets.insert(self.settings.manifest.clone());
        if report.applied {
            for f in report.files.iter().filter(|f| f.writes()) {
                let actions: Vec<&crate::plan::Action> = f
                    .actions
                    .iter()
                    .filter(|a| {
                        !matches!(a.op, crate::plan::Op::Keep | crate::plan::Op::UnownedMatch)
                    })
                    .collect();
                if self.json {
                    let acts: Vec<serde_json::Value> = actions
                        .iter()
                        .map(|a| {
                            serde_json::json!({"op": a.op, "server": a.server,
                                "detail": red.redact(&a.detail)})
                        })
                        .collect();
                    println!(
                        "{}",
                        serde_json::json!({"event": "applied", "path": f.path.display().to_string(),
                            "client": f.client, "actions": acts})
                    );
                } else {
                    let what: Vec<String> = actions
                        .iter()
                        .map(|a| match a.detail.as_str() {
                            "" => format!("{} {}", a.op, a.server),
                            d => format!("{} {} ({})", a.op, a.server, red.redact(d)),
                        })
                        .collect();
                    println!("applied {}: {}", f.path.display(), what.join(", "));
                }
            }
        }
        self.report_errors(&report, &red);
    }

    fn report_errors(&mut self, report: &Report, red: &Redactor) {
        if report.errors == self.last_errors {
            return;
        }
        let new: Vec<ErrorEntry> = report
            .errors
            .iter()
            .filter(|e| !self.last_errors.contains(e))
            .cloned()
            .collect();
        self.print_errors(&new, red);
        self.last_errors = report.errors.clone();
    }

    /// One line per error, nothing written.
    fn print_errors(&self, errors: &[ErrorEntry], red: &Redactor) {
        for e in errors {
            let msg = red.redact(&e.message);
            if self.json {
                println!(
                    "{}",
                    serde_json::json!({"event": "refused", "code": e.code, "path": e.path,
                        "line": e.line, "column": e.column, "message": msg,
                        "written": false})
                );
            } else {
                println!(
                    "{} {}:{}:{}: {msg}; nothing written",
                    e.code, e.path, e.line, e.column
                );
            }
        }
    }

    /// Watch the directory of every target and glob (its nearest existing ancestor while it
    /// does not exist yet), not recursively. True when a directory was added.
    fn watch_dirs(&mut self, watcher: &mut impl Watcher) -> bool {
        let want: BTreeSet<PathBuf> = self
            .targets
            .iter()
            .chain(&self.globs)
            .filter_map(|t| t.parent().and_then(existing_ancestor))
            .collect();
        let mut added = false;
        for d in self.watched.difference(&want).cloned().collect::<Vec<_>>() {
            let _ = watcher.unwatch(&d);
            self.watched.remove(&d);
        }
        for d in want {
            if self.watched.contains(&d) {
                continue;
            }
            match watcher.watch(&d, RecursiveMode::NonRecursive) {
                Ok(()) => {
                    self.watched.insert(d);
                    added = true;
                }
                Err(e) => println!(
                    "{}",
                    line_error(
                        self.json,
                        "watch-error",
                        &d.display().to_string(),
                        &format!("cannot watch: {e}")
                    )
                ),
            }
        }
        added
    }
}

fn existing_ancestor(p: &Path) -> Option<PathBuf> {
    p.ancestors().find(|a| a.is_dir()).map(Path::to_path_buf)
}

fn line_error(json: bool, code: &str, path: &str, message: &str) -> String {
    if json {
        serde_json::json!({"event": "error", "code": code, "path": path, "message": message})
            .to_string()
    } else if path.is_empty() {
        format!("{code}: {message}")
    } else {
        format!("{code} {path}: {message}")
    }
}

#[cfg(unix)]
fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        _ => "signal",
    }
}

#[cfg(not(unix))]
fn signal_name(_sig: i32) -> &'static str {
    "signal"
}

/// No signals to take on this system (Windows): Ctrl+C ends the process. Every write is an
/// atomic replace, so that leaves the old or the new file, and at worst a temp file that the
/// next run removes.
#[cfg(not(unix))]
fn stop_on_signals(_tx: Sender<Event>) -> Result<(), String> {
    Ok(())
}

/// Block SIGINT and SIGTERM in this thread (and so in every thread started after) and take them
/// in one thread that turns them into [`Event::Stop`].
#[cfg(unix)]
fn stop_on_signals(tx: Sender<Event>) -> Result<(), String> {
    // SAFETY: sigset_t is plain data that sigemptyset initialises; the calls only read and
    // write that set and this thread's signal mask.
    let set = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGTERM);
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return Err("cannot block SIGINT and SIGTERM".into());
        }
        set
    };
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            loop {
                let mut sig: libc::c_int = 0;
                // SAFETY: sigwait reads the set and writes the signal number into `sig`.
                if unsafe { libc::sigwait(&set, &mut sig) } == 0 {
                    let _ = tx.send(Event::Stop(sig));
                    return;
                }
            }
        })
        .map(|_| ())
        .map_err(|e| format!("cannot start the signal thread: {e}"))
}
