//! Diagnostics: what every layer reports when it refuses something, with a stable code and a
//! position. A leaf: it knows no other module.
//!
//! ```
//! use mcpconf::diag::{Code, Diagnostic};
//!
//! let d = Diagnostic {
//!     path: "/p/.cursor/mcp.json".into(),
//!     code: Code::DuplicateKey,
//!     message: "the key `a` appears twice".into(),
//!     line: 3,
//!     column: 7,
//! };
//! assert_eq!(d.code.to_string(), "duplicate-key");
//! assert_eq!(d.to_string(), "/p/.cursor/mcp.json:3:7: the key `a` appears twice");
//! ```

use std::fmt;

use serde::Serialize;

macro_rules! codes {
    ($($(#[doc = $doc:literal])* $variant:ident = $text:literal,)*) => {
        /// A stable error code. Its text form ([`Code::as_str`], `Display`, JSON) is the
        /// kebab-case id of the machine output; new codes may be added.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Code {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Code {
            /// Every code.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The kebab-case id.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $text,)*
                }
            }
        }
    };
}

codes! {
    /// Not valid in the file's syntax.
    ParseError = "parse-error",
    /// Not UTF-8.
    InvalidUtf8 = "invalid-utf8",
    /// The same key twice in one object.
    DuplicateKey = "duplicate-key",
    /// Nested too deeply.
    TooDeep = "too-deep",
    /// Empty or whitespace only.
    EmptyFile = "empty-file",
    /// A container on the way to the servers is not an object.
    NotAnObject = "not-an-object",
    /// Exists but cannot be read.
    Unreadable = "unreadable",
    /// A directory, FIFO, socket or device where a file should be.
    NotAFile = "not-a-file",
    /// The path's links loop.
    SymlinkLoop = "symlink-loop",
    /// The path's links end nowhere.
    DanglingSymlink = "dangling-symlink",
    /// A project file links outside the project root.
    SymlinkEscape = "symlink-escape",
    /// The file has several names.
    HardLink = "hard-link",
    /// Over the size limit.
    TooLarge = "too-large",
    /// An entry the owner did not write differs from the manifest.
    Conflict = "conflict",
    /// An entry the owner wrote was edited since.
    Drift = "drift",
    /// `status --check` with a manifest that declares targets and no ledger records (never
    /// applied here).
    NoRecords = "no-records",
    /// The client cannot express a field of a server.
    CannotExpress = "cannot-express",
    /// Two targets read one file in different syntaxes.
    MixedClients = "mixed-clients",
    /// A TOML file that cannot be re-rendered byte for byte.
    CannotPreserve = "cannot-preserve",
    /// Valid YAML outside the subset mcpconf edits byte for byte (anchors, aliases, tags,
    /// merge keys, several documents, multi-line plain scalars, flow-style containers).
    UnsupportedYaml = "unsupported-yaml",
    /// The manifest is not valid.
    ManifestError = "manifest-error",
    /// There is no manifest.
    ManifestMissing = "manifest-missing",
    /// A command line that cannot be run as given (an unknown flag, a missing directory, …).
    UsageError = "usage-error",
    /// The changes were not confirmed.
    NotConfirmed = "not-confirmed",
    /// The saved plan no longer matches.
    StalePlan = "stale-plan",
    /// Another writer held a lock too long.
    LockTimeout = "lock-timeout",
    /// The file changed between reading and replacing it.
    ConcurrentModification = "concurrent-modification",
    /// The ledger is not a ledger of this owner.
    LedgerCorrupt = "ledger-corrupt",
    /// Another I/O failure.
    IoError = "io-error",
    /// Permission denied.
    PermissionDenied = "permission-denied",
    /// Not found.
    NotFound = "not-found",
    /// A client file holds no MCP server (`import`): there is nothing to make a manifest of.
    NoServers = "no-servers",
    /// The file system is read-only.
    ReadOnly = "read-only",
    /// The disk is full.
    DiskFull = "disk-full",
    /// An owner that is not a valid name.
    InvalidOwner = "invalid-owner",
    /// A client id that does not exist.
    UnknownClient = "unknown-client",
    /// An edit that could not be proven (a bug, reported instead of written).
    InternalEditError = "internal-edit-error",
    /// An undo hint that does not hold only whitespace.
    InvalidHint = "invalid-hint",
    /// A path that cannot name a file (e.g. `..` below a missing directory).
    InvalidPath = "invalid-path",
    /// A saved plan applied with other directories than it was made with.
    PlanMismatch = "plan-mismatch",
    /// A ledger record without the shape mcpconf writes (forged or corrupted).
    InvalidLedger = "invalid-ledger",
    /// A workspace that is not a valid name.
    InvalidWorkspace = "invalid-workspace",
    /// A lint rule id that does not exist.
    UnknownRule = "unknown-rule",
    /// A `${VAR}` reference whose variable is not set (when references are resolved).
    UnsetVariable = "unset-variable",
    /// A saved plan file that is not a saved plan of this version.
    InvalidPlan = "invalid-plan",
    /// The MCP registry could not be asked, or its answer is malformed.
    RegistryError = "registry-error",
    /// A registry server has no package or remote mcpconf can write.
    UnsupportedPackage = "unsupported-package",
}

impl Code {
    /// The code with this kebab-case id.
    pub fn from_id(id: &str) -> Option<Code> {
        Code::ALL.iter().copied().find(|c| c.as_str() == id)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Comparing with the kebab-case id, for assertions (`assert_eq!(e.code, "parse-error")`).
impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// Comparing with the kebab-case id, for assertions.
impl PartialEq<str> for Code {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

/// One refusal in the machine output: where, which code, one sentence. The JSON form (field
/// order included) is the `errors[]` element of the contract.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    /// The file (absolute), the manifest, or empty for the run as a whole.
    pub path: String,
    /// The stable code.
    pub code: Code,
    /// One sentence.
    pub message: String,
    /// 1-based.
    pub line: usize,
    /// 1-based.
    pub column: usize,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.path, self.line, self.column, self.message
            )
        }
    }
}

impl std::error::Error for Diagnostic {}

/// A refusal with a stable code and one sentence but no position of its own: an unknown lint
/// rule, a saved plan that no longer matches, a ledger that cannot be read. The caller that
/// knows the file adds it (usually as a [`Diagnostic`]).
///
/// ```
/// use mcpconf::diag::Code;
///
/// let e = mcpconf::lint::check_rule("literal-secrets").unwrap_err();
/// assert_eq!(e.code, Code::UnknownRule);
/// assert!(e.to_string().contains("did you mean `literal-secret`?"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The stable code.
    pub code: Code,
    /// One sentence (never a secret value).
    pub message: String,
}

impl Error {
    /// An error with this code and sentence.
    pub fn new(code: Code, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// A refusal to read a file, with a stable code and a 1-based position.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadError {
    /// The stable code (`parse-error`, `duplicate-key`, …).
    pub code: Code,
    /// One sentence.
    pub message: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for ReadError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_kebab_case_and_round_trip() {
        let mut seen = std::collections::BTreeSet::new();
        for c in Code::ALL {
            let id = c.as_str();
            assert!(seen.insert(id), "{id} twice");
            assert!(
                id.split('-').all(|w| !w.is_empty()
                    && w.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())),
                "{id}"
            );
            assert_eq!(Code::from_id(id), Some(*c));
            assert_eq!(serde_json::to_string(c).unwrap(), format!("\"{id}\""));
        }
        assert_eq!(Code::from_id("no-such-code"), None);
    }
}
