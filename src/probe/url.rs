//! The `http://` and `https://` URLs the probe and `lock` reach: parsed strictly, with the
//! parts a request needs (host to connect to, authority for `Host`, request target).

use super::{Failure, FailureCode, fail};

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Url {
    /// `https://`.
    pub(super) tls: bool,
    /// Host for connecting (no brackets).
    pub(super) host: String,
    /// `Host` header value.
    pub(super) authority: String,
    pub(super) port: u16,
    /// Path and query.
    pub(super) target: String,
}

impl Url {
    /// `scheme://authority`.
    pub(super) fn origin(&self) -> String {
        format!(
            "{}://{}",
            if self.tls { "https" } else { "http" },
            self.authority
        )
    }

    pub(super) fn same_origin(&self, o: &Url) -> bool {
        self.tls == o.tls && self.host.eq_ignore_ascii_case(&o.host) && self.port == o.port
    }

    /// The path, without the query.
    pub(super) fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("/")
    }

    /// Resolve a reference from a server (an absolute URL, an absolute path, or a path
    /// relative to this one's directory).
    pub(super) fn join(&self, reference: &str) -> Result<Url, Failure> {
        let r = reference.trim();
        if r.contains("://") {
            return parse_url(r);
        }
        let target = if r.starts_with('/') {
            r.to_string()
        } else {
            let dir = self.path().rsplit_once('/').map(|(d, _)| d).unwrap_or("");
            format!("{dir}/{r}")
        };
        parse_url(&format!("{}{target}", self.origin()))
    }
}

impl std::fmt::Display for Url {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.origin(), self.target)
    }
}

pub(super) fn parse_url(url: &str) -> Result<Url, Failure> {
    let url = url.trim();
    let (tls, rest) = match url.split_once("://") {
        Some((s, rest)) if s.eq_ignore_ascii_case("http") => (false, rest),
        Some((s, rest)) if s.eq_ignore_ascii_case("https") => (true, rest),
        _ => {
            return Err(fail(
                FailureCode::InvalidConfig,
                "the url does not start with `http://` or `https://`",
            ));
        }
    };
    let (authority, target) = match rest.find(['/', '?', '#']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let target = target.split('#').next().unwrap_or("/");
    let target = if target.starts_with('?') {
        format!("/{target}")
    } else if target.is_empty() {
        "/".to_string()
    } else {
        target.to_string()
    };
    if authority.contains('@') {
        return Err(fail(
            FailureCode::InvalidConfig,
            "credentials in the url are not supported; use `headers`",
        ));
    }
    let (host, port) = if let Some(h) = authority.strip_prefix('[') {
        let Some((h, after)) = h.split_once(']') else {
            return Err(fail(
                FailureCode::InvalidConfig,
                "the url's IPv6 host has no `]`",
            ));
        };
        (h.to_string(), after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (authority.to_string(), None),
        }
    };
    let port = match port {
        None | Some("") if tls => 443,
        None | Some("") => 80,
        Some(p) => p
            .parse::<u16>()
            .map_err(|_| fail(FailureCode::InvalidConfig, "the url's port is not a number"))?,
    };
    if host.is_empty() || target.bytes().any(|b| b <= b' ' || b == 0x7f) {
        return Err(fail(
            FailureCode::InvalidConfig,
            "the url has no host, or has spaces or control characters",
        ));
    }
    Ok(Url {
        tls,
        host,
        authority: authority.to_string(),
        port,
        target,
    })
}
