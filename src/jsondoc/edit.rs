//! Edits: [`JsonDoc::upsert`] and [`JsonDoc::remove`] plan splices from the parsed spans and
//! hand them to `verify`, which alone applies them and proves the result.

use crate::diag::Code;

use serde_json::{Map, Value};

use super::api::EditError;
use super::api::Syntax;
use super::api::{JsonDoc, MAX_DEPTH, UndoHint, edit_err_at, internal, show_path};
use super::layout::{
    Gap, Layout, Style, gap_items, json_string, line_indent, own_line_end, own_line_indent,
    own_line_start, write_value, ws_run_start,
};
use super::parse::{ObjSpan, Tree, is_ws};
use super::scan::value_at;
use super::verify::{Expect, Splice, commit_local};
use super::view::{Landing, View};

impl JsonDoc {
    /// Sets `name` inside the object at key path `container` (e.g. `["mcpServers"]` or
    /// `["projects", "/abs/dir", "mcpServers"]`), creating missing containers as objects.
    ///
    /// If `name` exists only its value's bytes are replaced; otherwise the entry is appended after the
    /// last entry, in the object's layout (one-line or multi-line) and the file's indentation, newline,
    /// colon spacing and trailing-comma style. Returns the hints that [`JsonDoc::remove`] needs to
    /// restore the exact original bytes (empty when nothing had to be created).
    ///
    /// Errors: `not-an-object` if a container on the path exists but is not an object, `too-deep`,
    /// `internal-edit-error`. On error the document is unchanged.
    pub fn upsert(
        &mut self,
        container: &[String],
        name: &str,
        value: &Value,
    ) -> Result<Vec<UndoHint>, EditError> {
        let depth = container.len() + 1 + value_depth(value);
        if depth > MAX_DEPTH {
            return Err(edit_err_at(
                Code::TooDeep,
                format!(
                    "the entry would be nested {depth} levels deep, more than the limit of {MAX_DEPTH}"
                ),
                1,
                1,
            ));
        }
        let v = self.view_for(container, &[name]);
        let Some((landing, hints)) = self.plan_upsert(&v, container, name, value)? else {
            return Ok(Vec::new());
        };
        drop(v);
        self.land(landing)?;
        Ok(hints)
    }

    /// The edit [`JsonDoc::upsert`] makes, read from view `v` (`None`: the entry already
    /// holds the value).
    fn plan_upsert(
        &self,
        v: &View<'_>,
        container: &[String],
        name: &str,
        value: &Value,
    ) -> Result<Option<(Landing, Vec<UndoHint>)>, EditError> {
        let text: &str = &v.text;
        let rel = container.get(v.base..).unwrap_or(&[]);
        let tree = v.spine(container);
        // Walk the existing part of the container path.
        let mut obj = 0usize;
        let mut existing = 0usize;
        for key in rel {
            let Some(o) = tree.objs.get(obj) else {
                return Err(internal("object index out of range"));
            };
            match o.members.iter().find(|m| &m.key == key) {
                Some(m) => match m.obj {
                    Some(child) => {
                        obj = child;
                        existing += 1;
                    }
                    None => {
                        let (line, column) = self.view_line_col(v.shift, m.value_start);
                        return Err(edit_err_at(
                            Code::NotAnObject,
                            format!(
                                "`{}` is not an object, so the entry cannot be added inside it",
                                show_path(container.get(..=v.base + existing).unwrap_or(container))
                            ),
                            line,
                            column,
                        ));
                    }
                },
                None => break,
            }
        }
        let style = &v.style;
        let depth = v.base + existing;
        let mut hints = Vec::new();
        let splices;
        if existing == rel.len() {
            let Some(o) = tree.objs.get(obj) else {
                return Err(internal("object index out of range"));
            };
            if let Some(m) = o.members.iter().find(|m| m.key == name) {
                if value_at(text, m.value_start, m.value_end, self.syntax).as_ref() == Some(value) {
                    // Already there: leave the user's spelling of it alone.
                    return Ok(None);
                }
                // Replace the value only.
                let layout = Layout::for_object(text, &tree, obj, &style.outer);
                let indent = own_line_indent(text.as_bytes(), m.key_start)
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("{}{}", line_indent(text, o.open), style.unit));
                let mut out = String::new();
                write_value(&mut out, value, &layout, &indent, style)?;
                splices = vec![Splice::new(m.value_start, m.value_end, out)];
            } else {
                let (s, empty) = insert_member(text, &tree, obj, name, value, style)?;
                if let Some(inner) = empty {
                    hints.push(UndoHint::EmptyInner {
                        path: container.to_vec(),
                        inner,
                    });
                }
                splices = s;
            }
        } else {
            // Build {missing2: {...: {name: value}}} and insert it as member `missing1`.
            let (created, below) = container.split_at(depth);
            let Some((first, rest)) = below.split_first() else {
                return Err(internal("empty missing path"));
            };
            let mut m = Map::new();
            m.insert(name.to_owned(), value.clone());
            let mut nested = Value::Object(m);
            for key in rest.iter().rev() {
                let mut m = Map::new();
                m.insert(key.clone(), nested);
                nested = Value::Object(m);
            }
            let (s, empty) = insert_member(text, &tree, obj, first, &nested, style)?;
            if let Some(inner) = empty {
                hints.push(UndoHint::EmptyInner {
                    path: created.to_vec(),
                    inner,
                });
            }
            let mut path = created.to_vec();
            path.push(first.clone());
            hints.push(UndoHint::Created { path });
            splices = s;
        }
        let mut keys: Vec<&str> = container
            .get(depth..)
            .unwrap_or(&[])
            .iter()
            .map(String::as_str)
            .collect();
        keys.push(name);
        let x = tree
            .objs
            .get(obj)
            .ok_or_else(|| internal("object index out of range"))?;
        let c = commit_local(
            self.syntax,
            text,
            &v.root,
            x,
            obj == 0,
            depth,
            &splices,
            &keys,
            Expect::Set(value),
        )?;
        let path = container.get(..depth).unwrap_or(&[]);
        let inner = container.get(depth..).unwrap_or(&[]);
        Ok(Some((Landing::new(v, &tree, obj, path, inner, c)?, hints)))
    }

    /// Replaces the value of member `name` of the object at `container` by `text` (a JSON
    /// value in this document's syntax, written as the caller wants it: a grant array with one
    /// element more, in its own layout), proven like every edit: the member then holds `want`
    /// and every other byte is the old one. Errors: `not-found`, `internal-edit-error`; the
    /// document is unchanged then.
    pub fn replace_value(
        &mut self,
        container: &[String],
        name: &str,
        text: &str,
        want: &Value,
    ) -> Result<(), EditError> {
        let missing = || {
            edit_err_at(
                Code::NotFound,
                format!("there is no entry `{name}` in `{}`", show_path(container)),
                1,
                1,
            )
        };
        self.edit_object(container, &[name], Expect::Set(want), missing, |_, o| {
            let m = o
                .members
                .iter()
                .find(|m| m.key == name)
                .ok_or_else(missing)?;
            Ok(Some(vec![Splice::new(
                m.value_start,
                m.value_end,
                text.to_owned(),
            )]))
        })
    }

    /// An edit of the existing object at `container`, read through the view for its members
    /// `keys`: `plan` gives its splices (`None`: nothing to do) from the view's text and the
    /// object, which are proven ([`commit_local`] with `keys` and `expect`) and landed.
    /// `missing` is the error when there is no such object.
    fn edit_object(
        &mut self,
        container: &[String],
        keys: &[&str],
        expect: Expect<'_>,
        missing: impl FnOnce() -> EditError,
        plan: impl FnOnce(&str, &ObjSpan) -> Result<Option<Vec<Splice>>, EditError>,
    ) -> Result<(), EditError> {
        let v = self.view_for(container, keys);
        let Some((tree, obj)) = v.object(container) else {
            return Err(missing());
        };
        let o = tree
            .objs
            .get(obj)
            .ok_or_else(|| internal("object index out of range"))?;
        let Some(splices) = plan(&v.text, o)? else {
            return Ok(());
        };
        let l = step(
            self.syntax,
            &v,
            &splices,
            &tree,
            obj,
            container,
            keys,
            expect,
        )?;
        drop(v);
        self.land(l)
    }

    /// Removes `name` from the object at `container`.
    ///
    /// `hints` are the ones returned by the upsert that added the entry (passing the union of the hints
    /// of several upserts into the same container is also fine). With them, objects that the upsert
    /// created are deleted again once empty, and an object that was empty gets its original inner
    /// whitespace back, so `remove(upsert(doc))` is byte-identical to `doc`.
    ///
    /// Removal of an entry keeps the comments of its neighbours; a comment on the entry's own line(s)
    /// goes with it. Errors: `not-found` (no such container or entry; nothing changed),
    /// `not-an-object`, `invalid-hint`, `internal-edit-error`.
    pub fn remove(
        &mut self,
        container: &[String],
        name: &str,
        hints: &[UndoHint],
    ) -> Result<(), EditError> {
        for h in hints {
            if let UndoHint::EmptyInner { inner, .. } = h
                && !inner.bytes().all(is_ws)
            {
                return Err(edit_err_at(
                    Code::InvalidHint,
                    "an undo hint holds something other than whitespace, so it was not applied"
                        .into(),
                    1,
                    1,
                ));
            }
        }
        match self.kind(container) {
            None => {
                return Err(edit_err_at(
                    Code::NotFound,
                    format!("there is no object `{}` in the file", show_path(container)),
                    1,
                    1,
                ));
            }
            Some("an object") => {
                if self.position(container, name).is_none() {
                    return Err(edit_err_at(
                        Code::NotFound,
                        format!("there is no entry `{name}` in `{}`", show_path(container)),
                        1,
                        1,
                    ));
                }
            }
            Some(_) => {
                return Err(edit_err_at(
                    Code::NotAnObject,
                    format!("`{}` is not an object", show_path(container)),
                    1,
                    1,
                ));
            }
        }
        // Each step below is proven against the one before; a failed later step puts the
        // document back as it was (the first step changes nothing when it fails).
        let saved = (!hints.is_empty()).then(|| self.clone());
        let done = self.remove_steps(container, name, hints);
        if done.is_err()
            && let Some(saved) = saved
        {
            *self = saved;
        }
        done
    }

    fn remove_steps(
        &mut self,
        container: &[String],
        name: &str,
        hints: &[UndoHint],
    ) -> Result<(), EditError> {
        // The objects the upsert created that this removal leaves empty go with it: the
        // removal is made at the highest of them (the member that holds it is removed from
        // its parent), which gives the bytes of the removals deepest first.
        let created_top = hints
            .iter()
            .filter_map(|h| match h {
                UndoHint::Created { path } if container.starts_with(path) => Some(path.len()),
                _ => None,
            })
            .min();
        let (mut at, mut member) = (container.len(), name);
        if let Some(top) = created_top {
            while at >= top.max(1) {
                let (Some(path), Some(last)) = (container.get(..at), container.get(at - 1)) else {
                    break;
                };
                if !self.blank_without(path, member) {
                    break;
                }
                member = last.as_str();
                at -= 1;
            }
        }
        self.remove_member(container.get(..at).unwrap_or(&[]), member)?;
        // Restore the inner whitespace of objects that were empty before.
        for h in hints {
            if let UndoHint::EmptyInner { path, inner } = h {
                self.restore_inner(path, inner)?;
            }
        }
        Ok(())
    }

    /// An object with no members and only whitespace inside.
    fn is_blank_object(&self, path: &[String]) -> bool {
        if self.holds_region(path) {
            return false;
        }
        let v = self.view(path);
        v.object(path).is_some_and(|(tree, i)| {
            tree.objs.get(i).is_some_and(|o| {
                o.members.is_empty()
                    && v.text
                        .as_bytes()
                        .get(o.open + 1..o.close)
                        .is_some_and(|s| s.iter().all(|&c| is_ws(c)))
            })
        })
    }

    /// Whether the object at `path` would be empty, with only whitespace inside, once its
    /// member `name` is removed (read before anything is removed).
    fn blank_without(&self, path: &[String], name: &str) -> bool {
        if self.member_count(path) != Some(1) {
            return false;
        }
        let v = self.view_for(path, &[name]);
        let Some((tree, i)) = v.object(path) else {
            return false;
        };
        let Some(o) = tree.objs.get(i) else {
            return false;
        };
        let Ok(splices) = removal_splices(v.text.as_bytes(), o, name) else {
            return false;
        };
        let Some(x) = v.text.get(o.open..=o.close) else {
            return false;
        };
        let local: Vec<Splice> = splices
            .iter()
            .map(|s| Splice::new(s.start - o.open, s.end - o.open, s.with.clone()))
            .collect();
        super::verify::apply_splices("", x, &local)
            .is_ok_and(|t| t.len() >= 2 && t.bytes().skip(1).take(t.len() - 2).all(is_ws))
    }

    fn remove_member(&mut self, container: &[String], name: &str) -> Result<(), EditError> {
        let missing = || internal("container not found");
        self.edit_object(container, &[name], Expect::Removed, missing, |text, o| {
            removal_splices(text.as_bytes(), o, name).map(Some)
        })
    }

    fn restore_inner(&mut self, path: &[String], inner: &str) -> Result<(), EditError> {
        if !self.is_blank_object(path) {
            return Ok(());
        }
        let missing = || internal("object not found");
        self.edit_object(path, &[], Expect::Same, missing, |text, o| {
            Ok((text.get(o.open + 1..o.close) != Some(inner))
                .then(|| vec![Splice::new(o.open + 1, o.close, inner.to_owned())]))
        })
    }
}

/// Applies `splices` inside object `obj` of `tree` (read from view `v`; the object at key path
/// `path`) and proves the result (see [`commit_local`]): the landing of one step of a removal.
#[allow(clippy::too_many_arguments)]
fn step(
    syntax: Syntax,
    v: &View<'_>,
    splices: &[Splice],
    tree: &Tree,
    obj: usize,
    path: &[String],
    keys: &[&str],
    expect: Expect<'_>,
) -> Result<Landing, EditError> {
    let x = tree
        .objs
        .get(obj)
        .ok_or_else(|| internal("object index out of range"))?;
    let c = commit_local(
        syntax,
        &v.text,
        &v.root,
        x,
        obj == 0,
        path.len(),
        splices,
        keys,
        expect,
    )?;
    Landing::new(v, tree, obj, path, &[], c)
}

/// Sets `name` in the object at `container` inside `root`, creating objects as needed.
#[cfg(test)]
pub(super) fn set_path(
    root: &mut Value,
    container: &[String],
    name: &str,
    v: Value,
) -> Result<(), EditError> {
    let mut cur = root;
    for key in container {
        let obj = cur
            .as_object_mut()
            .ok_or_else(|| internal("container is not an object"))?;
        cur = obj
            .entry(key.clone())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    cur.as_object_mut()
        .ok_or_else(|| internal("container is not an object"))?
        .insert(name.to_owned(), v);
    Ok(())
}

/// Nesting depth of a value (scalars 0), computed without recursion.
pub(super) fn value_depth(v: &Value) -> usize {
    let mut max = 0;
    let mut stack = vec![(v, 1usize)];
    while let Some((v, d)) = stack.pop() {
        match v {
            Value::Object(m) => {
                max = max.max(d);
                stack.extend(m.values().map(|c| (c, d + 1)));
            }
            Value::Array(a) => {
                max = max.max(d);
                stack.extend(a.iter().map(|c| (c, d + 1)));
            }
            _ => {}
        }
    }
    max
}

/// Plans the insertion of a new member at the end of object `obj`. Returns the splices and, when the
/// object was empty with whitespace-only inner text that gets replaced, that original inner text.
fn insert_member(
    text: &str,
    tree: &Tree,
    obj: usize,
    key: &str,
    value: &Value,
    style: &Style,
) -> Result<(Vec<Splice>, Option<String>), EditError> {
    let b = text.as_bytes();
    let o = tree
        .objs
        .get(obj)
        .ok_or_else(|| internal("object index out of range"))?;
    let layout = Layout::for_object(text, tree, obj, &style.outer);
    let obj_indent = line_indent(text, o.open);
    let member = |indent: &str| -> Result<String, EditError> {
        let mut s = json_string(key)?;
        s.push_str(&layout.colon);
        write_value(&mut s, value, &layout, indent, style)?;
        Ok(s)
    };
    if !o.members.is_empty() {
        Ok((
            append_splices(text, tree, obj, &[(key, value)], style)?,
            None,
        ))
    } else {
        let inner = text
            .get(o.open + 1..o.close)
            .ok_or_else(|| internal("object span out of range"))?;
        let indent = format!("{obj_indent}{}", style.unit);
        if inner.bytes().all(is_ws) {
            let new_inner = if layout.multiline {
                format!(
                    "{nl}{indent}{}{nl}{obj_indent}",
                    member(&indent)?,
                    nl = style.nl
                )
            } else {
                member("")?
            };
            Ok((
                vec![Splice::new(o.open + 1, o.close, new_inner)],
                Some(inner.to_owned()),
            ))
        } else {
            // Keep the comments; add the member after the last one.
            let at = gap_items(b, o.open + 1, o.close)
                .iter()
                .rev()
                .find(|it| !matches!(it.kind, Gap::Space | Gap::Newline))
                .map_or(o.open + 1, |it| it.end);
            let ins = if layout.multiline {
                format!("{}{indent}{}", style.nl, member(&indent)?)
            } else {
                let sp = if layout.colon.ends_with([' ', '\t']) {
                    " "
                } else {
                    ""
                };
                format!("{sp}{}", member("")?)
            };
            Ok((vec![Splice::new(at, at, ins)], None))
        }
    }
}

/// Plans the insertion of new members after the last member of object `obj` (which has at
/// least one), in the object's layout: the text a sequence of single inserts would give, as one
/// insertion (plus, without trailing commas, the separator after the old last member).
pub(super) fn append_splices(
    text: &str,
    tree: &Tree,
    obj: usize,
    new: &[(&str, &Value)],
    style: &Style,
) -> Result<Vec<Splice>, EditError> {
    let b = text.as_bytes();
    let o = tree
        .objs
        .get(obj)
        .ok_or_else(|| internal("object index out of range"))?;
    let last = o
        .members
        .last()
        .ok_or_else(|| internal("no member to append after"))?;
    let layout = Layout::for_object(text, tree, obj, &style.outer);
    let obj_indent = line_indent(text, o.open);
    let member = |key: &str, value: &Value, indent: &str| -> Result<String, EditError> {
        let mut s = json_string(key)?;
        s.push_str(&layout.colon);
        write_value(&mut s, value, &layout, indent, style)?;
        Ok(s)
    };
    let trailing = last.comma;
    if layout.multiline {
        let indent = own_line_indent(b, last.key_start)
            .or_else(|| {
                o.members
                    .first()
                    .and_then(|m| own_line_indent(b, m.key_start))
            })
            .map(str::to_owned)
            .unwrap_or_else(|| format!("{obj_indent}{}", style.unit));
        let anchor = trailing.map_or(last.value_end, |c| c + 1);
        // Insert after the rest of the last member's line (its trailing comment), so that
        // comment keeps following its own member.
        let mut at = anchor;
        for it in gap_items(b, anchor, o.close) {
            match it.kind {
                Gap::Space => {}
                Gap::BlockComment { multiline: false } => at = it.end,
                Gap::LineComment => {
                    at = it.end;
                    break;
                }
                Gap::Newline => {
                    at = it.start;
                    break;
                }
                _ => break,
            }
        }
        // Never put our line break right after a lone CR: `\r` + `\n` would read back as
        // one CRLF and the removal would take the CR (found by fuzzing).
        while at > anchor && b.get(at - 1) == Some(&b'\r') {
            at -= 1;
        }
        let mut ins = String::new();
        for (i, (key, value)) in new.iter().enumerate() {
            if i > 0 {
                ins.push(',');
            }
            ins.push_str(style.nl);
            ins.push_str(&indent);
            ins.push_str(&member(key, value, &indent)?);
        }
        let mut splices = Vec::new();
        if trailing.is_some() {
            ins.push(',');
        } else {
            splices.push(Splice::new(last.value_end, last.value_end, ",".into()));
        }
        splices.push(Splice::new(at, at, ins));
        Ok(splices)
    } else {
        let mut ins = String::new();
        let s = match trailing {
            Some(c) => {
                let after = layout.sep.get(1..).unwrap_or("");
                for (key, value) in new {
                    ins.push_str(after);
                    ins.push_str(&member(key, value, "")?);
                    ins.push(',');
                }
                Splice::new(c + 1, c + 1, ins)
            }
            None => {
                for (key, value) in new {
                    ins.push_str(&layout.sep);
                    ins.push_str(&member(key, value, "")?);
                }
                Splice::new(last.value_end, last.value_end, ins)
            }
        };
        Ok(vec![s])
    }
}

/// The splices that remove member `name` of object `o` (positions in `b`): its own lines when
/// it has them, else the member and one separator comma.
fn removal_splices(b: &[u8], o: &ObjSpan, name: &str) -> Result<Vec<Splice>, EditError> {
    let i = o
        .members
        .iter()
        .position(|m| m.key == name)
        .ok_or_else(|| internal("member not found"))?;
    let m = o.members.get(i).ok_or_else(|| internal("member index"))?;
    let prev = i.checked_sub(1).and_then(|j| o.members.get(j));
    let next = o.members.get(i + 1);
    let next_token = next.map_or(o.close, |n| n.key_start);
    let mut splices = Vec::new();
    let own = own_line_start(b, m.key_start).zip(own_line_end(b, m, next_token));
    let is_last = next.is_none();
    if let Some((start, end)) = own {
        // The member owns whole lines: drop them (from the line break before it).
        splices.push(Splice::new(start, end, String::new()));
        if is_last
            && m.comma.is_none()
            && let Some(c) = prev.and_then(|p| p.comma)
        {
            splices.push(Splice::new(c, c + 1, String::new()));
        }
    } else if !is_last {
        // `"a": 1, "b": 2` -> `"b": 2`: the member, its comma and the spaces after it.
        let c = m.comma.ok_or_else(|| internal("missing separator comma"))?;
        let mut end = c + 1;
        while matches!(b.get(end), Some(b' ' | b'\t')) {
            end += 1;
        }
        splices.push(Splice::new(m.key_start, end.min(next_token), String::new()));
    } else {
        // Last member on a shared line: the whitespace before it, the member, and either its
        // own trailing comma or the previous member's separator comma.
        let from = prev.map_or(o.open + 1, |p| p.value_end);
        let start = if prev.is_some() {
            ws_run_start(b, from, m.key_start)
        } else {
            ws_run_start(b, o.open + 1, m.key_start)
        };
        let end = m.comma.map_or(m.value_end, |c| c + 1);
        splices.push(Splice::new(start, end, String::new()));
        if m.comma.is_none()
            && let Some(c) = prev.and_then(|p| p.comma)
        {
            splices.push(Splice::new(c, c + 1, String::new()));
        }
    }
    Ok(splices)
}
