//! What mcpconf remembers about a file rather than about one entry in it — its *marks*: that
//! mcpconf created the file, the containers it created there (the undo hints of the upserts
//! that made them), the directories it created for it, and the whole-file digest of a created
//! file while every byte in it is mcpconf's.
//!
//! Marks are a property of the file, so every entry record of the file carries all of them:
//! they are gathered from every record of the file (this workspace's, the other workspaces'
//! of the owner, and other owners' — read only for this) and written onto each entry record
//! this plan sets or keeps. The record that held a mark can then go (its entry removed, its
//! workspace pruned, its owner gone) without the mark going with it, and whoever removes the
//! last entry finds the containers and the file mcpconf created and gives them back.
//!
//! A created file is deleted only when *every byte in it is mcpconf's*, proven one of two
//! ways, never by re-recording a digest over bytes that might be the user's:
//!
//! - its digest is one recorded while that held (a new file's, and after each write that
//!   started from such a file: [`next_file_digest`]);
//! - or it is, whitespace aside, what mcpconf alone writes: the new-file text with the entries
//!   of the file's records, in their order, inserted by the same editor ([`rebuilt_equal`]);
//!   a comment, a key or a table of the user's is never whitespace.
//!
//! and once mcpconf's entries and the empty containers are removed, what is left is exactly
//! the text a new file starts with.

use serde_json::Value;

use super::{FileInput, LedgerOp, new_file_text};
use crate::document::Doc;
use crate::ledger::{self, Kind, Record};

/// The marks of one file.
pub(super) struct Marks {
    /// mcpconf created the file (any party's record says so).
    pub(super) created_file: bool,
    /// The undo hints of every container mcpconf created in the file (merged).
    pub(super) hints: Option<Value>,
    /// The directories mcpconf created for the file.
    pub(super) dirs: Vec<String>,
    /// Whole-file digests recorded while every byte was mcpconf's.
    digests: Vec<String>,
}

fn all_records(input: &FileInput) -> impl Iterator<Item = &Record> {
    input
        .records
        .iter()
        .chain(&input.others)
        .chain(&input.foreign)
}

impl Marks {
    pub(super) fn of(input: &FileInput) -> Marks {
        let created_file = all_records(input).any(|r| r.created_file);
        let mut hints: Vec<Value> = all_records(input)
            .filter(|r| r.kind == Kind::Entry)
            .filter_map(|r| r.hints.clone())
            .collect();
        if created_file {
            // In a file mcpconf created, every container on its entries' paths is mcpconf's:
            // the hints a new file's upsert gives (recomputed, so records written before hints
            // were recorded for new files, or an intent a kill left, still give them back).
            for c in containers(input) {
                if let Ok(mut d) = Doc::new_file(input.syntax, new_file_text(input))
                    && let Ok(Some(h)) = d.upsert(&c, "_", &Value::Object(Default::default()))
                {
                    hints.push(h);
                }
            }
        }
        let mut dirs: Vec<String> = all_records(input)
            .flat_map(|r| r.created_dirs.iter().cloned())
            .collect();
        dirs.sort();
        dirs.dedup();
        let mut digests: Vec<String> = all_records(input)
            .filter(|r| r.created_file)
            .filter_map(|r| r.file_digest.clone())
            .collect();
        digests.sort();
        digests.dedup();
        Marks {
            created_file,
            hints: merge_hints(&hints),
            dirs,
            digests,
        }
    }

    /// Gives every entry record this plan sets the file's marks, and sets those this
    /// workspace keeps unchanged when their marks differ (so a no-op apply remembers them).
    pub(super) fn stamp(&self, input: &FileInput, ops: &mut Vec<LedgerOp>) {
        // Hints the plan's own upserts returned (containers created now) join the file's.
        let mut hints: Vec<Value> = self.hints.iter().cloned().collect();
        for op in ops.iter() {
            if let LedgerOp::Set(r) = op
                && r.kind == Kind::Entry
                && let Some(h) = &r.hints
            {
                hints.push(h.clone());
            }
        }
        let hints = merge_hints(&hints);
        let give = |r: &mut Record| {
            r.created_file = self.created_file;
            r.hints = hints.clone();
            r.created_dirs = self.dirs.clone();
        };
        let mut touched: std::collections::HashSet<String> = std::collections::HashSet::new();
        for op in ops.iter_mut() {
            match op {
                LedgerOp::Set(r) => {
                    touched.insert(r.pointer.clone());
                    if r.kind == Kind::Entry {
                        give(r);
                    }
                }
                LedgerOp::Remove(p) => {
                    touched.insert(p.clone());
                }
            }
        }
        let wanted: std::collections::HashSet<String> = input
            .wants
            .iter()
            .map(|w| ledger::pointer(&w.container, &w.server))
            .collect();
        for r in input.records.iter().filter(|r| {
            r.kind == Kind::Entry && wanted.contains(&r.pointer) && !touched.contains(&r.pointer)
        }) {
            let mut kept = r.clone();
            give(&mut kept);
            if &kept != r {
                ops.push(LedgerOp::Set(kept));
            }
        }
    }

    /// Whether every byte of `doc` (the file as read) is provably mcpconf's.
    pub(super) fn all_ours(&self, input: &FileInput, doc: &Doc) -> bool {
        self.created_file
            && (self
                .digests
                .contains(&ledger::file_digest(doc.bytes())) // recorded while all ours
                || rebuilt_equal(input, doc))
    }
}

/// The containers of the file's entries (records and wants), each once.
fn containers(input: &FileInput) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    let from_records = all_records(input)
        .filter(|r| r.kind == Kind::Entry)
        .filter_map(|r| ledger::split_pointer(&r.pointer).map(|(c, _)| c));
    for c in from_records.chain(input.wants.iter().map(|w| w.container.clone())) {
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// Whether `doc` is, whitespace aside, the new-file text with the entries at the file's record
/// pointers inserted in their order by mcpconf's editor: then everything in it is mcpconf's.
fn rebuilt_equal(input: &FileInput, doc: &Doc) -> bool {
    let Ok(mut built) = Doc::new_file(input.syntax, new_file_text(input)) else {
        return false;
    };
    let mut entries: Vec<(Vec<String>, usize, String, Value)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for r in all_records(input).filter(|r| r.kind == Kind::Entry) {
        if !seen.insert(r.pointer.as_str()) {
            continue;
        }
        let Some((c, name)) = ledger::split_pointer(&r.pointer) else {
            continue;
        };
        let mut path = c.clone();
        path.push(name.clone());
        if let (Some(v), Some(at)) = (doc.get(&path), doc.position(&c, &name)) {
            entries.push((c, at, name, v));
        }
    }
    entries.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    let mut i = 0;
    while i < entries.len() {
        // One container at a time: the first entry creates it, the rest go in in one pass.
        let c = entries[i].0.clone();
        let (_, _, name, v) = &entries[i];
        if built.upsert(&c, name, v).is_err() {
            return false;
        }
        let mut batch = Vec::new();
        i += 1;
        while i < entries.len() && entries[i].0 == c {
            batch.push((entries[i].2.clone(), Some(entries[i].3.clone())));
            i += 1;
        }
        if !batch.is_empty() && built.edit_entries(&c, &batch).is_err() {
            return false;
        }
    }
    // Whitespace aside: a party that removed its entry before may leave a separator line, and
    // whitespace holds nothing of the user's (a comment or a key does, and stays).
    let text = |b: &[u8]| -> Vec<u8> {
        b.iter()
            .copied()
            .filter(|c| !matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
            .collect()
    };
    text(&built.to_bytes()) == text(doc.bytes())
}

/// Whether `doc` (after this plan's edits) holds nothing but what a new file of the client
/// starts with.
pub(super) fn only_new_file_text(input: &FileInput, doc: &Doc) -> bool {
    // White space outside strings holds nothing of the user's (a final newline, trailing
    // spaces, CRLF from an editor's reformat): a created file that is only the new file's text
    // so reformatted is still only mcpconf's.
    Doc::new_file(input.syntax, new_file_text(input))
        .is_ok_and(|e| outside_strings(&e.to_bytes()) == outside_strings(&doc.to_bytes()))
}

/// The bytes without the white space that stands outside quoted strings (`"…"` with its
/// escapes, `'…'`); a byte order mark counts as white space.
fn outside_strings(b: &[u8]) -> Vec<u8> {
    let b = b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(b);
    let mut out = Vec::with_capacity(b.len());
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    for &c in b {
        match quote {
            Some(q) => {
                out.push(c);
                if escaped {
                    escaped = false;
                } else if c == b'\\' && q == b'"' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None if c.is_ascii_whitespace() => {}
            None => {
                if c == b'"' || c == b'\'' {
                    quote = Some(c);
                }
                out.push(c);
            }
        }
    }
    out
}

/// The whole-file digest to record once `new` is written: the file's, while every byte in it
/// is mcpconf's (it was before this write); `None` once anything else is in it.
pub(super) fn next_file_digest(
    all_ours_before: bool,
    new: &crate::text::Content,
) -> Option<String> {
    all_ours_before.then(|| ledger::file_digest_of(&new.pieces()))
}

/// Hints of several records as one list (each record's hints are a JSON array).
pub(super) fn merge_hints(hints: &[Value]) -> Option<Value> {
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
            other => {
                if !all.contains(other) {
                    all.push(other.clone());
                }
            }
        }
    }
    (!all.is_empty()).then_some(Value::Array(all))
}
