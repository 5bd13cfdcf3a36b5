//! The only place where splices become a new text: [`commit_local`] applies them and proves the
//! result before it is accepted.

use super::agree::{cross_check, serde_accepts};
use super::api::{EditError, Syntax, internal};
use super::parse::{MemSpan, Mode, ObjSpan, parse_core};
use super::proxy::{PROXY_MIN, Proxy, narrow};
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

/// An edit's proven result: `old[lo..hi]` becomes `mid` (the whole edited object, from its
/// `{` to its `}`, or, for a big object proven through a stand-in, the range its splices
/// cover), and the root's spans become `top`.
pub(super) struct Committed {
    pub(super) lo: usize,
    pub(super) hi: usize,
    pub(super) mid: String,
    pub(super) top: ObjSpan,
    /// For a result proven on a stand-in: the stand-in's new text, the edited object's spans
    /// in it, and where `mid` starts in it (what a later edit inside the new text needs).
    pub(super) stand_in: Option<(String, ObjSpan, usize)>,
}

impl Committed {
    /// Whether `mid` is the whole new text of object `x`.
    pub(super) fn whole(&self, x: &ObjSpan) -> bool {
        self.lo == x.open && self.hi == x.close + 1
    }
}

/// Applies `splices` (all inside object `x`, at nesting level `level`, the root being level 0)
/// and proves the result: the new text of `x` is valid on its own (so the whole document is,
/// the bytes outside `x` being the old ones), serde_json agrees, and below `x` every member
/// except the one on the key path `keys` is byte-identical while the last key holds what
/// `expect` says. Only that object is built, or, when it is big, a stand-in of it (see
/// `proxy`).
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
) -> Result<Committed, EditError> {
    let first = keys.first().copied();
    let keep = |k: &str| Some(k) == first;
    let check = |o: &str, n: &str, ox: ObjSpan, nx: ObjSpan| {
        if members_match(syntax, o, n, ox, nx, keys, expect) {
            Ok(())
        } else {
            Err(internal("the result holds a different value than intended"))
        }
    };
    commit_with(
        syntax, old, old_root, x, x_is_root, level, splices, &keep, &check,
    )
}

/// What a proof checks of an edited object: its old and new text, its old and new members.
type Check<'c> = dyn Fn(&str, &str, ObjSpan, ObjSpan) -> Result<(), EditError> + 'c;

/// The proof that `check` makes of an edit of object `x` (old and new text, old and new
/// members), on the object's new text or on a stand-in of it; members `keep` names stay in
/// the stand-in.
#[allow(clippy::too_many_arguments)]
fn commit_with(
    syntax: Syntax,
    old: &str,
    old_root: &ObjSpan,
    x: &ObjSpan,
    x_is_root: bool,
    level: usize,
    splices: &[Splice],
    keep: &dyn Fn(&str) -> bool,
    check: &Check<'_>,
) -> Result<Committed, EditError> {
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
    let read = |t: &str| {
        shallow(t, 0, syntax, None).ok_or_else(|| internal("the edited object cannot be read"))
    };
    if old_x_text.len() >= PROXY_MIN && !local.is_empty() {
        let old_x = read(old_x_text)?;
        if let Some(p) = Proxy::build(old_x_text, &old_x, &local, keep) {
            let new_p = apply_splices("", &p.text, &p.splices)?;
            let new_x = parse_object(syntax, &new_p, level)?;
            check(&p.text, &new_p, read(&p.text)?, new_x.clone())?;
            let (a, z, mid) = narrow(old_x_text, &local)?;
            // The stand-in's positions were mapped right: its range says the same.
            let (pa, pz, pmid) = narrow(&p.text, &p.splices)?;
            if pz - pa == z - a && pmid != mid {
                return Err(internal("the stand-in of the object disagrees"));
            }
            let delta = mid.len() as isize - (z - a) as isize;
            let new_x_p = new_x.clone();
            let top = if x_is_root {
                moved(p.real_spans(new_x), 0, x.open as isize)
            } else {
                moved(old_root.clone(), x.close + 1, delta)
            };
            return Ok(Committed {
                lo: x.open + a,
                hi: x.open + z,
                mid,
                top,
                stand_in: Some((new_p, new_x_p, pa)),
            });
        }
    }
    let new_x_text = apply_splices("", old_x_text, &local)?;
    let new_x = parse_object(syntax, &new_x_text, level)?;
    // The old object read from its own text, so that both sides are counted alike.
    check(old_x_text, &new_x_text, read(old_x_text)?, new_x.clone())?;
    let top = root_after(
        old_root,
        x,
        x_is_root,
        new_x,
        old_x_text.len(),
        new_x_text.len(),
    );
    Ok(Committed {
        lo: x.open,
        hi: x.close + 1,
        mid: new_x_text,
        top,
        stand_in: None,
    })
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

/// [`commit_local`] for a batch of member edits of object `x` (see
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
) -> Result<Committed, EditError> {
    let named: HashMap<&str, Option<&Value>> = edits
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_ref()))
        .collect();
    let keep = |k: &str| named.contains_key(k);
    let check = |old: &str, new: &str, old_x: ObjSpan, new_x: ObjSpan| {
        let kept = |m: &&MemSpan| !named.contains_key(m.key.as_str());
        if !same_members(
            old,
            old_x.members.iter().filter(kept),
            new,
            new_x.members.iter().filter(kept),
        ) {
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
        Ok(())
    };
    commit_with(
        syntax, old, old_root, x, x_is_root, level, splices, &keep, &check,
    )
}

/// Whether two runs of members have the same keys in the same order and byte-identical values
/// (compared in place: a big value is not copied).
fn same_members<'m>(
    old: &str,
    a: impl Iterator<Item = &'m MemSpan>,
    new: &str,
    b: impl Iterator<Item = &'m MemSpan>,
) -> bool {
    let mut b = b;
    for x in a {
        let Some(y) = b.next() else { return false };
        if x.key != y.key
            || old.get(x.value_start..x.value_end) != new.get(y.value_start..y.value_end)
        {
            return false;
        }
    }
    b.next().is_none()
}

/// `o` with every position at or after `from` moved by `delta`.
pub(super) fn moved(o: ObjSpan, from: usize, delta: isize) -> ObjSpan {
    moved_by(o, |p| {
        if p >= from {
            p.saturating_add_signed(delta)
        } else {
            p
        }
    })
}

/// `o` with every position mapped by `f`.
pub(super) fn moved_by(mut o: ObjSpan, mut f: impl FnMut(usize) -> usize) -> ObjSpan {
    o.open = f(o.open);
    o.close = f(o.close);
    for m in &mut o.members {
        m.key_start = f(m.key_start);
        m.key_end = f(m.key_end);
        m.value_start = f(m.value_start);
        m.value_end = f(m.value_end);
        m.comma = m.comma.map(&mut f);
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

/// Member-wise proof of an edit below object `old_obj` / `new_obj` (see [`commit_local`]).
fn members_match(
    syntax: Syntax,
    old: &str,
    new: &str,
    old_obj: ObjSpan,
    new_obj: ObjSpan,
    keys: &[&str],
    expect: Expect<'_>,
) -> bool {
    if keys.is_empty() {
        return same_members(old, old_obj.members.iter(), new, new_obj.members.iter());
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
pub(super) fn apply_splices(
    prefix: &str,
    text: &str,
    splices: &[Splice],
) -> Result<String, EditError> {
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
