//! Planning: what must change in one file so it matches the manifest, and what the ledger must
//! record. Pure: the caller hands in the parsed file, the owner's ledger records for it and the
//! wanted entries; out comes the new bytes, the actions and the ledger operations. No I/O.
//!
//! The rules (contract §5): an entry is changed or removed only when it is provably ours (a
//! ledger record whose digest matches its current canonical value, or an exact legacy shape).
//! Anything else that differs from what we want is a *conflict*; ours but edited since is
//! *drift*; both refuse the whole run. An unowned entry that already equals what we want is left
//! alone (`unowned-match`) unless `--adopt` records it as ours.

use crate::diag::Code;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use crate::dialect::Syntax;
use crate::document::{Doc, ReadError};
use crate::ledger::{self, Kind, Ownership, Record};
use crate::manifest::Legacy;

mod equal;
mod staged;
use equal::difference_hint;
pub use equal::{first_difference, normalized, semantic_eq};
use staged::Staged;

/// An entry the manifest wants in a file.
#[derive(Debug, Clone)]
pub struct Want {
    /// Object path of the container inside the file.
    pub container: Vec<String>,
    /// Server name (entry key).
    pub server: String,
    /// The rendered entry.
    pub value: Value,
    /// The client whose dialect rendered it.
    pub client: &'static str,
    /// The same entry with the manifest's `${VAR}` references expanded from the current
    /// environment (`None` when it has none, or one is unset): the proof `--adopt` accepts for a
    /// literal. Only compared, never written or shown.
    pub expanded: Option<Value>,
}

/// Grants wanted beside an entry (see [`crate::dialect::GrantSpec`]).
#[derive(Debug, Clone)]
pub struct GrantWant {
    /// The server the grants belong to.
    pub server: String,
    /// The client whose dialect asked for them.
    pub client: &'static str,
    /// What to grant where.
    pub spec: crate::dialect::GrantSpec,
}

/// What was found at the file's path.
#[derive(Debug, Clone)]
pub enum Current {
    /// No file.
    Missing,
    /// A file that parsed.
    Present {
        /// The parsed document (it holds the bytes as read: [`Doc::bytes`]).
        doc: Box<Doc>,
    },
    /// A file that cannot be edited safely.
    Refused(PlanError),
    /// A file mcpconf leaves alone, with the reason (e.g. a Markdown agent file).
    Skipped(String),
}

/// Everything needed to plan one file.
#[derive(Debug, Clone)]
pub struct FileInput {
    /// The owner planning.
    pub owner: String,
    /// The workspace planning (a name or a canonical project root).
    pub workspace: String,
    /// The path as the user knows it (absolute).
    pub path: PathBuf,
    /// Canonical path: the ledger key.
    pub key: String,
    /// The client id reported for the file.
    pub client: &'static str,
    /// The file's syntax.
    pub syntax: Syntax,
    /// The file now.
    pub current: Current,
    /// Whether a missing file may be created.
    pub create: bool,
    /// Entries wanted.
    pub wants: Vec<Want>,
    /// Containers the manifest's targets use in this file (where legacy shapes are looked for).
    pub containers: Vec<Vec<String>>,
    /// The owner's legacy shapes.
    pub legacy: Vec<Legacy>,
    /// This workspace's ledger records for this file.
    pub records: Vec<Record>,
    /// The owner's records for this file held by other workspaces (co-owners).
    pub others: Vec<Record>,
    /// For an agent file that inherits workspace settings: the entry names the settings files
    /// it inherits keep after this run (`None`: the file inherits nothing, or that is unknown,
    /// which keeps legacy grants).
    pub inherited: Option<Vec<String>>,
    /// Notes from rendering (pins the client cannot enforce, …).
    pub notes: Vec<String>,
    /// Grants wanted beside the entries.
    pub grants: Vec<GrantWant>,
    /// Arrays in which the owner's legacy grants are looked for.
    pub grant_arrays: Vec<String>,
}

/// Planning switches.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Record unowned entries that already equal what we want as ours.
    pub adopt: bool,
}

/// A refusal or failure tied to a file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanError {
    /// Stable kebab-case code.
    pub code: Code,
    /// One sentence with the fix.
    pub message: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

impl PlanError {
    /// A whole-file error (1:1).
    pub fn file(code: Code, message: impl Into<String>) -> PlanError {
        PlanError {
            code,
            message: message.into(),
            line: 1,
            column: 1,
        }
    }
}

/// `line:column: message` (the caller knows the file).
///
/// ```
/// use mcpconf::{diag::Code, plan::PlanError};
///
/// let e = PlanError::file(Code::Conflict, "the entry `db` is not ours");
/// assert_eq!(e.to_string(), "1:1: the entry `db` is not ours");
/// let boxed: Box<dyn std::error::Error> = Box::new(e);
/// assert!(boxed.to_string().ends_with("not ours"));
/// ```
impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for PlanError {}

impl From<ReadError> for PlanError {
    fn from(e: ReadError) -> PlanError {
        PlanError {
            code: e.code,
            message: e.message,
            line: e.line,
            column: e.column,
        }
    }
}

/// What happens to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Nothing to write.
    Unchanged,
    /// Edited in place (atomically).
    Changed,
    /// Created.
    Created,
    /// Cannot be edited safely.
    Refused,
    /// Missing and `create = false`.
    Skipped,
}

/// One action on one entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Action {
    /// What happens to the entry.
    pub op: Op,
    /// The entry's name.
    pub server: String,
    /// A short explanation, or empty.
    pub detail: String,
}

/// What a plan does with one entry; its text form is the `op` of the machine output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Op {
    /// Written, new.
    Add,
    /// Rewritten: ours, and the manifest changed.
    Update,
    /// Removed: ours, no longer wanted.
    Remove,
    /// Ours and already as wanted.
    Keep,
    /// As wanted but not written by mcpconf; left alone.
    UnownedMatch,
    /// As wanted, not ours, and recorded as ours (`--adopt`).
    Adopt,
    /// Not ours and different from the manifest: refused.
    Conflict,
    /// Ours but edited since: refused.
    Drift,
    /// An exact legacy shape of the owner, removed.
    LegacyRemove,
}

impl Op {
    /// The kebab-case id (`add`, `unowned-match`, …).
    pub const fn as_str(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::Update => "update",
            Op::Remove => "remove",
            Op::Keep => "keep",
            Op::UnownedMatch => "unowned-match",
            Op::Adopt => "adopt",
            Op::Conflict => "conflict",
            Op::Drift => "drift",
            Op::LegacyRemove => "legacy-remove",
        }
    }

    /// The refusal's code, for the ops that are refusals.
    pub const fn refusal(self) -> Option<Code> {
        match self {
            Op::Conflict => Some(Code::Conflict),
            Op::Drift => Some(Code::Drift),
            Op::Add
            | Op::Update
            | Op::Remove
            | Op::Keep
            | Op::UnownedMatch
            | Op::Adopt
            | Op::LegacyRemove => None,
        }
    }
}

impl std::fmt::Display for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Op {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Comparing with the kebab-case id, for assertions.
impl PartialEq<&str> for Op {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// A change to the ledger, in its final form (the engine journals it).
#[derive(Debug, Clone, PartialEq)]
// A few per file: boxing the record would cost an allocation each for nothing measurable.
#[allow(clippy::large_enum_variant)]
pub enum LedgerOp {
    /// The record as it must be once the file is written.
    Set(Record),
    /// Forget the record at this pointer.
    Remove(String),
}

/// The plan for one file.
#[derive(Debug, Clone)]
pub struct FilePlan {
    /// The path as the user knows it.
    pub path: PathBuf,
    /// Canonical path (ledger key).
    pub key: String,
    /// Client id.
    pub client: &'static str,
    /// Outcome.
    pub status: Status,
    /// Per-entry actions.
    pub actions: Vec<Action>,
    /// Refusals.
    pub errors: Vec<PlanError>,
    /// Things the user should know (e.g. pins a client cannot enforce).
    pub notes: Vec<String>,
    /// The file before, as read (None if the file does not exist); its bytes are
    /// [`Doc::bytes`], shared with the document read, not copied.
    pub old: Option<Doc>,
    /// Bytes to write, when the file changes.
    pub new: Option<Vec<u8>>,
    /// Remove the file (mcpconf created it and nothing else is left).
    pub delete: bool,
    /// Ledger changes.
    pub ledger: Vec<LedgerOp>,
}

impl FilePlan {
    /// Whether the file's bytes change.
    pub fn writes(&self) -> bool {
        self.new.is_some() || self.delete
    }
}

/// Plan one file.
pub fn plan_file(input: &FileInput, opts: Options) -> FilePlan {
    let mut fp = FilePlan {
        path: input.path.clone(),
        key: input.key.clone(),
        client: input.client,
        status: Status::Unchanged,
        actions: Vec::new(),
        errors: Vec::new(),
        notes: input.notes.clone(),
        old: None,
        new: None,
        delete: false,
        ledger: Vec::new(),
    };
    match &input.current {
        Current::Refused(e) => {
            fp.status = Status::Refused;
            fp.errors.push(e.clone());
            fp
        }
        Current::Skipped(why) => {
            fp.status = Status::Skipped;
            fp.notes.push(why.clone());
            fp
        }
        Current::Missing => plan_missing(input, fp),
        Current::Present { doc } => plan_present(input, opts, doc, fp),
    }
}

fn new_record(input: &FileInput, want: &Want, hints: Option<Value>, created_file: bool) -> Record {
    record_of(input, want, &want.value, hints, created_file)
}

/// The record of an entry whose value in the file is `value` (the wanted value, or an adopted
/// one that is semantically equal to it).
fn record_of(
    input: &FileInput,
    want: &Want,
    value: &Value,
    hints: Option<Value>,
    created_file: bool,
) -> Record {
    Record {
        workspace: Some(input.workspace.clone()),
        file: input.key.clone(),
        client: want.client.to_string(),
        pointer: ledger::pointer(&want.container, &want.server),
        kind: Kind::Entry,
        server: want.server.clone(),
        digest: Some(ledger::digest(value)),
        pending: None,
        created_file,
        file_digest: None,
        hints,
        created_dirs: Vec::new(),
    }
}

/// The ledger pointer of a grant: the array's pointer plus the granted string.
pub fn grant_pointer(array: &str, value: &str) -> String {
    ledger::pointer(&[array.to_string()], value)
}

fn grant_record(input: &FileInput, g: &GrantWant, value: &str, hints: Option<Value>) -> Record {
    Record {
        workspace: Some(input.workspace.clone()),
        file: input.key.clone(),
        client: g.client.to_string(),
        pointer: grant_pointer(g.spec.array, value),
        kind: Kind::Grant,
        server: g.server.clone(),
        digest: Some(ledger::digest(&Value::String(value.to_string()))),
        pending: None,
        created_file: false,
        file_digest: None,
        hints,
        created_dirs: Vec::new(),
    }
}

fn plan_missing(input: &FileInput, mut fp: FilePlan) -> FilePlan {
    // Records of a file that is gone: nothing of ours is left to prove.
    for r in &input.records {
        fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
    }
    if input.wants.is_empty() {
        return fp;
    }
    if !input.create {
        fp.status = Status::Skipped;
        fp.notes
            .push("the file does not exist and the target has `create = false`".into());
        return fp;
    }
    let mut doc = match Doc::new_file(input.syntax, new_file_text(input)) {
        Ok(d) => d,
        Err(e) => {
            fp.status = Status::Refused;
            fp.errors.push(e.into());
            return fp;
        }
    };
    for w in &input.wants {
        if let Err(e) = doc.upsert(&w.container, &w.server, &w.value) {
            fp.errors.push(e.into());
            continue;
        }
        fp.actions.push(Action {
            op: Op::Add,
            server: w.server.clone(),
            detail: String::new(),
        });
        fp.ledger
            .push(LedgerOp::Set(new_record(input, w, None, true)));
    }
    if !fp.errors.is_empty() {
        fp.status = Status::Refused;
        fp.ledger.clear();
        return fp;
    }
    fp.new = Some(doc.to_bytes());
    fp.status = Status::Created;
    fp
}

fn refuse(fp: &mut FilePlan, doc: &Staged, path: &[String], op: Op, server: &str, message: String) {
    fp.actions.push(Action {
        op,
        server: server.to_string(),
        detail: message.clone(),
    });
    let (line, column) = doc.location(path).unwrap_or((1, 1));
    fp.errors.push(PlanError {
        code: op.refusal().unwrap_or(Code::Conflict),
        message,
        line,
        column,
    });
}

fn plan_present(input: &FileInput, opts: Options, original: &Doc, mut fp: FilePlan) -> FilePlan {
    fp.old = Some(original.clone());
    let mut doc = Staged::new(original.clone());
    let shown = input.path.display().to_string();
    let created_file = input.records.iter().any(|r| r.created_file);
    let mut wanted_pointers = Vec::new();
    let mut kept_records = 0usize;

    for w in &input.wants {
        let pointer = ledger::pointer(&w.container, &w.server);
        wanted_pointers.push(pointer.clone());
        if let Err(e) = check_containers(&doc, &w.container) {
            fp.errors.push(e);
            continue;
        }
        let mut path = w.container.clone();
        path.push(w.server.clone());
        let current = doc.get(&path);
        let record = input.records.iter().find(|r| r.pointer == pointer);
        // Other workspaces of the same owner that provably own what is there now.
        let co_owners = co_owners(input, &pointer, current.as_ref());
        let legacy = input
            .legacy
            .iter()
            .any(|l| l.name == w.server && Some(&l.entry) == current.as_ref());
        match (current, record) {
            (None, rec) => match doc.upsert(&w.container, &w.server, &w.value) {
                Ok(hints) => {
                    fp.actions.push(Action {
                        op: Op::Add,
                        server: w.server.clone(),
                        detail: if rec.is_some() {
                            "re-added: the entry mcpconf wrote is gone".into()
                        } else {
                            String::new()
                        },
                    });
                    let hints = hints.or_else(|| rec.and_then(|r| r.hints.clone()));
                    fp.ledger
                        .push(LedgerOp::Set(new_record(input, w, hints, created_file)));
                    kept_records += 1;
                }
                Err(e) => fp.errors.push(e.into()),
            },
            (Some(v), Some(r)) => {
                let own = r.ownership(Some(&v));
                if v == w.value || (own == Ownership::Intact && semantic_eq(&v, &w.value)) {
                    fp.actions.push(Action {
                        op: Op::Keep,
                        server: w.server.clone(),
                        detail: co_detail(&co_owners),
                    });
                    let rec = record_of(input, w, &v, r.hints.clone(), r.created_file);
                    if &rec != r {
                        fp.ledger.push(LedgerOp::Set(rec));
                    }
                    kept_records += 1;
                } else if own == Ownership::Intact && !co_owners.is_empty() {
                    refuse(
                        &mut fp,
                        &doc,
                        &path,
                        Op::Conflict,
                        &w.server,
                        format!(
                            "entry `{}` in `{shown}` is also declared by workspace {} of owner `{}`, differently{}; mcpconf will not change an entry another workspace relies on (declare it the same way in both manifests, or give it another name)",
                            w.server,
                            names(&co_owners),
                            owner_of(input),
                            difference_hint(&v, &w.value)
                        ),
                    );
                } else if own == Ownership::Intact {
                    match doc.upsert(&w.container, &w.server, &w.value) {
                        Ok(_) => {
                            fp.actions.push(Action {
                                op: Op::Update,
                                server: w.server.clone(),
                                detail: String::new(),
                            });
                            fp.ledger.push(LedgerOp::Set(new_record(
                                input,
                                w,
                                r.hints.clone(),
                                r.created_file,
                            )));
                            kept_records += 1;
                        }
                        Err(e) => fp.errors.push(e.into()),
                    }
                } else {
                    refuse(
                        &mut fp,
                        &doc,
                        &path,
                        Op::Drift,
                        &w.server,
                        format!(
                            "entry `{}` in `{shown}` was edited since owner `{}` wrote it{}; mcpconf will not overwrite the edit (restore the entry, remove it by hand, or run `mcpconf release {}` to hand it to the user)",
                            w.server,
                            owner_of(input),
                            difference_hint(&v, &w.value),
                            w.server
                        ),
                    );
                }
            }
            (Some(v), None) if !co_owners.is_empty() => {
                if semantic_eq(&v, &w.value) {
                    // Co-owned: written once, recorded for every workspace that declares it.
                    fp.actions.push(Action {
                        op: Op::Keep,
                        server: w.server.clone(),
                        detail: co_detail(&co_owners),
                    });
                    // The hints and the created-file mark travel with the entry, so whichever
                    // workspace removes it last restores the original bytes.
                    let co = input.others.iter().find(|r| r.pointer == pointer);
                    let hints = co.and_then(|r| r.hints.clone());
                    let created = input.others.iter().any(|r| r.created_file);
                    let mut rec = record_of(input, w, &v, hints, created);
                    rec.file_digest = input
                        .others
                        .iter()
                        .find_map(|r| r.file_digest.clone().filter(|_| r.created_file));
                    fp.ledger.push(LedgerOp::Set(rec));
                    kept_records += 1;
                } else {
                    refuse(
                        &mut fp,
                        &doc,
                        &path,
                        Op::Conflict,
                        &w.server,
                        format!(
                            "entry `{}` in `{shown}` is declared differently by workspace {} of owner `{}`{}; one owner declares one entry one way (declare it the same way in both manifests, or give it another name)",
                            w.server,
                            names(&co_owners),
                            owner_of(input),
                            difference_hint(&v, &w.value)
                        ),
                    );
                }
            }
            (Some(v), None) => {
                let expanded_eq = w.expanded.as_ref().is_some_and(|x| semantic_eq(&v, x));
                if legacy {
                    match doc.upsert(&w.container, &w.server, &w.value) {
                        Ok(_) => {
                            fp.actions.push(Action {
                                op: Op::Update,
                                server: w.server.clone(),
                                detail: "replaces the owner's legacy shape".into(),
                            });
                            fp.ledger
                                .push(LedgerOp::Set(new_record(input, w, None, created_file)));
                            kept_records += 1;
                        }
                        Err(e) => fp.errors.push(e.into()),
                    }
                } else if semantic_eq(&v, &w.value) {
                    if opts.adopt {
                        fp.actions.push(Action {
                            op: Op::Adopt,
                            server: w.server.clone(),
                            detail: if v == w.value {
                                "equal to the manifest; recorded as ours".into()
                            } else {
                                "equal to the manifest in this client's dialect (defaults written out, key order); recorded as ours, left as it is".into()
                            },
                        });
                        fp.ledger
                            .push(LedgerOp::Set(record_of(input, w, &v, None, false)));
                        kept_records += 1;
                    } else {
                        fp.actions.push(Action {
                            op: Op::UnownedMatch,
                            server: w.server.clone(),
                            detail: "already as wanted but not written by mcpconf; left alone (`apply --adopt` records it as ours)".into(),
                        });
                    }
                } else if opts.adopt && expanded_eq {
                    // The literal equals the reference expanded: the same secret, proven. The
                    // reference replaces it, so the secret leaves the file.
                    match doc.upsert(&w.container, &w.server, &w.value) {
                        Ok(_) => {
                            fp.actions.push(Action {
                                op: Op::Adopt,
                                server: w.server.clone(),
                                detail: "its literal values equal the manifest's references expanded from the environment; replaced by the references and recorded as ours".into(),
                            });
                            fp.ledger
                                .push(LedgerOp::Set(new_record(input, w, None, false)));
                            kept_records += 1;
                        }
                        Err(e) => fp.errors.push(e.into()),
                    }
                } else {
                    let next = if expanded_eq {
                        " (its literal values equal the manifest's references expanded from the environment: `apply --adopt` replaces them by the references)"
                    } else {
                        " (rename the server in the manifest, or rename or remove that entry by hand)"
                    };
                    refuse(
                        &mut fp,
                        &doc,
                        &path,
                        Op::Conflict,
                        &w.server,
                        format!(
                            "`{shown}` already has an entry `{}` that owner `{}` did not write and that differs from the manifest{}; mcpconf will not overwrite it{next}",
                            w.server,
                            owner_of(input),
                            difference_hint(&v, &w.value)
                        ),
                    );
                }
            }
        }
    }

    // Legacy shapes replaced here by a declared entry: their legacy grants go with them (below),
    // so such a grant neither covers the new grants nor stays behind as the user's; one the
    // manifest grants again is the owner's from now on.
    let legacy_replaced: Vec<String> = fp
        .actions
        .iter()
        .filter(|a| a.op == Op::Update && a.detail == "replaces the owner's legacy shape")
        .map(|a| a.server.clone())
        .collect();
    let doomed = |server: Option<&str>, x: &str| {
        input.legacy.iter().any(|l| {
            legacy_replaced.contains(&l.name)
                && server.is_none_or(|s| s == l.name)
                && l.grants.iter().any(|g| g == x)
        })
    };

    // Grants that go with the entries (Kiro agents' `tools` / `allowedTools`).
    for g in &input.grants {
        let path = vec![g.spec.array.to_string()];
        for v in &g.spec.values {
            wanted_pointers.push(grant_pointer(g.spec.array, v));
        }
        match doc.get(&path) {
            None if g.spec.create_array => {
                let values: Vec<Value> = g
                    .spec
                    .values
                    .iter()
                    .map(|v| Value::String(v.clone()))
                    .collect();
                match doc.upsert(&[], g.spec.array, &Value::Array(values)) {
                    Ok(undo) => {
                        let hints = serde_json::json!({"created_array": true, "undo": undo});
                        for v in &g.spec.values {
                            fp.actions.push(grant_action(Op::Add, g, v));
                            fp.ledger.push(LedgerOp::Set(grant_record(
                                input,
                                g,
                                v,
                                Some(hints.clone()),
                            )));
                        }
                    }
                    Err(e) => fp.errors.push(e.into()),
                }
            }
            None => {}
            Some(Value::Array(items)) => {
                let covered = items.iter().any(|x| {
                    x.as_str().is_some_and(|x| {
                        // A legacy grant that goes below covers nothing.
                        let goes = doomed(None, x) && !g.spec.values.iter().any(|v| v == x);
                        g.spec.covering.iter().any(|c| c == x) && !goes
                    })
                });
                for v in &g.spec.values {
                    let pointer = grant_pointer(g.spec.array, v);
                    let record = input.records.iter().find(|r| r.pointer == pointer);
                    let present = items.iter().any(|x| x.as_str() == Some(v.as_str()));
                    match (present, record) {
                        (true, Some(r)) => {
                            let rec = grant_record(input, g, v, r.hints.clone());
                            if &rec != r {
                                fp.ledger.push(LedgerOp::Set(rec));
                            }
                        }
                        // Co-owned: another workspace of the owner added it; ours too now.
                        (true, None)
                            if !co_owners(input, &pointer, Some(&Value::String(v.clone())))
                                .is_empty() =>
                        {
                            let hints = input
                                .others
                                .iter()
                                .find(|r| r.pointer == pointer)
                                .and_then(|r| r.hints.clone());
                            fp.ledger
                                .push(LedgerOp::Set(grant_record(input, g, v, hints)));
                        }
                        // The owner's legacy grant, granted again with the entry that replaces
                        // its legacy shape: recorded, so it goes with the entry.
                        (true, None) if doomed(Some(&g.server), v) => {
                            fp.actions.push(Action {
                                op: Op::Keep,
                                server: g.server.clone(),
                                detail: format!(
                                    "legacy grant `{v}` in `{}` recorded with the entry that replaces the legacy shape",
                                    g.spec.array
                                ),
                            });
                            fp.ledger
                                .push(LedgerOp::Set(grant_record(input, g, v, None)));
                        }
                        // The user's own grant, or one a covering grant makes unnecessary.
                        (true, None) => {}
                        (false, _) if covered => {
                            if record.is_some() {
                                fp.ledger.push(LedgerOp::Remove(pointer));
                            }
                        }
                        (false, rec) => match doc.array_push(&path, v) {
                            Ok(()) => {
                                fp.actions.push(grant_action(Op::Add, g, v));
                                let hints = rec.and_then(|r| r.hints.clone());
                                fp.ledger
                                    .push(LedgerOp::Set(grant_record(input, g, v, hints)));
                            }
                            Err(e) => fp.errors.push(e.into()),
                        },
                    }
                }
            }
            Some(other) => fp.errors.push(PlanError {
                code: Code::NotAnObject,
                message: format!(
                    "`{}` must be an array of tool names, but it is {}",
                    g.spec.array,
                    crate::document::kind_of(&other)
                ),
                line: 1,
                column: 1,
            }),
        }
    }

    // Entries we wrote that the manifest no longer wants here.
    // Grants we added that are no longer wanted: removed with their entry.
    for r in input
        .records
        .iter()
        .filter(|r| r.kind == Kind::Grant && !wanted_pointers.contains(&r.pointer))
    {
        let Some((array, value)) = ledger::split_pointer(&r.pointer) else {
            fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
            continue;
        };
        let present = doc
            .get(&array)
            .as_ref()
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|x| x.as_str() == Some(value.as_str())));
        if !present {
            fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
            continue;
        }
        let co = co_owners(input, &r.pointer, Some(&Value::String(value.clone())));
        if !co.is_empty() {
            fp.actions.push(Action {
                op: Op::Keep,
                server: r.server.clone(),
                detail: format!(
                    "grant `{value}` in `{}` stays: {}",
                    array.join("."),
                    still_declared(&co)
                ),
            });
            fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
            continue;
        }
        match doc.array_remove(&array, &value) {
            Ok(()) => {
                fp.actions.push(Action {
                    op: Op::Remove,
                    server: r.server.clone(),
                    detail: format!("grant `{value}` in `{}`", array.join(".")),
                });
                fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
                // An array mcpconf created goes when its last grant goes.
                let created = r.hints.as_ref().is_some_and(|h| h["created_array"] == true);
                let empty = doc
                    .get(&array)
                    .as_ref()
                    .and_then(Value::as_array)
                    .is_some_and(Vec::is_empty);
                if created && empty {
                    let undo = r
                        .hints
                        .as_ref()
                        .map(|h| h["undo"].clone())
                        .filter(|u| !u.is_null());
                    if let Err(e) = doc.remove(&[], &array.join("."), undo.as_ref()) {
                        fp.errors.push(e.into());
                    }
                }
            }
            Err(e) => fp.errors.push(e.into()),
        }
    }

    let mut removals: Vec<&Record> = input
        .records
        .iter()
        .filter(|r| r.kind == Kind::Entry && !wanted_pointers.contains(&r.pointer))
        .collect();
    // Remove the entries that come last in the file first, so each removal is the inverse of
    // the append that made it.
    removals.sort_by_key(|r| {
        std::cmp::Reverse(
            ledger::split_pointer(&r.pointer)
                .and_then(|(c, n)| doc.position(&c, &n))
                .unwrap_or(0),
        )
    });
    let all_hints: Vec<Value> = input
        .records
        .iter()
        .filter(|r| r.kind == Kind::Entry)
        .filter_map(|r| r.hints.clone())
        .collect();
    let hints = merge_hints(&all_hints);
    for r in removals {
        let Some((container, name)) = ledger::split_pointer(&r.pointer) else {
            fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
            continue;
        };
        let mut path = container.clone();
        path.push(name.clone());
        let current = doc.get(&path);
        let co = co_owners(input, &r.pointer, current.as_ref());
        if r.ownership(current.as_ref()) == Ownership::Intact && !co.is_empty() {
            // Co-owned: only this workspace's claim goes.
            fp.actions.push(Action {
                op: Op::Keep,
                server: r.server.clone(),
                detail: still_declared(&co),
            });
            fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
            continue;
        }
        match r.ownership(current.as_ref()) {
            Ownership::Missing => fp.ledger.push(LedgerOp::Remove(r.pointer.clone())),
            Ownership::Intact => match doc.remove(&container, &name, hints.as_ref()) {
                Ok(()) => {
                    fp.actions.push(Action {
                        op: Op::Remove,
                        server: r.server.clone(),
                        detail: String::new(),
                    });
                    fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
                }
                Err(e) => fp.errors.push(e.into()),
            },
            Ownership::Drifted => refuse(
                &mut fp,
                &doc,
                &path,
                Op::Drift,
                &r.server,
                format!(
                    "entry `{}` in `{shown}` was edited since owner `{}` wrote it, so it is not removed (restore the entry, remove it by hand, or run `mcpconf release {}` to hand it to the user)",
                    r.server,
                    owner_of(input),
                    r.server
                ),
            ),
        }
    }

    // Legacy shapes: exact matches only.
    let mut legacy_removed: Vec<String> = fp
        .actions
        .iter()
        .filter(|a| a.op == Op::Update && a.detail == "replaces the owner's legacy shape")
        .map(|a| a.server.clone())
        .collect();
    for l in &input.legacy {
        for c in &input.containers {
            let p = ledger::pointer(c, &l.name);
            if wanted_pointers.contains(&p)
                || input.records.iter().any(|r| r.pointer == p)
                || input.others.iter().any(|r| r.pointer == p)
            {
                continue;
            }
            let mut path = c.clone();
            path.push(l.name.clone());
            if doc.get(&path).as_ref() == Some(&l.entry) {
                match doc.remove(c, &l.name, None) {
                    Ok(()) => {
                        fp.actions.push(Action {
                            op: Op::LegacyRemove,
                            server: l.name.clone(),
                            detail: "exact match of the owner's legacy shape".into(),
                        });
                        legacy_removed.push(l.name.clone());
                    }
                    Err(e) => fp.errors.push(e.into()),
                }
            }
        }
    }

    // Legacy grants: exact strings, removed only together with their legacy entry in this file,
    // or, for an agent file that inherits workspace settings, when no entry of that name stays
    // visible to it. Removing a grant alone could silently disable the operator's own server.
    let inherits = ["includeMcpJson", "useLegacyMcpJson"]
        .iter()
        .any(|k| doc.get(&[k.to_string()]) == Some(Value::Bool(true)));
    for l in &input.legacy {
        let still_there = input.containers.iter().any(|c| {
            let mut p = c.clone();
            p.push(l.name.clone());
            doc.get(&p).is_some()
        });
        let why_kept = if legacy_removed.contains(&l.name) {
            None
        } else if still_there {
            Some(format!("an entry `{}` stays in this file", l.name))
        } else {
            match input.inherited.as_ref().filter(|_| inherits) {
                Some(visible) if visible.contains(&l.name) => Some(format!(
                    "an entry `{}` stays visible to this agent from the settings it inherits",
                    l.name
                )),
                Some(_) => None,
                None => Some(format!(
                    "the legacy entry `{}` is not removed from this file",
                    l.name
                )),
            }
        };
        for array in &input.grant_arrays {
            for g in &l.grants {
                let pointer = grant_pointer(array, g);
                if wanted_pointers.contains(&pointer)
                    || input.records.iter().any(|r| r.pointer == pointer)
                    || input.others.iter().any(|r| r.pointer == pointer)
                {
                    continue;
                }
                let path = vec![array.clone()];
                let present = doc
                    .get(&path)
                    .as_ref()
                    .and_then(Value::as_array)
                    .is_some_and(|a| a.iter().any(|x| x.as_str() == Some(g.as_str())));
                if !present {
                    continue;
                }
                if let Some(why) = &why_kept {
                    fp.actions.push(Action {
                        op: Op::Keep,
                        server: l.name.clone(),
                        detail: format!("legacy grant `{g}` in `{array}` kept: {why}"),
                    });
                    continue;
                }
                match doc.array_remove(&path, g) {
                    Ok(()) => fp.actions.push(Action {
                        op: Op::LegacyRemove,
                        server: l.name.clone(),
                        detail: format!("legacy grant `{g}` in `{array}`"),
                    }),
                    Err(e) => fp.errors.push(e.into()),
                }
            }
        }
    }

    // The staged entry edits, made and proven in one pass.
    let doc = match doc.finish() {
        Ok(d) => d,
        Err(e) => {
            fp.errors.push(e.into());
            original.clone()
        }
    };
    if !fp.errors.is_empty() {
        fp.status = Status::Refused;
        fp.ledger.clear();
        return fp;
    }
    // A created file goes only when its bytes are exactly what mcpconf left (the whole-file
    // digest recorded at its last write): a comment, an empty table, anything the user added
    // keeps it (then only our entries are removed).
    let as_left = {
        let now = ledger::file_digest(original.bytes());
        input
            .records
            .iter()
            .any(|r| r.created_file && r.file_digest.as_deref() == Some(now.as_str()))
    };
    if created_file
        && as_left
        && kept_records == 0
        && input.others.is_empty()
        && (only_empty_objects(&doc.root())
            || Doc::new_file(input.syntax, new_file_text(input))
                .is_ok_and(|e| as_created(&doc.root(), &e.root())))
    {
        fp.delete = true;
        fp.status = Status::Changed;
    } else if !doc.same_bytes(original) {
        fp.new = Some(doc.into_bytes());
        fp.status = Status::Changed;
    }
    fp
}

fn grant_action(op: Op, g: &GrantWant, value: &str) -> Action {
    Action {
        op,
        server: g.server.clone(),
        detail: format!("grant `{value}` in `{}`", g.spec.array),
    }
}

fn owner_of(input: &FileInput) -> &str {
    &input.owner
}

/// The other workspaces whose record at `pointer` provably owns the value found now.
fn co_owners(input: &FileInput, pointer: &str, current: Option<&Value>) -> Vec<String> {
    let mut out: Vec<String> = input
        .others
        .iter()
        .filter(|r| r.pointer == pointer && r.ownership(current) == Ownership::Intact)
        .map(|r| match &r.workspace {
            Some(w) => format!("`{w}`"),
            None => "(a record from before workspaces)".to_string(),
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

fn names(co: &[String]) -> String {
    co.join(", ")
}

fn co_detail(co: &[String]) -> String {
    if co.is_empty() {
        String::new()
    } else {
        format!("co-owned with workspace {}", names(co))
    }
}

fn still_declared(co: &[String]) -> String {
    format!(
        "co-owned, workspace {} still declares it; only this workspace's record is dropped",
        names(co)
    )
}

/// Every container on the way must be an object (or absent).
fn check_containers(doc: &Staged, container: &[String]) -> Result<(), PlanError> {
    for i in 1..=container.len() {
        if let Some(kind) = doc.kind(&container[..i])
            && kind != "an object"
        {
            return Err(PlanError {
                code: Code::NotAnObject,
                message: format!(
                    "`{}` must be an object that holds servers, but it is {}",
                    container[..i].join("."),
                    kind
                ),
                line: 1,
                column: 1,
            });
        }
    }
    Ok(())
}

fn only_empty_objects(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|m| m.values().all(only_empty_objects))
}

/// The text a new file of the input's client starts with (Continue's header; usually none).
fn new_file_text(input: &FileInput) -> &'static str {
    crate::dialect::lookup(input.client).map_or("", |d| d.new_file())
}

/// Whether a root holds only what a new file of its client starts with (Continue's header)
/// plus empty containers.
fn as_created(v: &Value, empty: &Value) -> bool {
    let (Some(m), Some(e)) = (v.as_object(), empty.as_object()) else {
        return false;
    };
    e.iter().all(|(k, x)| m.get(k) == Some(x))
        && m.iter().all(|(k, x)| {
            e.contains_key(k) || only_empty_objects(x) || x.as_array().is_some_and(Vec::is_empty)
        })
}

/// Hints of several records as one list (each record's hints are a JSON array).
fn merge_hints(hints: &[Value]) -> Option<Value> {
    let mut all = Vec::new();
    for h in hints {
        match h {
            Value::Array(a) => {
                for x in a {
                    if !all.contains(x) {
                        all.push(x.clone());
                    }
                }
            }
            other => all.push(other.clone()),
        }
    }
    (!all.is_empty()).then_some(Value::Array(all))
}

#[cfg(test)]
mod tests;
