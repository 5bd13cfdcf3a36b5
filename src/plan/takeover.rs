//! `apply --take-over NAME`: replacing another party's entry, and giving it back.
//!
//! Taking over keeps a [`RestoreCopy`] of the replaced entry: its value and the lines of the
//! file that held it, before and after. Giving it back (the owner no longer declares it:
//! `prune`, or an `apply` without it) splices the old lines in place of the new ones when the
//! new ones are still there exactly once, proven by parsing the result (the entry is the
//! original value and nothing else moved); otherwise it sets the original value (the same
//! entry, laid out by the editor). Pure: the engine loads and saves the copies.

use super::*;
use crate::ledger::RestoreCopy;

/// The copy of the entry at `path` in `before` that `after` (the same document with only that
/// entry replaced) no longer has: the changed lines of each, whole.
pub(super) fn copy_of(
    input: &FileInput,
    before: &Doc,
    after: &Doc,
    path: &[String],
    server: &str,
) -> Option<RestoreCopy> {
    let original = before.get(path)?;
    let old = before.to_bytes();
    let new = after.to_bytes();
    let (old_text, new_text) = changed_lines(&old, &new)?;
    let (container, name) = path.split_at(path.len().checked_sub(1)?);
    Some(RestoreCopy {
        workspace: input.workspace.clone(),
        file: input.key.clone(),
        pointer: ledger::pointer(container, &name[0]),
        server: server.to_string(),
        original_digest: ledger::digest(&original),
        original,
        old_text,
        new_text,
    })
}

/// The lines that differ between `old` and `new` (common whole-line prefix and suffix left
/// out), as text.
fn changed_lines(old: &[u8], new: &[u8]) -> Option<(String, String)> {
    let (mut lo, mut tail) = crate::text::common_ends(old, new);
    while lo > 0 && old[lo - 1] != b'\n' {
        lo -= 1;
    }
    // End on a line end: keep the partial line in the changed region.
    while tail > 0 && old[old.len() - tail - 1] != b'\n' {
        tail -= 1;
    }
    let old_text = String::from_utf8(old[lo..old.len() - tail].to_vec()).ok()?;
    let new_text = String::from_utf8(new[lo..new.len() - tail].to_vec()).ok()?;
    Some((old_text, new_text))
}

/// `doc` with each copy's entry given back, when the entry there is still what the take-over
/// wrote (`records` prove it): the pointers given back, and notes for those given back by
/// value. An entry already back (a run killed after writing it) counts as given back.
pub(super) fn give_back(
    input: &FileInput,
    doc: Doc,
    copies: &[&RestoreCopy],
    notes: &mut Vec<String>,
) -> (Doc, Vec<String>) {
    let mut doc = doc;
    let mut back = Vec::new();
    for c in copies {
        let Some((container, name)) = ledger::split_pointer(&c.pointer) else {
            continue;
        };
        let mut path = container.clone();
        path.push(name.clone());
        let current = doc.get(&path);
        if current.as_ref().map(ledger::digest).as_deref() == Some(c.original_digest.as_str()) {
            back.push(c.pointer.clone());
            continue;
        }
        let ours = input.records.iter().any(|r| {
            r.pointer == c.pointer && r.ownership(current.as_ref()) == ledger::Ownership::Intact
        });
        if !ours {
            continue; // drifted or gone: the removal planning says so
        }
        if let Some(d) = splice(&doc, input.syntax, c, &path) {
            doc = d;
            back.push(c.pointer.clone());
            continue;
        }
        let mut by_value = doc.clone();
        if by_value.upsert(&container, &name, &c.original).is_ok() {
            doc = by_value;
            back.push(c.pointer.clone());
            notes.push(format!(
                "entry `{}` is given back as it was before `--take-over`, by value: the lines around it changed since, so its layout is the editor's",
                c.server
            ));
        }
    }
    (doc, back)
}

/// The copy's old lines in place of its new ones, proven: the result parses, holds the original
/// value at `path`, and is otherwise the document it was.
fn splice(
    doc: &Doc,
    syntax: crate::dialect::Syntax,
    c: &RestoreCopy,
    path: &[String],
) -> Option<Doc> {
    if c.new_text.is_empty() {
        return None;
    }
    let bytes = doc.to_bytes();
    let text = std::str::from_utf8(&bytes).ok()?;
    let mut found = text.match_indices(c.new_text.as_str());
    let (at, _) = found.next()?;
    if found.next().is_some() {
        return None;
    }
    let mut out = String::with_capacity(text.len() + c.old_text.len());
    out.push_str(&text[..at]);
    out.push_str(&c.old_text);
    out.push_str(&text[at + c.new_text.len()..]);
    let spliced = Doc::parse_vec(out.into_bytes(), syntax).ok()?;
    if spliced.get(path).as_ref() != Some(&c.original) {
        return None;
    }
    let mut want = doc.clone();
    let (container, name) = path.split_at(path.len() - 1);
    want.upsert(container, &name[0], &c.original).ok()?;
    (spliced.root() == want.root()).then_some(spliced)
}

/// The action of a take-over.
pub(super) fn action(server: &str, owner: &str, hint: &str) -> Action {
    Action {
        op: Op::TakeOver,
        server: server.to_string(),
        detail: format!(
            "replaces an entry owner `{owner}` did not write{hint}; its text is kept in a restore copy, and prune gives it back"
        ),
    }
}

/// The action of `apply --replace NAME`: another party's entry replaced for good, no copy
/// kept; `keys` are the members replaced (names only).
pub(super) fn replaced(server: &str, owner: &str, keys: &[String]) -> Action {
    Action {
        op: Op::TakeOver,
        server: server.to_string(),
        detail: format!(
            "replaces for good an entry owner `{owner}` did not write (replaced: {}); no copy is kept: the entry is now ours, and prune removes it",
            named(keys)
        ),
    }
}

/// The action of an entry of ours taken back after someone else changed it (`--take-over`
/// on a drifted entry): no restore copy; `keys` are the members replaced.
pub(super) fn taken_back(server: &str, owner: &str, keys: &[String]) -> Action {
    Action {
        op: Op::TakeOver,
        server: server.to_string(),
        detail: format!(
            "takes back the entry owner `{owner}` wrote and someone changed since (replaced: {}); no copy is kept, since it was never another party's",
            named(keys)
        ),
    }
}

/// The keys replaced, quoted (`its layout` when only the layout changed).
fn named(keys: &[String]) -> String {
    if keys.is_empty() {
        return "its layout".to_string();
    }
    keys.iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The top-level members of `found` that `wanted` replaces (differ, added or removed), names
/// only.
pub(super) fn replaced_keys(found: &Value, wanted: &Value) -> Vec<String> {
    let (Some(a), Some(b)) = (found.as_object(), wanted.as_object()) else {
        return Vec::new();
    };
    let mut keys: Vec<String> = a
        .keys()
        .chain(b.keys())
        .filter(|k| a.get(*k) != b.get(*k))
        .cloned()
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

/// The action of an entry given back.
pub(super) fn given_back(server: &str) -> Action {
    Action {
        op: Op::Update,
        server: server.to_string(),
        detail: "given back as it was before `--take-over`".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::changed_lines;

    #[test]
    fn changed_lines_are_whole_lines_even_when_the_old_text_ends_the_new_one() {
        // The common suffix of `ab\n` and `aab\n` is all of the old text; the prefix `a` moves
        // back to its line start: the changed region is both whole texts.
        assert_eq!(
            changed_lines(b"ab\n", b"aab\n"),
            Some(("ab\n".into(), "aab\n".into()))
        );
        assert_eq!(
            changed_lines(b"x\n  \"a\": 1\ny\n", b"x\n  \"a\": 2\ny\n"),
            Some(("  \"a\": 1\n".into(), "  \"a\": 2\n".into()))
        );
    }
}
