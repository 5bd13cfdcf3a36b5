//! The one secret detector: which names carry credentials, which values are credentials, and
//! where in a string a credential lies. Shared by redaction (diffs, JSON, errors, probe output),
//! `lint`'s `literal-secret` rule and `import`. Pure; what it returns never holds the value
//! found, only where it is and what kind of credential it looks like.

use std::borrow::Cow;
use std::ops::Range;

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

/// The first bytes of [`PREFIXES`] and of `eyJ` (a JSON Web Token).
static STARTS: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < PREFIXES.len() {
        t[PREFIXES[i].0.as_bytes()[0] as usize] = true;
        i += 1;
    }
    t[b'e' as usize] = true;
    t
};

/// Whether a header, env or option name looks like it carries a credential: it holds one of
/// the credential words (`auth`, `token`, `key`, `secret`, `pass`, …; any case, inside a
/// longer word too: `APIKEY`, `OAUTH`, `PASSWORD`), except inside a word of the name that is
/// an ordinary word which merely contains one (`GIT_AUTHOR_NAME`, `TOKENIZERS_PARALLELISM`,
/// `KEYBOARD_LAYOUT`).
pub fn credential_name(name: &str) -> bool {
    let n = name.as_bytes();
    // Compare only where a word's first letter is (one table lookup per byte instead of a
    // compare per word and position); the same answer as comparing every window.
    let mut i = 0;
    while i < n.len() {
        let c = n[i].to_ascii_lowercase();
        if CREDENTIAL_FIRST[usize::from(c)] {
            let rest = &n[i..];
            if CREDENTIAL_WORDS.iter().any(|w| {
                w.as_bytes()[0] == c
                    && rest
                        .get(..w.len())
                        .is_some_and(|x| x.eq_ignore_ascii_case(w.as_bytes()))
            }) && !in_plain_word(n, i)
            {
                return true;
            }
        }
        i += 1;
    }
    false
}

/// Ordinary words that contain a credential word without being about one. A name word equal
/// to one of these (any case) is passed over; a credential word elsewhere in the name still
/// counts (`AUTHOR_TOKEN`).
const PLAIN_WORDS: &[&str] = &[
    "author",
    "authors",
    "authored",
    "keyboard",
    "keyboards",
    "keyword",
    "keywords",
    "keyspace",
    "monkey",
    "turkey",
    "hockey",
    "jockey",
    "donkey",
    "whiskey",
    "passthrough",
    "passenger",
    "passengers",
    "passage",
    "compass",
    "tokenizer",
    "tokenizers",
    "tokenize",
    "certain",
    "certainty",
    "uncertain",
];

/// Whether byte `at` of the name lies in a word of the name (letters, split at a lower- to
/// upper-case step as in `GitAuthorName`) that is one of [`PLAIN_WORDS`].
fn in_plain_word(n: &[u8], at: usize) -> bool {
    let boundary = |i: usize| {
        i == 0
            || i >= n.len()
            || !n[i].is_ascii_alphabetic()
            || !n[i - 1].is_ascii_alphabetic()
            || (n[i].is_ascii_uppercase() && n[i - 1].is_ascii_lowercase())
    };
    let mut start = at;
    while !boundary(start) {
        start -= 1;
    }
    let mut end = at + 1;
    while !boundary(end) {
        end += 1;
    }
    let word = &n[start..end.min(n.len())];
    PLAIN_WORDS
        .iter()
        .any(|w| word.eq_ignore_ascii_case(w.as_bytes()))
}

/// Whether `b` holds `-----`.
fn dash_run(b: &[u8]) -> bool {
    let mut run = 0;
    for &c in b {
        if c == b'-' {
            run += 1;
            if run == 5 {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

/// What a credential-like name contains (any case).
const CREDENTIAL_WORDS: [&str; 14] = [
    "auth",
    "token",
    "secret",
    "key",
    "pass",
    "pwd",
    "credential",
    "cookie",
    "session",
    "bearer",
    "private",
    "signature",
    "cert",
    "dsn",
];

/// The first letters of [`CREDENTIAL_WORDS`].
static CREDENTIAL_FIRST: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < CREDENTIAL_WORDS.len() {
        t[CREDENTIAL_WORDS[i].as_bytes()[0] as usize] = true;
        i += 1;
    }
    t
};

#[cfg(test)]
fn credential_name_by_windows(name: &str) -> bool {
    let n = name.as_bytes();
    CREDENTIAL_WORDS.iter().any(|w| {
        (0..n.len().saturating_sub(w.len() - 1))
            .any(|i| n[i..i + w.len()].eq_ignore_ascii_case(w.as_bytes()) && !in_plain_word(n, i))
    })
}

fn token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Blank out environment references (`${…}`, `{env:…}`, `$NAME`) and command substitutions
/// (`$(…)`, all but the credential-like words inside) so that only literal text is examined. Each blanked byte becomes a space, so offsets into the result are offsets into
/// `s`.
pub fn strip_references(s: &str) -> Cow<'_, str> {
    // `{env:` needs a `{`: one byte search first (most values have neither).
    let env_brace = s.contains('{') && s.contains("{env:");
    if !s.contains('$') && !env_brace {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    let blank = |out: &mut String, n: usize| out.extend(std::iter::repeat_n(' ', n));
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("${") || rest.starts_with("{env:") {
            // Only a reference is blanked: `${NAME}`, `${env:NAME}` (a word and a colon before
            // the name), `{env:NAME}`; of `${NAME:-default}` only `${NAME:-` and `}`, so a
            // literal default is still examined. Anything else between `${` and `}` (white
            // space, a line break, another `${`) is text, never a hiding place.
            if let Some((head, default)) = reference_at(rest) {
                blank(&mut out, head);
                if let Some(inner) = default {
                    // A default: examined as it is, then the closing brace blanked.
                    out.push_str(&rest[head..head + inner]);
                    blank(&mut out, 1);
                    rest = &rest[head + inner + 1..];
                } else {
                    rest = &rest[head..];
                }
                continue;
            }
        }
        if let Some(n) = rest
            .starts_with("$(")
            .then(|| substitution_len(rest))
            .flatten()
        {
            // Command substitution (`$(echo ${X:-})`, a shell-like client runs it): a command
            // that yields the value, not the value; only a word inside it that is itself a
            // credential (a token of a known shape, a random-looking string) stays examined.
            blank(&mut out, 2);
            let mut word_start = None;
            let inner = &rest[2..n - 1];
            for (i, ch) in inner.char_indices().chain([(inner.len(), ' ')]) {
                match (ch.is_whitespace(), word_start) {
                    (false, None) => word_start = Some(i),
                    (true, Some(w)) => {
                        let word = &inner[w..i];
                        // Judged as a value of its own: a token of a known shape, a
                        // credential in a URL or an option, a random-looking string.
                        if classify_left(false, word, word).is_some() || high_entropy(word) {
                            out.push_str(word);
                        } else {
                            blank(&mut out, word.len());
                        }
                        word_start = None;
                    }
                    _ => {}
                }
                if ch.is_whitespace() && i < inner.len() {
                    blank(&mut out, ch.len_utf8());
                }
            }
            blank(&mut out, 1);
            rest = &rest[n..];
            continue;
        }
        if c == '$' {
            let n = rest[1..]
                .char_indices()
                .take_while(|(k, x)| {
                    x.is_ascii_alphanumeric() && !(*k == 0 && x.is_ascii_digit()) || *x == '_'
                })
                .count();
            if n > 0 {
                blank(&mut out, 1 + n);
                rest = &rest[1 + n..];
                continue;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    Cow::Owned(out)
}

/// The length of the command substitution `$(…)` at the start of `s`, its parentheses
/// balanced, on one line (`None`: not closed before the line ends, so not one).
fn substitution_len(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in s.bytes().enumerate().skip(2) {
        match b {
            b'\n' | b'\r' => return None,
            b'(' => depth += 1,
            b')' if depth == 0 => return Some(i + 1),
            b')' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// A reference at the start of `s`: the length of what is blanked first (the whole `${NAME}`,
/// or `${NAME:-` / `${NAME-` before a default) and, for a default, its length (its closing `}`
/// right after it), or `None` when `s` does not start with one.
fn reference_at(s: &str) -> Option<(usize, Option<usize>)> {
    let open = if s.starts_with("${") {
        2
    } else if s.starts_with("{env:") {
        5
    } else {
        return None;
    };
    let b = s.as_bytes();
    // `${input:ID}`: a client-prompted input (ids take `-` and `.` too), never a credential.
    if open == 2
        && let Some(rest) = s[2..].strip_prefix("input:")
        && let Some(end) = rest.find('}')
        && crate::text::valid_input_id(&rest[..end])
    {
        return Some((2 + 6 + end + 1, None));
    }
    let word = |from: usize| {
        let n = b[from..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
            .count();
        (n > 0 && !b[from].is_ascii_digit()).then_some(from + n)
    };
    let mut at = word(open)?;
    // `${env:NAME}`, `${input:ID}`: a word and a colon, then the name.
    if open == 2 && b.get(at) == Some(&b':') && b.get(at + 1) != Some(&b'-') {
        at = word(at + 1)?;
    }
    match b.get(at) {
        Some(b'}') => Some((at + 1, None)),
        Some(b':') | Some(b'-') if open == 2 => {
            let head = at + if b[at] == b':' { 2 } else { 1 };
            if b[at] == b':' && b.get(at + 1) != Some(&b'-') {
                return None;
            }
            let inner = s[head..].find('}')?;
            let default = &s[head..head + inner];
            (!default.contains(['\n', '$', '{'])).then_some((head, Some(inner)))
        }
        _ => None,
    }
}

/// Whether a value is only references (plus an optional scheme word such as `Bearer`), so
/// safe to show.
pub fn only_references(value: &str) -> bool {
    only_references_left(&strip_references(value))
}

/// [`only_references`] of a value given with its references blanked ([`strip_references`]).
fn only_references_left(stripped: &str) -> bool {
    let rest = stripped.trim();
    rest.is_empty()
        || ["bearer", "basic", "token"]
            .iter()
            .any(|w| rest.eq_ignore_ascii_case(w))
}

/// Values too plain to be credentials even under a credential-like name (`AUTH_MODE =
/// "oauth"`, `TOKEN_TTL = "3600"`, `bearer_token_env_var = "API_TOKEN"`).
pub fn trivial(value: &str) -> bool {
    let v = value.trim();
    if placeholder(v) || path_like(v) || snake_word(v) {
        return true;
    }
    // The name of an environment variable (Codex's `bearer_token_env_var = "API_TOKEN"`).
    let env_name = v.contains('_')
        && v.starts_with(|c: char| c.is_ascii_uppercase() || c == '_')
        && v.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    env_name
        || v.chars().count() < 6
        || (v.len() <= 10
            && v.chars()
                .all(|c| c.is_ascii_lowercase() || c == '-' || c == '_'))
        || v.chars().all(|c| c.is_ascii_digit())
        || ["true", "false", "null"]
            .iter()
            .any(|w| v.eq_ignore_ascii_case(w))
}

/// A [`placeholder`] that holds no token of a known shape (`sk-…xxxx` is a key, however it
/// ends): what a bearer token, a URL's password or a query value may be without being a
/// credential, as a bare value under a credential-like name may ([`trivial`]).
fn mere_placeholder(v: &str) -> bool {
    placeholder(v) && tokens(v).is_empty()
}

/// A value that stands for a credential someone still has to fill in (`YOUR_API_KEY_HERE`,
/// `<your-token>`, `xxxxxxxx`, `changeme`, `replace-me`), as READMEs and templates ship
/// them: not a credential, for every output alike.
pub fn placeholder(v: &str) -> bool {
    let l = v.to_ascii_lowercase();
    let marked = (l.starts_with('<') && l.ends_with('>'))
        || (l.starts_with('[') && l.ends_with(']'))
        || l.contains("xxxx")
        || l.contains("****")
        || l.contains("...")
        || l.contains('…');
    let words = [
        "your_",
        "your-",
        "yourkey",
        "your ",
        "_here",
        "-here",
        " here",
        "changeme",
        "change_me",
        "change-me",
        "replace_me",
        "replace-me",
        "replaceme",
        "placeholder",
        "insert_",
        "insert-",
        "dummy",
        "redacted",
    ];
    marked || words.iter().any(|w| l.contains(w))
}

/// A file path (`/run/secrets/api_key`, `~/.config/x.pem`, `./key.json`): where a credential
/// is kept, not the credential.
fn path_like(v: &str) -> bool {
    ["/", "~/", "./", "../"].iter().any(|p| v.starts_with(p)) && !v.contains(char::is_whitespace)
}

/// A lower-case snake_case identifier of words (`google_credentials`, `service_account`): a
/// setting's value, not a credential.
fn snake_word(v: &str) -> bool {
    v.contains('_')
        && v.split('_')
            .all(|w| !w.is_empty() && w.bytes().all(|c| c.is_ascii_lowercase()))
}

/// The first bytes of [`PREFIXES`] and of a JSON Web Token (`eyJ`).
static FIRST_BYTES: [bool; 256] = {
    let mut t = [false; 256];
    t[b'e' as usize] = true;
    let mut i = 0;
    while i < PREFIXES.len() {
        let p = PREFIXES[i].0.as_bytes();
        if !p.is_empty() {
            t[p[0] as usize] = true;
        }
        i += 1;
    }
    t
};

/// Every credential with a recognisable shape in `s` (a known key prefix at a word start with
/// enough token characters after it, a JSON Web Token, a private key block), as byte ranges of
/// `s` and what each looks like. References are never part of a finding.
pub fn tokens(s: &str) -> Vec<(Range<usize>, &'static str)> {
    tokens_left(&strip_references(s))
}

/// The length of the shortest text [`tokens`] can find: a prefix with the fewest characters
/// it needs after it, a JSON Web Token (`eyJ` and 30 more), a key block's `PRIVATE KEY-----`.
const SHORTEST_TOKEN: usize = {
    let mut n = 3 + 30;
    if "PRIVATE KEY-----".len() < n {
        n = "PRIVATE KEY-----".len();
    }
    let mut i = 0;
    while i < PREFIXES.len() {
        let len = PREFIXES[i].0.len() + PREFIXES[i].1;
        if len < n {
            n = len;
        }
        i += 1;
    }
    n
};

/// [`tokens`] of a string given with its references blanked ([`strip_references`]; the
/// offsets are the same).
fn tokens_left(t: &str) -> Vec<(Range<usize>, &'static str)> {
    let mut found = Vec::new();
    // Most keys and many values are shorter than any token.
    if t.len() < SHORTEST_TOKEN {
        return found;
    }
    // A key block has a run of five dashes: one pass over the bytes before the substring
    // search.
    if let Some(k) = dash_run(t.as_bytes())
        .then(|| t.find("PRIVATE KEY-----"))
        .flatten()
    {
        let start = t[..k].rfind("-----BEGIN").unwrap_or(k);
        let end = t[k..]
            .find("-----END")
            .and_then(|e| {
                let e = k + e;
                t[e..].find("KEY-----").map(|x| e + x + "KEY-----".len())
            })
            .unwrap_or(t.len());
        found.push((start..end, "a private key"));
    }
    let b = t.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // Skip to the next byte that can start a prefix or `eyJ` (all ASCII): nothing before
        // it can match.
        match b
            .get(i..)
            .and_then(|r| r.iter().position(|&c| STARTS[usize::from(c)]))
        {
            Some(n) => i += n,
            None => break,
        }
        // Only at a word start: the previous byte is not an ASCII letter or digit.
        if !t.is_char_boundary(i) || (i > 0 && b[i - 1].is_ascii_alphanumeric()) {
            i += 1;
            continue;
        }
        // Most positions start no prefix: one table lookup instead of a compare per prefix.
        if !FIRST_BYTES[usize::from(b[i])] {
            i += 1;
            continue;
        }
        let rest = &t[i..];
        let mut hit = None;
        for (p, min, what) in PREFIXES {
            // The first byte first (most prefixes do not start with it).
            if p.as_bytes().first() != Some(&b[i]) {
                continue;
            }
            let Some(tail) = rest.strip_prefix(p) else {
                continue;
            };
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
                hit = Some((p.len() + n, *what));
                break;
            }
        }
        if hit.is_none()
            && let Some(tail) = rest.strip_prefix("eyJ")
        {
            let n = tail
                .chars()
                .take_while(|c| token_char(*c) || *c == '.')
                .count();
            let tok = &tail[..n];
            if tok.matches('.').count() == 2 && tok.len() >= 30 {
                hit = Some((3 + n, "a JSON Web Token (`eyJ…`)"));
            }
        }
        match hit {
            Some((len, what)) => {
                if !found.iter().any(|(r, _)| r.contains(&i)) {
                    found.push((i..i + len, what));
                }
                i += len;
            }
            None => i += 1,
        }
    }
    found
}

/// A known credential shape in `s` (see [`tokens`]): what it looks like.
pub fn known_prefix(s: &str) -> Option<&'static str> {
    tokens(s).first().map(|(_, w)| *w)
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
            -p * log2(p)
        })
        .sum()
}

/// `log2(x)` of a positive normal `x`, without the C math library: it is the only function of
/// it mcpconf calls, and linking it costs every run about 0.35 MB of resident pages. `x = m ·
/// 2^e` with `m` in [1, 2), and `log2 m = 2 atanh(t) / ln 2` with `t = (m − 1)/(m + 1) < 1/3`,
/// whose series is summed to double precision.
fn log2(x: f64) -> f64 {
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let m = f64::from_bits((bits & ((1 << 52) - 1)) | (1023 << 52));
    let t = (m - 1.0) / (m + 1.0);
    let t2 = t * t;
    let (mut term, mut sum) = (t, 0.0);
    for k in 0..40 {
        sum += term / f64::from(2 * k + 1);
        term *= t2;
    }
    e as f64 + 2.0 * sum / std::f64::consts::LN_2
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
/// `Bearer`/`Basic` token or a random-looking value; a password or key in a URL; an option
/// with a credential-like name and a literal value (`--api-key=…`).
pub fn classify(name: &str, value: &str) -> Option<&'static str> {
    classify_left(credential_name(name), &strip_references(value), value)
}

/// [`classify`] and [`must_hide`] at once, the references blanked once for both (lint
/// classifies every string of every entry and remembers those it must hide).
pub fn assess(name: &str, value: &str) -> (Option<&'static str>, bool) {
    let stripped = strip_references(value);
    let credential = credential_name(name);
    let what = classify_left(credential, &stripped, value);
    (
        what,
        what.is_some() || (credential && literal_left(&stripped, value)),
    )
}

/// [`classify`] of a value given with its references blanked ([`strip_references`]), under a
/// name that looks like it carries a credential or not ([`credential_name`]); `value` is the
/// value as written.
fn classify_left(credential: bool, stripped: &str, value: &str) -> Option<&'static str> {
    // `known_prefix` of the value.
    if let Some((_, what)) = tokens_left(stripped).first() {
        return Some(what);
    }
    let literal = stripped.trim();
    if literal.is_empty() {
        return None;
    }
    if !credential {
        return url_credential(literal)
            .or_else(|| option_credential(value))
            .or_else(|| embedded(value));
    }
    // `Authorization: Bearer abc…` / `Basic …` with a literal token.
    if let Some((scheme, token)) = literal.split_once(' ') {
        let scheme = scheme.to_ascii_lowercase();
        if (scheme == "bearer" || scheme == "basic" || scheme == "token")
            && token.trim().chars().count() >= 8
            && !token.contains(' ')
            && !mere_placeholder(token.trim())
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
        .or_else(|| option_credential(value))
        .or_else(|| embedded(value))
}

/// A credential inside the value where [`super::spans::secret_spans`] finds one (a pair such
/// as `Password=…;` or `"apiKey": "…"`, a header line, a literal `Bearer` token, …).
fn embedded(value: &str) -> Option<&'static str> {
    // The tokens of a known shape were looked for first (`tokens_left`).
    super::spans::secret_beyond_tokens(value).then_some(EMBEDDED_CREDENTIAL)
}

/// What [`classify`] says of a credential found inside a longer value.
pub const EMBEDDED_CREDENTIAL: &str = "a credential inside the value";

/// Whether a URL query parameter's name says its value is a credential: a credential-like
/// name ([`credential_name`]) or a signature's short name (`sig`, as in signed URLs; `hmac`).
pub fn query_name(name: &str) -> bool {
    credential_name(name) || ["sig", "hmac"].iter().any(|w| name.eq_ignore_ascii_case(w))
}

/// A credential option with a literal value anywhere in `s` read as a command line
/// (`--api-key=…`, `npx srv --token=…`, `tool --token …`; [`super::argv::values_in`]).
fn option_credential(s: &str) -> Option<&'static str> {
    (!super::argv::values_in(s).is_empty()).then_some(OPTION_CREDENTIAL)
}

/// What [`classify`] says of a credential in a command-line option.
pub const OPTION_CREDENTIAL: &str = "a credential in a command-line option";

/// What a value that follows a credential option in an argument vector looks like
/// (`["--api-key", "V"]`, [`super::argv::trailing_flag`]), or `None` when it is only
/// references or trivially plain: [`classify`] under the option's name, else a credential in
/// a command-line option.
pub fn classify_after(flag: &str, value: &str) -> Option<&'static str> {
    classify(flag, value).or_else(|| super::argv::value_after(value).then_some(OPTION_CREDENTIAL))
}

/// Whether a credential-named query parameter's value is a literal credential: anything but
/// nothing, references, a placeholder ([`placeholder`]) or `true` / `false` / `null`, whatever its length (a short token in
/// a URL is still a token).
pub fn query_secret(v: &str) -> bool {
    let t = v.trim();
    !t.is_empty()
        && !only_references(t)
        && !mere_placeholder(t)
        && !["true", "false", "null"]
            .iter()
            .any(|w| t.eq_ignore_ascii_case(w))
}

/// A password in a URL's user info, or a credential-like query parameter with a literal value.
pub fn url_credential(s: &str) -> Option<&'static str> {
    let (_, rest) = s.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if let Some((userinfo, _)) = authority.rsplit_once('@')
        && let Some((_, pass)) = userinfo.split_once(':')
        && pass.trim().chars().count() >= 4
        && !mere_placeholder(pass.trim())
    {
        return Some("a password in the URL");
    }
    let query = rest.split_once('?').map(|(_, q)| q).unwrap_or("");
    for pair in query.split('&') {
        if let Some((k, v)) = pair.split_once('=') {
            let v = v.split('#').next().unwrap_or("");
            if query_name(k) && query_secret(v) {
                return Some("a credential in the URL's query");
            }
        }
    }
    None
}

/// Whether a value found under `name` must not be shown: the detector flags it, or it sits
/// under a credential-like name and is neither only references nor trivially plain.
pub fn must_hide(name: &str, value: &str) -> bool {
    hide(name, value, classify(name, value).is_some())
}

/// [`must_hide`] given whether [`classify`] flags the value.
pub fn hide(name: &str, value: &str, classified: bool) -> bool {
    classified || (credential_name(name) && literal_left(&strip_references(value), value))
}

/// Whether `value` (given also with its references blanked, [`strip_references`]) holds a
/// literal worth hiding under a credential-like name: more than references and a scheme word,
/// and not a trivial word or number ([`hide`], [`assess`]).
fn literal_left(stripped: &str, value: &str) -> bool {
    !only_references_left(stripped) && !trivial(value)
}

/// Whether a value found under a credential-like name holds a literal worth hiding: more than
/// references and a scheme word, and not a trivial word or number (what [`must_hide`] adds to
/// [`classify`] under such a name).
pub fn literal(value: &str) -> bool {
    literal_left(&strip_references(value), value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The entropy's own `log2` is the math library's to within a few units in the last place,
    /// for every probability a string of up to 400 characters gives.
    #[test]
    fn log2_is_the_math_librarys() {
        for n in 1..400u32 {
            for k in 1..=n {
                let p = f64::from(k) / f64::from(n);
                let (ours, libm) = (log2(p), p.log2());
                assert!(
                    (ours - libm).abs() <= 4.0 * f64::EPSILON * libm.abs().max(1.0),
                    "{p}"
                );
            }
        }
    }

    #[test]
    fn a_credential_inside_a_command_substitution_is_still_found() {
        // A word inside `$(…)` is judged as a value of its own: a URL's query credential too.
        let q = "$(curl -s https://h.example/o?se=1&sig=Qz7Rv3Lm9TwPl4nt)";
        assert!(strip_references(q).contains("sig=Qz7Rv3Lm9TwPl4nt"), "{q}");
        assert!(classify("value", q).is_some());
        // A `$(` not closed on its line is no substitution: the lines after it are examined.
        let open = "pa$(@ss:\n https://h.example/o?se=1&sig=Qz7Rv3Lm9TwPl4nt \n-)";
        assert!(strip_references(open).contains("sig=Qz7Rv3Lm9TwPl4nt"));
        // A plain command stays a command (`Bearer $(cat token)` is no literal credential).
        assert!(classify("Authorization", "Bearer $(cat /run/token)").is_none());
    }

    #[test]
    fn a_name_is_judged_by_its_words_not_by_letters_inside_ordinary_words() {
        for n in [
            "GIT_AUTHOR_NAME",
            "GitAuthorEmail",
            "git-author-date",
            "TOKENIZERS_PARALLELISM",
            "KEYBOARD_LAYOUT",
            "SEARCH_KEYWORDS",
            "PASSTHROUGH_ENV",
            "monkey",
            "uncertain",
        ] {
            assert!(!credential_name(n), "{n}");
        }
        for n in [
            "AUTHOR_TOKEN",
            "GIT_AUTHOR_API_KEY",
            "OAUTH_CLIENT_SECRET",
            "APIKEY",
            "PASSWORD",
            "x-auth-token",
            "Authorization",
            "authorKey",
            "KEYBOARD_SECRET",
            "PRIVATE_KEY",
            "DB_PASSWD",
        ] {
            assert!(credential_name(n), "{n}");
        }
        // A value under such a name: a name is not a secret word, a shaped token still is.
        assert!(!must_hide("GIT_AUTHOR_NAME", "Dev Bot"));
        assert!(
            classify(
                "GIT_AUTHOR_NAME",
                "ghp_0123456789abcdefghijklmnopqrstuvwxyz"
            )
            .is_some()
        );
    }

    #[test]
    fn credential_names_by_first_letter_agree_with_every_window() {
        let mut names: Vec<String> = [
            "",
            "a",
            "AUTH",
            "x-api-key",
            "GITHUB_TOKEN",
            "Authorization",
            "PATH",
            "HOME",
            "passwd",
            "PWD",
            "dsn",
            "DSNx",
            "monkey",
            "keystone",
            "Cookie",
            "bearer_token_env_var",
            "tok",
            "toke",
            "sessio",
            "certain",
            "GIT_AUTHOR_NAME",
            "AuthorToken",
            "tokenizers",
            "priv",
            "signatur",
            "credentia",
            "Ünïcödé-key",
        ]
        .map(String::from)
        .to_vec();
        for w in CREDENTIAL_WORDS {
            for cut in 1..w.len() {
                names.push(format!("x{}_", &w[..cut]));
                names.push(format!("{}{}", &w[..cut].to_uppercase(), &w[cut..]));
            }
        }
        for n in &names {
            assert_eq!(credential_name(n), credential_name_by_windows(n), "{n}");
        }
        assert!(dash_run(b"-----BEGIN") && dash_run(b"a-----") && !dash_run(b"-- -- --"));
        assert!(!dash_run(b"----") && !dash_run(b""));
    }

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

    /// Every shape's shortest instance is found, so no string skipped as shorter than
    /// `SHORTEST_TOKEN` holds one; one character less is not.
    #[test]
    fn the_shortest_tokens_are_found() {
        assert_eq!(SHORTEST_TOKEN, 15);
        for (p, min, _) in PREFIXES {
            let t = format!("{p}{}", "A".repeat(*min));
            assert_eq!(tokens(&t).len(), 1, "{t}");
            assert!(tokens(&t[..t.len() - 1]).is_empty(), "{t}");
            assert!(t.len() >= SHORTEST_TOKEN);
        }
        let jwt = format!("eyJ{}.b.c", "a".repeat(26));
        assert_eq!((jwt.len(), tokens(&jwt).len()), (33, 1));
        assert!(tokens(&jwt[1..]).is_empty());
        let key = "PRIVATE KEY-----";
        assert_eq!((key.len(), tokens(key).len()), (16, 1));
        assert!(tokens(&key[1..]).is_empty());
    }

    #[test]
    fn token_ranges_cover_the_token_only() {
        let s = "x --token=sk-abcdefghijklmnopqrstuvwxyz0123 y ${A} eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefgh";
        let t = tokens(s);
        assert_eq!(t.len(), 2);
        assert_eq!(&s[t[0].0.clone()], "sk-abcdefghijklmnopqrstuvwxyz0123");
        assert!(s[t[1].0.clone()].starts_with("eyJ") && s[t[1].0.clone()].ends_with("abcdefgh"));
        let k = "a -----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- b";
        let t = tokens(k);
        assert_eq!(&k[t[0].0.clone()], &k[2..k.len() - 2]);
        assert_eq!(strip_references("a${B}c$D e").len(), "a${B}c$D e".len());
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
        assert!(classify("args", "--api-key=hunter2hunter2").is_some());
        assert!(classify("args", "--api-key=${KEY}").is_none());
        assert!(classify("args", "--token-ttl=3600").is_none());
        assert!(classify("args", "--port=3600").is_none());
    }

    /// `assess` blanks the references once for both answers: the same answers as `classify`
    /// and `must_hide`, each of which blanks them on its own.
    #[test]
    fn assess_is_classify_and_must_hide() {
        let names = [
            "",
            "url",
            "args",
            "API_KEY",
            "Authorization",
            "GITHUB_TOKEN",
            "PATH",
        ];
        let values = [
            "",
            "  ",
            "${env:GITHUB_TOKEN}",
            "Bearer ${env:API_TOKEN}",
            "Bearer ${A}x",
            "token $T",
            "{env:K} {env:L}",
            "$$A",
            "ghp_${TOKEN_REST_OF_IT_IS_AN_ENV_VAR}",
            "sk-abcdefghijklmnopqrstuvwxyz0123",
            "x ${A} sk-abcdefghijklmnopqrstuvwxyz0123",
            "Bearer abcdef123456",
            "hunter2!",
            "oauth",
            "TRUE",
            "Null",
            "3600",
            "9f86d081884c7d659a2feaa0c55ad015",
            "https://u:hunter22@example.com/mcp",
            "https://example.com/mcp?api_key=${K}&token=abcdef123456xyz",
            "--api-key=hunter2hunter2",
            "--api-key=${KEY}",
            "a -----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- b",
            "${unclosed",
            "é${A}ü",
        ];
        for n in names {
            for v in values {
                assert_eq!(assess(n, v), (classify(n, v), must_hide(n, v)), "{n} {v}");
            }
        }
    }

    #[test]
    fn must_hide_is_the_union_of_name_and_shape() {
        assert!(must_hide("DB_PASS", "hunter2!"));
        assert!(!must_hide("AUTH_MODE", "oauth"));
        assert!(!must_hide("bearer_token_env_var", "OPENAB_SESSION_TOKEN"));
        assert!(must_hide("OPENAI", "sk-abcdefghijklmnopqrstuvwxyz0123"));
        assert!(!must_hide("PATH", "/usr/bin:/bin"));
        // A client-prompted input is a reference, whatever its id.
        assert!(!must_hide("GITHUB_TOKEN", "${input:github-pat.v2}"));
        assert!(!must_hide("Authorization", "Bearer ${input:gh_pat}"));
        assert!(must_hide("GITHUB_TOKEN", "${input:x}hunter2hunter2"));
    }
}
