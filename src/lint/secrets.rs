//! Recognising credentials written literally. Pure; the value found is never part of the
//! description returned (only what kind of credential it looks like).

use crate::redact::credential_name;
#[cfg(test)]
pub use crate::redact::detect::strip_references;
pub use crate::redact::detect::{assess, classify};

/// A character that [`scrub_line`] passes through untouched outside quoted text.
pub const MARK: char = '\u{1}';

/// A line of a file with every quoted value that may be a credential replaced by
/// `<redacted>`: values under credential-like keys (`"API_KEY": "…"`, `TOKEN = "…"`) unless they
/// are only references, and any value that looks like a credential by itself. Used for code
/// frames, including lines of files that do not parse.
/// Text between quotes is taken whole, so a marker (`MARK`) placed before a quote or key
/// survives and tells where a column moved to.
pub fn scrub_line(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut last_token = String::new();
    let mut after_sep = false;
    let line = &crate::redact::scrub_text(line);
    let mut chars = line.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        if c == MARK {
            out.push(c);
            continue;
        }
        if c == '"' || c == '\'' {
            let quote = c;
            let mut raw = String::new();
            let mut closed = false;
            while let Some((_, x)) = chars.next() {
                if x == '\\' {
                    raw.push(x);
                    if let Some((_, y)) = chars.next() {
                        raw.push(y);
                    }
                    continue;
                }
                if x == quote {
                    closed = true;
                    break;
                }
                raw.push(x);
            }
            let value = if quote == '"' {
                crate::redact::mask::decode(&raw)
            } else {
                raw.clone()
            };
            let secret = (after_sep
                && credential_name(&last_token)
                && !crate::redact::only_references(&value)
                && !value.trim().is_empty())
                || classify(if after_sep { &last_token } else { "" }, &value).is_some();
            out.push(quote);
            out.push_str(if secret {
                crate::redact::REDACTED
            } else {
                &raw
            });
            if closed {
                out.push(quote);
            }
            if !after_sep {
                last_token = value;
            }
            after_sep = false;
            continue;
        }
        match c {
            ':' | '=' => after_sep = true,
            c if c.is_whitespace() => {}
            c if c.is_alphanumeric() || c == '_' || c == '-' || c == '.' => {
                if after_sep {
                    after_sep = false;
                    last_token.clear();
                }
                last_token.push(c);
            }
            _ => {
                after_sep = false;
                last_token.clear();
            }
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrubs_credential_values_from_lines() {
        assert_eq!(
            scrub_line(r#"  "API_KEY": "hunter2", "PATH": "/bin","#),
            r#"  "API_KEY": "<redacted>", "PATH": "/bin","#
        );
        assert_eq!(
            scrub_line(r#"TOKEN = "abc\"def" # x"#),
            r#"TOKEN = "<redacted>" # x"#
        );
        assert_eq!(
            scrub_line(r#""Authorization": "Bearer ${env:T}""#),
            r#""Authorization": "Bearer ${env:T}""#
        );
        assert_eq!(
            scrub_line(r#"args = ["--key", "sk-abcdefghijklmnopqrstuvwxyz"]"#),
            r#"args = ["--key", "<redacted>"]"#
        );
        assert_eq!(
            scrub_line(r#"{"a": 1, "b": [true]}"#),
            r#"{"a": 1, "b": [true]}"#
        );
    }
}
