//! Secret redaction for everything mcpconf prints: diffs, plans, JSON and error messages.
//!
//! Values of credential-like env entries and headers are collected from the manifest and from
//! every file read, and each occurrence of such a value (raw and JSON-escaped) in output text is
//! replaced by `<redacted>` — unless the value is only environment references (`${VAR}`,
//! `${env:VAR}`, `{env:VAR}`) optionally behind an auth scheme word (`Bearer ${TOKEN}`).

use serde_json::Value;

/// The text that replaces a secret.
pub const REDACTED: &str = "<redacted>";

/// Whether a header or env name looks like it carries a credential.
pub fn credential_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
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
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// Whether a value is a secret whatever its name: a URL with a password in it
/// (`postgres://user:pw@host`), or a token with a well-known prefix.
pub fn secret_value(value: &str) -> bool {
    let v = value.trim();
    if let Some((_, rest)) = v.split_once("://")
        && let Some((userinfo, _)) = rest.split_once('@')
        && userinfo.contains(':')
        && !userinfo.contains('/')
    {
        return true;
    }
    const PREFIXES: &[&str] = &[
        "sk-",
        "sk_live_",
        "rk_live_",
        "ghp_",
        "gho_",
        "ghu_",
        "ghs_",
        "github_pat_",
        "glpat-",
        "xoxb-",
        "xoxp-",
        "xapp-",
        "AKIA",
        "ASIA",
        "AIza",
        "hf_",
        "npm_",
        "pypi-",
    ];
    v.len() >= 12 && !v.contains(char::is_whitespace) && PREFIXES.iter().any(|p| v.starts_with(p))
}

/// Whether a value is only references (plus an optional scheme word), so safe to show.
pub fn only_references(value: &str) -> bool {
    let mut rest = value.to_string();
    for (open, close) in [("${", "}"), ("{env:", "}")] {
        while let Some(i) = rest.find(open) {
            match rest[i..].find(close) {
                Some(j) => rest.replace_range(i..i + j + close.len(), " "),
                None => break,
            }
        }
    }
    let rest = rest.trim();
    rest.is_empty()
        || ["bearer", "basic", "token"]
            .iter()
            .any(|w| rest.eq_ignore_ascii_case(w))
}

/// Values too plain to be credentials even under a credential-like name (`AUTH_MODE =
/// "oauth"`, `TOKEN_TTL = "3600"`): scrubbing them would garble unrelated output.
fn trivial(value: &str) -> bool {
    let v = value.trim();
    // The name of an environment variable (Codex's `bearer_token_env_var = "API_TOKEN"`).
    let env_name = v.contains('_')
        && v.starts_with(|c: char| c.is_ascii_uppercase() || c == '_')
        && v.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    env_name
        || v.len() < 6
        || (v.len() <= 10
            && v.chars()
                .all(|c| c.is_ascii_lowercase() || c == '-' || c == '_'))
        || v.chars().all(|c| c.is_ascii_digit())
}

/// Collects secrets and scrubs them from text.
#[derive(Debug, Default, Clone)]
pub struct Redactor {
    secrets: Vec<String>,
}

impl Redactor {
    /// Remember a value if it is a credential (by its name) and not only references.
    pub fn consider(&mut self, name: &str, value: &str) {
        if (credential_name(name) || secret_value(value))
            && !only_references(value)
            && !trivial(value)
        {
            self.add(value);
        }
    }

    /// Remember a secret value unconditionally.
    pub fn add(&mut self, value: &str) {
        let mut forms = vec![value.to_string()];
        let escaped = Value::String(value.to_string()).to_string();
        forms.push(escaped[1..escaped.len() - 1].to_string());
        // "Bearer abc" also hides the bare token.
        if let Some((scheme, token)) = value.split_once(' ')
            && ["bearer", "basic", "token"].contains(&scheme.to_ascii_lowercase().as_str())
            && token.trim().len() >= 4
        {
            forms.push(token.trim().to_string());
        }
        for f in forms {
            if !f.is_empty() && !self.secrets.contains(&f) {
                self.secrets.push(f);
            }
        }
        self.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }

    /// Remember every secret another redactor holds.
    pub fn merge(&mut self, other: &Redactor) {
        for s in &other.secrets {
            if !self.secrets.contains(s) {
                self.secrets.push(s.clone());
            }
        }
        self.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }

    /// Walk a JSON value and remember every credential-like string under `env`, `headers`,
    /// `environment`, `http_headers` or any credential-like key.
    pub fn scan(&mut self, v: &Value) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    match x {
                        Value::String(s) => self.consider(k, s),
                        other => self.scan(other),
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|x| self.scan(x)),
            _ => {}
        }
    }

    /// Replace every remembered secret in `text`.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for s in &self.secrets {
            if out.contains(s.as_str()) {
                out = out.replace(s.as_str(), REDACTED);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(secret_value("postgres://app:hunter2@db:5432/app"));
        assert!(!secret_value("https://example.com/a@b"));
        assert!(secret_value("ghp_0123456789abcdef"));
        assert!(!secret_value("sk-"));
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
    }

    #[test]
    fn redacts_raw_escaped_and_bare_token() {
        let mut r = Redactor::default();
        r.scan(&serde_json::json!({"x": {"headers": {"Authorization": "Bearer s3cr3t\"q"}, "env": {"PATH": "/bin"}}}));
        let out = r.redact(r#"a "Bearer s3cr3t\"q" b s3cr3t"q /bin"#);
        assert_eq!(out, "a \"<redacted>\" b <redacted> /bin");
    }
}
