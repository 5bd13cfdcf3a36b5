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
//! This module does no I/O; its `store` part loads and saves the JSON text through `fsio`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::text::hex;

mod store;
pub use store::{load, lock_path, path, save};

/// One owner's ledger file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ledger {
    /// Always 1 for this layout.
    pub format_version: u32,
    /// The owner.
    pub owner: String,
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
    /// For a file mcpconf created: `sha256:<hex>` of the *whole file* as mcpconf last left it.
    /// Prune deletes the file only when its bytes still hash to this; otherwise (a comment or
    /// anything else added since) it removes only its entries and keeps the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_digest: Option<String>,
    /// Structure hints (whitespace only, never values) that let removal restore the exact bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Value>,
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
            format_version: 1,
            owner: owner.to_string(),
            records: Vec::new(),
        }
    }

    /// Records of one file.
    pub fn for_file<'a>(&'a self, file: &'a str) -> impl Iterator<Item = &'a Record> + 'a {
        self.records.iter().filter(move |r| r.file == file)
    }

    /// The distinct files with records, in order.
    pub fn files(&self) -> Vec<String> {
        let mut files: Vec<String> = self.records.iter().map(|r| r.file.clone()).collect();
        files.sort();
        files.dedup();
        files
    }

    /// The record at a file and pointer.
    pub fn find(&self, file: &str, pointer: &str) -> Option<&Record> {
        self.records
            .iter()
            .find(|r| r.file == file && r.pointer == pointer)
    }

    /// Insert or replace the record with the same file and pointer. The whole-file digest of a
    /// created file is kept when the new record does not carry one (the planner never knows it).
    pub fn upsert(&mut self, mut record: Record) {
        match self
            .records
            .iter_mut()
            .find(|r| r.file == record.file && r.pointer == record.pointer)
        {
            Some(r) => {
                if record.file_digest.is_none() && record.created_file {
                    record.file_digest = r.file_digest.take();
                }
                *r = record
            }
            None => self.records.push(record),
        }
        self.sort();
    }

    /// Remove the record at a file and pointer.
    pub fn remove(&mut self, file: &str, pointer: &str) {
        self.records
            .retain(|r| !(r.file == file && r.pointer == pointer));
    }

    fn sort(&mut self) {
        self.records
            .sort_by(|a, b| (&a.file, &a.pointer).cmp(&(&b.file, &b.pointer)));
    }

    /// Commit every pending intent of `file` (the write happened): the pending digest becomes
    /// the digest, and records of completed removals disappear.
    pub fn commit(&mut self, file: &str) {
        for r in self.records.iter_mut().filter(|r| r.file == file) {
            if let Some(p) = r.pending.take() {
                r.digest = p.digest;
            }
        }
        self.records
            .retain(|r| r.file != file || r.digest.is_some());
    }

    /// Record the whole-file digest of `file` (as just written) on its created-file records.
    pub fn set_file_digest(&mut self, file: &str, bytes: &[u8]) {
        let d = file_digest(bytes);
        for r in self
            .records
            .iter_mut()
            .filter(|r| r.file == file && r.created_file)
        {
            r.file_digest = Some(d.clone());
        }
    }

    /// Drop every pending intent of `file` (the write did not happen).
    pub fn rollback(&mut self, file: &str) {
        for r in self.records.iter_mut().filter(|r| r.file == file) {
            r.pending = None;
        }
        self.records
            .retain(|r| r.file != file || r.digest.is_some());
    }

    /// Parse a ledger file; `Err` is a sentence.
    pub fn from_json(text: &str) -> Result<Ledger, String> {
        let l: Ledger = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if l.format_version != 1 {
            return Err(format!(
                "ledger format_version {} is not supported by this mcpconf",
                l.format_version
            ));
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
    /// Whether the value found now (`None` = absent) is provably ours.
    pub fn ownership(&self, current: Option<&Value>) -> Ownership {
        let Some(v) = current else {
            return Ownership::Missing;
        };
        let d = digest(v);
        let pending = self.pending.as_ref().and_then(|p| p.digest.as_deref());
        if self.digest.as_deref() == Some(d.as_str()) || pending == Some(d.as_str()) {
            Ownership::Intact
        } else {
            Ownership::Drifted
        }
    }
}

/// `sha256:<hex>` of a whole file's bytes.
pub fn file_digest(bytes: &[u8]) -> String {
    format!("sha256:{}", hex(&Sha256::digest(bytes)))
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

    fn rec(digest: Option<&str>, pending: Option<Option<&str>>) -> Record {
        Record {
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
        l.commit("/f");
        assert_eq!(l.records[0].digest.as_deref(), Some("sha256:new"));
        assert!(l.records[0].pending.is_none());
        l2.rollback("/f");
        assert!(l2.records.is_empty());
        let mut l3 = Ledger::new("o");
        l3.upsert(rec(Some("sha256:old"), Some(None)));
        l3.commit("/f");
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
        assert!(Ledger::from_json(r#"{"format_version":2,"owner":"o","records":[]}"#).is_err());
    }
}
