//! Planning a file that exists: each wanted entry is added, kept, updated, adopted or refused
//! (conflict, drift); grants likewise; entries and grants the manifest no longer wants are
//! removed when provably ours; legacy shapes go on an exact match.

use super::equal::difference_hint;
use super::marks::{self, Marks};
use super::staged::Staged;
use super::*;
use crate::ledger::Ownership;
use std::collections::{HashMap, HashSet};

mod entries;
mod grants;
mod removals;

/// The records of one file found by pointer: one lookup per entry, so planning n entries
/// against n records costs n, not n².
struct Index<'a> {
    /// This workspace's record at each pointer (the first, as a scan in order would find it).
    records: HashMap<&'a str, &'a Record>,
    /// Every other workspace's records at each pointer, in order.
    others: HashMap<&'a str, Vec<&'a Record>>,
}

impl<'a> Index<'a> {
    fn new(input: &'a FileInput) -> Index<'a> {
        let mut records = HashMap::with_capacity(input.records.len());
        for r in &input.records {
            records.entry(r.pointer.as_str()).or_insert(r);
        }
        let mut others: HashMap<&str, Vec<&Record>> = HashMap::new();
        for r in &input.others {
            others.entry(r.pointer.as_str()).or_default().push(r);
        }
        Index { records, others }
    }

    fn record(&self, pointer: &str) -> Option<&'a Record> {
        self.records.get(pointer).copied()
    }

    fn others(&self, pointer: &str) -> &[&'a Record] {
        self.others.get(pointer).map_or(&[], Vec::as_slice)
    }

    /// Whether anyone (this workspace or another) has a record at `pointer`.
    fn any(&self, pointer: &str) -> bool {
        self.records.contains_key(pointer) || self.others.contains_key(pointer)
    }
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

/// One existing file being planned: what it is planned from, the staged edits and the plan
/// so far. Each step of [`plan_present`] is one method (the wanted entries in `entries`, the
/// grants in `grants`, the removals and legacy shapes in `removals`).
struct Present<'a> {
    input: &'a FileInput,
    opts: Options,
    original: &'a Doc,
    fp: FilePlan,
    doc: Staged,
    index: Index<'a>,
    /// The file's path as messages show it.
    shown: String,
    /// Whether mcpconf created the file (from every record of it).
    created_file: bool,
    /// Every pointer the manifest wants in the file, entries and grants.
    wanted_pointers: HashSet<String>,
    /// Records of this workspace that stay: a file mcpconf created goes only when none does.
    kept_records: usize,
}

impl Present<'_> {
    fn refuse(&mut self, path: &[String], op: Op, server: &str, message: String) {
        refuse(&mut self.fp, &self.doc, path, op, server, message);
    }

    /// Pushes an edit's error, if any; whether the edit was made.
    fn made<T>(&mut self, result: Result<T, crate::document::ReadError>) -> Option<T> {
        match result {
            Ok(x) => Some(x),
            Err(e) => {
                self.fp.errors.push(e.into());
                None
            }
        }
    }

    /// The servers whose legacy shape an entry declared now replaced (read from the actions).
    fn legacy_replaced(&self) -> Vec<String> {
        self.fp
            .actions
            .iter()
            .filter(|a| a.op == Op::Update && a.detail == LEGACY_REPLACED)
            .map(|a| a.server.clone())
            .collect()
    }

    /// The staged edits made and proven; the plan's status, the new bytes or the deletion.
    fn finish(self, marks: &Marks) -> FilePlan {
        let (input, original) = (self.input, self.original);
        let mut fp = self.fp;
        // The staged entry edits, made and proven in one pass.
        let doc = match self.doc.finish() {
            Ok(d) => d,
            Err(e) => {
                fp.errors.push(e.into());
                original.clone()
            }
        };
        if !fp.errors.is_empty() {
            fp.status = Status::Refused;
            fp.ledger.clear();
            fp.restore.clear();
            return fp;
        }
        // A created file goes only while every byte in it is mcpconf's (see `marks`) and
        // nothing but what a new file starts with is left; otherwise only mcpconf's entries
        // (and the containers it created, when empty) leave it.
        let all_ours = || marks.all_ours(input, original);
        if self.created_file
            && self.kept_records == 0
            && marks::only_new_file_text(input, &doc)
            && all_ours()
        {
            fp.delete = true;
            fp.status = Status::Changed;
        } else if !doc.same_bytes(original) {
            let new = doc.content();
            if self.created_file {
                fp.file_digest = marks::next_file_digest(all_ours(), &new);
            }
            fp.new = Some(new);
            fp.status = Status::Changed;
        }
        marks.stamp(input, &mut fp.ledger);
        fp
    }
}

/// The detail of the update that replaces an owner's legacy shape by the declared entry.
const LEGACY_REPLACED: &str = "replaces the owner's legacy shape";

pub(super) fn plan_present(
    input: &FileInput,
    opts: Options,
    original: &Doc,
    mut fp: FilePlan,
) -> FilePlan {
    fp.old = Some(original.clone());
    // Entries taken over that the manifest no longer wants here are given back first.
    let wanted_now: HashSet<String> = input
        .wants
        .iter()
        .map(|w| ledger::pointer(&w.container, &w.server))
        .collect();
    let copies: Vec<&crate::ledger::RestoreCopy> = input
        .restores
        .iter()
        .filter(|c| !wanted_now.contains(&c.pointer))
        .collect();
    let (base, given_back) = if copies.is_empty() {
        (original.clone(), Vec::new())
    } else {
        takeover::give_back(input, original.clone(), &copies, &mut fp.notes)
    };
    // What mcpconf remembers about the file itself, from every record of it.
    let marks = Marks::of(input);
    let mut p = Present {
        input,
        opts,
        original,
        fp,
        doc: Staged::new(base),
        index: Index::new(input),
        shown: input.path.display().to_string(),
        created_file: marks.created_file,
        wanted_pointers: HashSet::new(),
        kept_records: 0,
    };
    let collided = name_collisions(input, &mut p.doc, &mut p.fp);
    for w in &input.wants {
        p.wanted_entry(w, &collided);
    }
    p.wanted_grants();
    p.remove_unwanted_grants();
    p.remove_unwanted_entries(&given_back, &copies, marks.hints.as_ref());
    let legacy_removed = p.remove_legacy_entries();
    p.remove_legacy_grants(&legacy_removed);
    p.finish(&marks)
}

/// Wanted entries another entry of the file would collide with in the client, which files
/// servers under a rewritten name ([`crate::dialect::Dialect::name_key`]: Mistral Vibe turns
/// `my server` into `my_server` and then rejects the whole file for the duplicate). Each is
/// refused as a conflict naming both entries; the names of the refused wants are returned.
fn name_collisions(input: &FileInput, doc: &mut Staged, fp: &mut FilePlan) -> HashSet<String> {
    let mut out = HashSet::new();
    let Some(d) = crate::dialect::lookup(input.client) else {
        return out;
    };
    // Most clients keep names as written: nothing to read (a container can be large).
    if input
        .wants
        .first()
        .and_then(|w| d.name_key(&w.server))
        .is_none()
    {
        return out;
    }
    let mut seen: Vec<&Vec<String>> = Vec::new();
    for w in &input.wants {
        if seen.contains(&&w.container) {
            continue;
        }
        seen.push(&w.container);
        let Some(Value::Object(existing)) = doc.get(&w.container) else {
            continue;
        };
        // The client's key of every entry there now, once.
        let mut keys: HashMap<String, Vec<&String>> = HashMap::new();
        for name in existing.keys() {
            if let Some(k) = d.name_key(name) {
                keys.entry(k).or_default().push(name);
            }
        }
        for w2 in input.wants.iter().filter(|x| x.container == w.container) {
            let Some(k) = d.name_key(&w2.server) else {
                continue;
            };
            let Some(other) = keys
                .get(&k)
                .and_then(|v| v.iter().find(|n| **n != &w2.server))
            else {
                continue;
            };
            let mut path = w2.container.clone();
            path.push((*other).clone());
            let message = format!(
                "entry `{other}` in `{}` is read by client `{}` under the name `{k}`, the same as server `{}`, so the client would reject the whole file for a duplicate server; mcpconf will not write it (rename one of them)",
                input.path.display(),
                d.id(),
                w2.server
            );
            refuse(fp, doc, &path, Op::Conflict, &w2.server, message);
            out.insert(w2.server.clone());
        }
    }
    out
}

pub(super) fn grant_action(op: Op, g: &GrantWant, value: &str) -> Action {
    Action {
        op,
        server: g.server.clone(),
        detail: if g.spec.disable {
            format!(
                "turned off for this project: `{value}` in `{}`",
                g.spec.array.join(".")
            )
        } else {
            format!("grant `{value}` in `{}`", g.spec.array.join("."))
        },
    }
}

fn owner_of(input: &FileInput) -> &str {
    &input.owner
}

/// The other workspaces whose record at `pointer` provably owns the value found now.
fn co_owners(index: &Index, pointer: &str, current: Option<&Value>) -> Vec<String> {
    let mut out: Vec<String> = index
        .others(pointer)
        .iter()
        .filter(|r| {
            r.ownership_in(current, crate::dialect::client_facts(&r.client)) == Ownership::Intact
        })
        .map(|r| match &r.workspace {
            Some(w) => format!("`{w}`"),
            None => "(a record from before workspaces)".to_string(),
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Why a drifted entry is drifted: the member that differs from the recorded entry (client
/// keys aside), or, for a record without members, the first field that differs from the
/// manifest's entry. Names the field, never its value.
fn drift_hint(r: &Record, found: &Value, wanted: Option<&Value>) -> String {
    match (r.differing_member(found), wanted) {
        (Some(d), _) => format!(" ({d} since it was written)"),
        (None, Some(w)) if r.members.is_none() => difference_hint(found, w),
        _ => String::new(),
    }
}

/// The ways out of two workspaces of one owner declaring one entry of a shared (user-scope)
/// file differently.
fn shared_way_out(server: &str) -> String {
    format!(
        "declare it the same way in every workspace; or give each workspace its own server name, such as `{server}-WORKDIR`; or use a project-scope target (`scope = \"project\"`), so each workspace has its own file"
    )
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
