//! Where an edit reads, and how its result becomes the document's text.
//!
//! An edit changes one object (the deepest one that exists on its key path). Its result is
//! kept as a *part* over the bytes read: a range of them and what replaced it ([`Spliced`]).
//! What the next edit reads is a [`View`] ([`Into`] says which):
//!
//! * inside an edited object, that object's new text alone, with what the rest of the
//!   document decides of its layout kept beside it (the [`Region`]);
//! * elsewhere, the deepest object on its path read from the bytes read, when no part lies in
//!   it, on its first line or in a gap of the objects above it (what the root decides of the
//!   layout comes from the root's skeleton);
//! * at the root of a document with parts, the root's *skeleton*: its text read from the
//!   pieces with every big value replaced by `0`;
//! * otherwise the whole text, built once.
//!
//! A landing puts the result where it belongs: into the part it read, as a new part, or (from
//! a skeleton) as the bytes that changed, taking in the parts it reaches. So a mode switch, a
//! removal and its restore of an object's whitespace, the next server of a manifest, edits of
//! two scopes of one file: each costs the objects it reads, never a copy of the file.

use std::borrow::Cow;
use std::sync::Arc;

use super::api::{EditError, JsonDoc, Part, Spliced, Syntax, internal};
use super::layout::{Outer, Style, line_indent};
use super::parse::{ObjSpan, Tree};
use super::scan::{shallow, spine};
use super::verify::{Committed, moved, moved_by};

/// What a later edit inside an edited object needs of the text around it.
#[derive(Debug, Clone)]
pub(super) struct Region {
    /// Key path of the edited object.
    pub(super) path: Vec<String>,
    /// Its first line up to its `{`, shortened to what edits read there: the line's
    /// indentation, and, when something else stands on that line before it, a stand-in for
    /// that and the spaces before the `{`.
    pub(super) lead: String,
    /// The document's style, with what the object's ancestors decide of the layout.
    pub(super) style: Style,
    /// Where the object stands in the splice's new text: after its first `at` bytes, before
    /// its last `tail` bytes (both 0 when the splice is the object's whole text).
    pub(super) at: usize,
    pub(super) tail: usize,
}

/// The text an edit reads: the whole document (`shift` is `None`), or an edited object's new
/// text after its [`Region::lead`] (position `p` here is `p + shift` in the document's text).
pub(super) struct View<'a> {
    pub(super) text: Cow<'a, str>,
    /// The view's top object: the document's root, or the edited object.
    pub(super) root: ObjSpan,
    /// How many keys of an edit's path lead to `root` (0 for the whole document).
    pub(super) base: usize,
    pub(super) style: Style,
    pub(super) shift: Option<isize>,
    pub(super) syntax: Syntax,
    pub(super) into: Into,
    /// For [`Into::Skeleton`]: each replaced value, its position in the view's text and its
    /// length in the whole text.
    pub(super) holes: Vec<(usize, usize)>,
}

impl View<'_> {
    /// The objects on the way to key path `path` (a document path at or below the view's top
    /// object), as far as they exist.
    pub(super) fn spine(&self, path: &[String]) -> Tree {
        let rel = path.get(self.base..).unwrap_or(&[]);
        spine(&self.text, &self.root, rel, self.syntax)
    }

    /// The object at key path `path` when every step exists: the spine and its index.
    pub(super) fn object(&self, path: &[String]) -> Option<(Tree, usize)> {
        let tree = self.spine(path);
        let rel = path.get(self.base..).unwrap_or(&[]);
        (tree.objs.len() == rel.len() + 1).then(|| {
            let i = tree.objs.len() - 1;
            (tree, i)
        })
    }
}

/// What a view's text is, so that an edit's result can be put where it belongs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Into {
    /// The whole text (built if edits had left it in parts).
    Whole,
    /// The object held by part `i`, after its lead.
    Part(usize),
    /// An object of the bytes read that holds no part, from the start of its first line (at
    /// this position of the bytes read).
    Base(usize),
    /// A stand-in of the whole text: the root with its big values (see `holes`) replaced.
    Skeleton,
}

/// An edit's result, in the coordinates of the view it read: `lo..hi` of the view's text (the
/// edited object, or the part of a big one the edit covers) became `mid`, and the view's top
/// object became `top`.
pub(super) struct Landing {
    pub(super) shift: Option<isize>,
    pub(super) into: Into,
    pub(super) holes: Vec<(usize, usize)>,
    pub(super) lo: usize,
    pub(super) hi: usize,
    pub(super) mid: String,
    pub(super) top: ObjSpan,
    /// For an edit of the whole text: what a later edit inside the object needs (`None` when
    /// the style is decided inside or after the object: the next edit then reads the whole
    /// text again).
    pub(super) region: Option<Region>,
}

impl Landing {
    /// How much longer the text is after the edit.
    fn delta(&self) -> isize {
        self.mid.len() as isize - (self.hi - self.lo) as isize
    }

    /// The landing of proven edit `c` of object `x` read from view `v`; for a view of the
    /// whole text, what a later edit inside `x` (at key path `path`) needs is kept when `c`
    /// is the object's whole new text.
    ///
    /// When `c` is the part of a big object that the edit covers, what a later edit needs is
    /// kept for the object at `inner` below it (the container the edit created or filled),
    /// when that object lies inside the new part.
    pub(super) fn new(
        v: &View<'_>,
        tree: &Tree,
        obj: usize,
        path: &[String],
        inner: &[String],
        c: Committed,
    ) -> Result<Landing, EditError> {
        if v.into == Into::Skeleton {
            return Landing::of_skeleton(v, c);
        }
        let whole = tree.objs.get(obj).is_some_and(|x| c.whole(x));
        let region = if matches!(v.into, Into::Part(_)) {
            None
        } else if whole {
            region_for(&v.text, tree, obj, &v.style, path)
        } else {
            c.stand_in.as_ref().and_then(|(t, x, pa)| {
                let t2 = spine(t, x, inner, v.syntax);
                let y = t2.objs.len().checked_sub(1).filter(|&i| i == inner.len())?;
                let mut full = path.to_vec();
                full.extend(inner.iter().cloned());
                // What the objects above the stand-in's object decide, from the view.
                let parent = tree.objs.get(obj).and_then(|o| o.parent);
                let style = Style {
                    outer: Outer::above(&v.text, tree, parent, &v.style.outer),
                    ..v.style.clone()
                };
                let r = region_for(t, &t2, y, &style, &full)?;
                let o = t2.objs.get(y)?;
                // Inside the new part, and the style decided before it.
                let end = pa + c.mid.len();
                (o.open >= *pa && o.close < end && v.style.decided < c.lo).then(|| Region {
                    at: o.open - pa,
                    tail: end - (o.close + 1),
                    ..r
                })
            })
        };
        Ok(Landing {
            shift: v.shift,
            into: v.into,
            holes: Vec::new(),
            lo: c.lo,
            hi: c.hi,
            mid: c.mid,
            top: c.top,
            region,
        })
    }

    /// The landing of an edit of a skeleton view: only the bytes that changed, which must not
    /// hold a replaced value (else the edit is refused).
    fn of_skeleton(v: &View<'_>, c: Committed) -> Result<Landing, EditError> {
        let old = v.text.get(c.lo..c.hi).unwrap_or("").as_bytes();
        let new = c.mid.as_bytes();
        let (mut p, mut q) = crate::text::common_ends(old, new);
        while !c.mid.is_char_boundary(p) {
            p -= 1;
        }
        while !c.mid.is_char_boundary(new.len() - q) {
            q -= 1;
        }
        let (lo, hi) = (c.lo + p, c.hi - q);
        if v.holes.iter().any(|&(h, _)| lo <= h && h < hi) {
            return Err(internal(
                "an edit of the root reaches a value it stood in for",
            ));
        }
        Ok(Landing {
            shift: None,
            into: Into::Skeleton,
            holes: v.holes.clone(),
            lo,
            hi,
            mid: c.mid.get(p..new.len() - q).unwrap_or("").to_owned(),
            top: c.top,
            region: None,
        })
    }
}

impl JsonDoc {
    /// The view for an edit at key path `path`: the text of the edited object that holds
    /// `path`, else the text of the deepest object on `path` in the bytes read when it holds
    /// no edit, else the whole text (built when edits left it in parts).
    pub(super) fn view(&self, path: &[String]) -> View<'_> {
        self.view_for(path, &[])
    }

    /// [`JsonDoc::view`] for an edit of the members `keep` of the object at `path`: when the
    /// edit is of the root of a document left in parts, a skeleton of it (every big value but
    /// those of `keep` and of `path`'s first key replaced) instead of the whole text.
    pub(super) fn view_for(&self, path: &[String], keep: &[&str]) -> View<'_> {
        if let Some(sp) = &self.spliced {
            for (i, part) in sp.parts.iter().enumerate() {
                let Some(r) = part.region.as_ref().filter(|r| path.starts_with(&r.path)) else {
                    continue;
                };
                let obj = part.mid.get(r.at..part.mid.len().saturating_sub(r.tail));
                let text: Cow<'_, str> = match obj {
                    Some(o) if r.lead.is_empty() => Cow::Borrowed(o),
                    Some(o) => Cow::Owned(format!("{}{o}", r.lead)),
                    None => continue,
                };
                let at =
                    (sp.start_of(i) + r.at) as isize - self.start as isize - r.lead.len() as isize;
                if let Some(root) = shallow(&text, r.lead.len(), self.syntax, None) {
                    return View {
                        text,
                        root,
                        base: r.path.len(),
                        style: r.style.clone(),
                        shift: Some(at),
                        syntax: self.syntax,
                        into: Into::Part(i),
                        holes: Vec::new(),
                    };
                }
            }
            if let Some(v) = self.base_view(sp, path) {
                return v;
            }
            let first = path.first().map(String::as_str);
            let at_root = first.is_none_or(|k| self.position(&[], k).is_none());
            if at_root && let Some(v) = self.skeleton_view(sp, keep, first) {
                return v;
            }
        }
        let text = self.text();
        View {
            text: Cow::Borrowed(text),
            root: self.root.clone(),
            base: 0,
            style: Style::detect(text, self.syntax),
            shift: None,
            syntax: self.syntax,
            into: Into::Whole,
            holes: Vec::new(),
        }
    }

    /// The text `a..z` (positions in the text after the BOM) read from the bytes read and
    /// the parts, borrowed when it lies in one of them.
    pub(super) fn read(&self, a: usize, z: usize) -> Option<Cow<'_, str>> {
        let Some(sp) = self.spliced.as_ref() else {
            return self
                .buf
                .get(self.start + a..self.start + z)
                .map(Cow::Borrowed);
        };
        let (a, z) = (a + self.start, z + self.start);
        let mut out = String::new();
        let mut pos = 0usize;
        let mut base_at = 0usize;
        let mut take = |piece: &str, from: usize| -> Option<()> {
            let (lo, hi) = (a.max(from), z.min(from + piece.len()));
            if lo < hi {
                out.push_str(piece.get(lo - from..hi - from)?);
            }
            Some(())
        };
        for p in &sp.parts {
            take(self.buf.get(base_at..p.lo)?, pos)?;
            pos += p.lo - base_at;
            take(&p.mid, pos)?;
            pos += p.mid.len();
            base_at = p.hi;
        }
        take(self.buf.get(base_at..)?, pos)?;
        (out.len() == z - a).then_some(Cow::Owned(out))
    }

    /// The whole text with each root value of [`super::proxy::HOLE_MIN`] bytes or more but
    /// those of `keep` replaced by `0`, read from the pieces, and where those `0`s stand with
    /// the length of what they stand for.
    fn skeleton(&self, keep: &[&str]) -> Option<(String, Vec<(usize, usize)>)> {
        let grown = self.spliced.as_ref().map_or(0, |sp| sp.grown());
        let len = (self.buf.len() - self.start).saturating_add_signed(grown);
        let mut text = String::new();
        let mut holes = Vec::new();
        let mut at = 0usize;
        for m in &self.root.members {
            let (vs, ve) = (m.value_start, m.value_end);
            if ve - vs < super::proxy::HOLE_MIN || keep.contains(&m.key.as_str()) {
                continue;
            }
            text.push_str(&self.read(at, vs)?);
            holes.push((text.len(), ve - vs));
            text.push('0');
            at = ve;
        }
        text.push_str(&self.read(at, len)?);
        Some((text, holes))
    }

    /// The skeleton of the whole text: the root with each value of [`super::proxy::HOLE_MIN`]
    /// bytes or more replaced by `0`, but those of `keep` and `first`, built from the pieces.
    fn skeleton_view(&self, sp: &Spliced, keep: &[&str], first: Option<&str>) -> Option<View<'_>> {
        let mut kept: Vec<&str> = keep.to_vec();
        kept.extend(first);
        let (text, holes) = self.skeleton(&kept)?;
        // The style, decided before the first part.
        let first_part = sp.parts.first().map_or(usize::MAX, |p| p.lo - self.start);
        let style = Style::detect(self.buf.get(self.start..)?, self.syntax);
        if style.decided >= first_part {
            return None;
        }
        let root = shallow(&text, self.root.open, self.syntax, None)?;
        Some(View {
            text: Cow::Owned(text),
            root,
            base: 0,
            style,
            shift: None,
            syntax: self.syntax,
            into: Into::Skeleton,
            holes,
        })
    }

    /// The view of the deepest object on `path` in the bytes read, when no edit lies in it,
    /// on its first line or in a gap of the objects between it and the root, and the style
    /// is decided before it and before every edit (what the root decides of the layout is
    /// read from its skeleton, which holds the edits made there).
    fn base_view(&self, sp: &Spliced, path: &[String]) -> Option<View<'_>> {
        let s = self.start;
        let base = self.buf.get(s..)?;
        let (first, rest) = path.split_first()?;
        let m = self.root.members.iter().find(|m| &m.key == first)?;
        let vs = sp.to_base(m.value_start + s)? - s;
        let child = shallow(base, vs, self.syntax, None)?;
        let tree = spine(base, &child, rest, self.syntax);
        let depth = tree.objs.len();
        let x = tree.objs.last()?;
        // Every edit in an object between the root and `x` lies inside one of its values.
        for o in tree.objs.iter().take(tree.objs.len() - 1) {
            let (oa, oz) = (s + o.open, s + o.close + 1);
            let inside = |p: &Part| {
                o.members
                    .iter()
                    .any(|m| s + m.value_start <= p.lo && p.hi <= s + m.value_end)
            };
            if sp
                .parts
                .iter()
                .any(|p| p.lo < oz && p.hi > oa && !inside(p))
            {
                return None;
            }
        }
        let mut ls = x.open;
        let b = base.as_bytes();
        while ls > 0 && b.get(ls - 1) != Some(&b'\n') {
            ls -= 1;
        }
        let (from, to) = (s + ls, s + x.close + 1);
        if sp.parts.iter().any(|p| p.lo < to && p.hi > from) {
            return None;
        }
        let first_part = sp.parts.first().map_or(usize::MAX, |p| p.lo - s);
        let mut style = Style::detect(base, self.syntax);
        if style.decided >= first_part.min(ls) {
            return None;
        }
        style.outer = Outer::above(base, &tree, x.parent, &self.root_outer()?);
        // Checked against the whole text here: every object of the view is after it.
        style.decided = 0;
        let text = base.get(ls..=x.close)?;
        let root = shallow(text, x.open - ls, self.syntax, None)?;
        let at = sp.whole_of(s + ls) as isize - s as isize;
        Some(View {
            text: Cow::Borrowed(text),
            root,
            base: depth,
            style,
            shift: Some(at),
            syntax: self.syntax,
            into: Into::Base(s + ls),
            holes: Vec::new(),
        })
    }

    /// What the root decides of the layout (its gaps and separators), read from a skeleton
    /// of it built from the pieces.
    fn root_outer(&self) -> Option<Outer> {
        let (text, _) = self.skeleton(&[])?;
        let root = shallow(&text, self.root.open, self.syntax, None)?;
        let tree = Tree { objs: vec![root] };
        Some(Outer::above(&text, &tree, Some(0), &Outer::default()))
    }

    /// The 1-based line and column of position `p` of a view.
    pub(super) fn view_line_col(&self, shift: Option<isize>, p: usize) -> (usize, usize) {
        let at = p.saturating_add_signed(shift.unwrap_or(0));
        super::api::line_col(self.text(), at)
    }

    /// Whether the object at `path` holds an edited object (so it has a member).
    pub(super) fn holds_region(&self, path: &[String]) -> bool {
        self.spliced.as_ref().is_some_and(|sp| {
            sp.parts.iter().any(|p| {
                p.region
                    .as_ref()
                    .is_some_and(|r| r.path.len() > path.len() && r.path.starts_with(path))
            })
        })
    }

    /// The edits made so far, taken out to be added to (copied if a clone shares them).
    fn take_spliced(&mut self) -> Result<Spliced, EditError> {
        let sp = self
            .spliced
            .take()
            .ok_or_else(|| internal("a view of an edit that is gone"))?;
        Ok(Arc::try_unwrap(sp).unwrap_or_else(|a| a.copy()))
    }

    /// Makes an edit's result the document's text.
    pub(super) fn land(&mut self, l: Landing) -> Result<(), EditError> {
        match l.into {
            Into::Whole => self.land_whole(l),
            Into::Base(b0) => self.land_base(b0, l)?,
            Into::Skeleton => self.land_skeleton(l)?,
            Into::Part(i) => self.land_part(i, l)?,
        }
        self.cache = Arc::default();
        Ok(())
    }

    /// An edit of the whole text, kept as a splice over the bytes read (the whole text is
    /// not built).
    fn land_whole(&mut self, l: Landing) {
        let Landing {
            lo,
            hi,
            mid,
            top,
            region,
            ..
        } = l;
        let (lo, hi) = (self.start + lo, self.start + hi);
        self.buf = self.whole().clone();
        self.spliced = Some(Arc::new(Spliced::new(vec![Part {
            lo,
            hi,
            mid,
            region,
        }])));
        self.root = top;
    }

    /// An edit of an object of the bytes read that holds no part (at `b0` of them): a new
    /// part among the others.
    fn land_base(&mut self, b0: usize, l: Landing) -> Result<(), EditError> {
        let delta = l.delta();
        let Landing {
            shift,
            lo,
            hi,
            mid,
            region,
            ..
        } = l;
        let mut sp = self.take_spliced()?;
        let (lo_b, hi_b) = (b0 + lo, b0 + hi);
        let i = sp.parts.partition_point(|p| p.hi <= lo_b);
        if sp.parts.get(i).is_some_and(|p| p.lo < hi_b) {
            self.spliced = Some(Arc::new(sp));
            return Err(internal("an edit over another"));
        }
        sp.parts.insert(
            i,
            Part {
                lo: lo_b,
                hi: hi_b,
                mid,
                region,
            },
        );
        sp.reset();
        let end = hi.saturating_add_signed(shift.unwrap_or(0));
        self.root = moved(self.root.clone(), end, delta);
        self.spliced = Some(Arc::new(sp));
        Ok(())
    }

    /// An edit of the skeleton (the root with its big values left out): the parts the edit
    /// reaches are taken into its new part.
    fn land_skeleton(&mut self, l: Landing) -> Result<(), EditError> {
        let delta = l.delta();
        let Landing {
            holes,
            lo,
            hi,
            mid,
            top,
            ..
        } = l;
        let real = |p: usize| p + grown_by(&holes, p);
        let s = self.start;
        let (a, z) = (real(lo) + s, real(hi) + s);
        let mut sp = self.take_spliced()?;
        // Parts the range reaches or touches are taken into it whole (so that the
        // new part's place among them is never in doubt).
        let (mut a2, mut z2) = (a, z);
        let mut head = "";
        let mut tail = "";
        let mut reached = vec![false; sp.parts.len()];
        let (mut lo_r, mut hi_r) = (usize::MAX, 0usize);
        for (k, p, start, _) in sp.placed() {
            let end = start + p.mid.len();
            if start > z || end < a {
                continue;
            }
            reached[k] = true;
            (lo_r, hi_r) = (lo_r.min(p.lo), hi_r.max(p.hi));
            if start < a2 {
                head = p.mid.get(..a - start).unwrap_or("");
                a2 = start;
            }
            if end > z2 {
                tail = p.mid.get(z.saturating_sub(start)..).unwrap_or("");
                z2 = end;
            }
        }
        let (Some(lo_b), Some(hi_b)) = (sp.to_base(a2), sp.to_base(z2)) else {
            self.spliced = Some(Arc::new(sp));
            return Err(internal("an edit of the root outside the text"));
        };
        let (lo_b, hi_b) = (lo_b.min(lo_r), hi_b.max(hi_r));
        let (head, tail) = (head.to_owned(), tail.to_owned());
        // The new part stands where the first part it takes stood, else after every
        // part that ends before it in the whole text (parts that insert at one
        // position of the bytes read keep their order).
        let i = match reached.iter().position(|&r| r) {
            Some(i) => i,
            None => sp
                .placed()
                .take_while(|(_, p, start, _)| start + p.mid.len() <= a2)
                .count(),
        };
        let mut k = 0;
        sp.parts.retain(|_| {
            k += 1;
            !reached.get(k - 1).copied().unwrap_or(false)
        });
        let mid = format!("{head}{mid}{tail}");
        sp.parts.insert(
            i,
            Part {
                lo: lo_b,
                hi: hi_b,
                mid,
                region: None,
            },
        );
        sp.reset();
        // The root's spans in the new skeleton, where the holes after the edit moved.
        let moved_holes: Vec<(usize, usize)> = holes
            .iter()
            .map(|&(h, len)| {
                (
                    if h >= hi {
                        h.saturating_add_signed(delta)
                    } else {
                        h
                    },
                    len,
                )
            })
            .collect();
        self.root = moved_by(top, |p| p + grown_by(&moved_holes, p));
        self.spliced = Some(Arc::new(sp));
        Ok(())
    }

    /// An edit inside part `i` (the object it holds, after its lead).
    fn land_part(&mut self, i: usize, l: Landing) -> Result<(), EditError> {
        let delta = l.delta();
        let Landing {
            shift,
            lo,
            hi,
            mid,
            top,
            ..
        } = l;
        let mut sp = self.take_spliced()?;
        let at = shift.unwrap_or(0);
        let Some(part) = sp.parts.get_mut(i) else {
            self.spliced = Some(Arc::new(sp));
            return Err(internal("a view of an edit that is gone"));
        };
        let Some(r) = part.region.clone() else {
            self.spliced = Some(Arc::new(sp));
            return Err(internal("a view of an edit that is gone"));
        };
        let (a, z) = (
            (lo + r.at).checked_sub(r.lead.len()),
            (hi + r.at).checked_sub(r.lead.len()),
        );
        let ok = matches!((a, z), (Some(a), Some(z)) if a <= z && part.mid.get(a..z).is_some());
        let (Some(a), Some(z), true) = (a, z, ok) else {
            self.spliced = Some(Arc::new(sp));
            return Err(internal("an edit outside its view"));
        };
        part.mid.replace_range(a..z, &mid);
        sp.reset();
        self.root = if r.path.is_empty() {
            moved(top, 0, at)
        } else {
            let end = hi.saturating_add_signed(at);
            moved(self.root.clone(), end, delta)
        };
        self.spliced = Some(Arc::new(sp));
        Ok(())
    }
}

/// How many bytes the holes before skeleton position `p` stand for beyond their `0`.
fn grown_by(holes: &[(usize, usize)], p: usize) -> usize {
    holes
        .iter()
        .take_while(|&&(h, _)| h < p)
        .map(|&(_, len)| len - 1)
        .sum()
}

/// What a later edit inside object `obj` (at key path `path`) of a view of the whole text
/// needs, or `None` when the style is decided at or after the object's `{`.
pub(super) fn region_for(
    text: &str,
    tree: &Tree,
    obj: usize,
    style: &Style,
    path: &[String],
) -> Option<Region> {
    let o = tree.objs.get(obj)?;
    if style.decided >= o.open {
        return None;
    }
    let indent = line_indent(text, o.open);
    let b = text.as_bytes();
    let mut ls = o.open;
    while ls > 0 && b.get(ls - 1) != Some(&b'\n') {
        ls -= 1;
    }
    let line = text.get(ls..o.open)?;
    let lead = if line.bytes().all(|c| c == b' ' || c == b'\t') {
        line.to_owned()
    } else {
        let gap = line.len()
            - line
                .bytes()
                .rev()
                .take_while(|&c| c == b' ' || c == b'\t')
                .count();
        format!("{indent}:{}", line.get(gap..).unwrap_or(""))
    };
    let outer = Outer::above(text, tree, o.parent, &style.outer);
    Some(Region {
        path: path.to_vec(),
        lead,
        style: Style {
            outer,
            ..style.clone()
        },
        at: 0,
        tail: 0,
    })
}
