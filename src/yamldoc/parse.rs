//! The fail-closed parser of the YAML subset: block mappings and sequences, plain, quoted and
//! block scalars, flow collections; every node with its byte span. Anything outside the subset
//! is refused with the position of the first offending character. Recursion is bounded by
//! [`MAX_DEPTH`].

use std::borrow::Cow;

use serde_json::{Map, Value};

pub(crate) use super::scalar::resolve;

use crate::diag::{Code, ReadError};
use crate::text::line_col;

/// Deepest nesting accepted.
pub const MAX_DEPTH: usize = 128;

/// A parsed node.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    pub kind: Kind,
    /// Byte span of the node's text (for a block collection, from its first entry to the end
    /// of its last content line).
    pub start: usize,
    pub end: usize,
    /// Written in flow style (`[…]`, `{…}`) or as a scalar.
    pub flow: bool,
}

/// What a node holds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    Map(Vec<Entry>),
    Seq(Vec<Item>),
    Scalar(Value),
}

/// One `key: value` of a mapping.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub key: String,
    /// Offset of the key's first character.
    pub key_at: usize,
    /// Offset where the entry's first line starts (for a compact entry after `- `, the key).
    pub line_start: usize,
    /// Offset of the `:` after the key.
    pub colon: usize,
    /// End of the entry's last content line (before its newline).
    pub end: usize,
    pub value: Node,
}

/// One `- value` of a block sequence (or one element of a flow sequence).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Item {
    /// Offset of the `-` (the element, in flow).
    pub at: usize,
    /// Offset where the item's line starts.
    pub line_start: usize,
    /// End of the item's last content line.
    pub end: usize,
    pub value: Node,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Line {
    pub(crate) start: usize,
    /// End of the content, before `\r\n` / `\n`.
    pub(crate) end: usize,
    pub(crate) indent: usize,
    /// Blank or only a comment.
    pub(crate) empty: bool,
}

pub(crate) struct Parser<'a> {
    pub(crate) text: &'a str,
    pub(crate) b: &'a [u8],
    pub(crate) lines: Vec<Line>,
}

pub(crate) type R<T> = Result<T, ReadError>;

pub(crate) fn is_blank(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// The key of the mapping entry whose line holds it at `at`, read as [`Parser`] reads it
/// (`None`: the line holds no key there).
pub(crate) fn line_key(text: &str, at: usize) -> Option<Cow<'_, str>> {
    let b = text.as_bytes();
    let mut end = b
        .get(at..)?
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |i| at + i);
    if end > at && b[end - 1] == b'\r' {
        end -= 1;
    }
    if at >= end {
        return None;
    }
    let p = Parser {
        text,
        b,
        lines: Vec::new(),
    };
    Some(p.key_end(at, end).ok()??.1)
}

impl<'a> Parser<'a> {
    pub(crate) fn err(&self, code: Code, at: usize, message: impl Into<String>) -> ReadError {
        let (line, column) = line_col(self.text, at);
        ReadError {
            code,
            message: message.into(),
            line,
            column,
        }
    }

    pub(crate) fn unsupported(&self, at: usize, what: &str) -> ReadError {
        self.err(
            Code::UnsupportedYaml,
            at,
            format!(
                "{what}: valid YAML, but outside the subset mcpconf edits byte for byte, so the file is not edited (write it without, or edit it by hand)"
            ),
        )
    }

    pub(crate) fn parse_err(&self, at: usize, what: &str) -> ReadError {
        self.err(Code::ParseError, at, format!("invalid YAML: {what}"))
    }

    /// Split into lines and check what applies to the whole text.
    fn new(text: &'a str) -> R<Parser<'a>> {
        let b = text.as_bytes();
        let mut lines = Vec::new();
        let mut p = Parser {
            text,
            b,
            lines: Vec::new(),
        };
        let mut start = 0;
        while start < b.len() {
            let nl = b[start..].iter().position(|&c| c == b'\n');
            let (mut end, next) = match nl {
                Some(i) => (start + i, start + i + 1),
                None => (b.len(), b.len()),
            };
            if nl.is_some() && end > start && b[end - 1] == b'\r' {
                end -= 1;
            }
            if let Some(i) = b[start..end].iter().position(|&c| c == b'\r') {
                return Err(p.parse_err(start + i, "a carriage return that does not end a line"));
            }
            let mut indent = 0;
            while start + indent < end && b[start + indent] == b' ' {
                indent += 1;
            }
            let mut k = start + indent;
            while k < end && b[k] == b'\t' {
                k += 1;
            }
            let empty = k == end || b[k] == b'#';
            if !empty && k > start + indent {
                return Err(p.parse_err(start + indent, "a tab in indentation"));
            }
            lines.push(Line {
                start,
                end,
                indent,
                empty,
            });
            start = next;
        }
        p.lines = lines;
        for (i, c) in text.char_indices() {
            let bad = matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}')
                || matches!(c, '\u{80}'..='\u{84}' | '\u{86}'..='\u{9f}')
                || matches!(c, '\u{fffe}' | '\u{ffff}')
                || (c == '\u{feff}' && i > 0);
            if bad {
                return Err(p.parse_err(i, "a character YAML does not allow in a file"));
            }
        }
        Ok(p)
    }

    fn next_content(&self, from: usize) -> usize {
        let mut i = from;
        while i < self.lines.len() && self.lines[i].empty {
            i += 1;
        }
        i
    }

    pub(crate) fn line_of(&self, at: usize) -> usize {
        match self.lines.binary_search_by(|l| l.start.cmp(&at)) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }

    /// After a value ends at `at` on its line: only blanks and a comment may follow. Returns
    /// the next line index.
    pub(crate) fn finish_line(&self, at: usize) -> R<usize> {
        let li = self.line_of(at);
        let end = self.lines[li].end;
        let mut k = at;
        while k < end && is_blank(self.b[k]) {
            k += 1;
        }
        if k < end && !(self.b[k] == b'#' && k > at) {
            return Err(self.parse_err(k, "unexpected text after a value"));
        }
        Ok(li + 1)
    }

    /// [`Parser::inline`] and the index of the line after the value.
    fn inline_line(&self, at: usize, indent: usize, depth: usize) -> R<(Node, usize, usize)> {
        let (node, after) = self.inline(at, indent, depth, false)?;
        if matches!(self.b[at], b'|' | b'>') {
            let li = self.line_of(node.end.max(at));
            return Ok((node, after, li + 1));
        }
        let next = self.finish_line(after)?;
        Ok((node, after, next))
    }

    /// Parse the whole document.
    pub(crate) fn parse(text: &'a str) -> R<Node> {
        let p = Parser::new(text)?;
        // Directives and document markers: one optional `---` before the content, nothing else.
        let mut first = p.next_content(0);
        let mut doc_start = false;
        for (i, l) in p.lines.iter().enumerate() {
            if l.empty || l.indent > 0 {
                continue;
            }
            let s = &text[l.start..l.end];
            let marker = |m: &str| {
                s == m || s.starts_with(&format!("{m} ")) || s.starts_with(&format!("{m}\t"))
            };
            if s.starts_with('%') {
                return Err(p.unsupported(l.start, "a YAML directive"));
            }
            if marker("---") {
                if i == first && !doc_start {
                    doc_start = true;
                    let rest = s[3..].trim_start();
                    if !rest.is_empty() && !rest.starts_with('#') {
                        return Err(p.unsupported(l.start + 3, "content on the `---` line"));
                    }
                    continue;
                }
                return Err(p.unsupported(l.start, "a second YAML document (`---`)"));
            }
            if marker("...") {
                return Err(p.unsupported(l.start, "a document end marker (`...`)"));
            }
        }
        if doc_start {
            first = p.next_content(first + 1);
        }
        if first >= p.lines.len() {
            // Only comments: an empty mapping.
            return Ok(Node {
                kind: Kind::Map(Vec::new()),
                start: text.len(),
                end: text.len(),
                flow: false,
            });
        }
        let l = p.lines[first];
        if l.indent > 0 {
            return Err(p.parse_err(l.start + l.indent, "the document's first line is indented"));
        }
        // A block scalar as the whole document: readers disagree on whether an unindented line
        // below it (`# head`) is its content or a comment (yaml-rust2 and PyYAML differ), and no
        // config file is one, so it is refused rather than read one way.
        if matches!(p.b[l.start], b'|' | b'>') {
            return Err(p.unsupported(l.start, "a block scalar as the whole document"));
        }
        let (node, next) = p.block(first, 0, l.start, 0)?;
        let rest = p.next_content(next);
        if rest < p.lines.len() {
            let l = p.lines[rest];
            return Err(p.parse_err(
                l.start + l.indent,
                "unexpected text after the document's root",
            ));
        }
        Ok(node)
    }

    /// A block node starting at byte `at` on line `li`, whose lines are indented `indent`.
    fn block(&self, li: usize, indent: usize, at: usize, depth: usize) -> R<(Node, usize)> {
        if depth > MAX_DEPTH {
            return Err(self.err(
                Code::TooDeep,
                at,
                format!("the document is nested more than {MAX_DEPTH} levels deep"),
            ));
        }
        let l = self.lines[li];
        let c = self.b[at];
        if c == b'-' && (at + 1 == l.end || is_blank(self.b[at + 1])) {
            return self.seq(li, indent, at, depth);
        }
        if self.key_end(at, l.end)?.is_some() {
            return self.map(li, indent, at, depth);
        }
        let (node, _, next) = self.inline_line(at, indent, depth)?;
        self.no_deeper(next, indent)?;
        Ok((node, next))
    }

    /// The next content line must not be indented deeper than `indent` (a multi-line plain
    /// scalar or stray text).
    fn no_deeper(&self, next: usize, indent: usize) -> R<()> {
        let n = self.next_content(next);
        if n < self.lines.len() && self.lines[n].indent > indent {
            let l = self.lines[n];
            return Err(self.unsupported(
                l.start + l.indent,
                "a value continued on a more indented line (a multi-line plain or quoted scalar)",
            ));
        }
        Ok(())
    }

    /// If a mapping key starts at `at`, the offset of its `:` indicator.
    pub(super) fn key_end(&self, at: usize, end: usize) -> R<Option<(usize, Cow<'a, str>)>> {
        let b = self.b;
        match b[at] {
            b'"' | b'\'' => {
                let (v, after) = self.quoted(at, end)?;
                let mut k = after;
                while k < end && is_blank(b[k]) {
                    k += 1;
                }
                if k < end && b[k] == b':' && (k + 1 == end || is_blank(b[k + 1])) {
                    return Ok(Some((k, Cow::Owned(v))));
                }
                Ok(None)
            }
            b'?' if at + 1 == end || is_blank(b[at + 1]) => {
                Err(self.unsupported(at, "a complex mapping key (`?`)"))
            }
            b'[' | b'{' | b'&' | b'*' | b'!' | b'|' | b'>' | b'#' | b'%' | b'@' | b'`' => Ok(None),
            _ => {
                let mut k = at;
                while k < end {
                    if b[k] == b':' && (k + 1 == end || is_blank(b[k + 1])) {
                        let key = self.text[at..k].trim_end_matches([' ', '\t']);
                        return Ok(Some((k, Cow::Borrowed(key))));
                    }
                    if b[k] == b'#' && k > at && is_blank(b[k - 1]) {
                        return Ok(None);
                    }
                    k += 1;
                }
                Ok(None)
            }
        }
    }

    fn map(&self, mut li: usize, indent: usize, first_at: usize, depth: usize) -> R<(Node, usize)> {
        let mut entries: Vec<Entry> = Vec::new();
        let mut at = first_at;
        // The keys seen, for the duplicate check (a search of `entries` each would make a
        // mapping's parse quadratic in its keys).
        let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
        loop {
            let l = self.lines[li];
            let Some((colon, key)) = self.key_end(at, l.end)? else {
                return Err(self.parse_err(at, "expected `key: value` in a mapping"));
            };
            let key = key.into_owned();
            if key == "<<" && !matches!(self.b[at], b'"' | b'\'') {
                return Err(self.unsupported(at, "a merge key (`<<`)"));
            }
            if matches!(self.b[at], b'&' | b'*' | b'!') {
                return Err(self.unsupported(at, "an anchor, alias or tag"));
            }
            if !matches!(self.b[at], b'"' | b'\'') {
                self.plain_ok(at, colon)?;
            }
            if !seen.insert(key.clone()) {
                return Err(self.err(
                    Code::DuplicateKey,
                    at,
                    format!("the key `{key}` appears twice in one mapping"),
                ));
            }
            let line_start = if at == l.start + l.indent {
                l.start
            } else {
                at
            };
            let mut v = colon + 1;
            while v < l.end && is_blank(self.b[v]) {
                v += 1;
            }
            let (value, next, end);
            if v == l.end || self.b[v] == b'#' {
                // The value is on the following lines (or null).
                let n = self.next_content(li + 1);
                let nl = self.lines.get(n).copied();
                match nl {
                    Some(nl) if nl.indent > indent => {
                        let (node, nx) =
                            self.block(n, nl.indent, nl.start + nl.indent, depth + 1)?;
                        end = node.end;
                        value = node;
                        next = nx;
                    }
                    Some(nl)
                        if nl.indent == indent
                            && self.b[nl.start + nl.indent] == b'-'
                            && (nl.start + nl.indent + 1 == nl.end
                                || is_blank(self.b[nl.start + nl.indent + 1])) =>
                    {
                        let (node, nx) = self.seq(n, indent, nl.start + nl.indent, depth + 1)?;
                        end = node.end;
                        value = node;
                        next = nx;
                    }
                    _ => {
                        value = Node {
                            kind: Kind::Scalar(Value::Null),
                            start: v,
                            end: v,
                            flow: true,
                        };
                        end = colon + 1;
                        next = li + 1;
                    }
                }
            } else {
                let (node, after, nx) = self.inline_line(v, indent, depth + 1)?;
                end = if matches!(self.b[v], b'|' | b'>') {
                    node.end
                } else {
                    after
                };
                self.no_deeper(nx, indent)?;
                value = node;
                next = nx;
            }
            entries.push(Entry {
                key,
                key_at: at,
                line_start,
                colon,
                end,
                value,
            });
            let n = self.next_content(next);
            if n >= self.lines.len() || self.lines[n].indent != indent {
                if n < self.lines.len() && self.lines[n].indent > indent {
                    let l = self.lines[n];
                    return Err(self.parse_err(l.start + l.indent, "unexpected indentation"));
                }
                let start = entries.first().map_or(first_at, |e| e.key_at);
                let end = entries.last().map_or(first_at, |e| e.end);
                return Ok((
                    Node {
                        kind: Kind::Map(entries),
                        start,
                        end,
                        flow: false,
                    },
                    next,
                ));
            }
            li = n;
            at = self.lines[n].start + indent;
        }
    }

    fn seq(&self, mut li: usize, indent: usize, first_at: usize, depth: usize) -> R<(Node, usize)> {
        let mut items = Vec::new();
        let mut at = first_at;
        loop {
            let l = self.lines[li];
            if self.b[at] != b'-' || !(at + 1 == l.end || is_blank(self.b[at + 1])) {
                return Err(self.parse_err(at, "expected `- item` in a sequence"));
            }
            let line_start = if at == l.start + l.indent {
                l.start
            } else {
                at
            };
            let mut v = at + 1;
            while v < l.end && self.b[v] == b' ' {
                v += 1;
            }
            if v < l.end && self.b[v] == b'\t' {
                return Err(self.parse_err(v, "a tab after `-`"));
            }
            let (value, next);
            if v == l.end || self.b[v] == b'#' {
                let n = self.next_content(li + 1);
                match self.lines.get(n).copied() {
                    Some(nl) if nl.indent > indent => {
                        let (node, nx) =
                            self.block(n, nl.indent, nl.start + nl.indent, depth + 1)?;
                        value = node;
                        next = nx;
                    }
                    _ => {
                        value = Node {
                            kind: Kind::Scalar(Value::Null),
                            start: v,
                            end: v,
                            flow: true,
                        };
                        next = li + 1;
                    }
                }
            } else {
                // Compact: the item's own lines are indented to its first character.
                let col = v - l.start;
                let (node, nx) = self.block(li, col, v, depth + 1)?;
                value = node;
                next = nx;
            }
            let end = if value.end > at { value.end } else { at + 1 };
            items.push(Item {
                at,
                line_start,
                end,
                value,
            });
            let n = self.next_content(next);
            if n >= self.lines.len() || self.lines[n].indent != indent {
                if n < self.lines.len() && self.lines[n].indent > indent {
                    let l = self.lines[n];
                    return Err(self.parse_err(l.start + l.indent, "unexpected indentation"));
                }
                let end = items.last().map_or(first_at, |i| i.end);
                return Ok((
                    Node {
                        kind: Kind::Seq(items),
                        start: first_at,
                        end,
                        flow: false,
                    },
                    next,
                ));
            }
            li = n;
            at = self.lines[n].start + indent;
            if self.b[at] != b'-' {
                // A sibling key of the mapping that holds this sequence (`key:\n- a\nkey2:`).
                let end = items.last().map_or(first_at, |i| i.end);
                return Ok((
                    Node {
                        kind: Kind::Seq(items),
                        start: first_at,
                        end,
                        flow: false,
                    },
                    n,
                ));
            }
        }
    }

    /// A plain scalar's text must not start with an indicator.
    pub(crate) fn plain_ok(&self, at: usize, end: usize) -> R<()> {
        let b = self.b;
        match b[at] {
            b'&' | b'*' | b'!' => Err(self.unsupported(at, "an anchor, alias or tag")),
            b'@' | b'`' => Err(self.parse_err(at, "a reserved indicator (`@`, `` ` ``)")),
            b'|' | b'>' | b'%' | b',' | b']' | b'}' => {
                Err(self.parse_err(at, "a plain value cannot start with this character"))
            }
            b'-' | b'?' | b':' if at + 1 >= end || is_blank(b[at + 1]) => {
                Err(self.parse_err(at, "a plain value cannot start with this indicator"))
            }
            _ => Ok(()),
        }
    }

    /// A value that starts at `at` on a line (scalar, flow collection or block scalar header).
    /// Returns the node and the offset after it (for a block scalar, after its header).
    fn inline(&self, at: usize, indent: usize, depth: usize, in_flow: bool) -> R<(Node, usize)> {
        let b = self.b;
        let li = self.line_of(at);
        let end = self.lines[li].end;
        match b[at] {
            b'&' | b'*' | b'!' => Err(self.unsupported(at, "an anchor, alias or tag")),
            b'[' | b'{' => self.flow(at, depth),
            b'"' | b'\'' => {
                let (v, after) = self.quoted(at, end)?;
                Ok((
                    Node {
                        kind: Kind::Scalar(Value::String(v)),
                        start: at,
                        end: after,
                        flow: true,
                    },
                    after,
                ))
            }
            b'|' | b'>' if !in_flow => self.block_scalar(at, indent),
            _ => {
                let mut k = at;
                while k < end {
                    let c = b[k];
                    if c == b'#' && k > at && is_blank(b[k - 1]) {
                        break;
                    }
                    if c == b':' && (k + 1 == end || is_blank(b[k + 1])) {
                        return Err(
                            self.parse_err(k, "a `: ` inside a plain value (quote the value)")
                        );
                    }
                    k += 1;
                }
                let text = self.text[at..k].trim_end_matches([' ', '\t']);
                self.plain_ok(at, at + text.len())?;
                let after = at + text.len();
                Ok((
                    Node {
                        kind: Kind::Scalar(resolve(text)),
                        start: at,
                        end: after,
                        flow: true,
                    },
                    after,
                ))
            }
        }
    }
}

/// The JSON value of a node.
pub(crate) fn to_value(n: &Node) -> Value {
    match &n.kind {
        Kind::Scalar(v) => v.clone(),
        Kind::Seq(items) => Value::Array(items.iter().map(|i| to_value(&i.value)).collect()),
        Kind::Map(entries) => {
            let mut m = Map::new();
            for e in entries {
                m.insert(e.key.clone(), to_value(&e.value));
            }
            Value::Object(m)
        }
    }
}
