//! The ownership ledger: the owner's proof of authorship.
//!
//! For every entry `mcpconf` wrote, a record holds the file (canonical path), the JSON pointer
//! of the entry and the SHA-256 of the *canonical* value written (keys sorted, no whitespace),
//! so a client that merely re-indents or reorders the file does not break ownership. It never
//! holds a value, only digests.
//!
//! Crash consistency is a write-ahead intent: before a target file is replaced, the record gets
//! a `pending` digest (the value about to be written, or `null` for a removal) and the ledger is
//! saved. While a record is pending both the old and the new digest prove ownership, so after a
//! `kill -9` at any instant the next run recognises its own half-finished work and converges;
//! once the files are written the pending digest is committed.
//!
//! Records are keyed by workspace, file and pointer: an owner keeps one ledger, and each
//! workspace (by default the canonical project root) converges only its own records. The same
//! entry declared identically from several workspaces has one record per workspace (it is
//! co-owned). Records of a ledger written before workspaces existed (format 1) carry no
//! workspace; [`Ledger::claim`] assigns them to the first workspace that uses their file.
//!
//! This module does no I/O; its `store` part loads and saves the JSON text through `fsio`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::text::hex;

mod client_state;
mod restore;
mod store;
pub use client_state::{
    ClientFacts, entry_proof, is_default, member_at, respelled, short_digest, unread,
    with_nested_state, without, without_defaults,
};
pub use restore::{RestoreCopy, Restores, load_restores, restore_path, save_restores};
pub use store::{
    clean_temps, commit, intent_path, load, lock_path, path, save, save_intent, state_dir,
};

/// One owner's ledger file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ledger {
    /// 2 for this layout (1: before workspaces; read, and written back as 2).
    pub format_version: u32,
    /// The owner.
    pub owner: String,
    /// How many durable saves made this ledger (0 in ledgers written before it was counted):
    /// orders the ledger against a run's intent (see [`save_intent`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub generation: u64,
    /// Records, ordered by file then pointer.
    pub records: Vec<Record>,
}

/// What a record proves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A server entry.
    Entry,
    /// A grant that makes a server usable elsewhere (e.g. Kiro `@server`).
    Grant,
}

/// Proof that the owner wrote one entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// The workspace whose manifest declared it: a name, or a canonical project root. `None`
    /// only for a record of a format-1 ledger that no workspace has claimed yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// Canonical (symlink-resolved, absolute) path of the file.
    pub file: String,
    /// The client whose dialect wrote it.
    pub client: String,
    /// JSON pointer of the entry (RFC 6901).
    pub pointer: String,
    /// Entry or grant.
    pub kind: Kind,
    /// The server it belongs to.
    pub server: String,
    /// `sha256:<hex>` of the canonical value written; `None` only while an add is pending.
    pub digest: Option<String>,
    /// Intent recorded before the file write: the digest about to be written (`None` = removal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<Pending>,
    /// Whether mcpconf created the file (prune may then remove it when nothing else is left).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub created_file: bool,
    /// For a file mcpconf created: `sha256:<hex>` of the *whole file* as mcpconf last left it,
    /// recorded only while every byte in it was mcpconf's (`None` once anything else is): one
    /// proof that prune may delete the file (see `plan::marks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_digest: Option<String>,
    /// Structure hints (whitespace only, never values) that let removal restore the exact bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Value>,
    /// For a file mcpconf created: the directories it created for it (canonical, absolute).
    /// When prune deletes the file it removes those that are then empty, and no other.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub created_dirs: Vec<String>,
    /// The client's own keys of this entry (approvals, on/off switches, … that the client
    /// writes itself and the manifest does not declare): outside the proof, so `digest` is
    /// of the entry without them. Names only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub client_state: Vec<String>,
    /// A short digest (16 hex digits) of each member of the entry as written, client keys
    /// included: what names the member that differs from the recorded entry, and tells a
    /// client key the client changed from one mcpconf wrote. `None` for records written
    /// before client state was known (then the client's keys are tried, see
    /// [`Record::ownership_in`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub members: Option<std::collections::BTreeMap<String, String>>,
}

/// A write in flight.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pending {
    /// The digest being written, or `None` for a removal.
    pub digest: Option<String>,
}

/// What a record says about the entry found in the file now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ownership {
    /// The current value hashes to a digest we wrote.
    Intact,
    /// The entry is there but was edited since we wrote it.
    Drifted,
    /// The entry is not there.
    Missing,
}

impl Ledger {
    /// An empty ledger.
    pub fn new(owner: &str) -> Ledger {
        Ledger {
            format_version: 2,
            owner: owner.to_string(),
            generation: 0,
            records: Vec::new(),
        }
    }

    /// Records of one file in one workspace.
    pub fn for_file<'a>(
        &'a self,
        workspace: &'a str,
        file: &'a str,
    ) -> impl Iterator<Item = &'a Record> + 'a {
        self.records[self.range(file)]
            .iter()
            .filter(move |r| r.workspace.as_deref() == Some(workspace))
    }

    /// Every record of one file, whatever its workspace.
    pub fn in_file(&self, file: &str) -> &[Record] {
        &self.records[self.range(file)]
    }

    /// Records of one file held by anyone but `workspace` (co-owners, and format-1 records no
    /// workspace has claimed).
    pub fn others<'a>(
        &'a self,
        workspace: &'a str,
        file: &'a str,
    ) -> impl Iterator<Item = &'a Record> + 'a {
        self.records[self.range(file)]
            .iter()
            .filter(move |r| r.workspace.as_deref() != Some(workspace))
    }

    /// The index range of one file's records. Records are kept ordered by file, pointer and
    /// workspace, so every lookup is a binary search: a run over n records costs n log n, not
    /// n².
    fn range(&self, file: &str) -> std::ops::Range<usize> {
        let start = self.records.partition_point(|r| r.file.as_str() < file);
        let len = self
            .records
            .get(start..)
            .map_or(0, |rest| rest.partition_point(|r| r.file == file));
        start..start + len
    }

    /// Where the record of a workspace at a file and pointer is, or would be inserted.
    fn search(&self, workspace: Option<&str>, file: &str, pointer: &str) -> Result<usize, usize> {
        self.records.binary_search_by(|r| {
            (r.file.as_str(), r.pointer.as_str(), r.workspace.as_deref())
                .cmp(&(file, pointer, workspace))
        })
    }

    /// The distinct files with records of a workspace, in order.
    pub fn files(&self, workspace: &str) -> Vec<String> {
        let mut files: Vec<String> = self
            .records
            .iter()
            .filter(|r| r.workspace.as_deref() == Some(workspace))
            .map(|r| r.file.clone())
            .collect();
        files.sort();
        files.dedup();
        files
    }

    /// The distinct workspaces with records (`None`: unclaimed format-1 records), in order.
    pub fn workspaces(&self) -> Vec<Option<String>> {
        let mut ws: Vec<Option<String>> =
            self.records.iter().map(|r| r.workspace.clone()).collect();
        ws.sort();
        ws.dedup();
        ws
    }

    /// Assign unclaimed format-1 records whose file `mine` accepts to `workspace`. Returns how
    /// many were claimed.
    pub fn claim(&mut self, workspace: &str, mine: impl Fn(&str) -> bool) -> usize {
        let mut n = 0;
        for r in self.records.iter_mut() {
            if r.workspace.is_none() && mine(&r.file) {
                r.workspace = Some(workspace.to_string());
                n += 1;
            }
        }
        if n > 0 {
            // Two format-1 records never share a file and pointer, so no duplicate arises.
            self.sort();
        }
        n
    }

    /// The record of a workspace at a file and pointer.
    pub fn find(&self, workspace: &str, file: &str, pointer: &str) -> Option<&Record> {
        self.search(Some(workspace), file, pointer)
            .ok()
            .and_then(|i| self.records.get(i))
    }

    /// Insert or replace the record with the same workspace, file and pointer. The whole-file
    /// digest of a created file is kept when the new record does not carry one (the planner
    /// never knows it).
    pub fn upsert(&mut self, mut record: Record) {
        let at = self.search(record.workspace.as_deref(), &record.file, &record.pointer);
        match at {
            Ok(i) => {
                if let Some(r) = self.records.get_mut(i) {
                    if record.file_digest.is_none() && record.created_file {
                        record.file_digest = r.file_digest.take();
                    }
                    *r = record;
                }
            }
            Err(i) => self.records.insert(i, record),
        }
    }

    /// [`Ledger::upsert`] of many records: the new ones are added in one sort instead of one
    /// insert each (n inserts into the middle of the list move its tail n times). Of two
    /// records with the same workspace, file and pointer the later wins, as with `upsert`.
    pub fn upsert_all(&mut self, records: Vec<Record>) {
        let mut fresh: Vec<Record> = Vec::new();
        for record in records {
            if self
                .search(record.workspace.as_deref(), &record.file, &record.pointer)
                .is_ok()
            {
                self.upsert(record);
            } else {
                fresh.push(record);
            }
        }
        if fresh.len() <= 1 {
            for record in fresh {
                self.upsert(record);
            }
            return;
        }
        // Stable: of equal keys the later stays later; keep only the last of each run.
        fresh.sort_by(|a, b| {
            (&a.file, &a.pointer, &a.workspace).cmp(&(&b.file, &b.pointer, &b.workspace))
        });
        let mut last: Vec<Record> = Vec::with_capacity(fresh.len());
        for r in fresh {
            if last.last().is_some_and(|l| {
                l.file == r.file && l.pointer == r.pointer && l.workspace == r.workspace
            }) {
                last.pop();
            }
            last.push(r);
        }
        self.records.extend(last);
        self.sort();
    }

    /// Remove a workspace's record at a file and pointer.
    pub fn remove(&mut self, workspace: &str, file: &str, pointer: &str) {
        if let Ok(i) = self.search(Some(workspace), file, pointer) {
            self.records.remove(i);
        }
    }

    fn sort(&mut self) {
        self.records.sort_by(|a, b| {
            (&a.file, &a.pointer, &a.workspace).cmp(&(&b.file, &b.pointer, &b.workspace))
        });
    }

    /// Commit every pending intent of a workspace in `file` (the write happened): the pending
    /// digest becomes the digest, and records of completed removals disappear.
    pub fn commit(&mut self, workspace: &str, file: &str) {
        self.commit_files(workspace, [file]);
    }

    /// [`Ledger::commit`] for many files at once: one pass removes the records of completed
    /// removals in all of them, where committing file by file moves every later record once
    /// per file (a prune of n files would cost n²).
    pub fn commit_files<'a>(&mut self, workspace: &str, files: impl IntoIterator<Item = &'a str>) {
        let n = self.records.len();
        let mut gone: Vec<bool> = Vec::new();
        for file in files {
            let range = self.range(file);
            for (i, r) in self.records[range.clone()].iter_mut().enumerate() {
                if r.workspace.as_deref() != Some(workspace) {
                    continue;
                }
                if let Some(p) = r.pending.take() {
                    r.digest = p.digest;
                }
                if r.digest.is_none() {
                    if gone.is_empty() {
                        gone = vec![false; n];
                    }
                    gone[range.start + i] = true;
                }
            }
        }
        if !gone.is_empty() {
            let mut at = 0;
            self.records.retain(|_| {
                at += 1;
                !gone[at - 1]
            });
        }
    }

    /// Removes the records of `workspace` in `range` (one file's) that hold no digest.
    /// (In place: splitting the list off and joining it again copied every later record.)
    fn drop_undigested(&mut self, range: std::ops::Range<usize>, workspace: &str) {
        let mut at = 0;
        self.records.retain(|r| {
            at += 1;
            !range.contains(&(at - 1))
                || r.workspace.as_deref() != Some(workspace)
                || r.digest.is_some()
        });
    }

    /// Record the whole-file digest of `file` as just written on its created-file records:
    /// `Some` while every byte in it is mcpconf's, `None` once anything else is (the planner
    /// decides which: [`crate::plan::FilePlan::file_digest`]; never a digest over bytes that
    /// may be the user's).
    pub fn set_file_digest(&mut self, file: &str, digest: Option<&str>) {
        let range = self.range(file);
        for r in self.records[range].iter_mut().filter(|r| r.created_file) {
            r.file_digest = digest.map(str::to_string);
        }
    }

    /// The directories mcpconf created for `file`, as any of its records remembers them.
    pub fn created_dirs(&self, file: &str) -> Vec<String> {
        let mut dirs: Vec<String> = self.records[self.range(file)]
            .iter()
            .flat_map(|r| r.created_dirs.iter().cloned())
            .collect();
        dirs.sort();
        dirs.dedup();
        dirs
    }

    /// Remember `dirs` as created for `file` on each of its records that marks the file as
    /// created (so the memory survives whichever of them prune removes first).
    pub fn set_created_dirs(&mut self, file: &str, dirs: &[String]) {
        let range = self.range(file);
        for r in self.records[range].iter_mut().filter(|r| r.created_file) {
            r.created_dirs = dirs.to_vec();
        }
    }

    /// Drop every pending intent of a workspace in `file` (the write did not happen).
    pub fn rollback(&mut self, workspace: &str, file: &str) {
        let range = self.range(file);
        let mut gone = false;
        for r in self.records[range.clone()]
            .iter_mut()
            .filter(|r| r.workspace.as_deref() == Some(workspace))
        {
            r.pending = None;
            gone |= r.digest.is_none();
        }
        if gone {
            self.drop_undigested(range, workspace);
        }
    }

    /// Parse a ledger file; a text that is not a ledger this version reads is a
    /// `ledger-corrupt` error.
    pub fn from_json(text: &str) -> Result<Ledger, crate::diag::Error> {
        let corrupt = |m: String| crate::diag::Error::new(crate::diag::Code::LedgerCorrupt, m);
        let mut l: Ledger = serde_json::from_str(text).map_err(|e| corrupt(e.to_string()))?;
        // Every lookup relies on the order (a hand-edited ledger may not keep it).
        l.sort();
        match l.format_version {
            // Before workspaces: every record waits to be claimed (see [`Ledger::claim`]).
            1 => {
                if l.records.iter().any(|r| r.workspace.is_some()) {
                    return Err(corrupt(
                        "a format_version 1 ledger cannot name workspaces".into(),
                    ));
                }
                l.format_version = 2;
            }
            2 => {}
            v => {
                return Err(corrupt(format!(
                    "ledger format_version {v} is not supported by this mcpconf"
                )));
            }
        }
        Ok(l)
    }

    /// Serialize (pretty, trailing newline).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

impl Record {
    /// Whether the value found now (`None` = absent) is provably ours (see
    /// [`Record::ownership_in`]; no fallback keys for records from before client state).
    pub fn ownership(&self, current: Option<&Value>) -> Ownership {
        self.ownership_in(current, ClientFacts::default())
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// `sha256:<hex>` of a whole file's bytes.
pub fn file_digest(bytes: &[u8]) -> String {
    file_digest_of(&[bytes])
}

/// [`file_digest`] of the bytes `parts` hold one after the other (a file written from pieces).
pub fn file_digest_of(parts: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    format!("sha256:{}", hex(&h.finalize()))
}

/// `sha256:<hex>` of the canonical JSON of a value.
pub fn digest(v: &Value) -> String {
    let mut s = String::new();
    canonical(v, &mut s);
    format!("sha256:{}", hex(&Sha256::digest(s.as_bytes())))
}

/// Canonical JSON: object keys sorted by their UTF-8 bytes, no whitespace, serde_json escaping.
pub fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                if let Some(child) = m.get(k) {
                    canonical(child, out);
                }
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(x, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// RFC 6901 pointer of a name inside a container path.
pub fn pointer(container: &[String], name: &str) -> String {
    let mut p = String::new();
    for seg in container
        .iter()
        .map(String::as_str)
        .chain(std::iter::once(name))
    {
        p.push('/');
        p.push_str(&seg.replace('~', "~0").replace('/', "~1"));
    }
    p
}

/// Split a pointer into (container path, name).
pub fn split_pointer(p: &str) -> Option<(Vec<String>, String)> {
    let rest = p.strip_prefix('/')?;
    let mut segs: Vec<String> = rest
        .split('/')
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect();
    let name = segs.pop()?;
    Some((segs, name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A Cursor entry record of server `a` (the ledger's child modules' tests use it too).
    pub(super) fn rec(digest: Option<&str>, pending: Option<Option<&str>>) -> Record {
        Record {
            workspace: Some("w".into()),
            file: "/f".into(),
            client: "cursor".into(),
            pointer: "/mcpServers/a".into(),
            kind: Kind::Entry,
            server: "a".into(),
            digest: digest.map(str::to_string),
            pending: pending.map(|d| Pending {
                digest: d.map(str::to_string),
            }),
            created_file: false,
            file_digest: None,
            hints: None,
            created_dirs: Vec::new(),
            client_state: Vec::new(),
            members: None,
        }
    }

    #[test]
    fn digest_ignores_key_order_and_whitespace() {
        let a: Value = serde_json::from_str(r#"{"b": 1, "a": [1, {"y":2,"x":1}]}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"a":[1,{"x":1,"y":2}],"b":1}"#).unwrap();
        assert_eq!(digest(&a), digest(&b));
        assert_ne!(digest(&a), digest(&json!({"a": 1})));
        let mut s = String::new();
        canonical(&b, &mut s);
        assert_eq!(s, r#"{"a":[1,{"x":1,"y":2}],"b":1}"#);
    }

    #[test]
    fn ownership_accepts_committed_and_pending_digests() {
        let old = json!({"command": "a"});
        let new = json!({"command": "b"});
        let other = json!({"command": "c"});
        let r = rec(Some(&digest(&old)), Some(Some(&digest(&new))));
        assert_eq!(r.ownership(Some(&old)), Ownership::Intact);
        assert_eq!(r.ownership(Some(&new)), Ownership::Intact);
        assert_eq!(r.ownership(Some(&other)), Ownership::Drifted);
        assert_eq!(r.ownership(None), Ownership::Missing);
        let plain = rec(Some(&digest(&old)), None);
        assert_eq!(plain.ownership(Some(&new)), Ownership::Drifted);
    }

    #[test]
    fn commit_and_rollback() {
        let mut l = Ledger::new("o");
        l.upsert(rec(None, Some(Some("sha256:new"))));
        let mut l2 = l.clone();
        l.commit("w", "/f");
        assert_eq!(l.records[0].digest.as_deref(), Some("sha256:new"));
        assert!(l.records[0].pending.is_none());
        l2.rollback("w", "/f");
        assert!(l2.records.is_empty());
        let mut l3 = Ledger::new("o");
        l3.upsert(rec(Some("sha256:old"), Some(None)));
        l3.commit("w", "/f");
        assert!(
            l3.records.is_empty(),
            "a committed removal forgets the record"
        );
    }

    #[test]
    fn pointers_round_trip() {
        let c = vec![
            "projects".to_string(),
            "/a/b~c".to_string(),
            "mcpServers".to_string(),
        ];
        let p = pointer(&c, "x/y");
        assert_eq!(p, "/projects/~1a~1b~0c/mcpServers/x~1y");
        assert_eq!(split_pointer(&p), Some((c, "x/y".to_string())));
    }

    #[test]
    fn json_round_trip_and_version_check() {
        let mut l = Ledger::new("o");
        l.upsert(rec(Some("sha256:1"), None));
        assert_eq!(Ledger::from_json(&l.to_json()).unwrap(), l);
        assert!(Ledger::from_json(r#"{"format_version":3,"owner":"o","records":[]}"#).is_err());
    }

    #[test]
    fn a_format_1_ledger_is_read_and_claimed_per_file() {
        let v1 = r#"{"format_version":1,"owner":"o","records":[
            {"file":"/p/a.json","client":"cursor","pointer":"/mcpServers/x","kind":"entry","server":"x","digest":"sha256:1"},
            {"file":"/q/b.json","client":"cursor","pointer":"/mcpServers/x","kind":"entry","server":"x","digest":"sha256:2"}]}"#;
        let mut l = Ledger::from_json(v1).unwrap();
        assert_eq!(l.format_version, 2);
        assert_eq!(l.records.len(), 2);
        assert_eq!(
            l.files("/p"),
            Vec::<String>::new(),
            "nothing is claimed yet"
        );
        assert_eq!(l.claim("/p", |f| f.starts_with("/p/")), 1);
        assert_eq!(l.files("/p"), vec!["/p/a.json".to_string()]);
        assert_eq!(l.others("/p", "/q/b.json").count(), 1);
        let again = Ledger::from_json(&l.to_json()).unwrap();
        assert_eq!(again, l, "claims survive a save");
        assert!(
            Ledger::from_json(
                &l.to_json()
                    .replace("\"format_version\": 2", "\"format_version\": 1")
            )
            .is_err()
        );
    }

    #[test]
    fn workspaces_key_records_apart() {
        let mut l = Ledger::new("o");
        let mut a = rec(Some("sha256:1"), None);
        a.workspace = Some("a".into());
        let mut b = a.clone();
        b.workspace = Some("b".into());
        l.upsert(a);
        l.upsert(b);
        assert_eq!(l.records.len(), 2, "one record per workspace");
        l.remove("a", "/f", "/mcpServers/a");
        assert_eq!(l.records.len(), 1);
        assert!(l.find("b", "/f", "/mcpServers/a").is_some());
    }

    #[test]
    fn commit_files_matches_the_model() {
        // Files 0..6 of two workspaces: removals, updates and adds pending in some, a record
        // with neither digest nor intent (a hand-edited ledger) in a file not committed.
        let mut l = Ledger::new("o");
        for f in 0..6 {
            for (p, ws) in [
                ("/mcpServers/a", "w"),
                ("/mcpServers/b", "w"),
                ("/mcpServers/a", "v"),
            ] {
                let mut r = match (f + p.len() + ws.len()) % 3 {
                    0 => rec(Some("sha256:1"), Some(None)),
                    1 => rec(Some("sha256:1"), Some(Some("sha256:2"))),
                    _ => rec(None, Some(Some("sha256:3"))),
                };
                r.file = format!("/f{f}");
                r.pointer = p.into();
                r.workspace = Some(ws.into());
                l.upsert(r);
            }
        }
        let mut odd = rec(None, None);
        odd.file = "/f5".into();
        odd.pointer = "/mcpServers/z".into();
        l.upsert(odd);
        let files = ["/f1", "/f2", "/f4"];
        // The model: each record of "w" in those files takes its pending digest and is dropped
        // when it has none.
        let mut model: Vec<Record> = Vec::new();
        for r in &l.records {
            let mut r = r.clone();
            if files.contains(&r.file.as_str()) && r.workspace.as_deref() == Some("w") {
                if let Some(p) = r.pending.take() {
                    r.digest = p.digest;
                }
                if r.digest.is_none() {
                    continue;
                }
            }
            model.push(r);
        }
        l.commit_files("w", files);
        assert_eq!(l.records, model);
        // Something was removed, something is still pending, the odd record is kept.
        assert!(l.records.len() < 19);
        assert!(l.records.iter().any(|r| r.pending.is_some()));
        assert!(l.find("w", "/f5", "/mcpServers/z").is_some());
        for f in files {
            assert!(l.records.iter().all(|r| r.file != f
                || r.workspace.as_deref() != Some("w")
                || (r.pending.is_none() && r.digest.is_some())));
        }
    }

    #[test]
    fn upsert_all_equals_upserts_one_by_one() {
        let mut base = Ledger::new("o");
        for (f, p) in [("/f1", "/mcpServers/b"), ("/f2", "/mcpServers/a")] {
            let mut r = rec(Some("sha256:1"), None);
            r.file = f.into();
            r.pointer = p.into();
            r.created_file = true;
            r.file_digest = Some("sha256:file".into());
            base.upsert(r);
        }
        // New records out of order, one twice, and two that replace existing ones.
        let mut batch = Vec::new();
        for (i, (f, p)) in [
            ("/f2", "/mcpServers/z"),
            ("/f1", "/mcpServers/b"),
            ("/f0", "/mcpServers/c"),
            ("/f2", "/mcpServers/z"),
            ("/f1", "/mcpServers/a"),
            ("/f2", "/mcpServers/a"),
        ]
        .into_iter()
        .enumerate()
        {
            let mut r = rec(Some(&format!("sha256:{i}")), None);
            r.file = f.into();
            r.pointer = p.into();
            r.created_file = true;
            batch.push(r);
        }
        let mut one = base.clone();
        for r in batch.clone() {
            one.upsert(r);
        }
        base.upsert_all(batch);
        assert_eq!(base.records, one.records);
        assert_eq!(base.records.len(), 5);
        // The later of the two wins; a replaced created file keeps its whole-file digest.
        let z = base.find("w", "/f2", "/mcpServers/z").unwrap();
        assert_eq!(z.digest.as_deref(), Some("sha256:3"));
        let a = base.find("w", "/f2", "/mcpServers/a").unwrap();
        assert_eq!(a.file_digest.as_deref(), Some("sha256:file"));
    }

    #[test]
    fn rollback_drops_only_the_pending_adds_of_that_workspace_and_file() {
        let mut l = Ledger::new("o");
        for (f, ws, digest) in [
            ("/f0", "w", None),
            ("/f1", "w", None),
            ("/f1", "v", None),
            ("/f1", "w", Some("sha256:1")),
            ("/f2", "w", None),
        ] {
            let mut r = rec(digest, Some(Some("sha256:2")));
            r.file = f.into();
            r.workspace = Some(ws.into());
            if digest.is_some() {
                r.pointer = "/mcpServers/b".into();
            }
            l.upsert(r);
        }
        l.rollback("w", "/f1");
        let left: Vec<(&str, &str, &str)> = l
            .records
            .iter()
            .map(|r| {
                (
                    r.file.as_str(),
                    r.workspace.as_deref().unwrap(),
                    r.pointer.as_str(),
                )
            })
            .collect();
        assert_eq!(
            left,
            [
                ("/f0", "w", "/mcpServers/a"),
                ("/f1", "v", "/mcpServers/a"),
                ("/f1", "w", "/mcpServers/b"),
                ("/f2", "w", "/mcpServers/a"),
            ]
        );
        // The kept record of that file lost its intent; the others kept theirs.
        assert!(
            l.find("w", "/f1", "/mcpServers/b")
                .unwrap()
                .pending
                .is_none()
        );
        assert!(
            l.find("w", "/f2", "/mcpServers/a")
                .unwrap()
                .pending
                .is_some()
        );
    }
}
