//! The file's style (indentation unit, newline, one-line vs multi-line objects, separators) and
//! the writer of new text in that style; also the gap analysis around members used by edits.

use serde_json::Value;

use super::api::{EditError, MAX_DEPTH, Syntax, internal};
use super::parse::{MemSpan, ObjSpan, Tree, is_ws};
use super::scan::{skip_comment, skip_str};

/// Kinds of text found between tokens (the parser guarantees gaps hold only these).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Gap {
    Space,
    Newline,
    LineComment,
    BlockComment { multiline: bool },
    Comma,
    Other,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct GapItem {
    pub(super) kind: Gap,
    pub(super) start: usize,
    pub(super) end: usize,
}

pub(super) fn gap_items(b: &[u8], start: usize, end: usize) -> Vec<GapItem> {
    let end = end.min(b.len());
    let mut out = Vec::new();
    let mut i = start;
    while i < end {
        let s = i;
        let c = b.get(i).copied().unwrap_or(0);
        let kind = match c {
            b'\n' => {
                i += 1;
                Gap::Newline
            }
            b'\r' if b.get(i + 1) == Some(&b'\n') && i + 1 < end => {
                i += 2;
                Gap::Newline
            }
            b' ' | b'\t' | b'\r' => {
                while i < end && matches!(b.get(i), Some(b' ' | b'\t'))
                    || (i < end && b.get(i) == Some(&b'\r') && b.get(i + 1) != Some(&b'\n'))
                {
                    i += 1;
                }
                if i == s {
                    i += 1;
                }
                Gap::Space
            }
            b',' => {
                i += 1;
                Gap::Comma
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < end && !matches!(b.get(i), Some(b'\n' | b'\r')) {
                    i += 1;
                }
                Gap::LineComment
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                let mut multiline = false;
                let mut closed = false;
                while i < end {
                    match b.get(i) {
                        Some(b'*') if b.get(i + 1) == Some(&b'/') => {
                            i += 2;
                            closed = true;
                            break;
                        }
                        Some(b'\n') => {
                            multiline = true;
                            i += 1;
                        }
                        _ => i += 1,
                    }
                }
                if closed {
                    Gap::BlockComment { multiline }
                } else {
                    Gap::Other
                }
            }
            _ => {
                i += 1;
                Gap::Other
            }
        };
        out.push(GapItem {
            kind,
            start: s,
            end: i.min(end),
        });
    }
    out
}

/// Leading spaces/tabs of the line that contains `pos`.
pub(super) fn line_indent(text: &str, pos: usize) -> &str {
    let b = text.as_bytes();
    let mut ls = pos.min(b.len());
    while ls > 0 && b.get(ls - 1) != Some(&b'\n') {
        ls -= 1;
    }
    let mut e = ls;
    while matches!(b.get(e), Some(b' ' | b'\t')) {
        e += 1;
    }
    text.get(ls..e).unwrap_or("")
}

/// If only spaces/tabs stand between the previous `\n` and `pos`, returns that indentation.
pub(super) fn own_line_indent(b: &[u8], pos: usize) -> Option<&str> {
    let start = own_line_start(b, pos)?;
    let nl_end = b
        .get(start..pos)
        .map(|s| s.iter().take_while(|&&c| c == b'\r' || c == b'\n').count())?;
    std::str::from_utf8(b.get(start + nl_end..pos)?).ok()
}

/// If only spaces/tabs stand between the previous `\n` and `pos`, returns the position where that
/// line break starts (including a preceding `\r`).
pub(super) fn own_line_start(b: &[u8], pos: usize) -> Option<usize> {
    let mut i = pos;
    loop {
        if i == 0 {
            return None;
        }
        match b.get(i - 1)? {
            b' ' | b'\t' => i -= 1,
            b'\n' => {
                let nl = i - 1;
                return Some(if nl > 0 && b.get(nl - 1) == Some(&b'\r') {
                    nl - 1
                } else {
                    nl
                });
            }
            _ => return None,
        }
    }
}

/// Formatting conventions detected from the file.
#[derive(Debug, Clone, Default)]
pub(super) struct Style {
    pub(super) unit: String,
    pub(super) nl: &'static str,
    /// What the objects above the edited text decide of the layout (nothing, when the text
    /// is the whole document; see [`Outer`]).
    pub(super) outer: Outer,
    /// Every byte the detection read lies before this offset: a text that keeps those bytes
    /// has the same style.
    pub(super) decided: usize,
}

/// The layout facts that the ancestors of an object decide (what [`Layout::for_object`] reads
/// above it): kept with an edited object, so that a later edit inside it lays new text out as
/// one of the whole document would, without the document's other bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Outer {
    pub(super) multiline: Option<bool>,
    pub(super) colon: Option<String>,
    pub(super) sep: Option<String>,
}

impl Style {
    /// The newline of the first line break, and the indentation unit of the first object (in
    /// document order) whose first key is on its own line, indented deeper than the object.
    /// Scans validated text without building anything; usually stops at the root.
    pub(super) fn detect(text: &str, syntax: Syntax) -> Style {
        let first_nl = text.find('\n');
        let nl = match first_nl {
            Some(i) if i > 0 && text.as_bytes().get(i - 1) == Some(&b'\r') => "\r\n",
            _ => "\n",
        };
        let mut decided = first_nl.unwrap_or(text.len());
        let b = text.as_bytes();
        let comments = syntax.comments();
        let mut unit = None;
        let mut i = 0usize;
        while let Some(&c) = b.get(i) {
            match c {
                b'"' => i = skip_str(b, i).unwrap_or(b.len()),
                b'/' if comments => i = skip_comment(b, i).unwrap_or(b.len()),
                b'{' => {
                    // The first member's key, after whitespace and comments.
                    let mut k = i + 1;
                    loop {
                        match b.get(k) {
                            Some(&c) if is_ws(c) => k += 1,
                            Some(b'/') if comments => {
                                k = skip_comment(b, k).unwrap_or(b.len()).max(k + 1)
                            }
                            _ => break,
                        }
                    }
                    if b.get(k) == Some(&b'"')
                        && let Some(key_indent) = own_line_indent(b, k)
                        && let Some(extra) = key_indent.strip_prefix(line_indent(text, i))
                        && !extra.is_empty()
                    {
                        unit = Some(extra.to_owned());
                        decided = decided.max(k);
                        break;
                    }
                    i += 1;
                }
                _ => i += 1,
            }
        }
        if unit.is_none() {
            decided = text.len();
        }
        Style {
            unit: unit.unwrap_or_else(|| "  ".to_owned()),
            nl,
            outer: Outer::default(),
            decided,
        }
    }
}

/// How new text is laid out inside one object.
pub(super) struct Layout {
    pub(super) multiline: bool,
    /// Between a key and its value, e.g. `": "` or `":"`.
    pub(super) colon: String,
    /// Between members on one line, e.g. `", "` or `","`.
    pub(super) sep: String,
}

/// Whether the gaps of an object (outside member values) contain a line break; `None` when the
/// object is empty and its inner text has no line break.
fn object_multiline(b: &[u8], o: &ObjSpan) -> Option<bool> {
    let mut from = o.open + 1;
    let mut any_member = false;
    for m in &o.members {
        any_member = true;
        if b.get(from..m.key_start).is_some_and(|s| s.contains(&b'\n')) {
            return Some(true);
        }
        from = m.value_end;
    }
    if b.get(from..o.close).is_some_and(|s| s.contains(&b'\n')) {
        return Some(true);
    }
    any_member.then_some(false)
}

impl Layout {
    /// The layout of new text in object `obj`: decided by the object itself, else by its
    /// nearest ancestor in `tree` that decides, else by `outer` (the ancestors above `tree`'s
    /// top), else the defaults.
    pub(super) fn for_object(text: &str, tree: &Tree, obj: usize, outer: &Outer) -> Layout {
        let found = Outer::from(text, tree, Some(obj));
        let multiline = found.multiline.or(outer.multiline).unwrap_or(true);
        let colon = found
            .colon
            .or_else(|| outer.colon.clone())
            .unwrap_or_else(|| ": ".to_owned());
        let sep = found.sep.or_else(|| outer.sep.clone()).unwrap_or_else(|| {
            if colon.ends_with([' ', '\t']) {
                ", ".to_owned()
            } else {
                ",".to_owned()
            }
        });
        Layout {
            multiline,
            colon,
            sep,
        }
    }
}

impl Outer {
    /// What object `from` and its ancestors in `tree` decide (each fact from the nearest
    /// object that decides it), then what `outer` says above them.
    pub(super) fn above(text: &str, tree: &Tree, from: Option<usize>, outer: &Outer) -> Outer {
        let found = Outer::from(text, tree, from);
        Outer {
            multiline: found.multiline.or(outer.multiline),
            colon: found.colon.or_else(|| outer.colon.clone()),
            sep: found.sep.or_else(|| outer.sep.clone()),
        }
    }

    fn from(text: &str, tree: &Tree, from: Option<usize>) -> Outer {
        let b = text.as_bytes();
        // One-line vs multi-line from the nearest object that decides.
        let mut multiline = None;
        let mut cur = from;
        let mut guard = 0;
        while let Some(i) = cur {
            let Some(o) = tree.objs.get(i) else { break };
            if let Some(m) = object_multiline(b, o) {
                multiline = Some(m);
                break;
            }
            cur = o.parent;
            guard += 1;
            if guard > MAX_DEPTH + 1 {
                break;
            }
        }
        // Separators from the nearest object with members.
        let mut colon = None;
        let mut sep = None;
        let mut cur = from;
        let mut guard = 0;
        while let Some(i) = cur {
            let Some(o) = tree.objs.get(i) else { break };
            if colon.is_none()
                && let Some(m) = o.members.last()
                && let Some(s) = text.get(m.key_end..m.value_start)
                && s.bytes().all(|c| matches!(c, b' ' | b'\t' | b':'))
                && s.bytes().filter(|&c| c == b':').count() == 1
            {
                colon = Some(s.to_owned());
            }
            if sep.is_none()
                && let (Some(m0), Some(m1)) = (o.members.first(), o.members.get(1))
                && let Some(s) = text.get(m0.value_end..m1.key_start)
                && s.starts_with(',')
                && s.bytes().skip(1).all(|c| matches!(c, b' ' | b'\t'))
            {
                sep = Some(s.to_owned());
            }
            if colon.is_some() && sep.is_some() {
                break;
            }
            cur = o.parent;
            guard += 1;
            if guard > MAX_DEPTH + 1 {
                break;
            }
        }
        Outer {
            multiline,
            colon,
            sep,
        }
    }
}

pub(super) fn json_string(s: &str) -> Result<String, EditError> {
    serde_json::to_string(s).map_err(|_| internal("string escaping failed"))
}

/// Writes `v` in the given layout; in multi-line layout `indent` is the indentation of the line the
/// value starts on. Recursion is bounded by the depth check done before any edit.
pub(super) fn write_value(
    out: &mut String,
    v: &Value,
    layout: &Layout,
    indent: &str,
    style: &Style,
) -> Result<(), EditError> {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => out.push_str(&json_string(s)?),
        Value::Object(m) if m.is_empty() => out.push_str("{}"),
        Value::Array(a) if a.is_empty() => out.push_str("[]"),
        Value::Object(m) => {
            out.push('{');
            let inner = format!("{indent}{}", style.unit);
            for (i, (k, v)) in m.iter().enumerate() {
                if layout.multiline {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(style.nl);
                    out.push_str(&inner);
                } else if i > 0 {
                    out.push_str(&layout.sep);
                }
                out.push_str(&json_string(k)?);
                out.push_str(&layout.colon);
                write_value(out, v, layout, &inner, style)?;
            }
            if layout.multiline {
                out.push_str(style.nl);
                out.push_str(indent);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            let inner = format!("{indent}{}", style.unit);
            for (i, v) in a.iter().enumerate() {
                if layout.multiline {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(style.nl);
                    out.push_str(&inner);
                } else if i > 0 {
                    out.push_str(&layout.sep);
                }
                write_value(out, v, layout, &inner, style)?;
            }
            if layout.multiline {
                out.push_str(style.nl);
                out.push_str(indent);
            }
            out.push(']');
        }
    }
    Ok(())
}

/// Start of the whitespace run that precedes a key, scanning the gap `[from, key_start)` forwards.
/// A line break that ends a `//` comment is kept, so the comment never swallows the next token.
pub(super) fn ws_run_start(b: &[u8], from: usize, key_start: usize) -> usize {
    let items = gap_items(b, from, key_start);
    let mut start = from;
    let mut after_line_comment = false;
    for it in &items {
        match it.kind {
            Gap::Space => {}
            Gap::Newline => {
                if after_line_comment {
                    start = it.end;
                    after_line_comment = false;
                }
            }
            Gap::LineComment => {
                start = it.end;
                after_line_comment = true;
            }
            _ => {
                start = it.end;
                after_line_comment = false;
            }
        }
    }
    start
}

/// If the member ends its line (only a comma and comments after it, then a line break), the
/// position where that line break starts.
pub(super) fn own_line_end(b: &[u8], m: &MemSpan, next: usize) -> Option<usize> {
    let items = gap_items(b, m.value_end, next);
    let mut iter = items.iter().peekable();
    let mut end = None;
    while let Some(it) = iter.next() {
        match it.kind {
            // A lone `\r` ends a `//` comment, and a member inserted after such a comment is
            // followed by it: the member's line ends before it (found by fuzzing: removal
            // swallowed the `\r`). Only right after the value, so whitespace before a lone `\r`
            // is never taken.
            Gap::Space if b.get(it.start) == Some(&b'\r') => {
                end = Some(it.start);
                break;
            }
            Gap::Space | Gap::Comma | Gap::BlockComment { multiline: false } => {}
            Gap::LineComment => {
                if iter.peek().is_some_and(|n| n.kind == Gap::Newline) {
                    end = Some(it.end);
                }
                break;
            }
            Gap::Newline => {
                end = Some(it.start);
                break;
            }
            _ => break,
        }
    }
    let end = end?;
    match m.comma {
        Some(c) if c >= end => None,
        _ => Some(end),
    }
}
