//! The strict parser: iterative with an explicit stack, bounded by [`MAX_DEPTH`]. It either
//! validates only (recording the root's member spans) or builds the value and every object's
//! spans. It knows nothing about edits.

use crate::diag::Code;
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::collections::HashSet;

use super::api::{MAX_DEPTH, ReadError, Syntax, line_col};
use super::wide;

// ---------------------------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------------------------

/// Byte spans of one object, recorded by the parser for the editor.
#[derive(Debug, Clone)]
pub(super) struct ObjSpan {
    pub(super) open: usize,
    pub(super) close: usize,
    pub(super) parent: Option<usize>,
    pub(super) members: Vec<MemSpan>,
}

/// Byte spans of one `"key": value` member.
#[derive(Debug, Clone)]
pub(super) struct MemSpan {
    pub(super) key: String,
    pub(super) key_start: usize,
    pub(super) key_end: usize,
    pub(super) value_start: usize,
    pub(super) value_end: usize,
    /// Position of the comma after the value (separator, or trailing comma for the last member).
    pub(super) comma: Option<usize>,
    /// Index in `Tree::objs` when the value is an object.
    pub(super) obj: Option<usize>,
}

#[derive(Debug, Clone, Default)]
pub(super) struct Tree {
    /// Every object in document order; the root object (when the root is an object) is index 0.
    pub(super) objs: Vec<ObjSpan>,
}

pub(super) struct Parsed {
    pub(super) root: Value,
    pub(super) tree: Tree,
    /// Comment and trailing-comma spans (for the serde_json cross-check).
    pub(super) blanks: Vec<(usize, usize)>,
}

enum Frame {
    Obj {
        idx: usize,
        /// Where its members start in the members of the open objects (building; validating,
        /// none are kept: the keys are in [`Seen`]).
        members_from: usize,
        key: Option<(String, usize, usize)>,
        value_start: usize,
        comma: Option<usize>,
        /// Where this object's keys start in [`Seen::keys`].
        seen_from: usize,
    },
    Arr {
        start: usize,
        items: Vec<Value>,
        comma: Option<usize>,
    },
}

/// What the open objects have read so far.
#[derive(Default)]
struct Open<'a> {
    /// Their keys, for the duplicate check.
    seen: Seen<'a>,
    /// Their members, one after another (building): an object's are taken into its map when
    /// it closes, so the map is allocated once at its size and each key is hashed once.
    members: Vec<(String, Value)>,
}

/// Up to this many keys an object's duplicate check is a linear search.
const SMALL_OBJECT: usize = 12;

/// The keys of the open objects, for the validating pass's duplicate check: one list shared
/// by all open objects (no allocation per object, keys borrowed from the text unless they hold
/// escapes), searched linearly while an object is small and through a hash set once it has
/// more than [`SMALL_OBJECT`] keys (SipHash: the keys may be chosen by an attacker).
#[derive(Default)]
struct Seen<'a> {
    keys: Vec<Cow<'a, str>>,
    /// The hash sets of the open big objects, with the stack depth of each.
    sets: Vec<(usize, HashSet<Cow<'a, str>>)>,
}

impl<'a> Seen<'a> {
    /// Adds `key` to the object at stack depth `depth` whose keys start at `from`; gives the
    /// key back if the object already has it.
    fn insert(&mut self, depth: usize, from: usize, key: Cow<'a, str>) -> Result<(), Cow<'a, str>> {
        if let Some((d, set)) = self.sets.last_mut()
            && *d == depth
        {
            return if set.contains(&key) {
                Err(key)
            } else {
                set.insert(key);
                Ok(())
            };
        }
        let mine = self.keys.get(from..).unwrap_or(&[]);
        if mine.contains(&key) {
            return Err(key);
        }
        if mine.len() >= SMALL_OBJECT {
            let mut set: HashSet<Cow<'a, str>> = self.keys.drain(from..).collect();
            set.insert(key);
            self.sets.push((depth, set));
        } else {
            self.keys.push(key);
        }
        Ok(())
    }

    /// Forgets the keys of the object at `depth` (it is closed).
    fn close(&mut self, depth: usize, from: usize) {
        if self.sets.last().is_some_and(|(d, _)| *d == depth) {
            self.sets.pop();
        }
        self.keys.truncate(from);
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Value,
    ObjKeyOrEnd,
    ObjColon,
    ObjCommaOrEnd,
    ArrValueOrEnd,
    ArrCommaOrEnd,
    Done,
}

pub(super) struct Parser<'a> {
    pub(super) text: &'a str,
    pub(super) b: &'a [u8],
    pub(super) pos: usize,
    pub(super) syntax: Syntax,
    /// Comment and trailing-comma spans, blanked for the serde_json cross-check.
    pub(super) blanks: Vec<(usize, usize)>,
}

pub(super) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

impl<'a> Parser<'a> {
    pub(super) fn err(&self, code: Code, message: String, at: usize) -> ReadError {
        let (line, column) = line_col(self.text, at);
        ReadError {
            code,
            message,
            line,
            column,
        }
    }

    pub(super) fn found(&self, at: usize) -> String {
        match self.text.get(at..).and_then(|s| s.chars().next()) {
            None => "the end of the file".to_owned(),
            Some(c) => format!("`{}`", c.escape_debug()),
        }
    }

    pub(super) fn unexpected(&self, expected: &str) -> ReadError {
        let found = self.found(self.pos);
        let hint = match self.b.get(self.pos) {
            Some(b'\'') => " (strings and keys need double quotes)",
            Some(b'N' | b'I') => " (nan and infinity are not json)",
            Some(b'+') => " (numbers cannot start with `+`)",
            Some(b'.') => " (numbers need a digit before the `.`)",
            _ => "",
        };
        let msg = format!("expected {expected} but found {found}{hint}");
        if self.pos >= self.b.len() {
            self.err(
                Code::ParseError,
                format!("unexpected end of file: {msg}"),
                self.pos,
            )
        } else {
            self.err(Code::ParseError, msg, self.pos)
        }
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    /// Skips whitespace and (when allowed) comments.
    pub(super) fn skip_trivia(&mut self) -> Result<(), ReadError> {
        loop {
            match self.peek() {
                Some(c) if is_ws(c) => {
                    self.pos += wide::ws_run(self.b.get(self.pos..).unwrap_or(&[]));
                }
                Some(b'/') => {
                    let start = self.pos;
                    let next = self.b.get(start + 1).copied();
                    if !matches!(next, Some(b'/' | b'*')) {
                        return Err(self.unexpected("a json value or punctuation"));
                    }
                    if !self.syntax.comments() {
                        return Err(self.err(
                            Code::ParseError,
                            "comments are not allowed in a strict json file".into(),
                            start,
                        ));
                    }
                    if next == Some(b'/') {
                        let rest = self.b.get(start..).unwrap_or(&[]);
                        let len = rest
                            .iter()
                            .position(|&c| c == b'\n' || c == b'\r')
                            .unwrap_or(rest.len());
                        self.pos = start + len;
                    } else {
                        let body = self.b.get(start + 2..).unwrap_or(&[]);
                        match body.windows(2).position(|w| w == b"*/") {
                            Some(i) => self.pos = start + 2 + i + 2,
                            None => {
                                return Err(self.err(
                                    Code::ParseError,
                                    "unexpected end of file inside a block comment".into(),
                                    start,
                                ));
                            }
                        }
                    }
                    self.blanks.push((start, self.pos));
                }
                _ => return Ok(()),
            }
        }
    }

    pub(super) fn parse_string(&mut self) -> Result<String, ReadError> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        let mut run = self.pos;
        loop {
            let Some(c) = self.peek() else {
                return Err(self.err(
                    Code::ParseError,
                    "unexpected end of file inside a string".into(),
                    start,
                ));
            };
            match c {
                b'"' => {
                    out.push_str(self.text.get(run..self.pos).unwrap_or(""));
                    self.pos += 1;
                    return Ok(out);
                }
                b'\\' => {
                    out.push_str(self.text.get(run..self.pos).unwrap_or(""));
                    let esc = self.pos;
                    let Some(e) = self.b.get(esc + 1).copied() else {
                        return Err(self.err(
                            Code::ParseError,
                            "unexpected end of file inside a string".into(),
                            start,
                        ));
                    };
                    self.pos = esc + 2;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4(esc)?;
                            let cp = if (0xD800..0xDC00).contains(&hi) {
                                let lo = if self.b.get(self.pos) == Some(&b'\\')
                                    && self.b.get(self.pos + 1) == Some(&b'u')
                                {
                                    let save = self.pos;
                                    self.pos += 2;
                                    let lo = self.hex4(save)?;
                                    (0xDC00..0xE000).contains(&lo).then_some(lo)
                                } else {
                                    None
                                };
                                match lo {
                                    Some(lo) => 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00),
                                    None => {
                                        return Err(self.err(
                                            Code::ParseError,
                                            format!("lone surrogate `\\u{hi:04x}` in a string (it is not a valid character)"),
                                            esc,
                                        ));
                                    }
                                }
                            } else if (0xDC00..0xE000).contains(&hi) {
                                return Err(self.err(
                                    Code::ParseError,
                                    format!("lone surrogate `\\u{hi:04x}` in a string (it is not a valid character)"),
                                    esc,
                                ));
                            } else {
                                hi
                            };
                            match char::from_u32(cp) {
                                Some(ch) => out.push(ch),
                                None => {
                                    return Err(self.err(
                                        Code::ParseError,
                                        "invalid unicode escape in a string".into(),
                                        esc,
                                    ));
                                }
                            }
                        }
                        _ => {
                            return Err(self.err(
                                Code::ParseError,
                                format!(
                                    "invalid escape `\\{}` in a string",
                                    self.found(esc + 1).trim_matches('`')
                                ),
                                esc,
                            ));
                        }
                    }
                    run = self.pos;
                }
                c if c < 0x20 => {
                    return Err(self.err(
                        Code::ParseError,
                        format!(
                            "raw control character u+{c:04x} in a string (write it as `\\u{c:04x}`)"
                        ),
                        self.pos,
                    ));
                }
                _ => self.pos += 1,
            }
        }
    }

    /// Validates a string like [`Parser::parse_string`] (same errors) without building it:
    /// the wide scan for plain content and short escapes, the decoder for anything else.
    pub(super) fn skip_string(&mut self) -> Result<(), ReadError> {
        match wide::skip_string_body(self.b, self.pos + 1) {
            Some(end) => {
                self.pos = end;
                Ok(())
            }
            None => self.parse_string().map(drop),
        }
    }

    /// A key, borrowed from the text when it has no escapes (same errors as
    /// [`Parser::parse_string`]).
    fn key(&mut self) -> Result<Cow<'a, str>, ReadError> {
        let start = self.pos;
        if let Some(end) = wide::skip_string_body(self.b, start + 1) {
            let raw = self.text.get(start + 1..end - 1).unwrap_or("");
            if !raw.contains('\\') {
                self.pos = end;
                return Ok(Cow::Borrowed(raw));
            }
        }
        self.parse_string().map(Cow::Owned)
    }

    /// Reads 4 hex digits at `self.pos`; `esc` is where the escape started (for errors).
    pub(super) fn hex4(&mut self, esc: usize) -> Result<u32, ReadError> {
        let mut v = 0u32;
        for _ in 0..4 {
            let d = match self.peek() {
                Some(c @ b'0'..=b'9') => u32::from(c - b'0'),
                Some(c @ b'a'..=b'f') => u32::from(c - b'a' + 10),
                Some(c @ b'A'..=b'F') => u32::from(c - b'A' + 10),
                _ => {
                    return Err(self.err(
                        Code::ParseError,
                        "a `\\u` escape needs four hex digits".into(),
                        esc,
                    ));
                }
            };
            v = v * 16 + d;
            self.pos += 1;
        }
        Ok(v)
    }

    pub(super) fn digits(&mut self, what: &str) -> Result<(), ReadError> {
        if !matches!(self.peek(), Some(b'0'..=b'9')) {
            return Err(self.unexpected(what));
        }
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        Ok(())
    }

    pub(super) fn parse_number(&mut self) -> Result<Value, ReadError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits("a digit")?,
            _ => return Err(self.unexpected("a digit after `-`")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.digits("a digit after the decimal point")?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            self.digits("a digit in the exponent")?;
        }
        let raw = self.text.get(start..self.pos).unwrap_or("");
        match number_from_literal(raw) {
            Some(n) => Ok(Value::Number(n)),
            None => Err(self.err(
                Code::ParseError,
                format!("the number `{raw}` is out of range"),
                start,
            )),
        }
    }

    pub(super) fn literal(&mut self, word: &'static str, v: Value) -> Result<Value, ReadError> {
        if self.b.get(self.pos..self.pos + word.len()) == Some(word.as_bytes()) {
            self.pos += word.len();
            Ok(v)
        } else {
            Err(self.unexpected("a json value"))
        }
    }
}

/// Converts a validated JSON number literal. Integers become `u64`/`i64` when they fit (and `-0`
/// becomes `-0.0`, like serde_json); everything else is a correctly rounded `f64` (std's parser,
/// the same result as JavaScript's `JSON.parse`). `None` when the value is out of `f64` range.
fn number_from_literal(raw: &str) -> Option<Number> {
    let is_int = !raw.contains(['.', 'e', 'E']);
    if is_int {
        if let Some(digits) = raw.strip_prefix('-') {
            if digits.bytes().all(|c| c == b'0') {
                return Number::from_f64(-0.0);
            }
            if let Ok(i) = raw.parse::<i64>() {
                return Some(Number::from(i));
            }
        } else if let Ok(u) = raw.parse::<u64>() {
            return Some(Number::from(u));
        }
    }
    raw.parse::<f64>().ok().and_then(Number::from_f64)
}

/// The strict parser: iterative with an explicit stack, bounded by [`MAX_DEPTH`].
pub(super) fn parse_only(text: &str, syntax: Syntax) -> Result<Parsed, ReadError> {
    parse_core(text, syntax, Mode::BUILD)
}

/// How [`parse_core`] runs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Mode {
    /// Build the value and every object's spans (else only validate, recording the root
    /// object's own members, with `obj: None`).
    pub(super) build: bool,
    /// Accept any value at the top (a span of a document) instead of only an object.
    pub(super) any_root: bool,
    /// Nesting levels above the text (for the depth limit of a span).
    pub(super) base_depth: usize,
    /// Building: copy every key into its member's span (else only the keys written with
    /// escapes; [`super::ReadDoc`] reads the others from the text).
    pub(super) span_keys: bool,
}

impl Mode {
    pub(super) const BUILD: Mode = Mode {
        build: true,
        any_root: false,
        base_depth: 0,
        span_keys: true,
    };
    /// [`Mode::BUILD`] for [`super::ReadDoc`]: no copy of a key written without escapes.
    pub(super) const READ: Mode = Mode {
        span_keys: false,
        ..Mode::BUILD
    };
    pub(super) const VALIDATE: Mode = Mode {
        build: false,
        any_root: false,
        base_depth: 0,
        span_keys: true,
    };
}

/// A value just finished: the value, where it starts, and its index in `Tree::objs` when it
/// is an object; handed to the enclosing container.
type Finished = (Value, usize, Option<usize>);

/// What one step of the parser leads to: the next state, or a finished value.
enum Step {
    To(State),
    Done(Finished),
}

/// The strict parser's state between steps: the open containers and what is recorded.
struct Core<'t> {
    p: Parser<'t>,
    mode: Mode,
    tree: Tree,
    stack: Vec<Frame>,
    open: Open<'t>,
}

/// The strict parser (see [`Mode`]). In validate mode nothing is allocated per value except
/// the keys of the open objects (for the duplicate check); the errors are the same.
pub(super) fn parse_core(text: &str, syntax: Syntax, mode: Mode) -> Result<Parsed, ReadError> {
    let p = Parser {
        text,
        b: text.as_bytes(),
        pos: 0,
        syntax,
        blanks: Vec::new(),
    };
    if text.bytes().all(is_ws) {
        return Err(p.err(Code::EmptyFile, "the file is empty".into(), 0));
    }
    let mut c = Core {
        p,
        mode,
        tree: Tree::default(),
        stack: Vec::new(),
        open: Open::default(),
    };
    let mut state = State::Value;
    let mut root: Option<(Value, usize)> = None;
    loop {
        c.p.skip_trivia()?;
        let step = match state {
            State::Done => {
                if c.p.pos < c.p.b.len() {
                    return Err(c.p.err(
                        Code::ParseError,
                        format!(
                            "unexpected {} after the end of the json document",
                            c.p.found(c.p.pos)
                        ),
                        c.p.pos,
                    ));
                }
                break;
            }
            State::Value | State::ArrValueOrEnd => c.value(state)?,
            State::ObjKeyOrEnd => c.key_or_end()?,
            State::ObjColon => c.colon()?,
            State::ObjCommaOrEnd => c.obj_comma_or_end()?,
            State::ArrCommaOrEnd => c.arr_comma_or_end()?,
        };
        state = match step {
            Step::To(next) => next,
            Step::Done((v, start, _)) if c.stack.is_empty() => {
                root = Some((v, start));
                State::Done
            }
            Step::Done(finished) => c.hand_up(finished)?,
        };
    }
    c.finish(root)
}

impl Core<'_> {
    /// A value where one is expected (or, in an array, its end).
    #[inline]
    fn value(&mut self, state: State) -> Result<Step, ReadError> {
        let p = &mut self.p;
        let start = p.pos;
        let done = match p.peek() {
            Some(b']') if state == State::ArrValueOrEnd => close_array(p, &mut self.stack)?,
            Some(c @ (b'{' | b'[')) => return self.open_container(c),
            Some(b'"') if !self.mode.build => {
                p.skip_string()?;
                // The kind matters only for a top-level value (`not-an-object`).
                let v = if self.stack.is_empty() {
                    Value::String(String::new())
                } else {
                    Value::Null
                };
                (v, start, None)
            }
            Some(b'"') => (Value::String(p.parse_string()?), start, None),
            Some(b'-' | b'0'..=b'9') => (p.parse_number()?, start, None),
            Some(b't') => (p.literal("true", Value::Bool(true))?, start, None),
            Some(b'f') => (p.literal("false", Value::Bool(false))?, start, None),
            Some(b'n') => (p.literal("null", Value::Null)?, start, None),
            None if self.stack.is_empty() && !self.mode.any_root => {
                return Err(p.err(
                    Code::EmptyFile,
                    "the file contains only comments and no json value".into(),
                    0,
                ));
            }
            _ if state == State::ArrValueOrEnd => {
                return Err(p.unexpected("a json value or `]`"));
            }
            _ => return Err(p.unexpected("a json value")),
        };
        Ok(Step::Done(done))
    }

    /// `{` or `[` (the byte `c`) at the parser's position: a new open container.
    #[inline]
    fn open_container(&mut self, c: u8) -> Result<Step, ReadError> {
        let start = self.p.pos;
        if self.stack.len() + 1 + self.mode.base_depth > MAX_DEPTH {
            return Err(self.p.err(
                Code::TooDeep,
                format!("the document nests deeper than {MAX_DEPTH} levels"),
                start,
            ));
        }
        self.p.pos += 1;
        if c != b'{' {
            self.stack.push(Frame::Arr {
                start,
                items: Vec::new(),
                comma: None,
            });
            return Ok(Step::To(State::ArrValueOrEnd));
        }
        // Validating keeps only the root's span (the first object); the others would be
        // pushed and never read.
        let keep = self.mode.build || self.tree.objs.is_empty();
        if keep {
            let parent = self.stack.iter().rev().find_map(|f| match f {
                Frame::Obj { idx, .. } => Some(*idx),
                Frame::Arr { .. } => None,
            });
            self.tree.objs.push(ObjSpan {
                open: start,
                close: start,
                parent,
                members: Vec::new(),
            });
        }
        self.stack.push(Frame::Obj {
            idx: if keep {
                self.tree.objs.len() - 1
            } else {
                usize::MAX
            },
            members_from: self.open.members.len(),
            key: None,
            value_start: start,
            comma: None,
            seen_from: self.open.seen.keys.len(),
        });
        Ok(Step::To(State::ObjKeyOrEnd))
    }

    /// A key (checked against the object's others) or the object's end.
    #[inline]
    fn key_or_end(&mut self) -> Result<Step, ReadError> {
        let p = &mut self.p;
        match p.peek() {
            Some(b'}') => Ok(Step::Done(close_object(
                p,
                &mut self.stack,
                &mut self.tree,
                &mut self.open,
            )?)),
            Some(b'"') => {
                let start = p.pos;
                let depth = self.stack.len();
                let Some(Frame::Obj {
                    idx,
                    key: slot,
                    seen_from,
                    ..
                }) = self.stack.last_mut()
                else {
                    return Err(p.err(Code::ParseError, "internal parser error".into(), start));
                };
                let key = p.key()?;
                // Only the kept objects' members need their key (building: all of them;
                // validating: the root's).
                let owned = if self.mode.build || *idx != usize::MAX {
                    key.clone().into_owned()
                } else {
                    String::new()
                };
                match self.open.seen.insert(depth, *seen_from, key) {
                    Ok(()) => *slot = Some((owned, start, p.pos)),
                    Err(key) => {
                        let shown = serde_json::to_string(&key).unwrap_or_default();
                        return Err(p.err(
                            Code::DuplicateKey,
                            format!("duplicate key {shown} in an object (json readers keep only one of them)"),
                            start,
                        ));
                    }
                }
                Ok(Step::To(State::ObjColon))
            }
            _ => Err(p.unexpected("a double-quoted key or `}`")),
        }
    }

    /// The `:` after a key.
    #[inline]
    fn colon(&mut self) -> Result<Step, ReadError> {
        if self.p.peek() != Some(b':') {
            return Err(self.p.unexpected("`:` after the key"));
        }
        self.p.pos += 1;
        self.p.skip_trivia()?;
        if let Some(Frame::Obj { value_start, .. }) = self.stack.last_mut() {
            *value_start = self.p.pos;
        }
        Ok(Step::To(State::Value))
    }

    /// A `,` after an object member, or the object's end.
    #[inline]
    fn obj_comma_or_end(&mut self) -> Result<Step, ReadError> {
        let p = &mut self.p;
        match p.peek() {
            Some(b',') => {
                let at = p.pos;
                p.pos += 1;
                if let Some(Frame::Obj { idx, comma, .. }) = self.stack.last_mut() {
                    *comma = Some(at);
                    if let Some(m) = self
                        .tree
                        .objs
                        .get_mut(*idx)
                        .and_then(|o| o.members.last_mut())
                    {
                        m.comma = Some(at);
                    }
                }
                Ok(Step::To(State::ObjKeyOrEnd))
            }
            Some(b'}') => Ok(Step::Done(close_object(
                p,
                &mut self.stack,
                &mut self.tree,
                &mut self.open,
            )?)),
            _ => Err(p.unexpected("`,` or `}` after an object member")),
        }
    }

    /// A `,` after an array element, or the array's end.
    #[inline]
    fn arr_comma_or_end(&mut self) -> Result<Step, ReadError> {
        let p = &mut self.p;
        match p.peek() {
            Some(b',') => {
                let at = p.pos;
                p.pos += 1;
                if let Some(Frame::Arr { comma, .. }) = self.stack.last_mut() {
                    *comma = Some(at);
                }
                Ok(Step::To(State::ArrValueOrEnd))
            }
            Some(b']') => Ok(Step::Done(close_array(p, &mut self.stack)?)),
            _ => Err(p.unexpected("`,` or `]` after an array element")),
        }
    }

    /// A finished value handed to the open container it is in (the stack is not empty): a
    /// member of an object (its spans recorded) or an element of an array.
    #[inline]
    fn hand_up(&mut self, (v, start, obj): Finished) -> Result<State, ReadError> {
        let end = self.p.pos;
        let mode = self.mode;
        match self.stack.last_mut() {
            None => Err(self
                .p
                .err(Code::ParseError, "internal parser error".into(), start)),
            Some(Frame::Obj {
                idx,
                key,
                value_start,
                comma,
                ..
            }) => {
                let Some((k, key_start, key_end)) = key.take() else {
                    return Err(self.p.err(
                        Code::ParseError,
                        "internal parser error".into(),
                        start,
                    ));
                };
                *comma = None;
                let span = |key| MemSpan {
                    key,
                    key_start,
                    key_end,
                    value_start: *value_start,
                    value_end: end,
                    comma: None,
                    obj: if mode.build { obj } else { None },
                };
                if mode.build {
                    if let Some(o) = self.tree.objs.get_mut(*idx) {
                        // A key decoded from escapes is shorter than its text between the
                        // quotes; any other is that text.
                        let escaped = k.len() + 2 != key_end - key_start;
                        o.members.push(span(if mode.span_keys || escaped {
                            k.clone()
                        } else {
                            String::new()
                        }));
                    }
                    self.open.members.push((k, v));
                } else if let Some(o) = self.tree.objs.get_mut(*idx) {
                    o.members.push(span(k));
                }
                Ok(State::ObjCommaOrEnd)
            }
            Some(Frame::Arr { items, comma, .. }) => {
                *comma = None;
                if mode.build {
                    items.push(v);
                }
                Ok(State::ArrCommaOrEnd)
            }
        }
    }

    /// The end of the text: the root value (an object, unless any root is accepted) and the
    /// spans, or why there is none.
    fn finish(self, root: Option<(Value, usize)>) -> Result<Parsed, ReadError> {
        let (p, tree) = (self.p, self.tree);
        match root {
            Some((v, _)) if self.mode.any_root => Ok(Parsed {
                root: v,
                tree,
                blanks: p.blanks,
            }),
            Some((Value::Object(m), _)) => Ok(Parsed {
                root: Value::Object(m),
                tree,
                blanks: p.blanks,
            }),
            Some((v, start)) => {
                let kind = match v {
                    Value::Array(_) => "an array",
                    Value::String(_) => "a string",
                    Value::Number(_) => "a number",
                    Value::Bool(_) => "a boolean",
                    Value::Null => "null",
                    Value::Object(_) => "an object",
                };
                Err(p.err(
                    Code::NotAnObject,
                    format!("the top level of the file must be an object, not {kind}"),
                    start,
                ))
            }
            None => Err(p.err(Code::EmptyFile, "the file contains no json value".into(), 0)),
        }
    }
}

fn trailing_comma_check(p: &mut Parser<'_>, comma: Option<usize>) -> Result<(), ReadError> {
    if let Some(at) = comma {
        if !p.syntax.trailing_commas() {
            return Err(p.err(
                Code::ParseError,
                "trailing comma is not allowed in this file".into(),
                at,
            ));
        }
        p.blanks.push((at, at + 1));
    }
    Ok(())
}

fn close_object(
    p: &mut Parser<'_>,
    stack: &mut Vec<Frame>,
    tree: &mut Tree,
    open: &mut Open<'_>,
) -> Result<(Value, usize, Option<usize>), ReadError> {
    match stack.pop() {
        Some(Frame::Obj {
            idx,
            members_from,
            comma,
            seen_from,
            ..
        }) => {
            open.seen.close(stack.len() + 1, seen_from);
            trailing_comma_check(p, comma)?;
            let close = p.pos;
            p.pos += 1;
            let start = match tree.objs.get_mut(idx) {
                Some(o) => {
                    o.close = close;
                    o.open
                }
                None => close,
            };
            let map: Map<String, Value> = open.members.drain(members_from..).collect();
            Ok((Value::Object(map), start, Some(idx)))
        }
        _ => Err(p.err(Code::ParseError, "internal parser error".into(), p.pos)),
    }
}

fn close_array(
    p: &mut Parser<'_>,
    stack: &mut Vec<Frame>,
) -> Result<(Value, usize, Option<usize>), ReadError> {
    match stack.pop() {
        Some(Frame::Arr {
            start,
            items,
            comma,
        }) => {
            trailing_comma_check(p, comma)?;
            p.pos += 1;
            Ok((Value::Array(items), start, None))
        }
        _ => Err(p.err(Code::ParseError, "internal parser error".into(), p.pos)),
    }
}
