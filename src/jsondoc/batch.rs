//! Many edits of one object's members at once: [`JsonDoc::edit_members`] plans the splices of
//! every edit against the same text and hands them to `verify` for one proof of the result, so
//! n edits into one object cost one pass over it, not n.

use std::collections::HashMap;

use serde_json::Value;

use super::api::{EditError, JsonDoc, MAX_DEPTH, internal};
use super::edit::value_depth;
use super::layout::{Layout, Style};
use super::layout::{line_indent, own_line_end, own_line_indent, own_line_start, write_value};
use super::parse::{MemSpan, ObjSpan, Tree};
use super::scan::value_at;
use super::verify::{Splice, commit_members};
use super::view::Landing;

impl JsonDoc {
    /// Sets (`Some`) or removes (`None`) several members of the existing, non-empty object at
    /// key path `container`, as one edit proven once: every member not named keeps its bytes
    /// and its place, each set member holds its value (an existing one in place, new ones
    /// appended in the given order, in the object's layout), each removed member is gone, and
    /// at least one member remains. Names must be distinct.
    ///
    /// The result equals what the single edits ([`JsonDoc::upsert`], [`JsonDoc::remove`]
    /// without hints) would give one after the other. An edit this cannot plan as one pass (a
    /// removal of a member that shares its line with another, a removed last member together
    /// with appended ones unless the new last member's line holds nothing after its comma, …)
    /// is refused with `internal-edit-error` and the document is unchanged: the caller then
    /// makes the single edits.
    pub fn edit_members(
        &mut self,
        container: &[String],
        edits: &[(String, Option<Value>)],
    ) -> Result<(), EditError> {
        let names: Vec<&str> = edits.iter().map(|(n, _)| n.as_str()).collect();
        let v = self.view_for(container, &names);
        let text: &str = &v.text;
        let (tree, obj) = v
            .object(container)
            .ok_or_else(|| internal("the object of a batch is missing"))?;
        let o = tree
            .objs
            .get(obj)
            .ok_or_else(|| internal("object index out of range"))?;
        let index: HashMap<&str, usize> = o
            .members
            .iter()
            .enumerate()
            .map(|(i, m)| (m.key.as_str(), i))
            .collect();
        let style = &v.style;
        let layout = super::layout::Layout::for_object(text, &tree, obj, &style.outer);
        let at = Members {
            text,
            tree: &tree,
            obj,
            o,
            layout: &layout,
            style,
        };
        let mut seen: HashMap<&str, ()> = HashMap::with_capacity(edits.len());
        let mut splices = Vec::new();
        let mut appended: Vec<(&str, &Value)> = Vec::new();
        let mut removed = vec![false; o.members.len()];
        for (name, value) in edits {
            if seen.insert(name.as_str(), ()).is_some() {
                return Err(internal("a member is named twice in one batch"));
            }
            match (index.get(name.as_str()), value) {
                (Some(&i), Some(v)) => {
                    let m = o.members.get(i).ok_or_else(|| internal("member index"))?;
                    if container.len() + 1 + value_depth(v) > MAX_DEPTH {
                        return Err(internal("too deep for a batch"));
                    }
                    if value_at(text, m.value_start, m.value_end, self.syntax).as_ref() == Some(v) {
                        continue;
                    }
                    splices.push(at.set(m, v)?);
                }
                (None, Some(v)) => {
                    if container.len() + 1 + value_depth(v) > MAX_DEPTH {
                        return Err(internal("too deep for a batch"));
                    }
                    appended.push((name.as_str(), v));
                }
                (Some(&i), None) => {
                    if let Some(r) = removed.get_mut(i) {
                        *r = true;
                    }
                }
                (None, None) => return Err(internal("no such member to remove")),
            }
        }
        let kept = removed.iter().filter(|r| !**r).count();
        if kept == 0 {
            return Err(internal("a batch never empties its object"));
        }
        at.removals(&removed, &mut splices)?;
        if removed.last().copied().unwrap_or(false) {
            at.last_removed(&removed, &mut appended, &mut splices)?;
        }
        if !appended.is_empty() {
            splices.extend(super::edit::append_splices(
                text, &tree, obj, &appended, style,
            )?);
        }
        if splices.is_empty() {
            return Ok(());
        }
        let c = commit_members(
            self.syntax,
            text,
            &v.root,
            o,
            obj == 0,
            container.len(),
            &splices,
            edits,
        )?;
        // The new text is the old one with the object's bytes replaced: kept as that splice
        // over the bytes read, not built (a big file's edit then holds one copy of the file).
        let landing = Landing::new(&v, &tree, obj, container, &[], c)?;
        drop(v);
        self.land(landing)
    }
}

/// The object a batch edits, as read: its text, its spans and its layout.
struct Members<'a> {
    text: &'a str,
    tree: &'a Tree,
    obj: usize,
    o: &'a ObjSpan,
    layout: &'a Layout,
    style: &'a Style,
}

impl Members<'_> {
    /// The splice that gives existing member `m` the value `v`, in the object's layout.
    fn set(&self, m: &MemSpan, v: &Value) -> Result<Splice, EditError> {
        let (text, o, style) = (self.text, self.o, self.style);
        let indent = own_line_indent(text.as_bytes(), m.key_start)
            .map(str::to_owned)
            .unwrap_or_else(|| format!("{}{}", line_indent(text, o.open), style.unit));
        let mut out = String::new();
        write_value(&mut out, v, self.layout, &indent, style)?;
        Ok(Splice::new(m.value_start, m.value_end, out))
    }

    /// Removals: each removed member owns whole lines (what a single removal then takes).
    fn removals(&self, removed: &[bool], splices: &mut Vec<Splice>) -> Result<(), EditError> {
        let (b, o) = (self.text.as_bytes(), self.o);
        for (i, m) in o.members.iter().enumerate() {
            if !removed.get(i).copied().unwrap_or(false) {
                continue;
            }
            let next_token = o.members.get(i + 1).map_or(o.close, |x| x.key_start);
            let (Some(start), Some(end)) = (
                own_line_start(b, m.key_start),
                own_line_end(b, m, next_token),
            ) else {
                return Err(internal("a removed member shares its line"));
            };
            splices.push(Splice::new(start, end, String::new()));
        }
        Ok(())
    }

    /// The old last member goes: the new last one loses its separator comma, and members
    /// `appended` go after it (then taken out of `appended`) when that can be planned.
    fn last_removed<'e>(
        &self,
        removed: &[bool],
        appended: &mut Vec<(&'e str, &'e Value)>,
        splices: &mut Vec<Splice>,
    ) -> Result<(), EditError> {
        let (text, b, o, n) = (
            self.text,
            self.text.as_bytes(),
            self.o,
            self.o.members.len(),
        );
        let (tree, obj, layout, style) = (self.tree, self.obj, self.layout, self.style);
        // The old last member goes: the new last one loses its separator comma, as the
        // single removals (last first) would leave it, unless the object uses trailing
        // commas.
        let last = o.members.last().ok_or_else(|| internal("member index"))?;
        let k = (0..n)
            .rev()
            .find(|&i| !removed.get(i).copied().unwrap_or(true))
            .ok_or_else(|| internal("no member remains"))?;
        let keep = o.members.get(k).ok_or_else(|| internal("member index"))?;
        if last.comma.is_none()
            && let Some(c) = keep.comma
        {
            splices.push(Splice::new(c, c + 1, String::new()));
        }
        if !appended.is_empty() {
            // New members go after the new last one, as if it had always been last (what
            // the single removals, then the appends, give): only for the plain layout,
            // its comma right after its value and nothing else on the rest of its line.
            let c = keep
                .comma
                .filter(|&c| c == keep.value_end && last.comma.is_none())
                .ok_or_else(|| internal("appending after a removed last member"))?;
            let rest = b.get(c + 1..).unwrap_or(&[]);
            let sp = rest
                .iter()
                .take_while(|&&x| x == b' ' || x == b'\t')
                .count();
            if !(rest.get(sp) == Some(&b'\n') || rest.get(sp..sp + 2) == Some(b"\r\n".as_slice()))
                || !layout.multiline
            {
                return Err(internal("appending after a removed last member"));
            }
            let mut t = tree.clone();
            let to = t
                .objs
                .get_mut(obj)
                .ok_or_else(|| internal("object index out of range"))?;
            to.members.truncate(k + 1);
            if let Some(m) = to.members.last_mut() {
                m.comma = None;
            }
            splices.extend(super::edit::append_splices(text, &t, obj, appended, style)?);
            appended.clear();
        }
        Ok(())
    }
}
