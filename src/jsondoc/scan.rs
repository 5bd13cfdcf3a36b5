//! Fast walks over text the parser has already validated: member spans of one object, the end
//! of a value, string members. Nothing here builds values (except [`value_at`]) or knows about
//! edits.

use serde_json::Value;

use super::api::Syntax;
use super::parse::{MemSpan, Mode, ObjSpan, Parser, Tree, is_ws, parse_core};
use super::wide;

/// Calls `f(key, value)` for every object member whose value is a string and whose key passes
/// `want`, in any JSON or JSONC text, in one pass that builds nothing else. Best effort: it never
/// fails (invalid parts are skipped), and comments are ignored.
pub fn string_members(b: &[u8], want: impl Fn(&str) -> bool, mut f: impl FnMut(&str, &str)) {
    fn decode(raw: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
        let s = std::str::from_utf8(raw).ok()?;
        if s.contains('\\') {
            serde_json::from_str::<String>(s).ok().map(Into::into)
        } else {
            s.get(1..s.len().saturating_sub(1)).map(Into::into)
        }
    }
    let mut last: Option<(usize, usize)> = None;
    let mut key: Option<(usize, usize)> = None;
    let mut i = 0usize;
    while let Some(&c) = b.get(i) {
        match c {
            b'"' => {
                let end = skip_str(b, i).unwrap_or(b.len());
                match key.take() {
                    Some((ka, kz)) => {
                        if let (Some(k), Some(raw)) =
                            (b.get(ka..kz).and_then(decode), b.get(i..end))
                            && want(&k)
                            && let Some(v) = decode(raw)
                        {
                            f(&k, &v);
                        }
                        last = None;
                    }
                    None => last = Some((i, end)),
                }
                i = end;
            }
            b':' => {
                key = last.take();
                i += 1;
            }
            b'/' if matches!(b.get(i + 1), Some(b'/' | b'*')) => {
                i = skip_comment(b, i).unwrap_or(b.len()).max(i + 1);
            }
            c if is_ws(c) => i += wide::ws_run(b.get(i..).unwrap_or(&[])),
            _ => {
                key = None;
                last = None;
                i += 1;
            }
        }
    }
}

/// The members of the object whose `{` is at `open`, in already validated text (values are
/// skipped, not parsed). `None` if `open` is not an object.
pub(super) fn shallow(
    text: &str,
    open: usize,
    syntax: Syntax,
    parent: Option<usize>,
) -> Option<ObjSpan> {
    let b = text.as_bytes();
    if b.get(open) != Some(&b'{') {
        return None;
    }
    let mut p = Parser {
        text,
        b,
        pos: open + 1,
        syntax,
        blanks: Vec::new(),
    };
    let mut members = Vec::new();
    loop {
        p.skip_trivia().ok()?;
        match p.peek()? {
            b'}' => {
                return Some(ObjSpan {
                    open,
                    close: p.pos,
                    parent,
                    members,
                });
            }
            b'"' => {
                let key_start = p.pos;
                let key = p.parse_string().ok()?;
                let key_end = p.pos;
                p.skip_trivia().ok()?;
                if p.peek()? != b':' {
                    return None;
                }
                p.pos += 1;
                p.skip_trivia().ok()?;
                let value_start = p.pos;
                p.pos = skip_value(b, p.pos, syntax.comments())?;
                let value_end = p.pos;
                p.skip_trivia().ok()?;
                let comma = if p.peek() == Some(b',') {
                    p.pos += 1;
                    Some(p.pos - 1)
                } else {
                    None
                };
                members.push(MemSpan {
                    key,
                    key_start,
                    key_end,
                    value_start,
                    value_end,
                    comma,
                    obj: None,
                });
            }
            _ => return None,
        }
    }
}

/// End of the string starting at `pos` (one past its closing quote; in any bytes, a
/// backslash escaping the byte after it), 64 bytes at a time.
pub(super) fn skip_str(b: &[u8], pos: usize) -> Option<usize> {
    wide::string_end(b, pos + 1)
}

/// [`skip_str`] one byte at a time (the reference for the property test).
#[cfg(test)]
pub(super) fn skip_str_bytes(b: &[u8], pos: usize) -> Option<usize> {
    let mut i = pos + 1;
    loop {
        let n = b.get(i..)?.iter().position(|&c| c == b'"' || c == b'\\')?;
        i += n;
        if b.get(i) == Some(&b'"') {
            return Some(i + 1);
        }
        i += 2;
    }
}

/// End of the comment starting at `pos` (validated text), or `pos + 1` if there is none.
pub(super) fn skip_comment(b: &[u8], pos: usize) -> Option<usize> {
    match b.get(pos + 1) {
        Some(b'/') => {
            let rest = b.get(pos..)?;
            Some(
                pos + rest
                    .iter()
                    .position(|&c| c == b'\n' || c == b'\r')
                    .unwrap_or(rest.len()),
            )
        }
        Some(b'*') => {
            let body = b.get(pos + 2..)?;
            Some(pos + 2 + body.windows(2).position(|w| w == b"*/")? + 2)
        }
        _ => Some(pos + 1),
    }
}

/// End of the value starting at `pos` in validated text, found without building it.
pub(super) fn skip_value(b: &[u8], pos: usize, comments: bool) -> Option<usize> {
    match b.get(pos)? {
        b'"' => skip_str(b, pos),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = pos;
            loop {
                match b.get(i)? {
                    b'"' => i = skip_str(b, i)?,
                    b'{' | b'[' => {
                        depth += 1;
                        i += 1;
                    }
                    b'}' | b']' => {
                        depth -= 1;
                        i += 1;
                        if depth == 0 {
                            return Some(i);
                        }
                    }
                    b'/' if comments => i = skip_comment(b, i)?,
                    _ => i += 1,
                }
            }
        }
        _ => {
            let rest = b.get(pos..)?;
            let n = rest
                .iter()
                .position(|c| matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r' | b'/'))
                .unwrap_or(rest.len());
            Some(pos + n)
        }
    }
}

/// The value of `text[a..z]` (validated text).
pub(super) fn value_at(text: &str, a: usize, z: usize, syntax: Syntax) -> Option<Value> {
    let span = text.get(a..z)?;
    parse_core(
        span,
        syntax,
        Mode {
            build: true,
            any_root: true,
            base_depth: 0,
            span_keys: false,
        },
    )
    .ok()
    .map(|p| p.root)
}

/// The objects along `path` from the root (each with its own members, and `obj` set on the
/// member that leads to the next one); stops where the path leaves existing objects.
pub(super) fn spine(text: &str, root: &ObjSpan, path: &[String], syntax: Syntax) -> Tree {
    let mut tree = Tree {
        objs: vec![root.clone()],
    };
    let mut cur = 0usize;
    for key in path {
        let Some(o) = tree.objs.get(cur) else { break };
        let Some(j) = o.members.iter().position(|m| &m.key == key) else {
            break;
        };
        let Some(start) = o.members.get(j).map(|m| m.value_start) else {
            break;
        };
        let Some(child) = shallow(text, start, syntax, Some(cur)) else {
            break;
        };
        tree.objs.push(child);
        let idx = tree.objs.len() - 1;
        if let Some(m) = tree.objs.get_mut(cur).and_then(|o| o.members.get_mut(j)) {
            m.obj = Some(idx);
        }
        cur = idx;
    }
    tree
}
