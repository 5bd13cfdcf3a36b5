//! Where an edit reads, and how its result becomes the document's text.
//!
//! An edit changes one object (the deepest one that exists on its key path). Its result is
//! kept as a splice over the bytes read: the file as read, with that object's bytes replaced
//! by its new text ([`Spliced`]). A later edit at or below that object reads a [`View`] of the
//! object's new text alone, with what the rest of the document decides of its layout (the
//! [`Region`]), and its result is spliced into that text: a second, third, … edit of the same
//! object (a mode switch removes one entry and adds another; a removal then restores the
//! object's inner whitespace) costs the object, never a copy of the file. Only an edit
//! outside the edited object builds the whole text first.

use std::borrow::Cow;
use std::sync::Arc;

use super::api::{EditError, JsonDoc, Spliced, internal};
use super::layout::{Outer, Style, line_indent};
use super::parse::{ObjSpan, Tree};
use super::scan::shallow;
use super::verify::{Committed, moved};

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
}

/// An edit's result, in the coordinates of the view it read: `lo..hi` of the view's text (the
/// edited object, or the part of a big one the edit covers) became `mid`, and the view's top
/// object became `top`.
pub(super) struct Landing {
    pub(super) shift: Option<isize>,
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
    /// The landing of proven edit `c` of object `x` read from view `v`; for a view of the
    /// whole text, what a later edit inside `x` (at key path `path`) needs is kept when `c`
    /// is the object's whole new text.
    pub(super) fn new(
        v: &View<'_>,
        tree: &Tree,
        obj: usize,
        path: &[String],
        c: Committed,
    ) -> Landing {
        let whole = tree.objs.get(obj).is_some_and(|x| c.whole(x));
        let region = if v.shift.is_none() && whole {
            region_for(&v.text, tree, obj, &v.style, path)
        } else {
            None
        };
        Landing {
            shift: v.shift,
            lo: c.lo,
            hi: c.hi,
            mid: c.mid,
            top: c.top,
            region,
        }
    }
}

impl JsonDoc {
    /// The view for an edit at key path `path`: the edited object's text when `path` lies at
    /// or below it, else the whole text (built when an earlier edit left it spliced).
    pub(super) fn view(&self, path: &[String]) -> View<'_> {
        if let Some(sp) = &self.spliced
            && let Some(r) = &sp.region
            && path.starts_with(&r.path)
        {
            let text: Cow<'_, str> = if r.lead.is_empty() {
                Cow::Borrowed(sp.mid.as_str())
            } else {
                Cow::Owned(format!("{}{}", r.lead, sp.mid))
            };
            let at = (sp.lo - self.start) as isize - r.lead.len() as isize;
            if let Some(root) = shallow(&text, r.lead.len(), self.syntax, None) {
                return View {
                    text,
                    root,
                    base: r.path.len(),
                    style: r.style.clone(),
                    shift: Some(at),
                };
            }
        }
        let text = self.text();
        View {
            text: Cow::Borrowed(text),
            root: self.root.clone(),
            base: 0,
            style: Style::detect(text, self.syntax),
            shift: None,
        }
    }

    /// The 1-based line and column of position `p` of a view.
    pub(super) fn view_line_col(&self, shift: Option<isize>, p: usize) -> (usize, usize) {
        let at = p.saturating_add_signed(shift.unwrap_or(0));
        super::api::line_col(self.text(), at)
    }

    /// Whether the object at `path` holds the edited object (so it has a member).
    pub(super) fn holds_region(&self, path: &[String]) -> bool {
        self.spliced
            .as_ref()
            .and_then(|sp| sp.region.as_ref())
            .is_some_and(|r| r.path.len() > path.len() && r.path.starts_with(path))
    }

    /// Makes an edit's result the document's text.
    pub(super) fn land(&mut self, l: Landing) -> Result<(), EditError> {
        let Landing {
            shift,
            lo,
            hi,
            mid,
            top,
            region,
        } = l;
        match shift {
            None => {
                // Kept as a splice over the bytes read (the whole text is not built).
                let (lo, hi) = (self.start + lo, self.start + hi);
                self.buf = self.whole().clone();
                self.spliced = Some(Arc::new(Spliced::new(lo, hi, mid, region)));
                self.root = top;
            }
            Some(at) => {
                let sp = self
                    .spliced
                    .take()
                    .ok_or_else(|| internal("a view of an edit that is gone"))?;
                let mut sp = Arc::try_unwrap(sp).unwrap_or_else(|a| a.copy());
                let r = sp
                    .region
                    .clone()
                    .ok_or_else(|| internal("a view of an edit that is gone"))?;
                let (a, z) = (lo.checked_sub(r.lead.len()), hi.checked_sub(r.lead.len()));
                let (Some(a), Some(z)) = (a, z) else {
                    self.spliced = Some(Arc::new(sp));
                    return Err(internal("an edit outside its view"));
                };
                if a > z || sp.mid.get(a..z).is_none() {
                    self.spliced = Some(Arc::new(sp));
                    return Err(internal("an edit outside its view"));
                }
                let old_len = sp.mid.len();
                sp.mid.replace_range(a..z, &mid);
                sp.reset();
                let x_close = (sp.lo - self.start) + old_len - 1;
                let delta = sp.mid.len() as isize - old_len as isize;
                self.root = if r.path.is_empty() {
                    moved(top, 0, at)
                } else {
                    moved(self.root.clone(), x_close + 1, delta)
                };
                self.spliced = Some(Arc::new(sp));
            }
        }
        self.cache = Arc::default();
        Ok(())
    }
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
    })
}
