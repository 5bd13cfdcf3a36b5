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
use crate::ledger::{self, Kind, Record};
use crate::manifest::Legacy;
use crate::text::Content;

mod equal;
mod marks;
mod present;
mod staged;
mod takeover;
pub use equal::{
    adoption, eq_but_client_keys, first_difference, normalized, normalized_for, semantic_eq_for,
};
use present::plan_present;

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
    /// The keys of this entry that its client writes itself and the manifest does not
    /// declare (approvals, on/off switches, …): outside the ownership proof, kept as the
    /// client left them by an update ([`crate::dialect::Dialect::client_managed`]).
    pub client_state: Vec<String>,
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
    /// Other owners' records for this file: only what they remember about the file itself
    /// (that mcpconf created it, the containers and directories it created) is read from them.
    pub foreign: Vec<Record>,
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
    /// `apply --take-over NAME`: entries of these names that another party wrote are replaced
    /// (a copy of each is kept to give back).
    pub take_over: Vec<String>,
    /// `apply --replace NAME`: entries of these names that another party wrote are replaced
    /// for good (no copy kept).
    pub replace: Vec<String>,
    /// This workspace's restore copies for this file (entries it took over).
    pub restores: Vec<crate::ledger::RestoreCopy>,
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
    /// Not ours, different, and replaced (`apply --take-over NAME`); a copy is kept to give back.
    TakeOver,
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
            Op::TakeOver => "take-over",
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
            | Op::LegacyRemove
            | Op::TakeOver => None,
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
    /// Bytes to write, when the file changes: for JSON the bytes read (shared with `old`) with
    /// the edited object's range replaced, so a big file is held once, not twice.
    pub new: Option<Content>,
    /// Remove the file (mcpconf created it and nothing else is left).
    pub delete: bool,
    /// For a file mcpconf created that is written and stays: the digest of the whole file as
    /// written, while every byte in it is mcpconf's (`None` once anything else is in it).
    pub file_digest: Option<String>,
    /// Ledger changes.
    pub ledger: Vec<LedgerOp>,
    /// Restore copies to keep (before the file is written) or to drop (once the ledger no
    /// longer needs them).
    pub restore: Vec<RestoreOp>,
}

/// A change to the restore copies of entries taken over (see [`crate::ledger::RestoreCopy`]).
#[derive(Debug, Clone, PartialEq)]
pub enum RestoreOp {
    /// Keep this copy: saved durably before the file is written.
    Keep(Box<crate::ledger::RestoreCopy>),
    /// The entry at this pointer was given back (or is gone): its copy is dropped after the
    /// ledger commit.
    Drop(String),
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
        file_digest: None,
        ledger: Vec::new(),
        restore: Vec::new(),
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
/// one that is semantically equal to it): its digest leaves out the client's own keys.
fn record_of(
    input: &FileInput,
    want: &Want,
    value: &Value,
    hints: Option<Value>,
    created_file: bool,
) -> Record {
    let (digest, members) = ledger::entry_proof(value, &want.client_state);
    Record {
        workspace: Some(input.workspace.clone()),
        file: input.key.clone(),
        client: want.client.to_string(),
        pointer: ledger::pointer(&want.container, &want.server),
        kind: Kind::Entry,
        server: want.server.clone(),
        digest: Some(digest),
        pending: None,
        created_file,
        file_digest: None,
        hints,
        created_dirs: Vec::new(),
        client_state: want.client_state.clone(),
        members,
    }
}

/// The ledger pointer of a grant: the array's pointer plus the granted string.
pub fn grant_pointer(array: &[String], value: &str) -> String {
    ledger::pointer(array, value)
}

fn grant_record(input: &FileInput, g: &GrantWant, value: &str, hints: Option<Value>) -> Record {
    Record {
        workspace: Some(input.workspace.clone()),
        file: input.key.clone(),
        client: g.client.to_string(),
        pointer: grant_pointer(&g.spec.array, value),
        kind: Kind::Grant,
        server: g.server.clone(),
        digest: Some(ledger::digest(&Value::String(value.to_string()))),
        pending: None,
        created_file: false,
        file_digest: None,
        hints,
        created_dirs: Vec::new(),
        client_state: Vec::new(),
        members: None,
    }
}

fn plan_missing(input: &FileInput, mut fp: FilePlan) -> FilePlan {
    // Records of a file that is gone: nothing of ours is left to prove.
    for r in &input.records {
        fp.ledger.push(LedgerOp::Remove(r.pointer.clone()));
    }
    for c in &input.restores {
        fp.restore.push(RestoreOp::Drop(c.pointer.clone()));
    }
    if input.wants.is_empty() && !input.grants.iter().any(|g| g.spec.create_array) {
        return fp;
    }
    if !input.create {
        fp.status = Status::Skipped;
        fp.notes
            .push("the file does not exist and the target has `create = false`".into());
        return fp;
    }
    let doc = match Doc::new_file(input.syntax, new_file_text(input)) {
        Ok(d) => d,
        Err(e) => {
            fp.status = Status::Refused;
            fp.errors.push(e.into());
            return fp;
        }
    };
    // Staged as in an existing file: the entries after the first join one edit of their
    // object, so a new file of n entries costs one pass, not n (each single upsert rewrites
    // and proves the whole text made so far).
    let mut doc = staged::Staged::new(doc);
    for w in &input.wants {
        let hints = match doc.upsert(&w.container, &w.server, &w.value) {
            Ok(h) => h,
            Err(e) => {
                fp.errors.push(e.into());
                continue;
            }
        };
        fp.actions.push(Action {
            op: Op::Add,
            server: w.server.clone(),
            detail: String::new(),
        });
        fp.ledger
            .push(LedgerOp::Set(new_record(input, w, hints, true)));
    }
    let mut doc = match doc.finish() {
        Ok(d) => d,
        Err(e) => {
            fp.errors.push(e.into());
            fp.status = Status::Refused;
            fp.ledger.clear();
            return fp;
        }
    };
    new_arrays(input, &mut doc, &mut fp);
    if !fp.errors.is_empty() {
        fp.status = Status::Refused;
        fp.ledger.clear();
        return fp;
    }
    let new = doc.content();
    // Every byte of a new file is mcpconf's: its digest goes into the intent with the records.
    fp.file_digest = marks::next_file_digest(true, &new);
    // Each record carries every container the new file's upserts created.
    let hints: Vec<Value> = fp
        .ledger
        .iter()
        .filter_map(|op| match op {
            LedgerOp::Set(r) if r.kind == Kind::Entry => r.hints.clone(),
            _ => None,
        })
        .collect();
    let hints = marks::merge_hints(&hints);
    // Directories mcpconf created for the file before (a run killed after making them) are
    // still its own.
    let dirs = marks::Marks::of(input).dirs;
    for op in &mut fp.ledger {
        if let LedgerOp::Set(r) = op {
            r.file_digest = fp.file_digest.clone();
            r.created_file = true;
            // A grant keeps its own hints: the array it created, to go with its last value.
            if r.kind == Kind::Entry {
                r.hints = hints.clone();
            }
            r.created_dirs = dirs.clone();
        }
    }
    fp.new = Some(new);
    fp.status = Status::Created;
    fp
}

/// The arrays a new file holds for its grants (a project's `mcp.excluded`): each created with
/// its first value, recorded with the hints that remove it again.
fn new_arrays(input: &FileInput, doc: &mut Doc, fp: &mut FilePlan) {
    for g in input.grants.iter().filter(|g| g.spec.create_array) {
        let Some((key, parent)) = g.spec.array.split_last() else {
            continue;
        };
        for v in &g.spec.values {
            let result = match doc.get(&g.spec.array) {
                None => doc
                    .upsert(parent, key, &Value::Array(vec![Value::String(v.clone())]))
                    .map(|undo| Some(serde_json::json!({"created_array": true, "undo": undo}))),
                Some(Value::Array(a)) if a.iter().any(|x| x.as_str() == Some(v)) => continue,
                Some(_) => doc
                    .array_push(&g.spec.array, v)
                    .map(|()| created_array_hints(&fp.ledger, &[], &g.spec.array)),
            };
            match result {
                Ok(hints) => {
                    fp.actions.push(present::grant_action(Op::Add, g, v));
                    fp.ledger
                        .push(LedgerOp::Set(grant_record(input, g, v, hints)));
                }
                Err(e) => fp.errors.push(e.into()),
            }
        }
    }
}

/// The hints of the grant records (set by this plan, or the ledger's) whose array mcpconf
/// created: every value added to such an array carries them, so whichever goes last takes
/// the array with it.
pub(super) fn created_array_hints(
    planned: &[LedgerOp],
    records: &[Record],
    array: &[String],
) -> Option<Value> {
    let of = |r: &Record| {
        (r.kind == Kind::Grant
            && r.hints.as_ref().is_some_and(|h| h["created_array"] == true)
            && ledger::split_pointer(&r.pointer).is_some_and(|(a, _)| a == array))
        .then(|| r.hints.clone())
        .flatten()
    };
    planned
        .iter()
        .filter_map(|op| match op {
            LedgerOp::Set(r) => of(r),
            LedgerOp::Remove(_) => None,
        })
        .chain(records.iter().filter_map(of))
        .next()
}

/// The text a new file of the input's client starts with (Continue's header; usually none).
fn new_file_text(input: &FileInput) -> &'static str {
    crate::dialect::lookup(input.client).map_or("", |d| d.new_file())
}

#[cfg(test)]
mod tests;
