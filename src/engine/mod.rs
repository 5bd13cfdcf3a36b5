//! The engine: turns a manifest (or an owner's ledger) into per-file plans, and carries them out
//! under locks with a write-ahead ledger journal.
//!
//! It orchestrates; it never prints. File access goes through [`crate::fsio`], planning through
//! the pure [`crate::plan`].
//!
//! Apply sequence: plan → (confirm) → create missing parent directories → lock the owner's
//! ledger, then every target directory in one global order → re-read and re-plan under the
//! locks → if anything is refused, stop (nothing written) → journal the intent in the ledger →
//! replace each file atomically → commit the ledger.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::diag::{Code, Diagnostic};
use crate::dialect::{self, Ctx, Dialect, Syntax};
use crate::document::Doc;
use crate::fsio::{self, FsError};
use crate::ledger::{self, Ledger, Pending, Record};
use crate::manifest::{self, Legacy, Manifest};
use crate::plan::{
    self, Current, FileInput, FilePlan, GrantWant, LedgerOp, PlanError, Status, Want,
};

mod disable;
mod targets;
pub use targets::glob_patterns;
use targets::{ctx, specs};

/// When a client's own lock directory counts as abandoned (proper-lockfile's default).
pub const CLIENT_LOCK_STALE: Duration = Duration::from_secs(10);

pub use crate::fsio::MAX_FILE;

pub use crate::settings::Settings;

/// The workspace a run converges: `--workspace`, else the manifest's `workspace`, else the
/// canonical (symlink-resolved) root.
pub fn workspace_of(settings: &Settings, manifest: Option<&Manifest>) -> String {
    if let Some(sys) = &settings.system_root {
        // A policy run's records are the machine's (or the system root's), apart from every
        // project's.
        let sys = fsio::resolve(sys).unwrap_or_else(|_| sys.clone());
        return format!("policy:{}", sys.display());
    }
    if let Some(w) = settings
        .workspace
        .clone()
        .or_else(|| manifest.and_then(|m| m.workspace.clone()))
    {
        return w;
    }
    fsio::resolve(&settings.root)
        .unwrap_or_else(|_| settings.root.clone())
        .display()
        .to_string()
}

/// Load an owner's ledger and let this run's workspace claim the format-1 records (from before
/// workspaces) of the files it uses: its targets' files and every file under its root.
fn load_claimed(
    settings: &Settings,
    manifest: Option<&Manifest>,
    owner: &str,
    mode: Mode,
) -> Result<(Ledger, String), Box<Report>> {
    let (mut ledger, _) = load_ledger(&settings.state_dir, owner)?;
    let ws = workspace_of(settings, manifest);
    if settings.system_root.is_none() && ledger.records.iter().any(|r| r.workspace.is_none()) {
        let root = fsio::resolve(&settings.root).unwrap_or_else(|_| settings.root.clone());
        let targets: Vec<String> = specs(settings, manifest, &Ledger::new(owner), "", mode)
            .into_iter()
            .map(|s| s.key)
            .collect();
        ledger.claim(&ws, |f| {
            Path::new(f).starts_with(&root) || targets.iter().any(|t| t == f)
        });
    }
    Ok((ledger, ws))
}

/// Process exit codes (contract §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Exit {
    /// Success.
    Ok = 0,
    /// A check found something.
    Found = 1,
    /// Usage error, invalid manifest, refused confirmation.
    Usage = 2,
    /// Refused, fail-closed; nothing written.
    Refused = 3,
    /// I/O failure while applying.
    Io = 4,
}

/// An error in the machine output.
pub type ErrorEntry = Diagnostic;

/// The outcome of plan / apply / prune.
#[derive(Debug, Clone)]
pub struct Report {
    /// The owner.
    pub owner: String,
    /// plan: whether applying would change anything; apply/prune: whether anything was written.
    pub changed: bool,
    /// Per-file plans (with their outcome after apply).
    pub files: Vec<FilePlan>,
    /// Errors, including each file's refusals.
    pub errors: Vec<ErrorEntry>,
    /// The exit code.
    pub exit: Exit,
    /// Whether the files were actually written (apply/prune after confirmation).
    pub applied: bool,
}

/// A report used as an error (e.g. [`load_manifest`]'s): its errors, one per line.
impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.errors.is_empty() {
            return write!(f, "no errors (exit {})", self.exit as u8);
        }
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "error[{}]: {e}", e.code)?;
        }
        Ok(())
    }
}

impl std::error::Error for Report {}

impl Report {
    pub(crate) fn failed(
        owner: &str,
        path: &Path,
        code: Code,
        message: String,
        line: usize,
        column: usize,
        exit: Exit,
    ) -> Report {
        Report {
            owner: owner.to_string(),
            changed: false,
            files: Vec::new(),
            errors: vec![ErrorEntry {
                path: path.display().to_string(),
                code,
                message,
                line,
                column,
            }],
            exit,
            applied: false,
        }
    }

    fn from_plans(owner: &str, files: Vec<FilePlan>) -> Report {
        let mut errors = Vec::new();
        for f in &files {
            for e in &f.errors {
                let entry = ErrorEntry {
                    path: f.path.display().to_string(),
                    code: e.code,
                    message: e.message.clone(),
                    line: e.line,
                    column: e.column,
                };
                // Two targets (or an entry and its grants) in one file find the same fault.
                if !errors.contains(&entry) {
                    errors.push(entry);
                }
            }
        }
        let refused = files.iter().any(|f| f.status == Status::Refused);
        let changed = !refused && files.iter().any(pending_change);
        Report {
            owner: owner.to_string(),
            changed,
            files,
            errors,
            exit: if refused { Exit::Refused } else { Exit::Ok },
            applied: false,
        }
    }

    /// This report, turned into a refusal about the whole run (nothing written).
    /// Refuse the whole run. `path` is the file that is the reason, or `None` when no file is
    /// (a refused confirmation): the error then has an empty path.
    fn refused(mut self, path: Option<&Path>, exit: Exit, code: Code, message: String) -> Report {
        self.exit = exit;
        self.changed = false;
        self.errors.push(ErrorEntry {
            path: path.map(|p| p.display().to_string()).unwrap_or_default(),
            code,
            message,
            line: 1,
            column: 1,
        });
        self
    }

    /// Whether anything would be written (files or ledger-only adoptions).
    pub fn has_changes(&self) -> bool {
        self.files.iter().any(pending_change)
    }
}

fn pending_change(f: &FilePlan) -> bool {
    f.writes() || f.actions.iter().any(|a| a.op == crate::plan::Op::Adopt)
}

/// What the run does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Make the files match the manifest.
    Apply {
        /// Record unowned matching entries as ours.
        adopt: bool,
    },
    /// Remove everything the owner provably wrote.
    Prune,
}

/// Read and parse the manifest (as the command line does: UTF-8, a BOM allowed, checked
/// against every client and lint rule mcpconf knows). A refusal is a report with one error and
/// exit 2.
///
/// ```
/// use mcpconf::diag::Code;
///
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("mcpconf.toml");
/// let err = mcpconf::engine::load_manifest(&path).unwrap_err();
/// assert_eq!(err.errors[0].code, Code::ManifestMissing);
///
/// std::fs::write(
///     &path,
///     "owner = \"o\"\n[servers.a]\ncommand = \"a\"\n[[targets]]\nclient = \"cursr\"\n",
/// )
/// .unwrap();
/// let err = mcpconf::engine::load_manifest(&path).unwrap_err();
/// assert_eq!(err.errors[0].code, Code::ManifestError);
/// assert!(err.to_string().contains("did you mean `cursor`?"), "{err}");
/// ```
pub fn load_manifest(path: &Path) -> Result<Manifest, Box<Report>> {
    load_manifest_profile(path, None)
}

/// [`load_manifest`] with the profile `--profile` chose (`None`: the manifest's own
/// `profile`, if any).
pub fn load_manifest_profile(path: &Path, profile: Option<&str>) -> Result<Manifest, Box<Report>> {
    // A link that leads nowhere is a manifest that cannot be read, not a missing one (a
    // search upward stops at it).
    if let Some(to) = fsio::dangling_link(path) {
        return Err(Box::new(Report::failed(
            "",
            path,
            Code::NotAFile,
            format!(
                "`{}` is a symbolic link to `{}`, which does not exist; fix or remove the link (mcpconf does not look for another manifest past it)",
                path.display(),
                to.display()
            ),
            1,
            1,
            Exit::Usage,
        )));
    }
    // The manifest is only read: follow a link (dotfile managers keep it elsewhere).
    let real = fsio::resolve(path).unwrap_or_else(|_| path.to_path_buf());
    let bytes = match fsio::read(&real, 16 * 1024 * 1024) {
        Ok(Some(r)) => r.bytes,
        Ok(None) => {
            return Err(Box::new(Report::failed(
                "",
                path,
                Code::ManifestMissing,
                format!(
                    "no manifest at `{}`; write one (`mcpconf import --client ID > mcpconf.toml` starts from a client's file; see docs/getting-started.md), or pass `--manifest PATH` or set MCPCONF_MANIFEST",
                    path.display()
                ),
                1,
                1,
                Exit::Usage,
            )));
        }
        Err(e) => return Err(Box::new(fs_report("", &e, Exit::Usage))),
    };
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => t,
        Err(e) => {
            let (line, column) = crate::text::line_col(
                &String::from_utf8_lossy(&bytes[..e.valid_up_to()]),
                e.valid_up_to(),
            );
            return Err(Box::new(Report::failed(
                "",
                path,
                Code::ManifestError,
                "the manifest is not valid UTF-8".into(),
                line,
                column,
                Exit::Usage,
            )));
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lock = load_lock(path, text)?;
    manifest::parse_with_profile(text, &crate::known::Known, lock.as_ref(), profile).map_err(|e| {
        Box::new(Report::failed(
            "",
            path,
            Code::ManifestError,
            e.message,
            e.line,
            e.column,
            Exit::Usage,
        ))
    })
}

/// The lock file of a manifest: `mcpconf.lock` beside it (beside the file a linked manifest
/// points to, where the lock is committed with it).
pub fn lock_file_path(manifest: &Path) -> PathBuf {
    let real = fsio::resolve(manifest).unwrap_or_else(|_| manifest.to_path_buf());
    real.parent()
        .unwrap_or(Path::new("."))
        .join(manifest::lock::FILE_NAME)
}

/// The lock file, read and parsed when the manifest declares a registry server (`None` when
/// it declares none or there is no lock: the manifest's check then says to run `mcpconf lock`).
fn load_lock(manifest: &Path, text: &str) -> Result<Option<manifest::lock::Lock>, Box<Report>> {
    if !text.contains("registry") || manifest::registry_refs(text).map_or(true, |r| r.is_empty()) {
        return Ok(None);
    }
    let path = lock_file_path(manifest);
    let bytes = match fsio::read(&path, 16 * 1024 * 1024) {
        Ok(Some(r)) => r.bytes,
        Ok(None) => return Ok(None),
        Err(e) => return Err(Box::new(fs_report("", &e, Exit::Usage))),
    };
    let failed = |message: String, line, column| {
        Box::new(Report::failed(
            "",
            &path,
            Code::ManifestError,
            message,
            line,
            column,
            Exit::Usage,
        ))
    };
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| failed("the lock file is not valid UTF-8".into(), 1, 1))?;
    manifest::lock::Lock::parse(text).map(Some).map_err(|e| {
        failed(
            format!("{}; run `mcpconf lock` to write it again", e.message),
            e.line,
            e.column,
        )
    })
}

fn fs_report(owner: &str, e: &FsError, exit: Exit) -> Report {
    Report::failed(owner, &e.path, e.code, e.message.clone(), 1, 1, exit)
}

/// Where an owner's ledger lives.
pub fn ledger_path(state_dir: &Path, owner: &str) -> PathBuf {
    ledger::path(state_dir, owner)
}

fn lock_path(state_dir: &Path, owner: &str) -> PathBuf {
    ledger::lock_path(state_dir, owner)
}

/// Load an owner's ledger (empty if none); see [`ledger::load`].
pub fn load_ledger(
    state_dir: &Path,
    owner: &str,
) -> Result<(Ledger, Option<fsio::Stamp>), Box<Report>> {
    if !manifest::valid_owner(owner) {
        return Err(Box::new(Report::failed(
            owner,
            state_dir,
            Code::InvalidOwner,
            manifest::owner_error(owner),
            1,
            1,
            Exit::Usage,
        )));
    }
    ledger::load(state_dir, owner).map_err(|e| Box::new(fs_report(owner, &e, Exit::Refused)))
}

/// The exit of a failure to take an owner's lock: a link in its place is a refusal (exit 3),
/// anything else an I/O failure (exit 4).
fn lock_exit(e: &FsError) -> Exit {
    if e.code == Code::NotAFile {
        Exit::Refused
    } else {
        Exit::Io
    }
}

fn save_ledger(state_dir: &Path, ledger: &Ledger) -> Result<(), FsError> {
    ledger::save(state_dir, ledger)
}

/// One file to plan, before reading it.
#[derive(Debug, Clone)]
struct Spec {
    path: PathBuf,
    key: String,
    real: PathBuf,
    client: &'static str,
    syntax: Syntax,
    create: bool,
    wants: Vec<Want>,
    containers: Vec<Vec<String>>,
    notes: Vec<String>,
    refusal: Option<PlanError>,
    /// The client guards this file with its own `<file>.lock` directory.
    client_lock: bool,
    /// Left alone, with the reason (e.g. a Markdown agent file).
    skip: Option<String>,
    /// Grants wanted beside the entries.
    grants: Vec<GrantWant>,
    /// Arrays where legacy grants are looked for.
    grant_arrays: Vec<String>,
}

impl Spec {
    /// A file to plan, with nothing wanted in it yet: its path as the user knows it, its
    /// resolved path (`real`, whose text is the ledger key), the client that reads it, whether
    /// it may be created, and a refusal found before reading it.
    fn new(
        path: PathBuf,
        real: PathBuf,
        client: (&'static str, Syntax),
        create: bool,
        refusal: Option<PlanError>,
    ) -> Spec {
        Spec {
            path,
            key: real.display().to_string(),
            real,
            client: client.0,
            syntax: client.1,
            create,
            wants: Vec::new(),
            containers: Vec::new(),
            notes: Vec::new(),
            refusal,
            client_lock: false,
            skip: None,
            grants: Vec::new(),
            grant_arrays: Vec::new(),
        }
    }

    /// Whether the manifest adds anything to this file: entries, or a list it may create
    /// (a project's `mcp.excluded`).
    fn adds_something(&self) -> bool {
        !self.wants.is_empty() || self.grants.iter().any(|g| g.spec.create_array)
    }
}

/// What was read from a file, with what is needed to replace it.
struct Read {
    current: Current,
    meta: Option<fsio::FileMeta>,
    stamp: Option<fsio::Stamp>,
}

fn read_current(spec: &Spec) -> Read {
    if let Some(why) = &spec.skip {
        return Read {
            current: Current::Skipped(why.clone()),
            meta: None,
            stamp: None,
        };
    }
    if let Some(r) = &spec.refusal {
        return Read {
            current: Current::Refused(r.clone()),
            meta: None,
            stamp: None,
        };
    }
    match fsio::read_beneath(&spec.real, MAX_FILE) {
        Ok(None) => Read {
            current: Current::Missing,
            meta: None,
            stamp: None,
        },
        Ok(Some(r)) => {
            // The client's own stricter reading (Vibe's TOML 1.0), before the file is parsed.
            let strict = crate::dialect::lookup(spec.client).and_then(|d| d.refuse_file(&r.bytes));
            let big = r.bytes.len() >= 1 << 20;
            let parsed = match strict {
                Some(e) => Err(e),
                None => Doc::parse_vec(r.bytes, spec.syntax),
            };
            if big {
                fsio::release_free_memory();
            }
            let current = match parsed {
                Ok(doc) => Current::Present { doc: Box::new(doc) },
                Err(e) => {
                    let mut e = PlanError::from(e);
                    e.message = format!(
                        "{} (`{}` is read by client `{}` as {})",
                        e.message,
                        spec.path.display(),
                        spec.client,
                        spec.syntax.describe()
                    );
                    Current::Refused(e)
                }
            };
            Read {
                current,
                meta: Some(r.meta),
                stamp: Some(r.stamp),
            }
        }
        Err(e) => Read {
            current: Current::Refused(PlanError::file(e.code, e.message)),
            meta: None,
            stamp: None,
        },
    }
}

/// What planning a file needs besides the file: the run's owner and workspace, the manifest's
/// legacy shapes, the ledger, the other owners' marks, the mode and `--take-over`.
#[derive(Clone, Copy)]
struct Planning<'a> {
    owner: &'a str,
    ws: &'a str,
    legacy: &'a [Legacy],
    ledger: &'a Ledger,
    foreign: &'a Ledger,
    mode: Mode,
    take_over: TakeOver<'a>,
}

impl Planning<'_> {
    /// The plan of the file of `spec` as `read` (`inherited`: the entries other files give an
    /// agent file, when known).
    fn plan(&self, spec: &Spec, read: &Read, inherited: Option<Vec<String>>) -> FilePlan {
        let (ws, mode, tk) = (self.ws, self.mode, self.take_over);
        let input = FileInput {
            owner: self.owner.to_string(),
            workspace: ws.to_string(),
            path: spec.path.clone(),
            key: spec.key.clone(),
            client: spec.client,
            syntax: spec.syntax,
            current: read.current.clone(),
            create: spec.create,
            wants: spec.wants.clone(),
            containers: spec.containers.clone(),
            legacy: self.legacy.to_vec(),
            records: self.ledger.for_file(ws, &spec.key).cloned().collect(),
            others: self.ledger.others(ws, &spec.key).cloned().collect(),
            foreign: self.foreign.in_file(&spec.key).to_vec(),
            inherited,
            notes: spec.notes.clone(),
            grants: spec.grants.clone(),
            grant_arrays: spec.grant_arrays.clone(),
            take_over: match mode {
                Mode::Apply { .. } => tk.names.to_vec(),
                Mode::Prune => Vec::new(),
            },
            replace: match mode {
                Mode::Apply { .. } => tk.replace.to_vec(),
                Mode::Prune => Vec::new(),
            },
            restores: tk
                .restores
                .copies
                .iter()
                .filter(|c| c.workspace == ws && c.file == spec.key)
                .cloned()
                .collect(),
        };
        let adopt = matches!(mode, Mode::Apply { adopt: true });
        plan::plan_file(&input, plan::Options { adopt })
    }
}

/// What planning needs for `apply --take-over`: the names to take over and the restore copies.
#[derive(Clone, Copy)]
pub(crate) struct TakeOver<'a> {
    names: &'a [String],
    restores: &'a ledger::Restores,
    replace: &'a [String],
}

fn plan_all(
    settings: &Settings,
    manifest: Option<&Manifest>,
    owner: &str,
    ledger: &Ledger,
    ws: &str,
    mode: Mode,
) -> (Vec<Spec>, Vec<Read>, Vec<FilePlan>) {
    let specs = specs(settings, manifest, ledger, ws, mode);
    let legacy: &[Legacy] = manifest.map(|m| m.legacy.as_slice()).unwrap_or(&[]);
    // (A copy file that cannot be read plans as none; the write step refuses it.)
    let restores = ledger::load_restores(&settings.state_dir, owner).unwrap_or_default();
    let tk = TakeOver {
        names: &settings.take_over,
        replace: &settings.replace,
        restores: &restores,
    };
    let reads: Vec<Read> = specs
        .iter()
        .map(|s| leave_unread(read_current(s), s, ledger, ws, mode))
        .collect();
    let foreign = &foreign_marks(settings, owner);
    let planning = Planning {
        owner,
        ws,
        legacy,
        ledger,
        foreign,
        mode,
        take_over: tk,
    };
    let inheriting =
        |s: &Spec| dialect::lookup(s.client).is_some_and(|d| !d.inherited_settings().is_empty());
    // Files that inherit other files' entries (agent files) are planned after those files, so
    // they know which entries stay visible to them.
    let mut plans: Vec<Option<FilePlan>> = specs
        .iter()
        .zip(&reads)
        .map(|(s, r)| (!inheriting(s)).then(|| planning.plan(s, r, None)))
        .collect();
    // What the inherited files hold depends only on the client: read once per client, not
    // once per agent file.
    let mut visible_of: std::collections::HashMap<&str, Option<Vec<String>>> =
        std::collections::HashMap::new();
    for i in 0..specs.len() {
        if plans[i].is_none() {
            let visible = match visible_of.get(specs[i].client) {
                Some(v) => v.clone(),
                None => {
                    let v = visible_after(settings, &specs, &plans, &specs[i]);
                    visible_of.insert(specs[i].client, v.clone());
                    v
                }
            };
            plans[i] = Some(planning.plan(&specs[i], &reads[i], visible));
        }
    }
    let plans = plans.into_iter().flatten().collect();
    (specs, reads, plans)
}

/// A prune has nothing to remove from a file that holds no record of this workspace: one
/// that cannot be read (a broken agent file a glob target matches) is left alone with the
/// reason, instead of refusing the whole prune.
fn leave_unread(read: Read, spec: &Spec, ledger: &Ledger, ws: &str, mode: Mode) -> Read {
    let Current::Refused(e) = &read.current else {
        return read;
    };
    if mode != Mode::Prune
        || spec.refusal.is_some()
        || ledger.for_file(ws, &spec.key).next().is_some()
    {
        return read;
    }
    Read {
        current: Current::Skipped(format!(
            "it cannot be read ({}: {}), and it holds nothing this owner wrote here, so prune leaves it alone",
            e.code, e.message
        )),
        ..read
    }
}

/// What other owners' ledgers (in the same state directory) remember about files mcpconf
/// created, or created containers or directories in: their records that carry such marks.
/// Read only, for the marks (see `plan::marks`): an owner never proves ownership with
/// another's records. A ledger that cannot be read gives nothing.
fn foreign_marks(settings: &Settings, owner: &str) -> Ledger {
    let mut out = Ledger::new(owner);
    let dir = ledger::state_dir(&settings.state_dir).join("ledger");
    // An owner whose first commit was lost has only its intent.
    let mut owners: Vec<String> = ["*.json", "*.intent"]
        .iter()
        .filter_map(|g| fsio::glob(&dir.join(g)).ok())
        .flatten()
        .filter_map(|p| p.file_stem().and_then(|s| s.to_str()).map(str::to_string))
        .filter(|o| o != owner && manifest::valid_owner(o))
        .collect();
    owners.sort();
    owners.dedup();
    let mut records = Vec::new();
    for other in owners {
        if let Ok((l, _)) = ledger::load(&settings.state_dir, &other) {
            records.extend(
                l.records
                    .into_iter()
                    .filter(|r| r.created_file || r.hints.is_some() || !r.created_dirs.is_empty()),
            );
        }
    }
    out.upsert_all(records);
    out
}

/// The entry names the files `spec`'s client inherits hold after this run (planned files as
/// planned, others as they are on disk); `None` when one of them cannot be read.
fn visible_after(
    settings: &Settings,
    specs: &[Spec],
    plans: &[Option<FilePlan>],
    spec: &Spec,
) -> Option<Vec<String>> {
    let d = dialect::lookup(spec.client)?;
    let ctx = ctx(settings);
    let mut names = Vec::new();
    for (id, scope_name) in d.inherited_settings() {
        let from = dialect::lookup(id)?;
        let scope = from.scope(scope_name)?;
        let path = from.path(scope, None, &ctx);
        let key = fsio::resolve(&path)
            .unwrap_or_else(|_| path.clone())
            .display()
            .to_string();
        let container = from.container(scope_name, &ctx);
        let planned = specs
            .iter()
            .zip(plans)
            .find(|(s, _)| s.key == key)
            .and_then(|(_, p)| p.as_ref());
        let doc = match planned {
            Some(p) if p.status == Status::Refused => return None,
            Some(p) if p.delete => None,
            Some(p) => match &p.new {
                Some(bytes) => Some(Doc::parse_vec(bytes.to_vec(), from.syntax()).ok()?),
                None => p.old.clone(),
            },
            None => match fsio::read(&path, MAX_FILE) {
                Ok(None) => None,
                Ok(Some(r)) => Some(Doc::parse_vec(r.bytes, from.syntax()).ok()?),
                Err(_) => return None,
            },
        };
        if let Some(serde_json::Value::Object(m)) = doc.and_then(|d| d.get(&container)) {
            names.extend(m.keys().cloned());
        }
    }
    Some(names)
}

/// Compute the plan: reads only, writes nothing. `manifest` is `None` for an owner without
/// one (then only [`Mode::Prune`] has anything to do). The report's `files` hold each file's
/// actions and new bytes, `changed` whether applying would change anything, `errors` each
/// refusal (and `exit` is then [`Exit::Refused`]).
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use mcpconf::engine::{self, Exit, Mode};
/// use mcpconf::plan::Op;
///
/// let dir = tempfile::tempdir()?;
/// let settings = mcpconf::settings::Settings::builder()
///     .manifest(dir.path().join("mcpconf.toml"))
///     .root(dir.path())
///     .home(dir.path())
///     .state_dir(dir.path().join("state"))
///     .build()?;
/// // A server of the user's own with the same name is never overwritten: a conflict.
/// std::fs::create_dir(dir.path().join(".cursor"))?;
/// std::fs::write(
///     dir.path().join(".cursor/mcp.json"),
///     r#"{"mcpServers": {"db": {"command": "their-db"}}}"#,
/// )?;
/// let manifest = mcpconf::manifest::parse(
///     "owner = \"o\"\n[servers.db]\ncommand = \"db-mcp\"\n[servers.web]\ncommand = \"web-mcp\"\n\
///      [[targets]]\nclient = \"cursor\"\n",
///     &mcpconf::known::Known,
/// )?;
/// let report = engine::plan(&settings, Some(&manifest), "o", Mode::Apply { adopt: false });
/// assert_eq!(report.exit, Exit::Refused);
/// assert_eq!(report.errors[0].code, mcpconf::diag::Code::Conflict);
/// let ops: Vec<Op> = report.files[0].actions.iter().map(|a| a.op).collect();
/// assert!(ops.contains(&Op::Add) && ops.contains(&Op::Conflict), "{ops:?}");
/// # Ok(())
/// # }
/// ```
pub fn plan(settings: &Settings, manifest: Option<&Manifest>, owner: &str, mode: Mode) -> Report {
    let (ledger, ws) = match load_claimed(settings, manifest, owner, mode) {
        Ok(x) => x,
        Err(r) => return *r,
    };
    let (_, _, plans) = plan_all(settings, manifest, owner, &ledger, &ws, mode);
    Report::from_plans(owner, plans)
}

mod apply;
mod takeover;
pub use apply::{ApplyOptions, apply};
pub use takeover::holds_restore_copies;

fn fs_entry(e: &FsError) -> ErrorEntry {
    ErrorEntry {
        path: e.path.display().to_string(),
        code: e.code,
        message: e.message.clone(),
        line: 1,
        column: 1,
    }
}

fn apply_ops_direct(ledger: &mut Ledger, ws: &str, file: &str, ops: &[LedgerOp]) {
    for op in ops {
        match op {
            LedgerOp::Set(r) => ledger.upsert(r.clone()),
            LedgerOp::Remove(p) => ledger.remove(ws, file, p),
        }
    }
}

/// Whether a run goes on after its first plan: nothing refused, or `--keep-going` and only
/// files refused (each is left alone).
fn goes_on(settings: &Settings, first: &Report) -> bool {
    first.exit == Exit::Ok || (settings.keep_going && first.exit == Exit::Refused)
}

/// Record the intent of a file's plan in the ledger (before the file is written).
fn journal(ledger: &mut Ledger, ws: &str, fp: &FilePlan) {
    journal_all(ledger, ws, std::iter::once(fp));
}

/// [`journal`] for many plans, the new records added in one pass (see [`Ledger::upsert_all`]).
fn journal_all<'a>(ledger: &mut Ledger, ws: &str, plans: impl IntoIterator<Item = &'a FilePlan>) {
    let mut recs: Vec<Record> = Vec::new();
    // Where the record of a file and pointer set earlier in this batch is in `recs`.
    let mut earlier: std::collections::HashMap<(&str, &str), usize> =
        std::collections::HashMap::new();
    for fp in plans {
        for op in &fp.ledger {
            match op {
                LedgerOp::Set(fin) => {
                    let mut rec: Record = ledger
                        .find(ws, &fp.key, &fin.pointer)
                        .cloned()
                        .unwrap_or_else(|| Record {
                            digest: None,
                            ..fin.clone()
                        });
                    settle(&mut rec, fp);
                    rec.pending = Some(Pending {
                        digest: fin.digest.clone(),
                    });
                    rec.hints = fin.hints.clone();
                    rec.created_file = fin.created_file;
                    rec.created_dirs = fin.created_dirs.clone();
                    if fin.file_digest.is_some() {
                        rec.file_digest = fin.file_digest.clone();
                    }
                    rec.client_state = fin.client_state.clone();
                    rec.members = fin.members.clone();
                    rec.client = fin.client.clone();
                    earlier.insert((&fp.key, &fin.pointer), recs.len());
                    recs.push(rec);
                }
                LedgerOp::Remove(p) => {
                    // A record set earlier in this batch is not in the ledger yet: look there.
                    let found = match earlier.get(&(fp.key.as_str(), p.as_str())) {
                        Some(&i) => Some(recs[i].clone()),
                        None => ledger.find(ws, &fp.key, p).cloned(),
                    };
                    if let Some(mut rec) = found {
                        settle(&mut rec, fp);
                        rec.pending = Some(Pending { digest: None });
                        earlier.insert((&fp.key, p), recs.len());
                        recs.push(rec);
                    }
                }
            }
        }
    }
    ledger.upsert_all(recs);
}

/// Before a new intent replaces the intent a killed run left on a record: when the file as
/// read shows that earlier intent's value, it happened, and its digest becomes the record's
/// (otherwise the new intent would leave the value in the file proven by neither digest, and a
/// second kill, before this run's write, would make it drift).
fn settle(rec: &mut Record, fp: &FilePlan) {
    let (Some(p), Some(old)) = (&rec.pending, &fp.old) else {
        return;
    };
    if rec.kind != ledger::Kind::Entry {
        return;
    }
    let Some((mut path, name)) = ledger::split_pointer(&rec.pointer) else {
        return;
    };
    path.push(name);
    let Some(now) = old.get(&path) else {
        return;
    };
    // Proven by the earlier intent's digest alone (the record's own proof, client-managed
    // keys and all).
    let mut earlier = rec.clone();
    earlier.digest = p.digest.clone();
    earlier.pending = None;
    if p.digest.is_some() && earlier.ownership(Some(&now)) == ledger::Ownership::Intact {
        rec.digest = p.digest.clone();
    }
}

mod status;
pub use status::{RecordState, RecordStatus, has_records, release, status};

/// Every dialect, for `mcpconf clients`.
pub fn clients() -> &'static [&'static dyn Dialect] {
    dialect::ALL
}
