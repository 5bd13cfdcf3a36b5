//! A parsed file with positions: JSON through [`crate::jsondoc`] (fail closed, with the
//! position of the first problem), TOML through `toml_edit` (which keeps spans). Lint only
//! reads, so a TOML file mcpconf could not edit byte for byte is still linted.

use crate::diag::Code;
use serde_json::Value;

use crate::dialect::Syntax;
use crate::document::ReadError;
use crate::jsondoc::{self, ReadDoc};
use crate::text::line_col;
use crate::yamldoc::YamlDoc;

/// A parsed document.
pub(crate) struct Source {
    /// The text of a TOML file (a JSON document holds its own).
    text: String,
    kind: Kind,
    /// Byte offsets where the lines of the text start (built on the first [`Source::line`],
    /// or on the [`EARLY_LOOKUPS`]th position looked up: the first few are counted directly).
    lines: std::sync::OnceLock<Vec<usize>>,
    /// Positions looked up so far without the table.
    lookups: std::sync::atomic::AtomicU8,
    /// A TOML root list of named tables (`[[mcp_servers]]`): its keyed segment and the index
    /// of each name's first table, built on the first lookup.
    keyed: std::sync::OnceLock<(String, std::collections::HashMap<String, usize>)>,
    /// YAML: for each top-level key located under (the container), the offset of every key and
    /// named item below it by its relative path, built on the first lookup under it.
    yaml_children: std::sync::Mutex<YamlIndex>,
}

/// [`Source::yaml_children`]: top-level key → (relative path → offset).
type YamlIndex = std::collections::HashMap<String, std::collections::HashMap<Vec<String>, usize>>;

/// The first table of `tables` whose `field` is `name`.
fn find_named<'t>(
    tables: &'t toml_edit::ArrayOfTables,
    field: &str,
    name: &str,
) -> Option<&'t toml_edit::Table> {
    tables
        .iter()
        .find(|t| t.get(field).and_then(|v| v.as_str()) == Some(name))
}

/// Positions looked up by counting line feeds before the line table is built: a file is
/// usually located once or twice (its entry), and for a few hundred bytes counting is cheaper
/// than building the table.
const EARLY_LOOKUPS: u8 = 4;

enum Kind {
    /// The document, with its root value and the spans of its members (lint reads the whole
    /// tree, so it is built once, in the pass that validates it).
    Json(Box<ReadDoc>),
    Toml(Box<toml_edit::Document<String>>, Value),
    /// YAML: lists of named items also read as objects under `<key>[name]`.
    Yaml(Box<YamlDoc>, Value),
}

impl Source {
    /// Parse bytes in a client's syntax.
    pub fn parse(bytes: Vec<u8>, syntax: Syntax) -> Result<Source, ReadError> {
        if syntax == Syntax::Toml {
            return parse_toml(&bytes);
        }
        if syntax == Syntax::Yaml {
            // Lint reads the whole tree: no parts.
            let d = YamlDoc::parse_whole(bytes)?;
            let root = d.lint_value();
            return Ok(Source {
                text: String::new(),
                kind: Kind::Yaml(Box::new(d), root),
                lines: Default::default(),
                lookups: Default::default(),
                keyed: Default::default(),
                yaml_children: Default::default(),
            });
        }
        let jsyntax = match syntax {
            Syntax::JsonComments => jsondoc::Syntax::JsonComments,
            Syntax::Jsonc => jsondoc::Syntax::Jsonc,
            _ => jsondoc::Syntax::Json,
        };
        // Lint only reads: the strict parse, without the second opinion that guards edits.
        let d = ReadDoc::parse(bytes, jsyntax).map_err(|e| ReadError {
            code: e.code,
            message: e.message,
            line: e.line,
            column: e.column,
        })?;
        Ok(Source {
            text: String::new(),
            kind: Kind::Json(Box::new(d)),
            lines: Default::default(),
            lookups: Default::default(),
            keyed: Default::default(),
            yaml_children: Default::default(),
        })
    }

    /// The root value.
    pub fn root(&self) -> &Value {
        match &self.kind {
            Kind::Json(d) => d.root(),
            Kind::Toml(_, v) | Kind::Yaml(_, v) => v,
        }
    }

    /// The value at a key path.
    pub fn get(&self, path: &[String]) -> Option<&Value> {
        let mut cur = self.root();
        for k in path {
            cur = member(cur.as_object()?, k)?;
        }
        Some(cur)
    }

    /// Line and column of the key of the member at `path`, or of the nearest ancestor that has
    /// one; 1:1 for the root.
    pub fn locate(&self, path: &[String]) -> (usize, usize) {
        for n in (1..=path.len()).rev() {
            if let Some(at) = self.key_location(&path[..n]) {
                return at;
            }
        }
        (1, 1)
    }

    fn key_location(&self, path: &[String]) -> Option<(usize, usize)> {
        match &self.kind {
            Kind::Json(d) => Some(self.line_col(d.key_offset(path)?)),
            Kind::Yaml(d, _) => {
                // Every place below a top-level key is indexed once, in one walk (lint locates
                // a finding in every entry, and in fields of every entry: a walk from the root
                // each would make it quadratic).
                let (first, rest) = path.split_first()?;
                if rest.is_empty() {
                    return Some(self.line_col(d.offset(path)?));
                }
                let found = {
                    let mut index = self.yaml_children.lock().unwrap_or_else(|e| e.into_inner());
                    index
                        .entry(first.clone())
                        .or_insert_with(|| {
                            d.descendant_offsets(std::slice::from_ref(first))
                                .unwrap_or_default()
                        })
                        .get(rest)
                        .copied()
                };
                let at = match found {
                    Some(at) => at,
                    // The index holds every key and named item; only a keyed list deeper
                    // down (`key[field]` below the entry) is looked up the long way.
                    None if rest
                        .iter()
                        .any(|seg| crate::keyed::keyed_segment(seg).is_some()) =>
                    {
                        d.offset(path)?
                    }
                    None => return None,
                };
                Some(self.line_col(at))
            }
            Kind::Toml(d, _) => {
                let mut table: &dyn toml_edit::TableLike = d.as_table();
                let mut i = 0;
                while i < path.len() {
                    let seg = &path[i];
                    let last = i + 1 == path.len();
                    // A keyed list (`mcp_servers[name]`): the next segment names a table of
                    // the `[[mcp_servers]]` array; the entry itself is located at its name.
                    if let Some((key, field)) = crate::keyed::keyed_segment(seg) {
                        let key_span = || table.key(key).and_then(|k| k.span());
                        if last {
                            return Some(self.line_col(key_span()?.start));
                        }
                        let name = &path[i + 1];
                        let tables = table.get(key)?.as_array_of_tables()?;
                        // The root's list is looked up by name in an index built once (every
                        // entry is located: a search each would make lint quadratic).
                        let t = if i == 0 {
                            let index = self.keyed.get_or_init(|| {
                                let mut m = std::collections::HashMap::new();
                                for (k, t) in tables.iter().enumerate() {
                                    if let Some(n) = t.get(field).and_then(|v| v.as_str()) {
                                        m.entry(n.to_string()).or_insert(k);
                                    }
                                }
                                (seg.clone(), m)
                            });
                            if index.0 == *seg {
                                tables.get(*index.1.get(name.as_str())?)?
                            } else {
                                find_named(tables, field, name)?
                            }
                        } else {
                            find_named(tables, field, name)?
                        };
                        if i + 2 == path.len() {
                            let span = t.key(field)?.span()?;
                            return Some(self.line_col(span.start));
                        }
                        table = t;
                        i += 2;
                        continue;
                    }
                    if last {
                        let span = table.key(seg)?.span()?;
                        return Some(self.line_col(span.start));
                    }
                    table = table.get(seg)?.as_table_like()?;
                    i += 1;
                }
                None
            }
        }
    }

    /// Line and column of the string element `needle` inside the array at `path`, else of the
    /// array's key.
    pub fn locate_element(&self, path: &[String], needle: &str) -> (usize, usize) {
        if let Kind::Json(d) = &self.kind
            && let Some((start, end)) = d.value_span(path)
            && let Some(span) = self.text().get(start..end)
        {
            let quoted = Value::String(needle.to_string()).to_string();
            if let Some(i) = span.find(&quoted) {
                return self.line_col(start + i);
            }
        }
        if let Kind::Toml(d, _) = &self.kind {
            let mut item: Option<&toml_edit::Item> = None;
            let mut table: Option<&dyn toml_edit::TableLike> = Some(d.as_table());
            for p in path {
                let it = table.and_then(|t| t.get(p));
                item = it;
                table = it.and_then(|i| i.as_table_like());
            }
            if let Some(arr) = item.and_then(|i| i.as_array()) {
                for v in arr.iter() {
                    if v.as_str() == Some(needle)
                        && let Some(span) = v.span()
                    {
                        return line_col(self.text(), span.start);
                    }
                }
            }
        }
        self.locate(path)
    }

    /// The file's text (after a BOM).
    fn text(&self) -> &str {
        match &self.kind {
            Kind::Json(d) => d.text(),
            Kind::Yaml(d, _) => d.text(),
            Kind::Toml(..) => &self.text,
        }
    }

    /// Byte offsets where the lines of the text start.
    fn lines(&self) -> &[usize] {
        let text = self.text();
        self.lines.get_or_init(|| {
            // Counted first: one allocation of the right size.
            let n = text.bytes().filter(|&b| b == b'\n').count();
            let mut starts = Vec::with_capacity(n + 1);
            starts.push(0);
            starts.extend(memchr_all(text).map(|i| i + 1));
            starts
        })
    }

    /// 1-based line and column (in characters) of a byte offset in the text, through the table
    /// of line starts (the same as [`line_col`]).
    fn line_col(&self, at: usize) -> (usize, usize) {
        use std::sync::atomic::Ordering::Relaxed;
        let text = self.text();
        if self.lines.get().is_none() && self.lookups.load(Relaxed) < EARLY_LOOKUPS {
            self.lookups.fetch_add(1, Relaxed);
            return line_col(text, at);
        }
        let lines = self.lines();
        let mut at = at.min(text.len());
        while at > 0 && !text.is_char_boundary(at) {
            at -= 1;
        }
        let line = lines.partition_point(|&s| s <= at).max(1);
        let start = lines.get(line - 1).copied().unwrap_or(0);
        let column = text.get(start..at).map_or(0, |s| s.chars().count()) + 1;
        (line, column)
    }

    /// The texts of 1-based lines given in ascending order, without repeats (as [`Source::line`] gives them,
    /// a line that is not there left out), found in one walk over the text up to the last
    /// one when the line table is not built (a file keeps a few of its lines).
    /// The lines numbered in `sorted` (ascending) as a code frame may show them: YAML masked
    /// ([`crate::redact::mask`]), other syntaxes as written (the frame masks each line).
    pub fn shown_lines_at<'s>(
        &'s self,
        sorted: &[usize],
    ) -> Vec<(usize, std::borrow::Cow<'s, str>)> {
        use std::borrow::Cow;
        let Kind::Yaml(d, _) = &self.kind else {
            return self
                .lines_at(sorted)
                .into_iter()
                .map(|(n, l)| (n, Cow::Borrowed(l)))
                .collect();
        };
        // YAML's lines are masked with what encloses them (the key a list item or a
        // continuation line belongs to, a scalar's node properties): a line alone does not
        // say. The masked text has the same lines.
        let masked = crate::redact::mask::mask(d.text(), crate::redact::mask::Lang::Yaml);
        let mut out = Vec::with_capacity(sorted.len());
        let mut want = sorted.iter().peekable();
        for (i, l) in masked.split('\n').enumerate() {
            let n = i + 1;
            while want.next_if(|&&w| w < n).is_some() {}
            if want.next_if(|&&w| w == n).is_some() {
                out.push((n, Cow::Owned(l.strip_suffix('\r').unwrap_or(l).to_string())));
            }
            if want.peek().is_none() {
                break;
            }
        }
        out
    }

    /// The lines numbered in `sorted` (ascending), as written.
    pub fn lines_at<'s>(&'s self, sorted: &[usize]) -> Vec<(usize, &'s str)> {
        let mut out = Vec::with_capacity(sorted.len());
        if self.lines.get().is_some() {
            out.extend(sorted.iter().filter_map(|&n| Some((n, self.line(n)?))));
            return out;
        }
        let text = self.text();
        let b = text.as_bytes();
        // Line `n` starts at `start`; the line feeds are found a byte at a time (the lines
        // are short: a search call for each costs more).
        let (mut n, mut start) = (1, 0);
        for &w in sorted {
            if w < n || out.last().is_some_and(|&(m, _)| m == w) {
                continue;
            }
            while n < w {
                match b[start..].iter().position(|&c| c == b'\n') {
                    Some(i) => start += i + 1,
                    None => return out,
                }
                n += 1;
            }
            let end = b[start..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |i| start + i);
            // Both ends are at a line feed or an end of the text: char boundaries.
            let l = text.get(start..end).unwrap_or("");
            out.push((n, l.strip_suffix('\r').unwrap_or(l)));
        }
        out
    }

    /// The text of a 1-based line (without its line ending).
    pub fn line(&self, line: usize) -> Option<&str> {
        let text = self.text();
        let lines = self.lines();
        let start = *lines.get(line.checked_sub(1)?)?;
        let end = lines.get(line).map_or(text.len(), |&n| n - 1);
        let l = text.get(start..end)?;
        Some(l.strip_suffix('\r').unwrap_or(l))
    }
}

/// A member of an object: an entry has a handful, where comparing keys in order costs less
/// than hashing one (the same answer: keys are unique).
pub(in crate::lint) fn member<'a>(
    o: &'a serde_json::Map<String, Value>,
    key: &str,
) -> Option<&'a Value> {
    if o.len() <= 8 {
        o.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    } else {
        o.get(key)
    }
}

/// Positions of the line feeds in `t`.
fn memchr_all(t: &str) -> impl Iterator<Item = usize> + '_ {
    t.match_indices('\n').map(|(i, _)| i)
}

fn parse_toml(bytes: &[u8]) -> Result<Source, ReadError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let ok = bytes.get(..e.valid_up_to()).unwrap_or_default();
        let (line, column) = line_col(&String::from_utf8_lossy(ok), e.valid_up_to());
        ReadError {
            code: Code::InvalidUtf8,
            message: format!(
                "the file is not valid UTF-8 (bad byte at offset {})",
                e.valid_up_to()
            ),
            line,
            column,
        }
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text).to_string();
    let doc = toml_edit::Document::parse(text.clone())
        .map_err(|e| crate::tomldoc::parse_error(&e, &text))?;
    // Lists of named tables (Mistral Vibe's `[[mcp_servers]]`) also read as objects under
    // `<key>[name]`, the container their dialect names.
    let mut root = crate::tomldoc::table_to_json(doc.as_table());
    crate::keyed::add_views(&mut root, "name");
    Ok(Source {
        text,
        kind: Kind::Toml(Box::new(doc), root),
        lines: Default::default(),
        lookups: Default::default(),
        keyed: Default::default(),
        yaml_children: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry of a long list is located in time linear in the list: at this size a search
    /// of the list per entry, or a line count (or UTF-8 check) of the text per position, took
    /// minutes (issue 27, item 10: Mistral Vibe's `[[mcp_servers]]`, Continue's YAML list).
    #[test]
    fn every_entry_of_a_long_list_is_located_in_linear_time() {
        let n = 40_000;
        let mut toml = String::new();
        let mut yaml = String::from("mcpServers:\n");
        for i in 0..n {
            toml.push_str(&format!(
                "[[mcp_servers]]\nname = \"s{i}\"\ncommand = \"npx\"\n"
            ));
            yaml.push_str(&format!("  - name: s{i}\n    command: npx\n"));
        }
        for (text, syntax, container) in [
            (toml, Syntax::Toml, "mcp_servers[name]"),
            (yaml, Syntax::Yaml, "mcpServers[name]"),
        ] {
            let src = Source::parse(text.into_bytes(), syntax).unwrap();
            for i in (0..n).rev() {
                let at = src.locate(&[container.to_string(), format!("s{i}")]);
                let line = if syntax == Syntax::Toml {
                    3 * i + 2
                } else {
                    2 * i + 2
                };
                assert_eq!(at.0, line, "{container} s{i}");
                // A field of the entry (where `unpinned-package` points) is found as fast.
                let at = src.locate(&[container.to_string(), format!("s{i}"), "command".into()]);
                assert_eq!(at.0, line + 1, "{container} s{i} command");
            }
        }
    }

    /// The first positions are counted, the later ones found in the table: both give what
    /// [`line_col`] gives, at every offset (inside a character too).
    #[test]
    fn early_and_table_lookups_agree() {
        let text = "{\n  \"a\": \"é\\u00e9\",\r\n\n  \"bé\": [1,\n 2]\n}\n";
        let offsets: Vec<usize> = (0..=text.len() + 2).collect();
        for first in [0, 1, EARLY_LOOKUPS as usize, offsets.len()] {
            let src = Source::parse(text.as_bytes().to_vec(), Syntax::Json).unwrap();
            // Some offsets before the table, the rest after.
            for (i, &at) in offsets.iter().enumerate() {
                if i == first {
                    assert!(src.line(1).is_some());
                }
                assert_eq!(src.line_col(at), line_col(text, at), "offset {at}");
            }
        }
    }

    /// [`Source::lines_at`] gives what [`Source::line`] gives, with the table built or not.
    #[test]
    fn lines_at_is_line() {
        let texts = [
            "{}",
            "{}\n",
            "{\r\n  \"a\": 1\r\n}\r\n",
            "\n\n{\n\"é\": [\n]}",
            "{\n}\n\n",
        ];
        for text in texts {
            let wanted = [0, 1, 2, 3, 4, 5, 6, 9];
            let src = Source::parse(text.as_bytes().to_vec(), Syntax::Json).unwrap();
            let walked: Vec<(usize, String)> = src
                .lines_at(&wanted)
                .into_iter()
                .map(|(n, l)| (n, l.to_string()))
                .collect();
            let expect: Vec<(usize, String)> = wanted
                .iter()
                .filter_map(|&n| Some((n, src.line(n)?.to_string())))
                .collect();
            assert_eq!(walked, expect, "{text:?}");
            let tabled: Vec<(usize, String)> = src
                .lines_at(&wanted)
                .into_iter()
                .map(|(n, l)| (n, l.to_string()))
                .collect();
            assert_eq!(tabled, expect, "{text:?}");
        }
    }
}
