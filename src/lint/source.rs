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
    /// Byte offsets where the lines of the text start (built on the first [`Source::line`]).
    lines: std::sync::OnceLock<Vec<usize>>,
}

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
            let d = YamlDoc::parse(bytes)?;
            let root = d.lint_value();
            return Ok(Source {
                text: String::new(),
                kind: Kind::Yaml(Box::new(d), root),
                lines: Default::default(),
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
            cur = cur.as_object()?.get(k)?;
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
            Kind::Yaml(d, _) => d.location(path),
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
                            return Some(line_col(self.text(), key_span()?.start));
                        }
                        let name = &path[i + 1];
                        let t = table.get(key)?.as_array_of_tables()?.iter().find(|t| {
                            t.get(field).and_then(|v| v.as_str()) == Some(name.as_str())
                        })?;
                        if i + 2 == path.len() {
                            let span = t.key(field)?.span()?;
                            return Some(line_col(self.text(), span.start));
                        }
                        table = t;
                        i += 2;
                        continue;
                    }
                    if last {
                        let span = table.key(seg)?.span()?;
                        return Some(line_col(self.text(), span.start));
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
        let text = self.text();
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
    let doc = toml_edit::Document::parse(text.clone()).map_err(|e| {
        let (line, column) = e.span().map(|s| line_col(&text, s.start)).unwrap_or((1, 1));
        let msg = e.message().trim().trim_end_matches('.').to_string();
        ReadError {
            code: if msg.contains("duplicate key") {
                Code::DuplicateKey
            } else {
                Code::ParseError
            },
            message: format!("invalid TOML: {msg}"),
            line,
            column,
        }
    })?;
    // Lists of named tables (Mistral Vibe's `[[mcp_servers]]`) also read as objects under
    // `<key>[name]`, the container their dialect names.
    let mut root = crate::tomldoc::table_to_json(doc.as_table());
    crate::keyed::add_views(&mut root, "name");
    Ok(Source {
        text,
        kind: Kind::Toml(Box::new(doc), root),
        lines: Default::default(),
    })
}
