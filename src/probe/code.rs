//! The stable ids of probe failures.

use std::fmt;

use serde::Serialize;

macro_rules! failure_codes {
    ($($(#[doc = $doc:literal])* $variant:ident = $text:literal,)*) => {
        /// Why probing one server failed: a stable id, whose text form ([`FailureCode::as_str`],
        /// `Display`, JSON) is the `code` of the probe report; new codes may be added.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum FailureCode {
            $($(#[doc = $doc])* $variant,)*
        }

        impl FailureCode {
            /// Every code.
            pub const ALL: &'static [FailureCode] = &[$(FailureCode::$variant,)*];

            /// The kebab-case id.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(FailureCode::$variant => $text,)*
                }
            }
        }
    };
}

failure_codes! {
    /// A `${VAR}` reference in the declaration is not set (the probe reports such a server as
    /// [`FailureCode::NeedsConfig`], naming every variable; this code is kept for embedders).
    UnsetVariable = "unset-variable",
    /// A bad header name or value, a malformed URL, an unusable `cwd`.
    InvalidConfig = "invalid-config",
    /// The command could not be started (not found, missing working directory, …).
    SpawnFailed = "spawn-failed",
    /// The server process ended before the exchange did.
    Exited = "exited",
    /// The deadline passed.
    Timeout = "timeout",
    /// Output that is not JSON-RPC.
    InvalidOutput = "invalid-output",
    /// More output than the byte caps allow.
    OutputTooLarge = "output-too-large",
    /// The server answered with a JSON-RPC error.
    JsonrpcError = "jsonrpc-error",
    /// A malformed or inconsistent exchange (a repeated cursor, a wrong id, …).
    Protocol = "protocol",
    /// The server wants authorization (`401` with OAuth metadata).
    NeedsAuth = "needs-auth",
    /// Another HTTP status.
    HttpError = "http-error",
    /// A TLS failure (certificate, handshake).
    Tls = "tls",
    /// The connection could not be made (to the server, or to its proxy).
    ConnectFailed = "connect-failed",
    /// The proxy answered `CONNECT` with a status other than 2xx (the status is reported).
    ProxyRefused = "proxy-refused",
    /// The proxy URL's scheme is not `http://` (`socks5://`, `https://`, …).
    ProxyUnsupported = "proxy-unsupported",
    /// Another I/O failure.
    IoError = "io-error",
    /// The server failed a `--smoke` check.
    Smoke = "smoke",
    /// The server's version is below the manifest's `min_version`, or cannot be compared.
    Version = "version",
    /// References of the declaration are not set in the environment (names reported).
    NeedsConfig = "needs-config",
    /// The probe itself failed (a bug).
    Internal = "internal",
}

impl fmt::Display for FailureCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for FailureCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Comparing with the kebab-case id, for assertions (`assert_eq!(o.code.unwrap(), "timeout")`).
impl PartialEq<&str> for FailureCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_serialize_as_their_text() {
        let mut seen = std::collections::BTreeSet::new();
        for c in FailureCode::ALL {
            assert!(seen.insert(c.as_str()), "{c} twice");
            assert_eq!(serde_json::to_string(c).unwrap(), format!("\"{c}\""));
        }
    }
}
