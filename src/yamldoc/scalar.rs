//! Scalars and flow collections of the YAML subset: quoted and block scalars, the resolution
//! of plain scalars, `[…]` and `{…}`.

use serde_json::{Number, Value};

use super::parse::{Entry, Item, Kind, MAX_DEPTH, Node, Parser, R, is_blank};
use crate::diag::Code;

impl Parser<'_> {
    /// A single-line quoted scalar at `at`; its value and the offset after the closing quote.
    pub(crate) fn quoted(&self, at: usize, end: usize) -> R<(String, usize)> {
        let b = self.b;
        let q = b[at];
        let mut out = String::new();
        let mut k = at + 1;
        loop {
            if k >= end {
                return Err(self.unsupported(at, "a quoted value that goes on past its line"));
            }
            let c = b[k];
            if c == q {
                if q == b'\'' && k + 1 < end && b[k + 1] == b'\'' {
                    out.push('\'');
                    k += 2;
                    continue;
                }
                return Ok((out, k + 1));
            }
            if q == b'"' && c == b'\\' {
                let (ch, len) = self.escape(k, end)?;
                out.push_str(&ch);
                k += len;
                continue;
            }
            let ch = self.text[k..].chars().next().unwrap_or('\u{0}');
            if q == b'"' && c == b'\t' {
                out.push('\t');
                k += 1;
                continue;
            }
            out.push(ch);
            k += ch.len_utf8();
        }
    }

    fn escape(&self, k: usize, end: usize) -> R<(String, usize)> {
        let b = self.b;
        let Some(&e) = b.get(k + 1).filter(|_| k + 1 < end) else {
            return Err(self.unsupported(k, "an escaped line break in a quoted value"));
        };
        let simple = match e {
            b'0' => Some('\u{0}'),
            b'a' => Some('\u{7}'),
            b'b' => Some('\u{8}'),
            b't' | b'\t' => Some('\t'),
            b'n' => Some('\n'),
            b'v' => Some('\u{b}'),
            b'f' => Some('\u{c}'),
            b'r' => Some('\r'),
            b'e' => Some('\u{1b}'),
            b' ' => Some(' '),
            b'"' => Some('"'),
            b'/' => Some('/'),
            b'\\' => Some('\\'),
            b'N' => Some('\u{85}'),
            b'_' => Some('\u{a0}'),
            b'L' => Some('\u{2028}'),
            b'P' => Some('\u{2029}'),
            _ => None,
        };
        if let Some(c) = simple {
            return Ok((c.to_string(), 2));
        }
        let n = match e {
            b'x' => 2,
            b'u' => 4,
            b'U' => 8,
            _ => return Err(self.parse_err(k, "an unknown escape in a double-quoted value")),
        };
        let hex = self
            .text
            .get(k + 2..k + 2 + n)
            .filter(|h| k + 2 + n <= end && h.bytes().all(|c| c.is_ascii_hexdigit()))
            .ok_or_else(|| self.parse_err(k, "a bad hex escape"))?;
        let cp = u32::from_str_radix(hex, 16).map_err(|_| self.parse_err(k, "a bad hex escape"))?;
        let c = char::from_u32(cp)
            .ok_or_else(|| self.parse_err(k, "an escape that is not a character"))?;
        Ok((c.to_string(), 2 + n))
    }

    /// `|` / `>` with optional chomping and indentation indicators; the lines below it.
    pub(crate) fn block_scalar(&self, at: usize, parent: usize) -> R<(Node, usize)> {
        let li = self.line_of(at);
        let head = self.block_header(at, self.lines[li].end);
        self.finish_line(head.end)?;
        let body = self.block_body(li, parent, head.explicit);
        let lines = self.block_lines(li, &body)?;
        let mut value = if head.folded {
            fold(&lines)
        } else {
            literal(&lines)
        };
        // Trailing blank lines after the content (for keep chomping).
        let trailing = body.next.saturating_sub(body.last.unwrap_or(li) + 1);
        head.chomp.apply(&mut value, body.last.is_some(), trailing);
        let end = match body.last {
            Some(last) => self.lines[last].end,
            None => head.end,
        };
        Ok((
            Node {
                kind: Kind::Scalar(Value::String(value)),
                start: at,
                end,
                flow: false,
            },
            head.end,
        ))
    }

    /// The header of the block scalar at `at` (`|` or `>`), whose line ends at `line_end`.
    #[inline]
    fn block_header(&self, at: usize, line_end: usize) -> BlockHeader {
        let b = self.b;
        let mut k = at + 1;
        let mut chomp = Chomp::Clip;
        let mut explicit = None;
        for _ in 0..2 {
            if k < line_end {
                match b[k] {
                    b'-' if chomp == Chomp::Clip => {
                        chomp = Chomp::Strip;
                        k += 1;
                    }
                    b'+' if chomp == Chomp::Clip => {
                        chomp = Chomp::Keep;
                        k += 1;
                    }
                    c @ b'1'..=b'9' if explicit.is_none() => {
                        explicit = Some(usize::from(c - b'0'));
                        k += 1;
                    }
                    _ => {}
                }
            }
        }
        BlockHeader {
            folded: b[at] == b'>',
            chomp,
            explicit,
            end: k,
        }
    }

    /// The lines of the block scalar whose header is on line `li`, under a parent indented
    /// `parent`: every following line that is blank or indented deeper than the parent (and
    /// at least as deep as the first content line).
    #[inline]
    fn block_body(&self, li: usize, parent: usize, explicit: Option<usize>) -> BlockBody {
        let mut content_indent = explicit.map(|e| parent + e);
        let mut i = li + 1;
        let mut last = None;
        while i < self.lines.len() {
            let x = self.lines[i];
            let blank = self.text[x.start..x.end].trim_matches(' ').is_empty();
            if blank {
                i += 1;
                continue;
            }
            if x.indent <= parent {
                break;
            }
            let ci = *content_indent.get_or_insert(x.indent);
            if x.indent < ci {
                break;
            }
            last = Some(i);
            i += 1;
        }
        BlockBody {
            indent: content_indent.unwrap_or(parent + 1),
            last,
            next: i,
        }
    }

    /// The content lines of a block scalar whose header is on line `li`, without their
    /// indentation (a blank line shorter than it: empty); an error for a line indented less.
    #[inline]
    fn block_lines(&self, li: usize, body: &BlockBody) -> R<Vec<&str>> {
        let Some(last) = body.last else {
            return Ok(Vec::new());
        };
        let ci = body.indent;
        let mut lines: Vec<&str> = Vec::new();
        for x in &self.lines[li + 1..=last] {
            let s = &self.text[x.start..x.end];
            if s.len() < ci && s.trim_matches(' ').is_empty() {
                lines.push("");
            } else {
                if s.len() < ci || !s.as_bytes()[..ci].iter().all(|&c| c == b' ') {
                    return Err(self.parse_err(
                        x.start,
                        "a block scalar line indented less than its first line",
                    ));
                }
                lines.push(&s[ci..]);
            }
        }
        Ok(lines)
    }

    fn skip_flow_space(&self, mut k: usize) -> R<usize> {
        let b = self.b;
        loop {
            if k >= b.len() {
                return Err(self.parse_err(b.len(), "an unclosed flow collection"));
            }
            match b[k] {
                b' ' | b'\t' | b'\n' | b'\r' => k += 1,
                b'#' if k > 0 && matches!(b[k - 1], b' ' | b'\t' | b'\n') => {
                    while k < b.len() && b[k] != b'\n' {
                        k += 1;
                    }
                }
                _ => return Ok(k),
            }
        }
    }

    /// A flow collection at `at`; returns the node and the offset after its closing bracket.
    pub(crate) fn flow(&self, at: usize, depth: usize) -> R<(Node, usize)> {
        if depth > MAX_DEPTH {
            return Err(self.err(
                Code::TooDeep,
                at,
                format!("the document is nested more than {MAX_DEPTH} levels deep"),
            ));
        }
        let b = self.b;
        let close = if b[at] == b'[' { b']' } else { b'}' };
        let mut k = at + 1;
        let mut items = Vec::new();
        let mut entries: Vec<Entry> = Vec::new();
        // The keys seen, for the duplicate check (a search of `entries` each would make a
        // mapping's parse quadratic in its keys).
        let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
        loop {
            k = self.skip_flow_space(k)?;
            if b[k] == close {
                break;
            }
            let (node, after) = self.flow_value(k, depth)?;
            let mut j = self.skip_flow_space(after)?;
            if close == b'}' {
                if b[j] != b':' {
                    return Err(self.unsupported(j, "a flow mapping entry without `: `"));
                }
                let key = match &node.kind {
                    Kind::Scalar(Value::String(s)) => s.clone(),
                    Kind::Scalar(v) if node.start < node.end => {
                        let _ = v;
                        self.text[node.start..node.end].to_string()
                    }
                    _ => return Err(self.unsupported(k, "a mapping key that is not a scalar")),
                };
                if !seen.insert(key.clone()) {
                    return Err(self.err(
                        Code::DuplicateKey,
                        k,
                        format!("the key `{key}` appears twice in one mapping"),
                    ));
                }
                if key == "<<" && !matches!(b[k], b'"' | b'\'') {
                    return Err(self.unsupported(k, "a merge key (`<<`)"));
                }
                let colon = j;
                j = self.skip_flow_space(j + 1)?;
                let (value, after) = if b[j] == b',' || b[j] == close {
                    (
                        Node {
                            kind: Kind::Scalar(Value::Null),
                            start: j,
                            end: j,
                            flow: true,
                        },
                        j,
                    )
                } else {
                    self.flow_value(j, depth)?
                };
                entries.push(Entry {
                    key,
                    key_at: k,
                    line_start: k,
                    colon,
                    end: after,
                    value,
                });
                j = self.skip_flow_space(after)?;
            } else {
                if b[j] == b':' {
                    return Err(self.unsupported(j, "a single-pair mapping inside a flow sequence"));
                }
                items.push(Item {
                    at: k,
                    line_start: k,
                    end: after,
                    value: node,
                });
            }
            if b[j] == b',' {
                k = j + 1;
                continue;
            }
            if b[j] == close {
                k = j;
                break;
            }
            return Err(self.parse_err(j, "expected `,` or the end of the flow collection"));
        }
        let kind = if close == b']' {
            Kind::Seq(items)
        } else {
            Kind::Map(entries)
        };
        Ok((
            Node {
                kind,
                start: at,
                end: k + 1,
                flow: true,
            },
            k + 1,
        ))
    }

    fn flow_value(&self, k: usize, depth: usize) -> R<(Node, usize)> {
        let b = self.b;
        match b[k] {
            b'[' | b'{' => self.flow(k, depth + 1),
            b'"' | b'\'' => {
                let li = self.line_of(k);
                let (v, after) = self.quoted(k, self.lines[li].end)?;
                Ok((
                    Node {
                        kind: Kind::Scalar(Value::String(v)),
                        start: k,
                        end: after,
                        flow: true,
                    },
                    after,
                ))
            }
            b'&' | b'*' | b'!' => Err(self.unsupported(k, "an anchor, alias or tag")),
            b'?' => Err(self.unsupported(k, "a complex mapping key (`?`)")),
            _ => {
                let mut j = k;
                while j < b.len() {
                    let c = b[j];
                    if matches!(c, b',' | b'[' | b']' | b'{' | b'}' | b'\n' | b'\r') {
                        break;
                    }
                    if c == b':'
                        && (j + 1 >= b.len()
                            || matches!(
                                b[j + 1],
                                b' ' | b'\t' | b',' | b']' | b'}' | b'\n' | b'\r'
                            ))
                    {
                        break;
                    }
                    if c == b'#' && j > k && is_blank(b[j - 1]) {
                        break;
                    }
                    j += 1;
                }
                let text = self.text[k..j].trim_end_matches([' ', '\t']);
                if text.is_empty() {
                    return Err(self.parse_err(k, "an empty value in a flow collection"));
                }
                self.plain_ok(k, k + text.len())?;
                if j < b.len() && matches!(b[j], b'\n' | b'\r') {
                    return Err(self.unsupported(
                        k,
                        "a plain value in a flow collection that goes on past its line",
                    ));
                }
                Ok((
                    Node {
                        kind: Kind::Scalar(resolve(text)),
                        start: k,
                        end: k + text.len(),
                        flow: true,
                    },
                    k + text.len(),
                ))
            }
        }
    }
}

/// A block scalar's header: `|` or `>`, then its chomping and indentation indicators.
struct BlockHeader {
    /// `>`: the lines fold.
    folded: bool,
    chomp: Chomp,
    /// The indentation indicator: how much deeper than the parent the content is.
    explicit: Option<usize>,
    /// Where the indicators end.
    end: usize,
}

/// A block scalar's chomping indicator: what becomes of its final line breaks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Chomp {
    /// `-`: none is kept.
    Strip,
    /// No indicator: one is kept.
    Clip,
    /// `+`: all are kept, with the blank lines after the content.
    Keep,
}

impl Chomp {
    /// Chomps `value`, the content's lines joined (`content`: whether there is any;
    /// `trailing`: how many blank lines follow it).
    #[inline]
    fn apply(self, value: &mut String, content: bool, trailing: usize) {
        match self {
            Chomp::Strip => {
                while value.ends_with('\n') {
                    value.pop();
                }
            }
            Chomp::Clip => {
                while value.ends_with("\n\n") {
                    value.pop();
                }
                if !content {
                    value.clear();
                }
            }
            Chomp::Keep => {
                if !content {
                    value.clear();
                }
                for _ in 0..trailing {
                    value.push('\n');
                }
            }
        }
    }
}

/// Where a block scalar's lines are (indexes of the parser's `lines`).
struct BlockBody {
    /// The content's indentation.
    indent: usize,
    /// The last content line, if any.
    last: Option<usize>,
    /// The line after the scalar and the blank lines that follow it.
    next: usize,
}

/// A literal (`|`) block scalar's value: each line and a line break.
#[inline]
fn literal(lines: &[&str]) -> String {
    let mut value = String::new();
    for s in lines {
        value.push_str(s);
        value.push('\n');
    }
    value
}

/// A folded (`>`) block scalar's value: lines join with a space, an empty line is a line
/// break, and a more-indented line keeps its line breaks.
#[inline]
fn fold(lines: &[&str]) -> String {
    let mut value = String::new();
    let mut prev_more = false;
    let mut first = true;
    let mut pending_breaks = 0usize;
    for s in lines {
        if s.is_empty() {
            pending_breaks += 1;
            continue;
        }
        let more = s.starts_with([' ', '\t']);
        if !first {
            let breaks = if more || prev_more {
                pending_breaks + 1
            } else {
                pending_breaks
            };
            if breaks == 0 {
                value.push(' ');
            }
            for _ in 0..breaks {
                value.push('\n');
            }
        } else {
            for _ in 0..pending_breaks {
                value.push('\n');
            }
        }
        pending_breaks = 0;
        value.push_str(s);
        prev_more = more;
        first = false;
    }
    if !first {
        value.push('\n');
    }
    value
}

/// The value of a plain scalar (YAML 1.2 core schema; what cannot be a JSON number stays a
/// string).
pub(crate) fn resolve(s: &str) -> Value {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    if let Some(n) = number(s) {
        return Value::Number(n);
    }
    Value::String(s.to_string())
}

fn number(s: &str) -> Option<Number> {
    let b = s.as_bytes();
    if let Some(h) = s.strip_prefix("0x") {
        return (!h.is_empty() && h.bytes().all(|c| c.is_ascii_hexdigit()))
            .then(|| u64::from_str_radix(h, 16).ok().map(Number::from))
            .flatten();
    }
    if let Some(o) = s.strip_prefix("0o") {
        return (!o.is_empty() && o.bytes().all(|c| (b'0'..=b'7').contains(&c)))
            .then(|| u64::from_str_radix(o, 8).ok().map(Number::from))
            .flatten();
    }
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit()) {
        if let Ok(i) = s.parse::<i64>() {
            return Some(Number::from(i));
        }
        if let Ok(u) = s.trim_start_matches('+').parse::<u64>() {
            return Some(Number::from(u));
        }
        return s.parse::<f64>().ok().and_then(Number::from_f64);
    }
    // [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
    let mut i = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - int_start;
    let mut frac_digits = 0;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            frac_digits += 1;
        }
    }
    if int_digits == 0 && frac_digits == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
            i += 1;
        }
        let e = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == e {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    s.parse::<f64>().ok().and_then(Number::from_f64)
}
