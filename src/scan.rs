//! Secret scanning of what a report shows: before a diff or a summary of a plan is displayed,
//! every credential in the files it changes is added to the [`Redactor`], so that no value of
//! a file — ours or the user's — is ever printed. The detector is the one in [`crate::redact`];
//! this module only finds the name/value pairs in JSON, JSONC and TOML bytes.
//!
//! ```
//! use mcpconf::redact::Redactor;
//!
//! let mut red = Redactor::default();
//! mcpconf::scan::scan_bytes(br#"{"env": {"API_KEY": "s3cr3t-value-123"}}"#, &mut red);
//! mcpconf::scan::scan_bytes(b"[mcp_servers.x]\nenv = { TOKEN = \"t0k3n-abcdef\" }\n", &mut red);
//! let shown = red.redact("API_KEY=s3cr3t-value-123 TOKEN=t0k3n-abcdef");
//! assert!(!shown.contains("s3cr3t") && !shown.contains("t0k3n"), "{shown}");
//! ```

use crate::engine::Report;
use crate::plan::FilePlan;
use crate::redact::Redactor;

/// Files up to this size are scanned whole; above it only the part a diff shows (the
/// change with its context, [`crate::text::diff_window`]), so that the cost of a run follows
/// the change, not the file. What a diff shows is masked by its own context whatever the
/// size (`redact::mask::mask_window`); the values collected here are a second net for the
/// same lines and for messages.
pub const SCAN_WHOLE_FILE: usize = 64 << 10;

/// `base` plus every credential found in the files `report` shows (those that change): one
/// streaming pass over each file's bytes, before and after, building nothing but the
/// credential-like members found. A file that does not change shows none of its content and is
/// not read. Use the result for everything printed about `report`.
pub fn redactor_for(report: &Report, base: &Redactor) -> Redactor {
    redactor_for_files(&report.files, base)
}

/// [`redactor_for`] from the file plans alone (those that write count): what
/// `engine::apply` hands the side work of `ApplyOptions::alongside` while the files are written.
pub fn redactor_for_files(files: &[FilePlan], base: &Redactor) -> Redactor {
    let mut red = base.clone();
    for f in files.iter().filter(|f| f.writes()) {
        let old = f.old.as_ref().map(|d| d.bytes()).unwrap_or_default();
        let new_c = f.new.as_ref().filter(|_| !f.delete);
        let new_len = new_c.map_or(0, crate::text::Content::len);
        let window;
        let (old, new): (&[u8], &[u8]) = if old.len().max(new_len) > SCAN_WHOLE_FILE {
            // Outside the window the file is the same before and after. A value there under a
            // credential-like name must still be known: the same string can stand in the
            // window under a harmless key (an `args` element), where only its name elsewhere
            // says it is a secret. Those are found by name alone, without running the detector
            // on every value (a value secret by its shape is recognised by its shape in the
            // window itself).
            if let Some(d) = &f.old {
                scan_named(d.bytes(), &mut red);
            }
            let windows = match new_c {
                Some(c) => crate::text::diff_windows_of(old, c),
                None => {
                    let (o, n, s) = crate::text::diff_window(old, &[]);
                    vec![(o, n.to_vec(), s)]
                }
            };
            // Every window but the last is scanned here; the last one below.
            let mut windows = windows.into_iter();
            let mut last = windows.next().unwrap_or((&[], Vec::new(), 0));
            for next in windows {
                scan_bytes(last.0, &mut red);
                scan_bytes(&last.1, &mut red);
                last = next;
            }
            window = last.1;
            (last.0, window.as_slice())
        } else {
            window = new_c.map(crate::text::Content::to_vec).unwrap_or_default();
            (old, window.as_slice())
        };
        scan_bytes(old, &mut red);
        scan_bytes(new, &mut red);
    }
    red
}

/// [`scan_bytes`] for members under a credential-like name only: values are decoded and judged
/// only behind such a name.
/// One pass, chosen by the first byte that is not white space: a JSON or JSONC document starts
/// with `{` (or a comment, `/`), a TOML one never does.
fn scan_named(bytes: &[u8], red: &mut Redactor) {
    use crate::redact::credential_name;
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if matches!(first, Some(b'{' | b'/')) {
        crate::jsondoc::string_members(bytes, credential_name, |k, v| red.consider(k, v));
    } else if let Ok(text) = std::str::from_utf8(bytes) {
        toml_pairs_where(text, credential_name, |k, v| red.consider(k, v));
    }
}

/// Offer every string member of `bytes` (JSON or JSONC objects; TOML `key = "value"` pairs,
/// also inside inline tables) to `red`, which keeps those with a credential-like name or a
/// value that is a secret by itself (a URL with a password, a well-known token prefix).
/// Best effort on any bytes: it never fails, and finding too much only hides more.
pub fn scan_bytes(bytes: &[u8], red: &mut Redactor) {
    crate::jsondoc::string_members(bytes, |_| true, |k, v| red.consider(k, v));
    if let Ok(text) = std::str::from_utf8(bytes) {
        toml_string_pairs(text, |k, v| red.consider(k, v));
    }
}

/// `key = "value"` pairs of basic or literal strings in TOML-like text (bare or quoted keys,
/// also inside inline tables). A scanner for redaction, not a parser: it may find pairs inside
/// multi-line strings, which only means more redaction.
///
/// ```
/// let mut pairs = Vec::new();
/// mcpconf::scan::toml_string_pairs(
///     "a = \"1\" # c = \"no\"\n[t]\n'q k' = 'lit'\nenv = { X = \"\\u0041\", n = 3 }\n",
///     |k, v| pairs.push((k.to_string(), v.to_string())),
/// );
/// assert_eq!(pairs, [("a", "1"), ("q k", "lit"), ("X", "A")].map(|(k, v)| (k.into(), v.into())));
/// ```
pub fn toml_string_pairs(text: &str, found: impl FnMut(&str, &str)) {
    toml_pairs_where(text, |_| true, found);
}

/// [`toml_string_pairs`] for the pairs whose key `want` accepts: other values are not decoded.
fn toml_pairs_where(text: &str, want: impl Fn(&str) -> bool, mut found: impl FnMut(&str, &str)) {
    let b = text.as_bytes();
    let mut i = 0;
    let mut key: Option<String> = None;
    while i < b.len() {
        let c = b[i];
        if c == b'#' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            key = None;
        } else if c == b'"' || c == b'\'' {
            let start = i + 1;
            let mut j = start;
            while j < b.len() && b[j] != c && b[j] != b'\n' {
                if c == b'"' && b[j] == b'\\' {
                    j += 1;
                }
                j += 1;
            }
            let raw = text.get(start..j.min(b.len())).unwrap_or("");
            let decode = || {
                if c == b'"' {
                    serde_json::from_str::<String>(&format!("\"{raw}\""))
                        .unwrap_or_else(|_| raw.to_string())
                } else {
                    raw.to_string()
                }
            };
            i = j + 1;
            // A quoted key is followed by `=`; a value follows one.
            let rest = text.get(i..).unwrap_or("").trim_start_matches([' ', '\t']);
            if rest.starts_with('=') {
                key = Some(decode());
            } else if let Some(k) = key.take()
                && want(&k)
            {
                found(&k, &decode());
            }
            continue;
        } else if c.is_ascii_alphanumeric() || c == b'_' || c == b'-' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'-') {
                i += 1;
            }
            let word = &text[start..i];
            let rest = text.get(i..).unwrap_or("").trim_start_matches([' ', '\t']);
            key = rest.starts_with('=').then(|| word.to_string());
            continue;
        } else if c == b'\n' {
            key = None;
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(text: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        toml_string_pairs(text, |k, v| out.push((k.to_string(), v.to_string())));
        out
    }

    #[test]
    fn the_named_scan_knows_values_under_credential_names_in_json_and_toml() {
        for text in [
            "  {\"mcpServers\": {\"db\": {\"env\": {\"DB_PASSWORD\": \"pw-98765\", \"MODE\": \"fast-mode\"}}}}",
            "// c\n{\"DB_PASSWORD\": \"pw-98765\", \"MODE\": \"fast-mode\"}",
            "[mcp_servers.db.env]\nDB_PASSWORD = \"pw-98765\"\nMODE = 'fast-mode'\n",
        ] {
            let mut red = Redactor::default();
            scan_named(text.as_bytes(), &mut red);
            assert_eq!(
                red.redact("--login pw-98765 fast-mode"),
                "--login <redacted> fast-mode",
                "{text}"
            );
        }
    }

    #[test]
    fn toml_pairs_are_found_in_tables_inline_tables_and_with_quoted_keys() {
        assert_eq!(
            pairs("[mcp_servers.a.env]\n\"X-Key\" = \"v1\"\nother = { TOKEN = 'v2' }\n"),
            [("X-Key", "v1"), ("TOKEN", "v2")].map(|(k, v)| (k.to_string(), v.to_string()))
        );
        // A comment and a number are no pairs; an array's first string counts under its key
        // (more redaction, never less).
        assert!(pairs("# k = \"v\"\nn = 3\n[t]\n").is_empty());
        assert_eq!(
            pairs("args = [\"--x\"]\n"),
            [("args".to_string(), "--x".to_string())]
        );
        // Unterminated strings and stray bytes never panic.
        for t in ["k = \"abc", "k = '", "\"", "= \"x\"", "k=\"\\"] {
            let _ = pairs(t);
        }
    }

    #[test]
    fn scan_bytes_offers_json_and_toml_values_to_the_detector() {
        let mut red = Redactor::default();
        scan_bytes(
            br#"{"mcpServers": {"a": {"env": {"GITHUB_TOKEN": "value-from-json-1"}}}}"#,
            &mut red,
        );
        scan_bytes(b"[x]\napi_key = \"value-from-toml-2\"\n", &mut red);
        let out = red.redact("value-from-json-1 value-from-toml-2 harmless");
        assert!(!out.contains("value-from"), "{out}");
        assert!(out.contains("harmless"), "{out}");
    }
}
