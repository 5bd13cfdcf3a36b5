//! Recognising credentials written literally. Pure; the value found is never part of the
//! description returned (only what kind of credential it looks like).

use crate::redact::credential_name;

/// Known credential prefixes: (prefix, minimum length of what follows, what it is).
const PREFIXES: &[(&str, usize, &str)] = &[
    ("sk-", 20, "an API key (`sk-…`)"),
    ("sk_live_", 16, "a Stripe secret key (`sk_live_…`)"),
    ("sk_test_", 16, "a Stripe secret key (`sk_test_…`)"),
    ("rk_live_", 16, "a Stripe restricted key (`rk_live_…`)"),
    ("ghp_", 30, "a GitHub token (`ghp_…`)"),
    ("gho_", 30, "a GitHub OAuth token (`gho_…`)"),
    ("ghu_", 30, "a GitHub token (`ghu_…`)"),
    ("ghs_", 30, "a GitHub token (`ghs_…`)"),
    ("ghr_", 30, "a GitHub token (`ghr_…`)"),
    ("github_pat_", 20, "a GitHub token (`github_pat_…`)"),
    ("glpat-", 20, "a GitLab token (`glpat-…`)"),
    ("xoxb-", 10, "a Slack token (`xoxb-…`)"),
    ("xoxp-", 10, "a Slack token (`xoxp-…`)"),
    ("xoxa-", 10, "a Slack token (`xoxa-…`)"),
    ("xoxr-", 10, "a Slack token (`xoxr-…`)"),
    ("xoxs-", 10, "a Slack token (`xoxs-…`)"),
    ("xapp-", 10, "a Slack app token (`xapp-…`)"),
    ("AKIA", 16, "an AWS access key id (`AKIA…`)"),
    ("ASIA", 16, "an AWS access key id (`ASIA…`)"),
    ("AIza", 30, "a Google API key (`AIza…`)"),
    ("hf_", 30, "a Hugging Face token (`hf_…`)"),
    ("npm_", 30, "an npm token (`npm_…`)"),
    ("pypi-", 40, "a PyPI token (`pypi-…`)"),
];

fn token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Blank out environment references (`${…}`, `{env:…}`, `$NAME`) so that only literal text
/// is examined.
pub fn strip_references(s: &str) -> String {
    if !s.contains('$') && !s.contains("{env:") {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("${") || rest.starts_with("{env:") {
            match rest.find('}') {
                Some(j) => {
                    out.push(' ');
                    rest = &rest[j + 1..];
                    continue;
                }
                None => break,
            }
        }
        if c == '$' {
            let n = rest[1..]
                .char_indices()
                .take_while(|(k, x)| {
                    x.is_ascii_alphanumeric() && !(*k == 0 && x.is_ascii_digit()) || *x == '_'
                })
                .count();
            if n > 0 {
                out.push(' ');
                rest = &rest[1 + n..];
                continue;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// A known credential prefix in `s` (at a word start, with enough token characters after it).
pub fn known_prefix(s: &str) -> Option<&'static str> {
    let s = strip_references(s);
    if s.contains("PRIVATE KEY-----") {
        return Some("a private key");
    }
    for (i, _) in s.char_indices() {
        let before = s[..i].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric()) {
            continue;
        }
        let rest = &s[i..];
        for (p, min, what) in PREFIXES {
            if let Some(tail) = rest.strip_prefix(p) {
                let n = tail.chars().take_while(|c| token_char(*c)).count();
                let upper_only = *p == "AKIA" || *p == "ASIA";
                let ok = if upper_only {
                    tail.chars()
                        .take(16)
                        .filter(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
                        .count()
                        == 16
                } else {
                    n >= *min
                };
                if ok {
                    return Some(what);
                }
            }
        }
        if let Some(tail) = rest.strip_prefix("eyJ") {
            let tok: String = tail
                .chars()
                .take_while(|c| token_char(*c) || *c == '.')
                .collect();
            if tok.matches('.').count() == 2 && tok.len() >= 30 {
                return Some("a JSON Web Token (`eyJ…`)");
            }
        }
    }
    None
}

/// Shannon entropy in bits per character.
fn entropy(s: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    let mut n = 0usize;
    for c in s.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
        n += 1;
    }
    if n == 0 {
        return 0.0;
    }
    counts
        .values()
        .map(|&k| {
            let p = k as f64 / n as f64;
            -p * p.log2()
        })
        .sum()
}

/// Whether a literal looks like a generated credential: long, no spaces, not a path or URL,
/// digits or mixed case in it, and random-looking.
pub fn high_entropy(s: &str) -> bool {
    let s = s.trim();
    if s.chars().count() < 16 || s.chars().any(char::is_whitespace) {
        return false;
    }
    if s.starts_with('/')
        || s.starts_with("./")
        || s.starts_with("../")
        || s.starts_with("~/")
        || s.contains("://")
        || s.starts_with("file:")
    {
        return false;
    }
    let digit = s.chars().any(|c| c.is_ascii_digit());
    let upper = s.chars().any(|c| c.is_ascii_uppercase());
    let lower = s.chars().any(|c| c.is_ascii_lowercase());
    if !(digit || (upper && lower)) {
        return false;
    }
    entropy(s) >= 3.5
}

/// What kind of credential a string stored under the key `name` looks like, or `None`: a known
/// key prefix anywhere; under a credential-like name (`Authorization`, `API_KEY`, …) a literal
/// `Bearer`/`Basic` token or a random-looking value; a password or key in a URL.
pub fn classify(name: &str, value: &str) -> Option<&'static str> {
    if let Some(what) = known_prefix(value) {
        return Some(what);
    }
    let literal = strip_references(value);
    let literal = literal.trim();
    if literal.is_empty() {
        return None;
    }
    // `Authorization: Bearer abc…` / `Basic …` with a literal token.
    if !credential_name(name) {
        return url_credential(literal);
    }
    if let Some((scheme, token)) = literal.split_once(' ') {
        let scheme = scheme.to_ascii_lowercase();
        if (scheme == "bearer" || scheme == "basic" || scheme == "token")
            && token.trim().chars().count() >= 8
            && !token.contains(' ')
        {
            return Some(if scheme == "basic" {
                "basic-auth credentials"
            } else {
                "a bearer token"
            });
        }
    }
    if high_entropy(literal) {
        return Some("a random-looking credential");
    }
    url_credential(literal)
}

/// A password in a URL's user info, or a credential-like query parameter with a literal value.
fn url_credential(s: &str) -> Option<&'static str> {
    let (_, rest) = s.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if let Some((userinfo, _)) = authority.rsplit_once('@')
        && let Some((_, pass)) = userinfo.split_once(':')
        && pass.chars().count() >= 4
    {
        return Some("a password in the URL");
    }
    let query = rest.split_once('?').map(|(_, q)| q).unwrap_or("");
    for pair in query.split('&') {
        if let Some((k, v)) = pair.split_once('=') {
            let v = v.split('#').next().unwrap_or("");
            if credential_name(k) && v.chars().count() >= 12 {
                return Some("a credential in the URL's query");
            }
        }
    }
    None
}

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
    let mut chars = line.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        if c == MARK {
            out.push(c);
            continue;
        }
        if c == '"' || c == '\'' {
            let quote = c;
            let mut value = String::new();
            let mut raw = String::new();
            let mut closed = false;
            while let Some((_, x)) = chars.next() {
                if x == '\\' {
                    raw.push(x);
                    if let Some((_, y)) = chars.next() {
                        raw.push(y);
                        value.push(y);
                    }
                    continue;
                }
                if x == quote {
                    closed = true;
                    break;
                }
                raw.push(x);
                value.push(x);
            }
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
    fn finds_known_prefixes_at_word_starts_only() {
        assert!(known_prefix("sk-proj-abcdefghijklmnopqrstuvwx").is_some());
        assert!(known_prefix("--api-key=sk-abcdefghijklmnopqrstuvwx").is_some());
        assert!(known_prefix("ghp_0123456789abcdefghijklmnopqrstuvwxyz").is_some());
        assert!(known_prefix("AKIAIOSFODNN7EXAMPLE").is_some());
        assert!(known_prefix("xoxb-1234567890-abcdef").is_some());
        // Near misses: inside a word, too short, lower-case AWS-like text, a reference.
        assert!(known_prefix("task-runner-abcdefghijklmnopqrstuvwxyz").is_none());
        assert!(known_prefix("sk-short").is_none());
        assert!(known_prefix("AKIAlowercaseletters").is_none());
        assert!(known_prefix("${OPENAI_API_KEY}").is_none());
        assert!(known_prefix("ghp_${TOKEN_REST_OF_IT_IS_AN_ENV_VAR}").is_none());
    }

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

    #[test]
    fn classifies_by_name_and_shape() {
        assert!(classify("Authorization", "Bearer abcdef123456").is_some());
        assert!(classify("Authorization", "Bearer ${TOKEN}").is_none());
        assert!(classify("API_KEY", "9f86d081884c7d659a2feaa0c55ad015").is_some());
        assert!(classify("API_KEY_FILE", "/run/secrets/api_key_0123456789").is_none());
        assert!(classify("AUTH_PROVIDER", "google_credentials").is_none());
        assert!(classify("TOKEN_TTL", "3600").is_none());
        assert!(classify("REGION", "9f86d081884c7d659a2feaa0c55ad015").is_none());
        assert!(classify("url", "https://u:hunter22@example.com/mcp").is_some());
        assert!(classify("url", "https://example.com/mcp?api_key=abcdef123456xyz").is_some());
        assert!(classify("url", "https://example.com/mcp?page=abcdef123456xyz").is_none());
    }
}
