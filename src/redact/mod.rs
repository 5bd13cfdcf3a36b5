//! Secret redaction for everything mcpconf prints: diffs, plans, JSON, error messages and
//! probe output.
//!
//! One detector ([`detect`]) decides what is a credential; it is shared with `lint`'s
//! `literal-secret` rule and with `import`. Redaction works in three layers:
//! - known values: credential-like values collected from the manifest and from every file
//!   read are remembered by a [`Redactor`] and every occurrence (raw and JSON-escaped) is
//!   replaced by `<redacted>`;
//! - free text: [`scrub_text`] replaces whatever the detector recognises in any text (a known
//!   token shape, `--api-key=…`, `API_KEY=…`, `Authorization: Bearer …`, a URL's password or
//!   credential query parameter);
//! - files: [`mask`] lexes a file's text, decodes each string (escapes, TOML multi-line
//!   strings) and each comment, and hides every one the detector flags, keeping the lines in
//!   place so that a diff can be computed on the real text and shown on the masked one.
//!
//! Values that are only environment references (`${VAR}`, `${env:VAR}`, `{env:VAR}`,
//! `$VAR`), optionally behind an auth scheme word (`Bearer ${TOKEN}`), are never hidden.

pub mod argv;
pub mod detect;
pub mod mask;
pub mod spans;
mod yaml;

use serde_json::Value;

pub use detect::{classify, credential_name, must_hide, only_references, trivial};

/// Whether a whole value is a credential by its shape alone, whatever its name: a token the
/// detector recognises from its first character to its last, or a URL with a password or a
/// credential-named query value in it.
pub fn secret_value(value: &str) -> bool {
    let v = value.trim();
    detect::tokens(v)
        .iter()
        .any(|(r, _)| r.start == 0 && r.end == v.len())
        || detect::url_credential(v).is_some()
}

/// The text that replaces a secret.
pub const REDACTED: &str = "<redacted>";

/// Collects secrets and scrubs them from text.
///
/// The values are kept in a hash index by their first `KEY` (16) bytes (a shorter value by all of
/// them), so that adding one costs a lookup whatever how many are known, and
/// [`Redactor::redact`] finds every occurrence of every value in one pass over the text: at each
/// position, one lookup per length shorter than `KEY` (16) that some value has, and one of the
/// next `KEY` (16) bytes, whose few values are compared. The cost of a run grows with its input,
/// not with the product of its secrets and its output.
#[derive(Debug, Default, Clone)]
pub struct Redactor {
    /// The values by their first [`KEY`] bytes (whole when shorter); each bucket longest
    /// first.
    secrets: std::collections::HashMap<Box<[u8]>, Vec<Box<[u8]>>>,
    /// How many values are known.
    count: usize,
    /// The lengths under [`KEY`] that some value has, one bit each.
    short: u32,
    /// The first bytes of the values, one bit each.
    first: [u64; 4],
}

/// How many leading bytes of a value index it ([`Redactor`]).
const KEY: usize = 16;

impl Redactor {
    /// A redactor that knows these values as secrets (each is hidden wherever it appears,
    /// whatever the detector says of it).
    pub fn with_values<'a>(values: impl IntoIterator<Item = &'a str>) -> Redactor {
        let mut r = Redactor::default();
        for v in values {
            if !v.trim().is_empty() {
                r.add(v);
            }
        }
        r
    }

    /// Remember a value found under `name` if the detector says it must be hidden
    /// ([`must_hide`]); a value that only holds a token somewhere also remembers the token,
    /// and one that holds a credential option its value ([`argv::values_in`]).
    pub fn consider(&mut self, name: &str, value: &str) {
        if must_hide(name, value) {
            self.remember(value);
        }
    }

    /// Remember the credentials of an argument vector: each element the detector flags on its
    /// own ([`Redactor::consider`] under `name`), and the value of every credential option,
    /// also the element after an option that ends the one before (`["--token", "V"]`,
    /// [`argv::values`]).
    pub fn consider_argv<S: AsRef<str>>(&mut self, name: &str, args: &[S]) {
        for a in args {
            self.consider(name, a.as_ref());
        }
        for (i, r) in argv::values(args) {
            self.remember(&args[i].as_ref()[r]);
        }
    }

    /// A value that must be hidden, any token in it, and the value of any credential option
    /// in it.
    fn remember(&mut self, value: &str) {
        self.add(value);
        // Every credential inside it (tokens, pairs, options, URL parts): the same spans that
        // free text is scrubbed of.
        for s in spans::secret_spans(value) {
            if s.range.end > s.range.start {
                self.add(&value[s.range]);
            }
        }
    }

    /// Remember a secret value unconditionally.
    pub fn add(&mut self, value: &str) {
        let escaped = Value::String(value.to_string()).to_string();
        self.insert(value);
        self.insert(&escaped[1..escaped.len() - 1]);
        // "Bearer abc" also hides the bare token.
        if let Some((scheme, token)) = value.split_once(' ')
            && ["bearer", "basic", "token"].contains(&scheme.to_ascii_lowercase().as_str())
            && token.trim().len() >= 4
        {
            self.insert(token.trim());
        }
    }

    fn insert(&mut self, value: &str) {
        self.insert_bytes(value.as_bytes());
    }

    fn insert_bytes(&mut self, b: &[u8]) {
        let Some(&c) = b.first() else {
            return;
        };
        let key = &b[..b.len().min(KEY)];
        let bucket = self.secrets.entry(key.into()).or_default();
        if bucket.iter().any(|s| &s[..] == b) {
            return;
        }
        let at = bucket.partition_point(|s| s.len() >= b.len());
        bucket.insert(at, b.into());
        self.count += 1;
        self.first[usize::from(c >> 6)] |= 1 << (c & 63);
        if b.len() < KEY {
            self.short |= 1 << b.len();
        }
    }

    /// Remember every secret another redactor holds.
    pub fn merge(&mut self, other: &Redactor) {
        for s in other.secrets.values().flatten() {
            self.insert_bytes(s);
        }
    }

    /// How many values (in all their forms) are known.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether no value is known.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Walk a JSON value and remember every string the detector flags, by its key (array
    /// elements by the array's key, and after a credential option by the option:
    /// [`argv::values`]), and every object key that is a credential by itself.
    pub fn scan(&mut self, v: &Value) {
        self.scan_under("", v, &mut must_hide);
    }

    /// [`Redactor::scan`] for a caller that already assessed the strings:
    /// `hidden(name, value)` must be `detect::must_hide(name, value)` (lint assesses every
    /// string of an entry for its own rule with [`detect::assess`] and passes the results
    /// here, so the detector runs once per string).
    pub fn scan_assessed(&mut self, v: &Value, hidden: &mut dyn FnMut(&str, &str) -> bool) {
        self.scan_under("", v, hidden);
    }

    fn scan_under(&mut self, name: &str, v: &Value, hidden: &mut dyn FnMut(&str, &str) -> bool) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    if detect::known_prefix(k).is_some() {
                        self.add(k);
                    }
                    self.scan_under(k, x, hidden);
                }
            }
            Value::Array(a) => {
                let mut after_flag = false;
                for x in a {
                    if let Value::String(s) = x
                        && after_flag
                        && argv::value_after(s)
                    {
                        // Still offered to `hidden`, which expects every string in turn.
                        hidden(name, s);
                        self.remember(s);
                    } else {
                        self.scan_under(name, x, hidden);
                    }
                    after_flag = x.as_str().and_then(argv::trailing_flag).is_some();
                }
            }
            Value::String(s) if hidden(name, s) => self.remember(s),
            _ => {}
        }
    }

    /// The byte ranges of `text` that hold a known value (overlapping ones merged).
    fn known_ranges(&self, text: &str) -> Vec<std::ops::Range<usize>> {
        let mut found: Vec<std::ops::Range<usize>> = Vec::new();
        if self.count == 0 {
            return found;
        }
        let b = text.as_bytes();
        for i in 0..b.len() {
            let c = b[i];
            if self.first[usize::from(c >> 6)] & (1 << (c & 63)) == 0 {
                continue;
            }
            // The longest value that starts at `i`: among those indexed by the next `KEY`
            // bytes (longest first), else the longest short one.
            let rest = &b[i..];
            let mut longest = 0;
            if rest.len() >= KEY
                && let Some(bucket) = self.secrets.get(&rest[..KEY])
                && let Some(s) = bucket.iter().find(|s| rest.starts_with(s))
            {
                longest = s.len();
            }
            if longest == 0 && self.short != 0 {
                for len in (1..KEY.min(rest.len() + 1)).rev() {
                    if self.short & (1 << len) != 0 && self.secrets.contains_key(&rest[..len]) {
                        longest = len;
                        break;
                    }
                }
            }
            if longest > 0 {
                match found.last_mut() {
                    Some(last) if i < last.end => last.end = last.end.max(i + longest),
                    _ => found.push(i..i + longest),
                }
            }
        }
        found
    }

    /// Replace every remembered secret in `text`, then everything the detector recognises
    /// in it ([`scrub_text`]).
    pub fn redact(&self, text: &str) -> String {
        let known = self.known_ranges(text);
        if known.is_empty() {
            return scrub_text(text);
        }
        scrub_text(&replace_ranges(text, known))
    }

    /// A JSON document mcpconf rendered, with every string in it (keys included) redacted as
    /// [`Redactor::redact`] redacts text: the decision is taken on each decoded string, so the
    /// result is the same document, still valid JSON, with only string contents changed (the
    /// text of the whole document, redacted at once, could lose a quote or a brace to a span
    /// the detector took for `"name": value`). Pretty-printed, with the final newline
    /// `json` had; text that is not JSON is redacted as text.
    ///
    /// ```
    /// use mcpconf::redact::Redactor;
    /// let red = Redactor::with_values(["s3cret-value-123"]);
    /// let doc = "{\"tool_tokens\": {\"get_token\": 12}, \"error\": \"Bearer s3cret-value-123\"}\n";
    /// let out = red.redact_json(doc);
    /// let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    /// assert_eq!(v["tool_tokens"]["get_token"], 12);
    /// assert!(!out.contains("s3cret") && out.ends_with('\n'));
    /// ```
    pub fn redact_json(&self, json: &str) -> String {
        let Ok(mut v) = serde_json::from_str::<Value>(json) else {
            return self.redact(json);
        };
        self.redact_value(&mut v);
        let mut out = serde_json::to_string_pretty(&v).unwrap_or_default();
        if json.ends_with('\n') {
            out.push('\n');
        }
        out
    }

    /// Every string in `v`, keys included, redacted ([`Redactor::redact`]).
    pub fn redact_value(&self, v: &mut Value) {
        match v {
            Value::String(s) => *s = self.redact(s),
            Value::Array(a) => a.iter_mut().for_each(|x| self.redact_value(x)),
            Value::Object(m) => {
                let taken = std::mem::take(m);
                for (k, mut x) in taken {
                    self.redact_value(&mut x);
                    m.insert(self.redact(&k), x);
                }
            }
            _ => {}
        }
    }
}

/// `text` with `known` secret values and everything the shared detector recognises replaced by
/// `<redacted>`: the function for output that quotes text from elsewhere (a server's stderr, a
/// banner). Redact before cutting text to a length, so that no part of a secret survives.
pub fn redact_text<'a>(text: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    Redactor::with_values(known).redact(text)
}

/// Replace what the detector recognises in free text ([`spans::secret_spans`]): known token
/// shapes anywhere; the value of a credential-like `name=value`, `name: value`, `--name value`
/// or `"name": "value"` (after a `Bearer`/`Basic`/`Token` word, the word after it); a URL's
/// password and its credential-like query values; a literal `Bearer` token under any name.
/// References and trivially plain values are left.
pub fn scrub_text(text: &str) -> String {
    replace_ranges(
        text,
        spans::secret_spans(text)
            .into_iter()
            .map(|s| s.range)
            .collect(),
    )
}

/// `text` with each range (merged where they overlap) replaced by `<redacted>`.
fn replace_ranges(text: &str, mut hide: Vec<std::ops::Range<usize>>) -> String {
    if hide.is_empty() {
        return text.to_string();
    }
    hide.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for r in hide {
        if r.end <= at {
            continue;
        }
        let s = r.start.max(at);
        if !text.is_char_boundary(s) || !text.is_char_boundary(r.end) {
            continue;
        }
        out.push_str(&text[at..s]);
        out.push_str(REDACTED);
        at = r.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Terminal control characters (C0 except tab and newline, DEL, C1) and the bidirectional
/// embeddings, overrides and isolates written visibly, so that text quoted from a file or a
/// server cannot move the cursor, recolour or retitle a terminal, or show its characters in an
/// order other than the bytes' ("Trojan Source"): `\x1b` for ESC, `\u{9b}` for a C1
/// character, `\u{202e}` for RIGHT-TO-LEFT OVERRIDE.
///
/// ```
/// use mcpconf::redact::escape_controls;
/// assert_eq!(escape_controls("a\x1b[2Jb\tc\n"), "a\\x1b[2Jb\tc\n");
/// assert_eq!(escape_controls("ab\u{202e}cd"), "ab\\u{202e}cd");
/// ```
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    escape_controls_in(text, true)
}

/// [`escape_controls`], with `lines` whether tab and newline are kept (a one-line field, a
/// name, escapes them too). The one escaper of every output that quotes text it does not own.
pub fn escape_controls_in(text: &str, lines: bool) -> std::borrow::Cow<'_, str> {
    let bad = |c: char| {
        let bidi = matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        (c.is_control() && !(lines && (c == '\n' || c == '\t'))) || bidi
    };
    if !text.contains(bad) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if bad(c) {
            if (c as u32) < 0x80 {
                out.push_str(&format!("\\x{:02x}", c as u32));
            } else {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rendered_json_document_stays_json_whatever_its_keys() {
        // Keys the detector takes for credential names, with objects, numbers and digests
        // under them: a tool named `get_token`, a count per tool.
        let doc = serde_json::json!({
            "tool_tokens": {"get_token": 12, "api_key": 3},
            "tool_digests": {"get_token": "sha256:0123456789abcdef0123456789abcdef"},
            "token": {"nested": [1, 2]},
            "error": "Authorization: Bearer abcdefghijklmnop1234 was refused",
        });
        let text = serde_json::to_string_pretty(&doc).unwrap() + "\n";
        let out = Redactor::default().redact_json(&text);
        let v: Value = serde_json::from_str(&out).expect("still JSON");
        assert_eq!(v["tool_tokens"], doc["tool_tokens"]);
        assert_eq!(v["tool_digests"], doc["tool_digests"]);
        assert_eq!(v["token"], doc["token"]);
        assert!(!out.contains("abcdefghijklmnop1234"), "{out}");
        assert!(out.ends_with('\n'));
    }

    #[test]
    fn references_are_not_secrets() {
        assert!(only_references("Bearer ${TOKEN}"));
        assert!(only_references("${env:A}"));
        assert!(only_references("{env:A}"));
        assert!(!only_references("Bearer abc123"));
        assert!(!only_references("sk-live-${X}"));
    }

    #[test]
    fn secrets_by_name_or_by_value() {
        for n in [
            "DB_PASS",
            "PGPASSWORD",
            "SENTRY_DSN",
            "X-Api-Key",
            "Authorization",
        ] {
            assert!(credential_name(n), "{n}");
        }
        assert!(!credential_name("PATH") && !credential_name("HOME"));
        let mut r = Redactor::default();
        r.consider("AUTH_MODE", "oauth");
        r.consider("TOKEN_TTL", "3600000");
        r.consider("bearer_token_env_var", "OPENAB_SESSION_TOKEN");
        assert_eq!(
            r.redact("${OPENAB_SESSION_TOKEN}"),
            "${OPENAB_SESSION_TOKEN}"
        );
        r.consider("AWS_SECRET_ACCESS_KEY", "AKIAIOSFODNN7EXAMPLE");
        assert_eq!(r.redact("AKIAIOSFODNN7EXAMPLE"), "<redacted>");
        assert_eq!(r.redact("oauth 3600000"), "oauth 3600000");
        r.consider("DATABASE_URL", "postgres://app:hunter2@db/app");
        assert_eq!(
            r.redact("url=postgres://app:hunter2@db/app"),
            "url=<redacted>"
        );
        // A token inside a value is remembered on its own too.
        r.consider("args", "--token=sk-abcdefghijklmnopqrstuvwxyz0123");
        assert_eq!(
            r.redact("echo sk-abcdefghijklmnopqrstuvwxyz0123"),
            "echo <redacted>"
        );
    }

    #[test]
    fn redacts_raw_escaped_and_bare_token() {
        let mut r = Redactor::default();
        r.scan(&serde_json::json!({"x": {"headers": {"Authorization": "Bearer s3cr3t\"q"}, "env": {"PATH": "/bin"}}}));
        let out = r.redact(r#"a "Bearer s3cr3t\"q" b s3cr3t"q /bin"#);
        assert_eq!(out, "a \"<redacted>\" b <redacted> /bin");
    }

    #[test]
    fn free_text_is_scrubbed_by_the_detector() {
        let cases = [
            (
                "server: --api-key=sk-abcdefghijklmnopqrstuvwxyz0123 ok",
                "server: --api-key=<redacted> ok",
            ),
            (
                "using API_KEY=hunter2hunter2 now",
                "using API_KEY=<redacted> now",
            ),
            ("--password hunter2hunter2", "--password <redacted>"),
            (
                "Authorization: Bearer abcdef0123456789",
                "Authorization: Bearer <redacted>",
            ),
            (
                r#"{"token": "abcdef0123456789xyz"}"#,
                r#"{"token": "<redacted>"}"#,
            ),
            (
                "GET https://h/x?api_key=abcdef0123456789&page=2",
                "GET https://h/x?api_key=<redacted>&page=2",
            ),
            (
                "db postgres://u:hunter22@db/app",
                "db postgres://u:<redacted>@db/app",
            ),
            // Left alone: references, plain values, unrelated names.
            (
                "API_KEY=${API_KEY} TOKEN_TTL=3600 auth: oauth",
                "API_KEY=${API_KEY} TOKEN_TTL=3600 auth: oauth",
            ),
            (
                "PATH=/usr/bin:/bin https://h/mcp",
                "PATH=/usr/bin:/bin https://h/mcp",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(scrub_text(input), want, "{input}");
        }
        assert_eq!(
            redact_text("echo abc-known-value-1 x", ["abc-known-value-1"]),
            "echo <redacted> x"
        );
    }

    /// Many distinct secrets are remembered and each is found again in time linear in their
    /// number: at this size keeping them sorted on every addition, or trying each on every
    /// text, took minutes (issue 27, item 9: lint of 20 000 entries each with its own key).
    #[test]
    fn many_secrets_are_remembered_and_found_in_linear_time() {
        let n = 50_000;
        let value = |i: usize| format!("Zq{i:08}x7RkLmNpQ{}", i % 97);
        let mut r = Redactor::default();
        for i in 0..n {
            r.consider("API_KEY", &value(i));
        }
        let mut other = Redactor::default();
        other.add("short1");
        r.merge(&other);
        for i in 0..n {
            let line = format!(
                "  \"API_KEY\": \"{}\", short1 {}",
                value(i),
                value(n - 1 - i)
            );
            assert_eq!(
                r.redact(&line),
                "  \"API_KEY\": \"<redacted>\", <redacted> <redacted>"
            );
        }
    }

    /// The longest known value that starts at a position is hidden, overlapping ones as one.
    #[test]
    fn known_values_are_found_longest_first_and_merged() {
        let r = Redactor::with_values([
            "abcdefghijklmnopqrstuvwxyz",
            "abcdefgh",
            "xyz0123456789",
            "q",
        ]);
        assert_eq!(
            r.redact("<abcdefgh-abcdefghijklmnopqrstuvwxyz0123456789>"),
            "<<redacted>-<redacted>>"
        );
        assert_eq!(r.redact("a q b"), "a <redacted> b");
        assert_eq!(r.len(), 4);
        assert!(Redactor::default().is_empty());
    }

    #[test]
    fn control_characters_are_made_visible() {
        assert_eq!(escape_controls("a\x1b[2Jb\tc\n"), "a\\x1b[2Jb\tc\n");
        assert_eq!(escape_controls("\u{9b}31m\r"), "\\u{9b}31m\\x0d");
        assert!(matches!(
            escape_controls("plain"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
