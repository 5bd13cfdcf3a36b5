//! Writing new YAML text in block style: entries, sequence items, and scalars quoted whenever a
//! plain spelling could be read as anything but the same string (by a YAML 1.2 reader such as
//! Goose's or Continue's, or a YAML 1.1 reader such as PyYAML in Hermes).

use serde_json::Value;

use super::parse::resolve;

/// Words a YAML 1.1 or 1.2 reader takes for something other than a string.
const SPECIAL: &[&str] = &[
    "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off",
    "OFF", "true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL", "~",
];

/// Whether a string can be written plain and read back as the same string by any reader.
fn plain_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if !(first.is_ascii_alphabetic() || first == '_' || first == '/') {
        return false;
    }
    if s.ends_with(' ') || s.contains("  ") || SPECIAL.contains(&s) || s.starts_with(".") {
        return false;
    }
    let b = s.as_bytes();
    let ok = b.iter().enumerate().all(|(i, &c)| {
        let next = b.get(i + 1).copied();
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'_' | b'-'
                    | b'.'
                    | b'/'
                    | b'@'
                    | b'+'
                    | b'='
                    | b'~'
                    | b'$'
                    | b'?'
                    | b'&'
                    | b'%'
                    | b','
                    | b' '
            )
            || (c == b':' && next.is_some_and(|n| n != b' '))
            || (c == b'#' && b[i - 1] != b' ')
    });
    ok && resolve(s) == Value::String(s.to_string())
}

/// A string as a YAML scalar: plain when safe, else double-quoted.
pub(crate) fn string(s: &str) -> String {
    if plain_safe(s) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            c if (c as u32) < 0x20 || (0x7f..=0x9f).contains(&(c as u32)) => {
                out.push_str(&format!("\\x{:02X}", c as u32));
            }
            '\u{feff}' | '\u{fffe}' | '\u{ffff}' => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A scalar's text, or `None` for a non-empty collection.
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::Null => Some("null".into()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(string(s)),
        Value::Array(a) if a.is_empty() => Some("[]".into()),
        Value::Object(o) if o.is_empty() => Some("{}".into()),
        _ => None,
    }
}

/// How new text is laid out, after the file's own.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    /// Indentation step.
    pub unit: usize,
    /// Line ending.
    pub nl: &'static str,
    /// A sequence under a key starts at the key's own column (`key:\n- a`).
    pub flush_seq: bool,
}

/// Lines of `key: value` at `indent` (each line followed by the newline).
pub(crate) fn entry(out: &mut String, indent: usize, key: &str, v: &Value, st: &Style) {
    let nl = st.nl;
    pad(out, indent);
    out.push_str(&string(key));
    out.push(':');
    match scalar(v) {
        Some(s) => {
            out.push(' ');
            out.push_str(&s);
            out.push_str(nl);
        }
        None => {
            out.push_str(nl);
            let step = if st.flush_seq && v.is_array() {
                0
            } else {
                st.unit
            };
            body(out, indent + step, v, st);
        }
    }
}

/// The lines of a non-empty collection at `indent`.
fn body(out: &mut String, indent: usize, v: &Value, st: &Style) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                entry(out, indent, k, x, st);
            }
        }
        Value::Array(a) => {
            for x in a {
                item(out, indent, x, st);
            }
        }
        _ => {}
    }
}

/// A `- value` item at `indent`; a collection continues on the `- ` line (compact form).
pub(crate) fn item(out: &mut String, indent: usize, v: &Value, st: &Style) {
    let nl = st.nl;
    pad(out, indent);
    out.push('-');
    match scalar(v) {
        Some(s) => {
            out.push(' ');
            out.push_str(&s);
            out.push_str(nl);
        }
        None => {
            let mut inner = String::new();
            body(&mut inner, indent + 2, v, st);
            // The first line's indentation becomes the `- `.
            out.push(' ');
            out.push_str(inner.get(indent + 2..).unwrap_or(""));
        }
    }
}

fn pad(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push(' ');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_that_could_read_as_something_else_are_quoted() {
        for s in [
            "",
            "yes",
            "no",
            "on",
            "off",
            "y",
            "null",
            "~",
            "true",
            "1",
            "0x1f",
            "1.5",
            ".5",
            "-y",
            "a: b",
            "a #b",
            "${X}",
            "2001-01-01",
            "1:20",
            " a",
            "a ",
            "*x",
            "&x",
            "!x",
            "{a}",
            "[a]",
            "@x",
            "`x",
            "'a'",
            "\"a\"",
            "%x",
            "<<",
            "a\nb",
            ".inf",
            "-",
            "?",
            "$HOME",
            "a:",
            "a: b",
            "a #b",
        ] {
            let q = string(s);
            assert!(q.starts_with('"'), "{s:?} was written {q}");
        }
        for s in [
            "npx",
            "/usr/bin/node",
            "mcp-server",
            "Bearer abc",
            "pkg@1.2.3",
            "a.b",
            "https://h:8080/mcp?a=b&c#f",
        ] {
            assert_eq!(string(s), s);
        }
    }

    #[test]
    fn items_of_mappings_are_compact() {
        let mut out = String::new();
        let v = serde_json::json!({"name": "x", "args": ["-y", "p"], "env": {}});
        let st = Style {
            unit: 2,
            nl: "\n",
            flush_seq: false,
        };
        item(&mut out, 2, &v, &st);
        assert_eq!(
            out,
            "  - name: x\n    args:\n      - \"-y\"\n      - p\n    env: {}\n"
        );
    }
}
