//! The proof of an edit of a big object without a copy of it.
//!
//! An edit of an object whose text is big (the root of a 72 MB `~/.claude.json`, or its
//! `projects`) changes a few bytes between its members: a member added before the `}`, one
//! removed with its lines. The members the edit does not reach keep their bytes, so their
//! values need not be read again: the proof runs on a *stand-in* of the object, its text with
//! each big untouched value replaced by `0`, and the edit's result is the new text of the
//! range its splices cover, not of the whole object.
//!
//! Why the stand-in proves the real result: the real new text is the stand-in's new text with
//! each `0` replaced by the value it stands for, byte for byte (the splices do not reach them).
//! Each such value was validated where it stands, at the same depth, when the file was read;
//! replacing a JSON value by another inside a valid text keeps it valid, keeps every key of
//! the object (so the duplicate check holds) and every other member's bytes. The checks that
//! `commit_local` makes on the stand-in (it parses alone, serde_json agrees, the other members
//! are byte-identical, the edited one holds what was intended) therefore hold for the real text.

use super::api::{EditError, internal};
use super::parse::ObjSpan;
use super::verify::Splice;

/// Objects at least this big are proven through a stand-in (in the tests, small ones too, so
/// that the unit and property tests exercise both proofs).
#[cfg(not(test))]
pub(super) const PROXY_MIN: usize = 1 << 20;
#[cfg(test)]
pub(super) const PROXY_MIN: usize = 48;

/// Values at least this big are replaced in the stand-in.
#[cfg(not(test))]
pub(super) const HOLE_MIN: usize = 256;
#[cfg(test)]
pub(super) const HOLE_MIN: usize = 6;

/// An object's stand-in: its text with big untouched values replaced by `0`.
pub(super) struct Proxy {
    pub(super) text: String,
    /// The splices, in the stand-in's positions.
    pub(super) splices: Vec<Splice>,
    /// Each replaced value: its start in the stand-in and its length in the real text.
    holes: Vec<(usize, usize)>,
}

/// Whether splice `s` reaches value `vs..ve` (an insertion at either end does not).
fn reaches(s: &Splice, vs: usize, ve: usize) -> bool {
    if s.start == s.end {
        vs < s.start && s.start < ve
    } else {
        s.start < ve && s.end > vs
    }
}

impl Proxy {
    /// The stand-in of object text `x` (members `members`, positions in `x`) for `splices`
    /// (positions in `x`); members `keep` names are never replaced. `None` when nothing
    /// would be replaced.
    pub(super) fn build(
        x: &str,
        members: &ObjSpan,
        splices: &[Splice],
        keep: &dyn Fn(&str) -> bool,
    ) -> Option<Proxy> {
        let mut text = String::new();
        let mut holes = Vec::new();
        // (real start, real end) of each hole, in order.
        let mut real = Vec::new();
        let mut at = 0usize;
        for m in &members.members {
            let (vs, ve) = (m.value_start, m.value_end);
            if ve - vs < HOLE_MIN || keep(&m.key) || splices.iter().any(|s| reaches(s, vs, ve)) {
                continue;
            }
            text.push_str(x.get(at..vs)?);
            holes.push((text.len(), ve - vs));
            real.push((vs, ve));
            text.push('0');
            at = ve;
        }
        if holes.is_empty() {
            return None;
        }
        text.push_str(x.get(at..)?);
        // A real position outside every hole, in the stand-in.
        let to_proxy = |p: usize| -> usize {
            let gone: usize = real
                .iter()
                .take_while(|&&(_, ve)| ve <= p)
                .map(|&(vs, ve)| ve - vs - 1)
                .sum();
            p - gone
        };
        let splices = splices
            .iter()
            .map(|s| Splice::new(to_proxy(s.start), to_proxy(s.end), s.with.clone()))
            .collect();
        Some(Proxy {
            text,
            splices,
            holes,
        })
    }

    /// The real position of position `p` of the stand-in's new text (the splices made).
    fn to_real(&self, p: usize) -> usize {
        let mut out = p;
        for &(start, len) in &self.holes {
            // Where the hole stands in the new stand-in: moved by the splices before it.
            let moved: isize = self
                .splices
                .iter()
                .filter(|s| s.end <= start && s.start <= start)
                .map(|s| s.with.len() as isize - (s.end - s.start) as isize)
                .sum();
            let new_start = start.saturating_add_signed(moved);
            if new_start < p {
                out += len - 1;
            }
        }
        out
    }

    /// `o` (spans in the stand-in's new text) in the real new text's positions.
    pub(super) fn real_spans(&self, o: ObjSpan) -> ObjSpan {
        super::verify::moved_by(o, |p| self.to_real(p))
    }
}

/// The range `lo..hi` of `x` that `splices` cover, and its new text.
pub(super) fn narrow(x: &str, splices: &[Splice]) -> Result<(usize, usize, String), EditError> {
    let lo = splices.iter().map(|s| s.start).min().unwrap_or(0);
    let hi = splices.iter().map(|s| s.end).max().unwrap_or(0);
    let part = x.get(lo..hi).ok_or_else(|| internal("edit out of range"))?;
    let local: Vec<Splice> = splices
        .iter()
        .map(|s| Splice::new(s.start - lo, s.end - lo, s.with.clone()))
        .collect();
    Ok((lo, hi, super::verify::apply_splices("", part, &local)?))
}
