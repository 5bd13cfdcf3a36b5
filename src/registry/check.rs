//! Registry data is untrusted input (issue 39): what a registry answers is checked before any
//! of it reaches `mcpconf.lock` and, through it, a client's file.
//!
//! - A package's identifier and version must name a package, not be read as something else by
//!   the command that runs it: no leading `-` (`npx -y --registry=…`, `docker run … --privileged`
//!   would take it as an option), no `..` path segment, no white space, NUL or other control
//!   character (`unsupported-package`).
//! - Environment variable and header names must be names: no NUL, `=`, white space or control
//!   character, no leading `-`; a header name is an HTTP token (`registry-error`).
//! - The lock never holds a credential: every value of the resolved entry (`command`, `args`,
//!   `env`, `url`, `headers`) is judged by the one detector, by its place
//!   (`redact::must_hide`, the argument vector's option values), and a value it flags refuses
//!   the lock with the server and the field named, never the value (`registry-error`).
//!
//! Messages never quote what they refuse.

use serde_json::Value;

/// Why a package's identifier or version cannot be run as it stands, or `None`.
pub(super) fn package(id: &str, version: Option<&str>) -> Option<String> {
    let word = |what: &str, v: &str| -> Option<String> {
        if v.starts_with('-') {
            return Some(format!(
                "its {what} starts with `-` (the command would read it as an option)"
            ));
        }
        if v.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Some(format!(
                "its {what} holds white space or a control character"
            ));
        }
        if v.split(['/', '\\']).any(|seg| seg == "..") {
            return Some(format!("its {what} holds a `..` path segment"));
        }
        None
    };
    word("identifier", id).or_else(|| version.and_then(|v| word("version", v)))
}

/// Whether `name` is a name a client file may hold for an environment variable.
fn env_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('-')
        && !name
            .chars()
            .any(|c| c == '=' || c.is_whitespace() || c.is_control())
}

/// Whether `name` is an HTTP header name (RFC 9110 `token`).
fn header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c))
}

/// The first environment variable or header name of a resolved entry that is not one: the
/// field's kind and why (the name itself is not quoted).
pub(super) fn names(entry: &Value) -> Option<String> {
    for (map, ok, what) in [
        (
            "env",
            env_name as fn(&str) -> bool,
            "an environment variable name",
        ),
        ("headers", header_name, "a header name"),
    ] {
        if let Some(m) = entry.get(map).and_then(Value::as_object)
            && m.keys().any(|k| !ok(k))
        {
            return Some(format!(
                "it declares {what} that is not one (empty, a leading `-`, `=`, white space, NUL or another control character)"
            ));
        }
    }
    let args = entry.get("args").and_then(Value::as_array);
    if args
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .any(|a| a.contains('\0'))
    {
        return Some("an argument holds a NUL character".into());
    }
    None
}

/// The first field of a resolved entry that holds what the detector calls a credential
/// (`env.NAME`, `headers.NAME`, `args[i]`, `url`, `command`), or `None`.
pub(super) fn credential(entry: &Value) -> Option<String> {
    use crate::redact::must_hide;
    for map in ["env", "headers"] {
        for (k, v) in entry
            .get(map)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            if v.as_str().is_some_and(|v| must_hide(k, v)) {
                return Some(format!("{map}.{k}"));
            }
        }
    }
    for key in ["command", "url"] {
        if entry
            .get(key)
            .and_then(Value::as_str)
            .is_some_and(|v| must_hide(key, v))
        {
            return Some(key.to_string());
        }
    }
    let args: Vec<&str> = entry
        .get("args")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if let Some(i) = args.iter().position(|a| must_hide("args", a)) {
        return Some(format!("args[{i}]"));
    }
    crate::redact::argv::values(&args)
        .first()
        .map(|(i, _)| format!("args[{i}]"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn identifiers_that_would_be_options_or_paths_are_refused() {
        for (id, version) in [
            ("--registry=https://evil.example", None),
            ("--privileged", Some("1.0.0")),
            ("@acme/x", Some("-1")),
            ("../../etc/passwd", None),
            ("acme/..\\x", None),
            ("acme x", None),
            ("acme\u{0}x", None),
        ] {
            assert!(package(id, version).is_some(), "{id:?} {version:?}");
        }
        for (id, version) in [
            ("@acme/files", Some("1.2.3")),
            ("ghcr.io/acme/files", Some("1.0.0-rc.1")),
            ("Acme.Files", None),
        ] {
            assert!(package(id, version).is_none(), "{id:?}");
        }
    }

    #[test]
    fn names_and_credentials_of_a_resolved_entry() {
        assert!(names(&json!({"env": {"A\u{0}B": "x"}})).is_some());
        assert!(names(&json!({"env": {"A=B": "x"}})).is_some());
        assert!(names(&json!({"headers": {"X Key": "x"}})).is_some());
        assert!(
            names(&json!({"env": {"API_KEY": "${API_KEY}"}, "headers": {"X-Key": "v"}})).is_none()
        );
        let sk = "sk-live-0123456789abcdefghij";
        assert_eq!(
            credential(&json!({"env": {"K": sk}})).as_deref(),
            Some("env.K")
        );
        assert_eq!(
            credential(&json!({"url": "https://u:pa55word@h/x"})).as_deref(),
            Some("url")
        );
        assert_eq!(
            credential(&json!({"args": ["-y", "--token", "Zq8vW2nR5tY7uP3x"]})).as_deref(),
            Some("args[2]")
        );
        assert_eq!(
            credential(
                &json!({"command": "npx", "args": ["-y", "x@1"], "env": {"API_KEY": "${API_KEY}", "LOG": "info"}})
            ),
            None
        );
    }
}
