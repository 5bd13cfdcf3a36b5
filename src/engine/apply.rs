//! `apply` (and `prune`) in its steps: confirm → prepare (parent directories) → lock → re-check
//! under the locks (re-read, re-plan, refuse a stale plan) → write (one durable intent, the
//! files, the ledger commit). Each step either hands its result to the next or ends the run
//! with a report; nothing is written before the write step except the parent directories of
//! files about to be created (after a plan that refuses nothing).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::targets::{ctx, specs};
use super::{
    CLIENT_LOCK_STALE, ErrorEntry, Exit, Mode, Planning, Read, Report, Settings, Spec,
    apply_ops_direct, fs_entry, fs_report, goes_on, journal, journal_all, ledger_path,
    load_claimed, lock_path, plan, plan_all, read_current, save_ledger,
};
use crate::diag::Code;
use crate::fsio::{self, Expect};
use crate::ledger::{self, Ledger};
use crate::manifest::{Legacy, Manifest};
use crate::plan::{FilePlan, LedgerOp, Status};
use crate::saved::SavedPlan;

/// Side work run beside the writes, type-erased: it sees the final plans of the files written
/// and hands back what stores its result in the caller's slot (called only when those plans
/// are the report's).
type Side<'a> = Box<dyn FnOnce(&[FilePlan]) -> Box<dyn FnOnce() + Send + 'a> + Send + 'a>;

/// A confirmation: sees the plan made without locks, says whether to go on.
type Confirm<'a> = Box<dyn FnMut(&Report) -> bool + 'a>;

/// What [`apply`] is asked to do: the owner and [`Mode`], and optionally the manifest, a
/// confirmation, a saved plan to hold the run to and side work to run beside the writes.
///
/// A builder, so that a new option is a new method, not a new parameter:
/// `ApplyOptions::new("o", mode).manifest(&manifest)` applies the manifest's entries, confirmed
/// in advance (`--yes`); [`Mode::Prune`] without a manifest removes everything the owner
/// provably wrote.
#[must_use = "an ApplyOptions does nothing until given to engine::apply"]
pub struct ApplyOptions<'a> {
    manifest: Option<&'a Manifest>,
    owner: &'a str,
    mode: Mode,
    confirm: Option<Confirm<'a>>,
    expected: Option<&'a SavedPlan>,
    alongside: Option<Side<'a>>,
}

impl<'a> ApplyOptions<'a> {
    /// A run of `mode` for `owner`, without a manifest, confirmed in advance, held to no saved
    /// plan and with no side work.
    pub fn new(owner: &'a str, mode: Mode) -> Self {
        ApplyOptions {
            manifest: None,
            owner,
            mode,
            confirm: None,
            expected: None,
            alongside: None,
        }
    }

    /// The manifest whose entries the run applies (`&manifest`, or an `Option`: `None` is a
    /// run without one, as `prune` without `-m`).
    pub fn manifest(mut self, manifest: impl Into<Option<&'a Manifest>>) -> Self {
        self.manifest = manifest.into();
        self
    }

    /// Ask before writing: `confirm` sees the plan made without locks and says whether to go
    /// on (`false`: nothing is written, error `not-confirmed`). Without it the run is
    /// confirmed in advance (`--yes`) and plans under the locks only.
    pub fn confirm(mut self, confirm: impl FnMut(&Report) -> bool + 'a) -> Self {
        self.confirm = Some(Box::new(confirm));
        self
    }

    /// A saved plan ([`SavedPlan`]) that the plan made under the locks must equal, or nothing
    /// is written (`stale-plan`). `None` holds the run to no saved plan.
    pub fn expected(mut self, expected: impl Into<Option<&'a SavedPlan>>) -> Self {
        self.expected = expected.into();
        self
    }

    /// Run `work` on another thread while the files are written: it is given the plans of the
    /// files about to be written (those whose bytes change, in the report's order) once they
    /// are final, and its result is put in `out`. The CLI builds the redactor of the output
    /// there (`scan::redactor_for_files`), which for a big file scans it whole: done beside
    /// the write and its fsync, not after them.
    ///
    /// `out` is left `None` when `work` did not run (the run ended before the write step, or
    /// no file's bytes change) and when a file had to be planned again while writing (another
    /// program changed it): then the plans it saw are not the report's, and the caller works
    /// from the report. A write that fails does not leave it `None`: the plans are the
    /// report's still.
    pub fn alongside<R: Send + 'a>(
        mut self,
        work: impl FnOnce(&[FilePlan]) -> R + Send + 'a,
        out: &'a mut Option<R>,
    ) -> Self {
        *out = None;
        self.alongside = Some(Box::new(move |plans: &[FilePlan]| {
            let got = work(plans);
            Box::new(move || *out = Some(got))
        }));
        self
    }
}

/// Plan, confirm, then apply under locks, as `options` say ([`ApplyOptions`]): with a
/// confirmation the plan made without locks is shown first; the plan made under the locks is
/// what is written. [`Mode::Prune`] removes what the owner provably wrote. The report says
/// whether files were written (`applied`).
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use mcpconf::engine::{self, ApplyOptions, Exit, Mode, Report};
///
/// let dir = tempfile::tempdir()?;
/// let settings = mcpconf::settings::Settings::builder()
///     .manifest(dir.path().join("mcpconf.toml"))
///     .root(dir.path())
///     .home(dir.path())
///     .state_dir(dir.path().join("state"))
///     .build()?;
/// let manifest = mcpconf::manifest::parse(
///     "owner = \"o\"\n[servers.web]\ncommand = \"web-mcp\"\n[[targets]]\nclient = \"cursor\"\n",
///     &mcpconf::known::Known,
/// )?;
/// let mode = Mode::Apply { adopt: false };
///
/// // Asked, and declined: nothing is written.
/// let no = |plan: &Report| {
///     assert!(plan.changed);
///     false
/// };
/// let declined = engine::apply(&settings, ApplyOptions::new("o", mode).manifest(&manifest).confirm(no));
/// assert!(!declined.applied);
/// assert_eq!(declined.errors[0].code, mcpconf::diag::Code::NotConfirmed);
/// assert!(!dir.path().join(".cursor/mcp.json").exists());
///
/// // Confirmed in advance; a second run changes nothing; prune takes it back out.
/// let report = engine::apply(&settings, ApplyOptions::new("o", mode).manifest(&manifest));
/// assert!(report.applied && report.exit == Exit::Ok);
/// assert!(!engine::apply(&settings, ApplyOptions::new("o", mode).manifest(&manifest)).changed);
/// let pruned = engine::apply(&settings, ApplyOptions::new("o", Mode::Prune));
/// assert!(pruned.applied && !dir.path().join(".cursor/mcp.json").exists());
///
/// // Side work beside the writes ([`ApplyOptions::alongside`]): nothing to write, so it does
/// // not run.
/// let mut seen = None;
/// let count = |plans: &[mcpconf::plan::FilePlan]| plans.len();
/// engine::apply(&settings, ApplyOptions::new("o", Mode::Prune).alongside(count, &mut seen));
/// assert_eq!(seen, None);
/// # Ok(())
/// # }
/// ```
pub fn apply(settings: &Settings, options: ApplyOptions<'_>) -> Report {
    let ApplyOptions {
        manifest,
        owner,
        mode,
        mut confirm,
        expected,
        alongside,
    } = options;
    let steps = || -> Result<Report, Box<Report>> {
        let shown = confirm_step(settings, manifest, owner, mode, confirm.as_deref_mut())?;
        let prepared = prepare_step(settings, manifest, owner, mode, shown.is_none())?;
        let _locks = lock_step(settings, owner, &prepared.specs)?;
        let checked = recheck_step(
            settings,
            manifest,
            owner,
            mode,
            &prepared.ws,
            shown.as_ref(),
            expected,
        )?;
        // A JSON plan's clone shares its bytes (the document read and the new content are
        // reference-counted), so the view costs no copy of a big file; a TOML or YAML
        // document (a config file of kilobytes) is copied.
        let writes: Vec<FilePlan> = match alongside {
            Some(_) => checked
                .plans
                .iter()
                .filter(|p| p.writes())
                .cloned()
                .collect(),
            None => Vec::new(),
        };
        let (Some(work), false) = (alongside, writes.is_empty()) else {
            let (report, _) = write_step(settings, manifest, owner, mode, &prepared, checked);
            return Ok(report);
        };
        Ok(std::thread::scope(|s| {
            let side = s.spawn(move || work(&writes));
            let (report, replanned) =
                write_step(settings, manifest, owner, mode, &prepared, checked);
            let store = match side.join() {
                Ok(r) => r,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            if !replanned {
                store();
            }
            report
        }))
    };
    steps().unwrap_or_else(|r| *r)
}

/// Confirmation: with a `confirm` callback, the unlocked plan is shown first; `Ok(Some)` is
/// that plan (confirmed), `Ok(None)` means confirmed in advance (`--yes`).
fn confirm_step(
    settings: &Settings,
    manifest: Option<&Manifest>,
    owner: &str,
    mode: Mode,
    confirm: Option<&mut (dyn FnMut(&Report) -> bool + '_)>,
) -> Result<Option<Report>, Box<Report>> {
    let mut shown: Option<Report> = None;
    if let Some(ask) = confirm {
        let first = plan(settings, manifest, owner, mode);
        if !goes_on(settings, &first) || !first.has_changes() {
            return Err(Box::new(first));
        }
        if !ask(&first) {
            return Err(Box::new(first.refused(
                None,
                Exit::Usage,
                Code::NotConfirmed,
                "the changes were not confirmed; nothing was written".into(),
            )));
        }
        shown = Some(first);
    }

    Ok(shown)
}

/// What the run prepared before taking the locks.
struct Prepared {
    ws: String,
    specs: Vec<Spec>,
    /// Directories created for each file (by key), remembered with its records once written.
    made: BTreeMap<String, Vec<String>>,
    /// The directories created directories are never removed above.
    bases: Vec<PathBuf>,
}

/// Parent directories of files about to be created must exist before they can be locked.
fn prepare_step(
    settings: &Settings,
    manifest: Option<&Manifest>,
    owner: &str,
    mode: Mode,
    unconfirmed: bool,
) -> Result<Prepared, Box<Report>> {
    // Parent directories of files about to be created must exist before they can be locked.
    let (pre_ledger, ws) = load_claimed(settings, manifest, owner, mode)?;
    let pre_specs = specs(settings, manifest, &pre_ledger, &ws, mode);
    let needs_dir = |s: &Spec| {
        s.refusal.is_none()
            && s.adds_something()
            && s.create
            && s.real.parent().is_some_and(|p| !p.exists())
    };
    if unconfirmed && pre_specs.iter().any(needs_dir) {
        // Creating a directory is a write: make sure nothing is refused first.
        let first = plan(settings, manifest, owner, mode);
        if !goes_on(settings, &first) {
            return Err(Box::new(first));
        }
    }
    // The directories made here are remembered with the file's records once it is written, so
    // that prune can remove them again (and only them) when it deletes the file.
    let mut made: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for s in &pre_specs {
        if s.refusal.is_none()
            && s.adds_something()
            && s.create
            && s.real.parent().is_some_and(|p| !p.exists())
        {
            match fsio::create_parent_dirs(&s.real) {
                Ok(dirs) if !dirs.is_empty() => {
                    made.insert(
                        s.key.clone(),
                        dirs.iter().map(|d| d.display().to_string()).collect(),
                    );
                }
                Ok(_) => {}
                Err(e) => return Err(Box::new(fs_report(owner, &e, Exit::Io))),
            }
        }
    }
    let ctx_now = ctx(settings);
    let mut bases = ctx_now.bases();
    let resolved: Vec<PathBuf> = bases.iter().filter_map(|b| fsio::resolve(b).ok()).collect();
    bases.extend(resolved);

    Ok(Prepared {
        ws,
        specs: pre_specs,
        made,
        bases,
    })
}

/// The locks a run holds until it ends (released when dropped).
struct Locks {
    _ledger: fsio::FileLock,
    _dirs: fsio::DirLocks,
    _clients: Vec<fsio::ClientLock>,
}

/// Lock the owner's ledger, then every target directory in one global order, then the clients'
/// own lock directories; then remove the temp files killed runs left (any found now is one).
fn lock_step(settings: &Settings, owner: &str, pre_specs: &[Spec]) -> Result<Locks, Box<Report>> {
    // A refused file (a forged ledger record's, say) is never touched, not even to lock its
    // directory: the re-check under the locks reports the refusal.
    let pre_specs: Vec<&Spec> = pre_specs.iter().filter(|s| s.refusal.is_none()).collect();
    let lock = lock_path(&ledger::state_dir(&settings.state_dir), owner);
    if let Err(e) = fsio::create_parent_dirs(&lock) {
        return Err(Box::new(fs_report(owner, &e, Exit::Io)));
    }
    let ledger_lock = match fsio::lock_file(&lock, settings.lock_timeout) {
        Ok(l) => l,
        Err(e) => return Err(Box::new(fs_report(owner, &e, super::lock_exit(&e)))),
    };
    // Under the owner's lock: the temps a killed run left for its ledger, intent or restore
    // copies are its own, and go (even when this run is refused later and writes nothing).
    if let Err(e) = ledger::clean_temps(&settings.state_dir, owner) {
        return Err(Box::new(fs_report(owner, &e, super::lock_exit(&e))));
    }
    let mut dirs: Vec<PathBuf> = pre_specs
        .iter()
        .filter_map(|s| s.real.parent().map(Path::to_path_buf))
        .filter(|d| d.is_dir())
        .collect();
    dirs.sort();
    dirs.dedup();
    let dir_locks = match fsio::lock_dirs(&dirs, settings.lock_timeout) {
        Ok(l) => l,
        Err(e) => return Err(Box::new(fs_report(owner, &e, Exit::Io))),
    };
    // Clients that rewrite their own files (Claude Code's `~/.claude.json`) guard them with a
    // lock directory; hold it too, so the two writers never interleave.
    let mut client_locks = Vec::new();
    for s in pre_specs.iter().filter(|s| s.client_lock) {
        match fsio::lock_client(&s.real, settings.lock_timeout, CLIENT_LOCK_STALE) {
            Ok(l) => client_locks.push(l),
            Err(e) => return Err(Box::new(fs_report(owner, &e, Exit::Io))),
        }
    }

    // Holding the locks, any temp file of ours is a leftover of a killed run: one listing of
    // each directory for all its files.
    let ledger_file = ledger_path(&ledger::state_dir(&settings.state_dir), owner);
    let intent_file = ledger::intent_path(&ledger::state_dir(&settings.state_dir), owner);
    if let Some(dir) = ledger_file.parent() {
        let _ = fsio::clean_stale_temps_of(dir, &[&ledger_file, &intent_file]);
    }
    let mut by_dir: BTreeMap<&Path, Vec<&Path>> = BTreeMap::new();
    for s in &pre_specs {
        if let Some(dir) = s.real.parent() {
            by_dir.entry(dir).or_default().push(&s.real);
        }
    }
    for (dir, files) in by_dir {
        // A missing directory counts as zero.
        let _ = fsio::clean_stale_temps_of(dir, &files);
    }
    Ok(Locks {
        _ledger: ledger_lock,
        _dirs: dir_locks,
        _clients: client_locks,
    })
}

/// What the re-check under the locks found.
struct Checked {
    ledger: Ledger,
    /// The generation of the ledger this run starts from (see `ledger::save_intent`).
    base: u64,
    specs: Vec<Spec>,
    reads: Vec<Read>,
    plans: Vec<FilePlan>,
}

/// Re-read and re-plan under the locks; refuse (nothing written) when anything is refused, or
/// when the plan differs from the one confirmed or saved.
fn recheck_step(
    settings: &Settings,
    manifest: Option<&Manifest>,
    owner: &str,
    mode: Mode,
    ws: &str,
    shown: Option<&Report>,
    expected: Option<&SavedPlan>,
) -> Result<Checked, Box<Report>> {
    let ledger = match load_claimed(settings, manifest, owner, mode) {
        Ok((l, _)) => l,
        Err(r) => return Err(r),
    };
    // The generation of the ledger this run starts from (see `ledger::save_intent`).
    let base = ledger.generation;
    let (specs, reads, plans) = plan_all(settings, manifest, owner, &ledger, ws, mode);
    // (No clone of the plans: their new bytes can be as big as the files.)
    if !settings.keep_going && plans.iter().any(|p| p.status == Status::Refused) {
        return Err(Box::new(Report::from_plans(owner, plans)));
    }
    if let Some(first) = shown {
        let differs = |(a, b): &(&FilePlan, &FilePlan)| {
            a.key != b.key || a.new != b.new || a.delete != b.delete
        };
        let changed: Option<PathBuf> = if first.files.len() != plans.len() {
            Some(settings.root.clone())
        } else {
            first
                .files
                .iter()
                .zip(&plans)
                .find(differs)
                .map(|(_, b)| b.path.clone())
        };
        if let Some(changed) = changed {
            return Err(Box::new(Report::from_plans(owner, plans).refused(
                Some(&changed),
                Exit::Refused,
                Code::StalePlan,
                "a file changed while you were confirming; nothing was written (run the command again)".into(),
            )));
        }
    }

    if let Some(saved) = expected
        && let Err(why) = saved.check(&plans)
    {
        // The command layer names the saved plan's file.
        return Err(Box::new(Report::from_plans(owner, plans).refused(
            None,
            Exit::Refused,
            Code::StalePlan,
            format!("{why}; nothing was written (make a new plan)"),
        )));
    }

    Ok(Checked {
        ledger,
        base,
        specs,
        reads,
        plans,
    })
}

/// The writes: ledger-only changes, one durable intent for every file, the files, the commit.
/// Also says whether a file was planned again while writing (another program changed it).
fn write_step(
    settings: &Settings,
    manifest: Option<&Manifest>,
    owner: &str,
    mode: Mode,
    prepared: &Prepared,
    checked: Checked,
) -> (Report, bool) {
    let Checked {
        ledger,
        base,
        specs,
        reads,
        plans,
    } = checked;
    // The restore copies of entries taken over: read under the lock; one that cannot be read
    // refuses the run (a copy is never lost by overwriting it).
    let restores = match ledger::load_restores(&settings.state_dir, owner) {
        Ok(r) => r,
        Err(e) => return (restores_unreadable(owner, plans, &e), false),
    };
    let mut w = Writes {
        settings,
        owner,
        ws: prepared.ws.as_str(),
        mode,
        legacy: manifest.map(|m| m.legacy.as_slice()).unwrap_or(&[]),
        prepared,
        ledger,
        base,
        specs,
        reads,
        plans,
        restores,
        io_error: None,
        written: false,
        replanned_any: false,
        dirs_to_sync: BTreeMap::new(),
        committed: Vec::new(),
        committed_all: Vec::new(),
    };
    w.ledger_only();
    w.save_intents();
    for i in 0..w.plans.len() {
        w.write_file(i);
    }
    w.finish()
}

/// The report of a run whose restore copies cannot be read: nothing is written.
fn restores_unreadable(owner: &str, plans: Vec<FilePlan>, e: &fsio::FsError) -> Report {
    let mut report = Report::from_plans(owner, plans);
    report.errors.push(fs_entry(e));
    report.exit = if matches!(e.code, Code::NotAFile | Code::LedgerCorrupt) {
        Exit::Refused
    } else {
        Exit::Io
    };
    for f in &mut report.files {
        if f.writes() {
            f.status = Status::Unchanged;
        }
    }
    report
}

/// The write step under way: what it writes and what it has done so far.
struct Writes<'a> {
    settings: &'a Settings,
    owner: &'a str,
    ws: &'a str,
    mode: Mode,
    legacy: &'a [Legacy],
    prepared: &'a Prepared,
    ledger: Ledger,
    /// The generation of the ledger this run starts from (see `ledger::save_intent`).
    base: u64,
    specs: Vec<Spec>,
    reads: Vec<Read>,
    plans: Vec<FilePlan>,
    restores: ledger::Restores,
    /// The first failure to write; every file after it is left unchanged.
    io_error: Option<ErrorEntry>,
    /// Whether a file was written (published, even if its durability is unconfirmed).
    written: bool,
    /// Whether a file was planned again while writing (another program changed it).
    replanned_any: bool,
    /// Each directory written into is fsynced once, after all its files (a file a run writes
    /// in it to name in an error): n files in one directory cost n + 1 fsyncs, not 2n.
    dirs_to_sync: BTreeMap<PathBuf, PathBuf>,
    /// Files written, committed in the ledger together (see `Ledger::commit_files`) before the
    /// ledger is next saved.
    committed: Vec<String>,
    /// Every file written (`committed` is emptied when a re-planned file needs a new intent).
    committed_all: Vec<String>,
}

impl Writes<'_> {
    /// Ledger-only changes (adoptions, refreshed records) need no file write.
    fn ledger_only(&mut self) {
        for (i, fp) in self.plans.iter().enumerate().filter(|(_, p)| !p.writes()) {
            // A file that is gone (a run killed before it wrote it, or the user deleted it):
            // the directories mcpconf created for it go too when empty, with its records.
            let gone = matches!(self.reads[i].current, crate::plan::Current::Missing)
                && fp.status != Status::Refused
                && fp.ledger.iter().any(|op| matches!(op, LedgerOp::Remove(_)));
            let dirs: Vec<PathBuf> = if gone {
                self.ledger
                    .created_dirs(&fp.key)
                    .iter()
                    .map(PathBuf::from)
                    .collect()
            } else {
                Vec::new()
            };
            apply_ops_direct(&mut self.ledger, self.ws, &fp.key, &fp.ledger);
            if !dirs.is_empty() {
                fsio::remove_created_dirs(&self.specs[i].real, &dirs, &self.prepared.bases);
            }
        }
    }

    /// The intent of every file about to be written goes into the ledger in one durable save,
    /// before any file is written: a kill at any instant after it leaves each file old or new,
    /// both of which the ledger proves ours.
    fn save_intents(&mut self) {
        let (ws, plans, ledger) = (self.ws, &mut self.plans, &mut self.ledger);
        // The directories made for a file are part of its intent, so a kill after the file is
        // published still leaves them remembered.
        remember_made_dirs(plans, &self.prepared.made);
        journal_all(ledger, ws, plans.iter().filter(|p| p.writes()));
        // Copies of entries about to be replaced are durable before the intent and every file
        // write: a kill at any instant after this leaves the copy there for the entry it saves.
        let keeps = super::takeover::keep_copies(&mut self.restores, ledger, plans);
        let saved_copies = if keeps {
            ledger::save_restores(&self.settings.state_dir, self.owner, &self.restores)
        } else {
            Ok(())
        };
        let saved = saved_copies.and_then(|()| {
            if plans.iter().any(FilePlan::writes) {
                ledger::save_intent(&self.settings.state_dir, ledger, self.base)
            } else {
                Ok(())
            }
        });
        if let Err(e) = saved {
            for fp in plans.iter_mut().filter(|p| p.writes()) {
                ledger.rollback(ws, &fp.key);
                fp.status = Status::Unchanged;
            }
            self.io_error = Some(fs_entry(&e));
        }
    }

    /// Writes file `i` (or removes it), planning it again when another program changed it
    /// since it was read.
    fn write_file(&mut self, i: usize) {
        if !self.plans[i].writes() || self.plans[i].status == Status::Unchanged {
            return;
        }
        if self.io_error.is_some() {
            self.ledger.rollback(self.ws, &self.plans[i].key);
            self.plans[i].status = Status::Unchanged;
            return;
        }
        let mut read_now = None;
        let mut attempt = 0;
        loop {
            if attempt > 0 && !self.save_new_intent(i) {
                break;
            }
            let result = self.publish(i, read_now.as_ref().unwrap_or(&self.reads[i]));
            match result {
                Ok(()) => {
                    self.published(i);
                    break;
                }
                Err(e) if e.code == Code::ConcurrentModification && attempt < 3 => {
                    // Another program rewrote the file after we read it: never publish stale
                    // data; read again and plan again.
                    attempt += 1;
                    match self.replan(i) {
                        Some(again) => read_now = Some(again),
                        None => break,
                    }
                }
                Err(e) if e.published => {
                    // The new content is in place; only its durability is unconfirmed. The
                    // ledger must describe the file as it is.
                    let fp = &self.plans[i];
                    self.committed.push(fp.key.clone());
                    if fp.new.is_some() {
                        self.ledger
                            .set_file_digest(&fp.key, fp.file_digest.as_deref());
                    }
                    self.written = true;
                    self.io_error = Some(fs_entry(&e));
                    break;
                }
                Err(e) => {
                    self.ledger.rollback(self.ws, &self.plans[i].key);
                    self.io_error = Some(fs_entry(&e));
                    self.plans[i].status = Status::Unchanged;
                    break;
                }
            }
        }
    }

    /// A re-planned file: its new intent must be durable before it is written. Whether it is.
    fn save_new_intent(&mut self, i: usize) -> bool {
        let fp = &mut self.plans[i];
        self.ledger
            .commit_files(self.ws, self.committed.iter().map(String::as_str));
        self.committed_all.append(&mut self.committed);
        journal(&mut self.ledger, self.ws, fp);
        if let Err(e) = ledger::save_intent(&self.settings.state_dir, &mut self.ledger, self.base) {
            self.ledger.rollback(self.ws, &fp.key);
            self.io_error = Some(fs_entry(&e));
            fp.status = Status::Unchanged;
            return false;
        }
        true
    }

    /// Publishes the new content of file `i` (or removes it), provided the file is still as
    /// `read`.
    fn publish(&self, i: usize, read: &Read) -> Result<(), fsio::FsError> {
        let (fp, spec) = (&self.plans[i], &self.specs[i]);
        if fp.delete {
            return fsio::remove_file(&spec.real);
        }
        let expect = match read.stamp {
            Some(s) => Expect::Stamp(s),
            None => Expect::Missing,
        };
        // A new file gets its client's mode (0600, or 0644 for an admin file).
        let meta = read.meta.or_else(|| {
            crate::dialect::lookup(spec.client)
                .and_then(|d| d.new_file_mode())
                .map(fsio::FileMeta::new_file)
        });
        fsio::replace_dir_later(
            &spec.real,
            &fp.new.as_ref().map(|c| c.pieces()).unwrap_or_default(),
            meta,
            expect,
        )
    }

    /// File `i` is published: its directory to sync, its digest and created directories
    /// recorded, or, for a file removed, the directories created for it removed when empty.
    fn published(&mut self, i: usize) {
        let (fp, real) = (&self.plans[i], &self.specs[i].real);
        if !fp.delete
            && let Some(dir) = real.parent()
        {
            self.dirs_to_sync
                .entry(dir.to_path_buf())
                .or_insert_with(|| real.clone());
        }
        let mut dirs = self.ledger.created_dirs(&fp.key);
        self.committed.push(fp.key.clone());
        if fp.new.is_some() {
            self.ledger
                .set_file_digest(&fp.key, fp.file_digest.as_deref());
            dirs.extend(
                self.prepared
                    .made
                    .get(&fp.key)
                    .into_iter()
                    .flatten()
                    .cloned(),
            );
            dirs.sort();
            dirs.dedup();
            self.ledger.set_created_dirs(&fp.key, &dirs);
        } else if fp.delete {
            let dirs: Vec<PathBuf> = dirs.iter().map(PathBuf::from).collect();
            fsio::remove_created_dirs(real, &dirs, &self.prepared.bases);
        }
        self.written = true;
    }

    /// File `i` changed since it was read: read and planned again. The new read when the new
    /// plan writes the file; `None` when there is nothing (more) to write.
    fn replan(&mut self, i: usize) -> Option<Read> {
        self.ledger.rollback(self.ws, &self.plans[i].key);
        let again = read_current(&self.specs[i]);
        // (Grants inherited from other files are kept on this retry: unknown.)
        let foreign = super::foreign_marks(self.settings, self.owner);
        let tk = super::TakeOver {
            names: &self.settings.take_over,
            replace: &self.settings.replace,
            restores: &self.restores,
        };
        let planning = Planning {
            owner: self.owner,
            ws: self.ws,
            legacy: self.legacy,
            ledger: &self.ledger,
            foreign: &foreign,
            mode: self.mode,
            take_over: tk,
        };
        let replanned = planning.plan(&self.specs[i], &again, None);
        if replanned.status == Status::Refused {
            self.plans[i] = replanned;
            self.io_error = Some(ErrorEntry {
                path: self.plans[i].path.display().to_string(),
                code: Code::ConcurrentModification,
                message: "the file was changed by another program while applying, and the new content cannot be edited safely".into(),
                line: 1,
                column: 1,
            });
            return None;
        }
        let writes = replanned.writes();
        self.plans[i] = replanned;
        self.replanned_any = true;
        if !writes {
            let fp = &self.plans[i];
            apply_ops_direct(&mut self.ledger, self.ws, &fp.key, &fp.ledger);
            return None;
        }
        Some(again)
    }

    /// The ledger commit after the writes, the copies no longer needed dropped, the report.
    fn finish(mut self) -> (Report, bool) {
        let (ws, state_dir) = (self.ws, &self.settings.state_dir);
        let ledger = &mut self.ledger;
        self.committed_all.extend(self.committed.iter().cloned());
        ledger.commit_files(ws, self.committed.iter().map(String::as_str));
        // The renames made durable, one fsync per directory, before the ledger commit.
        for (dir, file) in &self.dirs_to_sync {
            if let Err(e) = fsio::sync_dir(dir, file)
                && self.io_error.is_none()
            {
                self.io_error = Some(fs_entry(&e));
            }
        }
        // After file writes the commit needs no fsync: the durable intent stands for it.
        let save = if self.written {
            ledger::commit(state_dir, ledger)
        } else {
            save_ledger(state_dir, ledger)
        };
        // Copies the committed ledger no longer needs (entries given back, or left by a killed
        // run) go only after the commit.
        let drop_copies = if save.is_ok()
            && super::takeover::drop_copies(
                &mut self.restores,
                ledger,
                ws,
                &self.plans,
                &self.committed_all,
            ) {
            ledger::save_restores(state_dir, self.owner, &self.restores)
        } else {
            Ok(())
        };
        let mut report = Report::from_plans(self.owner, self.plans);
        report.applied = true;
        report.changed = self.written
            || report
                .files
                .iter()
                .any(|f| f.actions.iter().any(|a| a.op == crate::plan::Op::Adopt));
        if let Some(e) = self.io_error {
            report.errors.push(e);
            report.exit = Exit::Io;
        } else if let Err(e) = save.and(drop_copies) {
            report.errors.push(fs_entry(&e));
            report.exit = Exit::Io;
        }
        (report, self.replanned_any)
    }
}

/// Adds the directories prepared for each file to the records its plan sets for it.
fn remember_made_dirs(plans: &mut [FilePlan], made: &BTreeMap<String, Vec<String>>) {
    for fp in plans.iter_mut().filter(|p| p.writes()) {
        let Some(dirs) = made.get(&fp.key) else {
            continue;
        };
        for op in &mut fp.ledger {
            if let LedgerOp::Set(r) = op
                && r.created_file
            {
                r.created_dirs.extend(dirs.iter().cloned());
                r.created_dirs.sort();
                r.created_dirs.dedup();
            }
        }
    }
}
