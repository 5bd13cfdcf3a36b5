//! Authorization discovery, as the MCP specification defines it: a 401 answer's
//! `WWW-Authenticate` challenge (`resource_metadata`, `scope`), then the OAuth 2.0 Protected
//! Resource Metadata (RFC 9728) it points to, or the well-known URIs. The probe reports where
//! to log in; it does not run an interactive OAuth flow (a static bearer token in `headers`
//! is sent as declared).

use std::io::Read;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use super::FailureCode;
use super::http::{HttpConn, Response, Url};
use super::{Failure, fail};

/// Where and how a server wants its clients to log in. (The JSON names avoid words such as
/// "auth" that output redaction treats as credential names.)
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct AuthInfo {
    /// The protected-resource metadata document read (or tried last).
    #[serde(rename = "metadata")]
    pub resource_metadata: Option<String>,
    /// The authorization servers (issuers) the metadata names.
    #[serde(rename = "issuers")]
    pub authorization_servers: Vec<String>,
    /// The scopes the challenge asks for, else those the metadata lists.
    pub scopes: Vec<String>,
}

/// The auth-params of a `WWW-Authenticate` value (names lower-cased), scheme words skipped.
pub(super) fn challenge_params(value: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let b = value.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // A token: a scheme word or a parameter name.
        let start = i;
        while i < b.len() && !matches!(b[i], b'=' | b',' | b' ' | b'\t') {
            i += 1;
        }
        let name = value[start..i].trim().to_ascii_lowercase();
        while i < b.len() && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
        if i < b.len() && b[i] == b'=' && !name.is_empty() {
            i += 1;
            while i < b.len() && matches!(b[i], b' ' | b'\t') {
                i += 1;
            }
            let mut v = String::new();
            if i < b.len() && b[i] == b'"' {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' && i + 1 < b.len() {
                        i += 1;
                    }
                    let c = value[i..].chars().next().unwrap_or(' ');
                    v.push(c);
                    i += c.len_utf8();
                }
                i += 1;
            } else {
                let s = i;
                while i < b.len() && !matches!(b[i], b',' | b' ' | b'\t') {
                    i += 1;
                }
                v.push_str(&value[s..i]);
            }
            out.push((name, v));
        }
        while i < b.len() && matches!(b[i], b',' | b' ' | b'\t') {
            i += 1;
        }
    }
    out
}

/// The failure for a 401: `needs-auth`, with what the metadata says.
pub(super) fn needs_auth(
    conn: &HttpConn<'_>,
    server: &Url,
    resp: &Response,
    what: &str,
    detail: &str,
    deadline: Instant,
) -> Failure {
    let challenge = resp.header_all("www-authenticate");
    let params = challenge_params(&challenge);
    let param = |n: &str| params.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
    let mut info = AuthInfo {
        scopes: param("scope")
            .map(|s| s.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default(),
        ..AuthInfo::default()
    };
    // The metadata URL from the challenge, else the well-known URIs (path-inserted, then root).
    let mut candidates = Vec::new();
    match param("resource_metadata") {
        Some(u) => candidates.extend(server.join(u).ok()),
        None => {
            let path = server.path().trim_end_matches('/');
            if !path.is_empty() {
                candidates.extend(
                    server
                        .join(&format!("/.well-known/oauth-protected-resource{path}"))
                        .ok(),
                );
            }
            candidates.extend(server.join("/.well-known/oauth-protected-resource").ok());
        }
    }
    let d = deadline.min(Instant::now() + Duration::from_secs(10));
    let mut note = String::new();
    for url in candidates {
        info.resource_metadata = Some(url.to_string());
        match fetch_metadata(conn, &url, d) {
            Ok(doc) => {
                info.authorization_servers = doc
                    .get("authorization_servers")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_string)
                            .collect()
                    })
                    .unwrap_or_default();
                if info.scopes.is_empty() {
                    info.scopes = doc
                        .get("scopes_supported")
                        .and_then(Value::as_array)
                        .map(|a| {
                            a.iter()
                                .filter_map(Value::as_str)
                                .map(str::to_string)
                                .collect()
                        })
                        .unwrap_or_default();
                }
                note.clear();
                break;
            }
            Err(why) => note = why,
        }
    }
    let mut msg = format!("the server requires authorization (HTTP 401 in answer to {what})");
    if detail.chars().any(char::is_alphanumeric) {
        msg.push_str(&format!(": {detail}"));
    }
    if let Some(e) = param("error") {
        msg.push_str(&format!(
            ", error `{}`",
            conn.secrets().snippet(e.as_bytes(), 60)
        ));
    }
    if !info.authorization_servers.is_empty() {
        msg.push_str(&format!(
            "; log in at {}",
            info.authorization_servers.join(", ")
        ));
    }
    if !info.scopes.is_empty() {
        msg.push_str(&format!("; scopes: {}", info.scopes.join(" ")));
    }
    match &info.resource_metadata {
        Some(u) if note.is_empty() => msg.push_str(&format!(" (from {u})")),
        Some(u) => msg.push_str(&format!("; the protected-resource metadata ({u}) {note}")),
        None => {}
    }
    msg.push_str(
        "; mcpconf does not run an OAuth flow: declare a token in `headers` \
         (`Authorization = \"Bearer ${TOKEN}\"`)",
    );
    let mut f = fail(FailureCode::NeedsAuth, msg);
    f.auth = Some(Box::new(info));
    f
}

/// GET a protected-resource metadata document (JSON, at most 64 KiB).
fn fetch_metadata(conn: &HttpConn<'_>, url: &Url, deadline: Instant) -> Result<Value, String> {
    let mut resp = conn
        .exchange_at(
            url,
            "GET",
            None,
            deadline,
            "the protected-resource metadata",
        )
        .map_err(|f| format!("could not be read: {}", f.message))?;
    if !(200..300).contains(&resp.status) {
        return Err(format!("answered HTTP {}", resp.status));
    }
    let mut buf = Vec::new();
    (&mut resp.body)
        .take(64 * 1024)
        .read_to_end(&mut buf)
        .map_err(|e| format!("could not be read: {e}"))?;
    match serde_json::from_slice::<Value>(&buf) {
        Ok(v) if v.is_object() => Ok(v),
        _ => Err("is not a JSON object".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_are_parsed() {
        let p = challenge_params(
            r#"Bearer resource_metadata="https://h/.well-known/oauth-protected-resource/mcp", scope="files:read  files:write", error=invalid_token, Basic realm="x\"y""#,
        );
        assert_eq!(
            p,
            vec![
                (
                    "resource_metadata".to_string(),
                    "https://h/.well-known/oauth-protected-resource/mcp".to_string()
                ),
                ("scope".into(), "files:read  files:write".into()),
                ("error".into(), "invalid_token".into()),
                ("realm".into(), "x\"y".into()),
            ]
        );
        assert!(challenge_params("Bearer").is_empty());
        assert!(challenge_params("").is_empty());
        assert_eq!(challenge_params("a=\"unterminated").len(), 1);
    }
}
