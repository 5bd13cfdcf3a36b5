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
use crate::jsondoc::Syntax;
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
    let mut red = base.clone();
    for f in report.files.iter().filter(|f| f.writes()) {
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
            match &f.old {
                Some(crate::document::Doc::Json(d)) => {
                    named_members_fast(d.text(), d.syntax() != Syntax::Json, &mut red);
                }
                Some(d) => scan_named(d.bytes(), &mut red),
                None => {}
            }
            let (o, n, _) = match new_c {
                Some(c) => crate::text::diff_window_of(old, c),
                None => {
                    let (o, n, s) = crate::text::diff_window(old, &[]);
                    (o, n.to_vec(), s)
                }
            };
            window = n;
            (o, window.as_slice())
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

/// [`scan_named`] for JSON or JSONC the parser has validated, jumping from string to string
/// eight bytes at a time instead of reading every byte: the same members as
/// [`crate::jsondoc::string_members`] finds there, at a fraction of its cost on a big file.
fn named_members_fast(text: &str, comments: bool, red: &mut Redactor) {
    named_members_where(text, comments, crate::redact::credential_name, |k, v| {
        red.consider(k, v)
    });
}

/// Calls `f(key, value)` for each member of validated JSON (`comments`: JSONC) whose value is
/// a string and whose key passes `want`. Outside strings, a `"` always opens one and a `/` a
/// comment.
fn named_members_where(
    text: &str,
    comments: bool,
    want: impl Fn(&str) -> bool,
    mut f: impl FnMut(&str, &str),
) {
    let b = text.as_bytes();
    // The end (after the closing quote) of the string opening at `q`.
    let string_end = |q: usize| -> Option<usize> {
        let mut at = q + 1;
        loop {
            let k = find2(b, at, b'"', b'\\')?;
            if b.get(k) == Some(&b'"') {
                return Some(k + 1);
            }
            at = k + 2;
        }
    };
    // After the comment starting at `s` (a `/`).
    let comment_end = |s: usize| -> usize {
        let rest = text.get(s..).unwrap_or("");
        let n = if rest.starts_with("/*") {
            rest.get(2..)
                .and_then(|r| r.find("*/"))
                .map_or(rest.len(), |k| k + 4)
        } else {
            rest.find('\n').unwrap_or(rest.len())
        };
        s + n.max(1)
    };
    let skip_trivia = |mut i: usize| {
        loop {
            match b.get(i) {
                Some(&c) if is_json_ws(c) => i += 1,
                Some(b'/') if comments => i = comment_end(i),
                _ => return i,
            }
        }
    };
    let mut i = 0;
    let other = if comments { b'/' } else { b'"' };
    while let Some(q) = find2(b, i, b'"', other) {
        if b.get(q) == Some(&b'/') {
            i = comment_end(q);
            continue;
        }
        let Some(end) = string_end(q) else { return };
        let colon = skip_trivia(end);
        i = end;
        if b.get(colon) != Some(&b':') {
            continue;
        }
        // A key: its value starts after the colon.
        let v = skip_trivia(colon + 1);
        i = v;
        if b.get(v) != Some(&b'"') {
            continue;
        }
        let Some(v_end) = string_end(v) else { return };
        i = v_end;
        if let (Some(k), Some(raw)) = (text.get(q..end).and_then(decode), text.get(v..v_end))
            && want(&k)
            && let Some(val) = decode(raw)
        {
            f(&k, &val);
        }
    }
}

/// The first index from `from` on whose byte is `x` or `y`, eight bytes at a time.
fn find2(b: &[u8], from: usize, x: u8, y: u8) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let (mx, my) = (LO * u64::from(x), LO * u64::from(y));
    let mut i = from;
    while let Some(chunk) = b.get(i..i + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        let w = u64::from_le_bytes(w);
        let (p, q) = (w ^ mx, w ^ my);
        // A zero byte of `p` or `q` is a match; the lowest flagged byte is always a true one
        // (a borrow can only flag bytes above a zero byte).
        let z = ((p.wrapping_sub(LO) & !p) | (q.wrapping_sub(LO) & !q)) & HI;
        if z != 0 {
            return Some(i + (z.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    b.get(i..)?
        .iter()
        .position(|&c| c == x || c == y)
        .map(|k| i + k)
}

/// A JSON string's value from its text with the quotes.
fn decode(raw: &str) -> Option<std::borrow::Cow<'_, str>> {
    if raw.contains('\\') {
        serde_json::from_str::<String>(raw).ok().map(Into::into)
    } else {
        raw.get(1..raw.len().saturating_sub(1)).map(Into::into)
    }
}

fn is_json_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
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

    proptest::proptest! {
        /// On strict JSON the fast named scan finds exactly the members the byte-by-byte
        /// scan finds, escapes, nesting and credential-like names included.
        #[test]
        fn the_fast_named_scan_equals_the_byte_scan(
            v in json_value(),
            pretty in proptest::bool::ANY,
            commented in proptest::bool::ANY,
        ) {
            let mut text = if pretty {
                serde_json::to_string_pretty(&v).unwrap()
            } else {
                serde_json::to_string(&v).unwrap()
            };
            if commented {
                // Comments holding quotes, colons and slashes between every two tokens that
                // can have them (no generated string holds `: `, `,` or `{`).
                text = text
                    .replace(": ", " /* \"k\": \"v\" / */ : // \"x\": \"TOKEN\"\n ")
                    .replace(',', ", // \"a\": \"b\" /*\n")
                    .replace('{', "{ /* \"API_KEY\": \"s\" */ ");
            }
            let comments = commented;
            let all = |_: &str| true;
            let (mut slow, mut fast) = (Vec::new(), Vec::new());
            crate::jsondoc::string_members(text.as_bytes(), all, |k, v| {
                slow.push((k.to_string(), v.to_string()))
            });
            named_members_where(&text, comments, all, |k, v| fast.push((k.to_string(), v.to_string())));
            proptest::prop_assert_eq!(&fast, &slow, "{}", text);
            let (mut slow, mut fast) = (Vec::new(), Vec::new());
            crate::jsondoc::string_members(text.as_bytes(), crate::redact::credential_name, |k, v| {
                slow.push((k.to_string(), v.to_string()))
            });
            named_members_where(&text, comments, crate::redact::credential_name, |k, v| {
                fast.push((k.to_string(), v.to_string()))
            });
            proptest::prop_assert_eq!(fast, slow, "{}", text);
        }
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        let word = "(api_?key|TOKEN|secret|pass|name|a\\\\b|q\"x|é|\\\\|x)*";
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::Bool),
            any::<i32>().prop_map(|n| serde_json::json!(n)),
            word.prop_map(serde_json::Value::String),
        ];
        leaf.prop_recursive(4, 40, 6, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(serde_json::Value::Array),
                proptest::collection::vec((word, inner), 0..5)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn find2_finds_the_first_of_two_bytes(
            b in proptest::collection::vec(proptest::sample::select(vec![b'a', b'"', b'\\', 0x80, 0xff, 0]), 0..40),
            from in 0usize..45,
        ) {
            let want = b.get(from..).and_then(|r| r.iter().position(|&c| c == b'"' || c == b'\\')).map(|k| from + k);
            proptest::prop_assert_eq!(find2(&b, from, b'"', b'\\'), want);
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
