//! The only place where splices become a new text: [`commit_edit`] applies them and proves the
//! result before it is accepted.

use super::api::{EditError, Syntax, internal};
use super::parse::{Mode, ObjSpan, cross_check, parse_core, serde_accepts};
use super::scan::{shallow, value_at};
use serde_json::Value;
use std::collections::HashMap;

/// What an edit must have done to the member at the end of its key path.
#[derive(Clone, Copy)]
pub(super) enum Expect<'v> {
    Set(&'v Value),
    Removed,
    Same,
}

/// No longer used: serde_json read the whole file up to this size when it was read; each
/// edited object is cross-checked instead (kept for callers that name it).
pub const SERDE_WHOLE_FILE: usize = 8 << 20;

/// Below this size the edited object is also read by serde_json and both values compared;
/// above it serde_json only has to accept it.
const CROSS_CHECK_VALUES: usize = 4 << 20;

/// Applies `splices` (all inside object `x`, at nesting level `level`, the root being level 0)
/// and proves the result: the new text of `x` is valid on its own (so the whole document is,
/// the bytes outside `x` being the old ones), serde_json agrees, and below `x` every member
/// except the one on the key path `keys` is byte-identical while the last key holds what
/// `expect` says. Returns `x`'s new text (from its `{` to its `}`, which replaces
/// `old[x.open..=x.close]`: only that object is built) and the new root spans.
#[allow(clippy::too_many_arguments)]
pub(super) fn commit_local(
    syntax: Syntax,
    old: &str,
    old_root: &ObjSpan,
    x: &ObjSpan,
    x_is_root: bool,
    level: usize,
    splices: &[Splice],
    keys: &[&str],
    expect: Expect<'_>,
) -> Result<(String, ObjSpan), EditError> {
    let (old_x_text, new_x_text, old_x, new_x) = splice_object(syntax, old, x, level, splices)?;
    if !members_match(
        syntax,
        old_x_text,
        &new_x_text,
        old_x,
        new_x.clone(),
        keys,
        expect,
    ) {
        return Err(internal("the result holds a different value than intended"));
    }
    let root = root_after(
        old_root,
        x,
        x_is_root,
        new_x,
        old_x_text.len(),
        new_x_text.len(),
    );
    Ok((new_x_text, root))
}

/// [`commit_local`] with the whole new buffer built (`prefix`, the BOM, then the text with
/// `x`'s bytes replaced): for the steps of a removal, which read the result whole.
#[allow(clippy::too_many_arguments)]
pub(super) fn commit_edit(
    syntax: Syntax,
    prefix: &str,
    old: &str,
    old_root: &ObjSpan,
    x: &ObjSpan,
    x_is_root: bool,
    level: usize,
    splices: &[Splice],
    keys: &[&str],
    expect: Expect<'_>,
) -> Result<(String, ObjSpan), EditError> {
    let (mid, root) = commit_local(
        syntax, old, old_root, x, x_is_root, level, splices, keys, expect,
    )?;
    let (before, after) = (
        old.get(..x.open)
            .ok_or_else(|| internal("edit out of range"))?,
        old.get(x.close + 1..)
            .ok_or_else(|| internal("edit out of range"))?,
    );
    let mut buf = String::with_capacity(prefix.len() + before.len() + mid.len() + after.len());
    buf.push_str(prefix);
    buf.push_str(before);
    buf.push_str(&mid);
    buf.push_str(after);
    Ok((buf, root))
}

/// The root's spans after object `x` (old length `old_len`) became `new_x` (relative to its
/// own text, of length `new_len`).
fn root_after(
    old_root: &ObjSpan,
    x: &ObjSpan,
    x_is_root: bool,
    new_x: ObjSpan,
    old_len: usize,
    new_len: usize,
) -> ObjSpan {
    if x_is_root {
        // The object is the root: its new spans, moved to where it starts.
        moved(new_x, 0, x.open as isize)
    } else {
        moved(
            old_root.clone(),
            x.close + 1,
            new_len as isize - old_len as isize,
        )
    }
}

/// Applies `splices` (all strictly inside object `x`) to `x`'s text alone and parses the result
/// on its own at nesting level `level` (serde_json agreeing). Returns the old and new texts of
/// the object and their members, positions relative to those texts.
fn splice_object<'o>(
    syntax: Syntax,
    old: &'o str,
    x: &ObjSpan,
    level: usize,
    splices: &[Splice],
) -> Result<(&'o str, String, ObjSpan, ObjSpan), EditError> {
    let lo = splices.iter().map(|s| s.start).min().unwrap_or(x.close);
    let hi = splices.iter().map(|s| s.end).max().unwrap_or(x.close);
    if lo <= x.open || hi > x.close {
        return Err(internal("an edit reaches outside its object"));
    }
    let old_x_text = old
        .get(x.open..=x.close)
        .ok_or_else(|| internal("edit out of range"))?;
    // The splices, relative to the object's text.
    let local: Vec<Splice> = splices
        .iter()
        .map(|s| Splice::new(s.start - x.open, s.end - x.open, s.with.clone()))
        .collect();
    let new_x_text = apply_splices("", old_x_text, &local)?;
    let new_x = parse_object(syntax, &new_x_text, level)?;
    // The old object read from its own text, so that both sides are counted alike.
    let old_x = shallow(old_x_text, 0, syntax, None)
        .ok_or_else(|| internal("the edited object cannot be read"))?;
    Ok((old_x_text, new_x_text, old_x, new_x))
}

/// [`commit_edit`] for a batch of member edits of object `x` (see
/// [`super::JsonDoc::edit_members`]): below `x`, every member not named in `edits` is
/// byte-identical and in the same order, each `Some` member holds its value and each `None`
/// member is gone.
///
/// Only `x` is rebuilt and read: the result is `x`'s new text (from its `{` to its `}`), which
/// replaces `old[x.open..=x.close]` in the file (every other byte is the old one, shared, by
/// construction), and the new root spans.
#[allow(clippy::too_many_arguments)]
pub(super) fn commit_members(
    syntax: Syntax,
    old: &str,
    old_root: &ObjSpan,
    x: &ObjSpan,
    x_is_root: bool,
    level: usize,
    splices: &[Splice],
    edits: &[(String, Option<Value>)],
) -> Result<(String, ObjSpan), EditError> {
    let (old_x_text, new_x_text, old_x, new_x) = splice_object(syntax, old, x, level, splices)?;
    let (old, new) = (old_x_text, new_x_text.as_str());
    let named: HashMap<&str, Option<&Value>> = edits
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_ref()))
        .collect();
    let untouched = |text: &'_ str, o: &ObjSpan| -> Vec<(String, Option<String>)> {
        o.members
            .iter()
            .filter(|m| !named.contains_key(m.key.as_str()))
            .map(|m| {
                (
                    m.key.clone(),
                    text.get(m.value_start..m.value_end).map(str::to_owned),
                )
            })
            .collect()
    };
    if untouched(old, &old_x) != untouched(new, &new_x) {
        return Err(internal("a member the batch does not name changed"));
    }
    let mut found = 0usize;
    for m in &new_x.members {
        match named.get(m.key.as_str()) {
            None => {}
            Some(None) => return Err(internal("a removed member is still there")),
            Some(Some(v)) => {
                if value_at(new, m.value_start, m.value_end, syntax).as_ref() != Some(*v) {
                    return Err(internal("the result holds a different value than intended"));
                }
                found += 1;
            }
        }
    }
    if found != named.values().filter(|v| v.is_some()).count() {
        return Err(internal("a set member is missing"));
    }
    let root = root_after(old_root, x, x_is_root, new_x, old.len(), new.len());
    Ok((new_x_text, root))
}

/// `o` with every position at or after `from` moved by `delta`.
pub(super) fn moved(mut o: ObjSpan, from: usize, delta: isize) -> ObjSpan {
    let mv = |p: usize| {
        if p >= from {
            p.saturating_add_signed(delta)
        } else {
            p
        }
    };
    o.open = mv(o.open);
    o.close = mv(o.close);
    for m in &mut o.members {
        m.key_start = mv(m.key_start);
        m.key_end = mv(m.key_end);
        m.value_start = mv(m.value_start);
        m.value_end = mv(m.value_end);
        m.comma = m.comma.map(mv);
    }
    o
}

/// Parses the new text of an edited object on its own (`level` deep), with serde_json's
/// agreement, and reads its members.
fn parse_object(syntax: Syntax, span: &str, level: usize) -> Result<ObjSpan, EditError> {
    let build = span.len() <= CROSS_CHECK_VALUES;
    let mode = Mode {
        build,
        any_root: true,
        base_depth: level,
        span_keys: true,
    };
    let parsed = parse_core(span, syntax, mode)
        .map_err(|e| internal(&format!("the result does not parse: {}", e.message)))?;
    if !span.starts_with('{') {
        return Err(internal("the edited object is no longer an object"));
    }
    if build {
        cross_check(span, &parsed).map_err(|e| internal(&e.message))?;
    } else {
        serde_accepts(span, &parsed.blanks).map_err(|e| internal(&e.message))?;
    }
    shallow(span, 0, syntax, None).ok_or_else(|| internal("the edited object cannot be read"))
}

/// Member-wise proof of an edit below object `old_obj` / `new_obj` (see [`commit_edit`]).
fn members_match(
    syntax: Syntax,
    old: &str,
    new: &str,
    old_obj: ObjSpan,
    new_obj: ObjSpan,
    keys: &[&str],
    expect: Expect<'_>,
) -> bool {
    let others = |text: &str, o: &ObjSpan, skip: Option<&str>| -> Vec<(String, Option<String>)> {
        o.members
            .iter()
            .filter(|m| Some(m.key.as_str()) != skip)
            .map(|m| {
                (
                    m.key.clone(),
                    text.get(m.value_start..m.value_end).map(str::to_owned),
                )
            })
            .collect()
    };
    if keys.is_empty() {
        return others(old, &old_obj, None) == others(new, &new_obj, None);
    }
    let mut old_obj = Some(old_obj);
    let mut new_obj = new_obj;
    for (i, key) in keys.iter().enumerate() {
        let last = i + 1 == keys.len();
        let nm = new_obj.members.iter().find(|m| m.key == *key).cloned();
        match &old_obj {
            None => {
                // Created by this edit: holds exactly the path key.
                if new_obj.members.len() != 1 {
                    return false;
                }
                let Some(nm) = nm else { return false };
                if last {
                    return match expect {
                        Expect::Set(v) => {
                            value_at(new, nm.value_start, nm.value_end, syntax).as_ref() == Some(v)
                        }
                        _ => false,
                    };
                }
                let Some(child) = shallow(new, nm.value_start, syntax, None) else {
                    return false;
                };
                new_obj = child;
            }
            Some(o) => {
                // Byte-identical values prove equal values without building them.
                let same = o.members.iter().filter(|m| m.key != *key).count()
                    == new_obj.members.iter().filter(|m| m.key != *key).count()
                    && o.members
                        .iter()
                        .filter(|m| m.key != *key)
                        .zip(new_obj.members.iter().filter(|m| m.key != *key))
                        .all(|(a, b)| {
                            a.key == b.key
                                && old.get(a.value_start..a.value_end)
                                    == new.get(b.value_start..b.value_end)
                        });
                if !same {
                    return false;
                }
                let om = o.members.iter().find(|m| m.key == *key).cloned();
                if last {
                    return match expect {
                        Expect::Set(v) => nm.is_some_and(|nm| {
                            value_at(new, nm.value_start, nm.value_end, syntax).as_ref() == Some(v)
                        }),
                        Expect::Removed => om.is_some() && nm.is_none(),
                        Expect::Same => match (om, nm) {
                            (None, None) => true,
                            (Some(a), Some(b)) => {
                                old.get(a.value_start..a.value_end)
                                    == new.get(b.value_start..b.value_end)
                            }
                            _ => false,
                        },
                    };
                }
                match (om, nm) {
                    (Some(om), Some(nm)) => {
                        let (Some(oc), Some(nc)) = (
                            shallow(old, om.value_start, syntax, None),
                            shallow(new, nm.value_start, syntax, None),
                        ) else {
                            return false;
                        };
                        old_obj = Some(oc);
                        new_obj = nc;
                    }
                    (None, Some(nm)) if matches!(expect, Expect::Set(_)) => {
                        let Some(nc) = shallow(new, nm.value_start, syntax, None) else {
                            return false;
                        };
                        old_obj = None;
                        new_obj = nc;
                    }
                    _ => return false,
                }
            }
        }
    }
    false
}

// ---------------------------------------------------------------------------------------------
// Editing
// ---------------------------------------------------------------------------------------------

/// One replacement of `text[start..end]`.
#[derive(Debug, Clone)]
pub(super) struct Splice {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) with: String,
}

impl Splice {
    pub(super) fn new(start: usize, end: usize, with: String) -> Splice {
        Splice { start, end, with }
    }
}

/// Applies non-overlapping splices (any order; equal positions keep their given order) to
/// `text`, into one new buffer that starts with `prefix`.
fn apply_splices(prefix: &str, text: &str, splices: &[Splice]) -> Result<String, EditError> {
    let mut sorted: Vec<&Splice> = splices.iter().collect();
    sorted.sort_by_key(|s| (s.start, s.end));
    let grow: usize = splices.iter().map(|s| s.with.len()).sum();
    let mut out = String::with_capacity(prefix.len() + text.len() + grow);
    out.push_str(prefix);
    let mut at = 0usize;
    for s in sorted {
        if s.start < at || s.end < s.start {
            return Err(internal("overlapping edits"));
        }
        out.push_str(
            text.get(at..s.start)
                .ok_or_else(|| internal("edit out of range"))?,
        );
        out.push_str(&s.with);
        at = s.end;
    }
    out.push_str(
        text.get(at..)
            .ok_or_else(|| internal("edit out of range"))?,
    );
    Ok(out)
}
