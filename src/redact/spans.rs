//! Where credentials lie inside one string, whatever name the string stands under: the one
//! reading that redaction of free text ([`super::scrub_text`]), the known-value redactor,
//! [`super::detect::classify`] (and so `lint`'s `literal-secret` and every diff's mask) and
//! `import`'s replacement by references share. Each span is a byte range of the string and a
//! name for it (the key, option or kind it was found by), never a copy of the value.
//!
//! Found here:
//! - every token of a known shape ([`super::detect::tokens`]: `sk-…`, `ghp_…`, JWTs, key
//!   blocks, …);
//! - the value of a credential-named pair in any of the spellings people embed in a string:
//!   `API_KEY=V`, `GITHUB_TOKEN=V` (as after `-e` or `--env`), `Authorization: Bearer V`,
//!   `X-Api-Key: V`, `--apikey:V`, `"apiKey": "V"` (a JSON blob), `api_key = 'V'` (TOML),
//!   `Password=V;` (a connection string), `--token V`;
//! - the value of a credential-named option (`--api-key=V`; [`super::argv::values_in`]);
//! - a URL's password and its credential-named query values (`sig=`, `token=`, …);
//! - a literal token after a `Bearer`, `Basic` or `Token` word, under any name.
//!
//! References (`${VAR}`, `{env:VAR}`, `$VAR`) and trivially plain values are never spans.

use std::ops::Range;

use super::detect::{credential_name, only_references, query_name, tokens, trivial};

/// One credential inside a string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span<'a> {
    /// Its bytes in the string.
    pub range: Range<usize>,
    /// What it was found by: the pair's key or the option's name as written, or a word for
    /// its kind (`token`, `password`).
    pub name: &'a str,
}

/// Every credential inside `text` (see the module docs), in no particular order; ranges may
/// overlap (a token inside a pair's value).
pub fn secret_spans(text: &str) -> Vec<Span<'_>> {
    // A reference's name is no secret: tokens are looked for in the text with its references
    // blanked (offsets kept), and no span is only a reference (and the punctuation after it).
    let stripped = super::detect::strip_references(text);
    let mut out: Vec<Span<'_>> = tokens(&stripped)
        .into_iter()
        .map(|(range, _)| Span {
            range,
            name: "token",
        })
        .collect();
    // Every finder below needs one of these bytes.
    if !text.contains(['=', ':', '-', ' ']) {
        return out;
    }
    pairs(text, &mut out);
    for (range, name) in super::argv::values_in(text) {
        if range.end > range.start {
            out.push(Span { range, name });
        }
    }
    urls(text, &mut out);
    schemes(text, &mut out);
    out.retain(|s| {
        stripped.get(s.range.clone()).is_some_and(|left| {
            !left
                .trim_matches(|c: char| c.is_whitespace() || "\"',;)]}".contains(c))
                .is_empty()
        })
    });
    out
}

/// Whether `text` holds a credential [`secret_spans`] finds beyond the tokens of a known shape
/// (the caller looked for those already): a pair, an option's value, a URL part, a literal
/// scheme token. [`super::detect::classify`]'s last resort, so it stops at the first.
pub fn secret_beyond_tokens(text: &str) -> bool {
    if !text.contains(['=', ':', '-', ' ']) {
        return false;
    }
    let mut found = Vec::new();
    pairs(text, &mut found);
    if found.is_empty() {
        urls(text, &mut found);
    }
    if found.is_empty() {
        schemes(text, &mut found);
    }
    !found.is_empty() || !super::argv::values_in(text).is_empty()
}

/// Characters that may end a value written in free text.
fn value_end(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '"' | '\'' | ',' | ';' | '&' | '<' | '>' | '`' | ')' | '}' | ']'
        )
}

fn name_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')
}

/// The values of credential-named pairs (`name=value`, `name: value`, `"name": "value"`,
/// `--name value`; after a scheme word, the word after it).
fn pairs<'a>(text: &'a str, out: &mut Vec<Span<'a>>) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !name_byte(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && name_byte(b[i]) {
            i += 1;
        }
        let name = &text[start..i];
        let mut j = i;
        // A quoted name: `"API_KEY": …`.
        if j < b.len() && (b[j] == b'"' || b[j] == b'\'') && start > 0 && b[start - 1] == b[j] {
            j += 1;
        }
        while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
            j += 1;
        }
        let sep = j < b.len() && (b[j] == b'=' || (b[j] == b':' && !text[j..].starts_with("://")));
        let option = !sep && name.starts_with("--") && j > i && j < b.len();
        if !(sep || option) || !credential_name(name) {
            continue;
        }
        if sep {
            j += 1;
        }
        while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
            j += 1;
        }
        let Some(mut r) = value_at(text, j) else {
            continue;
        };
        let word = &text[r.clone()];
        if is_scheme(word) {
            let mut k = r.end;
            while k < b.len() && b[k] == b' ' {
                k += 1;
            }
            match value_at(text, k) {
                Some(next) if k > r.end => r = next,
                _ => continue,
            }
        }
        let value = &text[r.clone()];
        if !only_references(value) && !trivial(value) && !plain_location(value) {
            out.push(Span { range: r, name });
        }
    }
}

/// `Bearer`, `Basic` or `Token`, any case.
fn is_scheme(word: &str) -> bool {
    ["bearer", "basic", "token"]
        .iter()
        .any(|w| word.eq_ignore_ascii_case(w))
}

/// A path or a URL without a credential in it: the location of a key file or of a token
/// endpoint (`token_url=https://…/token`, `key_file=/etc/x.pem`), not a key.
fn plain_location(v: &str) -> bool {
    let v = v.trim();
    let url = v.contains("://") && super::detect::url_credential(v).is_none();
    let path = v.starts_with('/') || v.starts_with("./") || v.starts_with("~/");
    url || path
}

/// The value that starts at `j`: a quoted string's inside, or a run up to a delimiter.
fn value_at(text: &str, j: usize) -> Option<Range<usize>> {
    let b = text.as_bytes();
    if j >= b.len() {
        return None;
    }
    if b[j] == b'"' || b[j] == b'\'' {
        let q = b[j];
        let mut k = j + 1;
        while k < b.len() && b[k] != q && b[k] != b'\n' {
            if b[k] == b'\\' {
                k += 1;
            }
            k += 1;
        }
        let k = k.min(b.len());
        return (k > j + 1).then_some(j + 1..k);
    }
    let mut depth = 0usize;
    let mut end = text.len();
    for (k, c) in text[j..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth > 0 => depth -= 1,
            c if depth == 0 && value_end(c) => {
                end = j + k;
                break;
            }
            _ => {}
        }
    }
    (end > j).then_some(j..end)
}

/// URLs in `text`: the password of the user info and credential-named query values.
fn urls<'a>(text: &'a str, out: &mut Vec<Span<'a>>) {
    let mut from = 0;
    while let Some(k) = text[from..].find("://") {
        let at = from + k + 3;
        // A URL runs to white space or a quote (its query's `&` and `;` are its own).
        let end = text[at..]
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`'))
            .map_or(text.len(), |e| at + e);
        let url = &text[at..end];
        let auth_end = url.find(['/', '?', '#']).unwrap_or(url.len());
        if let Some(a) = url[..auth_end].rfind('@')
            && let Some(c) = url[..a].find(':')
            && !only_references(&url[c + 1..a])
            && !trivial(&url[c + 1..a])
        {
            out.push(Span {
                range: at + c + 1..at + a,
                name: "password",
            });
        }
        if let Some(q) = url.find('?') {
            let mut p = q + 1;
            for pair in url[q + 1..].split('&') {
                if let Some((k, v)) = pair.split_once('=') {
                    let v = v.split('#').next().unwrap_or("");
                    if query_name(k) && super::detect::query_secret(v) {
                        let s = at + p + k.len() + 1;
                        out.push(Span {
                            range: s..s + v.len(),
                            name: &text[at + p..at + p + k.len()],
                        });
                    }
                }
                p += pair.len() + 1;
            }
        }
        from = end.max(at);
    }
}

/// A literal token after a `Bearer`, `Basic` or `Token` word, under any name (`X_VALUE =
/// "Bearer 9f8e…"`): a word of at least 12 characters without white space, with a digit or
/// both cases in it (`Token exchange`, `left the token world-readable` are prose).
fn schemes<'a>(text: &'a str, out: &mut Vec<Span<'a>>) {
    // Each word with its offset in `text` (a separator may be more than one byte: U+0085,
    // U+2028, an ideographic space).
    let mut words = text
        .split(|c: char| c.is_whitespace())
        .map(|w| (w.as_ptr() as usize - text.as_ptr() as usize, w))
        .filter(|(_, w)| !w.is_empty())
        .peekable();
    while let Some((_, w)) = words.next() {
        let w = w.trim_start_matches(['"', '\'', '(']);
        if !is_scheme(w) {
            continue;
        }
        let Some(&(at, _)) = words.peek() else {
            break;
        };
        // The word up to the delimiter that ends a value (a reference's braces kept whole).
        let Some(r) = value_at(text, at) else {
            continue;
        };
        let (at, token) = (r.start, &text[r]);
        // Random-looking: a digit in it, or both cases (`world-readable` is a word).
        let digit = token.bytes().any(|c| c.is_ascii_digit());
        let mixed = token.bytes().any(|c| c.is_ascii_uppercase())
            && token.bytes().any(|c| c.is_ascii_lowercase());
        if token.chars().count() >= 12
            && (digit || mixed)
            && !only_references(token)
            && !trivial(token)
        {
            out.push(Span {
                range: at..at + token.len(),
                name: "token",
            });
        }
    }
}

#[cfg(test)]
mod tests {
    /// A fuzz finding: a separator of more than one byte (U+0085) before a `Bearer` line moved
    /// every later word's offset, and the token after `Bearer` was not found.
    #[test]
    fn words_after_a_wide_separator_keep_their_offsets() {
        for sep in ["\u{85}", "\u{2028}", "\u{3000}", " "] {
            let text =
                format!("a -key={sep}\u{fffd}dd> \n Bearer Pl4nt3a666c666c61Qz7Rv3Lm9Tw \nb");
            let spans = super::secret_spans(&text);
            assert!(
                spans
                    .iter()
                    .any(|s| &text[s.range.clone()] == "Pl4nt3a666c666c61Qz7Rv3Lm9Tw"),
                "{sep:?}: {:?}",
                spans
                    .iter()
                    .map(|s| &text[s.range.clone()])
                    .collect::<Vec<_>>()
            );
        }
    }

    /// Issue 45, class 8: a reference's name is not a secret. No line of a diff, a frame or a
    /// message loses a reference (or the punctuation after it) to the mask, whatever the name
    /// looks like and however the reference is spelled or embedded.
    #[test]
    fn reference_names_are_never_hidden() {
        let names = [
            "ABCDEFGHIJKL",
            "GitHubToken123",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "API_KEY",
        ];
        let shapes = [
            r#""Bearer ${env:N}"],"#,
            r#""Authorization": "Bearer ${N}"}}"#,
            r#"Authorization: Bearer {env:N}"#,
            r#""--token=${env:N}", "--api-key", "${N}""#,
            r#"API_KEY=${N}; "X": "Token $N""#,
            r#"https://h/mcp?api_key=${env:N}&page=2"#,
            r#"postgres://u:${N}@h/db"#,
            r#""GITHUB_TOKEN": "${env:N}", "#,
        ];
        for n in names {
            for shape in shapes {
                let line = shape.replace('N', n);
                assert_eq!(crate::redact::scrub_text(&line), line, "{line}");
                assert!(super::secret_spans(&line).is_empty(), "{line}");
            }
        }
        // A literal beside a reference still is one.
        assert_ne!(
            crate::redact::scrub_text(r#""Bearer ${env:T}x9F3kLq2ZpW7vR", "#),
            r#""Bearer ${env:T}x9F3kLq2ZpW7vR", "#
        );
    }

    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut v: Vec<&str> = secret_spans(text)
            .into_iter()
            .map(|s| &text[s.range])
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    #[test]
    fn pairs_in_every_spelling_people_embed() {
        let v = "Zq8vW2nR5tY7uP3x";
        for text in [
            format!("API_KEY={v}"),
            format!("GITHUB_TOKEN={v}"),
            format!("Authorization: Bearer {v}"),
            format!("X-Api-Key: {v}"),
            format!("--apikey:{v}"),
            format!("{{\"apiKey\": \"{v}\"}}"),
            format!("api_key = '{v}'"),
            format!("Server=db;Database=x;Password={v};"),
            format!("--token {v}"),
            format!("--api-key={v}"),
            format!("https://u:{v}@host/x"),
            format!("https://h/x?se=2030&sig={v}"),
            format!("Bearer {v}"),
        ] {
            assert_eq!(found(&text), vec![v], "{text}");
            // The classifier's last resort agrees (every shape here but a bare token).
            assert!(secret_beyond_tokens(&text), "{text}");
        }
    }

    #[test]
    fn braces_that_are_no_reference_hide_nothing() {
        let sk = "sk-Zq8vW2nR5tY7uP3xQ1w2E3r4";
        for text in [
            format!("${{\n {sk} \n}}"),
            format!("${{API_KEY:-{sk}}}"),
            format!("${{ {sk} }}"),
            format!("{{env: {sk}}}"),
        ] {
            assert!(found(&text).contains(&sk), "{text:?}: {:?}", found(&text));
            assert!(!crate::redact::scrub_text(&text).contains(sk), "{text:?}");
        }
        assert!(found("${API_KEY:-} ${env:TOKEN} {env:X} ${A-b}").is_empty());
    }

    #[test]
    fn references_locations_and_prose_are_not_spans() {
        for text in [
            "API_KEY=${API_KEY}",
            "Authorization: Bearer ${TOKEN}",
            "token_url=https://auth.example.com/oauth/token",
            "key_file=/etc/ssl/private/server.pem",
            "Token exchange is described in RFC 8693",
            "Basic authentication",
            "left the token world-readable for a moment",
            "--log-level=debug",
            "AUTH_MODE=oauth",
            "https://h/x?page=2&sort=name",
        ] {
            assert!(found(text).is_empty(), "{text}: {:?}", found(text));
            assert!(!secret_beyond_tokens(text), "{text}");
        }
    }
}
