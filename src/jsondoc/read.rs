//! A document that is only read (`lint`): one strict pass builds the value and records where
//! every object member is, so that a reader of the whole tree parses the text once instead of
//! validating it, building it again and scanning objects for positions. The decisions and the
//! errors are the parser's own ([`parse_core`] builds and validates in the same pass; the
//! property tests prove it equal to [`JsonDoc::parse_for_reading`](super::JsonDoc)).

use serde_json::Value;

use super::api::{ReadError, Syntax, decode_text};
use super::parse::{MemSpan, Mode, ObjSpan, parse_core};

/// Objects with more members than this get a sorted index of their keys on first lookup;
/// smaller ones are searched in order.
const LINEAR: usize = 16;

/// A parsed, read-only JSON / JSONC document: its value and the spans of every object.
#[derive(Debug)]
pub struct ReadDoc {
    /// The whole file, BOM included.
    buf: String,
    /// Where the JSON text starts in `buf` (3 after a BOM, else 0).
    start: usize,
    root: Value,
    /// Every object in document order; the root is index 0.
    objs: Vec<ObjSpan>,
    /// Member indexes sorted by key, for the objects with more than [`LINEAR`] members that
    /// were looked up (built on demand).
    sorted: std::sync::Mutex<Vec<(usize, std::sync::Arc<[u32]>)>>,
}

impl ReadDoc {
    /// Parses `bytes` (optionally starting with a UTF-8 BOM) with the same strict rules and the
    /// same errors as [`JsonDoc::parse_for_reading`](super::JsonDoc::parse_for_reading).
    pub fn parse(bytes: Vec<u8>, syntax: Syntax) -> Result<ReadDoc, ReadError> {
        let (buf, start) = decode_text(bytes)?;
        let text = buf.get(start..).unwrap_or("");
        let parsed = parse_core(text, syntax, Mode::READ)?;
        if parsed.tree.objs.is_empty() || !parsed.root.is_object() {
            return Err(ReadError {
                code: crate::diag::Code::NotAnObject,
                message: "the top level of the file must be an object".into(),
                line: 1,
                column: 1,
            });
        }
        Ok(ReadDoc {
            start,
            root: parsed.root,
            objs: parsed.tree.objs,
            sorted: Default::default(),
            buf,
        })
    }

    /// The text after the BOM.
    pub fn text(&self) -> &str {
        self.buf.get(self.start..).unwrap_or("")
    }

    /// The root value (an object).
    pub fn root(&self) -> &Value {
        &self.root
    }

    /// The key of a member: kept by the parse when written with escapes ([`Mode::READ`]),
    /// else the text between its quotes.
    fn key<'s>(&'s self, m: &'s MemSpan) -> &'s str {
        if m.key.is_empty() {
            self.text()
                .get(m.key_start + 1..m.key_end - 1)
                .unwrap_or("")
        } else {
            &m.key
        }
    }

    /// The member `key` of the object with index `obj`.
    fn member_of(&self, obj: usize, key: &str) -> Option<&MemSpan> {
        let members = &self.objs.get(obj)?.members;
        if members.len() <= LINEAR {
            return members.iter().find(|m| self.key(m) == key);
        }
        let index = {
            let mut sorted = self.sorted.lock().ok()?;
            match sorted.iter().find(|(o, _)| *o == obj) {
                Some((_, ix)) => ix.clone(),
                None => {
                    let mut ix: Vec<u32> = (0..members.len())
                        .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
                        .collect();
                    ix.sort_unstable_by(|&a, &b| {
                        let key = |i: u32| members.get(i as usize).map(|m| self.key(m));
                        key(a).cmp(&key(b))
                    });
                    let ix: std::sync::Arc<[u32]> = ix.into();
                    sorted.push((obj, ix.clone()));
                    ix
                }
            }
        };
        let at = index
            .binary_search_by(|&i| members.get(i as usize).map_or("", |m| self.key(m)).cmp(key))
            .ok()?;
        members.get(*index.get(at)? as usize)
    }

    /// The member at a non-empty key path, if every step before the last is an object.
    fn member(&self, path: &[String]) -> Option<&MemSpan> {
        let (last, parents) = path.split_last()?;
        let mut obj = 0usize;
        for k in parents {
            obj = self.member_of(obj, k)?.obj?;
        }
        self.member_of(obj, last)
    }

    /// Byte range (in the text after the BOM) of the value of the member at `path` (a non-empty
    /// key path), if it exists.
    pub fn value_span(&self, path: &[String]) -> Option<(usize, usize)> {
        self.member(path).map(|m| (m.value_start, m.value_end))
    }

    /// Byte offset (in the text after the BOM) of the key of the member at `path` (a non-empty
    /// key path), if it exists.
    pub fn key_offset(&self, path: &[String]) -> Option<usize> {
        self.member(path).map(|m| m.key_start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key written without escapes is read from the text, one written with them from the
    /// parse: both are found, small objects and wide (sorted) ones alike.
    #[test]
    fn members_are_found_by_keys_with_and_without_escapes() {
        let mut wide: Vec<String> = (0..20).map(|i| format!("\"k{i}\": {i}")).collect();
        wide.push(r#""\u006b\/x": 1"#.into());
        let text = format!(
            r#"{{"a\"b": 1, "\u0041": {{"c": 2}}, "": 3, "\ud83d\ude00": 4, "é": 5, "w": {{{}}}}}"#,
            wide.join(", ")
        );
        let d = ReadDoc::parse(text.clone().into_bytes(), Syntax::Json).unwrap();
        let at = |path: &[&str]| {
            let p: Vec<String> = path.iter().map(|s| s.to_string()).collect();
            d.key_offset(&p)
        };
        for (path, written) in [
            (&["a\"b"][..], r#""a\"b""#),
            (&["A"], r#""\u0041""#),
            (&["A", "c"], r#""c""#),
            (&[""], r#""""#),
            (&["\u{1f600}"], r#""\ud83d\ude00""#),
            (&["é"], r#""é""#),
            (&["w", "k/x"], r#""\u006b\/x""#),
            (&["w", "k13"], r#""k13""#),
        ] {
            assert_eq!(at(path), text.find(written), "{path:?}");
        }
        assert_eq!(at(&["a\\\"b"]), None);
        assert_eq!(at(&["\\u0041"]), None);
        assert_eq!(at(&["w", "\\u006b\\/x"]), None);
        assert_eq!(at(&["w", "k20"]), None);
    }
}
